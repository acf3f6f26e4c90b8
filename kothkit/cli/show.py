"""``kothkit show``: a journal's games as a table, or one game in full (transcript, boards, times,
verdict, logs), or one bot's log of one game (``--log``) as a course's students download it."""

from __future__ import annotations

from typing import Annotated, Any, NoReturn, Optional

import typer

from kothkit.cli.common import app, err, out
from kothkit.results.archive import (
    ArchiveError,
    Transcript,
    games_of,
    journal_path,
    late_reply,
    log_lines,
    open_journal,
    transcript,
)


def fail(message: str) -> NoReturn:
    """The error as one line, however long (a path in it is never wrapped), and exit status 1."""
    err.print("[red]error:[/red] ", markup=True, highlight=False, end="")
    err.print(message, markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(1)


def _text(value: Any, n: int | None = None) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = text.replace("\r", "\\r").replace("\n", "\\n")
    return text if n is None or len(text) <= n else text[: n - 3] + "..."


def _move_label(move: int | None) -> str:
    return "end" if move is None else f"move {move}"


def _table(archive, rows) -> str:
    """The games as plain aligned columns (long lines are kept whole, never wrapped)."""
    head = ("#", "id", "round", "opener", "other", "winner", "moves", "result")
    body = []
    for r in rows:
        rnd = archive.settings(r)[1]
        result = f"{r.offender} lost: {r.reason}" if r.verdict else r.reason
        opener, other = (list(r.players) + ["", ""])[:2]
        body.append((str(r.index), r.id[:12], str(rnd or "-"), opener, other, r.winner or "(draw)",
                     str(len(r.moves)), _text(result, 120)))
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head) - 1)]
    right = {0, 2, 6}
    lines = []
    for row in [head, *body]:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells + [row[-1]]).rstrip())
    lines.append(f"{len(rows)} of {len(archive.records)} games in {archive.path}")
    return "\n".join(lines)


def _print_game(t: Transcript) -> None:
    r = t.record
    p = lambda text="": out.print(text, markup=False, highlight=False)  # noqa: E731
    p(f"{r.game} game #{r.index}  id {r.id}")
    p(f"players: {' vs '.join(r.players)} (seat 0 opens)   seed {r.seed}"
      + (f"   round {t.round}" if t.round else "") + (f"   rules {t.rules}" if t.rules else ""))
    if t.limits:
        lim = t.limits
        p(f"limits: move {lim.get('move_time')} s, first reply {lim.get('first_reply_time') or lim.get('move_time')} s"
          + (f", game {lim['game_time']} s" if lim.get("game_time") else "")
          + (f", memory {lim['memory_mb']} MiB" if lim.get("memory_mb") else ""))
    if t.problem:
        p(f"note: {t.problem}")
    logs = {bot: log_lines(r, bot) for bot in r.players}
    total = len(r.moves)
    by_move: dict[int | None, list] = {}
    for bot in r.players:
        for line in logs[bot]:
            by_move.setdefault(line.move, []).append(line)
    if t.start_board:
        p()
        p(_indent(t.start_board))
    shown = t.start_board
    for s in t.steps:
        p()
        for seat, sent in s.sent:
            p(f"  judge -> {r.players[seat]}: {sent}")
        for line in by_move.get(s.number, []):
            p(f"  {line.bot} [{line.stream}]: {line.text}")
        who = r.players[s.seat] if s.seat < len(r.players) else f"seat {s.seat}"
        p(f"{s.number:>4}. {who} ({s.ms:.1f} ms): {_text(s.reply, 400)}")
        if s.rejected:
            p(f"      REJECTED: {s.rejected}")
        if s.board and s.board != shown:
            p(_indent(s.board))
            shown = s.board
    late = late_reply(r)
    pending = by_move.get(total + 1, [])
    if late is not None or pending or t.pending:
        p()
        for seat, sent in t.pending:
            p(f"  judge -> {r.players[seat]}: {sent}")
        for line in pending:
            p(f"  {line.bot} [{line.stream}]: {line.text}")
    if late is not None:
        p(f"{total + 1:>4}. {r.players[late[0]]} ({late[2]:.1f} ms, after its deadline: not played): {_text(late[1], 200)}")
    tail = by_move.get(None, [])
    if t.final or tail:
        p()
        for seat, sent in t.final:
            p(f"  judge -> {r.players[seat]}: {sent}")
        for line in tail:
            p(f"  {line.bot} [{line.stream}]: {line.text}")
    p()
    p(f"outcome: {'winner ' + r.winner if r.winner else 'draw'} ({r.reason})")
    if r.verdict:
        offending = f"; the offending reply: {_text(t.steps[-1].reply, 200)!r}" if t.steps and t.steps[-1].rejected else ""
        p(f"verdict: {r.verdict} against {r.offender}: {r.reason}{offending}")
    for seat, bot in enumerate(r.players):
        mine = [m.ms for m in r.moves if m.seat == seat]
        if mine:
            p(f"time: {bot}: {len(mine)} replies, {sum(mine) / 1000:.3f} s in all, longest {max(mine):.1f} ms")
    for bot in r.players:
        p()
        lines = logs[bot]
        if not lines:
            p(f"--- {bot}: no stderr or diagnostic output kept")
            continue
        p(f"--- {bot}: log ({len(lines)} lines: stderr and diagnostic lines, each with the move it came during)")
        for line in lines:
            p(f"[{_move_label(line.move)}] {'stderr: ' if line.stream == 'stderr' else ''}{line.text}")


def _indent(text: str) -> str:
    return "\n".join("      " + line for line in text.splitlines())


def _print_log(t: Transcript, bot: str) -> None:
    """``bot``'s own lines of the game: what the judge sent it, its replies with their times, its
    stderr and diagnostic lines, in order, each with its move.  Never a line of the opponent's."""
    r = t.record
    seat = r.players.index(bot)
    total = len(r.moves)
    p = lambda text: out.print(text, markup=False, highlight=False)  # noqa: E731
    p(f"# {r.game} game #{r.index} ({r.id[:12]}): {bot} as seat {seat}; result: "
      + (f"winner {r.winner}" if r.winner else "draw") + f" ({r.reason})")
    lines = log_lines(r, bot)
    by_move: dict[int | None, list] = {}
    for line in lines:
        by_move.setdefault(line.move, []).append(line)

    def logs_of(move: int | None) -> None:
        for line in by_move.get(move, []):
            p(f"[{_move_label(line.move)}] {'stderr: ' if line.stream == 'stderr' else ''}{line.text}")

    for s in t.steps:
        for to, sent in s.sent:
            if to == seat:
                p(f"[move {s.number}] judge -> {bot}: {sent}")
        logs_of(s.number)
        if s.seat == seat:
            p(f"[move {s.number}] {bot} -> judge ({s.ms:.1f} ms): {_text(s.reply)}")
            if s.rejected:
                p(f"[move {s.number}] rejected: {s.rejected}")
    for to, sent in t.pending:
        if to == seat:
            p(f"[move {total + 1}] judge -> {bot}: {sent}")
    logs_of(total + 1)
    late = late_reply(r)
    if late is not None and late[0] == seat:
        p(f"[move {total + 1}] {bot} -> judge ({late[2]:.1f} ms, after its deadline: not played): {_text(late[1])}")
    for to, sent in t.final:
        if to == seat:
            p(f"[end] judge -> {bot}: {sent}")
    logs_of(None)
    if r.offender == bot:
        p(f"[end] verdict against {bot}: {r.reason}")


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
) -> None:
    """Show a journal's games, or one game with its transcript, boards, times, verdict and logs."""
    try:
        archive = open_journal(journal_path(target))
        if game is None:
            if log is not None:
                fail("--log needs a game (its index or id)")
            rows = list(games_of(archive, bot=bot, verdict=verdict, loser=loser, round=round))
            out.print(_table(archive, rows), markup=False, highlight=False)
            return
        record = archive.find(game)
    except ArchiveError as e:
        fail(str(e))
    if log is not None and log not in record.players:
        fail(f"{log!r} did not play game #{record.index} (players: {', '.join(record.players)})")
    t = transcript(archive, record, boards=boards and log is None)
    if log is not None:
        _print_log(t, log)
    else:
        _print_game(t)
