"""The ``kothkit`` command line: one module per command (or group of commands), the typer app and the
helpers they share in :mod:`kothkit.cli.common`."""

from __future__ import annotations

from kothkit.cli.common import app

__all__ = ["app", "main"]

#: The command modules: each registers its commands on ``app`` when imported.
COMMANDS = ("run", "verify", "check", "scaffold", "show", "export", "report", "headtohead", "play", "serve")


def main() -> None:
    import importlib

    for name in COMMANDS:
        importlib.import_module(f"kothkit.cli.{name}")
    app()
