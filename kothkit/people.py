"""What a game shows people: pictures of its board (:class:`Grid`, :class:`Svg`) for replay pages,
and the :class:`Turn` of a person playing a seat.  Part of the plugin API: a game's
:meth:`kothkit.game.Match.picture` and :meth:`kothkit.game.Match.human` return these
(:mod:`kothkit.picture` and :mod:`kothkit.human` name them too, with the core's use of them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

#: Grid styles: pieces on the crossings of the lines (Go, Gomoku), inside holes of a board
#: (Connect-4), or stones inside the squares of a lined board (Othello).
POINTS, CELLS, STONES = "points", "cells", "stones"
STYLES = (POINTS, CELLS, STONES)
@attrs.frozen
class Grid:
    """A board for the core to draw."""

    #: The rows, top to bottom, one character per cell; "." is an empty cell.
    rows: tuple[str, ...]
    #: Each piece character's CSS colour, e.g. ``{"X": "#111", "O": "#f4f4f4"}``.
    pieces: Mapping[str, str]
    #: POINTS, CELLS or STONES.
    style: str = POINTS
    #: The board's colour, its lines' colour (between the points or squares; CELLS draws none
    #: unless given) and an empty cell's colour (the hole of a CELLS board; none for the others
    #: unless given): CSS colours, each style's own (:data:`DEFAULT_COLOURS`) where None.
    board_colour: str | None = None
    line_colour: str | None = None
    empty_colour: str | None = None
    #: A caption above the board.
    title: str = ""
    #: (row, col) of the cells to ring: the last move.
    last: tuple[tuple[int, int], ...] = ()
    #: (row, col) of a winning line, drawn through in order.
    line: tuple[tuple[int, int], ...] = ()
    #: Rows drawn hatched (e.g. taped over: what a player cannot see).
    shaded_rows: tuple[int, ...] = ()
    #: Labels along the top (one per column) and down the left (one per row); none if empty.
    col_labels: tuple[str, ...] = ()
    row_labels: tuple[str, ...] = ()


@attrs.frozen
class Svg:
    """A panel the game drew itself: an ``<svg>`` element as text (escape any text you put in it)."""

    text: str
    title: str = ""


class Mistake(ValueError):
    """A person's entry that does not say a move; ``str()`` says why, in the game's words."""


@attrs.frozen
class Turn:
    """What a person sees and may type at one prompt."""

    #: The board as this seat may see it (for a hidden-information game: what a bot would see).
    board: str
    #: What to type, in one line: "your move: a cell x,y".
    asks: str
    #: The person's entry -> the reply for ``Match.play``; raises :class:`Mistake` for a bad entry.
    parse: Callable[[str], Any]
    #: The legal choices in words, shown after a mistake.
    choices: str = ""
    #: A reply given without asking (a handshake such as START -> OK), or None to ask.
    auto: Any = None
    # -- for the page of ``kothkit play --web`` (optional: without, the page shows ``board`` and a box)
    #: The board as this seat may see it, as a :class:`kothkit.picture.Grid` whose cells can be clicked.
    picture: Any = None
    #: A clicked cell (row, col of ``picture``) -> its text in an entry, e.g. ``"7,8"``.
    cell: Callable[[int, int], str] | None = None
    #: How many clicked cells make an entry (the page sends it then).
    clicks: int = 1
    #: Buttons: (label, text, cells still to click); 0 cells: the text is sent as the entry at once.
    buttons: tuple[tuple[str, str, int], ...] = ()
