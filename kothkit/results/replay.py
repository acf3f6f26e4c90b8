"""Replay pages: one self-contained HTML file per game (no network, works from ``file://``).

The page is the Jinja2 template ``kothkit/templates/replay.html`` (:mod:`kothkit.results.look`).
The page embeds the game's JSON document (:func:`kothkit.results.archive.document`) and
one frame per move: the game's picture (``kothkit_picture``: grids the page's
own script draws as SVG, or the game's SVG) or, for a game without one, its
``Match.render()`` text (also, with the error, when its picture hook fails).
The core owns the page and its controls: first / previous / next / last, a
slider, autoplay, the arrow keys (Home, End, space); the move's number, reply
and time; the last move marked; the outcome and the winning line or the verdict
at the end (in a game of more seats, every seat's place, points and verdict); and a logs
panel: each bot's kept lines (stderr, prints, diagnostic lines) with the move each came in,
those of the move shown marked.  The page shows the logs its document holds: every bot's in a page made locally
(``export``, ``report``); on a host, the caller gives it only the viewer's own
bots' (:mod:`kothkit.serve.app` filters the record before the page is made).
Every text is set as text, never as markup, and a Content-Security-Policy
forbids any request.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

from markupsafe import Markup

from kothkit.picture import board_js
from kothkit.results.archive import Archive, Transcript, document, transcript
from kothkit.results.look import render
from kothkit.store.records import GameRecord

#: A replay page runs its own inline script and draws with data: images; it loads nothing.
CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


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


def page_of(t: Transcript, nav: str = "", words: Mapping[str, str] | None = None, lang: str = "en",
            said: Callable[[str], str] | None = None, heading: str | None = None,
            finished: str | None = None) -> str:
    """The replay page of ``t`` (a transcript made with ``pictures=True``); ``nav`` is trusted HTML;
    ``words``: the page's words in the language ``lang`` (English by default; see :data:`WORDS`);
    ``said``: the game's and the core's texts (the reason, a rejection, a board's title) in it;
    ``heading``: the page's title instead of "GAME game #INDEX: PLAYERS" (a game played by a person
    is known by its opponent and date); ``finished``: when the game ended, as the page should say it."""
    r = t.record
    data: dict = {"game": document(t), "frames": frames(t), "picture_problem": t.picture_problem}
    if heading is not None:
        data["heading"] = heading
    if finished is not None:
        data["game"]["finished_at"] = finished
    if r.seat_places is not None:  # a game of more seats: every seat's place, points and verdict, best first
        data["seats"] = seats_of(r)
    if words:
        data["words"] = dict(words)
    if said is not None:
        _translate(data, said)
    # The one stylesheet first (kothkit.results.look): the page's own rules after it win.
    return render("replay.html", csp=CSP, lang=lang.replace("_", "-"),
                  title=heading or f"{r.game} #{r.index}: {' vs '.join(r.players)}", nav=Markup(nav),
                  board_js=Markup(board_js()), data=Markup(_script_json(data)))


#: The page's own words (its script's), each the key of its translation in ``page_of``'s ``words``;
#: ``{name}`` is filled by the page.  kothkit.serve translates them (kothkit.serve.app.replay_words).
WORDS = ("move {at} of {last}", "Before the first move. {players} ({bot} opens).", " vs ",
         "Move {move}: {bot} replied in {ms} ms", "seat {seat}", "judge \u2192 {bot}: {line}", "rejected: {why}",
         "Winner: {bot}", "Draw", "Verdict: {verdict} against {bot}",
         "Late reply (not played): {bot} answered {reply} after {ms} ms", "pause", "play", "[end]", "[move {move}]",
         "No picture: {problem} (the board is shown as text)", "{game} game #{index}: {players}", "id {id}",
         "seed {seed}", "round {round}", "move", "Logs", "first (Home)", "previous (\u2190)", "play / pause (space)",
         "next (\u2192)", "last (End)", "{place}. {bot}", "{place}. {bot}: {points} points",
         "left the game: {verdict}")


def seats_of(r: GameRecord) -> list[dict]:
    """Every seat of a game of more seats, best place first (seat order among equals): its bot,
    place, points (None where the game gave none) and verdict (None: it did not leave by a fault)."""
    places, points, verdicts = r.seat_places or (), r.seat_points, r.seat_verdicts
    rows = [{"seat": i, "bot": bot, "place": places[i],
             "points": None if points is None else float(f"{points[i]:g}"),
             "verdict": None if verdicts is None else verdicts[i]}
            for i, bot in enumerate(r.players) if i < len(places)]
    return sorted(rows, key=lambda x: (x["place"], x["seat"]))


def _translate(data: dict, said: Callable[[str], str]) -> None:
    """The page's texts from the game and the core (English in the record) through ``said``."""
    game = data["game"]
    outcome = game.get("outcome") or {}
    for key in ("reason", "verdict"):
        if isinstance(outcome.get(key), str):
            outcome[key] = said(outcome[key])
    for seat in data.get("seats") or ():
        if isinstance(seat.get("verdict"), str):
            seat["verdict"] = said(seat["verdict"])
    for step in game.get("steps") or ():
        if isinstance(step, dict) and isinstance(step.get("rejected"), str):
            step["rejected"] = said(step["rejected"])
    for frame in data["frames"]:
        pictures = (frame or {}).get("picture")
        for panel in pictures if isinstance(pictures, list) else [pictures] if pictures else ():
            if isinstance(panel, dict) and isinstance(panel.get("title"), str):
                panel["title"] = said(panel["title"])


def page_name(r: GameRecord) -> str:
    return f"{r.game}-{r.index:04d}-{r.id[:12]}.html"


def replay_page(archive: Archive, r: GameRecord, nav: str = "") -> str:
    return page_of(transcript(archive, r, pictures=True), nav)
