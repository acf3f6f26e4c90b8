"""Pictures of a game's board, for replay pages: what a game's ``kothkit_picture`` hook returns.

A picture is a list of panels drawn side by side (Connect-4 with hidden rows shows
the true board and each player's view).  A panel is either a :class:`Grid`, which
the core draws (the replay page's own SVG: board lines or cells, pieces, the
last move ringed, a winning line drawn through), or an :class:`Svg` the game
drew itself.  Pictures are plain data: they go into the page as JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from kothkit.game import GameInfo, Match

#: Grid styles: pieces on the crossings of the lines (Go, Gomoku) or inside square cells (Connect-4).
POINTS, CELLS = "points", "cells"


@attrs.frozen
class Grid:
    """A board for the core to draw."""

    #: The rows, top to bottom, one character per cell; "." is an empty cell.
    rows: tuple[str, ...]
    #: Each piece character's CSS colour, e.g. ``{"X": "#111", "O": "#f4f4f4"}``.
    pieces: Mapping[str, str]
    style: str = POINTS
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


def to_json(panel: Grid | Svg) -> dict[str, Any]:
    if isinstance(panel, Svg):
        return {"svg": str(panel.text), "title": str(panel.title)}
    return {
        "rows": [str(r) for r in panel.rows], "pieces": {str(k): str(v) for k, v in panel.pieces.items()},
        "style": panel.style if panel.style in (POINTS, CELLS) else POINTS, "title": str(panel.title),
        "last": [[int(r), int(c)] for r, c in panel.last], "line": [[int(r), int(c)] for r, c in panel.line],
        "shaded_rows": [int(r) for r in panel.shaded_rows],
        "col_labels": [str(x) for x in panel.col_labels], "row_labels": [str(x) for x in panel.row_labels],
    }


def picture_of(info: GameInfo, match: Match) -> list[dict[str, Any]] | None:
    """The picture of ``match`` (a game of ``info``) from its plugin's hook, as JSON panels; None if
    the game draws none (or its hook fails: a page then shows the text board)."""
    from kothkit.plugins import plugin_manager

    try:
        found = plugin_manager().hook.kothkit_picture(game=info, match=match)
    except Exception:  # noqa: BLE001 - a broken picture must not stop a report
        return None
    if found is None:
        return None
    panels = [found] if isinstance(found, (Grid, Svg)) else list(found)
    return [to_json(p) for p in panels if isinstance(p, (Grid, Svg))] or None
