"""``kothkit report``: a static site a browser opens offline (leaderboard, crosstable, bot pages,
replay pages, all linked) and ``--markdown``'s leaderboard, from real tournaments' journals."""

from __future__ import annotations

import json
from contextlib import closing
import re
import shutil
import sqlite3
import time

from urllib.parse import unquote, urlparse

from kothkit.results.archive import open_journal
from tests.results.browser import Watched
from tests.results.conftest import TB, kothkit


def markdown_rows(text: str, heads: bool = False) -> list[list[str]]:
    """The rows of the Markdown table in ``text`` (``heads``: its headings first)."""
    lines = [l for l in text.splitlines() if l.startswith("|")]
    assert re.fullmatch(r"\|(-*:?\|)+|\|(---:?\|)+|\|[-:|]+", lines[1].replace(" ", "")), lines[1]
    cells = [[c.strip() for c in re.split(r"(?<!\\)\|", l)[1:-1]] for l in lines]
    return ([cells[0]] if heads else []) + cells[2:]


def markdown_table(text: str) -> list[dict[str, str]]:
    """The rows of the Markdown table in ``text``, each by its headings (a repeated one numbered: drawn, drawn 2)."""
    heads, *rows = markdown_rows(text, heads=True)
    named = [h if heads[:i].count(h) == 0 else f"{h} {heads[:i].count(h) + 1}" for i, h in enumerate(heads)]
    return [dict(zip(named, r)) for r in rows]


def test_markdown_leaderboard_matches_the_runs_standings(classic12, tmp_path):
    db = tmp_path / "j.sqlite"
    shutil.copy(classic12, db)
    doc_path = tmp_path / "r.json"
    # the same tournament again: every game is reused from the journal, the standings are run's own
    kothkit("run", "gomoku_classic12", "--bots", classic12.parent / "bots", "--seed", "5", "--move-time", "0.3",
            "--db", db, "--json", doc_path, "-q", cwd=tmp_path)
    doc = json.loads(doc_path.read_text())
    assert doc["played"] == 0
    text = kothkit("report", db, "--markdown", cwd=tmp_path).stdout
    heads = markdown_rows(text, heads=True)[0]
    # Points are per match in classic12: the matches won, drawn and lost, then the games, as run's table has them.
    counts = ["match points", "matches won", "drawn", "lost", "games won", "drawn", "lost", "games"]
    assert heads[heads.index("match points"):heads.index("games") + 1] == counts
    rows = markdown_table(text)
    assert [[int(r["#"]), r["bot"], *(int(r[h]) for h in ("match points", "matches won", "drawn", "lost",
                                                        "games won", "drawn 2", "lost 2", "games"))]
            for r in rows] == [
        [s["rank"], s["bot"], s["points"], s["match_wins"], s["match_draws"], s["match_losses"], s["wins"],
         s["draws"], s["losses"], s["games"]] for s in doc["standings"]]
    # The heading a challenge's post needs: the game, the date, the seed and the games; each bot's
    # language (guessed from its command: these bots give none) and the games it lost by a fault.
    assert text.startswith("## The course's 12x12 Gomoku")
    day = time.strftime("%Y-%m-%d", time.gmtime(max(open_journal(db).finished.values())))
    assert re.search(rf"^Standings of {day} \d\d:\d\d UTC, seed 5, 12 games played by 4 bots\.$", text, re.M), text
    assert {r["bot"]: (r["language"], r["faults"]) for r in rows} == {
        "steady": ("Python", "-"), "tardy": ("Python", "2 timeout"), "malformed": ("Python", "5 invalid-reply"),
        "out_of_turn": ("Python", "5 out-of-turn")}
    # 12 games do not tell these bots' Elo apart: the Elo columns are left out, and it says so.
    assert "Elo" not in heads and "Elo ratings left out: with 12 games" in text
    assert not (tmp_path / "report").exists()  # --markdown writes nothing


def test_the_site_opens_offline_and_links_every_bot_and_replay(browser, classic12, tmp_path):
    site = tmp_path / "site"
    kothkit("report", classic12, "--out", site, cwd=tmp_path)
    archive = open_journal(classic12)
    w = Watched(browser)
    try:
        p = w.page
        p.goto((site / "index.html").as_uri())
        # A journal alone: the game's summary heads it, then the game, the date, the seed and the games.
        assert p.locator("h1").inner_text().startswith("The course's 12x12 Gomoku")
        day = time.strftime("%Y-%m-%d", time.gmtime(max(archive.finished.values())))
        assert re.fullmatch(rf"gomoku_classic12: standings of {day} \d\d:\d\d UTC, seed 5, 12 games played by 4 bots",
                            p.locator("h1 + p").inner_text())
        board = p.locator("table").first.locator("tr").all_inner_texts()
        assert [row.split("\t")[1] for row in board[1:]] == ["steady", "tardy", "malformed", "out_of_turn"]
        # the crosstable: steady won both its games against each other bot
        cross = (p.locator("xpath=//h2[text()='Crosstable']/following-sibling::table[1]").locator("tr").nth(1)
                 .all_inner_texts()[0].split("\t"))
        los = p.locator("xpath=//h2[text()='Likelihood of superiority']/following-sibling::table[1]").locator("tr")
        assert los.count() == 5 and los.nth(1).inner_text().split("\t")[0] == "steady"
        assert cross[0] == "steady" and cross[2:] == ["2-0-0", "2-0-0", "2-0-0"]
        links = [a.get_attribute("href") for a in p.locator("a").all()]
        games = [h for h in links if h.startswith("games/")]
        assert len(set(games)) == len(archive.records)
        for href in set(links):
            assert (site / unquote(href)).is_file(), href
        # a bot's page: faults by verdict, reply times, time budget, its games linked
        p.click("text=tardy >> nth=0")
        assert p.url.endswith("bots/tardy.html")
        text = p.locator("body").inner_text()
        assert re.search(r"timeout\s+2", text)
        assert "95th percentile" in text and "share of the 90 s budget" in text
        assert p.locator("a[href^='../games/']").count() == 6
        # from there, a replay page that steps through its game
        p.locator("a[href^='../games/']").first.click()
        assert "/games/" in p.url
        p.keyboard.press("End")
        assert p.locator("#outcome").is_visible()
        p.click("#nav a >> nth=0")
        assert p.url.endswith("index.html")
        assert all(urlparse(u).scheme == "file" for u in w.requests), w.requests
        assert w.errors == []
    finally:
        w.close()


def test_bot_names_are_escaped_everywhere(tmp_path):
    bots = tmp_path / "bots"
    shutil.copytree(TB / "classic12" / "steady", bots / "steady")
    shutil.copytree(TB / "classic12" / "steady", bots / "evil")
    (bots / "evil" / "bot.toml").write_text('name = "evil"\ncommand = ["python3", "brain.py"]\n')
    db = tmp_path / "j.sqlite"
    kothkit("run", "gomoku_classic12", "--bots", bots, "--seed", "1", "--db", db, "-q", cwd=tmp_path)
    # `kothkit run` refuses such a name (kothkit.bots.folders), but a journal is a file anyone can hand
    # over: the name is put in the stored games and runs afterwards.
    evil = "<script>alert(1)</script>\"x' onmouseover='alert(2)|../x"
    with closing(sqlite3.connect(db)) as c, c:
        c.execute("UPDATE games SET players = replace(players, '\"evil\"', ?), "
                  "winner = CASE winner WHEN 'evil' THEN ? ELSE winner END, "
                  "fault = CASE fault WHEN 'evil' THEN ? ELSE fault END", (json.dumps(evil), evil, evil))
        c.execute("UPDATE runs SET bots = replace(bots, '\"evil\"', ?)", (json.dumps(evil),))
    site = tmp_path / "site"
    kothkit("report", db, "--out", site, cwd=tmp_path)
    pages = list(site.rglob("*.html"))
    assert len(pages) > 3
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&#34;x&#39; onmouseover=&#39;alert(2)|../x"
    for page in pages:
        text = page.read_text()
        # A replay page's game data is JSON in a script element: there, no "<" at all.
        data = re.search(r'<script type="application/json" id="kothkit-game">(.*?)</script>', text, re.S)
        if data is not None:
            assert "<" not in data.group(1) and "\\u003cscript\\u003ealert(1)" in data.group(1), page
            text = text.replace(data.group(1), "")
        # Every page names the bot (a replay page in its title), and never as markup or an attribute's end.
        assert escaped in text, page
        assert "<script>alert" not in text and "\"x'" not in text and "' onmouseover='" not in text, page
        assert page.resolve().is_relative_to(site.resolve())
    rows = markdown_rows(kothkit("report", db, "--markdown", cwd=tmp_path).stdout)
    assert re.sub(r"([\\`*<>|\[\]])", r"\\\1", evil) in [r[1] for r in rows]


def test_a_public_report_holds_no_bots_output(classic12, tmp_path):
    """``--public``: the same site, the bots by their own names, and none of their stderr or DEBUG lines."""
    full, public = tmp_path / "full", tmp_path / "public"
    kothkit("report", classic12, "--out", full, cwd=tmp_path)
    done = kothkit("report", classic12, "--out", public, "--public", cwd=tmp_path)
    assert done.stdout.startswith("public report")

    def texts(site):
        return {p.relative_to(site).as_posix(): p.read_text() for p in site.rglob("*.html")}

    shown, kept = texts(full), texts(public)
    assert shown.keys() == kept.keys() and "bots/tardy.html" in kept
    assert any("tardy stderr at turn" in t for t in shown.values())
    for marks in ("tardy stderr at turn", "DEBUG turn"):
        assert not [n for n, t in kept.items() if marks in t], marks
    assert shown["index.html"] == kept["index.html"]  # (no reason here quotes a bot's stderr)


def test_a_bad_journal_writes_no_site(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    proc = kothkit("report", bad, "--out", tmp_path / "site", cwd=tmp_path, check=False)
    assert proc.returncode == 1 and str(bad) in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "site").exists()



def test_a_renamed_report_orders_ties_as_the_bots_own_names_do(tmp_path):
    """Ties are broken by the bot's name, last: a public report (bots renamed to nicknames) ranks
    under the bots' own names, as the host's Scoreboard does, and only then renames them."""
    from kothkit.results.site import boards_of

    bots = tmp_path / "bots"
    for name in ("alpha", "zulu"):
        shutil.copytree(TB / "classic12" / "steady", bots / name)
        (bots / name / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "brain.py"]\n')
    db = tmp_path / "j.sqlite"
    kothkit("run", "gomoku_classic12", "--bots", bots, "--seed", "1", "--db", db, "-q", cwd=tmp_path)
    archive = open_journal(db)
    (own,) = boards_of(archive)
    (public,) = boards_of(archive, rename={"alpha": "Zed", "zulu": "Amy"})
    assert own.standings[0].points == own.standings[1].points  # the same player twice: a tie
    assert [s.bot for s in own.standings] == ["alpha", "zulu"]
    assert [s.bot for s in public.standings] == ["Zed", "Amy"]
    assert {p for r in public.games for p in r.players} == {"Zed", "Amy"}


def test_a_challenges_report_has_its_title_and_its_answers_authors(classic12, tmp_path):
    """A challenge folder's report: its title (kothkit.toml's [serve] title) on the site and at the top of
    the post's leaderboard; each answer's author, language and link as its bot.toml gives them."""
    ch = tmp_path / "ch"
    ch.mkdir()
    (ch / "kothkit.toml").write_text('game = "gomoku_classic12"\nbots = ["bots"]\n\n[serve]\nkind = "folder"\n'
                                    'title = "KoTH: Gomoku <12x12>"\n')
    shutil.copytree(classic12.parent / "bots", ch / "bots")
    toml = ch / "bots" / "steady" / "bot.toml"
    toml.write_text(toml.read_text() + 'author = "Ada [L]"\nurl = "https://codegolf.stackexchange.com/a/1?a=|b"\n'
                    'language = "Python 3"\n')
    kothkit("run", ch, "--seed", "5", "--move-time", "0.3", "-q", cwd=tmp_path)
    text = kothkit("report", ch, "--markdown", cwd=tmp_path).stdout
    assert text.startswith("## KoTH: Gomoku \\<12x12\\> (gomoku_classic12)\n")
    rows = {r["bot"]: r for r in markdown_table(text)}
    # (a | in the url would end its cell: it is percent-encoded)
    assert rows["[steady](<https://codegolf.stackexchange.com/a/1?a=%7Cb>)"]["author"] == "Ada \\[L\\]"
    assert rows["[steady](<https://codegolf.stackexchange.com/a/1?a=%7Cb>)"]["language"] == "Python 3"
    assert rows["tardy"]["author"] == "-" and rows["tardy"]["language"] == "Python"
    kothkit("report", ch, "--out", tmp_path / "site", cwd=tmp_path)
    index = (tmp_path / "site" / "index.html").read_text()
    assert "<h1>KoTH: Gomoku &lt;12x12&gt;</h1>" in index
    assert re.search(r"gomoku_classic12: standings of \d{4}-\d\d-\d\d \d\d:\d\d UTC, seed 5, 12 games", index)
    # A bot.toml whose url is no web address is refused by name.
    toml.write_text(toml.read_text().replace("https://codegolf.stackexchange.com/a/1?a=|b", "javascript:alert(1)"))
    r = kothkit("run", ch, "--move-time", "0.3", "-q", cwd=tmp_path, check=False)
    assert "bot.toml:" in r.stderr and "url must be an http:// or https:// address" in r.stderr
