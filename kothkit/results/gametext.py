"""One game as text: the whole transcript (``kothkit show JOURNAL GAME``) and one bot's own log
(``--log BOT``; what a course's student downloads from ``kothkit serve``).

Both are plain text, built from a :class:`kothkit.results.archive.Transcript`; what a bot wrote
(its replies, stderr, DEBUG lines) is kept as it came, so a page that shows it must escape it.
"""

from __future__ import annotations

from typing import Any

from kothkit.results.archive import Transcript, late_reply, log_lines


def short(value: Any, n: int | None = None) -> str:
    """A reply or a reason on one line (``\\r`` and ``\\n`` shown as escapes), cut to ``n`` characters."""
    text = value if isinstance(value, str) else repr(value)
    text = text.replace("\r", "\\r").replace("\n", "\\n")
    return text if n is None or len(text) <= n else text[: n - 3] + "..."


def move_label(move: int | None) -> str:
    return "end" if move is None else f"move {move}"


def game_text(t: Transcript) -> str:
    """The whole game: every line sent and reply with its time, the boards, the outcome and
    verdict, the times, and both bots' logs (``kothkit show JOURNAL GAME``)."""
    text_lines: list[str] = []
    r = t.record
    p = lambda text="": text_lines.append(text)  # noqa: E731
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
        p(f"{s.number:>4}. {who} ({s.ms:.1f} ms): {short(s.reply, 400)}")
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
        p(f"{total + 1:>4}. {r.players[late[0]]} ({late[2]:.1f} ms, after its deadline: not played): "
          f"{short(late[1], 200)}")
    tail = by_move.get(None, [])
    if t.final or tail:
        p()
        for seat, sent in t.final:
            p(f"  judge -> {r.players[seat]}: {sent}")
        for line in tail:
            p(f"  {line.bot} [{line.stream}]: {line.text}")
    p()
    p(f"outcome: {'winner ' + r.winner if r.winner else 'draw'} ({r.reason})")
    if r.seat_places is not None:  # a game of more seats: every seat's result and verdict
        for seat, bot in enumerate(r.players):
            points = f", {r.seat_points[seat]:g} points" if r.seat_points is not None else ""
            said = r.seat_verdicts[seat] if r.seat_verdicts is not None else None
            p(f"seat {seat}: {bot}: place {r.seat_places[seat]}{points}" + (f", left: {said}" if said else ""))
    if r.verdict and r.seat_verdicts is None:  # (a game of more seats: each seat's verdict below)
        offending = (f"; the offending reply: {short(t.steps[-1].reply, 200)!r}"
                     if t.steps and t.steps[-1].rejected else "")
        p(f"verdict: {r.verdict} against {r.offender}: {r.reason}{offending}")
    for seat, bot in enumerate(r.players):
        mine = [m.ms for m in r.moves if m.seat == seat]
        if mine:
            p(f"time: {bot}: {len(mine)} replies, {sum(mine) / 1000:.3f} s in all, longest {max(mine):.1f} ms")
    if r.memory:  # each bot's memory peak in the game (journals from before it was kept have none)
        peaks = [f"{bot} {mib} MiB" for bot, mib in zip(r.players, r.memory) if mib is not None]
        if peaks:
            p(f"memory peak: {', '.join(peaks)}")
    for bot in r.players:
        p()
        lines = logs[bot]
        if not lines:
            p(f"--- {bot}: no stderr or diagnostic output kept")
            continue
        p(f"--- {bot}: log ({len(lines)} lines: stderr and diagnostic lines, each with the move it came during)")
        for line in lines:
            p(f"[{move_label(line.move)}] {'stderr: ' if line.stream == 'stderr' else ''}{line.text}")
    return "\n".join(text_lines)


def _indent(text: str) -> str:
    return "\n".join("      " + line for line in text.splitlines())


def log_text(t: Transcript, bot: str) -> str:
    """``bot``'s own lines of the game: what the judge sent it, its replies with their times, its
    stderr and diagnostic lines, in order, each with its move.  Never a line of the opponent's
    (``kothkit show JOURNAL GAME --log BOT``, and a log a course's student downloads)."""
    text_lines: list[str] = []
    r = t.record
    seat = r.players.index(bot)
    total = len(r.moves)
    p = text_lines.append
    p(f"# {r.game} game #{r.index} ({r.id[:12]}): {bot} as seat {seat}; result: "
      + (f"winner {r.winner}" if r.winner else "draw") + f" ({r.reason})")
    lines = log_lines(r, bot)
    by_move: dict[int | None, list] = {}
    for line in lines:
        by_move.setdefault(line.move, []).append(line)

    def logs_of(move: int | None) -> None:
        for line in by_move.get(move, []):
            p(f"[{move_label(line.move)}] {'stderr: ' if line.stream == 'stderr' else ''}{line.text}")

    for s in t.steps:
        for to, sent in s.sent:
            if to == seat:
                p(f"[move {s.number}] judge -> {bot}: {sent}")
        logs_of(s.number)
        if s.seat == seat:
            p(f"[move {s.number}] {bot} -> judge ({s.ms:.1f} ms): {short(s.reply)}")
            if s.rejected:
                p(f"[move {s.number}] rejected: {s.rejected}")
    for to, sent in t.pending:
        if to == seat:
            p(f"[move {total + 1}] judge -> {bot}: {sent}")
    logs_of(total + 1)
    late = late_reply(r)
    if late is not None and late[0] == seat:
        p(f"[move {total + 1}] {bot} -> judge ({late[2]:.1f} ms, after its deadline: not played): {short(late[1])}")
    for to, sent in t.final:
        if to == seat:
            p(f"[end] judge -> {bot}: {sent}")
    logs_of(None)
    if r.offender == bot:
        p(f"[end] verdict against {bot}: {r.reason}")
    return "\n".join(text_lines)
