"""``kothkit export``: games of a journal as files in the field's formats.

``json`` (the core's, for every game) is one document per game (see
:func:`kothkit.results.archive.document`), ``html`` its replay page (kothkit.results.replay); games
add their own formats in their registration (``GameInfo.exporters``) (Gomoku: Piskvork ``psq`` and ``sgf``).
A hook or exporter that raises, and a picture hook that fails on an ``html`` page, stop the
export with an ArchiveError naming the game and the hook: its files are not written.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from kothkit.formats import Unwritable
from kothkit.results.archive import (
    Archive,
    ArchiveError,
    Transcript,
    document,
    transcript,
)

Exporter = Callable[[Transcript], str]


def json_document(t: Transcript) -> str:
    return json.dumps(document(t), indent=1, ensure_ascii=False) + "\n"


def html_page(t: Transcript) -> str:
    from kothkit.results.replay import page_of

    return page_of(t)


def formats_of(game: str) -> dict[str, Exporter]:
    """Every export format of ``game``: the core's json and html (its replay page), then those the
    game offers (:func:`kothkit.plugins.exporters_of`)."""
    from kothkit.plugins import PluginError, exporters_of, get_game

    found: dict[str, Exporter] = {"json": json_document, "html": html_page}
    try:
        info = get_game(game)
    except PluginError:
        return found
    try:
        found.update(exporters_of(info))
    except PluginError as e:
        raise ArchiveError(str(e)) from e
    return found


def file_name(t: Transcript, fmt: str) -> str:
    r = t.record
    return f"{r.game}-{r.index:04d}-{r.id[:12]}.{fmt}"


def export_games(archive: Archive, records, fmt: str) -> list[tuple[str, str]]:
    """(file name, text) of each game in ``fmt``; ArchiveError if a game has no such format."""
    done = []
    for r in records:
        formats = formats_of(r.game)
        if fmt not in formats:
            raise ArchiveError(f"{r.game} games do not export as {fmt!r} (formats: {', '.join(sorted(formats))})")
        t = transcript(archive, r, boards=fmt == "html", pictures=fmt == "html")
        game = f"game #{r.index} ({r.id[:12]})"
        if t.problem and fmt not in ("json", "html"):
            raise ArchiveError(f"{game}: {t.problem}")
        if t.picture_problem:  # the page would show text boards: the game's author must hear of it
            raise ArchiveError(f"{game}: {t.picture_problem}")
        try:
            text = formats[fmt](t)
        except Unwritable as e:  # a game the format cannot hold: said as such, not as a plugin's fault
            raise ArchiveError(f"{game} cannot be written as {fmt}: {e}") from e
        except Exception as e:  # noqa: BLE001 - a plugin's exporter: its error, named
            raise ArchiveError(f"{game}: {r.game}'s {fmt} exporter raised {type(e).__name__}: {e}") from e
        if not isinstance(text, str):
            raise ArchiveError(f"{game}: {r.game}'s {fmt} exporter returned {type(text).__name__}, not the file's text")
        done.append((file_name(t, fmt), text))
    return done


