"""`kothkit report`: a static site (or Markdown) from a journal.

Pointed at a ``kothkit serve`` host's state folder, or at one of its journals
(``STATE/journals/NAME.sqlite``), it writes the report a TA may publish: each bot by its author's
nickname, no logs, no stderr quotes (:mod:`kothkit.serve.publish`).  ``--public`` does the same to
any journal; ``--private`` writes the full report of a host's journal.
"""
import sqlite3
from pathlib import Path
from typing import Annotated, Any

import typer

from kothkit.cli.common import app, out
from kothkit.cli.show import fail
from kothkit.playing.progress import counted
from kothkit.results.archive import Archive, ArchiveError, journal_path, open_journal
from kothkit.results.site import boards_of, markdown, write_site

#: The file that makes a folder a ``kothkit serve`` state folder (kothkit.serve.accounts.DB_FILE).
HOST_DB = "host.sqlite"


def _journal(target: str) -> tuple[Path, Path | None]:
    """The journal ``target`` names, and the host's state folder if it is a host's."""
    given = Path(target)
    if (given / HOST_DB).is_file():
        found = sorted((given / "journals").glob("*.sqlite"))
        if len(found) != 1:
            listed = ", ".join(str(p) for p in found) or "none yet"
            raise ArchiveError(f"{given}: a kothkit serve state folder with {counted(len(found), 'journal')} "
                               f"(one per submissions challenge): give one of them ({listed})")
        return found[0], given
    path = journal_path(target)
    state = path.resolve().parent.parent
    return path, state if path.resolve().parent.name == "journals" and (state / HOST_DB).is_file() else None


def _title(target: str) -> str | None:
    """The title of the challenge ``target`` names (its kothkit.toml's ``[serve] title``), or None."""
    import tomllib

    from kothkit.playing import challenge as challenges

    p = Path(target)
    file = p if target.endswith(".toml") else p / challenges.FILE
    try:
        title = tomllib.loads(file.read_text(encoding="utf-8")).get("serve", {}).get("title")
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(title, dict):  # (titles by language: the English one, else the first)
        title = title.get("en", next(iter(title.values()), None))
    return " ".join(title.split())[:200] or None if isinstance(title, str) else None


def _scoring(target: str) -> dict[str, Any] | None:
    """The ``[scoring]`` of the challenge ``target`` names (checked), or None: not a challenge."""
    from kothkit.playing import challenge as challenges

    p = Path(target)
    file = p if target.endswith(".toml") else p / challenges.FILE
    if not file.is_file():
        return None
    try:
        return challenges.load(file).scoring
    except challenges.ChallengeError as e:
        raise ArchiveError(str(e)) from None


def _public_names(archive: Archive, state: Path | None) -> dict[str, str]:
    """Each bot's name in the public report: its author's nickname as the host shows it, or, for a
    journal that is no host's, the bot's own name (made one word)."""
    from kothkit.serve.privacy import Names
    from kothkit.serve.publish import public_names, state_names

    names = (state_names(state, archive.path.stem) if state is not None
             else Names.make("folder", b"", [], {}, {}))
    return public_names(names, archive)


@app.command()
def report(
    target: Annotated[str, typer.Argument(help="A journal file, a challenge folder, a game name (its .kothkit/GAME.sqlite), or a kothkit serve state folder.")],
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="The site's folder (replaced if it holds an earlier report).")] = Path("report"),
    as_markdown: Annotated[bool, typer.Option("--markdown", help="Print the leaderboard for a challenge's post instead, in Markdown (writes nothing): a heading with the date, seed and games, then each bot's author, language and link (bot.toml's author, language, url), points, faults and, where they tell the bots apart, its Elo.")] = False,
    pages: Annotated[bool, typer.Option(help="Write a replay page per game.")] = True,
    all_games: Annotated[bool, typer.Option("--all", help="Count every game of the journal: also superseded games and matches' (default: the current standings' games, as `kothkit run` counts them).")] = False,
    public: Annotated[bool | None, typer.Option("--public/--private", help="--public: a report to publish: no bot's logs or stderr, each bot by its author's nickname (a host's journal) or its own name. The default for a kothkit serve host's state folder or journal; --private: the full report of one.")] = None,
) -> None:
    """Write a static site from a journal: leaderboard, crosstable, a page per bot, replay pages."""
    try:
        path, state = _journal(target)
        archive = open_journal(path)
        if not archive.records:
            fail(f"{archive.path} holds no games")
        if public is None:
            public = state is not None
        boards = boards_of(archive, all_games, _public_names(archive, state) if public else None, _title(target),
                           _scoring(target))
        if as_markdown:
            for i, board in enumerate(boards):
                out.print(("\n" if i else "") + markdown(board), markup=False, highlight=False, soft_wrap=True)
            return
        n = write_site(archive, out_dir, boards, pages=pages)
    except ArchiveError as e:
        fail(str(e))
    except (OSError, sqlite3.Error) as e:  # (a state folder this user may not open, say)
        fail(f"{target}: cannot be read: {e}")
    kind = "public report (no logs, no stderr)" if public else "report"
    out.print(f"{kind} written to {out_dir}/index.html ({counted(sum(len(b.bots) for b in boards), 'bot page')}, "
              f"{counted(n, 'replay page')})", markup=False, highlight=False)
