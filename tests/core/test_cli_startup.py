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
            "except SystemExit:\n    pass\nprint(' '.join(m for m in sys.modules if m.startswith('kothkit.cli.')))")
    p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)
    return set(p.stdout.splitlines()[-1].split())  # the last line: what the command printed comes first


def test_a_command_imports_its_own_module_and_help_lists_them_all(tmp_path):
    base = {"kothkit.cli.common"}
    every = base | {f"kothkit.cli.{m}" for m in cli.COMMANDS}
    # The version alone imports no command module, nor typer (kothkit.cli.main).
    assert _modules_after("--version") == set()
    assert _modules_after("--version", "--help") == every
    assert _modules_after("games") == base | {"kothkit.cli.run"}
    assert _modules_after("--help") == every
    # A misspelt command: typer's suggestion needs every command's name.
    assert _modules_after("runn") == every
    assert _modules_after("show", str(tmp_path / "none.sqlite"), "--round", "3") == base | {"kothkit.cli.show"}



def test_help_and_a_command_without_options_import_no_pydantic():
    # typer converts every option's value with pydantic, imported for it: --help, absent, is
    # False rather than typer's None (kothkit.cli.common), so a command with no options and any
    # --help start without it.
    code = ("import sys, kothkit.cli as c\nsys.argv = ['kothkit', *sys.argv[1:]]\ntry:\n    c.main()\n"
            "except SystemExit:\n    pass\nprint('pydantic' in sys.modules)")
    for args in (["games"], ["--help"], ["run", "--help"], ["users", "list", "--help"]):
        p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)
        assert p.stdout.splitlines()[-1] == "False", (args, p.stdout[-2000:], p.stderr[-2000:])
    p = subprocess.run([sys.executable, "-c", code, "run", "--jobs", "x"], capture_output=True, text=True, timeout=120)
    assert "Invalid value for '--jobs'" in p.stderr, p.stderr[-2000:]  # options are still typer's to convert
