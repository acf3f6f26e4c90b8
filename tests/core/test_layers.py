"""The core's layers: a module never imports (at the top or inside a function) from a layer above its own.

api (game, limits, scoring, hookspecs) < procs < bots (+ the plugin manager) < store < playing < results
< cli, serve, testing.  A game plugin may use the api layer and kothkit.testing only through their public
names; see docs/internals.md.  An import under ``if TYPE_CHECKING:`` names a type for annotations and is
never run: it may point up (the hooks' contract names the types the core hands plugins where they live).
"""

from __future__ import annotations

import ast
from pathlib import Path

import kothkit

ROOT = Path(kothkit.__file__).parent

LAYERS = {
    "kothkit": 0, "kothkit.game": 0, "kothkit.limits": 0, "kothkit.scoring": 0, "kothkit.hookspecs": 0,
    "kothkit.procs": 1,
    "kothkit.bots": 2, "kothkit.plugins": 2, "kothkit.defaults": 2, "kothkit.picture": 2, "kothkit.human": 2,
    "kothkit.store": 3,
    "kothkit.playing": 4,
    "kothkit.results": 5,
    "kothkit.cli": 6, "kothkit.serve": 6, "kothkit.testing": 6, "kothkit.__main__": 6,
}


def layer(module: str) -> int:
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in LAYERS:
            return LAYERS[".".join(parts[:n])]
    raise AssertionError(f"{module}: in no layer (add it to LAYERS and to docs/internals.md)")


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the import nodes under ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            skip |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return skip


def imports(path: Path, module: str) -> list[tuple[int, str]]:
    """Every kothkit module ``path`` runs an import of, with its line: ``from kothkit import x`` names x's
    module."""
    found = []
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skip = _type_checking_only(tree)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "kothkit"]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            if base.split(".")[0] != "kothkit":
                continue
            for a in node.names:
                sub = f"{base}.{a.name}"
                found.append((node.lineno, sub if (ROOT.parent / sub.replace(".", "/")).with_suffix(".py").exists()
                              or (ROOT.parent / sub.replace(".", "/")).is_dir() else base))
    return found


def test_every_module_is_in_a_layer_and_imports_only_downwards():
    wrong = []
    files = sorted(ROOT.rglob("*.py"))
    assert len(files) > 40
    for path in files:
        if "templates" in path.parts:
            continue
        me = module_name(path)
        for line, other in imports(path, me):
            if layer(other) > layer(me):
                wrong.append(f"{path.relative_to(ROOT.parent)}:{line}: {me} (layer {layer(me)}) imports {other} "
                             f"(layer {layer(other)})")
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_an_upward_import(tmp_path):
    # The checker itself: a store module importing the referee is caught, a lazy import too.
    fake = ROOT / "store" / "records.py"
    src = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from kothkit.results import archive\n"
           "def f():\n    from kothkit.playing import referee\n")
    (tmp_path / "x.py").write_text(src)
    found = imports(tmp_path / "x.py", module_name(fake))
    assert found == [(5, "kothkit.playing.referee")]  # the TYPE_CHECKING import is for annotations only
    assert layer("kothkit.playing.referee") > layer(module_name(fake))


def test_the_plugin_api_is_declared():
    assert "hookimpl" in kothkit.__all__ and "Match" in kothkit.__all__
    for name in kothkit.__all__:
        assert hasattr(kothkit, name), name
