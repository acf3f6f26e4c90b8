"""`kothkit verify` and `kothkit prune`: a tournament's journal re-played and checked, superseded games removed."""
import json
import sqlite3
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Annotated, Optional

import attrs
import typer

from kothkit.bots.folders import BotError, BotKind, BotSpec, entry_of, load_bots
from kothkit.cli.common import app, bot_loaders, err, fail, out, refuse_seats
from kothkit.human import HUMAN_HASH
from kothkit.playing import challenge as challenges
from kothkit.playing.openings import KEY as OPENINGS_KEY
from kothkit.playing.openings import game_rules
from kothkit.playing.progress import counted
from kothkit.playing.settings import journal_path
from kothkit.playing.verify import (
    Difference,
    _code_text,
    _counting,
    _limits,
    _replay,
    _replay_person,
    _Settings,
    describe,
    outcome_key,
    replay_copy,
    tables_verifiable,
)
from kothkit.store.records import GameRecord, GameTask


@attrs.frozen
class _Target:
    """What ``verify`` and ``prune`` work on: a journal, and the challenge or game it was named by."""

    journal: Path
    challenge: Optional[challenges.Challenge] = None
    game: Optional[str] = None


def _target(target: str, db: Optional[Path]) -> _Target:
    """Resolve what ``kothkit run`` takes (a challenge folder or kothkit.toml, a game name with
    ``--db`` or its default journal), or a journal file, to the journal and what named it."""
    from kothkit.plugins import PluginError, installed_games

    p = Path(target)
    ch = game = None
    try:
        known = target in installed_games()
    except PluginError as e:
        fail(str(e))
    if target.endswith(".toml") or (p / challenges.FILE).is_file() or (p.is_dir() and not known):
        try:
            ch = challenges.load(p)
        except challenges.ChallengeError as e:
            fail(str(e))
        game = ch.game
        journal = journal_path(ch.game, ch, db)
    elif p.is_file():
        if db is not None:
            fail(f"give a journal or --db, not both ({target} and --db {db})")
        journal = p
    elif known:
        game = target
        journal = journal_path(target, None, db)
    else:
        fail(f"no such journal, challenge folder or game: {target}")
    if not journal.is_file():
        fail(f"no such journal: {journal}" + (" (run the tournament first)" if game else ""))
    from kothkit.store.journal import JournalError, check

    try:  # read-only first (and no -wal beside it): a file that is not a journal is not turned into one
        check(journal)
    except JournalError as e:
        fail(str(e))
    return _Target(journal=journal, challenge=ch, game=game)


def _load(entries: list[str], loud: bool) -> list[BotSpec]:
    """The bots found at ``entries``, unbuilt; what cannot be loaded is reported if ``loud``."""
    found: list[BotSpec] = []
    for entry in entries:
        loaded = load_bots([entry], bot_loaders())
        found += loaded.bots
        if loud:
            for e in loaded.errors:
                err.print("[yellow]bot left out:[/yellow] ", markup=True, end="")
                err.print(str(e), markup=False, highlight=False)
    return found


def _recorded(runs: list[dict], game: str, journal: Path) -> dict[str, list[str]]:
    """Where each bot of ``game``'s runs was loaded from, latest run first (relative places are
    relative to the journal's folder)."""
    places: dict[str, list[str]] = defaultdict(list)
    for r in reversed(runs):
        if r["game"] != game:
            continue
        for b in r["bots"]:
            where = b.get("where")  # absent in journals from before it was recorded
            if where:
                path, sep, func = where.rpartition(":") if ".py:" in where else (where, "", "")
                full = f"{journal.parent / path}{sep}{func}"
                if full not in places[b["name"]]:
                    places[b["name"]].append(full)
    return places


def _find_bots(games: list[GameRecord], info, t: _Target, runs: list[dict], bots: Optional[list[str]]
               ) -> tuple[dict[tuple[str, str], BotSpec], dict[tuple[str, str], str]]:
    """The built bot of each (name, hash) that ``games`` need, and why there is none for the others.

    Looked for in ``bots`` (``--bots``) only, else in the challenge's bots, where the journal's
    runs loaded them from and among the game's bundled bots; the first with the journal's hash wins.
    """
    from kothkit.playing.tournament import build_bots

    needed = {n for r in games for n, h in zip(r.players, r.hashes) if h != HUMAN_HASH}
    game = info.name
    recorded = _recorded(runs, game, t.journal)
    if bots:
        looked = [str(b) for b in bots]
        found = _load(looked, loud=True)
    else:
        mine = [str(b) for b in t.challenge.bots] if t.challenge is not None and t.challenge.game == game else []
        places = [w for n in sorted(needed) for w in recorded.get(n, ())]
        bundled = [str(info.bots)] if info.bots else []
        looked = mine + places + bundled
        found = _load(mine, loud=True) + _load(places, loud=False) + _load(bundled, loud=False)
    found = _identified(found, t.journal)
    # A bot seated again under a new name in a game of more seats (`play`'s "bot#2": "#" is in no
    # bot's name) is that bot, renamed.
    copies: dict[str, list[str]] = defaultdict(list)
    for n in sorted(needed):
        if "#" in n:
            copies[n.split("#", 1)[0]].append(n)
    candidates: dict[str, list[BotSpec]] = defaultdict(list)
    for spec in found:
        if spec.name in needed:
            candidates[spec.name].append(spec)
        for n in copies.get(spec.name, ()):
            candidates[n].append(attrs.evolve(spec, name=n))
    # The bot of each (name, hash) the games need, built; or why there is none.
    usable: dict[tuple[str, str], BotSpec] = {}
    missing: dict[tuple[str, str], str] = {}
    for name, h in sorted({(n, h) for r in games for n, h in zip(r.players, r.hashes) if h != HUMAN_HASH}):
        same = next((s for s in candidates[name] if s.hash == h), None)
        if same is not None:
            usable[name, h] = same
        elif candidates[name]:
            now = candidates[name][0]
            missing[name, h] = (f"bot {name} changed since the tournament (hash {h[:12]} in the journal, "
                                f"{now.hash[:12]} now, in {entry_of(now)})")
        else:
            where = recorded.get(name) if not bots else None
            missing[name, h] = (f"bot {name} not found (its run loaded it from {', '.join(where)})" if where else
                                f"bot {name} not found in {', '.join(looked) or 'the bundled bots (none)'}")
    built, build_errors = build_bots(list({id(s): s for s in usable.values()}.values()),
                                     on_build=lambda b: err.print(f"building {b.name}: {' '.join(b.build or ())}"))
    ok = {id(s) for s in built}
    for key, spec in list(usable.items()):
        if id(spec) not in ok:
            del usable[key]
            why = next((str(e) for e in build_errors if str(spec.path) in str(e)), "its build failed")
            missing[key] = f"bot {spec.name} cannot be built ({why})"
    return usable, missing


def _identified(found: list[BotSpec], journal: Path) -> list[BotSpec]:
    """``found``, each stateful bot under the identity its runs gave it (:mod:`kothkit.bots.kept`:
    the code it was given, not the files it kept), read from the journal's records."""
    from kothkit.playing.keeping import identities
    from kothkit.store.journal import Journal

    if not any(b.stateful for b in found):
        return found
    with Journal(journal, readonly=True) as j:
        return identities(j, journal, found)[0]


@app.command()
def verify(
    target: Annotated[str, typer.Argument(help="A journal (kothkit run --db), a challenge folder or kothkit.toml, or a game name (its journal: --db, else .kothkit/GAME.sqlite), as kothkit run takes.")],
    bots: Annotated[Optional[list[str]], typer.Option("--bots", help="Where the journal's bots are: a folder of bot folders, a bot folder, or file.py:function; repeatable. Default: where the run loaded them from, the challenge's bots, the game's bundled bots.")] = None,
    db: Annotated[Optional[Path], typer.Option("--db", help="The journal of a challenge or game, if not its default one.")] = None,
    all_games: Annotated[bool, typer.Option("--all", help="Also verify the superseded games: those of earlier runs that no longer count in the standings (a bot changed or left, other settings).")] = False,
    jobs: Annotated[Optional[int], typer.Option(help="Games re-played at once (default: the number of cores, half of them for a game that allows pondering: a core per seat).")] = None,
    trusted: Annotated[bool, typer.Option("--trusted", help="Call Python function bots in the judge's processes.")] = False,
) -> None:
    """Re-play the games of a tournament's journal from their seeds with the same bots and list the games that differ."""
    t = _target(target, db)
    runs, records = _read(t)
    settings = _Settings(runs)
    current, superseded = _counting(records, runs, settings)
    chosen = records if all_games else current
    tally = _Tally()
    for game in sorted({r.game for r in chosen}):
        left = 0 if all_games else sum(1 for r in superseded if r.game == game)
        _verify_game(game, [r for r in chosen if r.game == game], t, runs, settings, bots, jobs, trusted, left, tally)
    _report(tally, len(chosen), 0 if all_games else len(superseded))
    if tally.differ or tally.problems:
        raise typer.Exit(1)


@attrs.define
class _Tally:
    """What verifying found so far: games identical, games that differ, and why others were not verified."""

    same: int = 0
    differ: list[Difference] = attrs.Factory(list)
    problems: list[str] = attrs.Factory(list)
    notes: list[str] = attrs.Factory(list)


def _read(t: _Target) -> tuple[list[dict], list[GameRecord]]:
    """The journal's runs and its games (of the target's game, if it names one)."""
    from kothkit.store.journal import Journal, JournalError, check

    try:
        check(t.journal)
        with Journal(t.journal) as j:
            runs = j.runs()
            records = list(j.all(t.game))
    except JournalError as e:
        fail(str(e))
    except sqlite3.DatabaseError as e:
        fail(f"{t.journal}: the journal cannot be read: {e}")
    if not records:
        fail(f"{t.journal} holds no games" + (f" of {t.game}" if t.game else ""))
    return runs, records


def _verify_game(game: str, games: list[GameRecord], t: _Target, runs: list[dict], settings: _Settings,
                 bots: Optional[list[str]], jobs: Optional[int], trusted: bool, left: int, tally: _Tally) -> None:
    """Re-play ``games`` (all of ``game``) and add what is found to ``tally``; ``left``: how many of the
    game's superseded games are left out."""
    from kothkit.plugins import PluginError, get_game

    try:
        info = get_game(game)
        if not info.two_seats and not tables_verifiable():
            refuse_seats(info, "verify", "re-plays games of two seats only, so far")
    except PluginError as e:
        tally.problems.append(f"{game}: {e}")
        return
    usable, missing = _find_bots(games, info, t, runs, bots)
    if not any(b.stateful for b in usable.values()):
        _replay_game(game, games, info, usable, missing, settings, jobs, trusted, left, tally)
        return
    # A stateful bot's replays play on a copy of its folder: its real folder, what it keeps
    # there, is never written by a replay.  The copy is made beside the journal (not in /tmp,
    # which a jailed bot sees as its own, empty).
    try:
        scratch = tempfile.TemporaryDirectory(prefix=".kothkit-verify-", dir=t.journal.parent)
    except OSError as e:
        fail(f"{t.journal.parent}: cannot copy the stateful bots' folders there for their replays ({e.strerror}); "
             "verify a copy of the journal in a folder you may write")
    with scratch:
        try:
            usable = {key: replay_copy(b, Path(scratch.name) / str(i)) for i, (key, b) in enumerate(usable.items())}
        except (OSError, BotError) as e:
            fail(f"cannot copy a stateful bot's folder for its replays: {e}")
        _replay_game(game, games, info, usable, missing, settings, jobs, trusted, left, tally)


def _replay_game(game: str, games: list[GameRecord], info, usable: dict[tuple[str, str], BotSpec],
                 missing: dict[tuple[str, str], str], settings: _Settings, jobs: Optional[int], trusted: bool,
                 left: int, tally: _Tally) -> None:
    tasks, originals, codes = _tasks(games, game, usable, missing, settings, trusted, tally)
    if jobs is None:  # as kothkit run chose: a core per seat for a game that allows pondering
        from kothkit.procs.cores import default_jobs

        jobs = default_jobs(bool(info.pondering), not tasks or tasks[0].limits.pin_cpu)
    _note_code_changes(info, codes, tally)
    stateful = {b.name for t_ in tasks for b in t_.players if b.stateful}
    if stateful:
        one = len(stateful) == 1
        err.print(f"note: {', '.join(sorted(stateful))} {'keeps' if one else 'keep'} files between games; "
                  f"{'its' if one else 'their'} replays start from a copy of the files as they are now "
                  f"(the real folder is left as it is)", markup=False)
    aside = f" ({counted(left, 'superseded game')} left out: --all to verify {'it' if left == 1 else 'them'} too)" if left else ""
    out.print(f"{game}: re-playing {len(tasks)} of {counted(len(games), 'game')}{aside}, jobs {jobs}", markup=False)

    def on_done(task: GameTask, replay: GameRecord) -> None:
        r = originals[task.id]
        if outcome_key(r) == outcome_key(replay):
            tally.same += 1
        else:
            tally.differ.append(Difference(r, describe(r, replay)))

    # A person's games (kothkit play) are re-played here, the person's seat giving its recorded replies.
    people = [t_ for t_ in tasks if any(b.kind == BotKind.HUMAN for b in t_.players)]
    _replay(sorted((t_ for t_ in tasks if t_ not in people), key=lambda t_: t_.index), jobs, stateful, on_done)
    for t_ in sorted(people, key=lambda t_: t_.index):
        on_done(t_, _replay_person(t_, originals[t_.id], info))


def _tasks(games: list[GameRecord], game: str, usable: dict[tuple[str, str], BotSpec],
           missing: dict[tuple[str, str], str], settings: _Settings, trusted: bool, tally: _Tally
           ) -> tuple[list[GameTask], dict[str, GameRecord], set[str]]:
    """The task that re-plays each game whose bots and run are found, the games by id, and the game
    codes the runs recorded (JSON); the others are added to ``tally`` with why."""
    unusable: dict[str, list[GameRecord]] = defaultdict(list)
    tasks: list[GameTask] = []
    originals: dict[str, GameRecord] = {}
    codes: set[str] = set()
    for r in games:
        why = [missing[n, h] for n, h in zip(r.players, r.hashes) if (n, h) in missing]
        if why:
            for w in dict.fromkeys(why):
                unusable[w].append(r)
            continue
        s = settings.find(r)
        if s is None:
            tally.differ.append(Difference(r, "its id matches no run of the journal: players, hashes, seed or "
                                              "settings were altered"))
            continue
        if s.get("game") is not None:
            codes.add(json.dumps(s["game"], sort_keys=True))
        players = tuple(usable[n, h] if h != HUMAN_HASH else BotSpec(name=n, path=Path("."), kind=BotKind.HUMAN, hash=h)
                        for n, h in zip(r.players, r.hashes))
        rules = dict(s["rules"])
        if OPENINGS_KEY in rules:  # a match's openings: this game's, from the run's seed and its slot
            run = settings.find_run(r)
            slot = settings.slot(r, run) if run is not None else None
            rules = game_rules(_game_info(game), rules, run[1] if run is not None else 0, slot)
        tasks.append(GameTask(id=r.id, game=game, players=players, seed=r.seed, limits=_limits(s["limits"]),
                              rules=rules, index=r.index, trusted=trusted))
        originals[r.id] = r
    for reason, rs in unusable.items():
        tally.problems.append(f"{reason}: {counted(len(rs), 'game')} cannot be verified")
    return tasks, originals, codes


def _note_code_changes(info, codes: set[str], tally: _Tally) -> None:
    """A note for each game code of the runs that is not the game's code now."""
    from kothkit.plugins import game_code

    now_code = game_code(info)
    for c in sorted(codes):
        then = json.loads(c)
        if then != now_code:
            tally.notes.append(f"{info.name}'s code is not the tournament's ({_code_text(then)} then, "
                               f"{_code_text(now_code)} now): a game that differs may differ for that")


def _report(tally: _Tally, chosen: int, superseded: int) -> None:
    """The games that differ, those not verified and why, the notes, and the counts."""
    for d in sorted(tally.differ, key=lambda d: d.record.index):
        r = d.record
        out.print(f"DIFFERS  game {r.id[:16]} (#{r.index}, {' vs '.join(r.players)}, seed {r.seed}): {d.what}",
                  markup=False, soft_wrap=True)
    for p in tally.problems:
        out.print(f"UNVERIFIED  {p}", markup=False, soft_wrap=True)
    for n in tally.notes:
        out.print(f"NOTE  {n}", markup=False, soft_wrap=True)
    differ = len(tally.differ)
    out.print(f"verified {counted(chosen, 'game')}: {tally.same} identical, {differ} "
              f"{'differs' if differ == 1 else 'differ'}, {chosen - tally.same - differ} not verifiable", markup=False)
    if superseded:
        one = superseded == 1
        out.print(f"{counted(superseded, 'superseded game')} (of earlier runs, no longer in the standings) "
                  f"{'was' if one else 'were'} not verified: --all verifies {'it' if one else 'them'} too, kothkit "
                  f"prune deletes {'it' if one else 'them'}", markup=False)


@app.command()
def prune(
    target: Annotated[str, typer.Argument(help="A journal, a challenge folder or kothkit.toml, or a game name (its journal: --db, else .kothkit/GAME.sqlite).")],
    db: Annotated[Optional[Path], typer.Option("--db", help="The journal of a challenge or game, if not its default one.")] = None,
) -> None:
    """Delete the journal's superseded games: those of earlier runs that no longer count in the standings."""
    from kothkit.store.journal import Journal

    t = _target(target, db)
    with Journal(t.journal) as j:
        runs = j.runs()
        records = list(j.all(t.game))
        _, superseded = _counting(records, runs, _Settings(runs))
        j.delete([r.id for r in superseded])
    out.print(f"pruned {counted(len(superseded), 'superseded game')} from {t.journal}; "
              f"{counted(len(records) - len(superseded), 'game')} kept", markup=False)


def _game_info(game: str):
    """The registered game ``game`` (its openings' rules setting, for a match's games)."""
    from kothkit.plugins import get_game

    return get_game(game)
