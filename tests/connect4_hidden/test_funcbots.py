"""Python function bots: FunctionBot in this process, and the isolated worker over real pipes.

The worker (``python -m kothkit.bots.funchost FILE.py:FUNC``) is started as a real
subprocess and spoken to line by line, with a deadline on every read.  The
misbehaving bots are in tests/bots/connect4/.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import c4_inproc as inproc
import pytest

from kothkit.bots.folders import load_bots
from kothkit.bots.functions import BotRandom, FunctionBot, FunctionBotError
from kothkit.game import Outcome, Setup, Verdict
from kothkit_connect4_hidden.match import Connect4Match

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "bots" / "connect4"
EMPTY = [[0] * 7 for _ in range(6)]


def ref(file: str, func: str) -> str:
    return f"{BOTS / file}:{func}"


class Host:
    """A funchost worker on real pipes; every read has a deadline."""

    def __init__(self, entry: str, timeout: float = 20.0) -> None:
        self.timeout = timeout
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kothkit.bots.funchost", entry], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, cwd=ROOT,
        )
        self._buf = b""

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read_line(self) -> bytes:
        deadline = time.monotonic() + self.timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            assert left > 0, "the worker did not answer in time"
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    return b""  # end of file: the worker is gone
                self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line

    def request(self, req) -> dict:
        self.send_raw(json.dumps(req).encode() + b"\n")
        line = self.read_line()
        assert line, f"the worker closed its output; stderr: {self.stderr()}"
        return json.loads(line)

    def new(self, seed: int) -> dict:
        return self.request({"op": "new", "seed": seed})

    def call(self, *args) -> dict:
        return self.request({"op": "call", "args": list(args)})

    def close(self) -> tuple[int, str]:
        """Close stdin (end of input) and wait: (exit status, stderr)."""
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=self.timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        return code, self.stderr()

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return "(still running)"
        return self.proc.stderr.read().decode(errors="replace")


@pytest.fixture
def hosts():
    started = []

    def start(entry: str) -> Host:
        h = Host(entry)
        started.append(h)
        return h

    yield start
    for h in started:
        if h.proc.poll() is None:
            h.proc.kill()
            h.proc.wait()
        for f in (h.proc.stdin, h.proc.stdout, h.proc.stderr):
            if f and not f.closed:
                f.close()


# -- FunctionBot, in this process ----------------------------------------------------


def test_calls_and_state():
    bot = FunctionBot(ref("counter.py", "counter"))
    assert bot.name == "counter"
    bot.new_game(1)
    assert [bot.call((EMPTY, t)) for t in range(3)] == [1, 2, 3]
    assert bot.state == 3
    bot.new_game(2)
    assert bot.state is None and bot.call((EMPTY, 0)) == 1


def test_loads_from_a_bot_spec_and_every_bot_is_its_own_module():
    spec = load_bots([ref("counter.py", "counter")]).bots[0]
    a, b = FunctionBot(spec), FunctionBot(spec)
    assert a.name == "counter" and a.module is not b.module and a.module.__name__ != b.module.__name__
    for t in range(5):
        a.call((EMPTY, t))
    b.call((EMPTY, 0))
    assert a.module.CALLS == 5 and b.module.CALLS == 1
    assert FunctionBot(ref("counter.py", "calls")).call((EMPTY, 0)) == 0  # a third copy, fresh globals


def test_the_random_module_is_replaced_by_a_seeded_per_bot_generator():
    a = FunctionBot(ref("dice.py", "sequence"))
    b = FunctionBot(ref("dice.py", "sequence"))
    assert isinstance(a.module.random, BotRandom) and a.module.random is not b.module.random
    assert a.module.random.Random is __import__("random").Random
    a.new_game(42)
    first = [a.call((EMPTY, t)) for t in range(3)]
    # Another bot drawing numbers, and the process-wide generator, change nothing.
    b.new_game(42)
    b.call((EMPTY, 0))
    __import__("random").random()
    a.new_game(42)
    assert [a.call((EMPTY, t)) for t in range(3)] == first
    a.new_game(43)
    assert [a.call((EMPTY, t)) for t in range(3)] != first
    # The same seed gives another copy of the bot the same numbers.
    b.new_game(42)
    assert [b.call((EMPTY, t)) for t in range(3)] == first


@pytest.mark.parametrize("func", ["module_style", "imported_style", "own_generator"])
def test_every_style_of_random_bot_is_reproducible(func):
    bot = FunctionBot(ref("dice.py", func))
    assert bot.uses_random
    runs = []
    for _ in range(2):
        bot.new_game(7)
        runs.append([bot.call((EMPTY, t)) for t in range(30)])
    assert runs[0] == runs[1] and len(set(runs[0])) > 3
    bot.new_game(8)
    assert [bot.call((EMPTY, t)) for t in range(30)] != runs[0]


def test_a_bot_without_random_is_not_reseeded():
    bot = FunctionBot(ref("counter.py", "counter"))
    assert not bot.uses_random


def test_a_raising_bot_is_a_crash_with_its_traceback():
    bot = FunctionBot(ref("raiser.py", "raiser"))
    bot.new_game(0)
    assert bot.call((EMPTY, 0)) == 3
    with pytest.raises(FunctionBotError) as e:
        bot.call((EMPTY, 4))
    assert e.value.verdict == "crash"
    # One line for the verdict, the traceback (without the judge's own frames) for the log.
    assert e.value.message == "raised ValueError: raiser gives up on turn 4 (raiser.py, line 6, in raiser)"
    assert e.value.detail.endswith("ValueError: raiser gives up on turn 4")
    assert "raiser.py" in e.value.detail and "funcbots.py" not in e.value.detail


def test_in_this_process_a_bots_prints_go_to_its_log_and_the_judges_own_do_not(capsys):
    from kothkit.bots.functions import capture_output, release_output

    bot = FunctionBot(ref("printer.py", "printer"))  # loaded with nothing captured: printed as usual
    saved = capture_output()
    try:
        bot.call((EMPTY, 0))
        print("the judge's own line")
        bot.call((EMPTY, 2))
    finally:
        release_output(saved)
    assert bot.take_output() == ("printer: call 1 of this game, turn 0\nprinter: to stderr, turn 0\n[no newline 0]"
                                 "printer: call 2 of this game, turn 2\nprinter: to stderr, turn 2\n[no newline 2]")
    assert bot.take_output() == ""
    assert capsys.readouterr().out == "printer: loaded\nthe judge's own line\n"


def test_sys_exit_is_a_crash_not_the_end_of_the_judge():
    bot = FunctionBot(ref("exiter.py", "exiter"))
    with pytest.raises(FunctionBotError) as e:
        bot.call((EMPTY, 0))
    assert e.value.verdict == "crash" and "SystemExit" in e.value.message


@pytest.mark.parametrize("func", ["not_a_tuple", "three_tuple"])
def test_not_returning_a_pair_is_an_invalid_reply(func):
    bot = FunctionBot(ref("garbage.py", func))
    with pytest.raises(FunctionBotError) as e:
        bot.call((EMPTY, 0))
    assert e.value.verdict == "invalid-reply" and "expected (reply, state)" in e.value.message


def test_replies_are_plain_data_the_same_as_from_the_worker():
    assert FunctionBot(ref("garbage.py", "index_like")).call((EMPTY, 5)) == 5
    assert type(FunctionBot(ref("garbage.py", "index_like")).call((EMPTY, 5))) is int
    with pytest.raises(FunctionBotError) as e:
        FunctionBot(ref("garbage.py", "unserialisable")).call((EMPTY, 0))
    assert e.value.verdict == "invalid-reply"
    # No memory address nor per-bot module number: the verdict reads the same in every run.
    assert e.value.message == "the reply <garbage._Opaque object> is not plain data (a number, text, list...)"


def test_a_list_of_two_is_accepted_as_the_seed_controller_does():
    bot = FunctionBot(ref("garbage.py", "list_reply"))
    assert bot.call((EMPTY, 3)) == 3


@pytest.mark.parametrize(
    "entry, words",
    [
        (ref("broken_import.py", "broken"), "this_module_does_not_exist"),
        (ref("syntax_error.py", "syntax"), "SyntaxError"),
        (ref("counter.py", "no_such_function"), "no function 'no_such_function'"),
        (ref("counter.py", "CALLS"), "not a function"),
        (ref("missing.py", "f"), "no such file"),
        ("not-an-entry", "path/to/file.py:function"),
    ],
)
def test_a_bot_that_cannot_load_is_a_crash(entry, words):
    with pytest.raises(FunctionBotError) as e:
        FunctionBot(entry)
    assert e.value.verdict == "crash" and words in e.value.message


def test_a_module_that_never_finishes_loading_is_interrupted():
    # Loaded in this (the main) thread, as a trusted bot is: the watchdog interrupts the
    # import past its allowance, and nothing of the module is left registered.
    from kothkit.bots import overtime
    from kothkit.playing.referee import function_cache

    spec = load_bots([ref("endless_import.py", "endless")]).bots[0]
    before = set(sys.modules)
    t = time.monotonic()
    with pytest.raises(overtime.Overtime):
        function_cache(spec, 0.3)
    assert 0.3 <= time.monotonic() - t < 10
    assert not [m for m in set(sys.modules) - before if "endless_import" in m]
    assert overtime.deadline[0] == 0  # disarmed


def test_a_watched_trusted_game_interrupts_a_call_that_never_returns():
    # With someone watching (on_event), the referee takes its general loop: the call there
    # is interrupted the same way, in this (the main) thread.
    from kothkit.plugins import get_game
    from kothkit.store.records import GameTask
    from kothkit.playing.referee import play_game

    info = get_game("connect4_hidden")
    spinner, other = load_bots([ref("spinner.py", "spinner"), ref("counter.py", "counter")]).bots
    events = []
    task = GameTask(id="spin", game=info.name, players=(spinner, other), seed=1, limits=info.limits, trusted=True)
    rec = play_game(task, info=info, on_event=lambda kind, seat, text, ms: events.append(kind))
    assert (rec.offender, rec.verdict, rec.reason) == ("spinner", "timeout", "timeout: no reply within 1 s")
    assert "send" not in events and events.count("reply") == 2 and "verdict" in events


def test_in_this_process_a_bot_can_see_the_judges_match():
    # Why --trusted is for trusted bots only; the isolated worker below cannot.
    m = Connect4Match(Setup(players=("a", "b"), seed=0))
    bot = FunctionBot(ref("peeker.py", "peeker"))
    assert bot.call(m.next().payload) == 6


# -- the isolated worker, over pipes --------------------------------------------------


def test_worker_protocol_new_call_and_end_of_input(hosts):
    h = hosts(ref("counter.py", "counter"))
    assert h.new(5) == {"ok": None}
    assert [h.call(EMPTY, t) for t in range(3)] == [{"ok": 1}, {"ok": 2}, {"ok": 3}]
    assert h.new(6) == {"ok": None}
    assert h.call(EMPTY, 0) == {"ok": 1}  # state back to None
    code, err = h.close()
    assert code == 0, err


def test_worker_keeps_module_globals_across_games(hosts):
    h = hosts(ref("counter.py", "counter"))
    for seed in range(3):
        h.new(seed)
        h.call(EMPTY, 0)
    code, _ = h.close()
    assert code == 0


def test_worker_reports_a_crash_and_keeps_serving(hosts):
    h = hosts(ref("raiser.py", "raiser"))
    h.new(0)
    assert h.call(EMPTY, 0) == {"ok": 3}
    r = h.call(EMPTY, 4)
    assert r["kind"] == "crash" and "ValueError: raiser gives up on turn 4" in r["error"]
    assert "\n" not in r["error"] and r["detail"].startswith("Traceback (most recent call last):")
    h.new(1)
    assert h.call(EMPTY, 0) == {"ok": 3}
    assert h.close()[0] == 0


@pytest.mark.parametrize(
    "func, reply",
    [
        ("not_a_tuple", {"kind": "invalid-reply"}),
        ("three_tuple", {"kind": "invalid-reply"}),
        ("unserialisable", {"kind": "invalid-reply"}),
        ("word_column", {"ok": "left"}),
        ("float_column", {"ok": 3.0}),
        ("bool_column", {"ok": True}),
        ("off_board", {"ok": 7}),
        ("index_like", {"ok": 5}),
        ("list_reply", {"ok": 5}),
    ],
)
def test_worker_sends_what_the_bot_returned_and_the_match_judges_it(hosts, func, reply):
    h = hosts(ref("garbage.py", func))
    h.new(0)
    got = h.call(EMPTY, 5)
    if "kind" in reply:
        assert got["kind"] == reply["kind"] and got["error"]
    else:
        assert got == reply and type(got["ok"]) is type(reply["ok"])
    # The match's verdict on it is the same as on the value returned in this process.
    bot = FunctionBot(ref("garbage.py", func))
    try:
        local = bot.call((EMPTY, 5))
    except FunctionBotError as e:
        assert "kind" in reply and e.verdict == reply["kind"]
        return
    m1 = Connect4Match(Setup(players=("a", "b"), seed=0))
    if "error" in got:  # not JSON: the worker's verdict is the one the match gives here
        assert m1.play(0, local).verdict == got["kind"]
        return
    m2 = Connect4Match(Setup(players=("a", "b"), seed=0))
    assert m1.play(0, local) == m2.play(0, got["ok"])


def test_worker_rejects_bad_requests_but_keeps_going(hosts):
    h = hosts(ref("counter.py", "counter"))
    for raw in (b"not json\n", b"[1, 2]\n", b'{"seed": 3}\n', b'{"op": "dance"}\n', b'{"op": "call"}\n',
                b'{"op": "call", "args": 5}\n', b'{"op": "new", "seed": "x"}\n', b"\xff\xfe\n"):
        h.send_raw(raw)
        r = json.loads(h.read_line())
        assert r["kind"] == "protocol", (raw, r)
    assert h.new(1) == {"ok": None}
    assert h.call(EMPTY, 0) == {"ok": 1}
    assert h.close()[0] == 0


def test_worker_with_a_bot_that_cannot_load_answers_every_request_with_the_crash(hosts):
    h = hosts(ref("broken_import.py", "broken"))
    for r in (h.new(1), h.call(EMPTY, 0), h.call(EMPTY, 1)):
        assert r["kind"] == "crash" and "this_module_does_not_exist" in r["error"]
    assert h.close()[0] == 0


def test_prints_and_reads_of_the_bot_do_not_touch_the_protocol(hosts):
    h = hosts(ref("noisy.py", "noisy"))
    assert h.new(1) == {"ok": None}
    # The bot writes a fake reply line and reads stdin on every call.
    assert [h.call(EMPTY, t) for t in range(4)] == [{"ok": 0}, {"ok": 1}, {"ok": 2}, {"ok": 3}]
    code, err = h.close()
    assert code == 0
    assert "noisy: loaded" in err and "noisy: thinking about turn 3" in err and '{"ok": 6}' in err


def test_sys_exit_in_the_worker_is_a_crash_reply(hosts):
    h = hosts(ref("exiter.py", "exiter"))
    h.new(0)
    r = h.call(EMPTY, 0)
    assert r["kind"] == "crash" and "SystemExit" in r["error"]
    assert h.close()[0] == 0


def test_a_hard_exit_ends_only_the_worker(hosts):
    h = hosts(ref("exiter.py", "hard_exit"))
    h.new(0)
    h.send_raw(json.dumps({"op": "call", "args": [EMPTY, 0]}).encode() + b"\n")
    assert h.read_line() == b""  # no reply: end of file
    assert h.proc.wait(timeout=20) == 3


def test_in_the_worker_the_judges_match_is_out_of_reach(hosts):
    m = Connect4Match(Setup(players=("a", "b"), seed=0))
    h = hosts(ref("peeker.py", "peeker"))
    h.new(0)
    assert h.call(*m.next().payload) == {"ok": 0}
    assert h.close()[0] == 0


def test_a_slow_bot_leaves_the_worker_busy_and_the_next_line_late(hosts):
    # The referee's deadline decides; here only: the worker still answers, later, in order.
    h = hosts(ref("sleepy.py", "sleepy"))
    h.new(0)
    assert h.call(EMPTY, 0) == {"ok": 0}
    h.send_raw(json.dumps({"op": "call", "args": [EMPTY, 2]}).encode() + b"\n")
    fd = h.proc.stdout.fileno()
    assert select.select([fd], [], [], 1.0)[0] == []  # nothing within 1 s: the bot is still asleep
    assert json.loads(h.read_line()) == {"ok": 2}
    assert h.close()[0] == 0


@pytest.mark.parametrize("func", ["module_style", "imported_style", "own_generator"])
def test_worker_and_in_process_bot_give_the_same_replies(hosts, func):
    entry = ref("dice.py", func)
    local = FunctionBot(entry)
    h = hosts(entry)
    for seed in (1, 2, 99):
        local.new_game(seed)
        h.new(seed)
        assert [h.call(EMPTY, t)["ok"] for t in range(20)] == [local.call((EMPTY, t)) for t in range(20)]
    assert h.close()[0] == 0


def test_whole_games_through_workers_equal_games_in_process(hosts):
    """The bundled bots play the same games in workers as in this process, move for move."""
    names = ("random_player", "better_random_player", "deducer")
    workers = {n: hosts(f"{inproc.BOTS / n / 'bot.py'}:{n}") for n in names}
    local = {n: inproc.bundled(n) for n in names}
    for g, (a, b) in enumerate([(x, y) for x in names for y in names if x != y]):
        seed = 1000 + g
        out_local, m_local = inproc.play(local[a], local[b], seed)
        m = Connect4Match(Setup(players=(a, b), seed=seed))
        seats = (workers[a], workers[b])
        seats[0].new(2 * seed)
        seats[1].new(2 * seed + 1)
        while True:
            step = m.next()
            if isinstance(step, Outcome):
                break
            r = seats[step.seat].call(*step.payload)
            assert m.play(step.seat, r["ok"]) is None
        assert m.moves == m_local.moves and step == out_local
    for w in workers.values():
        assert w.close()[0] == 0


def test_worker_sends_a_huge_reply_whole(hosts):
    h = hosts(ref("garbage.py", "huge"))
    h.new(0)
    got = h.call(EMPTY, 0)
    assert got["ok"] == list(range(300000))
    assert h.call(EMPTY, 1)["ok"][-1] == 299999  # and the next reply is still in step
    assert h.close()[0] == 0


def test_a_forged_error_answer_cannot_name_its_own_verdict():
    # An isolated bot can write to its host's answer pipe: an error answer it forges is a crash,
    # whatever verdict it names (a record's verdict is one of kothkit.Verdict).
    from kothkit.playing.referee import play_game
    from kothkit.plugins import get_game
    from kothkit.store.records import GameTask

    info = get_game("connect4_hidden")
    forger, other = load_bots([ref("forger.py", "forger"), ref("counter.py", "counter")]).bots
    task = GameTask(id="forge", game=info.name, players=(forger, other), seed=1, limits=info.limits)
    rec = play_game(task, info=info)
    assert (rec.offender, rec.verdict) == ("forger", "crash")
    assert rec.verdict in set(Verdict)
