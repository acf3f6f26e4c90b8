"""`kothkit check GAME BOT`: a seeded protocol mistake for each bundled game, reported in plain words.

The misbehaving bots live in tests/bots/check/; each makes one mistake a bot
author really makes (a reply to the wrong prompt, a reply to a notice, a slow
start, an unflushed or unterminated line, a function returning the wrong shape).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kothkit.testing import Scenario, check_bot

ROOT = Path(__file__).resolve().parents[2]
BAD = ROOT / "tests" / "bots" / "check"
MNK_SRC = ROOT / "tests" / "thirdparty" / "mnk" / "src"


def test_swap2_wrong_answer_to_the_c_prompt_is_found_by_exploring_the_opening(cli):
    # The mistake is only reachable when the opponent answers the opening with two stones.
    done = cli("check", "gomoku_swap2", BAD / "swap2_bad_c", "--quick")
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "FAIL  as seat 0 (opens): the opponent answers '(" in out
    assert "The game could not read your bot's reply '(" in out
    assert "to 'C [" in out
    assert "expected 'B' or 'W'" in out
    # The other branches of the opening were tried too, and passed.
    assert "ok    as seat 0 (opens): the opponent answers 'B'" in out
    assert "ok    as seat 0 (opens): the opponent answers 'W (" in out
    assert "1 problem in 1 of" in out


def test_classic12_reply_to_a_notice_is_out_of_turn(cli):
    # The extra line comes at once; --listen gives a loaded machine plenty of time to show it.
    done = cli("check", "gomoku_classic12", BAD / "classic_answers_place", "--quick", "--listen", "0.5")
    assert done.returncode == 1
    out = done.stdout
    assert "when no reply was due. It had already answered 'TURN' with '0 " in out
    assert "nothing in answer to lines that need no reply (such as 'PLACE " in out
    assert "start them with 'DEBUG'" in out
    assert "<- not expected" in out  # the transcript marks the extra line


@pytest.mark.slow
def test_classic12_slow_start(cli):
    done = cli("check", "gomoku_classic12", BAD / "classic_slow_start", "--quick")
    assert done.returncode == 1
    assert "No reply within 1 s to 'START 1'. This is a first reply, allowed 1 s: a slow start?" in done.stdout


def test_classic12_unflushed_output(cli):
    done = cli("check", "gomoku_classic12", BAD / "classic_no_flush", "--quick")
    assert done.returncode == 1
    # The bot's OK came out only when it exited: proof that it sat in a buffer, not a slow start.
    assert ("No reply within 1 s to 'START 1', although your bot did write 'OK': the judge only got it when the bot "
            "exited, so it was stuck in an output buffer. Flush after every line") in done.stdout
    assert "the same as in run 1 above" in done.stdout  # one explanation, not one per run


def test_classic12_slow_move_is_slow_not_buffered(cli):
    # The brain flushes every line, but its 3rd move takes 2.5 s of the 2 s allowed: its reply comes
    # while it still runs (the check waits for it), which tells slow from stuck in a buffer.
    done = cli("check", "gomoku_classic12", BAD / "classic_slow_move", "--quick")
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "Your bot answered '0 2' to 'TURN' after 2," in out
    assert "but 2 s is allowed (plus 0.05 s of tolerance): it is too slow, its output is not stuck" in out
    assert "buffer" not in out
    assert "ms: too late)" in out  # the transcript shows the late reply and when it came


def test_classic12_line_without_newline(cli):
    done = cli("check", "gomoku_classic12", BAD / "classic_no_newline", "--quick")
    assert done.returncode == 1
    assert "Your bot wrote 'OK' but no end of line within 1 s to 'START 1': end every reply with a newline" in done.stdout


def test_connect4_function_returning_a_bare_column(cli):
    done = cli("check", "connect4_hidden", BAD / "connect4_bare_int", "--quick")
    assert done.returncode == 1
    assert "Your function returned something the game cannot use" in done.stdout
    assert "expected (reply, state), got 3. A function bot returns a pair" in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("game,bot", [
    ("gomoku_swap2", "threat"),
    ("gomoku_classic12", "pywindow"),
    ("connect4_hidden", "deducer"),
])
def test_a_bundled_bot_passes_the_full_check(cli, game, bot):
    done = cli("check", game, ROOT / "plugins" / game / "bots" / bot, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{bot} passed all" in done.stdout
    assert "a whole game against a random player" in done.stdout
    assert "a game against the bundled bot" in done.stdout


def test_a_bot_that_does_not_load_cannot_be_checked(cli, tmp_path):
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "bot.toml").write_text('name = "broken"\ncomand = ["python3", "bot.py"]\n')
    done = cli("check", "gomoku_swap2", tmp_path / "broken")
    assert done.returncode == 2
    assert "unknown key 'comand'" in done.stderr


def test_a_bundled_bot_is_checked_by_its_name(cli):
    done = cli("check", "connect4_hidden", "deducer", "--quick")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "deducer passed all" in done.stdout
    done = cli("check", "connect4_hidden", "nobody")
    assert done.returncode == 2
    assert "nobody: no such bot folder, file.py:function, or bundled bot of connect4_hidden (bundled: " in done.stderr
    assert "deducer" in done.stderr


def test_unknown_game(cli):
    done = cli("check", "no_such_game", BAD / "swap2_bad_c")
    assert done.returncode == 1
    assert "no game named 'no_such_game'" in done.stderr


# -- scenarios, through the Python API (the third-party mnk game, loaded from its source) -------------
@pytest.fixture
def mnk(monkeypatch):
    monkeypatch.syspath_prepend(str(MNK_SRC))
    from kothkit_mnk.plugin import INFO

    return INFO


def test_scenarios_script_the_opponent_and_end_the_game(mnk):
    scenarios = [Scenario("O answers a corner", "You play O after X took 0 0.", seat=1, script=("0 0",), bot_replies=1)]
    report = check_bot(mnk, mnk.bots / "blocker", scenarios=scenarios, quick=True)
    assert report.ok, report
    run = report.runs[0]
    assert run.title == "O answers a corner" and run.seat == 1 and run.replies == 1
    assert "opponent (seat 0) plays: 0 0" in run.transcript
    assert "judge -> blocker: TURN O 3 X../.../..." in run.transcript
    assert "opponent (seat 0) resigns" in run.transcript
    assert "judge -> blocker: END WIN (end of game, no reply)" in run.transcript


def test_a_broken_scenario_is_blamed_on_the_game_not_the_bot(mnk):
    scenarios = [Scenario("off the board", seat=1, script=("9 9",))]
    report = check_bot(mnk, mnk.bots / "random", scenarios=scenarios, quick=True)
    (finding,) = report.runs[0].findings
    assert finding.severity == "error"
    assert "the game rejected the scripted reply '9 9' of seat 0" in finding.text
    assert "tell the game's author" in finding.text


def test_scenario_rules_the_game_rejects_are_the_games_error(mnk):
    scenarios = [Scenario("bad rules", seat=0, rules={"q": 1}), Scenario("one move", seat=0, bot_replies=1)]
    report = check_bot(mnk, mnk.bots / "random", scenarios=scenarios, quick=True)
    (finding,) = report.runs[0].findings
    assert finding.severity == "error"
    assert "the game rejects the rules {'q': 1} of this scenario: ValueError: mnk: unknown rules setting 'q'" in finding.text
    assert "tell the game's author" in finding.text
    assert report.runs[1].ok  # the other scenarios still run


def test_a_bot_crashing_on_the_end_message_is_warned_about(mnk, tmp_path):
    bot = tmp_path / "endcrash"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "endcrash"\ncommand = ["python3", "bot.py"]\n')
    (bot / "bot.py").write_text(
        "import sys\n"
        "for line in sys.stdin:\n"
        "    w = line.split()\n"
        "    if w[0] == 'END':\n"
        "        raise SystemExit('cannot parse ' + line.strip())\n"
        "    rows = w[3].split('/')\n"
        "    r, c = next((r, c) for r, row in enumerate(rows) for c, x in enumerate(row) if x == '.')\n"
        "    print(r, c, flush=True)\n")
    report = check_bot(mnk, bot, quick=True)
    assert report.ok  # not a fault: the game was over
    warnings = {f.text for r in report.runs for f in r.findings if f.severity == "warning"}
    assert any("after the end of the game your bot exited with code 1; last stderr line: 'cannot parse END WIN'" in w
               for w in warnings), warnings


def test_a_bot_that_never_exits_is_warned_about(mnk, tmp_path):
    bot = tmp_path / "lingers"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "lingers"\ncommand = ["python3", "bot.py"]\n')
    (bot / "bot.py").write_text(
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "for line in sys.stdin:\n"
        "    w = line.split()\n"
        "    if w[0] == 'END':\n"
        "        break\n"
        "    rows = w[3].split('/')\n"
        "    r, c = next((r, c) for r, row in enumerate(rows) for c, x in enumerate(row) if x == '.')\n"
        "    print(r, c, flush=True)\n"
        "while True:\n"
        "    time.sleep(1)\n")
    scenarios = [Scenario("one move", seat=0, bot_replies=1)]
    report = check_bot(mnk, bot, scenarios=scenarios, quick=True)
    run = report.runs[0]
    assert run.ok
    assert any("was still running 0.2 s after the end of the game" in f.text for f in run.findings)


def test_a_seat_never_asked_is_not_reported_as_ok(cli, tmp_path):
    # An opponent that dies before its first reply: as seat 1, the checked bot is never asked anything.
    dead = tmp_path / "dead"
    dead.mkdir()
    (dead / "bot.toml").write_text('name = "dead"\ncommand = ["python3", "-c", "raise SystemExit(3)"]\n')
    done = cli("check", "gomoku_swap2", "threat", "--against", dead, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "ok    as seat 1: a game against the bundled bot dead" not in out
    assert "[0 replies" not in out
    line = next(l for l in out.splitlines() if "as seat 1: a game against" in l)
    assert line.startswith("  --    ") and "[never asked: the game ended (" in line and "before the bot's turn]" in line
    assert "ok    as seat 0 (opens): a game against the bundled bot dead  [1 reply" in out
    assert "(2 warnings; 1 run never asked the bot anything)" in out
