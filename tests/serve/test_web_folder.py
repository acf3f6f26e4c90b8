"""A folder challenge served by ``kothkit serve`` (the Code Golf KoTH's way: the host adds answers as
folders): a bot folder copied in shows on the Scoreboard after its games, pushed to an open event
stream without a reload; one served beside a submissions challenge by the same process."""

from __future__ import annotations

import html
import json
import re
import shutil
import time

import httpx

from tests.serve.webserver import ROOT, Server, challenge, client

SWAP2 = ROOT / "plugins" / "gomoku_swap2" / "bots"


def test_a_bot_copied_in_shows_on_the_scoreboard(tmp_path):
    folder = tmp_path / "koth"
    (folder / "bots").mkdir(parents=True)
    for b in ("greedy", "threat"):
        shutil.copytree(SWAP2 / b, folder / "bots" / b)
    (folder / "kothkit.toml").write_text(
        'game = "gomoku_swap2"\nbots = ["bots"]\nrounds = 1\nseed = 4\n[serve]\nkind = "folder"\ntitle = "Swap2 KoTH"\n')
    course = challenge(tmp_path / "g12")
    server = Server([folder, course], tmp_path / "state", tmp_path)
    try:
        with client(server) as c:
            index = c.get("/").text
            assert "Swap2 KoTH" in index and "/c/koth/" in index and "/c/g12/" in index
            # A folder challenge's Rules page: no course wording, and a link to the game's protocol.
            rules = c.get("/c/koth/about").text
            assert "template brain" not in rules.lower() and "Writing a bot" in rules
            assert "is a bot folder that talks to the judge in the game" in html.unescape(rules)
            assert '<a href="/c/koth/protocol" id="protocol-link">The protocol of gomoku_swap2</a>' in rules
            protocol = c.get("/c/koth/protocol")
            assert protocol.status_code == 200 and "Protocol for bot authors</h2>" in protocol.text
            assert "编写程序" in c.get("/c/koth/about", headers={"accept-language": "zh-CN"}).text
            # A submissions challenge keeps its template brains, and has no protocol link.
            course_rules = c.get("/c/g12/about").text
            assert "Template brains" in course_rules and "protocol-link" not in course_rules
            # The pages say how many games wait for a slot and how many are being played.
            assert "games queued" in index
            assert re.search(r'<span id="queued">\d+</span> games queued, <span id="playing">\d+</span> playing',
                             c.get("/c/koth/").text)

            def rows():
                return {r["bot"]: r for r in c.get("/c/koth/standings.json").json()["rows"]}

            until = time.monotonic() + 180
            while not (len(rows()) == 2 and all(r["games"] == 2 for r in rows().values())):
                assert time.monotonic() < until, f"greedy and threat not played: {rows()}"
                time.sleep(0.5)
            assert "submit" not in c.get("/c/koth/").text.lower().split("</nav>")[0]
            assert c.get("/c/koth/submit").status_code in (303, 404)

            # An open event stream; then a new answer is copied in.
            seen: list[dict] = []
            with httpx.stream("GET", f"{server.url}/c/koth/events", params={"since": str(c.get("/c/koth/standings.json").json()["version"])},
                              timeout=httpx.Timeout(30, read=200)) as events:
                shutil.copytree(SWAP2 / "scout", folder / "bots" / "scout")
                for line in events.iter_lines():
                    if line.startswith("data: "):
                        data = json.loads(line[6:])
                        seen.append(data)
                        got = {r["bot"]: r for r in data["rows"]}
                        if "scout" in got and got["scout"]["games"] == 4:
                            break
                    assert time.monotonic() < until + 200, f"scout not on the Scoreboard after its games: {seen[-1:]}"
            final = rows()
            assert set(final) == {"greedy", "threat", "scout"}
            assert all(r["games"] == 4 for r in final.values()), final
            # Its games are listed and replayable (a folder challenge's replays are public).
            page = c.get("/c/koth/bot/scout").text
            gid = page.split('/c/koth/game/')[1].split('"')[0]
            replay = c.get(f"/c/koth/game/{gid}")
            assert replay.status_code == 200 and "Content-Security-Policy" in replay.text
    finally:
        assert server.stop() == 0, server.text


def test_an_answer_that_keeps_files_is_not_played_again_for_what_it_wrote(tmp_path):
    """A live KoTH of seed 002's answers: a ``meta`` answer keeps a diary beside its code.  Rescanned
    every couple of seconds, it keeps its games (before, every scan after its games saw a new
    content hash and played them all again, forever); its author's change plays them again, once."""
    from tests.core.test_kept_files import answer

    folder = tmp_path / "koth"
    (folder / "bots").mkdir(parents=True)
    answer(folder / "bots" / "diary", "diary", 0)
    shutil.copytree(SWAP2 / "greedy", folder / "bots" / "greedy")
    (folder / "kothkit.toml").write_text(
        'game = "gomoku_swap2"\nbots = ["bots"]\nrounds = 1\nseed = 4\n[serve]\nkind = "folder"\ntitle = "Diaries"\n')
    diary = folder / "bots" / "diary" / "diary.txt"
    server = Server([folder], tmp_path / "state", tmp_path)
    try:
        with client(server) as c:
            def games() -> dict:
                return {r["bot"]: r["games"] for r in c.get("/c/koth/standings.json").json()["rows"]}

            def played(n: int) -> None:
                until = time.monotonic() + 180
                while not (games() == {"diary": 2, "greedy": 2} and diary.exists()
                           and diary.read_text().startswith(f"{n} games")):
                    assert time.monotonic() < until, (games(), diary.exists() and diary.read_text())
                    time.sleep(0.3)

            played(2)
            time.sleep(7)  # three scans of the folder
            assert diary.read_text().startswith("2 games") and games() == {"diary": 2, "greedy": 2}
            code = folder / "bots" / "diary" / "diary.py"
            code.write_text(code.read_text().replace("START = 0", "START = 1"))
            played(4)
            time.sleep(7)
            assert diary.read_text().startswith("4 games") and games() == {"diary": 2, "greedy": 2}
    finally:
        assert server.stop() == 0, server.text
