"""``kothkit play --web``: the person's seat as a small local page, clicking on the board.

A stdlib HTTP server on 127.0.0.1 serves one page and two JSON calls: ``GET /state`` (the log of
moves, the seat's board as a picture of :mod:`kothkit.picture` with what each cell's click types,
the question, the last mistake, the result) and ``POST /move`` (an entry, as the terminal reads
it).  The game runs in the command's own thread as in the terminal; the page only fills the
person's entries in.  Everything a page shows is set as text, never as markup.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO

from kothkit.game import GameInfo, Match, Prompt
from kothkit.human import read_entry, turn_of
from kothkit.picture import Grid, PictureError, board_js, panels_of, picture_of, to_json
from kothkit.playing.play import Abandoned, Terminal

#: Lines of the moves' log a page shows.
LOG_LINES = 200
#: Bytes of an entry the server reads.
MAX_ENTRY = 4096


class WebSeat(Terminal):
    """The person's seat, answered from the page; what the terminal would print goes to the log too."""

    def __init__(self, info: GameInfo, names: tuple[str, ...], me: int, hidden: bool,
                 stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout):
        super().__init__(info, names, me, hidden, stdin, stdout)
        self.lock = threading.Lock()
        #: The page's entries; None: the page was closed (the game is abandoned).
        self.entries: queue.Queue[str | None] = queue.Queue()
        self.log: list[str] = []
        self.state: dict[str, Any] = {"seq": 0, "waiting": False, "over": False, "log": []}

    def say(self, text: str) -> None:
        super().say(text)
        with self.lock:
            self.log = (self.log + [line for line in text.splitlines() if line.strip()])[-LOG_LINES:]
            self._set()

    def _set(self, **changes: Any) -> None:
        """Change the page's state (the lock held)."""
        self.state = {**self.state, **changes, "log": self.log, "seq": self.state["seq"] + 1}

    def publish(self, **changes: Any) -> None:
        with self.lock:
            self._set(**changes)

    def __call__(self, match: Match, prompt: Prompt) -> Any:
        self.match = match
        turn = turn_of(self.info, match, prompt)
        if turn.auto is not None:
            return turn.auto
        try:
            panels = panels_of(turn.picture) or []
        except PictureError as e:  # said, and the text board shown instead
            self.say(f"no picture: {self.info.name}'s kothkit_human hook's Turn.picture {e}")
            panels = []
        # Clicks go to the first Grid of the picture (the seat's own board; others are shown beside it).
        grid = next((p for p in panels if isinstance(p, Grid)), None)
        cells = None
        if grid is not None and turn.cell is not None and turn.clicks > 0:
            cells = [[str(turn.cell(r, c)) for c in range(len(grid.rows[r]))] for r in range(len(grid.rows))]
        # ``turn`` numbers the questions: the page starts a new entry when it changes.
        shown = dict(waiting=True, turn=self.state.get("turn", 0) + 1, asks=turn.asks, choices=turn.choices,
                     message="", board=turn.board,
                     picture=[to_json(p) for p in panels] or None,
                     clickable=panels.index(grid) if grid is not None else -1, cells=cells, clicks=turn.clicks,
                     buttons=[[str(label), str(text), int(n)] for label, text, n in turn.buttons])
        self.publish(**shown)
        while True:
            try:
                text = self.entries.get(timeout=0.5)  # a timeout, so that Ctrl-C reaches the command
            except queue.Empty:
                continue
            if text is None:
                raise Abandoned()
            reply, problem = read_entry(turn, match, prompt.seat, text)
            if problem is None:
                self.publish(waiting=False, message="", asks="", buttons=[], cells=None)
                return reply
            self.publish(message=problem)

    def finish(self, info: GameInfo, result: str) -> None:
        """The page's last state: the whole board (the game is over) and the result."""
        try:
            picture = picture_of(info, self.match) if self.match is not None else None
            problem = ""
        except PictureError as e:
            picture, problem = None, f"no picture: {e}"
            self.say(problem)
        board = self.match.render() if self.match is not None and info.renders else ""
        self.publish(waiting=False, over=True, result=result, picture=picture, board=board, cells=None, buttons=[],
                     asks="", message=problem)


def serve(seat: WebSeat, port: int) -> ThreadingHTTPServer:
    """Start the page's server on 127.0.0.1:``port`` (0: any free port) in a thread of its own."""

    class Handler(BaseHTTPRequestHandler):
        def _send(self, code: int, body: bytes, kind: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            if self.path == "/":
                self._send(200, PAGE.encode(), "text/html; charset=utf-8")
            elif self.path == "/state":
                with seat.lock:
                    body = json.dumps(seat.state).encode()
                self._send(200, body, "application/json")
            else:
                self._send(404, b"not found", "text/plain")

        def do_POST(self) -> None:  # noqa: N802
            size = int(self.headers.get("Content-Length") or 0)
            if self.path not in ("/move", "/quit") or not 0 <= size <= MAX_ENTRY:
                self._send(400, b"bad request", "text/plain")
                return
            data = self.rfile.read(size)
            if self.path == "/quit":
                seat.entries.put(None)
            else:
                try:
                    text = json.loads(data)["text"]
                except (ValueError, KeyError, TypeError):
                    self._send(400, b"expected {\"text\": ...}", "text/plain")
                    return
                seat.entries.put(str(text))
            self._send(200, b"{}", "application/json")

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the terminal shows the game, not the page's requests

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="kothkit-play-web", daemon=True).start()
    return server


def linger(server: ThreadingHTTPServer) -> None:
    """Keep the page up (showing the result) until Ctrl-C."""
    import time

    print("the page stays up to show the result: Ctrl-C to stop", file=sys.stdout, flush=True)
    try:
        while True:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>kothkit play</title>
<style>
 body { font-family: sans-serif; margin: 1.5em; color: #222; }
 #main { display: flex; gap: 2em; flex-wrap: wrap; }
 #boards { display: flex; gap: 1.5em; flex-wrap: wrap; }
 #log { font-family: monospace; white-space: pre-wrap; max-height: 30em; overflow-y: auto; min-width: 22em;
        background: #f6f6f6; padding: .5em; }
 #asks { font-weight: bold; margin: .5em 0; }
 #message { color: #b00020; white-space: pre-wrap; }
 #result { font-size: 1.3em; font-weight: bold; color: #1f5f2a; }
 pre#board { font-size: 12px; }
 .hidden { display: none; }
 .target { cursor: pointer; }
 .target:hover { fill: #fff; fill-opacity: .35; }
 button { margin: .2em .4em .2em 0; }
</style></head>
<body>
<h1>kothkit play</h1>
<div id="main">
 <div>
  <div id="boards"></div>
  <pre id="board" class="hidden"></pre>
  <div id="asks"></div>
  <div id="buttons"></div>
  <form id="form"><input id="entry" size="40" autocomplete="off"> <button type="submit">send</button></form>
  <div id="message"></div>
  <div id="result"></div>
 </div>
 <div id="log"></div>
</div>
<script>
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg", seq = -1, state = null, prefix = "", pending = [], need = 1;
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function send(text) {
    prefix = ""; pending = []; need = state ? state.clicks : 1;
    document.getElementById("entry").value = "";
    fetch("/move", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({text: text})})
      .then(poll);
  }
  function clicked(text) {
    pending.push(text);
    var entry = (prefix ? prefix + " " : "") + pending.join(" ");
    document.getElementById("entry").value = entry;
    if (pending.length >= need) send(entry);
  }
/*BOARD_JS*/
  function render(st) {
    var boards = document.getElementById("boards"), pre = document.getElementById("board");
    boards.textContent = "";
    if (st.picture) {
      st.picture.forEach(function (p, i) {
        var panel = document.createElement("div");
        panel.className = "panel";
        if (p.title) { var t = document.createElement("div"); t.textContent = p.title; panel.appendChild(t); }
        var targets = st.waiting && i === st.clickable ? st.cells : null;
        if (p.rows) panel.appendChild(kothkitBoard(p, {scale: 1.1, targets: targets, click: clicked}));
        else if (p.svg !== undefined) {
          var holder = document.createElement("div");
          holder.innerHTML = p.svg;  // drawn by the game's own plugin
          panel.appendChild(holder);
        }
        boards.appendChild(panel);
      });
      pre.classList.add("hidden");
    } else {
      pre.textContent = st.board || "";
      pre.classList.remove("hidden");
    }
    document.getElementById("asks").textContent = st.waiting ? st.asks : (st.over ? "" : "the bot is thinking...");
    document.getElementById("message").textContent = st.message || "";
    document.getElementById("result").textContent = st.over ? "result: " + st.result : "";
    document.getElementById("form").className = st.waiting ? "" : "hidden";
    var buttons = document.getElementById("buttons");
    buttons.textContent = "";
    (st.waiting ? st.buttons || [] : []).forEach(function (b) {
      var e = document.createElement("button");
      e.textContent = b[0];
      e.addEventListener("click", function () {
        if (b[2] === 0) { send(b[1]); return; }
        prefix = b[1]; pending = []; need = b[2];
        document.getElementById("entry").value = prefix + " ";
      });
      buttons.appendChild(e);
    });
    var log = document.getElementById("log");
    log.textContent = st.log.join("\\n");
    log.scrollTop = log.scrollHeight;
    document.body.setAttribute("data-seq", st.seq);
    document.body.setAttribute("data-state", st.over ? "over" : st.waiting ? "waiting" : "thinking");
  }
  function poll() {
    return fetch("/state").then(function (r) { return r.json(); }).then(function (st) {
      if (st.seq !== seq) {
        // A new question (the page may never see the bot's turn in between): start its entry afresh.
        var fresh = !state || state.turn !== st.turn;
        seq = st.seq; state = st;
        if (fresh) { prefix = ""; pending = []; need = st.clicks || 1; }
        render(st);
      }
    }).catch(function () {});
  }
  document.getElementById("form").addEventListener("submit", function (e) {
    e.preventDefault();
    send(document.getElementById("entry").value);
  });
  poll();
  setInterval(poll, 300);
})();
</script>
</body></html>
"""

#: The page: the board drawn by the script the replay pages use (kothkit.picture.board_js).
PAGE = _PAGE.replace("/*BOARD_JS*/", board_js())
