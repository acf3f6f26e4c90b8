"""The mnk plugin's tests: the rules by hand, then kothkit's conformance kit and bot check."""

from kothkit.game import Setup
from kothkit.testing import check_bot, conformance_tests
from kothkit_mnk.match import MnkMatch
from kothkit_mnk.plugin import INFO
from kothkit_mnk.rules import empty_board, makes_line, place

# Every check of the kit, one test each, on the installed game (looked up by name).
TestConformance = conformance_tests("mnk")
# The same on another board, where random openings come from the seed.
TestConformanceBig = conformance_tests("mnk", rules={"m": 5, "n": 6, "k": 4, "opening": 3}, bundled_bots=False)


def test_three_in_a_row_on_the_diagonal():
    b = empty_board(3, 3)
    for i in range(3):
        b = place(b, i, i, "X")
    assert makes_line(b, 1, 1, 3)
    assert not makes_line(place(empty_board(3, 3), 0, 0, "X"), 0, 0, 3)


def test_x_wins_the_top_row():
    m = MnkMatch(Setup(players=("a", "b"), seed=1))
    for reply in ["0 0", "1 0", "0 1", "1 1", "0 2"]:
        assert m.play(m.next().seat, reply) is None
    assert m.next().winner == 0


def test_taken_and_off_board_cells_are_illegal():
    m = MnkMatch(Setup(players=("a", "b"), seed=1))
    m.play(0, "1 1")
    assert m.play(1, "1 1").verdict == "illegal-move"
    assert m.play(1, "3 0").verdict == "illegal-move"
    assert m.play(1, "one one").verdict == "invalid-reply"


def test_the_bundled_bots_pass_the_bot_check():
    for bot in ("random", "blocker"):
        report = check_bot("mnk", INFO.bots / bot, quick=True)
        assert report.ok, [f.text for r in report.runs for f in r.findings]
