"""``kothkit check lowbid BOT`` at the game's fewest seats (3) and at its most (10): a bot that
assumes a table of three passes every run at three seats and fails at ten, each run's title saying
at how many seats it played; a bundled bot passes every run, the games against the bundled bots
(at every other seat of a table, replying all at once) included."""

from __future__ import annotations

import subprocess
import sys

#: A lowbid bot written for a table of three: it unpacks the last round's bids into three names.
THREE = """import sys
for line in sys.stdin:
    if line.startswith("BID "):
        rnd, rounds, top, seat, a, b, c = (int(x) for x in line.split()[1:])
        print(min(top, 2 + seat), flush=True)
    elif line.startswith("END"):
        break
"""


def check(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kothkit", "check", "lowbid", *args], capture_output=True,
                          text=True, timeout=240, cwd=tmp_path)


def runs(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(("  ok ", "  FAIL", "  -- "))]


def test_a_bot_for_three_players_fails_at_ten_seats_only(tmp_path):
    bot = tmp_path / "three"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "three"\ncommand = ["python3", "bot.py"]\n')
    (bot / "bot.py").write_text(THREE)
    done = check(tmp_path, str(bot), "--quick")
    assert done.returncode == 1, done.stdout + done.stderr
    found = runs(done.stdout)
    # The game's three scenarios and every seat at three; the first and the last seat at ten.
    assert len(found) == 8, found
    assert [r.startswith("  ok ") for r in found] == [True] * 6 + [False] * 2, found
    assert "first bid (as seat 1 of 3)" in found[0] and "as seat 2 of 3: the opening" in found[5]
    assert "FAIL  as seat 0 of 10: the opening" in found[6] and "FAIL  as seat 9 of 10: the opening" in found[7]
    assert "too many values to unpack" in done.stdout and "2 problems in 2 of 8 runs" in done.stdout


def test_a_bundled_bot_passes_at_every_table(tmp_path):
    done = check(tmp_path, "one")
    assert done.returncode == 0, done.stdout + done.stderr
    found = runs(done.stdout)
    assert len(found) == 18 and all(r.startswith("  ok ") for r in found), found
    assert "as seat 9 of 10: a game against the bundled bot spoiler in every other seat  [10 replies" in done.stdout
    assert "lost by a fault" not in done.stdout  # (the bundled bots' replies, sent together, are no fault)
