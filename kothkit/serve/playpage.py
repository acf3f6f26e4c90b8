"""``kothkit play --web``: the site's Play page served on 127.0.0.1 for one local game.

The page is the site's own (``templates/play.html`` with ``static/play.js`` and the replay pages'
``board.js``), rendered with ``local`` set (no accounts, no challenge navigation).  A stdlib HTTP
server serves it, the two scripts and the stylesheet, ``GET /state`` (the seat's state as JSON)
and ``POST /move``, ``POST /quit`` and, once a game is over, ``POST /new`` (another game) (form
fields ``text`` and ``csrf``: the page's random token, so that another site open in the same
browser cannot play for the person).  The games run in the command's own thread, one after the
other; the page only fills the person's entries in.
"""

from __future__ import annotations

import hmac
import json
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from kothkit.picture import board_js
from kothkit.playing.playweb import MAX_ENTRY, WebSeat
from kothkit.serve.security import HEADERS, PAGE_CSP

STATIC = Path(__file__).parent / "static"


class Local:
    """What the local page shows: the seat of the game in play (a new one for each game), its
    number, and the person's wish for another game (the page's New game)."""

    def __init__(self, seat: WebSeat):
        self.seat = seat
        self.number = 1
        self.again = threading.Event()

    def next(self, seat: WebSeat) -> None:
        self.seat, self.number = seat, self.number + 1


def render_local(title: str, token: str) -> str:
    """The Play page of a local game."""
    from kothkit.serve.app import environment

    game = {"title": title, "urls": {"state": "/state", "move": "/move", "quit": "/quit", "new": "",
                                     "again": "/new"}}
    return environment().get_template("play.html").render(site="kothkit play", me=None, csrf=token, path="/",
                                                           local=True, c=None, game=game, flash="",
                                                           phase=None)


def serve(local: Local, port: int, title: str) -> ThreadingHTTPServer:
    """Start the page's server on 127.0.0.1:``port`` (0: any free port) in a thread of its own."""
    token = secrets.token_urlsafe(24)
    page = render_local(title, token).encode()
    files = {"/static/play.js": ((STATIC / "play.js").read_bytes(), "text/javascript; charset=utf-8"),
             "/static/style.css": ((STATIC / "style.css").read_bytes(), "text/css; charset=utf-8"),
             "/static/board.js": (board_js().encode(), "text/javascript; charset=utf-8")}

    class Handler(BaseHTTPRequestHandler):
        def _send(self, code: int, body: bytes, kind: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Security-Policy", PAGE_CSP)
            for k, v in HEADERS.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            if self.path == "/":
                self._send(200, page, "text/html; charset=utf-8")
            elif self.path == "/state":
                seat, number = local.seat, local.number
                with seat.lock:
                    body = json.dumps({**seat.state, "game": number}).encode()
                self._send(200, body, "application/json")
            elif self.path in files:
                self._send(200, *files[self.path])
            else:
                self._send(404, b"not found", "text/plain")

        def do_POST(self) -> None:  # noqa: N802
            try:
                size = int(self.headers.get("Content-Length") or "")
            except ValueError:
                size = -1
            if self.path not in ("/move", "/quit", "/new") or not 0 <= size <= MAX_ENTRY + 200:
                self._send(400, b"bad request", "text/plain")
                return
            fields = parse_qs(self.rfile.read(size).decode("utf-8", "replace"))
            given = (fields.get("csrf") or [""])[0]
            if not hmac.compare_digest(given.encode(), token.encode()):
                self._send(403, b"this page did not come from this game: reload it", "text/plain")
                return
            seat = local.seat
            if self.path == "/quit":
                seat.entries.put(None)
            elif self.path == "/new":
                if seat.ended.is_set():
                    local.again.set()
            else:
                seat.entries.put((fields.get("text") or [""])[0][:MAX_ENTRY])
            self._send(200, b"{}", "application/json")

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the terminal shows the game, not the page's requests

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="kothkit-play-web", daemon=True).start()
    return server
