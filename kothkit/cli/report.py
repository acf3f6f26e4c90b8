"""`kothkit report`: a static site (or Markdown) from a journal."""
from pathlib import Path
from typing import Annotated

import typer

from kothkit.cli.common import app, out
from kothkit.cli.show import fail
from kothkit.playing.progress import counted
from kothkit.results.archive import ArchiveError, journal_path, open_journal
from kothkit.results.site import boards_of, markdown, write_site


@app.command()
def report(
    target: Annotated[str, typer.Argument(help="A journal file, a challenge folder, or a game name (its .kothkit/GAME.sqlite).")],
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="The site's folder (replaced if it holds an earlier report).")] = Path("report"),
    as_markdown: Annotated[bool, typer.Option("--markdown", help="Print the leaderboard as a Markdown table instead (writes nothing).")] = False,
    pages: Annotated[bool, typer.Option(help="Write a replay page per game.")] = True,
    all_games: Annotated[bool, typer.Option("--all", help="Count every game of the journal: also superseded games and matches' (default: the current standings' games, as `kothkit run` counts them).")] = False,
) -> None:
    """Write a static site from a journal: leaderboard, crosstable, a page per bot, replay pages."""
    try:
        archive = open_journal(journal_path(target))
        if not archive.records:
            fail(f"{archive.path} holds no games")
        boards = boards_of(archive, all_games)
        if as_markdown:
            for board in boards:
                if len(boards) > 1:
                    out.print(f"\n**{board.game}**\n", markup=False)
                out.print(markdown(board), markup=False, highlight=False, soft_wrap=True)
            return
        n = write_site(archive, out_dir, boards, pages=pages)
    except ArchiveError as e:
        fail(str(e))
    out.print(f"report written to {out_dir}/index.html ({counted(sum(len(b.bots) for b in boards), 'bot page')}, {counted(n, 'replay page')})",
              markup=False, highlight=False)
