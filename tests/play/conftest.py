"""Fixtures of the play tests: the system's Chromium for the page (see tests/results/browser.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def browser():
    from tests.results.browser import launch_browser

    yield from launch_browser()
