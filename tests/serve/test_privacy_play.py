"""Privacy on the Play page (issue 28, items 1 and 2): with ``play_all = true`` a student plays
another student's brain, which writes a marker on its stderr and then crashes.  The player reads
the crash's neutral reason (never the brain's stderr nor its author's login) in the live game's
state, in their list of games played and in the stored game's replay; the brain's author reads
the full reason in their own game; another student and a visitor see nothing of either game."""

from __future__ import annotations

import re
import time

import httpx

from tests.serve.test_privacy import ALICE_MARKS, crash_brain
from tests.serve.webserver import Server, challenge, client, csrf_of, roster, submit, user, wait_for

NAME = "g12"
ALICE, BOB, CAROL = "20240001", "20240002", "20240003"


def play(c: httpx.Client, opponent_label: str, seat: str = "0", timeout: float = 90) -> tuple[str, dict, str]:
    """A whole Play game over HTTP against the opponent whose label holds ``opponent_label``, each
    move the next free cell: its live URL, its last state and its replay's path."""
    page = c.get(f"/c/{NAME}/play").text
    options = dict((label.strip(), value) for value, label in
                   re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', page))
    key = next(v for label, v in options.items() if opponent_label in label)
    r = c.post(f"/c/{NAME}/play", data={"csrf": csrf_of(page), "opponent": key, "seat": seat})
    assert r.status_code == 303, r.text[-1000:]
    live = r.headers["location"]
    token = csrf_of(c.get(live).text)
    cells = iter([(r_, c_) for r_ in range(12) for c_ in range(12)])
    until = time.monotonic() + timeout
    seen = -1
    while time.monotonic() < until:
        st = c.get(f"{live}/state").json()
        if st["over"]:
            assert st.get("final") or st.get("abandoned"), st
            wait_for(lambda: c.get(f"{live}/state").json().get("replay"), 30, message="the replay's link")
            st = c.get(f"{live}/state").json()
            return live, st, st["replay"]
        if st.get("waiting") and st["seq"] != seen:
            seen = st["seq"]
            r_, c_ = next(cells)
            assert c.post(f"{live}/move", data={"csrf": token, "text": f"{r_} {c_}"}).status_code == 200
        time.sleep(0.05)
    raise AssertionError(f"the Play game did not end within {timeout} s")



def test_a_play_game_against_anothers_brain_shows_its_fault_neutrally(tmp_path):
    ch = challenge(tmp_path / NAME, min_interval=0)
    with open(ch / "kothkit.toml", "a") as f:  # ([serve] is the file's last table)
        f.write("play_all = true\n")
    state = tmp_path / "state"
    roster(state, tmp_path, [ALICE, BOB, CAROL])
    server = Server([ch], state, tmp_path)
    try:
        with user(server, ALICE, "Alice") as alice:
            assert submit(alice, NAME, crash_brain("alice")).status_code == 303
            wait_for(lambda: "Alice" in alice.get(f"/c/{NAME}/standings.json").text, 120, message="alice's brain in")
            # Her own brain's fault, in full, for her.
            _live, st, _replay = play(alice, "your latest brain")
            assert "MARK-alice-stderr" in st["result"] and any("MARK-alice-stderr" in x for x in st["log"]), st
        with user(server, BOB, "Bob") as bob:
            live, st, replay = play(bob, "Alice")
            seen = {"state": repr(st), "list": bob.get(f"/c/{NAME}/play").text, "replay": bob.get(replay).text,
                    "live page": bob.get(live).text}
            assert "crash: killed by SIGSEGV" in st["result"], st
            assert any("crash: killed by SIGSEGV" in x for x in st["log"]), st
            for what, text in seen.items():
                for word in (ALICE, *ALICE_MARKS):
                    assert word not in text, (what, word)
            assert "crash: killed by SIGSEGV" in seen["list"] and "Alice" in seen["list"]
        # Bob's game is nobody else's: a student is refused it, a visitor asked to sign in.
        with user(server, CAROL, "Carol") as carol:
            r = carol.get(replay)
            assert r.status_code == 403 and "MARK" not in r.text and ALICE not in r.text
            assert carol.get(f"{live}/state").status_code == 404
            assert "played/" not in carol.get(f"/c/{NAME}/play").text
        with client(server) as anon:
            r = anon.get(replay)
            assert r.status_code == 303 and r.headers["location"].startswith("/login")
    finally:
        assert server.stop() == 0, server.text
