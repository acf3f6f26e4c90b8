"""The blindfold Connect-4 course (seed 003) hosted as the bundled challenge folder
``challenges/connect4_course`` by a real ``kothkit serve``: students submit Python function bots
(a ``[serve.languages.*]`` profile with ``entry = "bot.py:play"``); a file that does not compile,
or defines no ``play``, fails its "build" with the reason; the bots play each other, isolated; each author's game log and
replay page hold their own bot's prints at their moves, never the opponent's."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from kothkit.serve.settings import SettingsError, load
from tests.serve.webserver import ROOT, Server, client, roster, submit, user, wait_for

COURSE = ROOT / "challenges" / "connect4_course"
NAME = "connect4_course"


def bot(name: str) -> bytes:
    """A student's function bot: prints a secret line at each move, with its turn."""
    return (f"def play(view, turn, state):\n"
            f"    print('SECRET-{name} at turn', turn)\n"
            f"    return (turn // 2) % 7, state\n").encode()


def submitted(c, name: str, source: bytes) -> None:
    r = submit(c, NAME, source, filename="bot.py", language="python")
    assert r.status_code == 303, r.text[-1500:]


def test_the_course_takes_function_bots_that_play_with_their_logs_at_their_moves(browser, tmp_path):
    state = tmp_path / "state"
    roster(state, tmp_path, ["alice", "bob", "carol", "dave"])
    server = Server([COURSE], state, tmp_path)
    try:
        with (user(server, "alice") as alice, user(server, "bob") as bob, user(server, "carol") as carol,
              user(server, "dave") as dave):
            page = alice.get(f"/c/{NAME}/submit").text
            assert 'value="python"' in page and "bot.py" in page and "play" in page
            submitted(alice, "alice", bot("alice"))
            submitted(bob, "bob", bot("bob"))
            submitted(carol, "carol", b"def play(view, turn, state)\n    return 0, state\n")
            submitted(dave, "dave", b"def strategy(view, turn, state):\n    return 0, state\n")

            def rows():  # by the name the Scoreboard shows: the author's nickname
                return {r["name"]: r for r in alice.get(f"/c/{NAME}/standings.json").json()["rows"]}

            wait_for(lambda: rows().get("nick-alice", {}).get("games") == 10
                     and rows().get("nick-bob", {}).get("games") == 10,
                     240, message=f"alice and bob play their 10 games: {server.text[-2000:]}")
            assert "nick-carol" not in rows() and "nick-dave" not in rows()
            # A file that does not compile, or defines no play: its build failed, and its author
            # is told why (with the line).
            mine = carol.get(f"/c/{NAME}/mine").text
            assert "build failed" in mine.lower() or "build-failed" in mine, mine[-3000:]
            assert "SyntaxError" in mine and "line 1" in mine, mine[-3000:]
            mine = dave.get(f"/c/{NAME}/mine").text
            assert "bot.py defines no function &#39;play&#39;" in mine, mine[-3000:]

            games = alice.get(f"/c/{NAME}/bot/alice", follow_redirects=True).text  # her own bot's page
            gids = re.findall(rf'/c/{NAME}/game/([0-9a-f]+)/log', games)
            assert gids, games[-3000:]
            gid = gids[0]
            log = alice.get(f"/c/{NAME}/game/{gid}/log", params={"bot": "alice"}).text
            secrets = re.findall(r"\[move (\d+)\] stderr: SECRET-alice at turn (\d+)", log)
            assert secrets and all(int(move) == int(turn) + 1 for move, turn in secrets), log
            assert "SECRET-bob" not in log and "[end] stderr: SECRET" not in log

            # The replay page holds alice's log only (the host filters it), and shows it.
            replay = alice.get(f"/c/{NAME}/game/{gid}/replay").text
            doc = json.loads(re.search(r'<script type="application/json" id="kothkit-game">(.*?)</script>', replay,
                                       re.S).group(1))["game"]
            assert sorted(doc["logs"]) == ["nick-alice", "nick-bob"]
            assert [ln["text"].split(" at")[0] for ln in doc["logs"]["nick-alice"]] == ["SECRET-alice"] * len(secrets)
            assert [ln["move"] for ln in doc["logs"]["nick-alice"]] == [int(move) for move, _ in secrets]
            assert doc["logs"]["nick-bob"] == []
            shown = browser.new_page()
            try:
                shown.context.add_cookies([{"name": k, "value": v, "url": server.url} for k, v in alice.cookies.items()])
                shown.goto(f"{server.url}/c/{NAME}/game/{gid}/replay")
                assert shown.locator("#logs .logname").all_inner_texts() == ["nick-alice"]
                lines = shown.locator("#logs .logline").all_inner_texts()
                assert lines and all(re.fullmatch(r"\[move \d+\] stderr: SECRET-alice at turn \d+", t) for t in lines)
            finally:
                shown.close()
        with client(server) as anyone:  # a visitor who is nobody's author sees no logs at all
            replay = anyone.get(f"/c/{NAME}/game/{gid}/replay").text
            doc = json.loads(re.search(r'id="kothkit-game">(.*?)</script>', replay, re.S).group(1))["game"]
            assert doc["logs"] == {"nick-alice": [], "nick-bob": []} and "SECRET" not in replay
    finally:
        assert server.stop() == 0, server.text


@pytest.mark.parametrize("profile, words", [
    ('entry = "bot.py:play"\ncommand = ["python3", "bot.py"]', ":24: [serve.languages.python] command is for programs"),
    ('entry = "bot.py:play"\nbuild = "true"', ":24: [serve.languages.python] build is for programs"),
    ('entry = "bot.py"', ":23: [serve.languages.python] entry must be a file name and a function"),
    ('entry = "../x.py:play"', ":23: [serve.languages.python] entry must be a file name and a function"),
    ('entry = "bot.py:play"\nfile = "brain.py"', ":24: [serve.languages.python] file must be the entry's file"),
])
def test_a_wrong_function_profile_names_its_line(tmp_path, profile, words):
    folder = tmp_path / "course"
    shutil.copytree(COURSE, folder)
    toml = folder / "kothkit.toml"
    text = toml.read_text()
    toml.write_text(text[:text.index('entry = "bot.py:play"')] + profile + "\n")
    with pytest.raises(SettingsError) as e:
        load(folder)
    assert str(e.value).startswith(str(toml) + words), str(e.value)
