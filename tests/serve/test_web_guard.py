"""Issue 42's attacks on ``kothkit serve``'s accounts and web handling, over real HTTP and raw sockets
on one real server (the command, on a free port) with a roster, real builds (gcc) and real games.

- Public hashes: a student who submitted the public template could be found by their student
  number, trying the roster's numbers against the content hashes on the public replay pages
  (the hash covered the bot.toml the host wrote, which held the login).  The attack is done here
  on every public page and on the report a TA publishes, and finds nobody.
- Weak new passwords are refused (zxcvbn), in the visitor's language.
- Generated first passwords (the admin's roster upload and reset), shown once; unclaimed accounts
  are shown to the admin.
- ``/admin?done=`` shows only messages the server kept for that admin, never a link's text.
- A state-changing admin action is refused as a GET.
- A request body sent slowly is cut off at the body deadline (408).
- Moves posted to a finished Play game are refused (they were queued for ever).
- Disk quotas: a source of a few bytes whose build leaves a binary over ``keep_file_mb`` fails and
  keeps its source only; an author's submissions cannot keep more than ``keep_mb``.
"""

from __future__ import annotations

import io
import re
import socket
import tempfile
import time
import zipfile
from pathlib import Path

import httpx
import pytest

from tests.serve.webserver import Server, brain, challenge, client, csrf_of, kothkit, roster, sign_in, submit, user, wait_for

NAME = "g12"
#: A challenge whose authors may keep 1 MiB, and a brain's files 1 MiB each.
TIGHT = "tight"
#: The public template: the source a course hands out, which some students submit as it is.
TEMPLATE = brain("template")
VICTIM = "20240008"
ROSTER = ["20240001", "20240002", VICTIM, "20240011", "carol", "root"]
BODY_TIMEOUT = 3


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The server; the victim with the template as their brain, 20240001 with another, both played."""
    d = tmp_path_factory.mktemp("guard")
    ch = challenge(d / NAME, min_interval=0)
    tight = challenge(d / TIGHT, min_interval=0)
    with open(tight / "kothkit.toml", "a") as f:  # ([serve] is the file's last table)
        f.write("keep_mb = 1\nkeep_file_mb = 1\n")
    state = d / "state"
    roster(state, d, ROSTER)
    r = kothkit("users", "admin", "root", "--state", state, cwd=d)
    assert r.returncode == 0, r.stderr
    server = Server([ch, tight], state, d, args=("--body-timeout", str(BODY_TIMEOUT)))
    try:
        for login, source in ((VICTIM, TEMPLATE), ("20240001", brain("other"))):
            with user(server, login, f"Nick {login[-2:]}", password="correct horse battery") as c:
                r = submit(c, NAME, source)
                assert r.status_code == 303, r.text[-2000:]
        with client(server) as c:
            wait_for(lambda: len([s for s in c.get(f"/c/{NAME}/standings.json").json()["rows"] if s["games"] > 0]) == 2,
                     240, message="both brains on the Scoreboard with games")
        yield server, state, d
    finally:
        assert server.stop() == 0, server.text


def _crawl(c: httpx.Client, start: str) -> dict[str, str]:
    """Every page of the site reachable from ``start`` by links (GET), by path: its text."""
    pages: dict[str, str] = {}
    todo = [start]
    while todo and len(pages) < 300:
        path = todo.pop()
        if path in pages:
            continue
        r = c.get(path)
        pages[path] = r.text if r.status_code == 200 else ""
        for link in re.findall(r'href="(/[^"#]*)"', r.text):
            link = link.replace("&amp;", "&")
            if link not in pages and not link.startswith(("/static", "/lang", "/logout", "/login")):
                todo.append(link)
    return pages


def _hashes_tried(folder: Path, template: bytes, logins: list[str]) -> dict[str, str]:
    """The attack: the content hash of the template submitted by each login, in each language the
    challenge ``folder`` offers, as the host made it before (bot.toml naming the bot by the login)."""
    from kothkit.bots.folders import content_hash
    from kothkit.serve.settings import load
    from kothkit.serve.submissions import bot_toml

    tried = {}
    with tempfile.TemporaryDirectory() as tmp:
        for login in logins:
            for lang in load(folder).languages:
                bot = Path(tmp) / f"{login}-{lang.id}"
                bot.mkdir()
                (bot / lang.file).write_bytes(template)
                (bot / "bot.toml").write_text(bot_toml(login, lang))
                tried[content_hash(bot, [lang.file, "bot.toml"])] = login
    return tried


def test_no_public_hash_gives_a_student_number_away(site):
    """The attack of the review: for each public hash, the template's hash under each number of the
    roster's range (3 guesses each, one a language).  Before, the victim's number came out."""
    server, state, d = site
    tried = _hashes_tried(d / NAME, TEMPLATE, [f"202400{k:02d}" for k in range(20)])
    assert len(tried) >= 20
    with client(server) as anon:
        pages = _crawl(anon, f"/c/{NAME}/")
    texts = list(pages.values())
    assert any("/replay" in p for p in pages), sorted(pages)
    # The report a TA publishes (its replay pages embed each game's document, hashes and all).
    with user(server, "root", "Root", password="correct horse battery") as admin:
        r = admin.post(f"/admin/c/{NAME}/report.zip", data={"csrf": csrf_of(admin.get("/admin").text)})
        assert r.status_code == 200, r.text[-1000:]
        with zipfile.ZipFile(io.BytesIO(r.content)) as z:
            texts += [z.read(n).decode("utf-8", "replace") for n in z.namelist()]
    found = {h for t in texts for h in re.findall(r"[0-9a-f]{32,64}", t)}
    assert any(len(h) == 64 for h in found), "no content hash on the public pages: the attack tested nothing"
    recovered = {tried[h] for h in found if h in tried}
    assert not recovered, f"student numbers recovered from public hashes: {recovered}"
    assert not any(VICTIM in t for t in texts)
    # Nor is the login a bot's name in the journal (the game ids are hashes of the bots' names).
    journal = state / "journals" / f"{NAME}.sqlite"
    assert VICTIM.encode() not in journal.read_bytes()


def test_the_author_still_reaches_their_bot_by_login(site):
    server, _, _ = site
    with user(server, VICTIM, password="correct horse battery") as c:
        r = c.get(f"/c/{NAME}/bot/{VICTIM}")
        assert r.status_code == 303 and re.fullmatch(rf"/c/{NAME}/bot/b[0-9a-f]{{16}}", r.headers["location"])
    with client(server) as other:
        assert other.get(f"/c/{NAME}/bot/{VICTIM}").status_code == 404


@pytest.mark.parametrize("weak", ["qwertyui", "123123123", "Passw0rd!", "20240011x"])
def test_weak_new_passwords_are_refused_in_the_visitors_language(site, weak):
    server, _, _ = site
    with client(server) as c:
        assert sign_in(c, "20240011", "20240011").status_code == 303
        page = c.get("/account")
        r = c.post("/account", data={"csrf": csrf_of(page.text), "old": "20240011", "new": weak, "again": weak,
                                     "nickname": "Nick 11"})
        assert r.status_code == 400 and "too easy to guess" in r.text, r.text[-1500:]
        zh = c.post("/account", headers={"accept-language": "zh-CN"},
                    data={"csrf": csrf_of(page.text), "old": "20240011", "new": weak, "again": weak,
                          "nickname": "Nick 11"})
        assert zh.status_code == 400 and "太容易猜" in zh.text, zh.text[-1500:]
        # Still unclaimed: the first password works.
    with client(server) as c:
        assert sign_in(c, "20240011", "20240011").status_code == 303


def test_the_admin_sees_unclaimed_accounts_and_hands_out_generated_passwords(site):
    server, _, _ = site
    with user(server, "root", "Root", password="correct horse battery") as admin:
        home = admin.get("/admin").text
        assert re.search(r'data-login="carol">.*?first password \(unclaimed\)', home, re.S)
        assert 'id="unclaimed"' in home
        # A roster with generated first passwords: shown once, and the login is not one of them.
        r = admin.post("/admin/users/add", data={"csrf": csrf_of(home), "generate": "1"},
                       files={"roster": ("roster.csv", b"login\ndan\nerin\n", "text/csv")})
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store", r.text[-1500:]
        given = dict(re.findall(r"<tr><td>(\w+)</td><td><code>([a-z0-9-]+)</code>", r.text))
        assert set(given) == {"dan", "erin"}
        # A reset to a generated password.
        r = admin.post("/admin/users/carol/newpass", data={"csrf": csrf_of(home)})
        assert r.status_code == 200, r.text[-1500:]
        given.update(re.findall(r"<tr><td>(\w+)</td><td><code>([a-z0-9-]+)</code>", r.text))
    for login, password in given.items():
        with client(server) as c:
            assert sign_in(c, login, login).status_code == 401
            r = sign_in(c, login, password)
            assert r.status_code == 303 and r.headers["location"] == "/account"


def test_users_add_generates_passwords_on_the_command_line(tmp_path):
    state = tmp_path / "state"
    from tests.serve.webserver import cheap_state
    cheap_state(state)
    (tmp_path / "r.csv").write_text("login,password\n20250001,\n20250002,given-by-the-ta-1\n")
    r = kothkit("users", "add", tmp_path / "r.csv", "--generate-passwords", "--state", state, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = dict(line.split(",") for line in r.stdout.splitlines() if line.startswith("2025"))
    assert list(rows) == ["20250001"] and re.fullmatch(r"[a-z2-9]{5}-[a-z2-9]{5}-[a-z2-9]{5}", rows["20250001"])
    from kothkit.serve.accounts import Accounts
    a = Accounts(state)
    try:
        assert a.sign_in("20250001", rows["20250001"], "x") is not None
        assert a.sign_in("20250001", "20250001", "x") is None
        assert a.sign_in("20250002", "given-by-the-ta-1", "x") is not None
    finally:
        a.close()
    r = kothkit("users", "reset", "20250002", "--generate-password", "--state", state, cwd=tmp_path)
    assert r.returncode == 0 and re.search(r"20250002: first password [a-z2-9-]{17}$", r.stdout, re.M), r.stdout
    listed = kothkit("users", "list", "--state", state, cwd=tmp_path).stdout
    assert listed.count("unclaimed") == 2, listed


def test_admin_done_shows_no_text_of_a_link(site):
    server, _, _ = site
    lure = "Your account is locked: mail your password to evil@example.com"
    with user(server, "root", "Root", password="correct horse battery") as admin:
        for path in ("/admin", f"/admin/c/{NAME}"):
            page = admin.get(path, params={"done": lure}).text
            assert "evil@example.com" not in page and 'id="done"' not in page
        # A real action's message is shown (by the id the server gave it), to that admin only.
        r = admin.post("/admin/users/20240002/disable", data={"csrf": csrf_of(admin.get("/admin").text)})
        assert r.status_code == 303 and re.fullmatch(r"/admin\?done=[\w-]+", r.headers["location"])
        assert "disabled 20240002" in admin.get(r.headers["location"]).text
        r = admin.post("/admin/users/20240002/enable", data={"csrf": csrf_of(admin.get("/admin").text)})
        assert r.status_code == 303


def test_admin_actions_are_refused_as_a_get(site):
    server, _, _ = site
    with user(server, "root", "Root", password="correct horse battery") as admin:
        for path in ("/admin/users/20240002/disable", "/admin/users/20240002/newpass", "/admin/users/add",
                     f"/admin/c/{NAME}/1/disable", f"/admin/c/{NAME}/report.zip"):
            assert admin.get(path).status_code == 405, path
        assert 'data-login="20240002"' in admin.get("/admin").text
    with client(server) as c:  # (still not disabled, and still unclaimed)
        assert sign_in(c, "20240002", "20240002").status_code == 303


def _connect(server: Server) -> socket.socket:
    host, port = re.match(r"http://([\d.]+):(\d+)", server.url).groups()
    return socket.create_connection((host, int(port)), timeout=BODY_TIMEOUT + 20)


def test_a_body_sent_slowly_is_cut_off(site):
    server, _, _ = site
    s = _connect(server)
    try:
        body = b"csrf=x&login=a&password=" + b"b" * 200
        s.sendall(b"POST /login HTTP/1.1\r\nHost: " + server.url[7:].encode() + b"\r\nOrigin: " + server.url.encode()
                  + b"\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                  + str(len(body)).encode() + b"\r\n\r\n")
        got, sent = b"", 0
        for byte in body:  # a byte every 0.2 s: 45 s for all of it, were it allowed
            s.sendall(bytes([byte]))
            sent += 1
            time.sleep(0.2)
            s.setblocking(False)
            try:
                got += s.recv(65536)
            except BlockingIOError:
                pass
            finally:
                s.setblocking(True)
            if got:
                break
        while chunk := s.recv(65536):
            got += chunk
        assert got.startswith(b"HTTP/1.1 408"), got[:300]
        assert sent < len(body)  # (the answer came while the body was still coming, not after it)
    finally:
        s.close()


def test_moves_to_a_finished_play_game_are_refused(site):
    server, _, _ = site
    with user(server, "20240001", password="correct horse battery") as c:
        page = c.get(f"/c/{NAME}/play").text
        r = c.post(f"/c/{NAME}/play", data={"csrf": csrf_of(page), "opponent": "bundled:threat", "seat": "1"})
        assert r.status_code == 303, r.text[-1000:]
        live = r.headers["location"]
        token = csrf_of(c.get(live).text)
        assert c.post(f"{live}/quit", data={"csrf": token}).status_code == 200
        wait_for(lambda: c.get(f"{live}/state").json()["over"], 60, message="the game over")
        codes = [c.post(f"{live}/move", data={"csrf": token, "text": "x" * 4000}).status_code for _ in range(20)]
        assert codes == [409] * 20, codes


#: A few bytes of C whose binary is 4 MiB of data.
BIG_BINARY = b"char pad[4 << 20] = {1};\nint main(int c, char **v) { return pad[c]; }\n"


def _statuses(c: httpx.Client, name: str) -> dict[str, str]:
    return dict(re.findall(r'<tr data-id="(\d+)" data-status="([\w-]+)"', c.get(f"/c/{name}/mine").text))


def test_what_submissions_keep_on_disk_is_bounded(site):
    server, state, _ = site
    with user(server, "20240001", password="correct horse battery") as c:
        r = submit(c, TIGHT, BIG_BINARY)
        assert r.status_code == 303, r.text[-1500:]
        sid = r.headers["location"].rsplit("=", 1)[1]
        wait_for(lambda: _statuses(c, TIGHT).get(sid) == "build-failed", 120, message="the big build failed")
        out = c.get(f"/c/{TIGHT}/submission/{sid}").text
        assert "keep_file_mb" in out and "4 MiB" in out, out[-2000:]
        folder = next((state / "submissions" / TIGHT).glob(f"*/{sid}"))
        assert sorted(p.name for p in folder.iterdir()) == ["bot.toml", "brain.c"]
        # Sources that fill the author's 1 MiB: the next one is refused, nothing stored.
        padded = brain("padded") + b"/*" + b"x" * 700_000 + b"*/\n"
        assert submit(c, TIGHT, padded).status_code == 303
        before = set(_statuses(c, TIGHT))
        r = submit(c, TIGHT, padded)
        assert r.status_code == 400 and "MiB" in r.text and "1 MiB" in r.text, r.text[-1500:]
        # No submission added (the ids; the one before may go on from queued to building meanwhile).
        assert set(_statuses(c, TIGHT)) == before


def test_a_long_password_is_rated_by_its_start():
    """zxcvbn 4.5 refuses a password over 72 characters (a ValueError: it was a 500 on the account
    form): the host rates the first 72."""
    from kothkit.serve.accounts import AccountError, check_password

    check_password("20240008", "plum-orbit-velvet-canyon " * 8)  # 200 characters: fine
    with pytest.raises(AccountError, match="too easy to guess"):
        check_password("20240008", "a1" * 36 + "zebra-quartz-lantern-ocean")


def test_bot_names_are_keyed_and_an_old_states_authors_keep_theirs(tmp_path):
    """A new author's bot is an HMAC of the login under the state's key; an author of a state from
    before keeps the bot their brains had in that challenge (its games and standings stay theirs)."""
    import sqlite3

    from kothkit.serve.privacy import load_key
    from kothkit.serve.settings import ServeSettings
    from kothkit.serve.submissions import Store, keyed_bot_name

    settings = ServeSettings(kind="submissions", min_interval=0)
    store = Store(tmp_path / "state")
    try:
        old = store.add("c", settings, "20240001", "a.c", "c11", b"int main(void) { return 0; }\n", now=1.0)
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "state" / "host.sqlite") as db:  # as a state from before wrote it
        db.execute("UPDATE submissions SET bot = login WHERE id = ?", (old.id,))
    store = Store(tmp_path / "state")
    try:
        key = load_key(tmp_path / "state")
        again = store.add("c", settings, "20240001", "b.c", "c11", b"int main(void) { return 1; }\n", now=2.0)
        other = store.add("d", settings, "20240001", "b.c", "c11", b"int main(void) { return 1; }\n", now=3.0)
        new = store.add("c", settings, "20240002", "b.c", "c11", b"int main(void) { return 2; }\n", now=4.0)
    finally:
        store.close()
    assert again.bot == "20240001"
    assert other.bot == keyed_bot_name(key, "20240001") and new.bot == keyed_bot_name(key, "20240002")
    assert re.fullmatch(r"u[0-9a-f]{20}", new.bot)
    assert "20240002" not in (tmp_path / "state" / "submissions" / "c" / new.bot / str(new.id) / "bot.toml").read_text()
