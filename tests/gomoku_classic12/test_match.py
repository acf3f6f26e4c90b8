"""The gomoku_classic12 match as a state machine: prompts, sequencing, verdicts, final lines.

Driven by hand (no processes): these pin the protocol the course's brains expect.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kothkit.game import Message, Outcome, Prompt, Rejected, Setup, Verdict
from kothkit_gomoku_classic12 import codec
from kothkit_gomoku_classic12.match import ClassicMatch
from kothkit_gomoku_classic12.plugin import INFO
from kothkit_gomoku_classic12.rules import BLACK, SIZE, WHITE

PLAYERS = ("alice", "bob")


def new_match(opening=None, seed=1):
    rules = {} if opening is None else {"opening": opening}
    return ClassicMatch(Setup(players=PLAYERS, seed=seed, rules=rules))


def started(opening=None):
    """A match past both START/OK exchanges."""
    m = new_match(opening)
    assert m.play(0, "OK") is None
    assert m.play(1, "OK") is None
    return m


def play_moves(m, moves):
    """Play (row, col) moves for whoever is prompted; returns next() after the last one."""
    for r, c in moves:
        step = m.next()
        assert isinstance(step, Prompt), f"game already over before {r} {c}: {step}"
        assert m.play(step.seat, f"{r} {c}") is None
    return m.next()


# -- the game's registration ------------------------------------------------------------
def test_game_info_is_the_course_judge():
    assert INFO.name == "gomoku_classic12"
    lim = INFO.limits
    assert (lim.move_time, lim.first_reply_time, lim.game_time, lim.memory_mb, lim.grace) == (2.0, 1.0, 90.0, 350, 0.5)
    s = INFO.scoring
    assert (s.unit, s.win, s.draw, s.loss, s.tiebreak) == ("match", 3, 1, 0, ("wins", "name"))
    assert INFO.aside_prefix == "DEBUG"
    assert INFO.rules == {"opening": "center4"}
    assert INFO.bot_args is None and not INFO.function_bots
    assert {p.name for p in INFO.bots.iterdir() if (p / "bot.toml").is_file()} >= {"template", "threat", "pywindow"}


def test_game_is_installed_through_the_entry_point():
    from kothkit.plugins import get_game

    assert get_game("gomoku_classic12") is INFO


@pytest.mark.parametrize(
    "rules,message",
    [({"opening": "swap2"}, "opening must be one of 'center4', 'empty', got 'swap2'"), ({"openning": "empty"}, "unknown rules setting 'openning'")],
)
def test_bad_rules_are_refused_with_a_clear_error(rules, message):
    with pytest.raises(ValueError, match=message):
        ClassicMatch(Setup(players=PLAYERS, seed=1, rules=rules))
    with pytest.raises(ValueError):
        ClassicMatch.check_rules(rules)


def test_three_players_are_refused():
    with pytest.raises(ValueError, match="two-player"):
        ClassicMatch(Setup(players=("a", "b", "c"), seed=1))


def test_default_and_explicit_openings():
    assert new_match().board.stones == 4
    assert new_match("center4").board.at(6, 5) == WHITE
    assert new_match("empty").board.stones == 0


# -- sequencing ---------------------------------------------------------------------------
def test_start_goes_to_black_then_white_on_the_first_reply_clock():
    m = new_match()
    first = m.next()
    assert first == Prompt(seat=0, payload="START 1", clock="first")
    assert m.next() == first  # idempotent
    assert m.play(0, "OK") is None
    assert m.next() == Prompt(seat=1, payload="START 2", clock="first")
    assert m.play(1, "OK") is None
    assert m.next() == Prompt(seat=0, payload="TURN", notices=(), clock="move")


def test_each_move_reaches_the_other_seat_as_place_before_its_turn():
    m = started()
    assert m.play(0, "0 0") is None
    step = m.next()
    assert step == Prompt(seat=1, payload="TURN", notices=(Message(1, "PLACE 0 0"),))
    assert m.next() == step
    assert m.play(1, "11 11") is None
    assert m.next() == Prompt(seat=0, payload="TURN", notices=(Message(0, "PLACE 11 11"),))
    assert [(s, r, c) for s, r, c in m.moves] == [(0, 0, 0), (1, 11, 11)]
    assert m.board.at(0, 0) == BLACK and m.board.at(11, 11) == WHITE


def test_codec_lines_and_parsing():
    assert (codec.start(2), codec.place(0, 11), codec.turn(), codec.end(0), codec.move(3, 4)) == (
        "START 2", "PLACE 0 11", "TURN", "END 0", "3 4")
    assert codec.parse_move(" 3\t4 ") == (3, 4)
    assert codec.parse_move("-0 +5") == (0, 5)
    assert codec.parse_move("1 " + "9" * 5000) == (1, codec.OFF_BOARD)
    assert codec.parse_move("-" + "9" * 50 + " 1") == (-codec.OFF_BOARD, 1)
    assert codec.parse_move("3 4 5") is None and codec.parse_move(34) is None
    assert codec.is_ok(" ok\r") and not codec.is_ok("OK OK")


def test_encode_is_the_payload_line():
    m = new_match()
    assert m.encode(m.next().payload) == "START 1"
    assert m.encode("PLACE 3 4") == "PLACE 3 4"


# -- endings and END lines ------------------------------------------------------------------
BLACK_FIVE = [(0, 0), (11, 0), (0, 1), (11, 1), (0, 2), (11, 2), (0, 3), (11, 3), (0, 4)]


def test_black_win_sends_the_last_place_to_the_loser_then_end_to_both():
    m = started()
    out = play_moves(m, BLACK_FIVE)
    assert out == Outcome(winner=0, reason="five in a row ending at 0 4")
    assert m.next() == out
    assert m.final(out) == (Message(1, "PLACE 0 4"), Message(0, "END 1"), Message(1, "END 2"))
    assert m.legal_replies() == []


def test_white_win_in_a_column():
    m = started()
    moves = [(0, 0), (1, 9), (0, 2), (2, 9), (0, 4), (3, 9), (0, 6), (4, 9), (0, 8), (5, 9)]
    out = play_moves(m, moves)
    assert out.winner == 1
    assert m.final(out) == (Message(0, "PLACE 5 9"), Message(0, "END 2"), Message(1, "END 1"))


def test_diagonal_overline_through_the_opening_stones_wins():
    m = started()
    # black already has (5,5) and (6,6): (1,1)..(4,4) and (7,7) make seven on the main diagonal.
    out = play_moves(m, [(1, 1), (11, 0), (2, 2), (11, 2), (3, 3), (11, 4), (7, 7), (11, 6)])
    assert isinstance(out, Prompt), "3,3 4,4 gap: 1,1 2,2 3,3 _ 5,5 6,6 7,7 is not five yet"
    out = play_moves(m, [(4, 4)])
    assert out.winner == 0 and m.board.run_length(4, 4, 1, 1) == 7


def test_anti_diagonal_win_for_white_through_its_opening_stones():
    m = started()
    # white owns (5,6) and (6,5): adding (4,7), (3,8), (7,4) makes five on the anti-diagonal.
    out = play_moves(m, [(0, 0), (4, 7), (0, 2), (3, 8), (0, 4), (7, 4)])
    assert out.winner == 1 and out.reason == "five in a row ending at 7 4"


def test_full_board_is_a_draw_and_black_gets_the_last_place():
    def colour(r, c):  # no five anywhere, 72 stones each, agrees with the center4 opening
        return BLACK if (c // 2 + r) % 2 else WHITE

    m = started()
    blacks = [(r, c) for r in range(SIZE) for c in range(SIZE) if colour(r, c) == BLACK and m.board.at(r, c) == 0]
    whites = [(r, c) for r in range(SIZE) for c in range(SIZE) if colour(r, c) == WHITE and m.board.at(r, c) == 0]
    assert len(blacks) == len(whites) == 70
    out = play_moves(m, [x for pair in zip(blacks, whites) for x in pair])
    assert out == Outcome(winner=None, reason="board full")
    r, c = whites[-1]
    assert m.final(out) == (Message(0, f"PLACE {r} {c}"), Message(0, "END 0"), Message(1, "END 0"))


def test_forfeit_sends_only_end_lines_and_sticks():
    m = started()
    play_moves(m, [(0, 0)])
    out = m.forfeit(1, "timeout", "no reply within 2 s")
    assert out == Outcome(winner=0, reason="timeout: no reply within 2 s")
    assert m.next() == out
    assert m.final(out) == (Message(0, "END 1"), Message(1, "END 2"))


def test_forfeit_before_start_completes():
    m = new_match()
    out = m.forfeit(0, "timeout", "no OK within 1 s")
    assert out.winner == 1
    assert m.final(out) == (Message(0, "END 2"), Message(1, "END 1"))


def test_forfeit_after_a_winning_move_keeps_the_win_place():
    # The core may rule a fault after the deciding move (e.g. an out-of-turn line): the
    # END lines follow the outcome it hands to final(), without the PLACE of a win not counted.
    m = started()
    out = play_moves(m, BLACK_FIVE)
    other = Outcome(winner=1, reason="out-of-turn: line after its move")
    assert m.final(other) == (Message(0, "END 2"), Message(1, "END 1"))
    assert m.final(out)[0] == Message(1, "PLACE 0 4")


# -- rejections ---------------------------------------------------------------------------------
@pytest.mark.parametrize("reply", ["", "ok?", "OKAY", "O K", "5 5", "DEBUG OK"])
def test_start_needs_ok(reply):
    m = new_match()
    r = m.play(0, reply)
    assert isinstance(r, Rejected) and r.verdict == Verdict.INVALID_REPLY and "expected OK" in r.reason
    assert m.next() == Prompt(seat=0, payload="START 1", clock="first")


@pytest.mark.parametrize("reply", [None, 1, b"OK", ["OK"], (3, 4)])
def test_values_that_are_not_lines_are_invalid(reply):
    for m in (new_match(), started()):
        r = m.play(0, reply)
        assert r == Rejected(Verdict.INVALID_REPLY, f"expected a line of text, got a {type(reply).__name__}")


@pytest.mark.parametrize("reply", ["OK", "ok", "  OK\r", "\tOk "])
def test_ok_tolerates_case_and_whitespace(reply):
    assert new_match().play(0, reply) is None


@pytest.mark.parametrize("reply", ["", "3", "3 4 5", "3,4", "a b", "3.0 4", "TURN", "0x3 4", "3 4 DEBUG", "３ ４", "OK", "- 3 4"])
def test_malformed_moves_are_invalid_replies(reply):
    m = started()
    r = m.play(0, reply)
    assert isinstance(r, Rejected) and r.verdict == Verdict.INVALID_REPLY, r
    assert m.board.stones == 4 and m.moves == []


@pytest.mark.parametrize("reply", ["12 0", "0 12", "-1 3", "3 -1", "99999999999999999999 1", "1 " + "9" * 5000])
def test_off_board_moves_are_illegal(reply):
    r = started().play(0, reply)
    assert isinstance(r, Rejected) and r.verdict == Verdict.ILLEGAL_MOVE and "off the 12x12 board" in r.reason


@pytest.mark.parametrize("reply", ["5 5", "6 5", " 5  6 "])
def test_occupied_cells_are_illegal(reply):
    r = started().play(0, reply)
    assert isinstance(r, Rejected) and r.verdict == Verdict.ILLEGAL_MOVE and "occupied" in r.reason


def test_own_earlier_move_is_occupied_too():
    m = started()
    play_moves(m, [(3, 3), (4, 4)])
    assert m.play(0, "3 3").verdict == Verdict.ILLEGAL_MOVE
    assert m.play(0, "4 4").verdict == Verdict.ILLEGAL_MOVE


@pytest.mark.parametrize("reply", ["3 4", " 3 4", "3 4 ", "  3\t4\r\n", "03 +4"])
def test_moves_tolerate_surrounding_whitespace(reply):
    m = started()
    assert m.play(0, reply) is None
    assert m.board.at(3, 4) == BLACK


def test_reply_from_the_wrong_seat_is_refused_not_applied():
    m = started()
    assert m.play(1, "0 0").verdict == Verdict.ILLEGAL_MOVE
    assert m.moves == []
    m.forfeit(0, "crash", "exit 1")
    assert m.play(0, "0 0").verdict == Verdict.ILLEGAL_MOVE


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=40), st.binary(max_size=10), st.integers(), st.none(), st.lists(st.integers(), max_size=3)), st.booleans())
def test_play_never_raises(reply, after_start):
    m = started() if after_start else new_match()
    r = m.play(0, reply)
    assert r is None or isinstance(r, Rejected) and r.verdict in (Verdict.INVALID_REPLY, Verdict.ILLEGAL_MOVE)


# -- conformance helpers and render --------------------------------------------------------------
def test_legal_replies_and_a_seeded_random_playout_end_in_an_outcome():
    import random

    for opening in ("center4", "empty"):
        m = new_match(opening)
        assert m.legal_replies() == ["OK"]
        m.play(0, "OK")
        m.play(1, "OK")
        assert len(m.legal_replies()) == SIZE * SIZE - m.board.stones
        rng = random.Random(7)
        while isinstance(step := m.next(), Prompt):
            replies = m.legal_replies()
            assert 0 < len(replies) <= SIZE * SIZE
            assert m.play(step.seat, rng.choice(replies)) is None
        assert step.winner in (0, 1, None)
        assert m.legal_replies() == []


def test_every_legal_reply_is_accepted():
    for reply in started().legal_replies():
        m = started()
        assert m.play(0, reply) is None, reply


def test_render_draws_the_board():
    m = started()
    play_moves(m, [(0, 11)])
    text = m.render()
    lines = text.splitlines()
    assert lines[0].split() == [str(c) for c in range(SIZE)]
    assert lines[1].endswith("[X]") and lines[1].split()[0] == "0"
    assert lines[6].split() == ["5"] + ["."] * 5 + ["X", "O"] + ["."] * 5
    assert "X black: alice" in text and "O white: bob" in text
    assert lines[-1].startswith("a move X Y is row X (down the left), column Y (across the top)")
    assert INFO.renders


# -- the core's conformance kit ---------------------------------------------------------------------
def test_conformance_kit_playouts_and_junk():
    playout_mod = pytest.importorskip("kothkit.testing.playout")
    junk = pytest.importorskip("kothkit.testing.junk")
    for seed in range(30):
        for rules in ({}, {"opening": "empty"}):
            p = playout_mod.playout(INFO, seed, rules=rules)
            assert p.steps[0].line == "START 1" and p.steps[1].line == "START 2"
            if p.outcome.winner is not None:
                loser = 1 - p.outcome.winner
                assert p.finals[0] == (loser, "PLACE " + p.steps[-1].reply)  # the deciding move reaches the loser
    for m in (new_match(), started()):
        for reply in (*junk.JUNK_TEXT, *junk.hostile_values()):
            r = m.play(0, reply)
            assert isinstance(r, Rejected), junk.describe(reply)
