"""Writers for the board-game files of the field, for games' exporters (``GameInfo.exporters``);
part of the plugin API.

* Piskvork ``.psq`` (Gomocup's game record): a ``Piskvorky WxH, 11:11, 0`` header, one
  ``x,y,time_ms`` line per stone (1-based, x across, y down, colours alternating from black as
  Piskvork reads them; an opening that places two stones of one colour in a row, like Swap2's,
  is still written in the order the stones were placed), then the two players' names.
* SGF (FF[4]) for Gomoku (GM[4]): SZ, PB, PW, RE, DT and one B[]/W[] node per stone.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import NamedTuple

import kothkit
from kothkit.game import Verdict


class Stone(NamedTuple):
    #: 0-based column (across) and row (down).
    x: int
    y: int
    black: bool
    #: The time of the reply that placed it (only the first stone of a reply gets it; 0 for others).
    ms: float = 0.0


def psq(width: int, height: int, stones: Sequence[Stone], black: str, white: str) -> str:
    lines = [f"Piskvorky {width}x{height}, 11:11, 0"]
    lines += [f"{s.x + 1},{s.y + 1},{int(round(s.ms))}" for s in stones]
    lines += [_one_line(black), _one_line(white)]
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in text)


def sgf_text(text: str) -> str:
    """An SGF text value: backslash and ] escaped."""
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _sgf_point(x: int, y: int) -> str:
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return letters[x] + letters[y]


def sgf_result(winner_black: bool | None, verdict: str | None) -> str:
    """RE: ``B+`` / ``W+`` (``+T`` when the loser ran out of time, ``+F`` for another fault), ``0`` a draw."""
    if winner_black is None:
        return "0"
    how = "T" if verdict in (Verdict.TIMEOUT, Verdict.TIME_BUDGET) else "F" if verdict else ""
    return ("B+" if winner_black else "W+") + how


def sgf_date(finished_at: float | None) -> str | None:
    """DT: the UTC day of a game's ``finished_at`` (``GameReplay.finished_at``) as ``YYYY-MM-DD``,
    or None when it is unknown."""
    if finished_at is None:
        return None
    return datetime.datetime.fromtimestamp(finished_at, datetime.UTC).strftime("%Y-%m-%d")


def sgf(width: int, height: int, stones: Sequence[Stone], black: str, white: str, result: str,
        date: str | None, comment: str = "", game_name: str = "") -> str:
    size = str(width) if width == height else f"{width}:{height}"
    root = [f"FF[4]GM[4]CA[UTF-8]AP[kothkit:{kothkit.__version__}]SZ[{size}]",
            f"PB[{sgf_text(black)}]PW[{sgf_text(white)}]RE[{result}]"]
    if date:
        root.append(f"DT[{date}]")
    if game_name:
        root.append(f"GN[{sgf_text(game_name)}]")
    if comment:
        root.append(f"C[{sgf_text(comment)}]")
    nodes = "".join(f";{'B' if s.black else 'W'}[{_sgf_point(s.x, s.y)}]" for s in stones)
    return f"(;{''.join(root)}\n{nodes})\n"
