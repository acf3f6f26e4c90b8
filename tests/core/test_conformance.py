"""The conformance kit: run on every bundled game, and shown to catch each kind of broken game.

The broken games are variants of one small correct game (two seats add 1 or 2
to a running total; whoever reaches 10 wins), each with one bug, so each check
of the kit is proven by a game it fails.
"""

from __future__ import annotations

import random
import os
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from kothkit.game import GameInfo, Match, Message, Outcome, Prompt, Rejected, Setup, Verdict
from kothkit.testing import ConformanceError, Kit, conformance_tests

# -- the bundled games ------------------------------------------------------------------------------
TestGomokuSwap2 = conformance_tests("gomoku_swap2")
TestGomokuClassic12 = conformance_tests("gomoku_classic12")
TestConnect4Hidden = conformance_tests("connect4_hidden")


# -- a small correct game, then one bug at a time ---------------------------------------------------
class Race(Match):
    """Seats take turns adding 1 or 2 to a total that starts at 0; whoever makes it 10 wins."""

    GOAL = 10

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        self.total = 0
        self.turn = 0
        self.outcome: Outcome | None = None

    def next(self) -> Prompt | Outcome:
        if self.outcome is not None:
            return self.outcome
        return Prompt(seat=self.turn % 2, payload=("TOTAL", self.total))

    def encode(self, payload: Any) -> str:
        if isinstance(payload, tuple):
            return f"{payload[0]} {payload[1]}"
        return str(payload)

    def decode(self, line: str) -> Any:
        word, _, n = line.partition(" ")
        return (word, int(n)) if word == "TOTAL" else line

    def play(self, seat: int, reply: Any) -> Rejected | None:
        if self.outcome is not None or seat != self.turn % 2:
            return Rejected(Verdict.ILLEGAL_MOVE, "not your turn")
        if not isinstance(reply, str) or reply.strip() not in ("1", "2", "3", "0", "-1"):
            return Rejected(Verdict.INVALID_REPLY, "expected 1 or 2")
        n = int(reply.strip())
        if n not in (1, 2) or self.total + n > self.GOAL:
            return Rejected(Verdict.ILLEGAL_MOVE, f"cannot add {n} to {self.total}")
        self.total += n
        self.turn += 1
        if self.total == self.GOAL:
            self.outcome = Outcome(winner=seat, reason="reached 10")
        return None

    def forfeit(self, seat: int, kind: str, reason: str) -> Outcome:
        self.outcome = super().forfeit(seat, kind, reason)
        return self.outcome

    def final(self, outcome: Outcome) -> tuple[Message, ...]:
        return tuple(Message(s, "END") for s in (0, 1))

    def legal_replies(self) -> list[Any]:
        if self.outcome is not None:
            return []
        return [str(n) for n in (1, 2) if self.total + n <= self.GOAL]


def info_of(match_class: type, **kw: Any) -> GameInfo:
    return GameInfo(name=kw.pop("name", "race"), summary="a race to 10", match=match_class, **kw)


def test_the_correct_game_passes_every_check():
    assert Kit(info_of(Race), fuzz_examples=30).run() == []


class NeverEnds(Race):
    def play(self, seat, reply):
        result = super().play(seat, reply)
        if self.outcome is not None:
            self.outcome, self.total = None, 0  # a bug: the race starts over
        return result


class OffersIllegal(Race):
    def legal_replies(self):
        return super().legal_replies() + ["3"]


class RaisesOnJunk(Race):
    def play(self, seat, reply):
        if seat != self.turn % 2:
            return Rejected(Verdict.ILLEGAL_MOVE, "not your turn")
        n = int(reply)  # a bug: int("x") raises
        return super().play(seat, str(n))


class WrongKind(Race):
    def play(self, seat, reply):
        r = super().play(seat, reply)
        return Rejected("bad-input", r.reason) if r else None


class NoReason(Race):
    def play(self, seat, reply):
        r = super().play(seat, reply)
        return Rejected(r.verdict, "") if r else None


class AcceptsJunk(Race):
    def play(self, seat, reply):
        r = super().play(seat, reply)
        if r is not None and r.verdict == Verdict.INVALID_REPLY:
            return super().play(seat, "1")  # a bug: anything it cannot read counts as 1
        return r


class Unseeded(Race):
    def __init__(self, setup):
        super().__init__(setup)
        self.total = random.randint(0, 5)  # a bug: not from setup.seed


class EndsSoonerOnReplay(Race):
    """A bug: every match but the first ends at its first move (as if it read an unseeded random source),
    so a replay of the first one's replies ends before they are all played."""

    made = 0

    def __init__(self, setup):
        super().__init__(setup)
        EndsSoonerOnReplay.made += 1
        self.early = EndsSoonerOnReplay.made > 1

    def play(self, seat, reply):
        r = super().play(seat, reply)
        if r is None and self.early and self.outcome is None:
            self.outcome = Outcome(winner=seat, reason="ended early")
        return r


class TwoLines(Race):
    def encode(self, payload):
        return super().encode(payload).replace(" ", "\n")


class NotIdempotent(Race):
    def next(self):
        self.calls = getattr(self, "calls", 0) + 1
        step = super().next()
        return Prompt(step.seat, ("TOTAL", self.total, self.calls)) if isinstance(step, Prompt) else step


class BadWinner(Race):
    def play(self, seat, reply):
        r = super().play(seat, reply)
        if self.outcome is not None and self.outcome.winner is not None:
            self.outcome = Outcome(winner=seat + 1, reason="reached 10")  # a bug: seat 1 becomes "seat 2"
        return r


class ForfeitRewards(Race):
    def forfeit(self, seat, kind, reason):
        return Outcome(winner=seat, reason=f"{kind}: {reason}")


class EmptyLegal(Race):
    def legal_replies(self):
        return [] if self.total >= 5 else super().legal_replies()


class MovesAfterTheEnd(Race):
    """Offers the moves of the position even after the game is over."""

    def legal_replies(self):
        return [str(n) for n in (1, 2) if self.total + n <= self.GOAL] or ["1"]


class BadDecode(Race):
    def decode(self, line):
        return line


class BadRender(Race):
    def render(self):
        raise KeyError("no such cell")


class Secret(Race):
    """Each seat holds a secret word; the prompt shows the total and, by a bug, the other seat's secret."""

    def __init__(self, setup):
        super().__init__(setup)
        self.secrets = (f"s{setup.seed}a", f"s{setup.seed}b")

    def next(self):
        step = super().next()
        if isinstance(step, Outcome):
            return step
        leak = self.secrets[1 - step.seat] if self.total >= 4 else self.secrets[step.seat]
        return Prompt(step.seat, ("TOTAL", self.total, leak))

    def encode(self, payload):
        return " ".join(map(str, payload)) if isinstance(payload, tuple) else str(payload)

    def hidden_from(self, seat):
        return {self.secrets[1 - seat]}


class SecretChecked(Secret):
    def reveals(self, seat, payload, hidden):
        return {h for h in hidden if h in map(str, payload)}


class SharedView(Race):
    """A function-bot game handing out its own state list instead of a copy."""

    def __init__(self, setup):
        super().__init__(setup)
        self.history: list[int] = []

    def next(self):
        step = super().next()
        if isinstance(step, Outcome):
            return step
        return Prompt(step.seat, (self.history, self.total))

    def encode(self, payload):
        return f"{payload[1]} {payload[0]}" if isinstance(payload, tuple) else str(payload)

    def play(self, seat, reply):
        r = super().play(seat, reply)
        if r is None:
            self.history.append(self.total)
        return r


CASES = [
    (NeverEnds, {}, "check_playouts", "did not end within 300 prompts"),
    (OffersIllegal, {}, "check_playouts", "legal_replies() offered '3' but play() rejected it"),
    (RaisesOnJunk, {}, "check_malformed_replies", "raised ValueError"),
    (WrongKind, {}, "check_malformed_replies", "rejected with kind 'bad-input'"),
    (NoReason, {}, "check_malformed_replies", "rejected without a reason"),
    (AcceptsJunk, {}, "check_malformed_replies", "was accepted as a move; it is not among legal_replies()"),
    (Unseeded, {}, "check_determinism", "not deterministic"),
    (EndsSoonerOnReplay, {}, "check_playouts", "not deterministic: a new match given the same replies ended here"),
    (TwoLines, {}, "check_playouts", "is not one line"),
    (NotIdempotent, {}, "check_playouts", "next() is not idempotent"),
    (BadWinner, {}, "check_playouts", "it must be a seat (0..1) or None"),
    (ForfeitRewards, {}, "check_forfeit", "names seat 0, the one at fault, as the winner"),
    (EmptyLegal, {}, "check_playouts", "legal_replies() is empty"),
    (MovesAfterTheEnd, {}, "check_playouts", "legal_replies() after the game ended returned ['1']; it must be []"),
    (BadDecode, {}, "check_codec", "does not survive a round trip"),
    (BadRender, {}, "check_render", "render() raised KeyError"),
    (Secret, {}, "check_hidden_information", "there is no way to check"),
    (SecretChecked, {}, "check_hidden_information", "the prompt sent to seat"),
    (SharedView, {"function_bots": True}, "check_payload_isolation", "after a bot changed the lists it was given"),
    (Race, {"name": "race game"}, "check_info", "must be one word"),
]


@pytest.mark.parametrize("match_class,extra,check,expected", CASES, ids=[c[0].__name__ + "-" + c[2] for c in CASES])
def test_the_kit_catches(match_class, extra, check, expected):
    kit = Kit(info_of(match_class, **extra), seeds=range(4), max_steps=300)
    with pytest.raises(ConformanceError) as caught:
        getattr(kit, check)()
    assert expected in str(caught.value)
    # Every message says where: the game, and for playout checks the seed and the step.
    assert repr(kit.name) in str(caught.value) or f"{kit.name}, seed " in str(caught.value)


def test_a_function_bot_game_needs_tuple_payloads():
    class ListPayload(Race):
        def next(self):
            step = super().next()
            return Prompt(step.seat, ["TOTAL", self.total]) if isinstance(step, Prompt) else step

    with pytest.raises(ConformanceError, match="payload must be a tuple"):
        Kit(info_of(ListPayload, function_bots=True), seeds=[0]).check_playouts()


def test_a_function_bot_game_must_take_its_replies_after_json(tmp_path):
    """Isolated function bots' replies arrive through JSON: a game that wants a tuple back gets a list."""

    class TupleReplies(Race):
        def next(self):
            step = super().next()
            return Prompt(step.seat, ("TOTAL", self.total)) if isinstance(step, Prompt) else step

        def play(self, seat, reply):
            if type(reply) is not tuple:
                return Rejected(Verdict.INVALID_REPLY, "expected a tuple (n,)")
            return super().play(seat, str(reply[0]))

        def legal_replies(self):
            return [(int(r),) for r in super().legal_replies()]

    with pytest.raises(ConformanceError, match="after a JSON round trip"):
        Kit(info_of(TupleReplies, function_bots=True), seeds=[0]).check_playouts()


def test_a_game_depending_on_the_hash_seed_fails_in_another_process(tmp_path, monkeypatch):
    """Iterating over a set of strings gives another order in another process: caught by the fresh-process replay."""
    (tmp_path / "hashgame.py").write_text(textwrap.dedent('''
        from kothkit.game import GameInfo, Match, Outcome, Prompt, Rejected, Setup

        WORDS = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}

        class HashOrder(Match):
            def __init__(self, setup):
                super().__init__(setup)
                self.said = []

            def next(self):
                if len(self.said) == 8:
                    return Outcome(winner=0, reason="all said")
                return Prompt(len(self.said) % 2, ("SAY", len(self.said)))

            def encode(self, payload):
                return f"{payload[0]} {payload[1]}"

            def play(self, seat, reply):
                if reply not in self.legal_replies():
                    return Rejected("invalid-reply", "say a word not said yet")
                self.said.append(reply)
                return None

            def legal_replies(self):
                return [w for w in WORDS if w not in self.said]  # the bug: set order

        INFO = GameInfo(name="hashorder", summary="say the words", match=HashOrder)
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    import hashgame

    kit = Kit(hashgame.INFO, seeds=range(3))
    kit.check_playouts()  # fine within one process
    with pytest.raises(ConformanceError, match="in another Python process"):
        kit.check_determinism()


def test_the_fuzz_check_finds_a_crash_on_odd_text():
    class CrashesOnComma(Race):
        def play(self, seat, reply):
            if isinstance(reply, str) and "," in reply:
                raise IndexError("comma")
            return super().play(seat, reply)

    with pytest.raises(ConformanceError, match="raised IndexError"):
        Kit(info_of(CrashesOnComma), seeds=range(3), fuzz_examples=200).check_fuzz()


def test_kit_run_lists_each_failed_check():
    failures = Kit(info_of(NoReason), seeds=range(2), fuzz_examples=20).run()
    assert [name for name, _ in failures] == ["check_malformed_replies", "check_fuzz"]


def test_the_pytest_plugin_option_and_test_class(tmp_path):
    """`conformance_tests` in a plugin's own test file, with the pytest plugin's --kothkit-seeds option."""
    (tmp_path / "test_kit.py").write_text(
        "from kothkit.testing import conformance_tests\n"
        "TestConformance = conformance_tests('gomoku_classic12', bundled_bots=False)\n"
        "def test_fixture(kothkit_kit):\n"
        "    assert kothkit_kit('gomoku_classic12').seeds == [0, 1, 2]\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--kothkit-seeds", "3",
                           "test_kit.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL,
                          # The outer run's options (.ci/run's -q, say) are not the inner one's.
                          env={k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "16 passed" in done.stdout  # every check (check_leave has nothing to check with two seats), the fixture
