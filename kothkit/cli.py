"""The ``kothkit`` command line: games, run, debug (more commands register in their own modules)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from typer.core import TyperGroup

import kothkit
from kothkit import challenge as challenges
from kothkit.bots import BotError, BotSpec, load_bots, printable
from kothkit.game import Setup
from kothkit.plugins import PluginError, get_game, installed_games, plugin_manager
from kothkit.seeding import fresh_seed



def _plain(param, ctx):
    """Give ``param`` a metavar of plain words where it has none: newer typer releases write
    each option's Python type (``<bool>``, ``<list[str]>``) into the help."""
    if param is None or getattr(param, "metavar", None) is not None:
        return param
    if getattr(param, "param_type_name", "") == "argument":
        # The argument's name already says what it is: no type column beside it.
        param.display_type_rich = lambda ctx: None
    elif getattr(param, "is_flag", False):
        param.metavar = ""
    elif param.name in _METAVARS or (param.name or "").endswith("_time"):
        param.metavar = _METAVARS.get(param.name, "S")
    elif hasattr(param, "display_type"):  # typer's own parameter classes, which print <type>
        kind = param.display_type(ctx).strip("<>").removeprefix("list[").removesuffix("]")
        param.metavar = {"int": "N", "float": "X", "str": "TEXT", "path": "PATH"}.get(kind, kind.upper())
    return param


#: Metavars by option name where the type alone says too little (options ending in _time: S).
_METAVARS = {"bots": "BOT", "against": "BOT", "memory_mb": "MB", "disk_mb": "MB", "cluster": "ADDRESS", "listen": "S", "progress_every": "S"}


class _Group(TyperGroup):
    """The command group: every command's options get plain metavars (see :func:`_plain`)."""

    def get_params(self, ctx):
        return [_plain(param, ctx) for param in super().get_params(ctx)]

    def get_command(self, ctx, name):
        cmd = super().get_command(ctx, name)
        if cmd is not None and not getattr(cmd, "_plain", False):
            for param in cmd.params:
                _plain(param, ctx)
            _plain(cmd.get_help_option(ctx), ctx)
            cmd._plain = True
        return cmd


app = typer.Typer(cls=_Group, help="kothkit: King-of-the-Hill bot tournaments.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)
# emoji=False: ":x:" in a bot's name or a path is text, not an emoji.
out = Console(highlight=False, soft_wrap=True, emoji=False)
err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)  # an error is one line, in a log too


def _show_version(value: bool) -> None:
    if value:
        out.print(f"kothkit {kothkit.__version__}", markup=False)
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", callback=_show_version, is_eager=True,
                                          help="Print kothkit's version and exit.")] = False,
) -> None:
    """kothkit: King-of-the-Hill bot tournaments."""


def fail(message: str) -> None:
    err.print("[red]error:[/red] ", markup=True, highlight=False, end="")
    err.print(message, markup=False, highlight=False)
    raise typer.Exit(1)


def _game(name: str):
    try:
        return get_game(name)
    except PluginError as e:
        fail(str(e))


def _loaders():
    loaders = []
    for group in plugin_manager().hook.kothkit_bot_loaders():
        loaders.extend(group)
    return loaders


def bundled_entries(entries: list[str], info) -> tuple[list[str], list[BotError]]:
    """``entries`` with each name of one of the game's bundled bots replaced by its folder, so that
    ``--bots threat`` works as ``debug --against threat`` does; a path that exists comes first.
    An entry that is neither a path nor a bundled bot's name is an error naming the bundled bots."""
    resolved: list[str] = []
    errors: list[BotError] = []
    bundled: dict[str, Path] | None = None
    for e in entries:
        if Path(e).exists() or os.sep in e or ":" in e or info.bots is None:
            resolved.append(e)
            continue
        if bundled is None:
            loaded = load_bots([info.bots], _loaders())
            bundled = {b.name: (b.origin.parent if b.origin else b.path) for b in loaded.bots}
            for b in loaded.bots:
                folder = bundled[b.name]
                bundled.setdefault(folder.name, folder)
        if e in bundled:
            resolved.append(str(bundled[e]))
        else:
            names = ", ".join(sorted(set(bundled))) or "none"
            errors.append(BotError(e, f"no such bot folder, file.py:function, or bundled bot of {info.name} "
                                      f"(bundled: {names})"))
    return resolved, errors


def load_and_build(entries: list[str], info, build_time: float | None = None) -> tuple[list[BotSpec], list[BotError]]:
    """Load bots from ``entries`` (paths, or the names of the game's bundled bots), build those
    with a build step; report what sits out."""
    from kothkit.tournament import build_bots

    entries, unknown = bundled_entries([str(e) for e in entries], info)
    loaded = load_bots(entries, _loaders())
    errors = unknown + list(loaded.errors)
    bots = []
    for b in loaded.bots:
        if b.kind == "function" and not info.function_bots:
            errors.append(BotError(b.origin or b.path, f"{info.name} does not take Python function bots"))
        elif b.name in info.reserved_names:
            errors.append(BotError(b.origin or b.path, f"the name {b.name!r} is reserved: {info.name}'s protocol uses it"))
        else:
            bots.append(b)
    built, build_errors = build_bots(bots, on_build=lambda b: err.print(f"building {b.name}: {printable(' '.join(b.build))[:200]}",
                                                                      markup=False, highlight=False),
                                     timeout=build_time)
    errors += build_errors
    for e in errors:
        err.print("[yellow]bot left out:[/yellow] ", markup=True, end="")
        err.print(str(e), markup=False, highlight=False)
    return built, errors


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
) -> None:
    """Run a round-robin tournament and print the standings."""
    from kothkit.contain import capabilities
    import sqlite3

    from kothkit.journal import Journal, JournalError
    from kothkit.journal import check as check_journal
    from kothkit.report import standings_table, write_json
    from kothkit.tournament import WorkerLost, run_tournament

    for flag, value, least, most in (("--seed", seed, 0, challenges.MAX_SEED), ("--jobs", jobs, 1, challenges.MAX_JOBS),
                                     ("--rounds", rounds, 1, challenges.MAX_ROUNDS)):
        if value is not None and not least <= value <= most:
            fail(f"{flag} must be an integer from {least} to {most}, got {value}")
    ch = None
    if os.sep in target or target.endswith(".toml") or Path(target, challenges.FILE).is_file():
        try:
            ch = challenges.load(target)
        except challenges.ChallengeError as e:
            fail(str(e))
        name = ch.game
    else:
        name = target
    info = _game(name)
    if ch is not None:
        try:
            challenges.check_rules(ch, dict(info.rules))
        except challenges.ChallengeError as e:
            fail(str(e))
    entries = [str(b) for b in bots] if bots else [str(b) for b in ch.bots] if ch else ([str(info.bots)] if info.bots else [])
    if not entries:
        fail(f"{name} has no bundled bots; give --bots")
    rules = {**info.rules, **(ch.rules if ch else {})}
    try:
        # Build one match up front so that a bad rules value is reported before any game runs.
        info.match(Setup(players=("a", "b"), seed=0, rules=rules))
    except (ValueError, TypeError, KeyError) as e:
        fail(f"{ch.path if ch else name}: bad [rules] value: {e}")
    specs, errors = load_and_build(entries, info, build_time)
    if len(specs) < 2:
        fail(f"a tournament needs at least two bots; {len(specs)} loaded")
    limits = info.limits
    try:
        if ch is not None:
            limits = limits.replace(**ch.limits)
    except (TypeError, ValueError) as e:
        fail(f"{ch.path}: [limits]: {e}")
    for flag, key, value in (("--move-time", "move_time", move_time), ("--first-reply-time", "first_reply_time", first_reply_time),
                             ("--game-time", "game_time", game_time), ("--memory-mb", "memory_mb", memory_mb),
                             ("--disk-mb", "disk_mb", disk_mb)):
        try:
            limits = limits.replace(**{key: value})
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
        from kothkit.cluster import ClusterError, connect

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
    from kothkit.contain import fair_cpu

    if any(b.kind != "function" for b in specs):
        out.print(f"cpu: {fair_cpu(info.pondering, jobs, limits.pin_cpu)[1]}", markup=False)

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from kothkit.progress import Faults, Pace

    live = out.is_terminal and not quiet
    plain = not out.is_terminal and not quiet  # a log or a pipe: a plain line now and then
    total = len(specs) * (len(specs) - 1) * rounds
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TextColumn("{task.fields[pace]}"), console=out, auto_refresh=False, disable=not live)
    task = progress.add_task("games", total=total, pace="")
    pace, faults = Pace(total), Faults()
    shown = [0.0, time.monotonic()]  # when the bar was last drawn, and the last plain line printed

    def on_record(r, reused):
        pace.add(r, reused)
        faults.add(r, reused)
        # Games can finish by the ten thousand a second: redraw the bar ten times a second at most.
        now = time.monotonic()
        if live and now - shown[0] >= 0.1:
            progress.update(task, completed=pace.done, pace=pace.summary())
            progress.refresh()
            shown[0] = now
        elif plain and now - shown[1] >= progress_every:
            out.print(pace.line(), markup=False)
            shown[1] = now

    try:
        with progress:
            result = run_tournament(info, specs, seed=seed, journal=journal, jobs=jobs, limits=limits,
                                    rules=ch.rules if ch else None, rounds=rounds, trusted=trusted, on_record=on_record,
                                    on_notice=lambda text: progress.console.print(f"  {text}", markup=False),
                                    cluster=pool)
            progress.update(task, completed=pace.done, pace=pace.summary())
            progress.refresh()
    except KeyboardInterrupt:
        err.print(f"interrupted: every game that finished is in {journal} (the games in play were "
                  f"stopped); run again to resume", markup=False, soft_wrap=True)
        raise typer.Exit(130)
    except WorkerLost as e:
        err.print(f"error: {e}; finished games are in {journal}", markup=False)
        raise typer.Exit(1)
    except (JournalError, sqlite3.DatabaseError) as e:  # damage SQLite finds only where it reads
        fail(f"{journal}: the journal cannot be used: {e}" if not isinstance(e, JournalError) else str(e))
    finally:
        if pool is not None:
            pool.close()
    out.print(standings_table(result.standings, f"{name} — seed {seed}", mean=info.scoring.mean,
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
        for e in errors:
            out.print(f"  {_first_line(str(e))}", markup=False)
    plugin_manager().hook.kothkit_tournament_finished(game=info, standings=result.standings, journal=journal)
    if json_path is not None:
        with Journal(journal) as j:
            write_json(json_path, game=name, seed=seed, standings=result.standings, games=result.records(j),
                       played=result.played, reused=result.reused, total=result.total, journal=journal,
                       errors=[str(e) for e in errors], ratings=result.ratings)
        out.print(f"results written to {json_path}", markup=False)


@app.command()
def debug(
    game: Annotated[str, typer.Argument(help="The game name.")],
    bot: Annotated[str, typer.Argument(help="The bot to debug: a bot folder, file.py:function, or a bundled bot's name.")],
    against: Annotated[Optional[str], typer.Option(help="Opponent: a bundled bot's name, or a bot folder. Default: the first bundled bot.")] = None,
    seed: Annotated[int, typer.Option(help="Game seed.")] = 1,
    second: Annotated[bool, typer.Option("--second", help="Let the opponent open the game.")] = False,
    move_time: Annotated[Optional[float], typer.Option(help="Seconds allowed for one reply.")] = None,
    boards: Annotated[bool, typer.Option(help="Show the game's board after every move.")] = True,
) -> None:
    """Play one game against a bundled bot and show the whole transcript."""
    from kothkit.records import GameTask
    from kothkit.referee import play_game
    from kothkit.schedule import game_id, settings_of

    info = _game(game)
    specs, _ = load_and_build([bot], info)
    if not specs:
        fail(f"cannot load {bot}")
    me = specs[0]
    opponents, _ = load_and_build([against] if against and (os.sep in against or against.endswith(".py") or Path(against).exists()) else [str(info.bots)], info)
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
    out.print(f"result: winner {rec.winner or 'none (draw)'}; {rec.reason}" + (f"; fault: {rec.fault} ({rec.verdict})" if rec.fault else ""), markup=False)
    if rec.fault == me.name:
        raise typer.Exit(2)


def main() -> None:
    # Command modules register themselves on `app` when imported.
    for mod in ("kothkit.verify", "kothkit.check", "kothkit.scaffold", "kothkit.show", "kothkit.export", "kothkit.site",
                "kothkit.headtohead", "kothkit.play"):
        try:
            __import__(mod)
        except ModuleNotFoundError as e:
            if e.name != mod:
                raise
    app()


if __name__ == "__main__":
    main()
