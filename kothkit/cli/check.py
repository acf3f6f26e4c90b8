"""``kothkit check GAME BOT``: run one bot through the game's scenarios and say, in plain words, what it got wrong."""

from pathlib import Path
from typing import Annotated, Optional

import typer

from kothkit.cli.common import RULES_HELP, app, err, out
from kothkit.playing.progress import counted


def _print_run(run, run_number: int, seen: dict[str, int], verbose: bool) -> None:
    first = f", first reply {run.first_ms:.0f} ms" if run.first_ms is not None else ""
    if run.ok and run.never_asked:
        # Nothing was asked of the bot: no "ok" (it proves nothing), and why.
        ended = f" ({run.ended})" if run.ended else ""
        out.print(f"  --    {run.title}  [never asked: the game ended{ended} before the bot's turn]", markup=False,
                  soft_wrap=True)
    else:
        mark = "ok  " if run.ok else "FAIL"
        out.print(f"  {mark}  {run.title}  [{counted(run.replies, 'reply', 'replies')}{first}]", markup=False,
                  soft_wrap=True)
    for f in run.findings:
        label = {"fault": "problem", "warning": "warning", "error": "scenario error"}[f.severity]
        key = f.key or f.text
        if f.severity != "warning" and key in seen:
            out.print(f"        {label}: the same as in run {seen[key]} above", markup=False)
            continue
        seen.setdefault(key, run_number)
        out.print(f"        {label}: {f.text}", markup=False, soft_wrap=True)
    if (not run.ok or verbose) and run.transcript:
        if run.description and not run.ok:
            out.print(f"        (scenario: {run.description})", markup=False, soft_wrap=True)
        out.print("        last lines:", markup=False)
        for line in run.transcript:
            out.print(f"          {line}", markup=False, soft_wrap=True)


@app.command()
def check(
    game: Annotated[str, typer.Argument(help="The game name (see `kothkit games`), or a challenge folder (its game, rules and limits).")],
    bot: Annotated[str, typer.Argument(help="The bot to check: a bot folder, file.py:function, or a bundled bot's name.")],
    seed: Annotated[int, typer.Option(help="Seed of the scripted games.")] = 1,
    quick: Annotated[bool, typer.Option("--quick", help="Only the scenarios and the opening: no whole games.")] = False,
    against: Annotated[Optional[list[str]], typer.Option("--against", help="Opponent for the real games: a bot folder or a bundled bot's name (default: the bundled bots); repeatable.")] = None,
    move_time: Annotated[Optional[float], typer.Option(help="Seconds allowed for one reply (default: the game's).")] = None,
    first_reply_time: Annotated[Optional[float], typer.Option(help="Seconds allowed for a first reply.")] = None,
    listen: Annotated[float, typer.Option("--listen", help="Seconds to listen for extra output after each of the bot's first replies.")] = 0.1,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show the last lines of every run, not only failed ones.")] = False,
    rules: Annotated[Optional[list[str]], typer.Option("--rules", help=RULES_HELP)] = None,
) -> None:
    """Run a bot through the game's scenarios and explain, in plain words, what it gets wrong.

    Exit status: 0 when the bot passed (warnings allowed), 1 when it has a
    problem that would lose tournament games, 2 when it cannot be checked.
    """
    from kothkit.bots.folders import load_bots
    from kothkit.cli.common import bot_loaders, bundled_entries, game_target
    from kothkit.playing.check import CheckError, check_bot

    played = game_target(game, rules)
    info = played.with_settings()  # check's scenarios read the rules from the game; it journals no game
    limits = played.limits.replace(move_time=move_time, first_reply_time=first_reply_time)
    resolved, unknown = bundled_entries([bot], info)
    if unknown:
        err.print(f"error: {unknown[0]}", markup=False, soft_wrap=True)
        raise typer.Exit(2)
    entry = resolved[0]
    opponents = None
    if against:
        against, unknown = bundled_entries(against, info)
        loaded = load_bots(against, bot_loaders())
        for e in [*unknown, *loaded.errors]:
            err.print(f"opponent left out: {e}", markup=False)
        opponents = list(loaded.bots)
    out.print(f"checking {bot} on {info.name} (seed {seed})", markup=False, soft_wrap=True)
    seen: dict[str, int] = {}
    count = [0]

    def show(run) -> None:
        count[0] += 1
        _print_run(run, count[0], seen, verbose)

    try:
        report = check_bot(info, Path(entry) if ":" not in entry else entry, seed=seed, quick=quick, limits=limits,
                           against=opponents, quiet=listen, on_run=show)
    except CheckError as e:
        err.print(f"error: {e}", markup=False, soft_wrap=True)
        raise typer.Exit(2) from None
    problems = len(report.faults)
    broken = sum(1 for r in report.runs for f in r.findings if f.severity == "error")
    warnings = sum(1 for r in report.runs for f in r.findings if f.severity == "warning")
    failed = sum(1 for r in report.runs if not r.ok)
    unasked = sum(1 for r in report.runs if r.ok and r.never_asked)
    if report.ok:
        notes = ([counted(warnings, "warning")] if warnings else []) + (
            [f"{counted(unasked, 'run')} never asked the bot anything"] if unasked else [])
        out.print(f"{report.bot} passed all {len(report.runs)} runs" + (f" ({'; '.join(notes)})" if notes else ""),
                  markup=False)
        return
    parts = []
    if problems:
        parts.append(counted(problems, "problem"))
    if broken:
        parts.append(f"{counted(broken, 'broken scenario')} (the game's, not your bot's)")
    out.print(f"{report.bot}: {' and '.join(parts)} in {failed} of {counted(len(report.runs), 'run')}. "
              f"Replay one with `kothkit debug {info.name} {bot}` to see the whole game.", markup=False, soft_wrap=True)
    raise typer.Exit(1)
