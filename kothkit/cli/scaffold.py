"""``kothkit new-game NAME [--dir PATH] [--players N|A-B]``: write a new, working game plugin package to start from.

The package comes from a template folder (package data, so it is there in any install):
``kothkit/templates/game`` for a two-player board game (the default, ``--players 2``), or
``kothkit/templates/table`` for a game of more seats (``--players 3-8``: a table of bots moving at
once each round, scored by points), which takes its packaging files (:data:`SHARED`) from
``game``.  Every file ending in ``.tmpl`` is copied without that suffix, with ``{{name}}``,
``{{package}}``, ``{{dist}}`` and ``{{title}}`` filled in (and ``{{fewest}}``, ``{{most}}``: the
seats of a table game); a path part ``__package__`` becomes the package's name and a leading
``dot-`` becomes ``.``.  The result installs with pip, is listed by ``kothkit games``, plays with
``kothkit run NAME`` and passes its own tests (which use the conformance kit) before anyone edits it.
"""

import keyword
import re
from collections.abc import Iterator
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated, Optional

import typer

from kothkit.cli.common import app, err, out
from kothkit.playing.progress import counted

NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
TEMPLATE = "game"
#: The template of a game of more than two seats, and the files it takes from :data:`TEMPLATE`.
TABLE = "table"
SHARED = ("pyproject.toml.tmpl", "dot-gitignore.tmpl")
#: The most seats ``--players`` may ask for.
MOST_SEATS = 64
_PLAYERS = re.compile(r"^([0-9]{1,3})(?:-([0-9]{1,3}))?$")


class ScaffoldError(Exception):
    pass


def check_name(name: str) -> None:
    if not NAME.match(name) or name.endswith("_") or "__" in name:
        raise ScaffoldError(f"a game name is lower-case letters, digits and single underscores, starting with a "
                            f"letter (at most 40 characters), e.g. 'tictactoe' or 'connect_six'; got {name!r}")
    if keyword.iskeyword(name):
        raise ScaffoldError(f"{name!r} is a Python keyword; pick another name")


def parse_players(text: str) -> tuple[int, int]:
    """``--players``: "2" (the two-player board game), or a table game's seats, "3-8" or "5"."""
    m = _PLAYERS.match(text.strip())
    if m is None:
        raise ScaffoldError(f"--players is a number of seats or a range, e.g. 2 or 3-8; got {text!r}")
    low = int(m.group(1))
    high = int(m.group(2) or low)
    if (low, high) != (2, 2) and not 3 <= low <= high <= MOST_SEATS:
        raise ScaffoldError(f"--players {text}: 2 makes a two-player board game, 3 to {MOST_SEATS} seats (a range "
                            f"from its fewest to its most, e.g. 3-8) a table game of more players")
    return low, high


def values(name: str, players: tuple[int, int] = (2, 2)) -> dict[str, str]:
    return {
        "name": name,
        "package": f"kothkit_{name}",
        "dist": f"kothkit-{name.replace('_', '-')}",
        "title": name.replace("_", " ").title(),
        "fewest": str(players[0]),
        "most": str(players[1]),
    }


def fill(text: str, vals: dict[str, str]) -> str:
    for key, value in vals.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def _target(rel: str, vals: dict[str, str]) -> str:
    parts = []
    for part in rel.split("/"):
        part = part.replace("__package__", vals["package"])
        if part.startswith("dot-"):
            part = "." + part[4:]
        if part.endswith(".tmpl"):
            part = part[: -len(".tmpl")]
        parts.append(part)
    return "/".join(parts)


def _walk(node: Traversable, prefix: str = "") -> Iterator[tuple[str, Traversable]]:
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        rel = f"{prefix}{child.name}"
        if child.is_dir():
            if child.name != "__pycache__":
                yield from _walk(child, rel + "/")
        else:
            yield rel, child


def _root(folder: str) -> Traversable:
    root = resources.files("kothkit") / "templates" / folder
    if not root.is_dir():
        raise ScaffoldError(f"the game template is missing from this kothkit install ({root}); reinstall kothkit")
    return root


def template_files(players: tuple[int, int] = (2, 2)) -> list[tuple[str, Traversable]]:
    """(relative path, resource) for every file of the game template for ``players`` seats."""
    if players == (2, 2):
        return list(_walk(_root(TEMPLATE)))
    shared = [(rel, res) for rel, res in _walk(_root(TEMPLATE)) if rel in SHARED]
    return sorted([*_walk(_root(TABLE)), *shared], key=lambda found: found[0])


def new_game(name: str, folder: Path, players: tuple[int, int] = (2, 2)) -> list[Path]:
    """Write the plugin package for game ``name`` into ``folder`` (new or empty); returns the files
    written.  ``players``: (2, 2) a two-player board game, else a table game of that many seats."""
    check_name(name)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ScaffoldError(f"{folder} already exists and is not an empty folder; give another --dir")
    vals = values(name, players)
    written = []
    for rel, res in template_files(players):
        if not rel.endswith(".tmpl"):
            continue
        dest = folder / _target(rel, vals)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(fill(res.read_text(encoding="utf-8"), vals), encoding="utf-8")
        written.append(dest)
    return written


@app.command("new-game")
def new_game_command(
    name: Annotated[str, typer.Argument(help="The game's name: lower-case letters, digits and underscores.")],
    where: Annotated[Optional[Path], typer.Option("--dir", help="The folder to create (default: ./NAME).")] = None,
    players: Annotated[str, typer.Option("--players", help="Seats a game: 2, a two-player board game taking turns (the default); or a range such as 3-8 (or one number from 3), a table of bots moving at once each round, scored by points.")] = "2",
) -> None:
    """Write a new game plugin package (rules, codec, validators, two bots, tests, README) to start from."""
    from kothkit.plugins import PluginError, installed_games

    folder = where or Path(name)
    try:
        files = new_game(name, folder, parse_players(players))
    except ScaffoldError as e:
        err.print(f"error: {e}", markup=False, soft_wrap=True)
        raise typer.Exit(1) from None
    try:
        if name in installed_games():
            err.print(f"note: a game named {name!r} is already installed; installing this one too would clash",
                      markup=False)
    except PluginError:
        pass
    vals = values(name)
    out.print(f"wrote {counted(len(files), 'file')} to {folder}/ (package {vals['package']}, distribution {vals['dist']})",
              markup=False, soft_wrap=True)
    out.print(f"next:\n  cd {folder}\n  pip install -e '.[test]'\n  kothkit run {name}\n  python -m pytest\n"
              f"then make it your game: src/{vals['package']}/rules.py, codec.py, validate.py, match.py "
              f"(see {folder}/README.md; the game interface, installed with kothkit: "
              "python -m pydoc kothkit.game)", markup=False)
