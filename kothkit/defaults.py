"""The core's own hook implementations, registered before any entry point."""

from kothkit import hookimpl
from kothkit.bots.folders import default_loader


@hookimpl
def kothkit_bot_loaders():
    return [default_loader]
