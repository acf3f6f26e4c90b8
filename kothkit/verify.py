"""``kothkit verify JOURNAL``: re-play a journal's games from their seeds and list every difference.

A published journal holds, for each game, its players and their content
hashes, its seed, every reply and the outcome.  Verification loads the bots
(the game's bundled bots, or ``--bots``), checks their hashes against the
journal (a changed or missing bot is reported, and its games cannot be
verified), finds each game's settings (the run whose seed, limits and rules
reproduce the game's id: a game whose id matches no run was altered), plays
the game again, and compares the outcome and every reply.  Exit status 1 if
anything differs or cannot be verified.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import defaultdict
from pathlib import Path
from typing import Annotated, Any, Optional

import attrs
import typer

from kothkit.bots import BotSpec
from kothkit.cli import app, err, fail, load_and_build, out
from kothkit.limits import Limits
from kothkit.records import GameRecord, GameTask
from kothkit.schedule import game_id
from kothkit.seeding import derive

#: Largest game number (within a pair) searched when matching a game to its run: 1000 rounds.
MAX_SLOT = 2000


def _norm(reply: Any) -> str:
    """A reply as the journal stores it (function bots' values go through JSON)."""
    try:
        return json.dumps(reply, sort_keys=True)
    except (TypeError, ValueError):
        return json.dumps(repr(reply))


def outcome_key(r: GameRecord) -> tuple:
    return (r.players, r.winner, r.reason, r.fault, r.verdict, tuple((m.seat, _norm(m.reply)) for m in r.moves))


@attrs.frozen
class Difference:
    record: GameRecord
    what: str


def describe(journal: GameRecord, replay: GameRecord) -> str:
    """What differs between the journal's game and its replay, in one line."""
    parts = []
    ends = [(r.winner, r.reason, r.fault, r.verdict) for r in (journal, replay)]
    if ends[0] != ends[1]:
        parts.append(f"journal: winner {journal.winner or '-'} ({journal.reason}); "
                     f"replay: winner {replay.winner or '-'} ({replay.reason})")
    a = [(m.seat, _norm(m.reply)) for m in journal.moves]
    b = [(m.seat, _norm(m.reply)) for m in replay.moves]
    if a != b:
        i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        ja = a[i][1] if i < len(a) else "(none)"
        jb = b[i][1] if i < len(b) else "(none)"
        parts.append(f"move {i + 1} differs (journal {ja}, replay {jb}; {len(a)} vs {len(b)} moves)")
    return "; ".join(parts) or "differs"


class _Settings:
    """Finds the run (seed, limits, rules) that reproduces a game's id."""

    def __init__(self, runs: list[dict]):
        seen, self.runs = set(), []
        for r in runs:
            key = (r["game"], r["seed"], r["settings"])
            if key not in seen:
                seen.add(key)
                self.runs.append((r["game"], r["seed"], json.loads(r["settings"])))
        #: (tournament seed, pair) -> [game numbers tried so far, {game seed: game number}]
        self.slots: dict[tuple, list] = {}

    def _slot(self, tseed: int, a: str, b: str, seed: int) -> int | None:
        entry = self.slots.setdefault((tseed, a, b), [0, {}])
        table = entry[1]
        while seed not in table and entry[0] < MAX_SLOT:
            table.setdefault(derive(tseed, "game", a, b, entry[0]), entry[0])
            entry[0] += 1
        return table.get(seed)

    def find(self, r: GameRecord) -> tuple[dict, int] | None:
        a, b = sorted(r.players)
        stubs = tuple(BotSpec(name=n, path=Path("."), hash=h) for n, h in zip(r.players, r.hashes))
        for game, tseed, settings in self.runs:
            if game != r.game:
                continue
            k = self._slot(tseed, a, b, r.seed)
            if k is not None and game_id(game, settings, stubs, (a, b, k, tseed)) == r.id:
                return settings, tseed
        return None


def _replay(tasks: list[GameTask], jobs: int, stateful: set[str], on_done) -> None:
    """Play ``tasks`` (in index order) on ``jobs`` workers, stateful bots in order, one game at a time."""
    from kothkit.tournament import dispatch

    dispatch(tasks, jobs=jobs, pin_cpu=bool(tasks) and tasks[0].limits.pin_cpu, stateful=stateful,
             on_done=lambda done, records: on_done(done[0], records[0]))


@app.command()
def verify(
    journal: Annotated[Path, typer.Argument(help="The SQLite journal of a tournament (kothkit run --db).")],
    bots: Annotated[Optional[list[str]], typer.Option("--bots", help="Where the journal's bots are: a folder of bot folders, a bot folder, or file.py:function; repeatable. Default: the game's bundled bots.")] = None,
    jobs: Annotated[Optional[int], typer.Option(help="Games re-played at once (default: the number of cores).")] = None,
    trusted: Annotated[bool, typer.Option("--trusted", help="Call Python function bots in the judge's processes.")] = False,
) -> None:
    """Re-play every game of a journal from its seed with the same bots and list the games that differ."""
    from kothkit.journal import Journal, JournalError, check
    from kothkit.plugins import PluginError, get_game

    if not journal.is_file():
        fail(f"no such journal: {journal}")
    try:
        check(journal)
        with Journal(journal) as j:
            runs = [dict(r) for r in j.db.execute("SELECT * FROM runs ORDER BY id")]
            records = list(j.all())
    except JournalError as e:
        fail(str(e))
    except sqlite3.DatabaseError as e:
        fail(f"{journal}: the journal cannot be read: {e}")
    if not records:
        fail(f"{journal} holds no games")
    settings = _Settings(runs)
    jobs = jobs or os.cpu_count() or 1
    problems: list[str] = []
    differ: list[Difference] = []
    same = 0
    for game in sorted({r.game for r in records}):
        try:
            info = get_game(game)
        except PluginError as e:
            problems.append(f"{game}: {e}")
            continue
        entries = [str(b) for b in bots] if bots else ([str(info.bots)] if info.bots else [])
        specs, _ = load_and_build(entries, info) if entries else ([], [])
        by_name = {s.name: s for s in specs}
        games = [r for r in records if r.game == game]
        unusable: dict[str, list[GameRecord]] = defaultdict(list)
        tasks: list[GameTask] = []
        originals: dict[str, GameRecord] = {}
        for r in games:
            bad = False
            for name, h in zip(r.players, r.hashes):
                spec = by_name.get(name)
                if spec is None:
                    unusable[f"bot {name} not found"].append(r)
                    bad = True
                elif spec.hash != h:
                    unusable[f"bot {name} changed since the tournament (hash {h[:12]} in the journal, "
                             f"{spec.hash[:12]} now)"].append(r)
                    bad = True
            if bad:
                continue
            found = settings.find(r)
            if found is None:
                differ.append(Difference(r, "its id matches no run of the journal: players, hashes, seed or "
                                            "settings were altered"))
                continue
            s, _ = found
            limits = Limits(**s["limits"])
            tasks.append(GameTask(id=r.id, game=game, players=tuple(by_name[n] for n in r.players), seed=r.seed,
                                  limits=limits, rules=dict(s["rules"]), index=r.index, trusted=trusted))
            originals[r.id] = r
        for why, rs in unusable.items():
            problems.append(f"{why}: {len(rs)} game(s) cannot be verified")
        stateful = {b.name for t in tasks for b in t.players if b.stateful}
        if stateful:
            err.print(f"note: {', '.join(sorted(stateful))} keep files between games; their replays start from the "
                      "files as they are now", markup=False)
        out.print(f"{game}: re-playing {len(tasks)} of {len(games)} games, jobs {jobs}", markup=False)

        def on_done(task: GameTask, replay: GameRecord) -> None:
            nonlocal same
            r = originals[task.id]
            if outcome_key(r) == outcome_key(replay):
                same += 1
            else:
                differ.append(Difference(r, describe(r, replay)))

        _replay(sorted(tasks, key=lambda t: t.index), jobs, stateful, on_done)
    for d in sorted(differ, key=lambda d: d.record.index):
        r = d.record
        out.print(f"DIFFERS  game {r.id[:16]} (#{r.index}, {' vs '.join(r.players)}, seed {r.seed}): {d.what}",
                  markup=False, soft_wrap=True)
    for p in problems:
        out.print(f"UNVERIFIED  {p}", markup=False, soft_wrap=True)
    out.print(f"verified {len(records)} games: {same} identical, {len(differ)} differ, "
              f"{len(records) - same - len(differ)} not verifiable", markup=False)
    if differ or problems:
        raise typer.Exit(1)
