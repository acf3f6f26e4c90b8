"""A Round with seats asked in turn (real bots over real pipes, at a table of nseat_sum): a seat that
leaves while the round is under way is neither waited for nor played, the round ending within its
clocks with a verdict against that seat alone; and a program bot is not charged the time of the
functions called in turn in this process.

The seat asked in turn here is deliberately broken: it rules seat 2 out of turn while seat 2's prompt
is out, as the referee's out-of-turn check once did to the replies of the others while kothkit check's
bot was asked (the round then waited for a seat that had left, spinning without end).  Each game runs
in a child process under a deadline, so a round that never ends fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

#: The child: a 3-seat game of nseat_sum, seat 0 the broken seat, seats 1 and 2 the steady program bot.
GAME = """
import json, sys
sys.path.insert(0, sys.argv[1])
from nseat_game import INFO, program
import attrs
from kothkit import Verdict
from kothkit.playing.referee import Referee
from kothkit.playing.seats import Fault, ProgramSeat
from kothkit.store.records import GameTask

WHEN = sys.argv[2]


class RulesSeat2Out(ProgramSeat):
    # An ask of its own: kothkit's seats that ask their own way are asked in turn in a Round.
    follows = WHEN == "after its play"

    def ask(self, match, step, allowed_ns, late):
        if WHEN == "while asked" and step[1][0] == 2 and 2 not in self.ref.faults:
            self._rule_out(match)
        return super().ask(match, step, allowed_ns, late)

    def after_play(self, match):
        if match.round == 2 and 2 not in self.ref.faults:  # seat 2's reply to round 2 is in, not played
            self._rule_out(match)

    def _rule_out(self, match):
        self.ref._leave_or_end(match, Fault(2, Verdict.OUT_OF_TURN, "ruled out by the broken seat"))


task = GameTask(id="t", game=INFO.name, players=tuple(program(f"p{i}") for i in range(3)), seed=7,
                limits=attrs.evolve(INFO.limits, move_time=0.5, first_reply_time=0.5))
rec = Referee(task, INFO, seats={0: RulesSeat2Out(0, task.players[0])}).run()
print(json.dumps({"verdicts": rec.seat_verdicts, "reason": rec.reason,
                  "moves": [[m.seat, m.reply] for m in rec.moves], "points": rec.seat_points}))
"""


@pytest.mark.parametrize("when", ["while asked", "after its play"])
def test_a_seat_that_leaves_during_a_round_is_neither_awaited_nor_played(when):
    done = subprocess.run([sys.executable, "-c", GAME, str(HERE), when], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    rec = json.loads(done.stdout.splitlines()[-1])
    assert rec["verdicts"] == [None, None, "out-of-turn"]
    assert rec["reason"] == "4 rounds"  # the others played on to the game's end
    # Seats 0 and 1 replied to every round; seat 2 to round 1 only (round 2's reply came, unplayed).
    assert [seat for seat, _ in rec["moves"]].count(2) == 1
    assert [seat for seat, _ in rec["moves"]].count(0) == [seat for seat, _ in rec["moves"]].count(1) == 4
    assert rec["points"] == [6.0, 6.0, 0.0]  # (a seat that left scores nothing)


#: The child: seats 0 and 1 trusted function bots called in this process, each taking 0.4 s of its
#: 0.5 s, seat 2 a program bot that replies at once.
CHARGED = """
import json, sys
sys.path.insert(0, sys.argv[1])
from nseat_game import INFO, function, program
import attrs
from kothkit.playing.referee import play_game
from kothkit.store.records import GameTask

players = (function("f0", "slow"), function("f1", "slow"), program("p2"))
task = GameTask(id="t", game=INFO.name, players=players, seed=7, trusted=True, rules={"rounds": 2},
                limits=attrs.evolve(INFO.limits, move_time=0.5, first_reply_time=0.5))
rec = play_game(task, info=INFO)
print(json.dumps({"verdicts": rec.seat_verdicts, "moves": [[m.seat, m.ms] for m in rec.moves]}))
"""


def test_a_program_bot_in_a_round_is_not_charged_the_time_of_the_functions_called_in_turn():
    # Before, the functions were called first and the program bot's reply read after them both:
    # 0.8 s charged to it, a timeout.
    done = subprocess.run([sys.executable, "-c", CHARGED, str(HERE)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    rec = json.loads(done.stdout.splitlines()[-1])
    assert rec["verdicts"] == [None, None, None]
    assert [seat for seat, _ in rec["moves"]] == [0, 1, 2, 0, 1, 2]
