"""The TA's gradebook and tools (issue 36, item 3), on a real server over HTTP: the grades CSV has a
row for every student of the roster (one without a brain says so), states what its points count,
is UTF-8 with a byte order mark (Excel in Chinese reads it right) and keeps the roster's other
columns (a real name); a GET of it, even from another site, changes nothing and writes no log line
(issue 42); each submission's source is shown (escaped) and downloaded by admins only, and every
source of a challenge comes in one zip whose index points out identical sources; a disabled brain
is enabled again and plays; the web roster upload names each skipped row and why, and refuses a
roster whose nickname is another student's login; a disabled account is told so at sign-in."""

from __future__ import annotations

import csv
import io
import re
import sqlite3
import zipfile
from contextlib import closing

from tests.serve.webserver import (
    Server,
    brain,
    challenge,
    client,
    csrf_of,
    kothkit,
    roster,
    sign_in,
    submit,
    user,
    wait_for,
)

NAME = "tb"
PASSWORD = "a-new-password"


def _post(c, path: str, **kw):
    return c.post(path, data={"csrf": csrf_of(c.get("/admin").text)}, **kw)


def _log_rows(state) -> int:
    with closing(sqlite3.connect(f"file:{state / 'host.sqlite'}?mode=ro", uri=True, timeout=30)) as db:
        return int(db.execute("SELECT count(*) FROM admin_log").fetchone()[0])


def _grades(root) -> tuple[list[dict], bytes]:
    r = root.get(f"/admin/c/{NAME}/grades.csv")
    assert r.status_code == 200 and r.headers["content-type"] == "text/csv; charset=utf-8"
    return list(csv.DictReader(io.StringIO(r.content.decode("utf-8-sig")))), r.content


def test_the_tas_gradebook_and_tools(tmp_path):
    ch = challenge(tmp_path / NAME, min_interval=0)
    state = tmp_path / "state"
    roster(state, tmp_path, ["root"])
    # The course's roster, with a real-name column and a class column that the grades keep.
    (tmp_path / "class.csv").write_text("student_id,姓名,class\nann,张三,A\nbob,李四,A\ncyd,王五,B\n",
                                        encoding="utf-8-sig")
    assert kothkit("users", "add", tmp_path / "class.csv", "--state", state, cwd=tmp_path).returncode == 0
    assert kothkit("users", "admin", "root", "--state", state, cwd=tmp_path).returncode == 0
    server = Server([ch], state, tmp_path)
    try:
        same = brain("copy")  # ann's and bob's brains are the same source; cyd submits none
        tricky = b"/* </pre><script>alert(1)</script> */\n" + brain("dee")
        for login, source, filename in (("ann", same, "ann.c"), ("bob", same, "<b>bob<i>.c")):
            with user(server, login, f"nick-{login}", PASSWORD) as c:
                assert submit(c, NAME, source, filename=filename).status_code == 303
        with user(server, "root", "Root", PASSWORD) as root, user(server, "cyd", "Cyd", PASSWORD) as cyd, \
                client(server) as anon:
            def done():
                text = root.get(f"/admin/c/{NAME}").text
                return re.findall(r'data-status="([a-z-]+)"', text) == ["done", "done"] and text

            text = wait_for(done, 240, every=0.3, message="both brains done")
            sids = {login: sid for sid, login in re.findall(r'<tr data-id="(\d+)"[^>]*><td>\d+</td><td>(\w+)</td>', text)}

            # The grades: every student, the units, UTF-8 with a BOM, the roster's other columns.
            before = _log_rows(state)
            grades, raw = _grades(root)
            assert raw.startswith("\ufeff".encode())
            # (a two-seat challenge's columns: no mean or rating, which a table challenge's have)
            assert list(grades[0]) == ["login", "nickname", "姓名", "class", "rank", "points", "points_unit", "games",
                                       "wins", "draws", "losses", "brain_hash", "submission", "submitted",
                                       "standings", "note"]
            by = {g["login"]: g for g in grades}
            assert sorted(by) == ["ann", "bob", "cyd"]  # (root: staff without a brain)
            assert by["ann"]["姓名"] == "张三" and by["cyd"]["class"] == "B"
            assert by["ann"]["rank"] and by["ann"]["note"] == "" and by["ann"]["submission"] == sids["ann"]
            assert by["cyd"]["rank"] == "" and by["cyd"]["note"] == "no brain submitted"
            assert all("count games" in g["points_unit"] for g in grades)
            assert by["ann"]["points_unit"].startswith("match points: 3 a match won")  # (the course's judge)
            zh = root.get(f"/admin/c/{NAME}/grades.csv", headers={"Accept-Language": "zh-CN"}).content.decode("utf-8-sig")
            assert "未提交程序" in zh and "张三" in zh
            # A GET from another site's link: the file, and no line in the admin log (nothing changed).
            r = root.get(f"/admin/c/{NAME}/grades.csv", headers={"sec-fetch-site": "cross-site",
                                                                 "origin": "https://evil.example",
                                                                 "referer": "https://evil.example/"})
            assert r.status_code == 200
            assert _log_rows(state) == before

            # A submission's source: shown escaped, downloaded as sent; for admins only.
            page = root.get(f"/admin/c/{NAME}/{sids['bob']}/source")
            assert page.status_code == 200
            assert "&lt;b&gt;bob&lt;i&gt;.c" in page.text and "<b>bob" not in page.text
            assert "#define NAME &#34;copy&#34;" in page.text or "#define NAME &quot;copy&quot;" in page.text
            down = root.get(f"/admin/c/{NAME}/{sids['bob']}/source?download=1")
            assert down.content == same and "attachment" in down.headers["content-disposition"]
            assert "%3Cb%3Ebob%3Ci%3E.c" in down.headers["content-disposition"]
            for path in (f"/admin/c/{NAME}/{sids['bob']}/source", f"/admin/c/{NAME}/{sids['bob']}/source?download=1",
                         f"/admin/c/{NAME}/sources.zip"):
                assert cyd.get(path).status_code == 403, path
                r = anon.get(path, follow_redirects=False)
                assert r.status_code == 303 and r.headers["location"].startswith("/login"), path
            assert f'href="/admin/c/{NAME}/{sids["bob"]}/source"' in root.get(f"/c/{NAME}/submission/{sids['bob']}").text
            with user(server, "bob", "nick-bob", PASSWORD) as bob:
                assert "/source" not in bob.get(f"/c/{NAME}/submission/{sids['bob']}").text
            assert root.get(f"/admin/c/{NAME}/99999/source").status_code == 404
            assert root.get(f"/admin/c/{NAME}/x/source").status_code == 404

            # cyd's source has markup in it: shown as text.
            assert submit(cyd, NAME, tricky).status_code == 303
            cyd_sid = wait_for(lambda: re.findall(r'<tr data-id="(\d+)"[^>]*><td>\d+</td><td>cyd</td>',
                                                  root.get(f"/admin/c/{NAME}").text), 30, message="cyd's row")[0]
            page = root.get(f"/admin/c/{NAME}/{cyd_sid}/source").text
            assert "<script>alert(1)" not in page and "&lt;/pre&gt;&lt;script&gt;alert(1)" in page

            # Every source at once, with the identical ones pointed out.
            r = root.get(f"/admin/c/{NAME}/sources.zip")
            assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
            z = zipfile.ZipFile(io.BytesIO(r.content))
            names = set(z.namelist())
            assert {f"ann/{sids['ann']}-ann.c", f"bob/{sids['bob']}-<b>bob<i>.c", "index.csv"} <= names
            assert z.read(f"ann/{sids['ann']}-ann.c") == same
            index = {row["login"]: row for row in csv.DictReader(io.StringIO(z.read("index.csv").decode("utf-8-sig")))}
            assert index["ann"]["same_source_as"] == f"{sids['bob']}:bob"
            assert index["bob"]["same_source_as"] == f"{sids['ann']}:ann"
            assert index["cyd"]["same_source_as"] == "" and re.fullmatch(r"[0-9a-f]{64}", index["cyd"]["sha256"])
            assert _log_rows(state) == before  # (reading changes nothing)

            # A disabled brain leaves the standings, and comes back once enabled; the buttons ask first.
            page = root.get(f"/admin/c/{NAME}").text
            assert 'data-confirm="Disable submission' in page and 'data-confirm="Rejudge submission' in page
            assert _post(root, f"/admin/c/{NAME}/{sids['bob']}/disable").status_code == 303
            wait_for(lambda: "nick-bob" not in [r["name"] for r in root.get(f"/c/{NAME}/standings.json").json()["rows"]],
                     60, message="bob's brain out")
            page = root.get(f"/admin/c/{NAME}").text
            row = re.search(rf'<tr data-id="{sids["bob"]}".*?</tr>', page, re.S).group(0)
            assert 'data-action="enable"' in row and 'data-action="disable"' not in row
            assert _post(root, f"/admin/c/{NAME}/{sids['ann']}/enable").status_code == 400  # (not disabled)
            assert cyd.post(f"/admin/c/{NAME}/{sids['bob']}/enable",
                            data={"csrf": csrf_of(cyd.get("/account").text)}).status_code == 403
            assert root.post(f"/admin/c/{NAME}/{sids['bob']}/enable", data={"csrf": "forged"}).status_code == 403
            r = _post(root, f"/admin/c/{NAME}/{sids['bob']}/enable")
            assert r.status_code == 303, r.text[-1000:]
            wait_for(lambda: "nick-bob" in [r["name"] for r in root.get(f"/c/{NAME}/standings.json").json()["rows"]],
                     120, message="bob's brain back")
            assert f'data-id="{sids["bob"]}" data-status="disabled"' not in root.get(f"/admin/c/{NAME}").text
            assert '<td data-action="enable brain">' in root.get("/admin").text

            # The roster upload: each skipped row named with why; a nickname that is a login refused whole.
            r = _post(root, "/admin/users/add",
                      files={"roster": ("more.csv", "login,nickname,姓名\neve,Eve,赵六\nann,,\nbob,,\n".encode(), "text/csv")})
            assert r.status_code == 200, r.text[-2000:]
            skipped = re.search(r'<ul id="skipped">(.*?)</ul>', r.text, re.S).group(1)
            assert "more.csv:3: ann exists already" in skipped and "more.csv:4: bob exists already" in skipped
            assert "added 1 users, 2 skipped" in r.text
            for rows, line in (("login,nickname\nfay,ann\n", 2), ("login,nickname\ngus,hal\nhal,Hal\n", 2),
                               ("login,nickname\nivy,Ivy\njon,ivy\n", 3), ("login,nickname\nkim,K\nlee,k\n", 3)):
                r = _post(root, "/admin/users/add", files={"roster": ("bad.csv", rows.encode(), "text/csv")})
                assert r.status_code == 400 and f"bad.csv:{line}: the nickname" in r.text, (rows, r.text[-1500:])
            users = kothkit("users", "list", "--state", state, cwd=tmp_path).stdout
            assert "eve" in users and not re.search(r"^(fay|gus|hal|ivy|jon|kim|lee) ", users, re.M), users
            grades, _raw = _grades(root)
            assert {g["login"]: g["姓名"] for g in grades}["eve"] == "赵六"

            # A disabled account is told so (with its right password only).
            assert _post(root, "/admin/users/cyd/disable").status_code == 303
            with client(server) as c:
                r = sign_in(c, "cyd", PASSWORD)
                assert r.status_code == 403 and "this account is disabled" in r.text
                r = sign_in(c, "cyd", "not-the-password")
                assert r.status_code == 401 and "wrong login or password" in r.text
                page = c.get("/login", headers={"Accept-Language": "zh-CN"})
                r = c.post("/login", data={"csrf": csrf_of(page.text), "login": "cyd", "password": PASSWORD,
                                           "next": "/"}, headers={"Accept-Language": "zh-CN"})
                assert r.status_code == 403 and "此账号已停用" in r.text
    finally:
        assert server.stop() == 0, server.text
