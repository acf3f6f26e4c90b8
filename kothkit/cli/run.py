"""`kothkit games`, `kothkit run` (a round-robin tournament) and `kothkit debug` (one game shown whole)."""
import contextlib
import os
import threading
import time
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
)
from kothkit.playing import challenge as challenges
from kothkit.playing.seeding import fresh_seed
from kothkit.plugins import PluginError, installed_games, plugin_manager


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
    seed: Annotated[Optional[int], typer.Option(help="Tournament seed (default: the journal's last seed for this game, else a fresh one, printed).")] = None,
    new_seed: Annotated[bool, typer.Option("--new-seed", help="Draw a fresh seed even if the journal has one.")] = False,
    jobs: Annotated[Optional[int], typer.Option(help="Games played at once (default: the number of cores).")] = None,
    cluster: Annotated[Optional[str], typer.Option("--cluster", help="Play the games on a Dask cluster: a scheduler's address (tcp://HOST:8786), or local:N for N local single-threaded workers (needs kothkit[cluster]; see docs/tournaments.md).")] = None,
    rounds: Annotated[Optional[int], typer.Option(help="Rounds; each pair plays two games a round, each bot opening one.")] = None,
    move_time: Annotated[Optional[float], typer.Option(help="Seconds allowed for one reply.")] = None,
    first_reply_time: Annotated[Optional[float], typer.Option(help="Seconds allowed for a first reply (e.g. START -> OK).")] = None,
    game_time: Annotated[Optional[float], typer.Option(help="Seconds of own thinking time per bot and game.")] = None,
    memory_mb: Annotated[Optional[int], typer.Option(help="Memory cap per bot, in MiB.")] = None,
    disk_mb: Annotated[Optional[int], typer.Option(help="Cap on what a bot writes (its /tmp, a file, a stateful bot's folder), in MiB.")] = None,
    build_time: Annotated[Optional[float], typer.Option(help="Seconds a bot's build may take (default 300); then it is killed and the bot sits out.")] = None,
    trusted: Annotated[bool, typer.Option("--trusted", help="Call Python function bots in the judge's processes (fast, no isolation).")] = False,
    db: Annotated[Optional[Path], typer.Option("--db", help="The SQLite journal (default: kothkit.sqlite in the challenge folder, else .kothkit/GAME.sqlite).")] = None,
    json_path: Annotated[Optional[Path], typer.Option("--json", help="Write the results document (see README) here.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No live progress.")] = False,
    progress_every: Annotated[float, typer.Option(help="When output is not a terminal: seconds between plain progress lines.")] = 10.0,
    rules: Annotated[Optional[list[str]], typer.Option("--rules", help=RULES_HELP)] = None,
) -> None:
    """Run a round-robin tournament and print the standings."""
    import sqlite3

    from kothkit.playing.tournament import WorkerLost, run_tournament
    from kothkit.procs.contain import capabilities
    from kothkit.results.report import standings_table, write_json
    from kothkit.store.journal import Journal, JournalError
    from kothkit.store.journal import check as check_journal

    for flag, value, least, most in (("--seed", seed, 0, challenges.MAX_SEED), ("--jobs", jobs, 1, challenges.MAX_JOBS),
                                     ("--rounds", rounds, 1, challenges.MAX_ROUNDS)):
        if value is not None and not least <= value <= most:
            fail(f"{flag} must be an integer from {least} to {most}, got {value}")
    # The rules settings are checked here, once: a bad value is reported before any game runs.
    info, ch = game_target(target, rules)
    name = info.name
    entries = [str(b) for b in bots] if bots else [str(b) for b in ch.bots] if ch else ([str(info.bots)] if info.bots else [])
    if not entries:
        fail(f"{name} has no bundled bots; give --bots")
    specs, errors = load_and_build(entries, info, build_time)
    if len(specs) < 2:
        fail(f"a tournament needs at least two bots; {len(specs)} loaded")
    limits = info.limits
    if ch is not None:
        try:
            limits = limits.replace(**ch.limits)
        except (TypeError, ValueError) as e:
            fail(f"{ch.path}: [limits]: {e}")
    given: float | None
    for flag, key, given in (("--move-time", "move_time", move_time), ("--first-reply-time", "first_reply_time", first_reply_time),
                             ("--game-time", "game_time", game_time), ("--memory-mb", "memory_mb", memory_mb),
                             ("--disk-mb", "disk_mb", disk_mb)):
        try:
            limits = limits.replace(**{key: given})
        except (TypeError, ValueError) as e:
            fail(f"{flag}: {e}")
    journal = db or (ch.journal if ch and ch.journal else (ch.folder / "kothkit.sqlite" if ch else Path(".kothkit") / f"{name}.sqlite"))
    try:
        check_journal(journal)
    except JournalError as e:
        fail(str(e))
    seed_note = ""
    if seed is None and ch is not None and ch.seed is not None and not new_seed:
        seed, seed_note = ch.seed, f" (from {ch.path})"
    if seed is None and not new_seed and journal.exists():
        with Journal(journal) as j:
            last = j.last_run(name)
        if last is not None:
            seed, seed_note = last["seed"], " (the journal's last seed; --new-seed for a fresh one)"
    if seed is None:
        seed, seed_note = fresh_seed(), " (drawn)"
    jobs = jobs or (ch.jobs if ch and ch.jobs else None) or os.cpu_count() or 1
    rounds = rounds or (ch.rounds if ch and ch.rounds else None) or info.rounds
    trusted = trusted or bool(ch and ch.trusted)
    pool = None
    if cluster is not None:
        from kothkit.playing.cluster import ClusterError, connect

        try:
            pool = connect(cluster, info, specs)
        except ClusterError as e:
            fail(str(e))
        jobs = len(pool.workers)
    where = f"cluster {cluster} ({jobs} workers)" if pool is not None else f"jobs {jobs}"
    out.print(f"{name}: {len(specs)} bots, seed {seed}{seed_note}, {where}, journal {journal}", markup=False)
    out.print(f"containment: {capabilities().summary()}", markup=False)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if jobs > cores and pool is None:
        out.print(f"  jobs {jobs} on {cores} cores: games share cores, so bots lose time to each other "
                  f"(--jobs {cores} or fewer keeps move times fair)", markup=False)
    from kothkit.procs.contain import fair_cpu

    if any(b.kind != BotKind.FUNCTION for b in specs):
        out.print(f"cpu: {fair_cpu(info.pondering, jobs, limits.pin_cpu)[1]}", markup=False)

    from kothkit.playing.progress import Faults, Pace

    live = out.is_terminal and not quiet
    plain = not out.is_terminal and not quiet  # a log or a pipe: a plain line now and then
    total = len(specs) * (len(specs) - 1) * rounds
    if live:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                       TextColumn("{task.fields[pace]}"), console=out, auto_refresh=False)
        task = bar.add_task("games", total=total, pace="")
    # else no bar, and rich's progress modules are not imported (6 ms of a quiet run's start-up)
    pace, faults = Pace(total), Faults()
    shown = [0.0]  # when the bar was last drawn

    def on_record(r, reused):
        pace.add(r, reused)
        faults.add(r, reused)
        # Games can finish by the ten thousand a second: redraw the bar ten times a second at most.
        now = time.monotonic()
        if live and now - shown[0] >= 0.1:
            bar.update(task, completed=pace.done, pace=pace.summary())
            bar.refresh()
            shown[0] = now
        elif plain and progress_every <= 0:  # no timer: a line a game
            out.print(pace.line(), markup=False)

    # Plain lines come on a timer, also while no game finishes (a game of minutes, or --jobs 1, where
    # this thread plays the games itself): a thread of their own, which only reads the counts.
    ticking = threading.Event()

    def tick() -> None:
        while not ticking.wait(progress_every):
            out.print(pace.line(), markup=False)

    ticker = threading.Thread(target=tick, name="progress", daemon=True)
    if plain and progress_every > 0:
        ticker.start()
    try:
        with bar if live else contextlib.nullcontext():
            result = run_tournament(info, specs, seed=seed, journal=journal, jobs=jobs, limits=limits,
                                    rules=dict(info.rules), rounds=rounds, functions_in_process=trusted, on_record=on_record,
                                    on_notice=lambda text: out.print(f"  {text}", markup=False),
                                    cluster=pool)
            if live:
                bar.update(task, completed=pace.done, pace=pace.summary())
                bar.refresh()
    except KeyboardInterrupt:
        err.print(f"interrupted: every game that finished is in {journal} (the games in play were "
                  f"stopped); run again to resume", markup=False, soft_wrap=True)
        raise typer.Exit(130) from None
    except WorkerLost as e:
        err.print(f"error: {e}; finished games are in {journal}", markup=False)
        raise typer.Exit(1) from None
    except (JournalError, sqlite3.DatabaseError) as e:  # damage SQLite finds only where it reads
        fail(f"{journal}: the journal cannot be used: {e}" if not isinstance(e, JournalError) else str(e))
    finally:
        ticking.set()
        if ticker.is_alive():
            ticker.join(timeout=10)
        if pool is not None:
            pool.close()
    print_table(standings_table(result.standings, f"{name} — seed {seed}", mean=info.scoring.mean,
                                ratings=result.ratings))
    for note in result.ratings.notes if result.ratings else ():
        out.print(f"ratings: {note}", markup=False)
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
    plugin_manager().hook.kothkit_tournament_finished(game=info, standings=result.standings, journal=journal)
    if json_path is not None:
        with Journal(journal) as j:
            write_json(json_path, game=name, seed=seed, standings=result.standings, outlines=result.outlines(j),
                       played=result.played, reused=result.reused, total=result.total, journal=journal,
                       errors=[str(e) for e in errors], ratings=result.ratings)
        out.print(f"results written to {json_path}", markup=False)


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
) -> None:
    """Play one game against a bundled bot and show the whole transcript."""
    from kothkit.playing.referee import play_game
    from kothkit.playing.schedule import game_id, settings_of
    from kothkit.store.records import GameTask

    info, ch = game_target(game, rules)
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
    other = opponents[0]
    seats = (other, me) if second else (me, other)
    names = [s.name if seats.count(s) == 1 else f"{s.name}#{i}" for i, s in enumerate(seats)]
    limits = info.limits.replace(move_time=move_time)
    task = GameTask(id=game_id(info.name, settings_of(limits, info.rules), seats, ("debug", seed)), game=info.name,
                    players=seats, seed=seed, limits=limits, rules=dict(info.rules))
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
    out.print(f"result: winner {rec.winner or 'none (draw)'}; {rec.reason}" + (f"; fault: {rec.offender} ({rec.verdict})" if rec.offender else ""), markup=False)
    if rec.offender == me.name:
        raise typer.Exit(2)
