"""The seams are typed: every hook's parameters and result are annotated, none with ``Any``, and the
package says it ships types (``py.typed``).  mypy itself runs in .ci/run (docs/internals.md, "Checks")."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import kothkit
from kothkit import hookspecs

ANY = re.compile(r"\bAny\b")


def test_every_hook_is_annotated_and_none_with_any():
    hooks = {n: f for n, f in vars(hookspecs).items() if n.startswith("kothkit_") and callable(f)}
    assert len(hooks) >= 7
    aliases = {"BotLoader": hookspecs.BotLoader, "Exporter": hookspecs.Exporter}
    for name, f in hooks.items():
        sig = inspect.signature(f)
        for what, a in [*((p.name, p.annotation) for p in sig.parameters.values()), ("return", sig.return_annotation)]:
            assert a is not inspect.Parameter.empty, f"{name}: {what} is not annotated"
            text = str(a)
            for alias, meaning in aliases.items():
                text = text.replace(alias, str(meaning))
            assert not ANY.search(text), f"{name}: {what} is {a} ({text})"


def test_the_package_ships_py_typed():
    assert (Path(kothkit.__file__).parent / "py.typed").is_file()
