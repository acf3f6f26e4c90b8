"""The Play page of ``kothkit serve``: a signed-in person plays a bot of a challenge in the browser.

The opponents: the game's bundled bots, the person's own latest brain (``[serve] play_own``,
default true) and, where the challenge allows it (``play_all``), every author's latest brain (an
admin may always play every brain).  A
game is ``kothkit play``'s: the person is a seat answered through the game's ``kothkit_human``
hook (:class:`kothkit.playing.playweb.WebSeat`, the page of ``templates/play.html`` and
``static/play.js``), the bot is jailed with the challenge's limits and rules, a mistake is explained
and asked again, never a loss.  A finished game is stored in ``STATE/play/CHALLENGE.sqlite``, apart
from the ladder's journal (``kothkit show``, ``verify`` work on it), with a replay page for the
person (and admins).

Games in progress live in the server's process, one thread each (:class:`PlayRoom`): at most
``max_live`` at once, one per person (a new one ends the person's previous game), ``per_hour``
started per person in any hour; a game that waits ``idle`` seconds for the person is abandoned.
A game's page may have at most ``MAX_QUEUED`` entries waiting, and none once the game is over.
An abandoned game stores nothing; its bot is killed and reaped as at the end of any game.  A Play
game's bot runs ``NICE`` steps nicer than the server, below the ladder's games, held to a core of
its own where the ladder left one, under a CPU quota of half a core whatever it starts
(:func:`kothkit.procs.cores.play_core`).  With ``--cluster``
the bot is built and plays on a worker, the person's seat answered from here
(:meth:`kothkit.playing.cluster.ClusterExecutor.play_person`): the host runs no submitted code.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import json
import os
import re
import secrets
import sqlite3
import sys
import threading
import time
import traceback
from collections import deque
from contextlib import closing
from pathlib import Path
from typing import Any

import attrs
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from kothkit.bots.folders import BotKind, BotSpec
from kothkit.human import HUMAN_HASH, NoHumanPlay, turn_of
from kothkit.playing.play import Abandoned, drop_game, hidden_information, new_game, store_game
from kothkit.playing.playweb import MAX_ENTRY, WebSeat
from kothkit.procs.cores import play_core
from kothkit.serve import i18n
from kothkit.serve.accounts import private_file, private_folder
from kothkit.serve.i18n import gettext as _
from kothkit.serve.privacy import neutral
from kothkit.serve.security import REPLAY_CSP

#: Games in progress on the site at once.
MAX_LIVE = 8
#: Seconds a game waits for the person's entry before it is abandoned.
IDLE = 600.0
#: Seconds a finished game's page stays live (then its Replay link remains).
KEEP = 900.0
#: Games a person may start in any hour.
PER_HOUR = 30
#: Entries a game's page may have sent that its game has not read yet: more are refused (a page
#: posts one a turn; a script posting fast would fill the server's memory).
MAX_QUEUED = 16
#: The niceness a Play game's bot gets above the server's: the ladder's games (whose time limits
#: are wall-clock) come first on a busy machine.
NICE = 10


class Refused(Exception):
    """Ends a request with an error page (the site's own refusal, for this module's pages)."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        self.status, self.message, self.headers = status, message, headers or {}
        super().__init__(message)


@attrs.frozen
class Opponent:
    #: The form's value: "bundled:NAME" or "brain:PUBLIC-ID".
    key: str
    label: str
    #: The bot as it plays: a brain under its public id (kothkit.serve.privacy), never its login.
    spec: BotSpec
    #: Its name in the moves' list.
    shown: str = ""
    #: The login of a brain's author (None: a bundled bot).
    author: str | None = None


@attrs.define(eq=False)
class LiveGame:
    id: str
    challenge: str
    login: str
    title: str
    seat: WebSeat
    thread: threading.Thread | None = None
    ended_at: float | None = None


def person_name(login: str) -> str:
    """The person's name in a play game's record: their bot name and ``+you`` (never a brain's)."""
    from kothkit.serve.submissions import bot_name

    return bot_name(login)[:60] + "+you"


class _Null:
    """The terminal a site's seat writes to: nowhere (the page shows the game)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


class PlayRoom:
    """The games in progress of one server, and where finished ones are stored."""

    def __init__(self, state_dir: Path, max_live: int = MAX_LIVE, idle: float = IDLE, per_hour: int = PER_HOUR):
        self.state_dir = Path(state_dir)
        self.max_live, self.idle, self.per_hour = max_live, idle, per_hour
        self._lock = threading.Lock()
        self._games: dict[str, LiveGame] = {}
        self._starts: dict[str, deque[float]] = {}
        self._bundled: dict[str, list[BotSpec]] = {}
        #: Builds of bundled bots (in the game's folder) one at a time.
        self._build_lock = threading.Lock()
        self._closed = False

    def journal(self, challenge: str) -> Path:
        return self.state_dir / "play" / f"{challenge}.sqlite"

    def bundled(self, info: Any) -> list[BotSpec]:
        """The game's bundled bots (loaded once; built when first played)."""
        from kothkit.bots.folders import load_bots

        with self._lock:
            if info.name not in self._bundled:
                loaded = load_bots([info.bots]) if info.bots is not None else None
                bots = [] if loaded is None else [b for b in loaded.bots if info.takes(b)]
                self._bundled[info.name] = sorted(bots, key=lambda b: b.name)
            return self._bundled[info.name]

    def _prune(self, now: float) -> None:
        for gid, g in list(self._games.items()):
            if g.ended_at is not None and now - g.ended_at > KEEP:
                del self._games[gid]

    def get(self, gid: str, login: str) -> LiveGame | None:
        """The live game ``gid`` if it is ``login``'s."""
        with self._lock:
            self._prune(time.monotonic())
            g = self._games.get(gid)
            return g if g is not None and g.login == login else None

    def live(self) -> int:
        with self._lock:
            return sum(1 for g in self._games.values() if g.ended_at is None)

    def start(self, challenge: str, info: Any, limits: Any, rules: dict, login: str, opponent: Opponent,
              seat: int, replay_url: str, reads_bot: bool = True, remote: Any = None) -> LiveGame:
        """Start a game of ``login`` against ``opponent`` in seat ``seat``: its live game (Refused
        when the room is full or the person started too many games this hour).  ``reads_bot``:
        whether the person may read the bot's own words (the stderr a fault's reason quotes): a
        brain's are its author's (and admins'); else the game shows the fault's neutral reason.
        ``remote``: the host's cluster executor (``serve --cluster``), where the bot is built and
        plays (kothkit.playing.cluster.ClusterExecutor.play_person), or None: here."""
        now = time.monotonic()
        with self._lock:
            if self._closed:
                raise Refused(503, _("the server is stopping"))
            self._prune(now)
            for g in self._games.values():  # one game a person: the previous one ends
                if g.login == login and g.ended_at is None:
                    g.seat.entries.put(None)
            starts = self._starts.setdefault(login, deque())
            while starts and now - starts[0] > 3600:
                starts.popleft()
            if len(starts) >= self.per_hour:
                wait = int(3600 - (now - starts[0])) + 1
                raise Refused(429, _("you started %(n)d games in the last hour: the next one in %(s)d s")
                              % {"n": len(starts), "s": wait}, {"retry-after": str(wait)})
            busy = sum(1 for g in self._games.values() if g.ended_at is None and g.login != login)
            if busy >= self.max_live:
                raise Refused(503, _("all %(n)d tables are taken: try again in a minute") % {"n": self.max_live},
                              {"retry-after": "60"})
            starts.append(now)
        me = person_name(login)
        human = BotSpec(name=me, path=Path("."), kind=BotKind.HUMAN, hash=HUMAN_HASH)
        seats = (human, opponent.spec) if seat == 0 else (opponent.spec, human)
        names = (seats[0].name, seats[1].name)
        probe = info.match(_setup(names, rules))
        shown = tuple(_("you") if i == seat else (opponent.shown or opponent.spec.name) for i in range(2))
        web = WebSeat(info, shown, seat, hidden_information(probe), stdout=_Null())  # type: ignore[arg-type]
        web.idle = self.idle
        web.words = functools.partial(i18n.reason, game=info.name)
        # The game's texts name the seats by their record names: the person is "you", a brain its
        # author's nickname (or "your brain"), never a login or a public id.
        web.shown = {me: "you", opponent.spec.name: opponent.shown or opponent.spec.name}
        title = _("%(game)s: you against %(bot)s") % {"game": info.name, "bot": opponent.label}
        g = LiveGame(id=secrets.token_urlsafe(12), challenge=challenge, login=login, title=title, seat=web)
        # The game's thread runs in the starter's context: its messages (the result) in their language.
        g.thread = threading.Thread(target=contextvars.copy_context().run,
                                    args=(self._play, g, info, seats, limits, rules, seat, replay_url, reads_bot,
                                          remote),
                                    name=f"kothkit-play-{g.id[:6]}", daemon=True)
        with self._lock:
            self._games[g.id] = g
        g.thread.start()
        return g

    def _play(self, g: LiveGame, info: Any, seats: tuple, limits: Any, rules: dict, seat: int,
              replay_url: str, reads_bot: bool, remote: Any = None) -> None:
        """The game's thread: build the bot if needed, play, store (or not, if abandoned)."""
        from kothkit.playing.referee import play_game
        from kothkit.playing.tournament import build_bots

        web = g.seat
        journal = self.journal(g.challenge)
        run_id = None
        # Linux keeps a niceness per thread, and the processes a thread starts inherit it: this
        # thread's bot (and its build) run below the ladder's.
        with contextlib.suppress(OSError, AttributeError):
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + NICE))
        # A core of its own where the ladder left one, and a CPU quota: whatever the bot starts
        # (50 setsid spinners) takes at most that share of that core (kothkit.procs.cores.play_core).
        held = contextlib.ExitStack()
        try:
            core: int | None = held.enter_context(play_core())[0]
        except OSError:
            core = None
        try:
            bot = seats[1 - seat]
            if remote is None:  # (with a cluster, a worker builds it)
                with self._build_lock:
                    built, errors = build_bots([bot])
                if errors or not built:
                    web.abandoned(_("the bot did not build: %(e)s") % {"e": errors[0] if errors else "?"})
                    return
                seats = tuple(built[0] if i != seat else s for i, s in enumerate(seats))
            with self._lock:  # (two games of one journal pick their slots one after the other)
                # Private to the host's user, as the ladder's journals (a seat is named after a login).
                private_folder(journal.parent)
                private_file(journal)  # (by its path, before its first connection: see private_file)
                task, run_id, _seed = new_game(journal, info, seats, limits, rules)
            # The game as it starts: a bot's handshake before the person's first turn is no move.
            web.start = info.match(_setup((seats[0].name, seats[1].name), rules, task.seed))
            def event(kind: str, who: int, text: str, ms: float | None) -> None:
                web.event(kind, who, text if reads_bot or kind != "verdict" else neutral(text), ms)

            if remote is not None:  # the host runs no submitted code: the bot plays on a worker
                rec = remote.play_person(task, seat, web, event, idle=web.idle)
            else:
                rec = play_game(task, info=info, on_event=event, boards=True, people={seat: web}, cpu=core)
            with self._lock:
                store_game(journal, run_id, rec)
            reason = rec.reason if reads_bot else neutral(rec.reason)
            web.finish(info, _result(seats[seat].name, rec.winner, web.renamed(reason), info.name))
            web.publish(replay=replay_url.replace("{id}", rec.id), final=True)
        except Abandoned:
            if run_id is not None:
                drop_game(journal, run_id)
            web.abandoned(_("you left the game, or it waited too long for your move"))
        except Exception:  # noqa: BLE001 - the game ends; the server carries on, the error in its log
            print(f"kothkit serve: play game {g.id}:\n{traceback.format_exc()}", file=sys.stderr, flush=True)
            if run_id is not None:
                drop_game(journal, run_id)
            web.abandoned(_("the server hit an error (it is in the server's log)"))
        finally:
            held.close()
            web.ended.set()
            with self._lock:
                g.ended_at = time.monotonic()

    def close(self, timeout: float = 10.0) -> None:
        """End every game in progress (their bots killed and reaped by the referee) and wait for them."""
        with self._lock:
            self._closed = True
            games = list(self._games.values())
        for g in games:
            g.seat.entries.put(None)
        end = time.monotonic() + timeout
        for g in games:
            if g.thread is not None:
                g.thread.join(max(0.1, end - time.monotonic()))

    def played(self, challenge: str, login: str, limit: int = 50) -> list[dict]:
        """The person's stored games in ``challenge``, newest first: id, time, players, winner, reason."""
        path = self.journal(challenge)
        if not path.is_file():
            return []
        me = person_name(login)
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)) as db:
            rows = db.execute("SELECT id, players, winner, reason, finished_at FROM games WHERE players LIKE ? "
                              "ORDER BY finished_at DESC LIMIT ?", (f"%{json.dumps(me)}%", limit)).fetchall()
        out = []
        for gid, players, winner, reason, finished in rows:
            names = json.loads(players)
            if me not in names:
                continue
            out.append({"id": gid, "time": finished, "players": names, "winner": winner, "reason": reason})
        return out


def _setup(names: tuple[str, str], rules: dict, seed: int = 0) -> Any:
    from kothkit.game import Setup

    return Setup(players=names, seed=seed, rules=rules)


def _result(me: str, winner: str | None, reason: str, game: str) -> str:
    """A Play game's result for the person who played it (``me``: their name in the record), in their language."""
    reason = i18n.reason(reason, game)
    result = _("a draw") if winner is None else _("you win") if winner == me else _("you lose")
    return _("%(result)s: %(reason)s") % {"result": result, "reason": reason}


# -- the pages (called by kothkit.serve.app with its Site) ---------------------------------------

def _setup_of(site: Any, name: str) -> tuple:
    try:
        return site.host.play_setup(name)
    except KeyError:
        raise Refused(404, _("there is no challenge %(name)r") % {"name": name}) from None


def opponents(site: Any, name: str, login: str, admin: bool) -> list[Opponent]:
    """Whom ``login`` may play in challenge ``name``."""
    info, _limits, _rules, settings, brains = _setup_of(site, name)
    out = [Opponent(key=f"bundled:{b.name}", label=_("%(bot)s (bundled bot)") % {"bot": b.name}, spec=b,
                    shown=b.name)
           for b in site.play.bundled(info)]
    if brains:
        names = site.names(name)

        def brain(bot: str, spec: BotSpec, author: str, label: str, shown: str) -> Opponent:
            return Opponent(key=f"brain:{names.id(bot)}", label=label, spec=attrs.evolve(spec, name=names.id(bot)),
                            shown=shown, author=author)

        if settings.play_own or settings.play_all or admin:
            out += [brain(bot, spec, login, _("your latest brain"), _("your brain"))
                    for bot, (author, spec) in brains.items() if author == login]
        if settings.play_all or admin:  # (admins see every brain's games and logs anyway)
            out += [brain(bot, spec, author, _("%(who)s's latest brain") % {"who": names.show(bot)}, names.show(bot))
                    for bot, (author, spec) in sorted(brains.items()) if author != login]
    return out


def _shown(names: Any, bundled: set[str], player: str) -> str:
    """A play game's opponent as the pages show it: a bundled bot by its name, a brain (playing
    under its public id) by its author's nickname."""
    if player in bundled:
        return player
    bot = names.bot(player)[0]
    return names.show(bot) if bot is not None else player


def _seats(info: Any) -> list[dict]:
    seats = [{"seat": 0, "label": _("first (you open the game)")}, {"seat": 1, "label": _("second")}]
    return seats[:info.seat_range[0]]


def playable(host: Any, name: str) -> bool:
    """Whether a person can play challenge ``name``'s game here."""
    try:
        info, _limits, rules, _settings, _brains = host.play_setup(name)
        _check_game(info, rules)
    except (Refused, KeyError):
        return False
    return True


def _check_game(info: Any, rules: dict) -> None:
    """Refused unless a person can play ``info`` here (two seats, a human hook)."""
    if not info.two_seats:
        raise Refused(404, _("%(game)s seats %(n)d players: a person plays one bot here")
                      % {"game": info.name, "n": info.seat_range[1]})
    probe = info.match(_setup(("a", "b"), rules))
    first = probe.next()
    try:
        from kothkit.game import Prompt

        if isinstance(first, Prompt):
            turn_of(info, probe, first)
    except NoHumanPlay as e:
        raise Refused(404, str(e)) from None


async def page(site: Any, request: Request, message: str = "", status: int = 200,
               headers: dict | None = None) -> Response:
    name = request.path_params["name"]
    info_c = site.challenge(name)
    s = site.user_session(request)
    info, _limits, rules, _settings, _brains = await run_in_threadpool(_setup_of, site, name)
    await run_in_threadpool(_check_game, info, rules)
    opps = await run_in_threadpool(opponents, site, name, s.user.login, bool(s.user.admin))
    played = await run_in_threadpool(site.play.played, name, s.user.login)
    me = person_name(s.user.login)
    names = await run_in_threadpool(site.names, name)
    bundled = {b.name for b in site.play.bundled(info)}
    rows = []
    for p in played:
        other = next((x for x in p["players"] if x != me), "?")
        shown = _shown(names, bundled, other)
        # Another author's brain: its fault's neutral reason, never the stderr it quotes.
        bot = None if other in bundled else names.bot(other)[0]
        # (a brain whose id no longer resolves is nobody's: neutral, as its replay shows it)
        mine = other in bundled or (bot is not None and names.owners.get(bot) == s.user.login) or bool(s.user.admin)
        reason = p["reason"] if mine else neutral(p["reason"])
        rows.append({"time": p["time"], "opponent": shown, "result": _result(me, p["winner"], reason, info.name),
                     "url": f"/c/{name}/played/{p['id']}"})
    return site.page(request, "play.html", status=status, headers=headers, c=info_c, game=None, local=False,
                     opponents=opps, seats=_seats(info), played=rows, message=message)


async def start(site: Any, request: Request) -> Response:
    name = request.path_params["name"]
    site.challenge(name)
    s = site.user_session(request)
    form = await site.form(request, s.csrf)
    key, seat_text = str(form.get("opponent", "")), str(form.get("seat", "0"))
    info, limits, rules, _settings, _brains = await run_in_threadpool(_setup_of, site, name)
    await run_in_threadpool(_check_game, info, rules)
    opps = await run_in_threadpool(opponents, site, name, s.user.login, bool(s.user.admin))
    opponent = next((o for o in opps if o.key == key), None)
    if opponent is None or seat_text not in ("0", "1"):
        return await page(site, request, _("choose an opponent and a seat from the lists"), 400)
    reads_bot = opponent.author in (None, s.user.login) or bool(s.user.admin)
    try:
        g = await run_in_threadpool(site.play.start, name, info, limits, dict(rules), s.user.login, opponent,
                                    int(seat_text), f"/c/{name}/played/{{id}}", reads_bot,
                                    site.host.cluster_executor())
    except Refused as e:
        return await page(site, request, e.message, e.status, e.headers)
    return RedirectResponse(f"/c/{name}/play/{g.id}", status_code=303)


def _live(site: Any, request: Request) -> tuple[str, LiveGame]:
    name = request.path_params["name"]
    site.challenge(name)
    s = site.user_session(request)
    g = site.play.get(request.path_params["gid"], s.user.login)
    if g is None or g.challenge != name:
        raise Refused(404, _("there is no such game in progress (a game ends after %(m)d minutes without a move)")
                      % {"m": IDLE // 60})
    return name, g


async def game_page(site: Any, request: Request) -> Response:
    name, g = _live(site, request)
    base = f"/c/{name}/play/{g.id}"
    game = {"title": g.title, "urls": {"state": f"{base}/state", "move": f"{base}/move", "quit": f"{base}/quit",
                                       "new": f"/c/{name}/play", "again": ""}}
    return site.page(request, "play.html", c=site.challenge(name), game=game, local=False)


async def state(site: Any, request: Request) -> Response:
    _name, g = _live(site, request)
    with g.seat.lock:
        body = json.dumps(g.seat.state)
    return Response(body, media_type="application/json", headers={"cache-control": "no-store"})


async def move(site: Any, request: Request) -> Response:
    _name, g = _live(site, request)
    s = site.user_session(request)
    form = await site.form(request, s.csrf, limit=MAX_ENTRY + 1024)
    if g.ended_at is not None or g.seat.ended.is_set():  # nobody reads a finished game's entries
        raise Refused(409, _("this game is over: start a new one"))
    if g.seat.entries.qsize() >= MAX_QUEUED:
        raise Refused(429, _("too many moves sent at once: wait for the game to take them"), {"retry-after": "1"})
    g.seat.entries.put(str(form.get("text", ""))[:MAX_ENTRY])
    return JSONResponse({})


async def leave(site: Any, request: Request) -> Response:
    _name, g = _live(site, request)
    s = site.user_session(request)
    await site.form(request, s.csrf)
    # A leave gets a place past the moves' bound (so a full queue still ends), one only.
    if g.ended_at is None and not g.seat.ended.is_set() and g.seat.entries.qsize() <= MAX_QUEUED:
        g.seat.entries.put(None)
    return JSONResponse({})


async def replay(site: Any, request: Request) -> Response:
    """A stored play game's replay: for the person who played it, and admins."""
    from kothkit.results.archive import read_game
    from kothkit.results.replay import page_of
    from kothkit.serve.i18n import current, replay_words
    from kothkit.serve.privacy import private_transcript

    name, rid = request.path_params["name"], request.path_params["rid"]
    info_c = site.challenge(name)
    s = site.user_session(request)
    if not re.fullmatch(r"[0-9a-f]{8,64}", rid):
        raise Refused(404, _("there is no such game"))
    info, _limits, _rules, _settings, _brains = await run_in_threadpool(_setup_of, site, name)
    path = site.play.journal(name)
    archive = await run_in_threadpool(read_game, path, rid) if path.is_file() else None
    if archive is None or not archive.records:
        raise Refused(404, _("there is no such game"))
    record = archive.records[0]
    me = person_name(s.user.login)
    if me not in record.players and not s.user.admin:
        raise Refused(403, _("a game played on the Play page is shown to the person who played it only"))
    names = await run_in_threadpool(site.names, name)
    rename: dict[str, str] = {}
    logs_of = set()
    bundled = {b.name for b in site.play.bundled(info)}
    for p in record.players:
        bot = None if p in bundled or p == me else names.bot(p)[0]
        if bot is not None:  # a brain, under its public id: its log is its author's
            shown = re.sub(r"\s+", "_", names.show(bot).strip()) or p
            if names.owners.get(bot) == s.user.login or s.user.admin:
                logs_of.add(p)
        elif p in bundled:
            shown = p
            logs_of.add(p)
        else:  # the person (their login is in the name: shown to them and admins only, but not needed)
            shown = _("you") if p == me else _("player")
        rename[p] = shown if shown not in rename.values() else f"{shown}~{len(rename)}"

    nav = site._replay_nav(info_c, request)

    # Known by its opponent and date (a person's games are not numbered as a ladder's are).
    other = next((rename[p] for p in record.players if p != me), "?")
    at = archive.finished.get(record.id)
    finished = i18n.when(at) if at else ""
    heading = _("%(game)s: you against %(bot)s, %(when)s") % {"game": info.name, "bot": other, "when": finished}
    if me not in record.players:  # (an admin's look at another person's game)
        heading = _("%(game)s: %(players)s, %(when)s") % {"game": info.name, "when": finished,
                                                           "players": _(" vs ").join(rename[p] for p in record.players)}

    def render() -> str:
        t = private_transcript(archive, record, info, rename, logs_of, pictures=True)
        return page_of(t, nav, replay_words(), current(), functools.partial(i18n.reason, game=info.name),
                       heading=heading, finished=finished)


    return HTMLResponse(await run_in_threadpool(render), headers={"content-security-policy": REPLAY_CSP})


def board_script(request: Request) -> Response:
    from kothkit.picture import board_js

    return Response(board_js(), media_type="text/javascript; charset=utf-8",
                    headers={"cache-control": "max-age=3600"})
