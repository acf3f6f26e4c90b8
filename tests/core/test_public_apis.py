"""kothkit uses its dependencies (the standard library included) through their public names only: a
private module or attribute changes without notice, and code built on one silently stops working or
breaks when the dependency moves on.  Read from the source, so that imports inside functions count."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import kothkit

ROOT = Path(kothkit.__file__).parent

#: Names that are private without a leading underscore: the C accelerators behind a public module.
PRIVATE = {"json.encoder.c_make_encoder", "json.scanner.c_make_scanner", "json.decoder.c_scanstring"}

#: Documented public functions whose names begin with an underscore.
DOCUMENTED = {"os._exit", "sys._getframe"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _outside(module: str) -> bool:
    return module.split(".")[0] not in ("kothkit", "__future__")


def _not_exported(module: str, name: str) -> bool:
    """``name`` is left out of ``module``'s ``__all__`` (a module without one exports every public name)."""
    try:
        mod = importlib.import_module(module)
    except ImportError:  # an optional dependency not installed here: its names are judged by their spelling
        return False
    exported = getattr(mod, "__all__", None)
    if exported is None or name in exported:
        return False
    try:
        importlib.import_module(f"{module}.{name}")  # a submodule, which __all__ need not list
    except ImportError:
        return True
    return False


def private_uses(path: Path, root: Path = ROOT.parent) -> list[str]:
    """Each private name of a dependency that ``path`` imports or reads off an imported module."""
    tree = ast.parse(path.read_text(), str(path))
    found: list[str] = []
    modules: dict[str, str] = {}  # a local name -> the dependency module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if _outside(a.name):
                    if any(_private(p) for p in a.name.split(".")):
                        found.append(a.name)
                    modules[a.asname or a.name.split(".")[0]] = a.asname and a.name or a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and _outside(node.module):
            if any(_private(p) for p in node.module.split(".")):
                found.append(node.module)
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if _private(a.name) or full in PRIVATE or _not_exported(node.module, a.name):
                    found.append(full)
                else:
                    modules[a.asname or a.name] = full
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            chain = [node.attr]
            value = node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in modules:
                full = ".".join([modules[value.id], *reversed(chain)])
                if (_private(node.attr) and full not in DOCUMENTED) or full in PRIVATE:
                    found.append(full)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
              and len(node.args) >= 2 and isinstance(node.args[0], ast.Name) and node.args[0].id in modules
              and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
              and _private(node.args[1].value)):
            found.append(f"{modules[node.args[0].id]}.{node.args[1].value}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str) and _private(node.args[1].value)):
            # A private attribute read by name off an object (say a pool's ``_processes``): kothkit's
            # own classes never need getattr for their own attributes, so any such read is a dependency's.
            found.append(f"getattr(…, {node.args[1].value!r})")
    return [f"{path.relative_to(root)}: {name}" for name in dict.fromkeys(found)]


def test_no_module_of_kothkit_uses_a_private_name_of_a_dependency():
    found = [use for path in sorted(ROOT.rglob("*.py")) for use in private_uses(path)]
    assert found == []


def test_the_check_finds_private_names(tmp_path):
    """The check itself: each way of reaching a private name that kothkit once used is found."""
    sample = tmp_path / "sample.py"
    sample.write_text("import json\nfrom typer import core\nfrom typer._coercion import build_runtime_param\n"
                      "from json.encoder import c_make_encoder\nimport typer._param_types as tp\n"
                      "def f():\n    return core._TyperParameter, getattr(core, '_TyperParameter', None)\n"
                      "import re\nre._compile\ndef g(pool):\n    return getattr(pool, '_processes', None)\n")
    found = private_uses(sample, tmp_path)
    assert {f.split(": ", 1)[1] for f in found} == {
        "typer._coercion", "json.encoder.c_make_encoder", "typer._param_types", "typer.core._TyperParameter",
        "re._compile", "getattr(…, '_processes')"}
