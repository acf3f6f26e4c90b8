"""The command line imports only the module of the command it runs (kothkit.cli.WHERE): the map
must name every command's module, and a command must still find every other command's name."""

from __future__ import annotations

import importlib
import subprocess
import sys

import kothkit.cli as cli


def test_where_names_the_module_of_every_command():
    for name in cli.COMMANDS:
        importlib.import_module(f"kothkit.cli.{name}")
    found = {}
    for c in cli.app.registered_commands:
        assert c.callback is not None
        found[c.name or c.callback.__name__.replace("_", "-")] = c.callback.__module__.rsplit(".", 1)[1]
    for g in cli.app.registered_groups:
        assert g.typer_instance is not None and g.name is not None
        modules = {c.callback.__module__ for c in g.typer_instance.registered_commands if c.callback}
        assert len(modules) == 1
        found[g.name] = modules.pop().rsplit(".", 1)[1]
    assert found == cli.WHERE


def _modules_after(*args: str) -> set[str]:
    code = ("import sys, kothkit.cli as c\nsys.argv = ['kothkit', *sys.argv[1:]]\ntry:\n    c.main()\n"
            "except SystemExit:\n    pass\nprint(' '.join(m for m in sys.modules if m.startswith('kothkit.cli.') or m == 'pydantic'))")
    p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)
    return set(p.stdout.splitlines()[-1].split())  # the last line: what the command printed comes first


def test_a_command_imports_its_own_module_and_help_lists_them_all(tmp_path):
    base = {"kothkit.cli.common", "kothkit.cli.params"}
    every = base | {f"kothkit.cli.{m}" for m in cli.COMMANDS}
    # The version alone imports no command module, nor typer (kothkit.cli.main).
    assert _modules_after("--version") == set()
    assert _modules_after("--version", "--help") == every
    assert _modules_after("games") == base | {"kothkit.cli.run"}
    assert _modules_after("--help") == every
    # A misspelt command: typer's suggestion needs every command's name.
    assert _modules_after("runn") == every
    # Options of plain types are converted without pydantic (kothkit.cli.params); a bad value by typer's own.
    assert _modules_after("show", str(tmp_path / "none.sqlite"), "--round", "3") == base | {"kothkit.cli.show"}
    assert _modules_after("run", "connect4_hidden", "--jobs", "x") == base | {"kothkit.cli.run", "pydantic"}


def test_plain_values_convert_as_typers_own_conversion(tmp_path):
    """kothkit.cli.params converts plain values without pydantic: the same values as typer's own
    conversion, and typer's own errors for the rest."""
    import pytest
    import typer.main
    from typer._click import Context
    from typer._coercion import build_runtime_param

    importlib.import_module("kothkit.cli.run")
    importlib.import_module("kothkit.cli.verify")
    group = typer.main.get_command(cli.app)
    samples = {"str": ["x", "a b", "", "é"], "int": ["3", "-7", "007", 5, "x", "1e3", "1.0", " 4", "9" * 30],
               "float": ["0.5", "2", "-1.25", ".5", "1e-3", "inf", "x", 3, 2.5],
               "bool": [True, False, "true"], "Path": [str(tmp_path), "rel/x.json", "", tmp_path],
               "list": [("a", "b"), ["x"], (), (str(tmp_path), "rel")]}
    checked = set()
    for command in ("run", "verify"):
        cmd = group.commands[command]  # type: ignore[attr-defined]
        ctx = Context(cmd)
        for p in cmd.params:
            desc = p.type_descriptor
            kind = getattr(desc.annotation, "__name__", None)
            if kind not in samples:
                continue
            for v in samples[kind]:
                ours, theirs = p.get_runtime_param(), build_runtime_param(desc)
                assert type(ours).__name__ == "PlainParam"
                try:
                    want = theirs._coerce_value(v, param=p, ctx=ctx)
                except Exception as e:
                    with pytest.raises(type(e)) as got:
                        ours._coerce_value(v, param=p, ctx=ctx)
                    assert str(got.value) == str(e)
                else:
                    got_v = ours._coerce_value(v, param=p, ctx=ctx)
                    assert got_v == want and type(got_v) is type(want), (p.name, v)
                checked.add(kind)
    assert checked == set(samples)
