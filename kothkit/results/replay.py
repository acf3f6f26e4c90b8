"""Replay pages: one self-contained HTML file per game (no network, works from ``file://``).

The page embeds the game's JSON document (:func:`kothkit.results.archive.document`) and
one frame per move: the game's picture (``kothkit_picture``: grids the page's
own script draws as SVG, or the game's SVG) or, for a game without one, its
``Match.render()`` text (also, with the error, when its picture hook fails).
The core owns the page and its controls: first / previous / next / last, a
slider, autoplay, the arrow keys (Home, End, space); the move's number, reply
and time; the last move marked; the outcome and the winning line or the verdict
at the end; and a logs panel: each bot's kept lines (stderr, prints, diagnostic
lines) with the move each came in, those of the move shown marked.  The page
shows the logs its document holds: every bot's in a page made locally
(``export``, ``report``); on a host, the caller gives it only the viewer's own
bots' (:mod:`kothkit.serve.app` filters the record before the page is made).
Every text is set as text, never as markup, and a Content-Security-Policy
forbids any request.
"""

from __future__ import annotations

import html
import json
from importlib import resources

from kothkit.picture import board_js
from kothkit.results.archive import Archive, Transcript, document, transcript
from kothkit.store.records import GameRecord


def _template() -> str:
    page = resources.files("kothkit").joinpath("templates/replay.html").read_text(encoding="utf-8")
    return page.replace("{{BOARD_JS}}", board_js())


def _script_json(value) -> str:
    """JSON safe inside a <script> element (no "</script>", no "<!--")."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=repr)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def frames(t: Transcript) -> list[dict]:
    """Frame 0 before the first reply, frame k after reply k (None where nothing changed)."""
    def frame(picture, board):
        # The text board only for a game without a picture (it would double the page's size).
        return {"picture": picture} if picture else {"board": board} if board else None

    return [frame(t.start_picture, t.start_board)] + [frame(s.picture, s.board) for s in t.steps]


def page_of(t: Transcript, nav: str = "") -> str:
    """The replay page of ``t`` (a transcript made with ``pictures=True``); ``nav`` is trusted HTML."""
    r = t.record
    data = {"game": document(t), "frames": frames(t), "picture_problem": t.picture_problem}
    title = f"{r.game} #{r.index}: {' vs '.join(r.players)}"
    return (_template().replace("{{TITLE}}", html.escape(title)).replace("{{NAV}}", nav)
            .replace("{{DATA}}", _script_json(data)))


def page_name(r: GameRecord) -> str:
    return f"{r.game}-{r.index:04d}-{r.id[:12]}.html"


def replay_page(archive: Archive, r: GameRecord, nav: str = "") -> str:
    return page_of(transcript(archive, r, pictures=True), nav)
