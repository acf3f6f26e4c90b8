"""``kothkit serve`` hosting games of more than two seats (lowbid, the bundled lowest unique bid), over
real HTTP against one real server: the bundled ``challenges/lowbid`` folder challenge (its file as
shipped, its four bots copied beside it), and a submissions challenge of lowbid that three students
enter with Python programs, one of which writes a secret on stderr and crashes in its second round.

The Scoreboard shows each bot's mean ± error and its openskill rating ± sigma; the crosstable how
often a bot placed above another; a game's page every seat's place, points and verdict; a
student's feedback the crash of her own brain; and each student reads her own bot's stderr alone:
the others' never (a table game's logs per seat are their authors', as in two-seat games)."""

from __future__ import annotations

import csv
import io
import re
import shutil

import pytest

from tests.serve.test_privacy import contents, crawl, leaks
from tests.serve.webserver import ROOT, Server, client, kothkit, roster, submit, user, wait_for

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc (the bundled C bot)")

NAME = "bids"
ANN, BEN, CAT = "20250001", "20250002", "20250003"
ADMIN = "root"
NICKS = {ANN: "Ann", BEN: "Ben", CAT: "Cat", ADMIN: "Root"}

#: A Python brain of lowbid: bids ``BID`` (2 + its seat, at most max_bid), says a marker on stderr;
#: with CRASH_AT, says a secret on stderr and exits in that round.
BRAIN = """import sys
NAME, CRASH_AT = {name!r}, {crash}
for line in sys.stdin:
    if line.startswith("BID "):
        rnd, rounds, top, seat = (int(x) for x in line.split()[1:5])
        if rnd == CRASH_AT:
            sys.stderr.write("SECRET-" + NAME + "-crash\\n")
            sys.exit(3)
        print(min(top, 2 + seat), flush=True)
    elif line.startswith("END"):
        sys.stderr.write("stderr-of-" + NAME + "\\n")
        break
"""


def brain(name: str, crash: int = 0) -> bytes:
    return BRAIN.format(name=name, crash=crash).encode()


def bundled(folder):
    """challenges/lowbid as shipped, its bots copied beside it (a host builds and journals in its folder)."""
    folder.mkdir()
    text = (ROOT / "challenges" / "lowbid" / "kothkit.toml").read_text()
    (folder / "kothkit.toml").write_text(text.replace('bots = ["../../plugins/lowbid/bots"]', 'bots = ["bots"]')
                                         .replace("rounds = 4\n", "rounds = 1\n").replace("rounds = 10", "rounds = 3"))
    shutil.copytree(ROOT / "plugins" / "lowbid" / "bots", folder / "bots",
                    ignore=shutil.ignore_patterns("__pycache__", "bot"))
    return folder


def course(folder):
    folder.mkdir()
    (folder / "kothkit.toml").write_text(
        'game = "lowbid"\nrounds = 1\nseed = 3\n[rules]\nrounds = 4\nmax_bid = 6\n'
        '[serve]\nkind = "submissions"\ntitle = "Bids"\nmin_interval = 0\n')
    return folder


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("nseat")
    koth = bundled(d / "lowbid")
    ch = course(d / NAME)
    state = d / "state"
    roster(state, d, [ANN, BEN, CAT, ADMIN])
    assert kothkit("users", "admin", ADMIN, "--state", state, cwd=d).returncode == 0
    server = Server([koth, ch], state, d, jobs=2)
    server.state, server.folders = state, (koth, ch)
    try:
        for login, crash in ((ANN, 2), (BEN, 0), (CAT, 0)):
            with user(server, login, NICKS[login]) as c:
                r = submit(c, NAME, brain(login, crash), filename="brain.py", language="python3")
                assert r.status_code == 303, r.text[-1500:]
        with client(server) as c:
            def played():
                rows = c.get(f"/c/{NAME}/standings.json").json()["rows"]
                folder = c.get("/c/lowbid/standings.json").json()["rows"]
                return (len(rows) == 3 and all(r["games"] == 3 for r in rows) and len(folder) == 4
                        and all(r["games"] == 4 for r in folder))
            wait_for(played, 240, message="both challenges' tables played")
        yield server
    finally:
        assert server.stop() == 0, server.text


def test_the_scoreboard_shows_mean_error_and_rating(site):
    with client(site) as c:
        for name in ("lowbid", NAME):
            data = c.get(f"/c/{name}/standings.json").json()
            assert data["seated"] is True
            for r in data["rows"]:
                assert re.fullmatch(r"-?[0-9.e+-]+ ± [0-9.e+-]+", r["mean"]), r
                assert re.fullmatch(r"-?[0-9.e+-]+ ± [0-9.e+-]+", r["rating"]), r
            page = c.get(f"/c/{name}/").text
            assert "mean ± error" in page and "rating" in page and 'class="rating"' in page
            cross = c.get(f"/c/{name}/crosstable").text
            assert "how often the row placed above, level with and below the column" in cross
            # Every bot at every table (three students; the four bundled bots): each cell counts them all.
            n = 3 if name == NAME else 4
            cells = re.findall(r"<td>(\d+)-(\d+)-(\d+)</td>", cross)
            assert len(cells) == n * (n - 1) and all(sum(map(int, cell)) == n for cell in cells), cells
        rows = {r["name"]: r for r in c.get(f"/c/{NAME}/standings.json").json()["rows"]}
        assert set(rows) == {"Ann", "Ben", "Cat"}
        # Ann's brain leaves every game in round 2: last, with no points.
        assert rows["Ann"]["rank"] == 3 and rows["Ann"]["points"] == "0"


def test_the_grades_of_a_table_challenge_hold_the_scoreboards_mean_and_rating(site):
    """The admin's grades CSV of a table challenge: the Scoreboard's mean ± standard error and
    openskill rating μ ± σ as four more columns after ``points_unit``, which says what the points
    count (the game's own, a mean a game), every row as the Scoreboard has it."""
    with user(site, ADMIN, NICKS[ADMIN]) as root, client(site) as anyone:
        board = {r["name"]: r for r in anyone.get(f"/c/{NAME}/standings.json").json()["rows"]}
        r = root.get(f"/admin/c/{NAME}/grades.csv")
        assert r.status_code == 200
        grades = list(csv.DictReader(io.StringIO(r.content.decode("utf-8-sig"))))
    assert list(grades[0]) == ["login", "nickname", "rank", "points", "points_unit", "mean", "mean_error", "rating",
                               "rating_sigma", "games", "wins", "draws", "losses", "brain_hash", "submission",
                               "submitted", "standings", "note"]
    assert [g["login"] for g in grades] == sorted((ANN, BEN, CAT), key=lambda x: board[NICKS[x]]["rank"])
    for g in grades:
        b = board[g["nickname"]]
        assert (g["rank"], g["points"], g["games"]) == (str(b["rank"]), b["points"], str(b["games"]))
        for value, error, shown in (("mean", "mean_error", b["mean"]), ("rating", "rating_sigma", b["rating"])):
            assert f"{float(g[value]):.3g} ± {float(g[error]):.2g}" == shown, (g, b)
        assert g["points_unit"].startswith("mean points a game: the game's own points; games count tables")
    assert (grades[-1]["login"], grades[-1]["mean"], grades[-1]["mean_error"]) == (ANN, "0", "0")


def test_a_students_game_and_feedback_show_every_seat_and_her_own_log_only(site):
    with user(site, ANN, NICKS[ANN]) as ann:
        mine = ann.get(f"/c/{NAME}/mine").text
        assert "mean 0 ± 0 a game" in mine and "rating " in mine
        assert "Faults of this brain (3 of 3 games)" in mine and "lost every game by a fault of its own" in mine
        game = re.search(rf'href="/c/{NAME}/game/([0-9a-f]+)" class="fault-game"', mine).group(1)
        page = ann.get(f"/c/{NAME}/game/{game}").text
        seats = re.findall(r"<tr><td>(\d)</td><td>([^<]*)</td><td class=\"place\">(\d)</td>"
                           r"<td class=\"points\">([^<]*)</td><td class=\"verdict\">([^<]*)</td></tr>", page)
        assert sorted(s[1] for s in seats) == ["Ann", "Ben", "Cat"], site.text[-3000:]
        by = {s[1]: s for s in seats}
        assert by["Ann"][2:] == ("3", "0", "crash") and by["Ben"][4] == by["Cat"][4] == ""
        # Her log is hers: her stderr (the crash's secret), never the others'.
        assert "SECRET-" + ANN + "-crash" in page
        log = ann.get(f"/c/{NAME}/game/{game}/log").text
        assert "SECRET-" + ANN + "-crash" in log and "stderr-of-" + BEN not in log
        replay = ann.get(f"/c/{NAME}/game/{game}/replay").text
        assert "stderr-of-" + BEN not in replay and "stderr-of-" + CAT not in replay
    with user(site, BEN, NICKS[BEN]) as ben:
        mine = ben.get(f"/c/{NAME}/mine").text
        assert "Its opponents&#39; faults:" in mine or "Its opponents' faults:" in mine
        pages = crawl(ben, site.url, extra=(f"/c/{NAME}/game/{game}", f"/c/{NAME}/game/{game}/log",
                                            f"/c/{NAME}/game/{game}/replay"))
        assert leaks(pages, ("SECRET-" + ANN, "stderr-of-" + ANN, "stderr-of-" + CAT, ANN, CAT)) == []
        assert "stderr-of-" + BEN in contents(pages[f"/c/{NAME}/game/{game}/log"])
    with client(site) as anyone:
        pages = crawl(anyone, site.url)
        assert leaks(pages, ("SECRET-", "stderr-of-", ANN, BEN, CAT)) == []
        # A folder challenge's tables are public: every seat's result on its games' pages.
        bot = anyone.get("/c/lowbid/bot/one").text
        assert re.search(r"place \d of 4, \d+ points", bot), bot[-2000:]
        assert "<th>bots (by seat)</th>" in bot and "first opens" not in bot  # (nobody opens at a table)


def test_the_host_journal_reads_back_every_seat(site, tmp_path):
    [journal] = sorted((site.state / "journals").glob("*.sqlite"))
    r = kothkit("show", journal, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "crash" in r.stdout and r.stdout.count("left") >= 3, r.stdout


def test_the_report_of_a_hosted_table_challenge(site, tmp_path):
    """``kothkit report`` of the host's state (public) and of the folder challenge's journal: every
    seat's place and points in the games, the mean ± error and openskill rating columns, the
    crosstable of placings, the replay pages' seats; ``--markdown`` the same columns."""
    r = kothkit("report", site.state, "-o", tmp_path / "pub", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    index = (tmp_path / "pub" / "index.html").read_text()
    assert "rating (μ ± σ)" in index and "mean ± error" in index and "placed above, level with and below" in index
    assert re.search(r"\(place 3, 0 points\)", index) and "left: crash" in index
    assert not any(word in index for word in ("SECRET-", "stderr-of-", ANN, BEN, CAT))
    pages = sorted((tmp_path / "pub" / "games").glob("*.html"))
    assert len(pages) == 3
    for page in pages:
        text = page.read_text()
        seats = re.search(r'"seats":(\[[^]]*\])', text)
        assert seats and seats.group(1).count('"place":') == 3 and '"verdict":"crash"' in seats.group(1)
        assert "SECRET-" not in text and "stderr-of-" not in text
    md = kothkit("report", site.folders[0] / "kothkit.sqlite", "--markdown", cwd=tmp_path)
    assert md.returncode == 0, md.stderr
    head = next(line for line in md.stdout.splitlines() if line.startswith("| # |"))
    assert "| mean ± error | rating (μ ± σ) |" in head
    rows = [line for line in md.stdout.splitlines() if re.match(r"\| \d \| (one|dodger|tracker|spoiler) \|", line)]
    assert len(rows) == 4 and all(re.search(r"\| [0-9.]+ ± [0-9.]+ \| [0-9.]+ ± [0-9.]+ \|", x) for x in rows), rows


def test_the_live_scoreboard_of_tables_follows_a_new_bot(site, browser):
    """Last (it changes the folder challenge): a bot copied in plays its tables, and the open
    Scoreboard (Chromium) follows them live with every column, the mean ± error and the rating."""
    from tests.serve.webserver import watched_page

    page, errors = watched_page(browser)
    try:
        page.goto(f"{site.url}/c/lowbid/")
        assert page.locator("#scoreboard tbody tr").count() == 4
        two = site.folders[0] / "bots" / "two"
        two.mkdir()
        (two / "bot.py").write_text("import sys\nfor line in sys.stdin:\n"
                                    "    if line.startswith('BID '):\n        print(2, flush=True)\n")
        (two / "bot.toml").write_text('name = "two"\ncommand = ["python3", "bot.py"]\n')
        rows = page.locator("#scoreboard tbody tr")
        # (by the page's own live script: the page is never loaded again)
        wait_for(lambda: rows.count() == 5 and all(rows.nth(i).locator("td").nth(8).inner_text() == "5"
                                                   for i in range(5)), 120, message="the live Scoreboard")
        for i in range(5):
            cells = rows.nth(i).locator("td").all_inner_texts()
            assert len(cells) == 11, cells  # rank, bot, points, mean, rating, W, D, L, games, so far, latest
            assert re.fullmatch(r"-?[0-9.e+-]+ ± [0-9.e+-]+", cells[3]) and re.fullmatch(r"[0-9.e+-]+ ± [0-9.e+-]+",
                                                                                           cells[4]), cells
        heads = page.locator("#scoreboard thead th").all_inner_texts()
        assert len(heads) == 11 and "mean ± error" in heads and "rating" in heads, heads
        assert errors == []
    finally:
        page.close()
