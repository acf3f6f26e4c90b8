"""The admin's pages of ``kothkit serve`` (``/admin``): for signed-in admins only.

``/admin``: each challenge's phase, the work queue and the slots, the users (add a roster from a
CSV upload, reset a password, disable or enable, make or unmake an admin) and the log of admin
actions.  ``/admin/c/<name>``: every submission with its build output and its games (the logs),
to rejudge (its games played again) or disable (the brain leaves the standings);
``/admin/c/<name>/grades.csv``, the Scoreboard as a CSV with each author's login; and
``/admin/c/<name>/report.zip`` (a POST, as it is an action the log keeps), the report a TA may
publish (:mod:`kothkit.serve.publish`: bots by nickname, no logs, no stderr quotes).

Every action is a POST that passes the site's CSRF checks, and is kept in the ``admin_log`` table
(who, what, on whom, when) and printed on the server's output.
"""

from __future__ import annotations

import csv
import io
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from kothkit.serve.accounts import AccountError, Session
from kothkit.serve.errors import Refused as _Refused
from kothkit.serve.errors import SubmitError
from kothkit.serve.i18n import N_, _

#: Bytes of a roster upload.
MAX_ROSTER = 1 << 20
USER_ACTIONS = ("reset", "disable", "enable", "admin", "unadmin")
#: The log's actions (stored in English, as the log keeps them) in words, translated where shown.
ACTION_WORDS = {"add users": N_("add users"), "reset": N_("reset password"), "disable": N_("disable"),
                "enable": N_("enable"), "admin": N_("make admin"), "unadmin": N_("unmake admin"),
                "rejudge": N_("rejudge"), "grades export": N_("grades (CSV)"),
                "report download": N_("public report (zip)")}
BRAIN_ACTIONS = ("rejudge", "disable")
GRADE_COLUMNS = ("login", "nickname", "rank", "points", "games", "wins", "draws", "losses", "brain_hash",
                 "submission", "submitted", "standings")


def _cell(text: str) -> str:
    """A text cell of the grades CSV, never read as a formula by a spreadsheet (a nickname is the
    student's own text): one that would be starts with a quote."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _iso(t: float | None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t)) if t else ""


class Admin:
    """The admin routes over a :class:`~kothkit.serve.app.Site`."""

    def __init__(self, site: Any):  # the app's Site (kothkit.serve.app imports this module, not the reverse)
        self.site = site
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

    async def home(self, request: Request) -> Response:
        self.admin(request)
        host, accounts = self.site.host, self.site.accounts
        infos = await run_in_threadpool(host.challenges)
        phases = {c.name: await run_in_threadpool(host.phase, c.name) for c in infos}
        work = await run_in_threadpool(host.work)
        users = await run_in_threadpool(accounts.users)
        log = [(at, who, action, _(ACTION_WORDS[action]) if action in ACTION_WORDS else action, target, detail)
               for at, who, action, target, detail in await run_in_threadpool(accounts.admin_log, 200)]
        message = request.query_params.get("done", "")[:300]
        return self.site.page(request, "admin.html", challenges=infos, phases=phases, work=work, users=users,
                              log=log, message=message)

    async def add_users(self, request: Request) -> Response:

        s = self.admin(request)
        form = await self.site.form(request, s.csrf, limit=MAX_ROSTER, max_files=1)
        try:
            upload = form.get("roster")
            if upload is None or isinstance(upload, str):
                raise _Refused(400, _("choose a roster (a CSV file) to upload"))
            data = await upload.read(MAX_ROSTER + 1)
            name = upload.filename or "roster.csv"
        finally:
            await form.close()
        try:
            text = data.decode("utf-8-sig")
            added, skipped = await run_in_threadpool(self.site.accounts.add_csv, Path(name), text)
        except UnicodeDecodeError:
            raise _Refused(400, _("%(file)s: not UTF-8 text", file=name)) from None
        except AccountError as e:
            raise _Refused(400, str(e)) from None
        self._done(s, "add users", ", ".join(u.login for u in added), f"from {name}; {len(skipped)} skipped")
        done = _("added %(added)s users, %(skipped)s skipped", added=len(added), skipped=len(skipped))
        return RedirectResponse(f"/admin?done={urllib.parse.quote_plus(done)}", status_code=303)

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
            if action == "reset":
                await run_in_threadpool(accounts.reset_password, login, None)
            elif action in ("disable", "enable"):
                await run_in_threadpool(accounts.set_disabled, login, action == "disable")
            else:
                await run_in_threadpool(accounts.set_admin, login, action == "admin")
        except AccountError as e:
            raise _Refused(400, str(e)) from None
        self._done(s, action, login)
        done = {"reset": _("reset the password of %(login)s", login=login),
                "disable": _("disabled %(login)s", login=login), "enable": _("enabled %(login)s", login=login),
                "admin": _("made %(login)s an admin", login=login),
                "unadmin": _("%(login)s is no longer an admin", login=login)}[action]
        return RedirectResponse(f"/admin?done={urllib.parse.quote_plus(done)}", status_code=303)

    async def challenge(self, request: Request) -> Response:
        self.admin(request)
        name = request.path_params["name"]
        info = self.site.challenge(name)
        subs = await run_in_threadpool(self.site.host.submissions, name, None)
        nicknames = await run_in_threadpool(self.site.accounts.nicknames)
        ids = await run_in_threadpool(self.site.names, name)
        message = request.query_params.get("done", "")[:300]
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
        try:
            said = await run_in_threadpool(host.rejudge if action == "rejudge" else host.disable, name, sid)
        except SubmitError as e:
            raise _Refused(400, str(e)) from None
        self._done(s, action, f"{name} submission {sid}")
        return RedirectResponse(f"/admin/c/{name}?done={urllib.parse.quote_plus(said)}", status_code=303)

    async def grades(self, request: Request) -> Response:
        s = self.admin(request)
        name = request.path_params["name"]
        self.site.challenge(name)
        host = self.site.host

        def build() -> str:
            phase = host.phase(name)
            standings = host.standings(name)
            brains = host.brains(name)
            names = self.site.accounts.nicknames()
            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            w.writerow(GRADE_COLUMNS)
            for r in standings:
                brain_hash, sid, when = brains.get(r.bot, ("", "", r.latest))
                login = r.owner or r.bot
                w.writerow([_cell(login), _cell(names.get(login, "")), r.rank, f"{r.points:g}", r.games, r.wins,
                            r.draws, r.losses, brain_hash, sid, _iso(when), "final" if phase.final else "provisional"])
            return buf.getvalue()

        text = await run_in_threadpool(build)
        self._done(s, "grades export", name)
        return Response(text, media_type="text/csv; charset=utf-8",
                        headers={"content-disposition": f'attachment; filename="{name}-grades.csv"',
                                 "cache-control": "no-store"})

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
        Route("/admin/c/{name}/report.zip", wrap(a.report), methods=["POST"]),
        Route("/admin/c/{name}/{sid}/{action}", wrap(a.brain_action), methods=["POST"]),
    ]
