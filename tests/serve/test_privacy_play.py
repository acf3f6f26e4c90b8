"""Privacy on the Play page (issue 28, items 1 and 2): with ``play_all = true`` a student plays
another student's brain, which writes a marker on its stderr and then crashes.  The player reads
the crash's neutral reason (never the brain's stderr nor its author's login) in the live game's
state, in their list of games played and in the stored game's replay; the brain's author reads
the full reason in their own game; another student and a visitor see nothing of either game."""

from __future__ import annotations

from tests.serve.test_privacy import ALICE_MARKS, crash_brain
from tests.serve.webserver import Server, challenge, client, play, roster, submit, user, wait_for

NAME = "g12"
ALICE, BOB, CAROL = "20240001", "20240002", "20240003"


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
            _live, st, _replay = play(alice, NAME, "your latest brain")
            assert "MARK-alice-stderr" in st["result"] and any("MARK-alice-stderr" in x for x in st["log"]), st
        with user(server, BOB, "Bob") as bob:
            live, st, replay = play(bob, NAME, "Alice")
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
        # The Play page's journal (a seat named after its login) is the host's user's alone.
        assert (state / "play").stat().st_mode & 0o777 == 0o700
        assert {f.stat().st_mode & 0o777 for f in (state / "play").iterdir()} == {0o600}
    finally:
        assert server.stop() == 0, server.text
