"""``kothkit export``: games of a journal as files in the field's formats.

``json`` (the core's, for every game) is one document per game (see
:func:`kothkit.results.archive.document`), ``html`` its replay page (kothkit.results.replay); games
add their own formats through the ``kothkit_exporters`` hook (Gomoku: Piskvork ``psq`` and ``sgf``).
"""

from __future__ import annotations

import json
from collections.abc import Callable

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
    """Every export format of ``game``: the core's json and html (its replay page), then those its
    plugins give."""
    from kothkit.plugins import PluginError, get_game, plugin_manager

    found: dict[str, Exporter] = {"json": json_document, "html": html_page}
    try:
        info = get_game(game)
    except PluginError:
        return found
    for extra in plugin_manager().hook.kothkit_exporters(game=info):
        if isinstance(extra, dict):
            found.update({str(k): v for k, v in extra.items() if callable(v)})
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
        if t.problem and fmt not in ("json", "html"):
            raise ArchiveError(f"game #{r.index} ({r.id[:12]}): {t.problem}")
        done.append((file_name(t, fmt), formats[fmt](t)))
    return done


