"""``kothkit export``: games of a journal as files in the field's formats.

``json`` (the core's, for every game) is one document per game (see
:func:`kothkit.archive.document`), ``html`` its replay page (kothkit.replay); games add their own formats through the
``kothkit_exporters`` hook (Gomoku: Piskvork ``psq`` and ``sgf``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Callable, Optional

import typer

from kothkit.archive import Archive, ArchiveError, Transcript, document, games_of, journal_path, open_journal
from kothkit.archive import transcript
from kothkit.cli import app, out
from kothkit.show import fail

Exporter = Callable[[Transcript], str]


def json_document(t: Transcript) -> str:
    return json.dumps(document(t), indent=1, ensure_ascii=False) + "\n"


def html_page(t: Transcript) -> str:
    from kothkit.replay import page_of

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


@app.command()
def export(
    target: Annotated[str, typer.Argument(help="A journal file, a challenge folder, or a game name (its .kothkit/GAME.sqlite).")],
    game: Annotated[Optional[str], typer.Argument(help="One game: its index or the start of its id. Default: every game.")] = None,
    format: Annotated[str, typer.Option("--format", "-f", help="json or html (a replay page; every game), psq or sgf (Gomoku), or a format a game's plugin adds.")] = "json",
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Folder for the files (one per game); '-' prints one game to stdout.")] = Path("exports"),
    bot: Annotated[Optional[str], typer.Option(help="Only games this bot played.")] = None,
) -> None:
    """Write games of a journal as files: json, or a game's own formats (Gomoku: psq, sgf)."""
    try:
        archive = open_journal(journal_path(target))
        records = [archive.find(game)] if game is not None else list(games_of(archive, bot=bot))
        if not records:
            fail(f"{archive.path}: no games to export")
        files = export_games(archive, records, format)
    except ArchiveError as e:
        fail(str(e))
    if str(out_dir) == "-":
        if len(files) != 1:
            fail("--out - prints one game: give its index or id")
        out.file.write(files[0][1])
        return
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, text in files:
        (out_dir / name).write_text(text, encoding="utf-8")
    out.print(f"{len(files)} game(s) written to {out_dir}/ as {format}" + (f" (e.g. {files[0][0]})" if files else ""),
              markup=False, highlight=False)
