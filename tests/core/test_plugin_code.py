"""The games in ``plugins/`` (and the scaffold's, and the documented m,n,k plugin) are plugins like any
other: to them kothkit is a library with a public API, the top of the layering of
tests/core/test_layers.py, and a game is a pure state machine.  Read from the source, so that imports
inside functions count.  The rules, for a new game in plugins/ (docs/plugins.md, "What a plugin may
import"):

* from kothkit, only the plugin API: ``kothkit`` (its ``__all__``) and the modules in PUBLIC, and
  only their public names (no leading underscore; a module's ``__all__`` when it has one);
* no other game's package (``kothkit_<other>``);
* none of FORBIDDEN: a game starts no process or thread, reads no clock, opens no socket;
* no private name of any other dependency (tests/core/test_public_apis.py's check).

And its pictures and play by a person, in a ``views.py`` the match's ``picture`` and ``human`` import
when called, are not part of its games' ids: editing them replays no game."""

from __future__ import annotations

import ast
import importlib
import shutil
import sys
import tomllib
from pathlib import Path

import pytest
from tests.core.test_public_apis import private_uses

import kothkit
from kothkit import plugins
from kothkit.cli.scaffold import new_game
from kothkit.game import GameInfo

ROOT = Path(__file__).resolve().parents[2]

#: The kothkit modules a plugin may import: the API layer a game sees (kothkit/__init__.py), the two
#: modules that keep their import paths for plugins, and the conformance kit for its tests.
PUBLIC = ("kothkit", "kothkit.game", "kothkit.limits", "kothkit.scoring", "kothkit.people", "kothkit.scenarios",
          "kothkit.botspec", "kothkit.formats", "kothkit.hookspecs", "kothkit.picture", "kothkit.human",
          "kothkit.testing")

#: Standard modules a pure state machine has no use for: processes, threads, clocks, the network.
FORBIDDEN = ("subprocess", "multiprocessing", "threading", "concurrent", "asyncio", "socket", "signal", "time",
             "datetime", "sched", "selectors")


def _public_module(name: str) -> bool:
    return name in PUBLIC or name.startswith("kothkit.testing.")


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _exported(module: str, name: str) -> bool:
    """Whether ``name`` is a public name of kothkit's ``module``: a public submodule, or a name in
    its ``__all__`` (any name without a leading underscore when it has none)."""
    if _private(name):
        return False
    try:
        if importlib.util.find_spec(f"{module}.{name}") is not None:
            return _public_module(f"{module}.{name}")
    except (ImportError, ValueError):  # ``module`` is no package: ``name`` is one of its attributes
        pass
    exported = getattr(importlib.import_module(module), "__all__", None)
    return exported is None or name in exported


def problems(path: Path, package: str, root: Path) -> list[str]:
    """What ``path``, a module of the game package ``package``, imports that a plugin may not."""
    where = path.relative_to(root)
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    kothkit_modules: set[str] = set()  # local names bound to a kothkit module
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            pairs = [(a.name, a.asname or a.name.split(".")[0]) for a in node.names]
            names = [(n, None, line) for n, line in pairs]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [(node.module, a.name, a.asname or a.name) for a in node.names]
        else:
            continue
        for module, name, local in names:
            top = module.split(".")[0]
            line = f"{where}:{node.lineno}"
            if top in FORBIDDEN:
                found.append(f"{line}: imports {module} (a game starts no process, reads no clock)")
            elif top.startswith("kothkit_") and top != package:
                found.append(f"{line}: imports {module}, another game's package")
            elif top == "kothkit":
                if not _public_module(module):
                    found.append(f"{line}: imports {module}, which is not kothkit's plugin API")
                elif name is not None and not _exported(module, name):
                    found.append(f"{line}: imports {module}.{name}, which is not a public name of {module}")
                else:
                    kothkit_modules.add(local)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in kothkit_modules \
                and _private(node.attr):
            found.append(f"{where}:{node.lineno}: reads {node.value.id}.{node.attr}, a private name of kothkit")
    found += private_uses(path, root)  # other dependencies' private names (kothkit's own are checked above)
    return found


def game_packages() -> list[tuple[Path, str]]:
    """Each bundled game's folder with its package name (pyproject.toml's ``package-dir`` maps it to
    ``plugins/<game>``), and the documented third-party example's."""
    mapped = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    names = {(ROOT / folder).resolve(): package for package, folder in mapped.items()}
    found = [(folder, names.get(folder.resolve(), f"kothkit_{folder.name}"))
             for folder in sorted((ROOT / "plugins").iterdir()) if (folder / "__init__.py").exists()]
    return found + [(ROOT / "tests" / "thirdparty" / "mnk" / "src" / "kothkit_mnk", "kothkit_mnk")]


def modules(folder: Path) -> list[Path]:
    """A game's Python modules, less its bundled bots (programs of their own, not the plugin)."""
    return sorted(p for p in folder.rglob("*.py") if "bots" not in p.relative_to(folder).parts)


def test_the_bundled_games_use_only_kothkits_plugin_api():
    games = game_packages()
    assert {p for _, p in games} >= {"kothkit_gomoku_swap2", "kothkit_gomoku_classic12", "kothkit_connect4_hidden"}
    found = [f for folder, package in games for path in modules(folder) for f in problems(path, package, ROOT)]
    assert found == []


@pytest.mark.parametrize("players", [(2, 2), (3, 8)], ids=["two", "table"])
def test_the_scaffolds_game_uses_only_kothkits_plugin_api(tmp_path, players):
    new_game("tic_tac", tmp_path / "tic_tac", players)
    folder = tmp_path / "tic_tac" / "src" / "kothkit_tic_tac"
    found = [f for path in modules(folder) for f in problems(path, "kothkit_tic_tac", tmp_path)]
    assert len(modules(folder)) >= 7 and found == []


def test_the_check_finds_what_a_plugin_may_not_import(tmp_path):
    """The check itself: each way a game reached past the plugin API (the bundled games' SGF
    exporters once imported ``kothkit.results.archive.iso_time``) is found, and the API is not."""
    sample = tmp_path / "views.py"
    sample.write_text(
        "import time\nfrom datetime import datetime\nimport subprocess as sp\n"
        "from kothkit import formats, Match, hookimpl\nfrom kothkit.game import Rule, _new\n"
        "from kothkit.people import Grid\nfrom kothkit.testing import conformance_tests\n"
        "from kothkit_othergame.rules import Board\nfrom kothkit_mine.rules import SIZE\nfrom . import codec\n"
        "def sgf(t):\n    from kothkit.results.archive import iso_time\n    import kothkit.playing.referee\n"
        "    return formats._one_line(iso_time(t))\n")
    found = [f.split(": ", 1)[1] for f in problems(sample, "kothkit_mine", tmp_path)]
    assert sorted(found) == sorted([
        "imports time (a game starts no process, reads no clock)",
        "imports datetime (a game starts no process, reads no clock)",
        "imports subprocess (a game starts no process, reads no clock)",
        "imports kothkit.game._new, which is not a public name of kothkit.game",
        "imports kothkit_othergame.rules, another game's package",
        "imports kothkit.results.archive, which is not kothkit's plugin API",
        "imports kothkit.playing.referee, which is not kothkit's plugin API",
        "reads formats._one_line, a private name of kothkit",
    ])
    assert all(_exported("kothkit", n) for n in kothkit.__all__)


# -- what of a game makes its games' ids ------------------------------------------------------------


@pytest.mark.parametrize("game", sorted(f.name for f in (ROOT / "plugins").iterdir() if (f / "__init__.py").exists()))
def test_a_bundled_games_outcome_code_is_its_rules_codec_and_match_not_its_views(game):
    info = plugins.get_game(game)
    package = f"kothkit_{game}"
    found = plugins.outcome_modules(info)
    assert {f"{package}.rules", f"{package}.codec", f"{package}.match"} <= set(found)
    assert f"{package}.views" not in found and f"{package}.plugin" not in found, found


def test_editing_a_bundled_games_views_changes_no_game_id_and_editing_its_rules_does(tmp_path, monkeypatch):
    # A copy of classic12 (whose modules import one another relatively) under a package name of its
    # own, hashed as the installed one is: from its files, read when the id is made.
    pkg = tmp_path / "kothkit_classic_copy"
    shutil.copytree(ROOT / "plugins" / "gomoku_classic12", pkg, ignore=shutil.ignore_patterns("__pycache__", "bots"))
    monkeypatch.syspath_prepend(str(tmp_path))
    match = importlib.import_module("kothkit_classic_copy.match")
    try:
        info = GameInfo(name="classic_copy", summary="a copy", match=match.ClassicMatch)
        before = plugins.game_code(info)

        views = pkg / "views.py"
        text = views.read_text()
        views.write_text(text.replace("def picture(", "# A cosmetic edit: the board's colours.\n\n\ndef picture(", 1)
                         .replace("POINTS", "CELLS"))
        assert plugins.game_code(info) == before

        rules = pkg / "rules.py"
        rules.write_text(rules.read_text() + "\n# A rule's edit.\n")
        assert plugins.game_code(info) != before
    finally:
        for name in [m for m in sys.modules if m.startswith("kothkit_classic_copy")]:
            del sys.modules[name]


def test_an_exporter_dates_its_sgf_through_the_plugin_api():
    # What the Gomoku games' SGF exporters once took from kothkit.results.archive.iso_time.
    from kothkit import formats

    assert formats.sgf_date(None) is None
    assert formats.sgf_date(0.0) == "1970-01-01" and formats.sgf_date(1_795_000_000.5) == "2026-11-18"
    text = formats.sgf(15, 15, [formats.Stone(7, 7, True)], "a", "b", "B+", formats.sgf_date(1_795_000_000.5))
    assert "DT[2026-11-18]" in text
