"""One look for every page kothkit makes: the site's stylesheet (``kothkit/serve/static/style.css``,
served by ``kothkit serve``) inlined into the pages that stand alone (``kothkit report``'s pages,
replay pages, the play page), whose Content-Security-Policy lets them load nothing, and the page
frame they share with the site: a header bar with the navigation, then the page in ``<main>``.
"""

from __future__ import annotations

import functools
import html
from importlib import resources

#: What a page standing alone may load: nothing but its own inline styles (and scripts, if it has any).
STATIC_CSP = "default-src 'none'; style-src 'unsafe-inline'"


@functools.cache
def style() -> str:
    """The one stylesheet's text."""
    return resources.files("kothkit").joinpath("serve/static/style.css").read_text(encoding="utf-8")


def header(nav: str) -> str:
    """The header bar holding ``nav`` (trusted HTML), or nothing for no navigation."""
    return f'<header><nav id="nav">{nav}</nav></header>\n' if nav else ""


def static_page(title: str, body: str, nav: str = "", lang: str = "en") -> str:
    """A page standing alone in the site's frame: ``body`` and ``nav`` are trusted HTML; tables
    scroll sideways on a narrow screen."""
    return (f'<!DOCTYPE html>\n<html lang="{html.escape(lang)}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title>"
            f'<meta http-equiv="Content-Security-Policy" content="{STATIC_CSP}">'
            f'<style>{style()}</style></head><body class="standalone">\n{header(nav)}'
            f"<main>\n{body}\n</main></body></html>\n")
