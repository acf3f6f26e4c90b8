"""A real headless Chromium (the system's, never a download) driven by Playwright, for page tests.

Without Chromium the tests skip, saying why, except in CI (CI=true), where a missing browser
fails: ``.ci/run`` installs it from the system's packages.
"""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def launch_browser():
    """A generator giving one Chromium for the session (the ``browser`` fixture in conftest.py)."""
    path = chromium_path()
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI: no chromium on PATH (.ci/run installs it: apt-get install chromium)")
        pytest.skip("no chromium on PATH (apt-get install chromium); the replay pages are not checked in a browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip("the playwright package is not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, timeout=60_000)
        try:
            yield b
        finally:
            b.close()


class Watched:
    """A page that records every request it makes and every script error."""

    def __init__(self, browser):
        self.page = browser.new_page(viewport={"width": 1300, "height": 900})
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def close(self) -> None:
        self.page.close()
