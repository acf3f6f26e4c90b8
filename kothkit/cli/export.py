"""`kothkit export`: games of a journal written as files."""
from pathlib import Path
from typing import Annotated, Optional

import typer

from kothkit.cli.common import app, out
from kothkit.cli.show import fail
from kothkit.playing.progress import counted
from kothkit.results.archive import (
    ArchiveError,
    games_of,
    journal_path,
    open_journal,
)
from kothkit.results.export import export_games


@app.command()
def export(
    target: Annotated[str, typer.Argument(help="A journal file, a challenge folder, or a game name (its .kothkit/GAME.sqlite).")],
    game: Annotated[Optional[str], typer.Argument(help="One game: its index or the start of its id. Default: every game.")] = None,
    format: Annotated[str, typer.Option("--format", "-f", help="json or html (a replay page; every game), psq or sgf (Gomoku), or a format a game's plugin adds.")] = "json",
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Folder for the files (one per game); '-' prints one game to stdout.")] = Path("exports"),
    bot: Annotated[Optional[str], typer.Option(help="Only games this bot played.")] = None,
    all_games: Annotated[bool, typer.Option("--all", help="Every game of the journal: also matches' and superseded games (default: the current standings' games).")] = False,
) -> None:
    """Write games of a journal as files: json, or a game's own formats (Gomoku: psq, sgf)."""
    try:
        archive = open_journal(journal_path(target))
        records = ([archive.find(game, all_games=all_games)] if game is not None else
                   list(games_of(archive, bot=bot, records=archive.games(all_games))))
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
    out.print(f"{counted(len(files), 'game')} written to {out_dir}/ as {format}" + (f" (e.g. {files[0][0]})" if files else ""),
              markup=False, highlight=False)
