"""``kothkit new-game NAME [--dir PATH]``: write a new, working game plugin package to start from.

The package comes from the template folder ``kothkit/templates/game`` (package
data, so it is there in any install): every file ending in ``.tmpl`` is
copied without that suffix, with ``{{name}}``, ``{{package}}``, ``{{dist}}``
and ``{{title}}`` filled in; a path part ``__package__`` becomes the package's
name and a leading ``dot-`` becomes ``.``.  The result installs with pip, is
listed by ``kothkit games``, plays with ``kothkit run NAME`` and passes its own
tests (which use the conformance kit) before anyone edits it.
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


class ScaffoldError(Exception):
    pass


def check_name(name: str) -> None:
    if not NAME.match(name) or name.endswith("_") or "__" in name:
        raise ScaffoldError(f"a game name is lower-case letters, digits and single underscores, starting with a "
                            f"letter (at most 40 characters), e.g. 'tictactoe' or 'connect_six'; got {name!r}")
    if keyword.iskeyword(name):
        raise ScaffoldError(f"{name!r} is a Python keyword; pick another name")


def values(name: str) -> dict[str, str]:
    return {
        "name": name,
        "package": f"kothkit_{name}",
        "dist": f"kothkit-{name.replace('_', '-')}",
        "title": name.replace("_", " ").title(),
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


def template_files() -> list[tuple[str, Traversable]]:
    """(relative path, resource) for every file of the game template."""
    root = resources.files("kothkit") / "templates" / TEMPLATE
    if not root.is_dir():
        raise ScaffoldError(f"the game template is missing from this kothkit install ({root}); reinstall kothkit")
    return list(_walk(root))


def new_game(name: str, folder: Path) -> list[Path]:
    """Write the plugin package for game ``name`` into ``folder`` (new or empty); returns the files written."""
    check_name(name)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ScaffoldError(f"{folder} already exists and is not an empty folder; give another --dir")
    vals = values(name)
    written = []
    for rel, res in template_files():
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
) -> None:
    """Write a new game plugin package (rules, codec, validators, two bots, tests, README) to start from."""
    from kothkit.plugins import PluginError, installed_games

    folder = where or Path(name)
    try:
        files = new_game(name, folder)
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
