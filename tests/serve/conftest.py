"""Fixtures shared by the host's tests."""

from __future__ import annotations

import pytest

from kothkit.serve.host import Host


@pytest.fixture
def hosts():
    """Hosts made by a test, stopped at its end whatever happens."""
    made: list[Host] = []

    def make(*args, **kwargs) -> Host:
        h = Host(*args, **kwargs)
        made.append(h)
        return h

    yield make
    for h in made:
        h.stop()
