"""`kothkit games`, `kothkit run` (a round-robin tournament) and `kothkit debug` (one game shown whole)."""
import os
from pathlib import Path
from typing import Annotated, Optional

import typer

from kothkit.botspec import BotKind
from kothkit.cli.common import (
    RULES_HELP,
    app,
    err,
    fail,
    game_target,
    load_and_build,
    out,
    print_table,
    settled,
)
from kothkit.playing.settings import Options, Settings, resolve
from kothkit.plugins import PluginError, installed_games, plugin_manager

#: The most bots whose crosstable of places ``run`` prints (a wider one is in ``--json``).
ABOVE_BOTS = 12


def _first_line(text: str, limit: int = 160) -> str:
    line = next((l for l in text.splitlines() if l.strip()), "")
    return line if len(line) <= limit else line[: limit - 3] + "..."


@app.command()
def games() -> None:
    """List the installed games, one line each, with where they come from."""
    try:
        found = installed_games()
    except PluginError as e:
        fail(str(e))
    if not found:
        fail("no games installed")
    for name, g in found.items():
        out.print(f"{name}  {g.info.summary}  [{g.source}]", markup=False, soft_wrap=True)


@app.command()
def run(
    target: Annotated[str, typer.Argument(help="A game name (see `kothkit games`) or a challenge folder / kothkit.toml.")],
    bots: Annotated[Optional[list[str]], typer.Option("--bots", help="A folder of bot folders, one bot folder, file.py:function, or a bundled bot's name; repeatable. Default: the game's bundled bots.")] = None,
    seed: Annotated[Optional[int], typer.Option(help="Tournament seed (default: the challenge file's seed, else the journal's last seed for this game, else a fresh one, printed).")] = None,
    new_seed: Annotated[bool, typer.Option("--new-seed", help="Draw a fresh seed even if the challenge file or the journal has one.")] = False,
    jobs: Annotated[Optional[int], typer.Option(help="Games played at once (default: the number of cores, half of them for a game that allows pondering: a core per seat).")] = None,
    cluster: Annotated[Optional[str], typer.Option("--cluster", help="Play the games on a Dask cluster: a scheduler's address over TLS (tls://HOST:8786, with --cluster-certs), or local:N for N local single-threaded workers (TLS with certificates of their own) (needs kothkit\\[cluster]; see docs/tournaments.md).")] = None,
    cluster_certs: Annotated[Optional[Path], typer.Option("--cluster-certs", envvar="KOTHKIT_CLUSTER_CERTS", help="The folder of the cluster's certificates (ca.pem, host.pem, host-key.pem: made by `kothkit cluster certs DIR`); else Dask's TLS settings.")] = None,
    rounds: Annotated[Optional[int], typer.Option(help="Rounds; each pair plays two games a round, each bot opening one (a game of more seats: each bot plays a game in each seat of its tables).")] = None,
    move_time: Annotated[Optional[float], typer.Option(help="Seconds allowed for one reply.")] = None,
    first_reply_time: Annotated[Optional[float], typer.Option(help="Seconds allowed for a first reply (e.g. START -> OK).")] = None,
    game_time: Annotated[Optional[float], typer.Option(help="Seconds of own thinking time per bot and game.")] = None,
    memory_mb: Annotated[Optional[int], typer.Option(help="Memory cap per bot, in MiB.")] = None,
    disk_mb: Annotated[Optional[int], typer.Option(help="Cap on what a bot writes (its /tmp, a file, a stateful bot's folder), in MiB.")] = None,
    build_time: Annotated[Optional[float], typer.Option(help="Seconds a bot's build may take (default 300); then it is killed and the bot sits out.")] = None,
    trusted: Annotated[bool, typer.Option("--trusted", help="Call Python function bots in the judge's processes (fast, no isolation).")] = False,
    db: Annotated[Optional[Path], typer.Option("--db", help="The SQLite journal (default: kothkit.sqlite in the challenge folder, else .kothkit/GAME.sqlite).")] = None,
    json_path: Annotated[Optional[Path], typer.Option("--json", help="Write the results document (see docs/results.md) here.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No live progress.")] = False,
    progress_every: Annotated[float, typer.Option(help="When output is not a terminal: seconds between plain progress lines.")] = 10.0,
    rules: Annotated[Optional[list[str]], typer.Option("--rules", help=RULES_HELP)] = None,
    openings: Annotated[Optional[str], typer.Option("--openings", help="Openings for a game that takes them (gomocup): a file of one a line in the game's format, or a Piskvork .psq; round r of every pair starts its two games (each bot black once) from the r-th. Default: the challenge file's openings; 'none': no openings.")] = None,
    openings_order: Annotated[Optional[str], typer.Option("--openings-order", help="sequential (the file's order) or random (shuffled by the seed). Default: the challenge file's openings_order, else sequential.")] = None,
) -> None:
    """Run a round-robin tournament and print the standings."""
    given = Options(seed=seed, new_seed=new_seed, jobs=jobs, rounds=rounds, trusted=trusted, db=db,
                    limits={"move_time": move_time, "first_reply_time": first_reply_time, "game_time": game_time,
                            "memory_mb": memory_mb, "disk_mb": disk_mb})
    settled(given.check)
    # The rules settings are checked here, once: a bad value is reported before any game runs.
    game = game_target(target, rules)
    info, ch = game.info, game.challenge
    s = settled(lambda: resolve(game, given))
    book = _openings(info, ch, s.rules, openings, openings_order)  # (a bad book: before any bot is built)
    specs, errors = _field(info, ch, bots, build_time)
    pool = _connect(cluster, cluster_certs, info, specs)
    jobs = pool.capacity() if pool is not None else s.jobs
    _print_plan(info, specs, s, jobs, f"cluster {cluster} ({jobs} workers)" if pool is not None else None)
    result, faults = _play(info, specs, s, jobs, pool, quiet, progress_every, book)
    _print_results(info, s, result, faults, errors)
    plugin_manager().hook.kothkit_tournament_finished(game=info, standings=result.standings, journal=s.journal)
    if json_path is not None:
        _write_json(json_path, info, s, result, errors)


def _field(info, ch, bots: list[str] | None, build_time: float | None):
    """The tournament's bots, loaded and built: ``--bots``, else the challenge's, else the game's bundled
    ones; and the errors of those left out."""
    entries = [str(b) for b in bots] if bots else [str(b) for b in ch.bots] if ch else ([str(info.bots)] if info.bots else [])
    if not entries:
        fail(f"{info.name} has no bundled bots; give --bots")
    specs, errors = load_and_build(entries, info, build_time)
    if len(specs) < 2:
        fail(f"a tournament needs at least two bots; {len(specs)} loaded")
    return specs, errors


def _connect(cluster: str | None, certs: Path | None, info, specs):
    """The Dask cluster of ``--cluster`` (its certificates in ``certs``), connected, or None."""
    if cluster is None:
        return None
    from kothkit.playing.cluster import ClusterError, connect, use_certs

    try:
        if certs is not None:
            use_certs(certs)
        return connect(cluster, info, specs, note=lambda text: out.print(f"  {text}", markup=False))
    except ClusterError as e:
        fail(str(e))


def _print_plan(info, specs, s: Settings, jobs: int, cluster: str | None) -> None:
    """The run's first lines: bots, seed and where it came from, where games are played, the journal,
    the containment this machine offers, and a warning when games would share cores."""
    from kothkit.playing.settings import cores_of
    from kothkit.procs.contain import gaps_line, jail_gaps, summary

    out.print(f"{info.name}: {len(specs)} bots, seed {s.seed.value}{s.seed.note()}, {cluster or f'jobs {jobs}'}, "
              f"journal {s.journal}", markup=False)
    # (a function bot's folder: its file's, or its private one; a file's probe would fail, and say so
    # for its whole file system, whose bots would then all run over copies)
    folders = tuple(b.workdir or b.path.parent if b.kind == BotKind.FUNCTION else b.path for b in specs)
    out.print(f"containment: {summary(folders)}", markup=False)
    gaps = jail_gaps() if cluster is None else []  # (a cluster's workers have their own jail)
    if gaps:
        err.print(gaps_line(gaps), style="bold red", markup=False)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if jobs > cores and cluster is None:
        out.print(f"  jobs {jobs} on {cores} cores: games share cores, so bots lose time to each other "
                  f"(--jobs {cores} or fewer keeps move times fair)", markup=False)
    if any(b.kind != BotKind.FUNCTION for b in specs):
        # (the plan's layout; a cluster's, of its workers' number)
        layout = s.cores if jobs == s.cores.jobs else cores_of(info, jobs, s.limits.pin_cpu)
        out.print(f"cpu: {layout.note}", markup=False)


def _openings(info, ch, rules, path: str | None, order: str | None, both: bool = True):
    """The tournament's openings (``--openings``, else the challenge file's), or None (``both``: the
    line saying so says that each is played from both seats)."""
    from kothkit.playing.openings import OpeningsError, chosen

    try:
        book = chosen(info, dict(rules), ch, path, order, drawn_default=False)
    except OpeningsError as e:
        fail(str(e))
    if book is not None:
        out.print(f"openings: {len(book.texts)} ({book.source}, {book.order})"
                  + (", each played from both seats" if both else ""), markup=False)
    return book


def _play(info, specs, s: Settings, jobs: int, pool, quiet: bool, progress_every: float, openings=None):
    """Play the tournament with its progress shown; an interruption or a lost worker ends the command
    saying that the finished games are kept."""
    import sqlite3

    from kothkit.cli.live import Progress
    from kothkit.playing.dispatcher import WorkerLost
    from kothkit.playing.schedule import Schedule
    from kothkit.playing.tournament import run_tournament
    from kothkit.store.journal import JournalError

    # (the games of the schedule: a round robin's, or a game of more seats' tables)
    total = Schedule(game=info.name, bots=tuple(specs), seed=s.seed.value, rounds=s.rounds, limits=s.limits,
                     seats=info.seats).total
    progress = Progress(out, total, quiet=quiet, every=progress_every)
    try:
        with progress.shown():
            result = run_tournament(info, specs, seed=s.seed.value, journal=s.journal, jobs=jobs, limits=s.limits,
                                    rules=dict(s.rules), rounds=s.rounds, trusted=s.trusted,
                                    on_record=progress.on_record,
                                    on_notice=lambda text: out.print(f"  {text}", markup=False), cluster=pool,
                                    openings=openings, scoring=s.game.scoring)
    except KeyboardInterrupt:
        err.print(f"interrupted: every game that finished is in {s.journal} (the games in play were "
                  f"stopped); run again to resume", markup=False, soft_wrap=True)
        raise typer.Exit(130) from None
    except WorkerLost as e:
        err.print(f"error: {e}; finished games are in {s.journal}", markup=False)
        raise typer.Exit(1) from None
    except (JournalError, sqlite3.DatabaseError) as e:  # damage SQLite finds only where it reads
        fail(f"{s.journal}: the journal cannot be used: {e}" if not isinstance(e, JournalError) else str(e))
    finally:
        if pool is not None:
            pool.close()
    return result, progress.faults


def _print_results(info, s: Settings, result, faults, errors) -> None:
    """The standings (with Elo ratings, or a game of more seats' openskill ratings), the ratings'
    notes, a game of more seats' crosstable of places, the game's own report, the faults, the counts
    of games, and the bots left out."""
    from kothkit.results.report import above_table, standings_table
    from kothkit.store.journal import Journal

    with Journal(s.journal) as j:  # (each bot's highest memory peak, where its memory cgroup kept one)
        peaks = j.memory_peaks(list(result.schedule.ids()))
    print_table(standings_table(result.standings, f"{info.name} — seed {s.seed.value}", mean=s.game.scoring.mean,
                                ratings=result.ratings, spread=not info.two_seats, skills=result.skills,
                                memory=peaks))
    for note in result.ratings.notes if result.ratings else ():
        out.print(f"ratings: {note}", markup=False)
    if result.skills is not None:
        out.print("ratings: openskill (Plackett-Luce) from the places, skill ± one standard deviation; "
                  "ranked by ordinal = skill - 3σ (see docs/ratings.md)", markup=False)
    if result.above is not None and len(result.standings) <= ABOVE_BOTS:
        print_table(above_table(result.above, [x.bot for x in result.standings],
                                "how often the row's bot placed above the column's (above/games together)"))
    if info.report is not None:
        out.print(info.report(result.standings), markup=False, highlight=False)
    for line in faults.lines():
        out.print(line, markup=False)
    out.print(f"games: {result.played} played, {result.reused} reused, {result.total} in all")
    if errors:
        out.print(f"left out: {len(errors)} bot{'s' if len(errors) != 1 else ''} that did not load or build "
                  "(details above):", markup=False)
        for bad in errors:
            out.print(f"  {_first_line(str(bad))}", markup=False)


def _write_json(path: Path, info, s: Settings, result, errors) -> None:
    from kothkit.results.report import write_json
    from kothkit.store.journal import Journal

    with Journal(s.journal) as j:
        write_json(path, game=info.name, seed=s.seed.value, standings=result.standings, outlines=result.outlines(j),
                   played=result.played, reused=result.reused, total=result.total, journal=s.journal,
                   errors=[str(e) for e in errors], ratings=result.ratings, spread=not info.two_seats,
                   skills=result.skills, above=result.above)
    out.print(f"results written to {path}", markup=False)


@app.command()
def debug(
    game: Annotated[str, typer.Argument(help="The game name, or a challenge folder (its game, rules and limits; its bots as opponents).")],
    bot: Annotated[str, typer.Argument(help="The bot to debug: a bot folder, file.py:function, or a bundled bot's name.")],
    against: Annotated[Optional[str], typer.Option(help="Opponent: a bundled bot's name, or a bot folder. Default: the first bundled bot.")] = None,
    seed: Annotated[int, typer.Option(help="Game seed.")] = 1,
    second: Annotated[bool, typer.Option("--second", help="Let the opponent open the game.")] = False,
    move_time: Annotated[Optional[float], typer.Option(help="Seconds allowed for one reply.")] = None,
    boards: Annotated[bool, typer.Option(help="Show the game's board after every move.")] = True,
    rules: Annotated[Optional[list[str]], typer.Option("--rules", help=RULES_HELP)] = None,
    openings: Annotated[Optional[str], typer.Option("--openings", help="Openings for a game that takes them (gomocup): a file of one a line in the game's format, or a Piskvork .psq. Default: the challenge file's openings; 'none': no opening.")] = None,
    openings_order: Annotated[Optional[str], typer.Option("--openings-order", help="sequential (the file's order) or random (shuffled by --seed). Default: the challenge file's openings_order, else sequential.")] = None,
    opening: Annotated[int, typer.Option("--opening", min=1, help="With openings: start from the N-th of their order, the one `run` plays in round N (its seed: --seed).")] = 1,
) -> None:
    """Play one game against a bundled bot and show the whole transcript."""
    from kothkit.playing.openings import KEY as OPENINGS_KEY
    from kothkit.playing.openings import as_setting, game_rules
    from kothkit.playing.referee import play_game
    from kothkit.playing.schedule import game_id, settings_of
    from kothkit.store.records import GameTask

    played = game_target(game, rules)
    info, ch = played.info, played.challenge
    # The game starts from an opening as run's game of that round does (pair N-1 of the book's order).
    task_rules = dict(played.rules)
    book = _openings(info, ch, task_rules, openings, openings_order, both=False)
    if book is not None:
        booked = {**task_rules, OPENINGS_KEY: as_setting(book)}
        task_rules = game_rules(info, booked, seed, 2 * (opening - 1))
        out.print(f"opening {opening}: {task_rules.get(info.opening_rule or '')}", markup=False)
    elif opening != 1:
        fail(f"--opening {opening}: this game has no openings here")
    specs, _ = load_and_build([bot], info)
    if not specs:
        fail(f"cannot load {bot}")
    me = specs[0]
    field = [str(b) for b in ch.bots] if ch is not None else [str(info.bots)]
    opponents, _ = load_and_build([against] if against and (os.sep in against or against.endswith(".py") or Path(against).exists()) else field, info)
    if against and not (os.sep in against or Path(against).exists()):
        opponents = [o for o in opponents if o.name == against]
    opponents = [o for o in opponents if o.name != me.name] or opponents
    if not opponents:
        fail(f"no opponent found ({against or 'bundled bots'})")
    if info.two_seats:
        other = opponents[0]
        seats = (other, me) if second else (me, other)
    else:
        seats = _table(me, opponents, info, second)
    names = [s.name if seats.count(s) == 1 else f"{s.name}#{i}" for i, s in enumerate(seats)]
    limits = played.limits.replace(move_time=move_time)
    task = GameTask(id=game_id(info.name, settings_of(limits, task_rules), seats, ("debug", seed)), game=info.name,
                    players=seats, seed=seed, limits=limits, rules=task_rules)
    def show(kind, seat, text, ms):
        who = names[seat]
        t = f" ({ms:.1f} ms)" if ms is not None else ""
        if kind in ("send", "notice", "final"):
            out.print(f"judge -> {who}: {text}", markup=False)
        elif kind == "reply":
            out.print(f"{who} -> judge{t}: {text}", markup=False)
        elif kind == "aside":
            out.print(f"{who} (aside): {text}", markup=False)
        elif kind == "stderr":
            out.print(f"{who} [stderr]: {text}", markup=False)
        elif kind == "board":
            out.print("\n".join("    " + line for line in text.splitlines()), markup=False, highlight=False)
        else:
            out.print(f"VERDICT against {who}: {text}", markup=False)

    rec = play_game(task, on_event=show, info=info, boards=boards)
    if rec.seat_places is None:
        out.print(f"result: winner {rec.winner or 'none (draw)'}; {rec.reason}" + (f"; offender: {rec.offender} ({rec.verdict})" if rec.offender else ""), markup=False)
        if rec.offender == me.name:
            raise typer.Exit(2)
        return
    out.print(f"result: {rec.reason}", markup=False)
    for i, who in enumerate(names):
        points = f", {rec.seat_points[i]:g} points" if rec.seat_points is not None else ""
        left = rec.seat_verdicts[i] if rec.seat_verdicts is not None else None
        out.print(f"  seat {i}: {who}: place {rec.seat_places[i]}{points}" + (f", left: {left}" if left else ""),
                  markup=False)
    mine = seats.index(me)
    if rec.seat_verdicts is not None and rec.seat_verdicts[mine] is not None:
        raise typer.Exit(2)


def _table(me, opponents: list, info, second: bool) -> tuple:
    """The seats of a debug game of more than two seats: the bot under debug in seat 0 (1 with
    ``--second``) and the opponents after, as many as the game seats among them (its fewest at least,
    repeated under new names: each seat is a bot of its own, a function bot with its own host)."""
    import attrs

    low, high = info.seat_range
    n = max(low, min(len(opponents) + 1, high))
    others = [opponents[i % len(opponents)] for i in range(n - 1)]
    taken = {me.name}
    for i, o in enumerate(others):
        if o.name in taken:
            others[i] = o = attrs.evolve(o, name=f"{o.name}#{i + 1}")
        taken.add(o.name)
    seats = [me, *others]
    if second:
        seats[0], seats[1] = seats[1], seats[0]
    return tuple(seats)
