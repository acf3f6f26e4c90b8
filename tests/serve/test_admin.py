"""The admin's tools of ``kothkit serve``, on a real server over HTTP (and the admin page in Chromium):
only signed-in admins get them; users added from a roster upload, a password reset, an account
disabled and enabled, an admin made; every submission with its build output; a rejudge (the
brain's games played again) and a brain disabled (it leaves the standings); the grades CSV, which
matches the Scoreboard; and every action in the admin log with who and when."""

from __future__ import annotations

import csv
import getpass
import io
import re
import sqlite3
import time
from contextlib import closing

from tests.serve.webserver import (
    Server,
    brain,
    challenge,
    client,
    csrf_of,
    kothkit,
    ready_user,
    roster,
    sign_in,
    submit,
    user,
    wait_for,
)

NAME = "adm"


def _post(c, path: str, **kw):
    token = csrf_of(c.get("/admin").text)
    return c.post(path, data={"csrf": token}, **kw)


def _journal(state, sql: str, *args) -> list:
    with closing(sqlite3.connect(f"file:{state / 'journals' / (NAME + '.sqlite')}?mode=ro", uri=True)) as db:
        return db.execute(sql, args).fetchall()


def test_admin_tools_over_http(tmp_path):
    ch = challenge(tmp_path / NAME, min_interval=1)
    state = tmp_path / "state"
    roster(state, tmp_path, ["root", "ann", "bob"])
    assert kothkit("users", "admin", "root", "--state", state, cwd=tmp_path).returncode == 0
    server = Server([ch], state, tmp_path)
    try:
        for login, nick in (("ann", "Ann"), ("bob", "=HYPERLINK(\"x\")")):
            with user(server, login, nick) as c:
                assert submit(c, NAME, brain(login)).status_code == 303
        with client(server) as anon, user(server, "ann", "Ann") as ann:
            r = anon.get("/admin", follow_redirects=False)
            assert r.status_code == 303 and r.headers["location"].startswith("/login")
            assert ann.get("/admin").status_code == 403
            assert ann.get(f"/admin/c/{NAME}/grades.csv").status_code == 403
            r = ann.post("/admin/users/bob/disable", data={"csrf": csrf_of(ann.get("/account").text)})
            assert r.status_code == 403

        with user(server, "root", "Root") as root:
            def done():
                text = root.get(f"/admin/c/{NAME}").text
                return re.findall(r'data-status="([a-z-]+)"', text) == ["done", "done"] and text

            text = wait_for(done, 240, every=0.3, message="both brains done")
            # Every submission, with its author's login and its build output.
            assert ">ann<" in text and ">bob<" in text
            sids = re.findall(r'<tr data-id="(\d+)"', text)
            for sid in sids:
                assert root.get(f"/c/{NAME}/submission/{sid}").status_code == 200
            home = root.get("/admin").text
            assert 'data-phase="open"' in home and 'id="slots"' in home and 'id="work"' in home

            # The grades CSV matches the Scoreboard, row by row.
            r = root.get(f"/admin/c/{NAME}/grades.csv")
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
            assert r.content.startswith("\ufeff".encode())  # (Excel reads UTF-8 so)
            grades = list(csv.DictReader(io.StringIO(r.content.decode("utf-8-sig"))))
            board = root.get(f"/c/{NAME}/standings.json").json()["rows"]
            # (a nickname a spreadsheet would read as a formula is quoted)
            assert [g["nickname"] for g in grades] == [("'" if b["name"][0] == "=" else "") + b["name"] for b in board]
            assert "'=HYPERLINK(\"x\")" in [g["nickname"] for g in grades]
            for g, b in zip(grades, board):
                assert (int(g["rank"]), g["points"], int(g["games"]), int(g["wins"]), int(g["draws"]),
                        int(g["losses"])) == (b["rank"], b["points"], b["games"], b["wins"], b["draws"], b["losses"])
                assert re.fullmatch(r"[0-9a-f]{8,}", g["brain_hash"]) and g["standings"] == "provisional"
                assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", g["submitted"])
            assert sorted(g["login"] for g in grades) == ["ann", "bob"]

            # Users: a roster upload adds them; reset, disable, enable, make admin.
            r = _post(root, "/admin/users/add", files={"roster": ("roster2.csv", b"login\ncarl\ndora\nann\n", "text/csv")})
            assert r.status_code == 200 and "added 2 users, 1 skipped" in r.text
            assert "roster2.csv:4: ann exists already" in r.text
            with client(server) as carl:
                ready_user(carl, "carl", "Carl")
            with user(server, "bob", "Bob") as bob:
                assert _post(root, "/admin/users/bob/reset").status_code == 303
                assert bob.get("/account", follow_redirects=False).status_code == 303  # its session ended
                r = sign_in(bob, "bob", "bob")  # the first password again, and a forced change
                assert r.status_code == 303 and r.headers["location"] == "/account"
            assert _post(root, "/admin/users/dora/disable").status_code == 303
            with client(server) as dora:
                assert sign_in(dora, "dora", "dora").status_code == 403  # (told: the account is disabled)
                assert _post(root, "/admin/users/dora/enable").status_code == 303
                assert sign_in(dora, "dora", "dora").status_code == 303
            assert _post(root, "/admin/users/carl/admin").status_code == 303
            with user(server, "carl", "Carl") as carl:
                assert carl.get("/admin").status_code == 200
            assert _post(root, "/admin/users/root/disable").status_code == 400  # not oneself
            assert _post(root, "/admin/users/nobody/reset").status_code == 400

            # A rejudge: ann's games are played again (stored anew), and counted once.
            ann_sid = re.search(r'<tr data-id="(\d+)"[^>]*><td>\d+</td><td>ann</td>', text).group(1)
            before = dict(_journal(state, "SELECT id, finished_at FROM games"))
            r = _post(root, f"/admin/c/{NAME}/{ann_sid}/rejudge")
            assert r.status_code == 303, r.text[-1000:]

            def replayed():
                now = dict(_journal(state, "SELECT id, finished_at FROM games"))
                rows = root.get(f"/c/{NAME}/standings.json").json()["rows"]
                return (now.keys() == before.keys() and all(now[g] > before[g] for g in before)
                        and sorted(r["games"] for r in rows) == [2, 2])

            wait_for(replayed, 240, every=0.3, message="ann's games played again")

            # A brain disabled leaves the standings.
            bob_sid = re.search(r'<tr data-id="(\d+)"[^>]*><td>\d+</td><td>bob</td>', text).group(1)
            assert _post(root, f"/admin/c/{NAME}/{bob_sid}/disable").status_code == 303
            wait_for(lambda: [r["name"] for r in root.get(f"/c/{NAME}/standings.json").json()["rows"]] == ["Ann"],
                     60, message="bob's brain out of the standings")
            assert f'data-id="{bob_sid}" data-status="disabled"' in root.get(f"/admin/c/{NAME}").text

            # Every action in the admin log: who, what, on whom, when.
            log = root.get("/admin").text
            for action, target in (("add users", "carl, dora"), ("reset", "bob"), ("disable", "dora"),
                                   ("enable", "dora"), ("admin", "carl"), ("rejudge", f"submission {ann_sid}"),
                                   ("disable", f"submission {bob_sid}")):
                assert re.search(rf'<td>root</td><td data-action="{action}">[^<]*</td><td>[^<]*{target}', log), (action, target)
            # ... in the reader's language, as every page's words are.
            assert 'data-action="grades export"' not in log  # (a download is no action: a GET changes nothing)
            zh = root.get("/admin", headers={"Accept-Language": "zh-CN"}).text
            assert '<td data-action="reset">重置密码</td>' in zh and '<td data-action="add users">添加用户</td>' in zh
        with closing(sqlite3.connect(state / "host.sqlite")) as db:
            rows = db.execute("SELECT at, admin, action FROM admin_log").fetchall()
        # (the roster and the admin right given with `kothkit users` first, by the machine's user)
        assert [r[1:] for r in rows[:2]] == [("cli:" + getpass.getuser(), "add users"),
                                              ("cli:" + getpass.getuser(), "admin")]
        assert len(rows) >= 9 and all(r[1] == "root" for r in rows[2:])
        assert all(0 < time.time() - r[0] < 3600 for r in rows)
        assert "admin: root rejudge" in server.text  # and in the server's output
    finally:
        assert server.stop() == 0, server.text


def test_admin_page_and_first_sign_in_in_a_browser(browser, tmp_path):
    ch = challenge(tmp_path / NAME)
    state = tmp_path / "state"
    roster(state, tmp_path, ["root", "eve"])
    assert kothkit("users", "admin", "root", "--state", state, cwd=tmp_path).returncode == 0
    server = Server([ch], state, tmp_path)
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        # The first sign-in, from the admin page: a taken nickname changes nothing, then back to /admin.
        page.goto(f"{server.url}/admin")
        page.fill("#login", "root")
        page.fill("#password", "root")
        page.click("#signin-button")
        page.wait_for_url("**/account?next=/admin")
        page.fill("#old", "root")
        page.fill("#new", "a fine admin password")
        page.fill("#again", "a fine admin password")
        page.fill("#nickname", "eve")  # another user's login
        page.click("#save")
        assert "nothing was changed" in page.text_content("#message")
        page.fill("#old", "root")
        page.fill("#new", "a fine admin password")
        page.fill("#again", "a fine admin password")
        page.fill("#nickname", "The TA")
        page.click("#save")
        page.wait_for_url(f"{server.url}/admin")
        assert "Saved" in page.text_content("#flash")

        # A roster upload, then a reset from the users' table.
        page.set_input_files("#roster", {"name": "more.csv", "mimeType": "text/csv", "buffer": b"login\nfay\n"})
        page.click("#roster-add")
        page.wait_for_url("**/admin?done=*")
        assert page.locator('#users tr[data-login="fay"]').count() == 1
        # A destructive button asks first: declined, nothing is done; accepted, it is.
        asked: list[str] = []

        def answer(dialog) -> None:
            asked.append(dialog.message)
            (dialog.accept if len(asked) > 1 else dialog.dismiss)()

        page.on("dialog", answer)
        where = page.url
        page.click('#users tr[data-login="eve"] button[data-action="disable"]')
        assert asked and page.url == where
        page.goto(f"{server.url}/admin")
        assert "disabled" not in page.text_content('#users tr[data-login="eve"] td.state')
        page.click('#users tr[data-login="eve"] button[data-action="disable"]')
        page.wait_for_url(lambda url: "done=" in url and url != where)
        assert "disabled eve" in page.text_content("#done")
        assert asked == ["Disable the account eve? They can no longer sign in."] * 2
        assert "disabled" in page.text_content('#users tr[data-login="eve"] td.state')
        # The two actions here, and the two `kothkit users` commands before.
        assert page.locator("#admin-log tbody tr").count() == 4
        assert page.locator("#admin-log tbody tr", has_text="cli:").count() == 2
        assert page.locator('#admin-challenges tr[data-phase="open"]').count() == 1
    finally:
        page.close()
        assert server.stop() == 0, server.text
    assert not errors, errors
