"""The admin's pages of ``kothkit serve`` (``/admin``): for signed-in admins only.

``/admin``: each challenge's phase, the work queue and the slots, the users (add a roster from a
CSV upload, reset a password, disable or enable, make or unmake an admin) and the log of admin
actions.  ``/admin/c/<name>``: every submission with its build output and its games (the logs),
to rejudge (its games played again) or disable (the brain leaves the standings);
to rejudge (its games played again), disable (the brain leaves the standings) or enable again, and
each one's source (``/admin/c/<name>/<id>/source``, read or downloaded); ``/admin/c/<name>/sources.zip``,
every submission's source at once with an index that points out identical sources;
``/admin/c/<name>/grades.csv``, the Scoreboard as a CSV with a row for every student of the roster;
and ``/admin/c/<name>/report.zip`` (a POST, as it is an action the log keeps), the report a TA may
publish (:mod:`kothkit.serve.publish`: bots by nickname, no logs, no stderr quotes).

Every action is a POST that passes the site's CSRF checks, and is kept in the ``admin_log`` table
(who, what, on whom, when) and printed on the server's output.  What only reads (a page, the grades,
the sources) is a GET that changes nothing, and is not logged: a GET may come from another site's
link, and must not write.  What an action says when done is kept by the server (:class:`Said`) and
the page it sends the admin on to names it by an id (``?done=ID``): a link cannot make an admin
page show text of its own.  A roster can get generated first passwords, and a reset a generated
one: shown once, on the answer to the form.
"""

from __future__ import annotations

import collections
import csv
import hashlib
import io
import re
import secrets
import tempfile
import threading
import time
import urllib.parse
import zipfile
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from kothkit.serve.accounts import AccountError, Session, generate_password
from kothkit.serve.errors import Refused as _Refused
from kothkit.serve.errors import SubmitError
from kothkit.serve.feedback import status_label
from kothkit.serve.i18n import N_, _

#: Bytes of a roster upload.
MAX_ROSTER = 1 << 20
USER_ACTIONS = ("reset", "newpass", "disable", "enable", "admin", "unadmin")
#: The messages of done actions kept for their ``?done=`` pages (the oldest forgotten first).
SAID_KEPT = 200
#: The log's actions (stored in English, as the log keeps them) in words, translated where shown.
ACTION_WORDS = {"add users": N_("add users"), "reset": N_("reset password"), "disable": N_("disable"),
                "enable": N_("enable"), "admin": N_("make admin"), "newpass": N_("generated password"),
                "unadmin": N_("unmake admin"),
                "rejudge": N_("rejudge"), "grades export": N_("grades (CSV)"), "enable brain": N_("enable"),
                "report download": N_("public report (zip)")}
BRAIN_ACTIONS = ("rejudge", "disable", "enable")
#: The grades CSV's columns; the roster's other columns (a real name...) come after the nickname.
GRADE_COLUMNS = ("login", "nickname", "rank", "points", "points_unit", "games", "wins", "draws", "losses",
                 "brain_hash", "submission", "submitted", "standings", "note")
#: A table challenge's (a game of more than two seats) more columns, after ``points_unit``: the
#: Scoreboard's mean points a game ± its standard error and openskill rating μ ± σ.
TABLE_COLUMNS = ("mean", "mean_error", "rating", "rating_sigma")
#: The sources export's index.
SOURCE_COLUMNS = ("submission", "login", "nickname", "time", "language", "file", "status", "bytes", "sha256",
                  "same_source_as", "same_but_spacing_as")
#: A CSV for a spreadsheet: UTF-8 with a byte order mark (without it, Excel reads Chinese as mojibake).
BOM = "\ufeff"


def points_unit(scoring: Any) -> str:
    """What the grades' points count, in words (a kothkit.scoring.Scoring)."""
    counts = str(scoring.counts)
    if counts != "outcome":  # (a game of more seats counting its seats' points, places or first places)
        if counts == "points":
            what = _("the game's own points")
        elif counts == "wins":
            what = _("first places (1 for a seat alone in first place)")
        elif scoring.by_place:
            what = _("points by place (%(points)s for first, second...)",
                     points=", ".join(f"{p:g}" for p in scoring.by_place))
        else:
            what = _("points by place (the number of seats less the place)")
        if scoring.mean:
            return _("mean points a game: %(what)s; games count tables, wins first places alone, draws shared "
                     "first places, losses the other places", what=what)
        return _("points: %(what)s, added up; games count tables, wins first places alone, draws shared first "
                 "places, losses the other places", what=what)
    values = {"win": f"{scoring.win:g}", "draw": f"{scoring.draw:g}", "loss": f"{scoring.loss:g}"}
    if scoring.unit == "match":
        return _("match points: %(win)s a match won, %(draw)s drawn, %(loss)s lost (a match: all the games of "
                 "two brains); games, wins, draws and losses count games", **values)
    if scoring.mean:
        return _("mean points a game: %(win)s a game won, %(draw)s drawn, %(loss)s lost; games, wins, draws and "
                 "losses count games", **values)
    return _("points: %(win)s a game won, %(draw)s drawn, %(loss)s lost; games, wins, draws and losses count "
             "games", **values)


def _attachment(filename: str, fallback: str) -> str:
    """A content-disposition naming ``filename`` (a student's own text: any characters), with an
    ASCII ``fallback`` for old clients."""
    return f'attachment; filename="{fallback}"; filename*=UTF-8\'\'{urllib.parse.quote(filename, safe="")}'


def _cell(text: str) -> str:
    """A text cell of the grades CSV, never read as a formula by a spreadsheet (a nickname is the
    student's own text): one that would be starts with a quote."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _number(x: float | None) -> str:
    """A mean, rating or error of the grades CSV to six significant digits ("" where not known yet)."""
    return "" if x is None else f"{x:.6g}"


def _iso(t: float | None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t)) if t else ""


class Said:
    """What done actions said, each under a random id for the admin who did it: a ``?done=`` page
    shows a message only if its id is one of these and the admin's own (else nothing)."""

    def __init__(self) -> None:
        self._kept: collections.OrderedDict[str, tuple[str, str]] = collections.OrderedDict()
        self._lock = threading.Lock()

    def keep(self, login: str, text: str) -> str:
        key = secrets.token_urlsafe(12)
        with self._lock:
            self._kept[key] = (login, text)
            while len(self._kept) > SAID_KEPT:
                self._kept.popitem(last=False)
        return key

    def get(self, login: str, key: str) -> str:
        with self._lock:
            found = self._kept.get(key)
        return found[1] if found is not None and found[0] == login else ""


class Admin:
    """The admin routes over a :class:`~kothkit.serve.app.Site`."""

    def __init__(self, site: Any):  # the app's Site (kothkit.serve.app imports this module, not the reverse)
        self.site = site
        self.said = Said()
        #: The challenges whose public report is being made: one at a time each (it re-plays games).
        self._publishing: set[str] = set()
        self._publish_lock = threading.Lock()

    def admin(self, request: Request) -> Session:
        s = self.site.user_session(request)
        if not s.user.admin:
            raise _Refused(403, _("the admin pages are for admins"))
        return s

    def _done(self, s: Session, action: str, target: str, detail: str = "") -> None:
        self.site.accounts.log(s.user.login, action, target, detail)
        print(f"admin: {s.user.login} {action} {target} {detail}".rstrip(), flush=True)

    def _sent_on(self, s: Session, where: str, text: str) -> Response:
        """The answer to a done action: on to ``where``, which says ``text`` (kept here, by its id)."""
        return RedirectResponse(f"{where}?done={self.said.keep(s.user.login, text)}", status_code=303)

    async def home(self, request: Request, message: str | None = None, skipped: list[str] | None = None) -> Response:
        s = self.admin(request)
        host, accounts = self.site.host, self.site.accounts
        infos = await run_in_threadpool(host.challenges)
        phases = {c.name: await run_in_threadpool(host.phase, c.name) for c in infos}
        work = await run_in_threadpool(host.work)
        users = await run_in_threadpool(accounts.users)
        log = [(at, who, action, _(ACTION_WORDS[action]) if action in ACTION_WORDS else action, target, detail)
               for at, who, action, target, detail in await run_in_threadpool(accounts.admin_log, 200)]
        if message is None:
            message = self.said.get(s.user.login, request.query_params.get("done", ""))
        return self.site.page(request, "admin.html", challenges=infos, phases=phases, work=work, users=users,
                              log=log, message=message, skipped=skipped or [],
                              unclaimed=sum(1 for u in users if u.must_change))

    async def add_users(self, request: Request) -> Response:

        s = self.admin(request)
        form = await self.site.form(request, s.csrf, limit=MAX_ROSTER, max_files=1)
        try:
            upload = form.get("roster")
            if upload is None or isinstance(upload, str):
                raise _Refused(400, _("choose a roster (a CSV file) to upload"))
            data = await upload.read(MAX_ROSTER + 1)
            name = upload.filename or "roster.csv"
            generated: dict[str, str] | None = {} if form.get("generate") else None
        finally:
            await form.close()
        try:
            text = data.decode("utf-8-sig")
            added, skipped = await run_in_threadpool(
                lambda: self.site.accounts.add_csv(Path(name), text, generated=generated))
        except UnicodeDecodeError:
            raise _Refused(400, _("%(file)s: not UTF-8 text", file=name)) from None
        except AccountError as e:
            raise _Refused(400, str(e)) from None
        self._done(s, "add users", ", ".join(u.login for u in added), f"from {name}; {len(skipped)} skipped"
                   + ("; generated passwords" if generated is not None else ""))
        done = _("added %(added)s users, %(skipped)s skipped", added=len(added), skipped=len(skipped))
        if generated:
            return self._passwords(request, done, generated, skipped)
        if not skipped:
            return self._sent_on(s, "/admin", done)
        # Each skipped row with why, on the page itself (a list too long for a link).
        return await self.home(request, message=done, skipped=skipped)

    def _passwords(self, request: Request, done: str, passwords: dict[str, str],
                   skipped: list[str] | None = None) -> Response:
        """The generated first passwords, shown this once (never stored in the clear, never cached)."""
        return self.site.page(request, "admin_passwords.html", message=done, passwords=sorted(passwords.items()),
                              skipped=skipped or [], headers={"cache-control": "no-store"})

    async def user_action(self, request: Request) -> Response:

        s = self.admin(request)
        await self.site.form(request, s.csrf)
        login, action = request.path_params["login"], request.path_params["action"]
        if action not in USER_ACTIONS:
            raise _Refused(404, _("no such action %(action)s", action=repr(action)))
        if login == s.user.login and action in ("disable", "unadmin"):
            raise _Refused(400, _("an admin cannot disable or unmake themself here (use kothkit users)"))
        accounts = self.site.accounts
        try:
            if action in ("reset", "newpass"):
                given = await run_in_threadpool(
                    lambda: accounts.reset_password(login, generate_password() if action == "newpass" else None))
            elif action in ("disable", "enable"):
                await run_in_threadpool(accounts.set_disabled, login, action == "disable")
            else:
                await run_in_threadpool(accounts.set_admin, login, action == "admin")
        except AccountError as e:
            raise _Refused(400, str(e)) from None
        self._done(s, action, login)
        if action == "newpass":
            return self._passwords(request, _("reset the password of %(login)s", login=login), {login: given})
        done = {"reset": _("reset the password of %(login)s", login=login),
                "disable": _("disabled %(login)s", login=login), "enable": _("enabled %(login)s", login=login),
                "admin": _("made %(login)s an admin", login=login),
                "unadmin": _("%(login)s is no longer an admin", login=login)}[action]
        return self._sent_on(s, "/admin", done)

    async def challenge(self, request: Request) -> Response:
        s = self.admin(request)
        name = request.path_params["name"]
        info = self.site.challenge(name)
        subs = await run_in_threadpool(self.site.host.submissions, name, None)
        nicknames = await run_in_threadpool(self.site.accounts.nicknames)
        ids = await run_in_threadpool(self.site.names, name)
        message = self.said.get(s.user.login, request.query_params.get("done", ""))
        return self.site.page(request, "admin_challenge.html", c=info, subs=subs, nicknames=nicknames, ids=ids,
                              message=message)

    async def brain_action(self, request: Request) -> Response:

        s = self.admin(request)
        await self.site.form(request, s.csrf)
        name, action = request.path_params["name"], request.path_params["action"]
        self.site.challenge(name)
        if action not in BRAIN_ACTIONS:
            raise _Refused(404, _("no such action %(action)s", action=repr(action)))
        try:
            sid = int(request.path_params["sid"])
        except ValueError:
            raise _Refused(404, _("there is no such submission")) from None
        host = self.site.host
        do = {"rejudge": host.rejudge, "disable": host.disable, "enable": host.enable}[action]
        try:
            said = await run_in_threadpool(do, name, sid)
        except KeyError:
            raise _Refused(404, _("there is no such submission")) from None
        except SubmitError as e:
            raise _Refused(400, str(e)) from None
        # (logged as "enable brain": "enable" alone is an account's)
        self._done(s, "enable brain" if action == "enable" else action, f"{name} submission {sid}")
        return self._sent_on(s, f"/admin/c/{urllib.parse.quote(name)}", said)

    async def grades(self, request: Request) -> Response:
        """The grades CSV (a GET: it changes nothing and is not logged)."""
        self.admin(request)
        name = request.path_params["name"]
        self.site.challenge(name)
        text = await run_in_threadpool(self._grades, name)
        return Response(BOM + text, media_type="text/csv; charset=utf-8",
                        headers={"content-disposition": f'attachment; filename="{name}-grades.csv"',
                                 "cache-control": "no-store"})

    def _grades(self, name: str) -> str:
        """The Scoreboard's rows in its order, then every other student of the roster (no admin
        without a brain) with a note saying why they have no row of points."""
        host, accounts = self.site.host, self.site.accounts
        phase = host.phase(name)
        standings = host.standings(name)
        brains = host.brains(name)
        unit = points_unit(host.scoring(name))
        seated = host.seated(name)
        columns = (*GRADE_COLUMNS[:5], *TABLE_COLUMNS, *GRADE_COLUMNS[5:]) if seated else GRADE_COLUMNS
        users = {u.login: u for u in accounts.users()}
        roster = accounts.roster()
        extras: list[str] = []  # the roster's other columns, in their order, none twice
        for login in users:
            for k in roster.get(login, {}):
                if k not in extras and k.lower() not in columns:
                    extras.append(k)
        latest: dict[str, Any] = {}
        for sub in host.submissions(name):  # (newest first)
            latest.setdefault(sub.login, sub)
        final = "final" if phase.final else "provisional"
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\r\n")
        w.writerow([*columns[:2], *map(_cell, extras), *columns[2:]])

        def person(login: str) -> list[str]:
            u = users.get(login)
            extra = roster.get(login, {})
            return [_cell(login), _cell(u.nickname or "" if u else ""), *(_cell(extra.get(k, "")) for k in extras)]

        listed = set()
        for r in standings:
            brain_hash, sid, when = brains.get(r.bot, ("", "", r.latest))
            login = r.owner or r.bot
            listed.add(login)
            table = [_number(r.mean), _number(r.error), _number(r.skill), _number(r.skill_error)] if seated else []
            w.writerow([*person(login), r.rank, f"{r.points:g}", unit, *table, r.games, r.wins, r.draws, r.losses,
                        brain_hash, sid, _iso(when), final, ""])
        for login in sorted(set(users) - listed):
            u = users[login]
            sub = latest.get(login)
            if u.admin and sub is None:
                continue  # (the course's staff)
            if sub is None:
                note = _("no brain submitted")
            else:
                note = _("no brain in the standings (latest submission %(id)s: %(status)s)", id=sub.id,
                         status=status_label(sub.status))
            w.writerow([*person(login), "", "", unit, *[""] * (len(TABLE_COLUMNS) if seated else 0), "", "", "", "", "",
                        sub.id if sub else "",
                        _iso(sub.time) if sub else "", final, note])
        return buf.getvalue()

    async def source(self, request: Request) -> Response:
        """A submission's source as its author sent it: shown on a page, or downloaded (``?download=1``)."""
        self.admin(request)
        name = request.path_params["name"]
        info = self.site.challenge(name)
        try:
            sid = int(request.path_params["sid"])
            row, data = await run_in_threadpool(self.site.host.source, name, sid)
        except (ValueError, KeyError):
            raise _Refused(404, _("there is no such submission")) from None
        except SubmitError as e:
            raise _Refused(410, str(e)) from None
        if request.query_params.get("download"):
            return Response(data, media_type="application/octet-stream",
                            headers={"content-disposition": _attachment(row.filename, f"submission-{row.id}.txt"),
                                     "cache-control": "no-store", "x-content-type-options": "nosniff"})
        nicknames = await run_in_threadpool(self.site.accounts.nicknames)
        # (its status as the other pages show it: an active brain is playing or done)
        subs = await run_in_threadpool(self.site.host.submissions, name, row.login)
        row = next((x for x in subs if x.id == row.id), row)
        return self.site.page(request, "admin_source.html", c=info, sub=row, nickname=nicknames.get(row.login, ""),
                              text=data.decode("utf-8", errors="replace"),
                              sha256=hashlib.sha256(data).hexdigest())

    async def sources(self, request: Request) -> Response:
        """Every submission's source of a challenge in one zip, ``LOGIN/ID-FILE``, with ``index.csv``:
        each one's author, status and SHA-256, and the other authors' submissions with the same
        source, and with the same but for spacing (plagiarism hints)."""
        self.admin(request)
        name = request.path_params["name"]
        self.site.challenge(name)
        out = await run_in_threadpool(self._sources, name)

        def chunks():
            with out:
                out.seek(0)
                while chunk := out.read(1 << 20):
                    yield chunk

        return StreamingResponse(chunks(), media_type="application/zip",
                                 headers={"content-disposition": f'attachment; filename="{name}-sources.zip"',
                                          "cache-control": "no-store"})

    def _sources(self, name: str) -> Any:
        host = self.site.host
        nicknames = self.site.accounts.nicknames()
        rows: list[tuple[Any, str | None, str | None, str]] = []  # (submission, sha256, loose sha256, why not)
        out = tempfile.TemporaryFile()  # (a whole course's sources need not fit in memory)
        try:
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
                for sub in sorted(host.submissions(name), key=lambda x: x.id):
                    try:
                        _row, data = host.source(name, sub.id)
                    except (KeyError, SubmitError) as e:
                        rows.append((sub, None, None, str(e)))
                        continue
                    # The login and file name as the zip's folder and file: a student's own text, made safe.
                    # (A login is letters, digits and . _ @ -, but may be ".."; a file name has no slash.)
                    folder = re.sub(r"[^A-Za-z0-9_.@-]", "_", sub.login)
                    folder = folder if folder.strip(".") else f"_{folder}"
                    file = re.sub(r"[/\\\x00-\x1f]", "_", sub.filename)
                    z.writestr(f"{folder}/{sub.id}-{file}", data)
                    rows.append((sub, hashlib.sha256(data).hexdigest(),
                                 hashlib.sha256(re.sub(rb"\s+", b"", data)).hexdigest(), ""))
                by_hash: dict[str, list] = {}
                by_loose: dict[str, list] = {}
                for sub, exact, loose, _why in rows:
                    if exact is not None and loose is not None:
                        by_hash.setdefault(exact, []).append(sub)
                        by_loose.setdefault(loose, []).append(sub)

                def others(sub: Any, group: list) -> str:
                    return " ".join(f"{x.id}:{x.login}" for x in group if x.login != sub.login)

                buf = io.StringIO()
                w = csv.writer(buf, lineterminator="\r\n")
                w.writerow(SOURCE_COLUMNS)
                for sub, exact, loose, why in rows:
                    w.writerow([sub.id, _cell(sub.login), _cell(nicknames.get(sub.login, "")), _iso(sub.time),
                                sub.language, _cell(sub.filename), sub.status, sub.size, exact or _cell(why),
                                others(sub, by_hash[exact]) if exact else "",
                                others(sub, by_loose[loose]) if loose else ""])
                z.writestr("index.csv", BOM + buf.getvalue())
        except BaseException:
            out.close()
            raise
        return out

    async def report(self, request: Request) -> Response:
        s = self.admin(request)
        await (await self.site.form(request, s.csrf)).close()
        name = request.path_params["name"]
        self.site.challenge(name)

        def build() -> bytes | None:
            from kothkit.results.archive import ArchiveError, open_journal
            from kothkit.serve.publish import public_names, report_zip

            try:
                archive = open_journal(self.site.host.journal_of(name))
            except ArchiveError:  # (no game stored yet: the journal is not made)
                return None
            if not archive.records:
                return None
            # A folder challenge's bots keep their names (they are public), made one word the same way.
            return report_zip(archive, public_names(self.site.names(name), archive), f"{name}-report",
                              translated=True)

        with self._publish_lock:
            if name in self._publishing:
                raise _Refused(409, _("A report of %(challenge)s is being made: download it when that one is "
                                      "done.", challenge=name))
            self._publishing.add(name)
        try:
            data = await run_in_threadpool(build)
        finally:
            with self._publish_lock:
                self._publishing.discard(name)
        if data is None:
            raise _Refused(409, _("No game of %(challenge)s is stored yet: there is nothing to report.",
                                  challenge=name))
        self._done(s, "report download", name)
        return Response(data, media_type="application/zip",
                        headers={"content-disposition": f'attachment; filename="{name}-report.zip"',
                                 "cache-control": "no-store"})


def routes(site: Any, wrap) -> list[Route]:
    a = Admin(site)
    return [
        Route("/admin", wrap(a.home), methods=["GET"]),
        Route("/admin/users/add", wrap(a.add_users), methods=["POST"]),
        Route("/admin/users/{login}/{action}", wrap(a.user_action), methods=["POST"]),
        Route("/admin/c/{name}", wrap(a.challenge), methods=["GET"]),
        Route("/admin/c/{name}/grades.csv", wrap(a.grades), methods=["GET"]),
        Route("/admin/c/{name}/sources.zip", wrap(a.sources), methods=["GET"]),
        Route("/admin/c/{name}/{sid}/source", wrap(a.source), methods=["GET"]),
        Route("/admin/c/{name}/report.zip", wrap(a.report), methods=["POST"]),
        Route("/admin/c/{name}/{sid}/{action}", wrap(a.brain_action), methods=["POST"]),
    ]
