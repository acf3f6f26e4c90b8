"""The ``kothkit`` command line: games, run, debug (more commands register in their own modules)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from kothkit import challenge as challenges
from kothkit.bots import BotError, BotSpec, load_bots
from kothkit.game import Setup
from kothkit.plugins import PluginError, get_game, installed_games, plugin_manager
from kothkit.seeding import fresh_seed

app = typer.Typer(help="kothkit: King-of-the-Hill bot tournaments.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False)


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


def load_and_build(entries: list[str], info) -> tuple[list[BotSpec], list[BotError]]:
    """Load bots from ``entries``, build those with a build step; report what sits out."""
    from kothkit.tournament import build_bots

    loaded = load_bots(entries, _loaders())
    errors = list(loaded.errors)
    bots = []
    for b in loaded.bots:
        if b.kind == "function" and not info.function_bots:
            errors.append(BotError(b.origin or b.path, f"{info.name} does not take Python function bots"))
        elif b.name in info.reserved_names:
            errors.append(BotError(b.origin or b.path, f"the name {b.name!r} is reserved: {info.name}'s protocol uses it"))
        else:
            bots.append(b)
    built, build_errors = build_bots(bots, on_build=lambda b: err.print(f"building {b.name}: {' '.join(b.build)}", markup=False, highlight=False))
    errors += build_errors
    for e in errors:
        err.print("[yellow]bot left out:[/yellow] ", markup=True, end="")
        err.print(str(e), markup=False, highlight=False)
    return built, errors


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
    bots: Annotated[Optional[list[str]], typer.Option("--bots", help="A folder of bot folders, one bot folder, or file.py:function; repeatable. Default: the game's bundled bots.")] = None,
    seed: Annotated[Optional[int], typer.Option(help="Tournament seed (default: the journal's last seed for this game, else a fresh one, printed).")] = None,
    new_seed: Annotated[bool, typer.Option("--new-seed", help="Draw a fresh seed even if the journal has one.")] = False,
    jobs: Annotated[Optional[int], typer.Option(help="Games played at once (default: the number of cores).")] = None,
    rounds: Annotated[Optional[int], typer.Option(help="Rounds; each pair plays two games a round, each bot opening one.")] = None,
    move_time: Annotated[Optional[float], typer.Option(help="Seconds allowed for one reply.")] = None,
    first_reply_time: Annotated[Optional[float], typer.Option(help="Seconds allowed for a first reply (e.g. START -> OK).")] = None,
    game_time: Annotated[Optional[float], typer.Option(help="Seconds of own thinking time per bot and game.")] = None,
    memory_mb: Annotated[Optional[int], typer.Option(help="Memory cap per bot, in MiB.")] = None,
    trusted: Annotated[bool, typer.Option("--trusted", help="Call Python function bots in the judge's processes (fast, no isolation).")] = False,
    db: Annotated[Optional[Path], typer.Option("--db", help="The SQLite journal (default: kothkit.sqlite in the challenge folder, else .kothkit/GAME.sqlite).")] = None,
    json_path: Annotated[Optional[Path], typer.Option("--json", help="Write the results document (see README) here.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No live progress.")] = False,
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
    specs, errors = load_and_build(entries, info)
    if len(specs) < 2:
        fail(f"a tournament needs at least two bots; {len(specs)} loaded")
    limits = info.limits
    try:
        if ch is not None:
            limits = limits.replace(**ch.limits)
    except (TypeError, ValueError) as e:
        fail(f"{ch.path}: [limits]: {e}")
    for flag, key, value in (("--move-time", "move_time", move_time), ("--first-reply-time", "first_reply_time", first_reply_time),
                             ("--game-time", "game_time", game_time), ("--memory-mb", "memory_mb", memory_mb)):
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
    out.print(f"{name}: {len(specs)} bots, seed {seed}{seed_note}, jobs {jobs}, journal {journal}", markup=False)
    out.print(f"containment: {capabilities().summary()}", markup=False)

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    live = out.is_terminal and not quiet
    total = len(specs) * (len(specs) - 1) * rounds
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=out, auto_refresh=False, disable=not live)
    task = progress.add_task("games", total=total)
    faults = 0
    shown = [0, 0.0]  # games counted on the bar, and when it was last drawn

    def on_record(r, reused):
        nonlocal faults
        if r.fault and not reused:
            faults += 1
            if faults <= 20:
                progress.console.print(f"  {r.fault} lost to {r.winner or '-'}: {r.reason}", markup=False)
            elif faults == 21:
                progress.console.print("  (further faults are in the journal)")
        shown[0] += 1
        # Games can finish by the ten thousand a second: redraw the bar ten times a second at most.
        now = time.monotonic()
        if live and now - shown[1] >= 0.1:
            progress.update(task, completed=shown[0])
            progress.refresh()
            shown[1] = now

    try:
        with progress:
            result = run_tournament(info, specs, seed=seed, journal=journal, jobs=jobs, limits=limits,
                                    rules=ch.rules if ch else None, rounds=rounds, trusted=trusted, on_record=on_record,
                                    on_notice=lambda text: progress.console.print(f"  {text}", markup=False))
            progress.update(task, completed=shown[0])
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
    out.print(standings_table(result.standings, f"{name} — seed {seed}", mean=info.scoring.mean))
    if info.report is not None:
        out.print(info.report(result.standings), markup=False, highlight=False)
    out.print(f"games: {result.played} played, {result.reused} reused, {result.total} in all")
    plugin_manager().hook.kothkit_tournament_finished(game=info, standings=result.standings, journal=journal)
    if json_path is not None:
        with Journal(journal) as j:
            write_json(json_path, game=name, seed=seed, standings=result.standings, games=result.records(j),
                       played=result.played, reused=result.reused, total=result.total, journal=journal,
                       errors=[str(e) for e in errors])
        out.print(f"results written to {json_path}", markup=False)


@app.command()
def debug(
    game: Annotated[str, typer.Argument(help="The game name.")],
    bot: Annotated[str, typer.Argument(help="The bot folder (or file.py:function) to debug.")],
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
    for mod in ("kothkit.verify", "kothkit.check", "kothkit.scaffold"):
        try:
            __import__(mod)
        except ModuleNotFoundError as e:
            if e.name != mod:
                raise
    app()


if __name__ == "__main__":
    main()
