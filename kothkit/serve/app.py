"""The web site of ``kothkit serve``: a Starlette app over a :class:`~kothkit.serve.host.Host`.

Pages: the challenges; each challenge's Scoreboard (live: Server-Sent Events fed by
``Host.wait``), crosstable, My Submissions, All Submissions, a submission's build output, a bot's
games, a game's replay and the download of one's own game logs; sign-in and the account form
(first sign-in: a new password and a nickname).  Who may see what: the Scoreboard, crosstable,
submission lists and games are public; a build's output and a game's logs belong to the brain's
author (and admins); in a submissions challenge a replay page holds the logs of the visitor's own
bots only (all of them for admins, and for everyone in a folder challenge).

Every POST passes :mod:`kothkit.serve.security`'s checks; every text that people wrote is
escaped by Jinja2's autoescaping, and the live Scoreboard sets cells as text.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import functools
import io
import json
import math
import re
import sys
import threading
import time
import traceback
import urllib.parse
import zipfile
from pathlib import Path
from typing import Any

import attrs
import jinja2
import markupsafe
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from kothkit.serve import about, admin, i18n, playsite
from kothkit.serve.accounts import AccountError, Accounts, Disabled, Session, Throttled
from kothkit.serve.errors import RateLimited, SubmitError, TooLarge
from kothkit.serve.errors import Refused as _Refused
from kothkit.serve.feedback import feedback, status_label
from kothkit.serve.i18n import _, replay_words
from kothkit.serve.playsite import PlayRoom
from kothkit.serve.privacy import Names, load_key, neutral, private_transcript
from kothkit.serve.security import (
    BODY_TIMEOUT,
    FLASH_COOKIE,
    FLASHES,
    HEADERS,
    PAGE_CSP,
    PRE_COOKIE,
    REPLAY_CSP,
    SESSION_COOKIE,
    CSRFError,
    check_origin,
    check_token,
    new_token,
)

HERE = Path(__file__).parent
#: Bytes of a form without a file (sign-in, account).
MAX_FORM = 64 * 1024
#: Bytes a multipart upload may carry beyond the file itself (boundaries, the other fields).
MULTIPART_SLACK = 64 * 1024
#: Seconds between two keep-alive comments on an open event stream.
KEEPALIVE = 15.0
_NEXT_RE = re.compile(r"/(?![/\\])[\x21-\x7e]*")


def when(t: float | None) -> str:
    """A time as the request's language writes it (UTC)."""
    return i18n.when(t)


def _elo_text(elo: float | None, error: float | None) -> str:
    """A provisional row's Elo of its games so far: "+35 ± 120" ("?" where they do not tell yet)."""
    if elo is None:
        return "?"
    return f"{elo:+.0f} ± {error:.0f}" if error is not None else f"{elo:+.0f} ± ?"


def points(p: float) -> str:
    return f"{p:g}"


def plus_minus(value: float | None, error: float | None) -> str:
    """A mean or a rating with its uncertainty, for a table of a game of more seats: "3.25 ± 0.41"
    ("3.25 ± ?" where it is not known yet, "?" with no value)."""
    if value is None:
        return "?"
    return f"{value:.3g} ± {'?' if error is None else f'{error:.2g}'}"


def size_limit(n: int) -> str:
    """A size limit, said the same way on a form and in its refusal."""
    return _("at most %(bytes)s bytes", bytes=i18n.number(n))


def kind_label(kind: str) -> str:
    return {"folder": _("folder challenge"), "submissions": _("submissions challenge")}.get(kind, kind)


def _seconds(t: float | None) -> str:
    return _("no limit") if t is None else _("%(n)s s", n=i18n.number(t))


def _mib(n: int | None) -> str:
    return _("no limit") if n is None else _("%(n)s MiB", n=i18n.number(n))


def limit_rows(limits: Any, functions: bool = False) -> list[tuple[str, str, str]]:
    """(id, label, value) of each limit a bot plays under, from the settings the judge applies
    (:mod:`kothkit.serve.about` derives what the judge makes of them: the process cap, the time a
    function bot's file has to load); ``functions``: the challenge's bots are Python functions."""
    cap = about.process_cap(limits)
    rows = [
        ("move_time", _("Time for a move"), _seconds(limits.move_time)),
        ("first_reply_time", _("Time for the first reply of a game (such as OK to START; a program's start-up "
                               "counts in it)"), _seconds(limits.first_time)),
    ]
    if functions:
        rows.append(("load_time", _("Time to load the bot's file (before its first move; not counted in the game)"),
                     _seconds(about.load_time(limits))))
    rows += [
        ("game_time", _("Time for all of a bot's replies in a game (the first reply included)"),
         _seconds(limits.game_time)),
        ("tolerance", _("Margin added to each time above before a reply is late"), _seconds(limits.tolerance)),
        ("memory_mb", _("Memory"), _mib(limits.memory_mb)),
        ("cpu_seconds", _("CPU time in a game"), _seconds(limits.cpu_seconds)),
        ("processes", _("Processes and threads at once"), _("no limit") if cap is None else i18n.number(cap)),
        ("disk_mb", _("Disk (its /tmp, any file it writes)"), _mib(limits.disk_mb)),
        ("max_line", _("Longest reply line"), _("%(n)s bytes", n=i18n.number(limits.max_line))),
    ]
    return rows


def serve_rows(info: Any, settings: Any) -> list[tuple[str, str, str]]:
    """(id, label, value) of a submissions challenge's limits on submissions and builds."""
    if info.kind != "submissions":
        return []
    return [
        ("max_bytes", _("Source file"), size_limit(settings.max_bytes)),
        ("min_interval", _("Time between two submissions"), _seconds(settings.min_interval)),
        ("per_day", _("Submissions a day"), _("at most %(n)s", n=i18n.number(settings.per_day))),
        ("build_time", _("Time for a build"), _seconds(settings.build_time)),
        ("build_memory_mb", _("Memory of a build"), _mib(settings.build_memory_mb)),
        ("build_processes", _("Processes and threads of a build at once"), i18n.number(settings.build_processes)),
        ("build_seconds_per_day", _("Build time a day"), _seconds(settings.build_seconds_per_day)),
    ]


def phase_text(phase: Any) -> str:
    """A challenge's phase (kothkit.serve.host.Phase) in a few words, in the request's language."""
    return i18n.phase_text(phase)


def language_label(c: Any, lang_id: str) -> str:
    """A submission's language (its stored id) by its label in challenge ``c`` (the id if it is gone)."""
    lang = next((x for x in getattr(c, "languages", ()) if x.id == lang_id), None)
    return lang.label if lang is not None else lang_id


def language_name(c: Any, lang_id: str) -> str:
    """A language's label for a table's narrow column: up to its details ("C11 (gcc -O2)" is "C11",
    "Python 3: a function ..." is "Python 3"); the whole label is the cell's title."""
    return re.split(r" \(|: ", language_label(c, lang_id), maxsplit=1)[0].strip() or lang_id


def markup(template: str, value: Any) -> markupsafe.Markup:
    """``template`` (markup) with ``value`` escaped into it: a value given to a translated message."""
    return markupsafe.Markup(template) % value


def environment() -> jinja2.Environment:
    """The pages' Jinja2 environment (the site's, and ``kothkit play --web``'s page)."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             extensions=["jinja2.ext.i18n"])
    i18n.install(env)  # the request's language (English outside a request: kothkit play --web)
    env.filters["when"] = when
    env.filters["points"] = points
    env.filters["status"] = status_label
    env.globals.update(size_limit=size_limit, kind_label=kind_label, markup=markup, phase_text=phase_text,
                       language_label=language_label, language_name=language_name, strict_c=about.strict_c,
                       plus_minus=plus_minus)
    return env


class Live:
    """One thread per challenge waits on ``Host.wait`` and wakes the open event streams (in the
    event loop) when the challenge's version grows; the Scoreboard's JSON is made once a version."""

    def __init__(self, host, names: list[str], snapshot):
        self.host = host
        self.names = names
        self.snapshot = snapshot  # (name) -> dict, run in a thread
        self.versions: dict[str, int] = {}
        self.events: dict[str, asyncio.Event] = {}
        self.cache: dict[str, tuple[Any, dict]] = {}
        self.cache_lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []
        self.loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        for name in self.names:
            self.versions[name] = self.host.version(name)
            self.events[name] = asyncio.Event()
            t = threading.Thread(target=self._watch, args=(name,), name=f"live-{name}", daemon=True)
            t.start()
            self.threads.append(t)

    def stop(self) -> None:
        self.stopping.set()
        for name in self.names:
            if name in self.events:
                self.events[name].set()
        for t in self.threads:
            t.join(timeout=5)

    def close_streams(self) -> None:
        """End every open event stream, from any thread: the server is stopping (a server waits for
        its open responses to end before it stops)."""
        self.stopping.set()
        if self.loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed
                self.loop.call_soon_threadsafe(self._wake_all)

    def _wake_all(self) -> None:
        for event in self.events.values():
            event.set()

    def _watch(self, name: str) -> None:
        loop = self.loop
        assert loop is not None  # (start() sets it before it starts the threads)
        seen = self.versions[name]
        while not self.stopping.is_set():
            try:
                now = self.host.wait(name, seen, 1.0)
            except Exception:  # the host stopping: look again after a while
                self.stopping.wait(1.0)
                continue
            if now != seen:
                seen = now
                with contextlib.suppress(RuntimeError):  # the loop closed
                    loop.call_soon_threadsafe(self._bump, name, now)

    def _bump(self, name: str, version: int) -> None:
        self.versions[name] = version
        event, self.events[name] = self.events[name], asyncio.Event()
        event.set()

    async def changed(self, name: str, since: int, timeout: float) -> bool:
        """Wait until the challenge's version is above ``since`` (True) or ``timeout`` s (False)."""
        if self.versions.get(name, 0) > since:
            return True
        if self.stopping.is_set():
            return False
        event = self.events[name]
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)
        return self.versions.get(name, 0) > since

    def board(self, name: str, key: Any) -> dict:
        """The Scoreboard for the current ``key`` (version and nicknames), made once: its data, its
        JSON (``json``) and its table's rows as HTML (``rows_html``)."""
        slot = f"{name}\0{i18n.current()}"  # its times and labels are in the request's language
        with self.cache_lock:
            hit = self.cache.get(slot)
            if hit is not None and hit[0] == key:
                return hit[1]
        data = self.snapshot(name)
        with self.cache_lock:
            self.cache[slot] = (key, data)
        return data


_BOUNDARY = re.compile(r';\s*boundary="?([^";]+)"?', re.I)


async def _check_form_body(request: Request) -> None:
    """ValueError unless the body is a whole form: urlencoded, or multipart with a boundary and its
    closing line.  (The multipart parser takes a body cut short, or a boundary of nothing, as a
    form without its fields: the form would then be refused as a forgery, not as unreadable.)  The
    body is read here whole: the caller has bounded it (a Content-Length within its limit, and no
    Transfer-Encoding, so the server reads no more than that length)."""
    kind = request.headers.get("content-type", "")
    media = kind.split(";")[0].strip().lower()
    if media == "application/x-www-form-urlencoded":
        return
    if media != "multipart/form-data":
        raise ValueError(f"not a form: Content-Type {kind[:80]!r}")
    m = _BOUNDARY.search(kind)
    if m is None:
        raise ValueError("a multipart form without its boundary")
    if b"--" + m.group(1).encode("latin-1") + b"--" not in await request.body():
        raise ValueError("the multipart form does not end (no closing boundary)")


#: The request scope's key set when a request's body did not come within the body deadline.
LATE_BODY = "kothkit.late_body"


class _Headers:
    """ASGI middleware: the security headers on every response (a response's own CSP stays), the
    access log (a line per request: time, user, method, path, status, milliseconds, on stdout), and
    the body deadline: a request's body must have come whole within ``body_timeout`` seconds of
    its headers, else the app reads it as a client gone (a form is refused, 408) and the connection
    is closed with the answer (uvicorn has no such timeout: a body trickled a byte at a time would
    hold a connection and a form's parser for ever)."""

    def __init__(self, app: Starlette, site: Site, access_log: bool = True, body_timeout: float = BODY_TIMEOUT):
        self.app = app
        #: For the server: ``site.live.close_streams()`` when it is asked to stop.
        self.site = site
        self.access_log = access_log
        self.body_timeout = body_timeout

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        start = time.monotonic()
        status = 0

        async def sending(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()
                         if k.lower().encode() not in present]
                if b"content-security-policy" not in present:
                    extra.append((b"content-security-policy", PAGE_CSP.encode()))
                message = {**message, "headers": list(message.get("headers", [])) + extra}
            await send(message)

        deadline = start + self.body_timeout
        whole = False

        async def receiving():
            nonlocal whole
            if whole:  # (the body is read: a stream waiting for the client to leave waits as long as it likes)
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                scope[LATE_BODY] = True
                return {"type": "http.disconnect"}
            if message["type"] != "http.request" or not message.get("more_body", False):
                whole = True
            return message

        try:
            await self.app(scope, receiving, sending)
        finally:
            if self.access_log:
                self._log(scope, status, start)

    @staticmethod
    def _log(scope, status: int, start: float) -> None:
        session = scope.get("state", {}).get("session")
        who = session.user.login if session is not None else "-"
        path = scope.get("path", "").encode("unicode_escape", "replace").decode("ascii", "replace")[:300]
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        ms = (time.monotonic() - start) * 1000
        print(f"{stamp} {who} {scope.get('method', '?')} {path} {status or '-'} {ms:.0f}ms", flush=True)


@attrs.define
class Site:
    """The pages, bound to one host and one set of accounts."""

    host: Any
    accounts: Accounts
    title: str = "kothkit"
    templates: Jinja2Templates = attrs.field(init=False)
    live: Live = attrs.field(init=False)
    #: The games in progress on the Play page (kothkit.serve.playsite).
    play: PlayRoom = attrs.field(init=False)
    _nick_gen: int = attrs.field(init=False, default=0)
    _can_play: dict = attrs.field(init=False, factory=dict)
    #: The key of the bots' public ids (kothkit.serve.privacy).
    _id_key: bytes = attrs.field(init=False, default=b"")

    def __attrs_post_init__(self) -> None:
        self.templates = Jinja2Templates(env=environment())
        self.live = Live(self.host, [c.name for c in self.host.challenges()], self._snapshot)
        self._id_key = load_key(self.host.state_dir)
        self.play = PlayRoom(self.host.state_dir)
        self.templates.env.globals["playable"] = self._playable

    def _playable(self, c: Any) -> bool:
        """Whether a person can play challenge ``c``'s game on its Play page (its navigation's link;
        worked out once a challenge)."""
        if c.name not in self._can_play:
            self._can_play[c.name] = playsite.playable(self.host, c.name)
        return self._can_play[c.name]

    # -- helpers -------------------------------------------------------------------------------------

    def session(self, request: Request) -> Session | None:
        if "session" not in request.scope.setdefault("state", {}):
            request.state.session = self.accounts.session(request.cookies.get(SESSION_COOKIE))
        return request.state.session

    def page(self, request: Request, name: str, status: int = 200, headers: dict | None = None, **context) -> Response:
        s = self.session(request)
        flash = FLASHES.get(request.cookies.get(FLASH_COOKIE, ""), "")
        flash = _(flash) if flash else ""
        c = context.get("c")
        i18n.set_zone(c.zone if c is not None and hasattr(c, "zone") else self.zone())
        # A challenge's page says its phase (and "final") in base.html's frame, for every page of it.
        phase = self.host.phase(c.name) if c is not None and hasattr(c, "name") else None
        query = request.url.query
        context = {"site": self.title, "me": s.user if s else None, "csrf": s.csrf if s else "",
                   "path": request.url.path, "here": request.url.path + (f"?{query}" if query else ""),
                   "flash": flash, "phase": phase, **context}
        headers = {"content-language": i18n.current().replace("_", "-"), "vary": "Accept-Language, Cookie",
                   **(headers or {})}
        r = self.templates.TemplateResponse(request, name, context, status_code=status, headers=headers)
        if flash:
            r.delete_cookie(FLASH_COOKIE)
        return r

    def _replay_nav(self, info: Any, request: Request) -> str:
        """The site's navigation on a replay page (a page of its own, without base.html)."""
        s = self.session(request)
        return self.templates.env.get_template("replay_nav.html").render(
            site=self.title, c=info, me=s.user if s else None, path=request.url.path, phase=self.host.phase(info.name))

    def refuse(self, request: Request, e: _Refused | playsite.Refused) -> Response:
        return self.page(request, "error.html", status=e.status, headers=e.headers, message=e.message,
                         back=getattr(e, "back", ""))

    def user_session(self, request: Request, *, allow_must_change: bool = False) -> Session:
        """The signed-in session; a GET without one is sent to the sign-in page, a POST refused."""
        s = self.session(request)
        if s is None:
            if request.method == "GET":
                raise _Refused(303, "sign in first", {"location": f"/login?next={request.url.path}"})
            raise _Refused(401, _("Sign in first."))
        if s.user.must_change and not allow_must_change:
            if request.method == "GET":
                there = urllib.parse.quote(request.url.path)
                raise _Refused(303, "choose a new password and a nickname first",
                               {"location": f"/account?next={there}"})
            raise _Refused(403, _("Choose a new password and a nickname first (Account)."))
        return s

    async def form(self, request: Request, token: str | None, limit: int = MAX_FORM, **kw):
        """The POSTed form once it passed the CSRF checks (the body read up to ``limit`` bytes)."""
        try:
            check_origin(request.url.scheme, request.headers)
        except CSRFError as e:
            raise _Refused(403, str(e)) from None
        length = request.headers.get("content-length")
        # With Transfer-Encoding the server reads chunks past any Content-Length (it wins, by
        # HTTP's rule): the length checked here would bound nothing.  Browsers never send it.
        if length is None or not length.isdigit() or "transfer-encoding" in request.headers:
            raise _Refused(411, _("A form must say its length (Content-Length)."))
        if int(length) > limit:
            raise _Refused(413, _("The form is larger than this page takes (%(limit)s): nothing was stored.",
                                  limit=size_limit(limit - kw.get("slack", 0))), back=request.url.path)
        try:
            await _check_form_body(request)
            form = await request.form(max_files=kw.get("max_files", 0), max_fields=20, max_part_size=MAX_FORM)
        except (HTTPException, MultiPartException, ClientDisconnect, ValueError) as e:
            if request.scope.get(LATE_BODY):
                print(f"kothkit serve: 408 {request.method} {request.url.path}: the body came too slowly",
                      file=sys.stderr, flush=True)
                raise _Refused(408, _("The form came too slowly: nothing was stored."),
                               {"connection": "close"}) from None
            why = getattr(e, "detail", None) or getattr(e, "message", None) or str(e) or type(e).__name__
            print(f"kothkit serve: 400 {request.method} {request.url.path}: a malformed form: {why}",
                  file=sys.stderr, flush=True)
            raise _Refused(400, _("The form could not be read (%(why)s): nothing was stored.", why=why)) from None
        try:
            given = form.get("csrf")
            check_token(token, given if isinstance(given, str) else None)
        except CSRFError as e:
            await form.close()
            raise _Refused(403, str(e)) from None
        return form

    def challenge(self, name: str):
        """The challenge ``name`` (404 if none); its pages' times are in its time zone from here on."""
        try:
            info = self.host.challenge(name)
        except KeyError:
            raise _Refused(404, _("There is no challenge %(name)s.", name=repr(name))) from None
        i18n.set_zone(info.zone)
        return info

    def zone(self) -> Any:
        """The time zone of a page of no one challenge (the index, the admin's): the challenges'
        if they all have the same, else UTC."""
        zones = {c.zone for c in self.host.challenges()}
        return zones.pop() if len(zones) == 1 else datetime.UTC

    def _snapshot(self, name: str) -> dict:
        info = self.host.challenge(name)
        with i18n.in_zone(info.zone):
            return self._snapshot_of(info, name)

    def _snapshot_of(self, info: Any, name: str) -> dict:
        names = self.names(name)
        rows = []
        for s in self.host.standings(name):
            rows.append({"rank": s.rank, "name": names.show(s.bot), "bot": names.id(s.bot),
                         "points": points(s.points), "wins": s.wins, "draws": s.draws, "losses": s.losses,
                         "games": s.games, "latest": when(s.latest), "due": s.due, "provisional": s.provisional,
                         "elo": _elo_text(s.elo, s.elo_error) if s.provisional else "",
                         # The provisional row's words, in the request's language (the live page shows them).
                         "shown_games": _("%(n)s of %(due)s", n=s.games, due=s.due) if s.provisional else str(s.games),
                         "so_far": _("provisional, Elo %(elo)s", elo=_elo_text(s.elo, s.elo_error))
                         if s.provisional else "",
                         "note": _("provisional: %(n)s of %(due)s games counted", n=s.games, due=s.due)
                         if s.provisional else "",
                         # A game of more seats: the mean per game ± its error, the openskill rating ± sigma.
                         "mean": plus_minus(s.mean, s.error) if s.skill is not None else "",
                         "rating": plus_minus(s.skill, s.skill_error) if s.skill is not None else ""})
        if seated := self.host.seated(name):
            for r in rows:
                r["so_far"] = _("provisional") if r["provisional"] else ""
        data = {"version": self.host.version(name), "queued": info.queued, "playing": info.playing, "rows": rows,
                "seated": seated}
        # Rendered once a version, not once a visitor: 200 rows take most of a page's time.
        rows_html = self.templates.env.get_template("scoreboard_rows.html").render(c=info, board=data)
        return {**data, "json": json.dumps(data, separators=(",", ":")), "rows_html": markupsafe.Markup(rows_html)}

    async def board(self, name: str) -> dict:
        key = (self.host.version(name), self._nick_gen)
        return await run_in_threadpool(self.live.board, name, key)

    # -- pages ---------------------------------------------------------------------------------------

    async def index(self, request: Request) -> Response:
        infos = await run_in_threadpool(self.host.challenges)
        phases = {c.name: self.host.phase(c.name) for c in infos}
        return self.page(request, "index.html", challenges=infos, phases=phases)

    async def login_page(self, request: Request) -> Response:
        # The same token while its cookie lasts, so that two sign-in tabs both work.
        token = request.cookies.get(PRE_COOKIE) or ""
        if not re.fullmatch(r"[A-Za-z0-9_-]{40,50}", token):
            token = new_token()
        nxt = request.query_params.get("next", "/")
        r = self.page(request, "login.html", pre=token, next=nxt if _NEXT_RE.fullmatch(nxt) else "/", message="")
        self._pre_cookie(request, r, token)
        return r

    def _pre_cookie(self, request: Request, response: Response, token: str) -> None:
        response.set_cookie(PRE_COOKIE, token, max_age=3600, httponly=True, samesite="strict",
                            secure=request.url.scheme == "https")

    async def login(self, request: Request) -> Response:
        form = await self.form(request, request.cookies.get(PRE_COOKIE))
        login, password = str(form.get("login", ""))[:200].strip(), str(form.get("password", ""))
        nxt = str(form.get("next", "/"))
        nxt = nxt if _NEXT_RE.fullmatch(nxt) else "/"
        address = request.client.host if request.client else "?"
        try:
            user = await run_in_threadpool(self.accounts.sign_in, login, password, address)
            message, status = _("wrong login or password"), 401
        except Throttled as e:
            raise _Refused(429, str(e), {"retry-after": str(math.ceil(e.retry_after))}) from None
        except Disabled as e:  # (the password was right: its owner is told why)
            user, message, status = None, str(e), 403
        if user is None:
            token = new_token()
            r = self.page(request, "login.html", status=status, pre=token, next=nxt, message=message, login=login)
            self._pre_cookie(request, r, token)
            return r
        token = await run_in_threadpool(self.accounts.open_session, user.login)
        if user.must_change:  # the forced form first, then where the user was going
            nxt = "/account" if nxt == "/" else f"/account?next={urllib.parse.quote(nxt)}"
        r = RedirectResponse(nxt, status_code=303)
        r.set_cookie(SESSION_COOKIE, token, httponly=True, samesite="lax", secure=request.url.scheme == "https",
                     max_age=14 * 24 * 3600)
        r.delete_cookie(PRE_COOKIE)
        return r

    async def logout(self, request: Request) -> Response:
        s = self.session(request)
        await self.form(request, s.csrf if s else request.cookies.get(PRE_COOKIE))
        await run_in_threadpool(self.accounts.close_session, request.cookies.get(SESSION_COOKIE))
        r = RedirectResponse("/", status_code=303)
        r.delete_cookie(SESSION_COOKIE)
        return r

    async def account_page(self, request: Request) -> Response:
        s = self.user_session(request, allow_must_change=True)
        nxt = request.query_params.get("next", "/")
        return self.page(request, "account.html", message="", nickname=s.user.nickname or "",
                         next=nxt if _NEXT_RE.fullmatch(nxt) else "/")

    async def account(self, request: Request) -> Response:
        """The account form, all or nothing (see Accounts.change); then back where the user was going."""
        s = self.user_session(request, allow_must_change=True)
        form = await self.form(request, s.csrf)
        old, new, again = (str(form.get(k, "")) for k in ("old", "new", "again"))
        nickname = str(form.get("nickname", ""))
        nxt = str(form.get("next", "/"))
        nxt = nxt if _NEXT_RE.fullmatch(nxt) and not nxt.startswith(("/login", "/logout")) else "/"
        try:
            if new != again:
                raise AccountError(_("the two new passwords differ: nothing was changed"))
            await run_in_threadpool(self.accounts.change, s.user.login, old, new, nickname,
                                    request.cookies.get(SESSION_COOKIE),
                                    request.client.host if request.client else "?")
        except Throttled as e:
            return self.page(request, "account.html", status=429, message=str(e), nickname=nickname, next=nxt,
                             headers={"retry-after": str(math.ceil(e.retry_after))})
        except AccountError as e:
            return self.page(request, "account.html", status=400, message=str(e), nickname=nickname, next=nxt)
        self._nick_gen += 1
        r = RedirectResponse(nxt, status_code=303)
        r.set_cookie(FLASH_COOKIE, "account", max_age=60, httponly=True, samesite="lax",
                     secure=request.url.scheme == "https")
        return r

    async def scoreboard(self, request: Request) -> Response:
        name = request.path_params["name"]
        info = self.challenge(name)
        board = await self.board(name)
        return self.page(request, "scoreboard.html", c=info, board=board)

    async def standings_json(self, request: Request) -> Response:
        name = request.path_params["name"]
        self.challenge(name)
        return Response((await self.board(name))["json"], media_type="application/json")

    async def events(self, request: Request) -> Response:
        """Server-Sent Events: the Scoreboard's JSON each time it changes (and at once if it changed
        since ``since``)."""
        name = request.path_params["name"]
        self.challenge(name)
        try:
            since = int(request.query_params.get("since", "-1"))
        except ValueError:
            since = -1

        async def stream():
            nonlocal since
            while not self.live.stopping.is_set():
                if await self.live.changed(name, since, KEEPALIVE):
                    data = await self.board(name)
                    since = data["version"]
                    yield f"data: {data['json']}\n\n"
                else:
                    yield ": still here\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"cache-control": "no-store", "x-accel-buffering": "no"})

    async def about(self, request: Request) -> Response:
        """The challenge's page: its README, its limits as the host applies them, the template brains."""
        name = request.path_params["name"]
        info = self.challenge(name)
        limits, settings, game = await run_in_threadpool(self.host.terms, name)
        readme = await run_in_threadpool(about.readme, info.folder, i18n.current())
        files = await run_in_threadpool(about.templates, info.folder)
        protocol = info.kind == "folder" and await run_in_threadpool(about.protocol, game) is not None
        return self.page(request, "about.html", c=info, readme=readme, templates=files, protocol=protocol,
                         summary=i18n.said(game.summary, game.name),
                         limits=limit_rows(limits, any(x.entry for x in info.languages)),
                         serving=serve_rows(info, settings))

    async def protocol(self, request: Request) -> Response:
        """The challenge's game's README: how a bot talks to the judge (a folder challenge's Rules link here)."""
        name = request.path_params["name"]
        info = self.challenge(name)
        game = (await run_in_threadpool(self.host.terms, name))[2]
        text = await run_in_threadpool(about.protocol, game)
        if text is None:
            raise _Refused(404, _("There is no protocol of %(game)s to show.", game=info.game))
        return self.page(request, "protocol.html", c=info, readme=text)

    async def template_file(self, request: Request) -> Response:
        name = request.path_params["name"]
        info = self.challenge(name)
        files = {t.name: t for t in await run_in_threadpool(about.templates, info.folder)}
        t = files.get(request.path_params["file"])
        if t is None:
            raise _Refused(404, _("There is no template %(file)s.", file=repr(request.path_params["file"])))
        data = await run_in_threadpool(t.path.read_bytes)
        return Response(data, media_type="text/plain; charset=utf-8",
                        headers={"content-disposition": f'attachment; filename="{t.name}"'})

    async def language(self, request: Request) -> Response:
        """The language switch: remember the choice (a cookie) and go back to the page."""
        nxt = request.query_params.get("next", "/")
        r = RedirectResponse(nxt if _NEXT_RE.fullmatch(nxt) else "/", status_code=303)
        code = request.path_params["code"]
        if code in i18n.LANGUAGES:
            r.set_cookie(i18n.COOKIE, code, max_age=365 * 24 * 3600, httponly=True, samesite="lax",
                         secure=request.url.scheme == "https")
        return r

    async def crosstable(self, request: Request) -> Response:
        name = request.path_params["name"]
        info = self.challenge(name)
        table = await run_in_threadpool(self.host.crosstable, name)
        names = await run_in_threadpool(self.names, name)
        return self.page(request, "crosstable.html", c=info, table=table, names=names)

    def names(self, name: str) -> Names:
        """The challenge's bots as the pages show them (nicknames, public ids: kothkit.serve.privacy)."""
        info = self.host.challenge(name)
        bots = [s.bot for s in self.host.standings(name)]
        owners = {x.bot: x.login for x in self.host.submissions(name)} if info.kind == "submissions" else {}
        return Names.make(info.kind, self._id_key, bots, owners, self.accounts.nicknames())

    def viewer(self, request: Request) -> tuple[str | None, bool]:
        """(login, admin) of the visitor, (None, False) for a visitor not signed in (or who must
        first choose a password and a nickname)."""
        s = self.session(request)
        if s is None or s.user.must_change:
            return None, False
        return s.user.login, bool(s.user.admin)

    async def submit_page(self, request: Request) -> Response:
        name = request.path_params["name"]
        info = self.challenge(name)
        self.user_session(request)
        if info.kind != "submissions":
            raise _Refused(404, _("%(name)s takes no submissions: its bots are folders on the host.", name=name))
        return self.page(request, "submit.html", c=info, message="", chosen="")

    async def submit(self, request: Request) -> Response:
        name = request.path_params["name"]
        info = self.challenge(name)
        s = self.user_session(request)
        if info.kind != "submissions":
            raise _Refused(404, _("%(name)s takes no submissions: its bots are folders on the host.", name=name))
        length = request.headers.get("content-length", "")
        if length.isdigit() and int(length) > info.max_bytes + MULTIPART_SLACK:
            # Said as the form says it, on the form (the way back), before the body is read.
            return self.page(request, "submit.html", status=413, c=info, chosen="",
                             message=_("The file is larger than this challenge takes (%(limit)s): nothing was "
                                       "stored.", limit=size_limit(info.max_bytes)))
        form = await self.form(request, s.csrf, limit=info.max_bytes + MULTIPART_SLACK, max_files=1,
                               slack=MULTIPART_SLACK)
        try:
            upload = form.get("file")
            language = str(form.get("language", ""))
            if upload is None or isinstance(upload, str):
                raise _Refused(400, _("Choose a source file to submit."), back=request.url.path)
            data = await upload.read(info.max_bytes + 1)
            filename = upload.filename or ""
        finally:
            await form.close()
        try:
            if len(data) > info.max_bytes:
                raise TooLarge(len(data), info.max_bytes)
            sub = await run_in_threadpool(self.host.submit, name, s.user.login, filename, language, data)
        # The form again with the refusal, the language chosen kept (a browser never refills a file).
        except TooLarge:
            return self.page(request, "submit.html", status=413, c=info, chosen=language,
                             message=_("The file is larger than this challenge takes (%(limit)s): nothing was "
                                       "stored.", limit=size_limit(info.max_bytes)))
        except RateLimited as e:
            wait = math.ceil(e.retry_after)
            return self.page(request, "submit.html", status=429, headers={"retry-after": str(wait)}, c=info,
                             message=str(e), chosen=language)
        except SubmitError as e:
            return self.page(request, "submit.html", status=400, c=info, message=str(e), chosen=language)
        return RedirectResponse(f"/c/{name}/mine?submitted={sub.id}", status_code=303)

    async def mine(self, request: Request) -> Response:
        name = request.path_params["name"]
        info = self.challenge(name)
        s = self.user_session(request)
        version = self.host.version(name)  # before the list: a change after it wakes the page
        subs = await run_in_threadpool(self.host.submissions, name, s.user.login)
        names = await run_in_threadpool(self.names, name)
        fb = await run_in_threadpool(self._feedback, name, subs)
        return self.page(request, "submissions.html", c=info, subs=subs, own=True, names=names, version=version,
                         feedback=fb)

    def _feedback(self, name: str, subs: list) -> dict:
        """Submission id -> its brain's feedback (kothkit.serve.feedback), for the brains in play."""
        out = {}
        standings = None
        for sub in subs:
            if sub.status not in ("playing", "done"):
                continue
            if standings is None:
                standings = {x.bot: x for x in self.host.standings(name)}
            games = self.host.games(name, sub.bot)
            out[sub.id] = feedback(sub.bot, standings.get(sub.bot), games, sub.played, sub.total)
        return out

    async def all_submissions(self, request: Request) -> Response:
        name = request.path_params["name"]
        info = self.challenge(name)
        subs = await run_in_threadpool(self.host.submissions, name, None)
        names = await run_in_threadpool(self.names, name)
        return self.page(request, "submissions.html", c=info, subs=subs, own=False, names=names, version=0,
                         feedback={})

    async def submission(self, request: Request) -> Response:
        name = request.path_params["name"]
        info = self.challenge(name)
        s = self.user_session(request)
        subs = await run_in_threadpool(self.host.submissions, name, None)
        sub = next((x for x in subs if str(x.id) == request.path_params["sid"]), None)
        if sub is None:
            raise _Refused(404, _("There is no such submission."))
        if sub.login != s.user.login and not s.user.admin:
            raise _Refused(403, _("A build's output is shown to its author only."))
        names = await run_in_threadpool(self.names, name)
        fb = await run_in_threadpool(self._feedback, name, [sub])
        from kothkit.serve import validation

        check = await run_in_threadpool(validation.load, self.host.state_dir, sub.id)
        if check is not None:
            # Its lines name the brain by its bot name (its author's login): the page says "your
            # brain" to its author, its author's nickname to an admin.
            shown = _("your brain") if sub.login == s.user.login else names.show(sub.bot)
            mine = re.compile(rf"(?<![\w+]){re.escape(sub.bot)}(?![\w+])")
            check = attrs.evolve(check, games=tuple(mine.sub(shown, line) for line in check.games),
                                 fault=mine.sub(shown, check.fault))
        return self.page(request, "submission.html", c=info, sub=sub, names=names, fb=fb.get(sub.id), check=check)

    async def bot_games(self, request: Request) -> Response:
        name = request.path_params["name"]
        info = self.challenge(name)
        names = await run_in_threadpool(self.names, name)
        login, admin = self.viewer(request)
        key = request.path_params["bot"]
        bot, moved = names.bot(key, login, admin)
        if bot is None:
            raise _Refused(404, _("There is no bot %(bot)s in %(challenge)s.", bot=repr(key), challenge=name))
        if moved:  # an old link by the bot's name, its author's: the URL that names it by its id
            raise _Refused(303, "moved", {"location": f"/c/{name}/bot/{names.id(bot)}"})
        games = await run_in_threadpool(self.host.games, name, bot)
        mine = await self._own_bots(name, login)
        reasons = {g.id: self._reason(info, g.reason, g.offender, mine, admin) for g in games}
        # A log link where the visitor may read the log: a folder's bots, one's own, every bot for admins.
        logs = info.kind == "folder" or admin or bot in mine
        return self.page(request, "games.html", c=info, bot=bot, games=games, names=names, reasons=reasons, logs=logs)

    async def _own_bots(self, name: str, login: str | None) -> set[str]:
        if login is None:
            return set()
        return {x.bot for x in await run_in_threadpool(self.host.submissions, name, login)}

    @staticmethod
    def _reason(info, reason: str, offender: str | None, mine: set[str], admin: bool) -> str:
        """A game's reason for this visitor: the quote of a bot's stderr for its author (and admins,
        and everyone in a folder challenge) only; in the visitor's language."""
        if info.kind == "folder" or admin or (offender is not None and offender in mine):
            return i18n.reason(reason, info.game)
        return i18n.reason(neutral(reason), info.game)

    async def _game_rights(self, request: Request, name: str, game_id: str):
        """The game, and the bots of it whose logs the visitor may read (None: all of them)."""
        info = self.challenge(name)
        try:
            game = await run_in_threadpool(self.host.game, name, game_id)
        except KeyError:
            raise _Refused(404, _("There is no game %(game)s in %(challenge)s.", game=repr(game_id),
                                  challenge=name)) from None
        s = self.session(request)
        if s is not None and s.user.admin and not s.user.must_change:
            return info, game, None
        if s is None or s.user.must_change:
            return info, game, set()
        owners = await run_in_threadpool(self.host.owners, name, game_id)
        if s.user.login not in owners:
            return info, game, set()
        mine = {x.bot for x in await run_in_threadpool(self.host.submissions, name, s.user.login)}
        return info, game, {b for b in game.bots if b in mine}

    async def game(self, request: Request) -> Response:
        name, game_id = request.path_params["name"], request.path_params["gid"]
        info, game, rights = await self._game_rights(request, name, game_id)
        names = await run_in_threadpool(self.names, name)
        if info.kind == "folder" or rights is None or (rights and set(game.bots) <= rights):
            page = await run_in_threadpool(self._replay_page, info, names, game_id, None,
                                          self._replay_nav(info, request))
            return HTMLResponse(page, headers={"content-security-policy": REPLAY_CSP})
        mine = sorted(rights)
        log = await run_in_threadpool(self._log, info, names, game_id, mine[0], rights) if mine else ""
        reason = self._reason(info, game.reason, game.offender, rights, False)
        return self.page(request, "game.html", c=info, game=game, names=names, mine=mine, log=log, reason=reason)

    def _replay_page(self, info, names: Names, game_id: str, logs_of, nav: str) -> str:
        """The game's replay page, its bots renamed, holding the logs of ``logs_of`` only (None: all)."""
        from kothkit.results.replay import page_of

        archive, record, game_info = self.host.stored_game(info.name, game_id)
        t = private_transcript(archive, record, game_info, names.in_game(record.players), logs_of, pictures=True)
        at = archive.finished.get(record.id)
        with i18n.in_zone(info.zone):  # (its time in the challenge's zone, as its other pages say it)
            finished = i18n.when(at) if at else None
        return page_of(t, nav, replay_words(), i18n.current(), functools.partial(i18n.reason, game=info.game),
                       finished=finished)

    def _log(self, info, names: Names, game_id: str, bot: str | None, rights) -> str:
        """The game's log as ``bot`` saw it (None: the whole game's, for admins and folder challenges)."""
        from kothkit.results.gametext import game_text, log_text

        archive, record, game_info = self.host.stored_game(info.name, game_id)
        rename = names.in_game(record.players)
        t = private_transcript(archive, record, game_info, rename, rights, pictures=False)
        return game_text(t) if bot is None else log_text(t, rename[bot])

    async def replay(self, request: Request) -> Response:
        """The replay page for anyone: every move, and the logs of the visitor's own bots only
        (all of them for an admin, and in a folder challenge, whose logs are public)."""
        name, game_id = request.path_params["name"], request.path_params["gid"]
        info, game, rights = await self._game_rights(request, name, game_id)
        names = await run_in_threadpool(self.names, name)
        logs_of = None if info.kind == "folder" or rights is None else rights
        page = await run_in_threadpool(self._replay_page, info, names, game_id, logs_of,
                                      self._replay_nav(info, request))
        return HTMLResponse(page, headers={"content-security-policy": REPLAY_CSP})

    async def game_log(self, request: Request) -> Response:
        name, game_id = request.path_params["name"], request.path_params["gid"]
        info = self.challenge(name)
        if info.kind != "folder" and self.session(request) is None:
            self.user_session(request)  # a submissions challenge's logs are their authors': sign in
        info, game, rights = await self._game_rights(request, name, game_id)
        names = await run_in_threadpool(self.names, name)
        login, admin = self.viewer(request)
        key = request.query_params.get("bot")
        want = names.bot(key, login, admin)[0] if key is not None else None
        if info.kind == "folder" or rights is None:  # public logs (folder), or an admin
            if key is not None and want not in game.bots:
                raise _Refused(404, _("No bot %(bot)s played game %(game)s.", bot=repr(key), game=repr(game_id)))
            rights = None
        elif not rights or (key is not None and want not in rights):
            # The same answer for another's bot and for a name that is nobody's: no login is confirmed.
            raise _Refused(403, _("A game's log is shown to the authors of its bots only."))
        else:
            want = want or sorted(rights)[0]
        text = await run_in_threadpool(self._log, info, names, game_id, want, rights)
        label = names.id(want) if want is not None else "all"
        filename = re.sub(r"[^A-Za-z0-9_.+-]", "_", f"{name}-{game_id[:12]}-{label}.log")
        return PlainTextResponse(text, headers={"content-disposition": f'attachment; filename="{filename}"'})

    async def my_logs(self, request: Request) -> Response:
        """A zip of the logs of every counted game of the visitor's brains in the challenge."""
        name = request.path_params["name"]
        info = self.challenge(name)
        s = self.user_session(request)

        def build() -> bytes:
            bots = {x.bot for x in self.host.submissions(name, s.user.login)}
            names = self.names(name)
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
                for bot in sorted(bots):
                    for g in self.host.games(name, bot):
                        z.writestr(f"{g.index:06d}-{g.id[:12]}-{names.id(bot)}.log",
                                   self._log(info, names, g.id, bot, bots))
            return buf.getvalue()

        data = await run_in_threadpool(build)
        filename = re.sub(r"[^A-Za-z0-9_.+-]", "_", f"{name}-my-logs.zip")
        return Response(data, media_type="application/zip",
                        headers={"content-disposition": f'attachment; filename="{filename}"'})

def create_app(host, accounts: Accounts, *, title: str = "kothkit", access_log: bool = True,
               body_timeout: float = BODY_TIMEOUT) -> _Headers:
    """The ASGI app; the caller starts and stops ``host`` (the app starts only its live threads).
    ``access_log``: a line per request on stdout; ``body_timeout``: seconds a request's body has."""
    site = Site(host, accounts, title)

    def wrap(handler):
        async def endpoint(request: Request) -> Response:
            # The request's task (and the threads it starts) answer in the visitor's language.
            i18n.set_language(i18n.negotiate(request.headers.get("accept-language"), request.cookies.get(i18n.COOKIE)))
            try:
                return await handler(request)
            except (_Refused, playsite.Refused) as e:
                if e.status == 303:
                    return RedirectResponse(e.headers["location"], status_code=303)
                return site.refuse(request, e)
            except KeyError:  # the host knows no such challenge, bot or game (gone since the page checked)
                return site.refuse(request, _Refused(404, _("Not found.")))
            except Exception:
                print(f"kothkit serve: {request.method} {request.url.path}:\n{traceback.format_exc()}",
                      file=sys.stderr, flush=True)
                return site.refuse(request, _Refused(500, _("The server hit an error (it is in the server's log).")))
        return endpoint

    @contextlib.asynccontextmanager
    async def lifespan(app):
        site.live.start()
        try:
            yield
        finally:
            site.live.stop()
            await run_in_threadpool(site.play.close)

    routes = [
        Route("/", wrap(site.index)),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
        Route("/lang/{code}", wrap(site.language)),
        Route("/login", wrap(site.login_page), methods=["GET"]),
        Route("/login", wrap(site.login), methods=["POST"]),
        Route("/logout", wrap(site.logout), methods=["POST"]),
        Route("/account", wrap(site.account_page), methods=["GET"]),
        Route("/account", wrap(site.account), methods=["POST"]),
        Route("/c/{name}/", wrap(site.scoreboard)),
        Route("/c/{name}/standings.json", wrap(site.standings_json)),
        Route("/c/{name}/events", wrap(site.events)),
        Route("/c/{name}/crosstable", wrap(site.crosstable)),
        Route("/c/{name}/about", wrap(site.about)),
        Route("/c/{name}/template/{file}", wrap(site.template_file)),
        Route("/c/{name}/protocol", wrap(site.protocol)),
        Route("/c/{name}/submit", wrap(site.submit_page), methods=["GET"]),
        Route("/c/{name}/submit", wrap(site.submit), methods=["POST"]),
        Route("/c/{name}/mine", wrap(site.mine)),
        Route("/c/{name}/mine/logs.zip", wrap(site.my_logs)),
        Route("/c/{name}/submissions", wrap(site.all_submissions)),
        Route("/c/{name}/submission/{sid}", wrap(site.submission)),
        Route("/c/{name}/bot/{bot}", wrap(site.bot_games)),
        Route("/c/{name}/game/{gid}", wrap(site.game)),
        Route("/c/{name}/game/{gid}/log", wrap(site.game_log)),
        Route("/c/{name}/game/{gid}/replay", wrap(site.replay)),
        Route("/c/{name}/play", wrap(lambda r: playsite.page(site, r)), methods=["GET"]),
        Route("/c/{name}/play", wrap(lambda r: playsite.start(site, r)), methods=["POST"]),
        Route("/c/{name}/play/{gid}", wrap(lambda r: playsite.game_page(site, r)), methods=["GET"]),
        Route("/c/{name}/play/{gid}/state", wrap(lambda r: playsite.state(site, r)), methods=["GET"]),
        Route("/c/{name}/play/{gid}/move", wrap(lambda r: playsite.move(site, r)), methods=["POST"]),
        Route("/c/{name}/play/{gid}/quit", wrap(lambda r: playsite.leave(site, r)), methods=["POST"]),
        Route("/c/{name}/played/{rid}", wrap(lambda r: playsite.replay(site, r)), methods=["GET"]),
        Route("/static/board.js", playsite.board_script),
        *admin.routes(site, wrap),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    return _Headers(app, site, access_log, body_timeout)
