"""connect4_hidden through the real command line: tournaments, isolated vs trusted, misbehaving bots.

Every run is a real ``python -m kothkit run`` subprocess with a timeout; bots
run in isolated function hosts (the default) or in the judge (``--trusted``).
"""

from __future__ import annotations

import collections
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kothkit.results.archive import log_lines
from kothkit.store.journal import Journal

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "bots" / "connect4"
BUNDLED = ROOT / "plugins" / "connect4_hidden" / "bots"


def run(tmp: Path, *args: str, name: str = "out", timeout: float = 240, target: str = "connect4_hidden") -> dict:
    out, db = tmp / f"{name}.json", tmp / f"{name}.sqlite"
    proc = subprocess.run(
        [sys.executable, "-m", "kothkit", "run", target, *args, "--json", str(out), "--db", str(db), "-q"],
        cwd=tmp, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    doc = json.loads(out.read_text())
    doc["_stdout"], doc["_stderr"] = proc.stdout, proc.stderr
    return doc


def games(doc: dict) -> list[tuple]:
    """What must not depend on how the bots were run: who played, who won, why, and every move."""
    return [(tuple(g["players"]), g["winner"], g["reason"], g["fault"], g["verdict"], g["moves"]) for g in doc["games"]]


def against_constant_player(tmp: Path, entry: str, *flags: str, **kw) -> dict:
    """One round (unless ``flags`` say otherwise) of the test bot ``entry`` against constant_player."""
    return run(tmp, "--bots", str(BOTS / entry), "--bots", str(BUNDLED / "constant_player"), "--rounds", "1",
               "--seed", "5", *flags, **kw)


def assert_all_lost_by(doc: dict, name: str, verdict: str, games: int) -> None:
    """``doc`` has ``games`` games, and ``name`` lost every one of them with ``verdict``."""
    found = [(g["fault"], g["verdict"]) for g in doc["games"]]
    assert found == [(name, verdict)] * games, doc["games"]


def verdicts(doc: dict) -> collections.Counter:
    return collections.Counter((g["fault"], g["verdict"]) for g in doc["games"] if g["fault"])


def test_a_tournament_of_the_bundled_bots(tmp_path):
    doc = run(tmp_path, "--rounds", "50", "--seed", "1")
    assert doc["game"] == "connect4_hidden" and doc["seed"] == 1 and not doc["errors"]
    # Five bots, every ordered pair once per round.
    assert doc["played"] == 5 * 4 * 50 == len(doc["games"])
    table = {s["bot"]: s for s in doc["standings"]}
    assert set(table) == {"random_player", "constant_player", "better_random_player", "better_constant_player",
                          "deducer"}
    assert doc["standings"][0]["bot"] == "deducer" and table["deducer"]["points"] > 0.8
    for s in doc["standings"]:
        assert s["games"] == 400 == s["wins"] + s["draws"] + s["losses"]
        assert s["points"] == pytest.approx((s["wins"] - s["losses"]) / s["games"], abs=1e-3)
    assert not verdicts(doc)  # the bundled bots never misbehave
    for g in doc["games"]:
        assert all(type(m) is int and 0 <= m < 7 for m in g["moves"])
    # The seed's own table follows the standings, in the same order.
    lines = doc["_stdout"].splitlines()
    header = next(i for i, line in enumerate(lines) if line.split() == ["Name", "Draws", "Losses", "Wins", "Score"])
    rows = [line.split() for line in lines[header + 2:header + 7]]
    # Numbers right-aligned under their headings: every line ends where the header does,
    # negative scores included.
    assert {len(line) for line in lines[header:header + 7] if line} == {len(lines[header])}
    assert [r[0] for r in rows] == [s["bot"] + ":" for s in doc["standings"]]
    assert [(int(r[1]), int(r[2]), int(r[3])) for r in rows] == [
        (s["draws"], s["losses"], s["wins"]) for s in doc["standings"]]


def test_a_program_bot_plays_by_the_json_line_protocol(tmp_path):
    """program_leftmost reads {"view": ..., "turn": N} lines and answers better_constant_player's column."""
    from kothkit.game import Outcome, Setup
    from kothkit_connect4_hidden.match import Connect4Match

    doc = run(tmp_path, "--bots", str(BOTS / "program_leftmost"), "--bots", str(BUNDLED / "random_player"),
              "--rounds", "4", "--seed", "9")
    assert len(doc["games"]) == 8 and not verdicts(doc)
    for g in doc["games"]:
        m = Connect4Match(Setup(players=tuple(g["players"]), seed=0))
        for move in g["moves"]:
            step = m.next()
            if g["players"][step.seat] == "program_leftmost":
                assert type(move) is str  # a program bot's reply is its line
                view = step.payload[0]
                assert int(move) == next(j for j in range(7) if view[-1][j] == 0)
            assert m.play(step.seat, move) is None
        out = m.next()
        assert isinstance(out, Outcome) and out.reason == g["reason"]
        assert (None if out.winner is None else g["players"][out.winner]) == g["winner"]


def test_isolated_and_trusted_play_the_same_games(tmp_path):
    isolated = run(tmp_path, "--rounds", "6", "--seed", "77", "--jobs", "2", name="isolated")
    trusted = run(tmp_path, "--rounds", "6", "--seed", "77", "--jobs", "1", "--trusted", name="trusted")
    again = run(tmp_path, "--rounds", "6", "--seed", "77", "--jobs", "1", name="again")
    assert games(isolated) == games(trusted) == games(again)
    assert isolated["standings"] == trusted["standings"]
    other = run(tmp_path, "--rounds", "6", "--seed", "78", "--trusted", name="other")
    assert games(other) != games(trusted)  # the random bots do depend on the seed


MISBEHAVING = [
    ("raiser.py:raiser", "crash"),
    ("garbage.py:not_a_tuple", "invalid-reply"),
    ("garbage.py:word_column", "invalid-reply"),
    ("garbage.py:bool_column", "invalid-reply"),
    ("garbage.py:unserialisable", "invalid-reply"),
    ("garbage.py:off_board", "illegal-move"),
    ("garbage.py:negative", "illegal-move"),
    ("exiter.py:exiter", "crash"),
    ("broken_import.py:broken", "crash"),
]


@pytest.mark.parametrize("mode", ["isolated", "trusted"])
def test_misbehaving_bots_lose_with_their_verdict_and_the_judge_carries_on(tmp_path, mode):
    args = []
    for entry, _ in MISBEHAVING:
        args += ["--bots", str(BOTS / entry)]
    if mode == "isolated":  # these would end the judge itself if trusted
        args += ["--bots", str(BOTS / "exiter.py:hard_exit"), "--bots", str(BOTS / "exiter.py:late_exit")]
    args += ["--bots", str(BUNDLED / "better_constant_player"), "--rounds", "1", "--seed", "3"]
    doc = run(tmp_path, *args, *(["--trusted"] if mode == "trusted" else []), name=mode)
    found = verdicts(doc)
    expected = dict(MISBEHAVING)
    if mode == "isolated":
        expected["exiter.py:hard_exit"] = "crash"
        expected["exiter.py:late_exit"] = "crash"
    for entry, kind in expected.items():
        name = entry.split(":")[1]
        assert found[(name, kind)] > 0, (name, kind, found)
        assert all(k == kind for (bot, k) in found if bot == name), found
    # better_constant_player never misbehaves and wins every game it plays.
    table = {s["bot"]: s for s in doc["standings"]}
    assert table["better_constant_player"]["losses"] == 0
    assert all(bot != "better_constant_player" for bot, _ in found)


def test_a_bot_that_raised_keeps_its_host_as_a_trusted_bot_keeps_its_module(tmp_path):
    # The host answered the raise in good order, so it serves the bot's next games: its module
    # globals go on, as they do for a trusted bot (a new host would start them over, and
    # raise again on its own third call).
    args = ["--bots", str(BOTS / "raises_once.py:raises_once"), "--bots", str(BUNDLED / "constant_player"),
            "--rounds", "2", "--seed", "6", "--jobs", "1"]
    isolated = run(tmp_path, *args, name="isolated")
    trusted = run(tmp_path, *args, "--trusted", name="trusted")
    assert games(isolated) == games(trusted)
    assert [g["verdict"] for g in isolated["games"]].count("crash") == 1, isolated["games"]


@pytest.mark.parametrize("mode, jobs", [("isolated", "2"), ("trusted", "1"), ("trusted", "2")])
def test_what_a_function_bot_prints_or_raises_is_in_its_log_of_each_game(tmp_path, mode, jobs):
    doc = run(tmp_path, "--bots", str(BOTS / "printer.py:printer"), "--bots", str(BOTS / "printer.py:flood"),
              "--bots", str(BOTS / "raiser.py:raiser"), "--bots", str(BUNDLED / "constant_player"),
              "--rounds", "1", "--seed", "4", "--jobs", jobs, *(["--trusted"] if mode == "trusted" else []), name=mode)
    with Journal(tmp_path / f"{mode}.sqlite") as j:
        recs = list(j.all("connect4_hidden"))
    assert len(recs) == 12
    loaded = 0
    for rec in recs:
        if "printer" in rec.players:
            # Every call's prints, to stdout and stderr (a line without newline too), in this
            # game's log and no other: its calls number 1, 2, ... as its state counts them.
            seat = rec.players.index("printer")
            turns = [i for i, m in enumerate(rec.moves) if m.seat == seat]
            log = rec.logs["printer"]
            assert re.findall(r"printer: call (\d+) of this game, turn (\d+)", log) == [
                (str(n + 1), str(t)) for n, t in enumerate(turns)]
            assert re.findall(r"printer: to stderr, turn (\d+)", log) == [str(t) for t in turns]
            assert log.count("[no newline") == len(turns)
            loaded += log.count("printer: loaded")
            # Each line filed at the move it was printed in (its first byte's), not at the end.
            for line in log_lines(rec, "printer"):
                printed = re.match(r"(?:\[no newline |printer: to stderr, turn |printer: call 1 of this game, turn )(\d+)",
                                   line.text)
                if printed:
                    assert line.move == int(printed.group(1)) + 1, (line, rec.moves)
                elif line.text == "printer: loaded":
                    assert line.move == 1, line
        if "flood" in rec.players:
            kept, _, note = rec.logs["flood"].rpartition("\n")
            assert len(kept.encode()) <= 32 * 1024 and re.fullmatch(r"\[\.\.\. \d+ more bytes of output dropped\]", note)
        if rec.offender == "raiser":
            # One line for the verdict; the traceback is in the game's log.
            assert re.fullmatch(r"crash: raised ValueError: raiser gives up on turn \d \(raiser\.py, line 6, in raiser\)",
                                rec.reason), rec.reason
            log = rec.logs["raiser"]
            assert log.startswith("Traceback (most recent call last):") and 'raise ValueError("raiser gives up' in log
    assert 1 <= loaded <= int(jobs)  # once in each process that loaded it
    faults = [rec for rec in recs if rec.offender]
    assert {rec.offender for rec in faults} == {"raiser"} and len(faults) == 6
    # Nothing a bot printed reached the judge's own output; a raise is one line there.
    said = doc["_stdout"] + doc["_stderr"]
    for text in ("printer: loaded", "printer: call", "printer: to stderr", "no newline", "zzz", "Traceback"):
        assert text not in said, said
    assert len([line for line in said.splitlines() if "raiser gives up" in line]) == len(faults)


def test_a_trusted_bot_that_ends_its_worker_loses_by_crash_and_the_tournament_goes_on(tmp_path):
    # os._exit takes the worker down, and the batches it was playing with it: they are
    # played again with their function bots isolated, where the bot loses with crash, and
    # it is played isolated from then on.
    args = ["--bots", str(BOTS / "exiter.py:hard_exit"), "--bots", str(BOTS / "exiter.py:late_exit"),
            "--bots", str(BUNDLED / "better_constant_player"), "--bots", str(BUNDLED / "random_player"),
            "--rounds", "4", "--seed", "4", "--jobs", "2"]
    trusted = run(tmp_path, *args, "--trusted", name="trusted")
    isolated = run(tmp_path, *args, name="isolated")
    assert len(trusted["games"]) == 48
    assert games(trusted) == games(isolated)
    found = verdicts(trusted)
    assert found[("hard_exit", "crash")] == 24 and found[("late_exit", "crash")] == 16, found
    said = trusted["_stdout"]
    deaths = said.count("games in flight are played again, their bots isolated")
    unmasked = [line for line in said.splitlines() if line.endswith("lost by a fault where a worker died: played isolated from now on")]
    # Each death unmasks at least one of the two: no more than two deaths, however many batches.
    assert 1 <= deaths <= 2 and len(unmasked) == deaths, said
    assert "hard_exit" in " ".join(unmasked) and "late_exit" in " ".join(unmasked), said


@pytest.mark.slow
@pytest.mark.parametrize("mode,jobs", [("trusted", 1), ("trusted", 2), ("isolated", 2)])
def test_a_bot_that_never_returns_loses_on_time(tmp_path, mode, jobs):
    # Called in the judge's own processes too, a call that never ends is interrupted once
    # past its time (kothkit.bots.overtime), even if the bot catches the first interruptions.
    doc = run(tmp_path, "--bots", str(BOTS / "spinner.py:spinner"), "--bots", str(BOTS / "stubborn.py:stubborn"),
              "--bots", str(BUNDLED / "constant_player"), "--rounds", "1", "--seed", "5", "--jobs", str(jobs),
              *(["--trusted"] if mode == "trusted" else []), name=mode, timeout=90)
    assert len(doc["games"]) == 6
    for g in doc["games"]:
        # Turn 2 is the opener's: an opener that spins loses there, else the other spins on turn 3.
        spins = [p for p in g["players"] if p != "constant_player"]
        loser = g["players"][0] if g["players"][0] in spins else spins[0]
        assert (g["fault"], g["verdict"]) == (loser, "timeout"), g
        assert g["reason"].endswith("no reply within 1 s"), g


def test_a_trusted_bot_whose_module_never_loads_loses_by_crash(tmp_path):
    # It gets what an isolated bot's host gets to start (the challenge's load_time, here 2 s; by
    # default 20 s), then it is interrupted.
    (tmp_path / "kothkit.toml").write_text('game = "connect4_hidden"\n[limits]\nload_time = 2\n')
    doc = against_constant_player(tmp_path, "endless_import.py:endless", "--jobs", "2", "--trusted", timeout=120,
                                  target=str(tmp_path))
    assert_all_lost_by(doc, "endless", "crash", games=2)
    assert all("endless_import.py:endless took more than 2 s to load" in g["reason"] for g in doc["games"])


@pytest.mark.slow
def test_a_trusted_bot_that_swallows_every_interruption_loses_on_time(tmp_path):
    # Its worker gives up on it 5 s past its time and exits; its games are played again
    # isolated, where its host is killed at the deadline, and it stays isolated after that.
    doc = against_constant_player(tmp_path, "unstoppable.py:unstoppable", "--rounds", "2", "--jobs", "2", "--trusted",
                                  timeout=120)
    assert_all_lost_by(doc, "unstoppable", "timeout", games=4)
    assert "unstoppable lost by a fault where a worker died: played isolated from now on" in doc["_stdout"]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["isolated", "trusted"])
def test_a_bot_that_sleeps_past_the_limit_loses_on_time(tmp_path, mode):
    doc = run(tmp_path, "--bots", str(BOTS / "sleepy.py:sleepy"), "--bots", str(BUNDLED / "constant_player"),
              "--rounds", "1", "--seed", "5", *(["--trusted"] if mode == "trusted" else []), name=mode)
    assert len(doc["games"]) == 2
    for g in doc["games"]:
        assert g["fault"] == "sleepy" and g["verdict"] == "timeout" and g["winner"] == "constant_player"
        assert len(g["moves"]) >= 2  # it played its first move in time


def test_an_isolated_bot_runs_on_its_jobs_core(tmp_path):
    # Like a program bot, a function bot's host is pinned to the core of the job playing it.
    doc = run(tmp_path, "--bots", str(BOTS / "pinned.py:pinned"), "--bots", str(BUNDLED / "constant_player"),
              "--rounds", "1", "--seed", "1", "--jobs", "1")
    cores = {c % 6 for c in os.sched_getaffinity(0)}
    for g in doc["games"]:
        seat = g["players"].index("pinned")
        columns = set(g["moves"][seat::2])
        assert len(columns) == 1 and columns <= cores, g


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_process_playing_a_job_runs_on_its_core(tmp_path, jobs):
    # A trusted bot runs inside the process that plays its job: that process shares its job's
    # core with the job's bots, so a reply never waits for a wake-up on another core.
    doc = run(tmp_path, "--bots", str(BOTS / "pinned.py:pinned"), "--bots", str(BUNDLED / "constant_player"),
              "--rounds", "2", "--seed", "1", "--jobs", str(jobs), "--trusted")
    cores = {c % 6 for c in os.sched_getaffinity(0)}
    for g in doc["games"]:
        seat = g["players"].index("pinned")
        columns = set(g["moves"][seat::2])
        assert len(columns) == 1 and columns <= cores, g


def test_debug_shows_the_board_after_every_move(tmp_path):
    def debug(*extra: str) -> str:
        p = subprocess.run([sys.executable, "-m", "kothkit", "debug", "connect4_hidden", str(BUNDLED / "deducer"),
                            "--against", "better_constant_player", *extra],
                           cwd=tmp_path, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert p.returncode == 0, p.stdout + p.stderr
        return p.stdout

    text = debug()
    replies = text.count(" -> judge (")
    # One board after each reply: the column numbers under it, and whose turn or the outcome.
    assert replies > 4 and text.count("0  1  2  3  4  5  6") == replies, text
    assert "turn 1: seat 1 (O) to move" in text and "over, winner" in text
    quiet = debug("--no-boards")
    assert "0  1  2  3  4  5  6" not in quiet and quiet.count(" -> judge (") == replies


def test_debug_shows_what_a_function_bot_prints_and_the_traceback_of_a_raise(tmp_path):
    def debug(entry: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "kothkit", "debug", "connect4_hidden", str(BOTS / entry),
                               "--against", "constant_player", "--no-boards"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)

    p = debug("printer.py:printer")
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    # Each call's prints come before its reply, as they happened.
    first = lines.index("printer [stderr]: printer: call 1 of this game, turn 0")
    assert lines[first + 1] == "printer [stderr]: printer: to stderr, turn 0"
    assert lines[first + 2].startswith("printer -> judge (")
    assert "printer [stderr]: [no newline 0]printer: call 2 of this game, turn 2" in lines
    p = debug("raiser.py:raiser")
    assert p.returncode == 2, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    verdict = next(i for i, line in enumerate(lines) if line.startswith("VERDICT against raiser: crash: raised ValueError"))
    turn = re.search(r"turn (\d+)", lines[verdict])[1]
    assert lines[verdict - 4:verdict] == [
        "raiser [stderr]: Traceback (most recent call last):",
        f'raiser [stderr]:   File "{BOTS / "raiser.py"}", line 6, in raiser',
        'raiser [stderr]:     raise ValueError("raiser gives up on turn %d" % turn)',
        f"raiser [stderr]: ValueError: raiser gives up on turn {turn}"]
HOSTILE_VALUES = ["bad_len", "bad_iter", "long_iter", "bad_mapping", "bad_repr", "bad_index", "bad_repr_not_a_pair"]


@pytest.mark.parametrize("mode", ["trusted", "isolated"])
def test_hostile_return_values_are_invalid_replies_and_never_end_the_judge(tmp_path, mode):
    # A list subclass whose __len__ raises, a tuple whose __iter__ calls sys.exit, a reply whose
    # __repr__ or __index__ exits...: trusted, these are read in the judge's own process.
    args = [a for f in HOSTILE_VALUES for a in ("--bots", str(BOTS / f"hostile_values.py:{f}"))]
    doc = run(tmp_path, *args, "--bots", str(BUNDLED / "constant_player"), "--rounds", "1", "--seed", "4",
              "--jobs", "1", *(["--trusted"] if mode == "trusted" else []))
    found = verdicts(doc)
    # Every game has one of them in it, and whichever moved first lost it by an invalid reply.
    assert sum(found.values()) == len(doc["games"]) == 8 * 7
    assert {kind for _, kind in found} == {"invalid-reply"}
    assert {bot for bot, _ in found} == set(HOSTILE_VALUES)
    assert {s["bot"]: s["losses"] for s in doc["standings"]}["constant_player"] == 0


def test_function_bots_in_one_folder_cannot_rewrite_each_others_files(tmp_path):
    # rewriter tries to append to victim.py (another bot's file in its folder) and to its own
    # file, which its twin also plays from: both files are read-only to both.  Each has a
    # working folder of its own (read-only too, as neither is stateful).
    from kothkit.procs.contain import capabilities

    if not capabilities().files:
        pytest.skip(f"files are not confined on this machine: {capabilities().why}")
    d = tmp_path / "d"
    d.mkdir()
    for f in ("rewriter.py", "victim.py"):
        (d / f).write_bytes((BOTS / f).read_bytes())
    doc = run(tmp_path, "--bots", f"{d / 'rewriter.py'}:rewriter", "--bots", f"{d / 'rewriter.py'}:twin",
              "--bots", f"{d / 'victim.py'}:victim", "--rounds", "1", "--seed", "1", "--jobs", "1")
    assert not verdicts(doc), verdicts(doc)  # nobody crashed: the rewrites failed quietly
    for f in ("rewriter.py", "victim.py"):
        assert (d / f).read_bytes() == (BOTS / f).read_bytes(), f
    # Each plays from a folder of its own; not stateful, it may not write even that one.
    assert sorted(p.name.split("-")[0] for p in d.glob(".kothkit-private/*")) == ["rewriter", "twin", "victim"]
    assert list(d.glob(".kothkit-private/*/kept.txt")) == []
