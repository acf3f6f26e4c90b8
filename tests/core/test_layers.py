"""The core's layers: a module never imports from a layer above its own: not at the top, not inside a
function, not under ``if TYPE_CHECKING:``; and no modules import one another in a cycle.

api (game, limits, scoring, people, scenarios, botspec, formats, hookspecs, messages) < procs < bots (+ the plugin manager)
< store < playing < results < cli, serve, testing.  A game plugin may use the api layer and kothkit.testing
only through their public names; see docs/internals.md.  The types the contract names live in the api
layer, so its annotations need nothing from above either.
"""

from __future__ import annotations

import ast
from pathlib import Path

import kothkit

ROOT = Path(kothkit.__file__).parent

LAYERS = {
    "kothkit": 0, "kothkit.game": 0, "kothkit.limits": 0, "kothkit.scoring": 0, "kothkit.hookspecs": 0,
    "kothkit.people": 0, "kothkit.scenarios": 0, "kothkit.botspec": 0, "kothkit.formats": 0, "kothkit.messages": 0,
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


def imports(path: Path, module: str) -> list[tuple[int, str]]:
    """Every kothkit module ``path`` imports, with its line (under TYPE_CHECKING or in a function too):
    ``from kothkit import x`` names x's module."""
    found = []
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
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


def graph() -> dict[str, list[tuple[str, int, str]]]:
    """Each module of kothkit/ -> (file, line, module) of each kothkit module it imports."""
    files = sorted(p for p in ROOT.rglob("*.py") if "templates" not in p.parts)
    assert len(files) > 40
    found: dict[str, list[tuple[str, int, str]]] = {}
    for path in files:
        me = module_name(path)
        found[me] = [(str(path.relative_to(ROOT.parent)), line, other) for line, other in imports(path, me)]
    return found


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def test_the_import_graph_has_no_cycle():
    edges = {me: {o for _, _, o in found if o != me} for me, found in graph().items()}
    found = cycles(edges)
    assert not found, "\n".join(" -> ".join(c) for c in found)


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_every_module_is_in_a_layer_and_imports_only_downwards():
    wrong = []
    for me, found in graph().items():
        for where, line, other in found:
            if layer(other) > layer(me):
                wrong.append(f"{where}:{line}: {me} (layer {layer(me)}) imports {other} "
                             f"(layer {layer(other)})")
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_an_upward_import(tmp_path):
    # The checker itself: a store module importing the referee is caught, lazily or for its types.
    fake = ROOT / "store" / "records.py"
    src = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from kothkit.results import archive\n"
           "def f():\n    from kothkit.playing import referee\n")
    (tmp_path / "x.py").write_text(src)
    found = imports(tmp_path / "x.py", module_name(fake))
    assert sorted(found) == [(3, "kothkit.results.archive"), (5, "kothkit.playing.referee")]
    assert layer("kothkit.playing.referee") > layer(module_name(fake))


def test_the_plugin_api_is_declared():
    assert "hookimpl" in kothkit.__all__ and "Match" in kothkit.__all__
    for name in kothkit.__all__:
        assert hasattr(kothkit, name), name
