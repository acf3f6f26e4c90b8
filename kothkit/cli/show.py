"""``kothkit show``: a journal's games as a table, or one game in full (transcript, boards, times,
verdict, logs), or one bot's log of one game (``--log``) as a course's students download it."""

from typing import Annotated, NoReturn, Optional

import typer

from kothkit.cli.common import app, err, out
from kothkit.playing.progress import counted
from kothkit.results.archive import ArchiveError, games_of, journal_path, open_journal, transcript
from kothkit.results.gametext import game_text, log_text
from kothkit.results.gametext import short as _text


def fail(message: str) -> NoReturn:
    """The error as one line, however long (a path in it is never wrapped), and exit status 1."""
    err.print("[red]error:[/red] ", markup=True, highlight=False, end="")
    err.print(message, markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(1)


def _table(archive, rows, title: str) -> str:
    """The games as plain aligned columns (long lines are kept whole, never wrapped)."""
    head = ("#", "id", "round", "opener", "other", "winner", "moves", "result")
    body = []
    for r in rows:
        rnd = archive.settings(r)[1]
        result = f"{r.offender} lost: {r.reason}" if r.verdict and r.seat_verdicts is None else r.reason
        if r.seat_verdicts is not None:  # a game of more seats: who left, and by what
            result += "".join(f"; {p} left: {v}" for p, v in zip(r.players, r.seat_verdicts) if v)
        opener, other = (list(r.players) + ["", ""])[:2]
        if len(r.players) > 2:
            other = ", ".join(r.players[1:])
        body.append((str(r.index), r.id[:12], str(rnd or "-"), opener, other, r.winner or "(draw)",
                     str(len(r.moves)), _text(result, 120)))
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head) - 1)]
    right = {0, 2, 6}
    lines = []
    for row in [head, *body]:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells + [row[-1]]).rstrip())
    lines.append(f"{len(rows)} of {title}")
    return "\n".join(lines)


@app.command()
def show(
    target: Annotated[str, typer.Argument(help="A journal file, a challenge folder, or a game name (its .kothkit/GAME.sqlite).")],
    game: Annotated[Optional[str], typer.Argument(help="One game: its index (#) or the start of its id. Without it: the games as a table.")] = None,
    bot: Annotated[Optional[str], typer.Option(help="Only games this bot played.")] = None,
    verdict: Annotated[Optional[str], typer.Option(help="Only games lost by this verdict (crash, timeout, time-budget, memory, out-of-turn, invalid-reply, illegal-move).")] = None,
    loser: Annotated[Optional[str], typer.Option(help="Only games this bot lost.")] = None,
    round: Annotated[Optional[int], typer.Option("--round", help="Only games of this round (1 is the first).")] = None,
    log: Annotated[Optional[str], typer.Option("--log", help="Print just this bot's log of the game: the lines it was sent, its replies and times, its stderr and diagnostic lines.")] = None,
    boards: Annotated[bool, typer.Option(help="Show the board after every move.")] = True,
    all_games: Annotated[bool, typer.Option("--all", help="Also list the superseded games (of earlier runs, no longer in the standings).")] = False,
) -> None:
    """Show a journal's games, or one game with its transcript, boards, times, verdict and logs."""
    try:
        archive = open_journal(journal_path(target))
        if game is None:
            if log is not None:
                fail("--log needs a game (its index or id)")
            g = archive.groups()
            kinds = [(g.current, f"{counted(len(g.current), 'game')} of the current standings in {archive.path}"),
                     (g.matches, f"{counted(len(g.matches), 'game')} of matches and gauntlets (not in the "
                                 "standings; numbered by match)")]
            if all_games:
                kinds.append((g.superseded, f"{counted(len(g.superseded), 'superseded game')} (of earlier runs, "
                                            "no longer in the standings)"))
            first = True
            for records, title in kinds:
                if records or first:
                    rows = list(games_of(archive, bot=bot, verdict=verdict, loser=loser, round=round, records=records))
                    out.print(("" if first else "\n") + _table(archive, rows, title), markup=False, highlight=False)
                    first = False
            if g.superseded and not all_games:
                out.print(f"{counted(len(g.superseded), 'superseded game')} of earlier runs not listed: --all lists "
                          f"{'it' if len(g.superseded) == 1 else 'them'} too", markup=False, highlight=False)
            return
        record = archive.find(game, all_games=all_games)
    except ArchiveError as e:
        fail(str(e))
    if log is not None and log not in record.players:
        fail(f"{log!r} did not play game #{record.index} (players: {', '.join(record.players)})")
    t = transcript(archive, record, boards=boards and log is None)
    out.print(log_text(t, log) if log is not None else game_text(t), markup=False, highlight=False)
