"""The core's own hook implementations, registered before any entry point."""

from kothkit import hookimpl
from kothkit.bots.folders import default_loader
from kothkit.hookspecs import BotLoader


@hookimpl
def kothkit_bot_loaders() -> list[BotLoader]:
    return [default_loader]
