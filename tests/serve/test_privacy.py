"""Privacy on ``kothkit serve`` (issue 28, items 1 and 2), over real HTTP and in Chromium, against
one real server: a course's submissions challenge whose students log in with student numbers,
one of whose C brains writes a marker to stderr and then dies of SIGSEGV in every game, and a
folder challenge (public bots and logs) beside it.

An anonymous crawl, and crawls as another student and as the crashing brain's opponent, of every
page, JSON, event stream and download find no student's login and no marker a brain wrote on its
stderr or its DEBUG lines (but the visitor's own); a bot is its author's nickname, a URL names it by
an opaque id, and an old link by the login works for its owner only.  The crashing brain's author
reads the full reason (its stderr quote), the opponent and everyone else ``crash: killed by
SIGSEGV``; ``kothkit show`` on the host's journal still shows everything."""

from __future__ import annotations

import html
import io
import re
import shutil
import zipfile
from urllib.parse import urljoin, urlsplit

import httpx
import pytest

from kothkit.serve.privacy import load_key, neutral
from kothkit.serve.submissions import keyed_bot_name
from kothkit.store.records import split_reason
from tests.serve.webserver import (ROOT, BRAIN_C, Server, brain, challenge, client, csrf_of, kothkit, play, roster,
                                   submit, user, wait_for)

NAME = "g12"
ALICE, BOB, CAROL, ADMIN = "20240001", "20240002", "20240003", "20249999"
LOGINS = (ALICE, BOB, CAROL, ADMIN)
NICKS = {ALICE: "Alice", BOB: "Bob B.", CAROL: "Carol", ADMIN: "The TA"}
#: What alice's brain writes where only she may read it: its stderr (quoted in the crash's reason),
#: its DEBUG lines (the tiny brain's ``SECRET-<name>``) and its stderr at the end.
ALICE_MARKS = ("MARK-alice-stderr", "SECRET-alice", "stderr-of-alice")
BOB_MARKS = ("SECRET-bob", "stderr-of-bob")

#: The tiny brain, but on its third move it says a marker on stderr and dereferences NULL.
CRASH_C = BRAIN_C.replace(
    'taken[br][bc] = 1;',
    'taken[br][bc] = 1; if (++moves == 3) { fprintf(stderr, "MARK-%s-stderr: about to dereference NULL\\n", NAME);'
    ' fflush(stderr); *(volatile int *)0 = 1; }').replace("static int taken[12][12];",
                                                          "static int taken[12][12]; static int moves;")

NOPASS = '''import sys
print("FOLDER-STDERR of nopass", file=sys.stderr, flush=True)
for line in sys.stdin:
    if line.startswith("START"):
        print("OK", flush=True)
    elif line.startswith("TURN"):
        print("0 0", flush=True)
'''


def crash_brain(name: str) -> bytes:
    return f'#define NAME "{name}"\n#define DELAY_MS 0\n{CRASH_C}'.encode()


def folder_challenge(folder):
    (folder / "bots").mkdir(parents=True)
    shutil.copytree(ROOT / "plugins" / "gomoku_classic12" / "bots" / "pywindow", folder / "bots" / "pywindow")
    (folder / "bots" / "nopass").mkdir()
    (folder / "bots" / "nopass" / "bot.toml").write_text('name = "nopass"\ncommand = ["python3", "brain.py"]\n')
    (folder / "bots" / "nopass" / "brain.py").write_text(NOPASS)
    (folder / "kothkit.toml").write_text(
        'game = "gomoku_classic12"\nbots = ["bots"]\nrounds = 1\nseed = 4\n'
        '[limits]\nmove_time = 1.0\nfirst_reply_time = 5.0\ngame_time = 20.0\n'
        '[serve]\nkind = "folder"\ntitle = "Folder KoTH"\n')
    return folder


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("privacy")
    ch = challenge(d / NAME)
    koth = folder_challenge(d / "koth")
    state = d / "state"
    roster(state, d, list(LOGINS))
    r = kothkit("users", "admin", ADMIN, "--state", state, cwd=d)
    assert r.returncode == 0, r.stderr
    server = Server([ch, koth], state, d)
    try:
        with user(server, ALICE, NICKS[ALICE]) as alice:
            # A file named by her student number: hers to see, nobody else's.
            assert submit(alice, NAME, crash_brain("alice"), filename=f"{ALICE}.c").status_code == 303
        with user(server, BOB, NICKS[BOB]) as bob:
            assert submit(bob, NAME, brain("bob")).status_code == 303
        for login in (CAROL, ADMIN):
            with user(server, login, NICKS[login]):
                pass
        with client(server) as c:
            def played():
                rows = c.get(f"/c/{NAME}/standings.json").json()["rows"]
                folder = c.get("/c/koth/standings.json").json()["rows"]
                return (len(rows) == 2 and all(r["games"] == 2 for r in rows) and len(folder) == 2
                        and all(r["games"] == 2 for r in folder))
            wait_for(played, 240, message="both challenges' games played")
        yield server, state
    finally:
        assert server.stop() == 0, server.text


@pytest.fixture(scope="module")
def played(site):
    """The replay of a game alice played on the Play page against her own brain (stored in the
    play journal, her seat named after her login, her brain's crash in full for her)."""
    server, _ = site
    with user(server, ALICE, NICKS[ALICE]) as alice:
        _live, state, replay = play(alice, NAME, "your latest brain")
        assert "MARK-alice-stderr" in state["result"], state
        page = alice.get(replay)
        assert page.status_code == 200 and "MARK-alice-stderr" in page.text and ALICE not in page.text
    return replay


#: Pages a crawl asks for though no page may link them for its visitor: the admin's pages, every
#: submission, pages of things that are not there (their error pages) and the Play page.
UNLINKED = ["/admin", f"/admin/c/{NAME}", f"/admin/c/{NAME}/grades.csv", "/admin/c/koth", f"/c/{NAME}/play",
            f"/c/{NAME}/about", f"/c/{NAME}/submit", f"/c/{NAME}/crosstable", "/c/koth/events", "/no-such-page",
            "/c/nope/", f"/c/{NAME}/bot/nobody", f"/c/{NAME}/game/no-such-game", f"/c/{NAME}/game/no-such-game/replay",
            f"/c/{NAME}/played/0123abcd", *(f"/c/{NAME}/submission/{k}" for k in range(1, 6))]


def crawl(c: httpx.Client, base: str, limit: int = 400, extra: tuple[str, ...] = ()) -> dict[str, httpx.Response]:
    """Every page of the site reachable from ``/`` and the challenges' JSON and event streams, by
    following same-site links (href and src), and the pages of :data:`UNLINKED` and ``extra``; a
    download's zip is read into the response's text."""
    seen: dict[str, httpx.Response] = {}
    todo = ["/", f"/c/{NAME}/standings.json", "/c/koth/standings.json", f"/c/{NAME}/mine", f"/c/{NAME}/mine/logs.zip",
            f"/c/{NAME}/events", "/account", *UNLINKED, *extra]
    while todo and len(seen) < limit:
        path = todo.pop()
        if path in seen:
            continue
        if path.endswith("/events"):
            with c.stream("GET", path, params={"since": "-1"}) as r:  # the first message is enough
                first = next(r.iter_lines())
                seen[path] = httpx.Response(r.status_code, headers=r.headers, text=first)
            continue
        r = c.get(path)
        seen[path] = r
        if r.status_code in (301, 302, 303, 307, 308):
            todo.append(urlsplit(urljoin(base + path, r.headers["location"])).path)
            continue
        if r.headers.get("content-type", "").startswith("text/html"):
            for link in re.findall(r'(?:href|src)="([^"#]+)"', r.text):
                u = urlsplit(urljoin(base + path, link.replace("&amp;", "&")))
                if u.netloc == urlsplit(base).netloc and u.path != "/logout":
                    todo.append(u.path + (f"?{u.query}" if u.query else ""))
    return seen


def contents(r: httpx.Response) -> str:
    """A response as text: its headers and body (a zip's file names and files)."""
    head = "\n".join(f"{k}: {v}" for k, v in r.headers.items())
    if r.headers.get("content-type") == "application/zip":
        z = zipfile.ZipFile(io.BytesIO(r.content))
        return head + "\n" + "\n".join(n + "\n" + z.read(n).decode() for n in z.namelist())
    return head + "\n" + r.text


def leaks(pages: dict[str, httpx.Response], forbidden: tuple[str, ...]) -> list[str]:
    """Each forbidden word found, with the page and the text around it."""
    found = []
    for path, r in pages.items():
        text = path + "\n" + contents(r)
        for word in forbidden:
            at = text.find(word)
            if at >= 0:
                found.append(f"{path}: {word!r} in ...{text[max(0, at - 80):at + 40]!r}...")
    return found


def test_a_reason_splits_at_the_first_stderr_quote():
    """What a journal's reason holds, old or new: the neutral part is everything before the quote,
    even when the bot's own words hold the mark again."""
    assert split_reason("crash: killed by SIGSEGV; stderr: 'a; stderr: b'") == (
        "crash: killed by SIGSEGV", "stderr: 'a; stderr: b'")
    assert split_reason("timeout: no reply within 2 s") == ("timeout: no reply within 2 s", "")
    assert neutral("crash: exited with code 3; stderr: 'MARK'") == "crash: exited with code 3"


def test_anonymous_crawl_finds_no_login_and_no_stderr(site, played):
    server, _ = site
    with client(server) as c:
        pages = crawl(c, server.url, extra=(played,))
    # It went everywhere public: both Scoreboards, the bot pages, the games and their replays.
    assert any("/bot/" in p for p in pages) and any(p.endswith("/replay") for p in pages)
    assert any(p.startswith("/c/koth/game/") and "/log" in p for p in pages)
    assert leaks(pages, LOGINS + ALICE_MARKS + BOB_MARKS) == []
    # Bots are their authors' nicknames, named in URLs by ids that are not their logins.
    rows = pages[f"/c/{NAME}/standings.json"].json()["rows"]
    assert sorted(r["name"] for r in rows) == ["Alice", "Bob B."]
    assert all(re.fullmatch(r"b[0-9a-f]{16}", r["bot"]) for r in rows)
    # The crash is public, its quote of alice's stderr is not.
    bots = [p for p in pages if p.startswith(f"/c/{NAME}/bot/")]
    assert any("Alice lost: crash: killed by SIGSEGV" in pages[p].text for p in bots)
    # The course's logs were not linked for him: each one asks to sign in.
    games = {m for p in pages for m in re.findall(rf"^/c/{NAME}/game/([0-9a-f]+)$", p)}
    assert len(games) == 2
    with client(server) as c:
        for gid in games:
            for key in [r["bot"] for r in rows] + [ALICE, None]:
                r = c.get(f"/c/{NAME}/game/{gid}/log", params={"bot": key} if key else None)
                assert r.status_code == 303 and r.headers["location"].startswith("/login"), (gid, key)


def test_another_students_crawl_finds_no_login_and_no_stderr(site, played):
    server, _ = site
    with user(server, CAROL, NICKS[CAROL]) as carol:
        pages = crawl(carol, server.url, extra=(played,))
    # The admin's pages and alice's Play game are refused her, saying no more.
    for path in ("/admin", f"/admin/c/{NAME}", f"/admin/c/{NAME}/grades.csv", played):
        assert pages[path].status_code == 403, path
    assert f"/c/{NAME}/mine" in pages and pages[f"/c/{NAME}/mine"].status_code == 200
    # (Her own login she may see, on her Account page.)
    assert leaks(pages, (ALICE, BOB, ADMIN) + ALICE_MARKS + BOB_MARKS) == []
    # No log of the course's games for her, by a bot's id, a login or none.
    gid = next(m.group(1) for p in pages if (m := re.fullmatch(rf"/c/{NAME}/game/([0-9a-f]+)", p)))
    ids = [r["bot"] for r in pages[f"/c/{NAME}/standings.json"].json()["rows"]]
    with user(server, CAROL, NICKS[CAROL]) as carol:
        for key in ids + [ALICE, None]:
            assert carol.get(f"/c/{NAME}/game/{gid}/log", params={"bot": key} if key else None).status_code == 403


def test_the_opponent_reads_a_neutral_reason_and_only_their_own_log(site, played):
    server, _ = site
    with user(server, BOB, NICKS[BOB]) as bob:
        pages = crawl(bob, server.url, extra=(played,))
        assert leaks(pages, (ALICE, CAROL, ADMIN) + ALICE_MARKS) == []
        # Log links on his own bot's pages only (alice's bot page has none for him).
        logs = [r for p, r in pages.items() if p.startswith(f"/c/{NAME}/game/") and "/log" in p and r.status_code == 200]
        assert len(logs) == 2
        # His own log: his DEBUG lines and stderr, alice's moves, the crash without her words.
        assert any("SECRET-bob" in r.text and "crash: killed by SIGSEGV" in r.text for r in logs)
        assert "SECRET-bob" in contents(pages[f"/c/{NAME}/mine/logs.zip"])
        # Alice's log, by her id or by her login: refused alike.
        gid = re.search(r"/c/g12/game/([0-9a-f]+)/log", "\n".join(pages)).group(1)
        alice_id = next(r["bot"] for r in bob.get(f"/c/{NAME}/standings.json").json()["rows"] if r["name"] == "Alice")
        for key in (alice_id, ALICE, "nobody"):
            assert bob.get(f"/c/{NAME}/game/{gid}/log", params={"bot": key}).status_code == 403
        # An old link by a login is its owner's only: for him, alice's is no bot at all.
        assert bob.get(f"/c/{NAME}/bot/{ALICE}").status_code == 404
        moved = bob.get(f"/c/{NAME}/bot/{BOB}")
        assert moved.status_code == 303 and re.fullmatch(rf"/c/{NAME}/bot/b[0-9a-f]{{16}}", moved.headers["location"])


def test_the_author_and_admins_read_everything(site):
    server, state = site
    with user(server, ALICE, NICKS[ALICE]) as alice:
        old = alice.get(f"/c/{NAME}/bot/{ALICE}", follow_redirects=True)
        assert old.status_code == 200 and "The games of Alice" in old.text
        # Her own crash, in full: its stderr quote on her bot page and in her log (old link too).
        assert "MARK-alice-stderr: about to dereference NULL" in old.text
        gid = re.search(r"/c/g12/game/([0-9a-f]+)\"", old.text).group(1)
        log = alice.get(f"/c/{NAME}/game/{gid}/log", params={"bot": ALICE})
        assert log.status_code == 200 and "MARK-alice-stderr" in log.text and "SECRET-alice" in log.text
        assert "SECRET-bob" not in log.text and "stderr-of-bob" not in log.text
        assert ALICE not in log.headers["content-disposition"]
    with user(server, ADMIN, NICKS[ADMIN]) as root:
        full = root.get(f"/c/{NAME}/game/{gid}/log")
        assert full.status_code == 200
        for mark in ALICE_MARKS[:2] + BOB_MARKS[:1]:
            assert mark in full.text
        assert "MARK-alice-stderr" in root.get(f"/c/{NAME}/game/{gid}/replay").text
    # The key of the public ids is the host's alone.
    assert (state / "public-ids.key").stat().st_mode & 0o077 == 0
    # On the host's own machine, `kothkit show` keeps showing everything, the brain by its bot's
    # name: an HMAC of the login (the journal holds no login: a game's id is a hash of its bots' names).
    shown = kothkit("show", state / "journals" / f"{NAME}.sqlite", gid[:12], cwd=state)
    assert shown.returncode == 0, shown.stderr
    alice_bot = keyed_bot_name(load_key(state), ALICE)
    assert alice_bot in shown.stdout and "crash: killed by SIGSEGV; stderr: 'MARK-alice-stderr" in shown.stdout
    assert ALICE not in shown.stdout


def test_an_admins_crawl_meets_no_error(site, played):
    """Every page, as the one visitor who may see all of them: none fails (the crawls above meet
    refusals, this one the admin's pages and every log)."""
    server, _ = site
    with user(server, ADMIN, NICKS[ADMIN]) as root:
        pages = crawl(root, server.url, extra=(played,))
    assert pages["/admin"].status_code == 200 and pages[played].status_code == 200
    assert [p for p, r in pages.items() if r.status_code >= 500] == []


def test_a_folder_challenges_logs_are_public_and_a_verdict_is_said_once(site):
    server, _ = site
    with client(server) as anon:
        page = anon.get("/c/koth/bot/nopass")
        assert page.status_code == 200
        verdicts = re.findall(r'<td class="verdict">([^<]*)</td>', page.text)
        assert verdicts and all(v.startswith("nopass lost: illegal-move: ") for v in verdicts), verdicts
        assert all(v.count("illegal-move") == 1 for v in verdicts), verdicts
        link = re.search(r'href="(/c/koth/game/[0-9a-f]+/log\?bot=nopass)"', page.text).group(1)
        log = anon.get(link)  # no sign-in wall: a folder challenge has no accounts
        assert log.status_code == 200 and "FOLDER-STDERR of nopass" in log.text


def test_a_browser_shows_nicknames_and_no_stderr(site, browser):
    server, _ = site
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{server.url}/c/{NAME}/")
        page.wait_for_selector("#scoreboard tbody tr")
        names = page.locator("#scoreboard tbody tr td:nth-child(2)").all_text_contents()
        assert sorted(names) == ["Alice", "Bob B."]
        page.click("#scoreboard tbody tr a >> text=Alice")
        page.wait_for_url(re.compile(r".*/bot/b[0-9a-f]{16}$"))
        text = page.text_content("body")
        assert "crash: killed by SIGSEGV" in text
        page.click("#games a.replay >> nth=0")
        page.wait_for_load_state("load")
        shown = page.content()  # the page as drawn, and the game's data it embeds
        assert "Alice" in shown
        for word in LOGINS + ALICE_MARKS + BOB_MARKS:
            assert word not in shown, word
        assert errors == []
    finally:
        page.close()


def _table(page: str, heading: str) -> list[list[str]]:
    """The cells' texts (tags stripped) of the first table after ``<h2>heading</h2>``."""
    table = page.split(f"<h2>{heading}</h2>", 1)[1].split("</table>", 1)[0]
    return [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)]


def test_the_report_a_ta_publishes_names_nobody_by_login(site, tmp_path):
    """The admin's download of the report to publish (issue 28 item 1): the static report site,
    bots by nickname, no stderr, no logs; refused to a student, to a visitor signed out and to a
    forged form; its standings the Scoreboard's.  ``kothkit report`` on the host's state folder
    writes the same site."""
    server, state = site
    path = f"/admin/c/{NAME}/report.zip"
    forbidden = LOGINS + ALICE_MARKS + BOB_MARKS
    with client(server) as anon:
        r = anon.post(path, data={"csrf": "x"}, follow_redirects=False)
        assert r.status_code == 401 and "zip" not in r.headers["content-type"], r.status_code
    with user(server, CAROL, NICKS[CAROL]) as carol:
        r = carol.post(path, data={"csrf": csrf_of(carol.get("/account").text)})
        assert r.status_code == 403 and "zip" not in r.headers["content-type"]
    with user(server, ADMIN, NICKS[ADMIN]) as root:
        page = root.get(f"/admin/c/{NAME}").text
        assert f'action="{path}"' in page
        token = csrf_of(page)
        # Forged: posted from another site, or without the page's token.
        assert root.post(path, data={"csrf": token}, headers={"origin": "https://evil.example"}).status_code == 403
        assert root.post(path, data={"csrf": "forged"}).status_code == 403
        assert root.get(path).status_code == 405
        r = root.post(path, data={"csrf": token})
        assert r.status_code == 200 and r.headers["content-type"] == "application/zip", r.text[-500:]
        assert "report download" in root.get("/admin").text  # the admin log keeps it
        board = root.get(f"/c/{NAME}/standings.json").json()["rows"]
        # A folder challenge's report: its bots by their own (public) names, no output of theirs either.
        folder = root.post("/admin/c/koth/report.zip", data={"csrf": token})
        assert folder.status_code == 200 and "koth-report/bots/nopass.html" in zipfile.ZipFile(
            io.BytesIO(folder.content)).namelist()
        assert leaks({"koth": folder}, ("FOLDER-STDERR",)) == []
    # No login and no stderr marker in any file's name or text.
    assert leaks({path: r}, forbidden) == []
    z = zipfile.ZipFile(io.BytesIO(r.content))
    files = {n: z.read(n).decode() for n in z.namelist()}
    index = files[f"{NAME}-report/index.html"]
    assert any("/games/" in n for n in files) and any("/bots/" in n for n in files)
    assert "crash: killed by SIGSEGV" in index and "stderr" not in index
    # The leaderboard is the Scoreboard: the same bots (by nickname, made one word) in the same order, the same points.
    rows = _table(index, "Leaderboard")
    heads = rows[0]
    assert [(row[1], float(row[heads.index("match points")]), int(row[heads.index("games")])) for row in rows[1:]] == [
        (re.sub(r"\s+", "_", b["name"]), float(b["points"]), b["games"]) for b in board]

    # `kothkit report` pointed at the host's state folder: the same public site; --private: the full one.
    out = tmp_path / "site"
    done = kothkit("report", state, "--out", out, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = {p.relative_to(out).as_posix(): p.read_text() for p in out.rglob("*") if p.is_file()}
    assert written == {n.removeprefix(f"{NAME}-report/"): text for n, text in files.items()}
    full = kothkit("report", state / "journals" / f"{NAME}.sqlite", "--private", "--markdown", cwd=tmp_path)
    key = load_key(state)
    assert keyed_bot_name(key, ALICE) in full.stdout and keyed_bot_name(key, BOB) in full.stdout
    # A copy of the state without its key of public ids: refused by name, no key made up.
    copy = tmp_path / "copy"
    shutil.copytree(state, copy, ignore=shutil.ignore_patterns("public-ids.key"))
    refused = kothkit("report", copy, "--out", tmp_path / "site2", cwd=tmp_path)
    assert refused.returncode == 1 and "no public-ids.key" in refused.stderr, refused.stderr
    assert not (copy / "public-ids.key").exists() and not (tmp_path / "site2").exists()
