"""Pictures of a game's board, for replay pages: the core's side of :meth:`kothkit.game.Match.picture`.

A picture is a list of panels drawn side by side (Connect-4 with hidden rows shows
the true board and each player's view).  A panel is either a :class:`Grid`, which
the core draws (one script, ``templates/board.js``, for the replay, report and play
pages: board lines or cells, pieces, the last move ringed, a winning line drawn
through, in the grid's colours), or an :class:`Svg` the game drew itself.  Pictures
are plain data: they go into the page as JSON.  A hook that raises, or returns
something that is not a picture, is reported (:class:`PictureError`), never hidden.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kothkit.people import CELLS as CELLS
from kothkit.people import POINTS as POINTS
from kothkit.people import STONES as STONES
from kothkit.people import STYLES as STYLES
from kothkit.people import Grid as Grid
from kothkit.people import Svg as Svg

if TYPE_CHECKING:
    from kothkit.game import GameInfo, Match

#: Each style's board, line and empty-cell colours where a Grid gives none (None: not drawn).
DEFAULT_COLOURS: dict[str, tuple[str, str | None, str | None]] = {
    POINTS: ("#e3b868", "#5a3d14", None),
    CELLS: ("#2456b4", None, "#ffffff"),
    STONES: ("#2e8b57", "#173d22", None),
}
#: A CSS colour as a page takes it: a name, #rgb(a) hex, or rgb()/hsl() of numbers (never url()).
COLOUR = re.compile(r"^(?:#[0-9a-fA-F]{3,8}|[a-zA-Z]{1,30}|(?:rgba?|hsla?)\([0-9.,%\s/a-z]{1,60}\))$")


class PictureError(Exception):
    """A game's picture (:meth:`Match.picture`) raised, or returned what is not a picture; the message
    names the game and what went wrong."""


def grid_problem(g: Grid) -> str | None:
    """What is wrong with ``g`` for the page to draw it, or None."""
    rows = g.rows
    if not isinstance(rows, (tuple, list)) or not all(isinstance(r, str) for r in rows):
        return f"rows must be strings, got {rows!r:.80}"
    width = len(rows[0]) if rows else 0
    if any(len(r) != width for r in rows):
        return f"rows must be equally long, got lengths {sorted({len(r) for r in rows})}"
    if not isinstance(g.pieces, Mapping) or not all(isinstance(k, str) and len(k) == 1 for k in g.pieces):
        return f"pieces must map one character to a colour, got {g.pieces!r:.80}"
    if g.style not in STYLES:
        return f"style {g.style!r} is none of {', '.join(STYLES)}"
    for what, colour in [*((f"piece {k!r}", v) for k, v in g.pieces.items()), ("board_colour", g.board_colour),
                         ("line_colour", g.line_colour), ("empty_colour", g.empty_colour)]:
        if colour is not None and not (isinstance(colour, str) and COLOUR.match(colour)):
            return f"{what}'s colour {colour!r:.40} is not a CSS colour (a name, #hex, rgb() or hsl())"
    for what, cells in (("last", g.last), ("line", g.line)):
        for cell in cells:
            if not (isinstance(cell, (tuple, list)) and len(cell) == 2
                    and 0 <= cell[0] < len(rows) and 0 <= cell[1] < width):
                return f"{what} has {cell!r:.40}, not a (row, col) of the {len(rows)}x{width} board"
    if any(not 0 <= r < len(rows) for r in g.shaded_rows):
        return f"shaded_rows {tuple(g.shaded_rows)!r:.60} are not all rows of the board"
    if g.col_labels and len(g.col_labels) != width:
        return f"{len(g.col_labels)} col_labels for {width} columns"
    if g.row_labels and len(g.row_labels) != len(rows):
        return f"{len(g.row_labels)} row_labels for {len(rows)} rows"
    return None


def _colour(value: str | None) -> str | None:
    return value if isinstance(value, str) and COLOUR.match(value) else None


def to_json(panel: Grid | Svg) -> dict[str, Any]:
    if isinstance(panel, Svg):
        return {"svg": str(panel.text), "title": str(panel.title)}
    style = panel.style if panel.style in STYLES else POINTS
    board, lines, empty = DEFAULT_COLOURS[style]
    return {
        "rows": [str(r) for r in panel.rows],
        "pieces": {str(k): c for k, v in panel.pieces.items() if (c := _colour(v)) is not None},
        "style": style, "title": str(panel.title),
        "board": _colour(panel.board_colour) or board, "lines": _colour(panel.line_colour) or lines,
        "empty": _colour(panel.empty_colour) or empty,
        "last": [[int(r), int(c)] for r, c in panel.last], "line": [[int(r), int(c)] for r, c in panel.line],
        "shaded_rows": [int(r) for r in panel.shaded_rows],
        "col_labels": [str(x) for x in panel.col_labels], "row_labels": [str(x) for x in panel.row_labels],
    }


def panels_of(found: object) -> list[Grid | Svg] | None:
    """A ``kothkit_picture`` answer as its panels; None for no picture; PictureError for an answer
    that is not a picture (or holds a Grid the page cannot draw)."""
    if found is None:
        return None
    items = [found] if isinstance(found, (Grid, Svg)) else found
    if not isinstance(items, (list, tuple)) or not all(isinstance(p, (Grid, Svg)) for p in items):
        raise PictureError(f"returned {found!r:.100}, not a Grid, an Svg, a list of them or None")
    for p in items:
        problem = grid_problem(p) if isinstance(p, Grid) else None
        if problem is not None:
            raise PictureError(f"returned a Grid the page cannot draw: {problem}")
    return list(items) or None


def board_js() -> str:
    """The script that draws a Grid's JSON (``kothkitBoard(grid, opts)``), shared by the replay,
    report and play pages."""
    from importlib import resources

    return resources.files("kothkit").joinpath("templates/board.js").read_text(encoding="utf-8")


def picture_of(info: GameInfo, match: Match) -> list[dict[str, Any]] | None:
    """The picture of ``match`` (a game of ``info``), from its :meth:`Match.picture` (or a plugin's
    deprecated ``kothkit_picture`` hook), as JSON panels; None if the game draws none.  One that
    raises, or answers with what is not a picture, is a :class:`PictureError` naming the game: the
    caller says so (a replay page shows its text board and the error; ``kothkit export`` fails)."""
    from kothkit.game import Match
    from kothkit.plugins import legacy_answer

    own = type(match).picture is not Match.picture
    what = f"{type(match).__name__}.picture()" if own else "kothkit_picture hook"
    try:
        found = match.picture() if own else legacy_answer("kothkit_picture", game=info, match=match)
        panels = panels_of(found)
    except PictureError as e:
        raise PictureError(f"{info.name}'s {what} {e}") from None
    except Exception as e:  # noqa: BLE001 - any error of the plugin's, named
        raise PictureError(f"{info.name}'s {what} raised {type(e).__name__}: {e}") from e
    return [to_json(p) for p in panels] if panels else None
