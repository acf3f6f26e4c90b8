"""The ``kothkit`` command line: one module per command (or group of commands), the typer app and the
helpers they share in :mod:`kothkit.cli.common`.

The command modules have no ``from __future__ import annotations`` (but ``play``, whose signature is
short): typer reads every command's signature twice when the command line is parsed, and string
annotations would be compiled and evaluated each time instead of once at import."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kothkit.cli.common import app

__all__ = ["COMMANDS", "WHERE", "app", "main"]

#: The command modules: each registers its commands on ``app`` when imported.
COMMANDS = ("run", "verify", "check", "scaffold", "show", "export", "report", "headtohead", "play", "serve", "cluster")

#: The module of each command (tests/core/test_cli_startup.py checks it against what the modules
#: register): a command given on the command line imports its own module only, not every command's
#: (the verify, report and serve modules pull in the web site's and archive's code).
WHERE = {"games": "run", "run": "run", "debug": "run", "verify": "verify", "prune": "verify", "check": "check",
         "new-game": "scaffold", "show": "show", "export": "export", "report": "report", "match": "headtohead",
         "gauntlet": "headtohead", "play": "play", "serve": "serve", "users": "serve",
         "cluster": "cluster"}


def _wanted(args: list[str]) -> tuple[str, ...]:
    """The command modules a command line needs: its command's, none for ``--version`` alone, else
    all of them (the list of commands in the help, typer's answer to a misspelt command)."""
    first = next((a for a in args if not a.startswith("-")), None)
    if first is None:
        return () if "--version" in args and not {"--help", "-h"} & set(args) else COMMANDS
    return (WHERE[first],) if first in WHERE else COMMANDS


def __getattr__(name: str) -> Any:
    # ``app`` is imported when asked for: ``kothkit --version`` needs no typer (see main).
    if name == "app":
        from kothkit.cli.common import app

        return app
    raise AttributeError(f"module 'kothkit.cli' has no attribute {name!r}")


def main() -> None:
    import importlib

    args = sys.argv[1:]
    if args == ["--version"]:
        # What typer would print, without importing typer, rich and the core.
        from kothkit import __version__

        sys.stdout.write(f"kothkit {__version__}\n")
        return
    import gc

    # The modules' objects live as long as the process: the collector's passes over them while they
    # are imported find nothing, and frozen, no later pass looks at them again.
    gc.disable()
    try:
        for name in _wanted(args):
            importlib.import_module(f"kothkit.cli.{name}")
        from kothkit.cli.common import app
    finally:
        gc.freeze()
        gc.enable()
    try:
        app()
    finally:
        # Python's exit collects the whole heap several times over (after a --jobs 2 run, whose
        # judge never froze its start-up as a --jobs 1 judge does in play_batch); frozen, it is
        # freed with the process.  Cyclic garbage is then not finalized: what must reach a
        # file (the journal, a document, the output streams) is closed or flushed before this.
        gc.freeze()
