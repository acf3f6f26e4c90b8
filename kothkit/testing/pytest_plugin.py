"""pytest plugin (entry point ``pytest11: kothkit``): the kit's command-line option and fixtures.

* ``--kothkit-seeds N``: how many seeded random games each conformance check
  plays (default 10); raise it for a deeper run, e.g. before a release.
* fixture ``kothkit_kit``: ``kothkit_kit("mygame", **options)`` -> a
  :class:`kothkit.testing.Kit` using those seeds.

Loaded in every pytest run where kothkit is installed, so it imports nothing
heavy until a fixture is used.
"""

from __future__ import annotations

from typing import Any

import pytest


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("kothkit", "kothkit game conformance kit")
    group.addoption("--kothkit-seeds", dest="kothkit_seeds", type=int, default=None, metavar="N",
                    help="seeded random games per conformance check (default 10)")


def pytest_configure(config: Any) -> None:
    config.addinivalue_line("markers", "slow: takes more than a few seconds (kothkit: plays real bot processes)")


@pytest.fixture
def kothkit_kit(request: Any):
    from kothkit.testing.kit import Kit
    from kothkit.testing.pytest_support import seeds_option

    def make(game: Any, **options: Any) -> Kit:
        options.setdefault("seeds", seeds_option(request.config))
        return Kit(game, **options)

    return make
