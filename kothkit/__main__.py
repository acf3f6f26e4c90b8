"""``python -m kothkit``: the same as the ``kothkit`` command."""

from kothkit.cli import main

main()
