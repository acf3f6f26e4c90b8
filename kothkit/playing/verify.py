"""``kothkit verify`` and ``kothkit prune``: re-play a journal's games from their seeds and list
every difference; delete the games that no longer count.

A published journal holds, for each game, its players and their content
hashes, its seed, every reply and the outcome; for each run, its settings and
where it loaded each bot from.  ``verify`` takes what ``kothkit run`` takes (a
challenge folder, a game name with its journal) or a journal itself.  It
finds the bots where the run found them (``--bots``, else the challenge's
bots, the run's recorded places and the game's bundled bots), checks their
hashes against the journal (a bot changed since the tournament, or missing,
is reported, and its games cannot be verified), finds each game's settings
(the run whose seed, limits, rules and game code reproduce the game's id: a
game whose id matches no run was altered), plays the game again, and compares
the outcome and every reply.  By default only the games that count in the
current standings (those of each game's last run) are verified; ``--all``
takes the superseded ones too, and ``kothkit prune`` deletes them.  Exit
status 1 if anything verified differs or cannot be verified.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import attrs

from kothkit.bots.folders import MAX_BYTES, MAX_DEPTH, MAX_FILES, BotError, BotKind, BotSpec, open_regular
from kothkit.game import Match, Prompt
from kothkit.limits import Limits
from kothkit.playing import schedule as _schedule
from kothkit.playing.schedule import game_id
from kothkit.playing.seeding import derive
from kothkit.store.records import GameRecord, GameTask

#: Largest game number (within a pair) searched when matching a game to its run: 1000 rounds.
MAX_SLOT = 2000
#: The rounds of a table schedule tried for a run that did not record its rounds.
MAX_TABLE_ROUNDS = 64


def _norm(reply: Any) -> str:
    """A reply as the journal stores it (function bots' values go through JSON)."""
    try:
        return json.dumps(reply, sort_keys=True)
    except (TypeError, ValueError):
        return json.dumps(repr(reply))


def outcome_key(r: GameRecord) -> tuple:
    return (r.players, r.winner, r.reason, r.offender, r.verdict, tuple((m.seat, _norm(m.reply)) for m in r.moves),
            r.seat_places, r.seat_points, r.seat_verdicts)


def tables_verifiable() -> bool:
    """Whether the schedule re-derives a table's id (``kothkit.playing.schedule.table_slot``): then
    games of more than two seats are verified like a round robin's."""
    return hasattr(_schedule, "table_slot")


@attrs.frozen
class Difference:
    record: GameRecord
    what: str


def describe(journal: GameRecord, replay: GameRecord) -> str:
    """What differs between the journal's game and its replay, in one line."""
    parts = []
    ends = [(r.winner, r.reason, r.offender, r.verdict) for r in (journal, replay)]
    if ends[0] != ends[1]:
        parts.append(f"journal: winner {journal.winner or '-'} ({journal.reason}); "
                     f"replay: winner {replay.winner or '-'} ({replay.reason})")
    seats = [(r.seat_places, r.seat_points, r.seat_verdicts) for r in (journal, replay)]
    if seats[0] != seats[1]:
        parts.append(f"journal: places {journal.seat_places}, verdicts {journal.seat_verdicts}; "
                     f"replay: places {replay.seat_places}, verdicts {replay.seat_verdicts}")
    a = [(m.seat, _norm(m.reply)) for m in journal.moves]
    b = [(m.seat, _norm(m.reply)) for m in replay.moves]
    if a != b:
        i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        ja = a[i][1] if i < len(a) else "(none)"
        jb = b[i][1] if i < len(b) else "(none)"
        parts.append(f"move {i + 1} differs (journal {ja}, replay {jb}; {len(a)} vs {len(b)} moves)")
    return "; ".join(parts) or "differs"


class _Settings:
    """Finds the run (seed, limits, rules, game code) that reproduces a game's id."""

    def __init__(self, runs: list[dict]):
        #: Each distinct run, oldest first: (game, seed, settings, rounds or None, {bot: hash}).
        seen, self.runs = set(), []
        for r in runs:
            key = (r["game"], r["seed"], json.dumps(r["settings"], sort_keys=True))
            if key not in seen:
                seen.add(key)
                self.runs.append(self.entry(r))
        #: (tournament seed, pair) -> [game numbers tried so far, {game seed: game number}]
        self.slots: dict[tuple, list] = {}

    @staticmethod
    def entry(r: dict) -> tuple:
        return (r["game"], r["seed"], r["settings"], r.get("rounds"), {b["name"]: b["hash"] for b in r["bots"]})

    def _slot(self, tseed: int, a: str, b: str, seed: int) -> int | None:
        entry = self.slots.setdefault((tseed, a, b), [0, {}])
        table = entry[1]
        while seed not in table and entry[0] < MAX_SLOT:
            table.setdefault(derive(tseed, "game", a, b, entry[0]), entry[0])
            entry[0] += 1
        return table.get(seed)

    def matches(self, r: GameRecord, run: tuple, schedule_only: bool = False) -> bool:
        """Whether ``run`` reproduces ``r``'s id; with ``schedule_only``, also whether ``r`` is a
        game of that run's schedule (its bots, with their hashes then, and its rounds)."""
        game, tseed, settings, rounds, bots = run
        if game != r.game:
            return False
        if schedule_only and any(bots.get(n) != h for n, h in zip(r.players, r.hashes)):
            return False
        if len(r.players) != 2 or r.seat_places is not None:  # a table (kothkit.playing.schedule.table_slot)
            return self._table(r, run, schedule_only)
        a, b = sorted(r.players)
        k = self._slot(tseed, a, b, r.seed)
        if k is None or (schedule_only and rounds is not None and k >= 2 * rounds):
            return False
        stubs = tuple(BotSpec(name=n, path=Path("."), hash=h) for n, h in zip(r.players, r.hashes))
        return game_id(game, settings, stubs, (a, b, k, tseed)) == r.id

    def _table(self, r: GameRecord, run: tuple, schedule_only: bool) -> bool:
        """:meth:`matches` of a table's game: its round found from its seed and id; with
        ``schedule_only``, also a table of that run's field (its bots all in the run, as checked, and
        as many as a table of its field seats: a table of an earlier, smaller field is superseded)."""
        if schedule_only and len(r.players) != self._table_size(run):
            return False
        return self._table_round(r, run) is not None

    @staticmethod
    def _table_size(run: tuple) -> int:
        """The seats of a table of ``run``'s field: its bots, at most the game's most seats."""
        from kothkit.plugins import PluginError, get_game

        bots = len(run[4])
        try:
            most = get_game(run[0]).seat_range[1]
        except PluginError:
            return bots
        return min(bots, most)

    @staticmethod
    def _table_round(r: GameRecord, run: tuple) -> int | None:
        """The round of a table's game in ``run`` (its rounds, else :data:`MAX_TABLE_ROUNDS` tried)."""
        game, tseed, settings, rounds, _bots = run
        stubs = tuple(BotSpec(name=n, path=Path("."), hash=h) for n, h in zip(r.players, r.hashes))
        return _schedule.table_slot(game, settings, tseed, stubs, r.seed, r.id,
                                    rounds if rounds is not None else MAX_TABLE_ROUNDS)

    def slot(self, r: GameRecord, run: tuple) -> int | None:
        """``r``'s slot in ``run`` (found by :meth:`find_run`): its number k in its pair, or at a
        table twice its round (what ``game_rules`` takes, as the schedule gives it); None if none."""
        if len(r.players) != 2 or r.seat_places is not None:
            found = self._table_round(r, run)
            return None if found is None else 2 * found
        a, b = sorted(r.players)
        return self._slot(run[1], a, b, r.seed)

    def find_run(self, r: GameRecord) -> tuple | None:
        """The latest run that reproduces ``r``'s id, as (game, seed, settings, rounds, {bot: hash}), or None."""
        for run in reversed(self.runs):
            if self.matches(r, run):
                return run
        return None

    def find(self, r: GameRecord) -> dict | None:
        """The settings of the latest run that reproduces ``r``'s id, or None."""
        run = self.find_run(r)
        return None if run is None else run[2]


#: What ``kothkit verify`` copies of a stateful bot's folder at the most: its files' bytes, and its
#: entries (a stranger's bot fills its own folder as it likes; past these, a clear error).
COPY_BYTES = 4 * MAX_BYTES
COPY_ENTRIES = 10 * MAX_FILES


def _copy_file(src: str, dst: str, budget: int) -> int:
    """Copy the regular file ``src`` to the new file ``dst`` (its mode and times too); the bytes
    copied, at most ``budget`` (else a BotError)."""
    fd = open_regular(Path(src))  # (never a FIFO: its read would stall the copy)
    try:
        st = os.fstat(fd)
        out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        n = 0
        try:
            while chunk := os.read(fd, 1 << 20):
                n += len(chunk)
                if n > budget:
                    raise BotError(src, f"the bot's folder is larger than {COPY_BYTES >> 20} MiB: "
                                        "too large to copy for its replays")
                view = memoryview(chunk)
                while view:
                    view = view[os.write(out, view):]
            os.fchmod(out, stat.S_IMODE(st.st_mode) & 0o777)
            os.utime(out, ns=(st.st_atime_ns, st.st_mtime_ns))
        finally:
            os.close(out)
    finally:
        os.close(fd)
    return n


def _copy_folder(src: Path, dst: Path) -> None:
    """A copy of the bot folder ``src`` made at ``dst``, walked without recursion and within
    :data:`COPY_BYTES`, :data:`COPY_ENTRIES` and ``MAX_DEPTH`` (else a BotError naming it).  Only
    files, folders and symlinks that stay inside it are copied (a FIFO, socket or device is left
    out); a link is made to lead to the same place in the copy, never back to ``src``."""
    root = os.path.realpath(src)
    budget, entries = COPY_BYTES, 0
    dst.mkdir(parents=True)
    stack = [(str(src), str(dst), 0)]
    while stack:
        s, d, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise BotError(s, f"folders nested more than {MAX_DEPTH} deep: too deep to copy for its replays")
        with os.scandir(s) as it:
            for e in it:
                entries += 1
                if entries > COPY_ENTRIES:
                    raise BotError(src, f"holds more than {COPY_ENTRIES} files and folders: too many to copy "
                                        "for its replays")
                target = os.path.join(d, e.name)
                if e.is_symlink():
                    real = os.path.realpath(e.path)
                    if real == root or real.startswith(root + os.sep):
                        inside = os.path.join(str(dst), os.path.relpath(real, root))
                        os.symlink(os.path.relpath(inside, d), target)
                elif e.is_dir(follow_symlinks=False):
                    os.mkdir(target)
                    stack.append((e.path, target, depth + 1))
                elif e.is_file(follow_symlinks=False):
                    budget -= _copy_file(e.path, target, budget)


def replay_copy(b: BotSpec, where: Path) -> BotSpec:
    """``b`` played from a copy of its folder made at ``where`` if it keeps files between games (so
    that a replay never writes its real folder); else ``b``.  A BotError for a folder too large or
    too deep to copy (:func:`_copy_folder`)."""
    if not b.stateful or b.kind == BotKind.HUMAN:
        return b
    folder = b.path if b.path.is_dir() else b.path.parent
    home = b.workdir if b.workdir is not None else folder
    copy = where / home.name
    if home.is_dir():
        _copy_folder(home, copy)
    else:  # (a private folder not made yet)
        copy.mkdir(parents=True)
    if b.workdir is not None:
        return attrs.evolve(b, workdir=copy)
    if b.kind == BotKind.FUNCTION and b.entry:
        file = copy / b.path.name
        return attrs.evolve(b, path=file, entry=f"{file}:{b.entry.rpartition(':')[2]}")
    return attrs.evolve(b, path=copy)


def _replay(tasks: list[GameTask], jobs: int, stateful: set[str], on_done) -> None:
    """Play ``tasks`` (in index order) on ``jobs`` workers, stateful bots in order, one game at a time."""
    from kothkit.playing.settings import Cores, cores_of
    from kothkit.playing.tournament import dispatch
    from kothkit.plugins import get_game

    pin = bool(tasks) and tasks[0].limits.pin_cpu
    # The CPU laid out as kothkit run laid it out (a core per seat for a game that allows pondering).
    programs = any(b.kind != BotKind.FUNCTION for t in tasks for b in t.players)
    cores = cores_of(get_game(tasks[0].game), jobs, pin, programs) if tasks else Cores(jobs, pin=pin)
    dispatch(tasks, cores=cores, stateful=stateful, on_done=lambda done, records: on_done(done[0], records[0]))


def _replay_person(task: GameTask, record: GameRecord, info) -> GameRecord:
    """Play ``task`` again, each person's seat giving the replies the record holds for it, in order
    (None once they run out: the game then rejects it, and the replay differs)."""
    from kothkit.playing.referee import play_game

    people: dict[int, Callable[[Match, Prompt], Any]] = {}
    for i, b in enumerate(task.players):
        if b.kind == BotKind.HUMAN:
            replies = iter([m.reply for m in record.moves if m.seat == i])

            def replay(match: Match, prompt: Prompt, it: Iterator[Any] = replies) -> Any:
                return next(it, None)

            people[i] = replay
    return play_game(task, info=info, people=people)


def is_match_run(run: dict) -> bool:
    """Whether ``run`` was a ``kothkit match`` or ``gauntlet`` (journals from before runs had a kind:
    a run without rounds and without the game's code in its settings, which only a match writes)."""
    kind = run.get("kind")
    if kind is not None:
        return bool(kind == "match")
    settings = run.get("settings")
    return run.get("rounds") is None and isinstance(settings, dict) and "game" not in settings


def partition(records: Iterable[GameRecord], runs: list[dict], settings: _Settings
              ) -> tuple[list[GameRecord], list[GameRecord], list[GameRecord]]:
    """``records`` split three ways: the games that count in the current standings (those of the
    last tournament run of their game: its bots with their hashes then, its seed, settings and
    rounds), as ``kothkit run`` counts them; the games of matches and gauntlets (a match run's
    schedule), which stand apart; and the superseded ones (those an earlier run reproduces).  A
    game that no run reproduces was altered: it is never passed off as superseded."""
    last: dict[str, tuple] = {}
    matches = [_Settings.entry(r) for r in runs if is_match_run(r)]
    for r in runs:
        if not is_match_run(r):
            last[r["game"]] = _Settings.entry(r)
    current: list[GameRecord] = []
    matched: list[GameRecord] = []
    superseded: list[GameRecord] = []
    for rec in records:
        run = last.get(rec.game)
        if run is not None and settings.matches(rec, run, schedule_only=True):
            current.append(rec)
        elif any(settings.matches(rec, m, schedule_only=True) for m in matches):
            matched.append(rec)
        elif run is None or settings.find(rec) is None:
            current.append(rec)
        else:
            superseded.append(rec)
    return current, matched, superseded


def _counting(records: list[GameRecord], runs: list[dict], settings: _Settings) -> tuple[list, list]:
    """``records`` split into the games that count (the current standings' and the matches', see
    :func:`partition`) and the superseded ones."""
    current, matched, superseded = partition(records, runs, settings)
    return current + matched, superseded


def _limits(stored: dict) -> Limits:
    """The limits a run stored (fields this kothkit does not know are left out, missing ones default)."""
    known = {f.name for f in attrs.fields(Limits)}
    return Limits(**{k: v for k, v in stored.items() if k in known})


def _code_text(code: dict) -> str:
    return f"{code.get('plugin') or 'registered in code'}, code {str(code.get('code'))[:12]}"


