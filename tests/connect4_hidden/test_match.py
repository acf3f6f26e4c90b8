"""The connect4_hidden match against the seed's controller and the rules: views, passes, draws, wins, verdicts.

Driven by hand (no processes, no referee).  ``c4_seed_controller`` is the
seed's own code and serves as the reference wherever kothkit must agree with it.
"""

from __future__ import annotations

import enum
import json
import random

import c4_seed_controller as seed
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kothkit.bots.folders import load_bots
from kothkit.game import Outcome, Prompt, Rejected, Setup, Verdict
from kothkit_connect4_hidden import codec, rules
from kothkit_connect4_hidden.match import DRAW_FULL, DRAW_TURNS, WIN, Connect4Match
from kothkit_connect4_hidden.plugin import INFO

# 42 moves that fill the board with no four in a row anywhere.
FULL_DRAW = [5, 4, 5, 0, 6, 2, 4, 5, 5, 0, 4, 1, 1, 0, 4, 5, 6, 5, 3, 1, 1, 2, 2, 6, 2, 6, 6, 3, 6, 2, 0, 3, 0, 3,
             3, 4, 3, 1, 4, 2, 1, 0]
# 42 moves where only the last one, which fills the board, makes four in a row (for player 2).
LAST_STONE_WINS = [1, 3, 1, 2, 6, 6, 4, 6, 5, 3, 4, 1, 6, 2, 6, 0, 2, 5, 6, 1, 3, 3, 0, 0, 5, 2, 1, 1, 3, 3, 2, 4,
                   5, 5, 5, 2, 4, 4, 0, 0, 0, 4]


def new_match(seed=1):
    return Connect4Match(Setup(players=("one", "two"), seed=seed))


def play_all(m, columns):
    """Play ``columns`` for whoever is prompted; returns next() after the last one."""
    for col in columns:
        step = m.next()
        assert isinstance(step, Prompt), f"game over before column {col}: {step}"
        assert m.play(step.seat, col) is None
    return m.next()


def random_columns(rng, n=60):
    # Biased towards a few columns so that full columns (passes) are common.
    return [rng.choice((0, 0, 1, 2, 3, 3, 3, 4, 5, 6)) for _ in range(n)]


def seed_outcome(columns):
    """Play ``columns`` with the seed's own functions: ('win', player) / ('draw', None) and the seed's views."""
    board = [[0] * 7 for _ in range(6)]
    views = []
    for turn, col in enumerate(columns[:42]):
        p = turn % 2 + 1
        views.append(seed.get_view(board, p))
        outcome = seed.apply_move(board, p, col)
        if outcome == seed.DRAWN:
            return ("draw", None), views, board
        if outcome == seed.WON:
            return ("win", p), views, board
    return ("draw", None), views, board


# -- views ------------------------------------------------------------------------


def test_views_never_show_a_hidden_stone_and_match_the_seed_views():
    rng = random.Random(2024)
    checked = 0
    for game in range(400):
        columns = random_columns(rng)
        _, seed_views, _ = seed_outcome(columns)
        m = new_match(game)
        for turn, col in enumerate(columns):
            step = m.next()
            if isinstance(step, Outcome):
                break
            view, t = step.payload
            assert t == turn
            assert step.seat == turn % 2
            board = m.board
            me = step.seat + 1
            # What the seed's controller would have shown, cell for cell.
            assert view == seed_views[turn]
            assert view == rules.view_of(board, me)
            # Hidden opponent stones are 0 in the view; own stones and untaped rows are exact.
            hidden = m.hidden_from(step.seat)
            assert hidden == rules.hidden_cells(board, me)
            for r, c in hidden:
                assert board[r][c] == 3 - me and view[r][c] == 0
            for r in range(6):
                for c in range(7):
                    if board[r][c] == me or r % 2 == 1:
                        assert view[r][c] == board[r][c]
                    elif (r, c) not in hidden:
                        assert view[r][c] == 0 == board[r][c]
            assert not m.reveals(step.seat, step.payload, hidden)
            checked += len(hidden)
            assert m.play(step.seat, col) is None
    assert checked > 1000  # the games did hide plenty of stones


def test_the_other_seats_view_is_checked_too():
    # hidden_from for the seat not to move: its stones in taped rows are there but not in the mover's view.
    m = new_match()
    play_all(m, [3, 4])  # X at (0,3), O at (0,4): both taped
    assert m.hidden_from(0) == {(0, 4)}
    assert m.hidden_from(1) == {(0, 3)}
    view, _ = m.next().payload
    assert view[0] == [0, 0, 0, 1, 0, 0, 0]
    assert m.reveals(0, ([[0, 0, 0, 1, 2, 0, 0]] + view[1:], 2), m.hidden_from(0)) == {(0, 4)}


def test_a_bot_scribbling_on_its_view_changes_nothing():
    m = new_match()
    play_all(m, [3, 3, 4])
    view, _ = m.next().payload
    for row in view:
        row[:] = [9] * 7
    assert m.play(1, 5) is None
    view, _ = m.next().payload
    assert view == rules.view_of(m.board, 1)
    assert m.board[0][3] == 1 and m.board[1][3] == 2


def test_next_is_idempotent():
    m = new_match()
    a = m.next()
    assert m.next() is a
    m.play(0, 2)
    b = m.next()
    assert b is not a and m.next() is b
    assert b == Prompt(1, ([[0, 0, 0, 0, 0, 0, 0]] * 6, 1))  # X's stone at (0,2) is taped for O


def test_encode_is_the_json_prompt_line():
    m = new_match()
    play_all(m, [3, 3, 3])
    step = m.next()
    line = m.encode(step.payload)
    assert "\n" not in line
    assert json.loads(line) == {"view": step.payload[0], "turn": 3}
    # O to move: X's stones at (0,3) and (2,3) are taped over, O's own at (1,3) shows.
    assert line == ('{"view": [[0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 2, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], '
                    '[0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0]], "turn": 3}')
    assert m.decode(line) == step.payload
    assert codec.encode_prompt(*step.payload) == json.dumps({"view": step.payload[0], "turn": 3})


# -- passes, draws and wins --------------------------------------------------------


def test_a_move_into_a_full_column_is_a_pass():
    m = new_match()
    play_all(m, [0, 0, 0, 0, 0, 0])  # X O X O X O: no four
    before = m.board
    assert m.heights[0] == 6 and m.turn == 6
    step = m.next()
    assert step.seat == 0
    assert m.play(0, 0) is None  # X passes
    assert m.board == before and m.turn == 7
    assert m.moves[-1] == 0
    assert m.next().seat == 1 and m.next().payload[1] == 7
    assert m.play(1, "0") is None  # O passes too, with a program bot's line
    assert m.board == before and m.turn == 8


def test_draw_after_42_turns_even_if_the_board_is_not_full():
    m = new_match()
    out = play_all(m, [0] * 42)  # six stones, then 36 passes
    assert out == Outcome(None, DRAW_TURNS)
    assert m.turn == 42 and sum(m.heights) == 6
    assert seed.run_game(seed.constant_player, seed.constant_player) == seed.DRAWN


def test_draw_on_a_full_board_without_four():
    m = new_match()
    out = play_all(m, FULL_DRAW[:41])
    assert isinstance(out, Prompt) and out.seat == 1
    m.play(1, FULL_DRAW[41])
    assert m.next() == Outcome(None, DRAW_FULL)
    assert all(all(row) for row in m.board) and rules.winner_of(m.board) == 0
    assert seed_outcome(FULL_DRAW)[0] == ("draw", None)
    assert m.play(0, 3) == Rejected(Verdict.ILLEGAL_MOVE, "the game is over")  # over: nobody's turn


def test_a_win_on_the_stone_that_fills_the_board_is_a_win():
    m = new_match()
    out = play_all(m, LAST_STONE_WINS)
    assert out == Outcome(1, WIN)
    board = m.board
    assert all(all(row) for row in board) and rules.winner_of(board) == 2
    # The seed's controller looks for a full board first and calls this a draw (see the plugin README).
    assert seed_outcome(LAST_STONE_WINS)[0] == ("draw", None)
    # One move earlier nobody had four.
    m2 = new_match()
    assert isinstance(play_all(m2, LAST_STONE_WINS[:41]), Prompt)


@pytest.mark.parametrize(
    "columns, winner, cells",
    [
        # horizontal, bottom row (taped: neither player sees the other's stones there)
        ([0, 0, 1, 1, 2, 2, 3], 0, [(0, 0), (0, 1), (0, 2), (0, 3)]),
        # horizontal, top-right, by player 2
        ([2, 3, 3, 5, 4, 3, 4, 0, 6, 5, 3, 0, 5, 4, 5, 3, 0, 6, 0, 3, 6, 0, 6, 4, 4, 2, 0, 6, 5, 5, 2, 4, 2, 6], 1,
         [(5, 3), (5, 4), (5, 5), (5, 6)]),
        # vertical
        ([4, 5, 4, 5, 4, 5, 4], 0, [(0, 4), (1, 4), (2, 4), (3, 4)]),
        # vertical at the top of a column, by player 2
        ([1, 4, 6, 1, 0, 2, 3, 5, 1, 1, 1, 3, 2, 0, 0, 1, 5, 3, 6, 3, 3, 5, 3, 0, 4, 0, 5, 6, 2, 6, 4, 4, 5, 6, 5, 0,
          2, 6], 1, [(2, 6), (3, 6), (4, 6), (5, 6)]),
        # diagonal up-right
        ([0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3], 0, [(0, 0), (1, 1), (2, 2), (3, 3)]),
        # diagonal up-left, ending at the right edge
        ([6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3], 0, [(0, 6), (1, 5), (2, 4), (3, 3)]),
        # diagonal up-left, last stone in the middle of the line
        ([3, 2, 2, 1, 1, 0, 1, 0, 0, 6, 5, 4, 4, 4, 2, 6, 0], 0, [(0, 3), (1, 2), (2, 1), (3, 0)]),
        # diagonal up-right, by player 2, reaching the top row
        ([1, 5, 5, 0, 2, 6, 4, 2, 4, 5, 5, 3, 1, 3, 2, 0, 6, 1, 4, 5, 6, 0, 5, 2, 0, 4, 6, 4, 2, 6, 1, 1, 1, 6, 4, 3],
         1, [(2, 3), (3, 4), (4, 5), (5, 6)]),
    ],
)
def test_four_in_a_row_in_every_direction(columns, winner, cells):
    m = new_match()
    out = play_all(m, columns)
    assert out == Outcome(winner, WIN)
    board = m.board
    assert all(board[r][c] == winner + 1 for r, c in cells)
    # Exactly at the last move: no four one move earlier.
    assert isinstance(play_all(new_match(), columns[:-1]), Prompt)
    assert rules.winner_of(board) == winner + 1
    assert seed_outcome(columns)[0] == ("win", winner + 1)
    assert m.legal_replies() == []  # the game is over: nothing more is legal


def test_outcomes_agree_with_the_seed_controller_on_random_games():
    rng = random.Random(7)
    wins = draws = 0
    for game in range(3000):
        columns = [rng.randrange(7) for _ in range(42)]
        expected, _, seed_board = seed_outcome(columns)
        m = new_match(game)
        for col in columns:
            step = m.next()
            if isinstance(step, Outcome):
                break
            m.play(step.seat, col)
        out = m.next()
        assert isinstance(out, Outcome)
        assert m.board == seed_board
        got = ("draw", None) if out.winner is None else ("win", out.winner + 1)
        if got != expected:
            # The one rule kothkit changes on purpose: a four made by the board-filling stone wins.
            assert expected == ("draw", None) and all(all(r) for r in seed_board) and out.reason == WIN
        wins += out.winner is not None
        draws += out.winner is None
    assert wins > 2000 and draws > 0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 6), st.integers(1, 2)), max_size=42))
def test_bitboard_win_check_agrees_with_a_plain_scan(cells):
    board = rules.empty_board()
    for r, c, p in cells:
        board[r][c] = p
    for p in (1, 2):
        plain = rules.winner_of([[x if x == p else 0 for x in row] for row in board]) == p
        assert rules.has_four(rules.bits_of(board, p)) == plain


# -- replies -------------------------------------------------------------------------


class Col(enum.IntEnum):
    THREE = 3


class Indexable:
    def __index__(self):
        return 4


@pytest.mark.parametrize(
    "reply, column",
    [(0, 0), (6, 6), ("3", 3), (" 5 ", 5), ("+2", 2), ("0003", 3), (Col.THREE, 3), (Indexable(), 4)],
)
def test_accepted_replies(reply, column):
    m = new_match()
    assert m.play(0, reply) is None
    assert m.moves == [column] and m.heights[column] == 1


@pytest.mark.parametrize(
    "reply, kind",
    [
        ("", Verdict.INVALID_REPLY),
        ("x", Verdict.INVALID_REPLY),
        ("3 4", Verdict.INVALID_REPLY),
        ("3.0", Verdict.INVALID_REPLY),
        ("٣", Verdict.INVALID_REPLY),  # an Arabic-Indic three: int() would take it
        ("1_0", Verdict.INVALID_REPLY),
        (3.0, Verdict.INVALID_REPLY),
        (None, Verdict.INVALID_REPLY),
        (True, Verdict.INVALID_REPLY),  # Python would index a list with it; a column it is not
        (False, Verdict.INVALID_REPLY),
        ([3], Verdict.INVALID_REPLY),
        ((3, None), Verdict.INVALID_REPLY),
        (b"3", Verdict.INVALID_REPLY),
        (object(), Verdict.INVALID_REPLY),
        (7, Verdict.ILLEGAL_MOVE),  # the seed's controller raises IndexError
        (-1, Verdict.ILLEGAL_MOVE),  # the seed's controller plays column 6
        ("7", Verdict.ILLEGAL_MOVE),
        ("-1", Verdict.ILLEGAL_MOVE),
        (10**30, Verdict.ILLEGAL_MOVE),
        ("9" * 5000, Verdict.ILLEGAL_MOVE),  # int() would refuse it
    ],
)
def test_rejected_replies(reply, kind):
    m = new_match()
    step = m.next()
    r = m.play(0, reply)
    assert isinstance(r, Rejected) and r.verdict == kind, r
    assert len(r.reason) < 200
    # Nothing changed: the same prompt is still due.
    assert m.next() is step and m.moves == [] and m.board == rules.empty_board()
    out = m.forfeit(0, r.verdict, r.reason)
    assert out.winner == 1 and r.verdict in out.reason
    assert m.next() == out


def test_the_seed_controller_crashes_or_wraps_around_where_kothkit_rejects():
    board = [[0] * 7 for _ in range(6)]
    with pytest.raises(IndexError):
        seed.apply_move(board, 1, 7)
    seed.apply_move(board, 1, -1)
    assert board[0][6] == 1


class BadRepr:
    def __repr__(self):
        raise RuntimeError("no")

    def __index__(self):
        raise RuntimeError("no index either")


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=30), st.integers(), st.floats(), st.none(), st.booleans(), st.binary(max_size=5),
                 st.lists(st.integers(), max_size=3), st.just(BadRepr())))
def test_play_never_raises(reply):
    m = new_match()
    r = m.play(0, reply)
    assert r is None or (isinstance(r, Rejected) and r.verdict in (Verdict.INVALID_REPLY, Verdict.ILLEGAL_MOVE))


def test_out_of_turn_is_rejected_not_raised():
    m = new_match()
    assert m.play(1, 3).verdict == Verdict.ILLEGAL_MOVE
    assert m.play(5, 3).verdict == Verdict.ILLEGAL_MOVE
    assert m.play(0, 3) is None


# -- the plugin ----------------------------------------------------------------------


def test_game_info():
    assert INFO.name == "connect4_hidden"
    assert INFO.function_bots is True
    assert INFO.seats == 2
    assert (INFO.scoring.win, INFO.scoring.draw, INFO.scoring.loss) == (1, 0, -1)
    assert INFO.scoring.mean and INFO.scoring.unit == "game" and INFO.scoring.tiebreak == ("name",)
    assert INFO.limits.move_time == 1.0 and INFO.limits.grace == 0.1
    m = INFO.match(Setup(players=("a", "b"), seed=3))
    assert isinstance(m, Connect4Match) and m.legal_replies() == list(range(7))


def test_the_game_is_installed():
    from kothkit.plugins import get_game

    assert get_game("connect4_hidden") is INFO


def test_bundled_bots_load():
    loaded = load_bots([INFO.bots])
    assert not loaded.errors
    names = sorted(b.name for b in loaded.bots)
    assert names == sorted(["random_player", "constant_player", "better_random_player", "better_constant_player",
                            "deducer"])
    assert all(b.kind == "function" and b.entry.endswith(f"bot.py:{b.name}") for b in loaded.bots)


def test_render():
    m = new_match()
    play_all(m, [3, 3, 4])
    text = m.render()
    lines = text.splitlines()
    assert lines[5] == "0 | .  .  .  X [X] .  . | #"
    assert lines[4] == "1 | .  .  .  O  .  .  . |"
    assert lines[6] == "    0  1  2  3  4  5  6"
    assert "seat 1 (O) to move" in text
    assert lines[-1].startswith("columns 0-6 across the bottom")  # the legend
    assert rules.render(m.board, hidden_for=2).splitlines()[5] == "0 | .  .  .  ?  ?  .  . | #"
    play_all(m, [4, 3, 4, 2, 4, 1])  # X: 1 2 3 4 along the bottom row
    assert "winner seat 0 (X): four in a row" in m.render()


def test_the_seed_style_table_matches_the_seed_controllers_printout():
    from kothkit.scoring import Standing

    counts = [[0, 28665, 71335], [3, 53961, 46036], [192, 71447, 28361], [199, 75411, 24390]]
    names = ["better_constant_player", "constant_player", "better_random_player", "random_player"]
    funcs = [type(n, (), {"__name__": n}) for n in names]  # the seed prints player.__name__
    standings = [Standing(bot=n, points=0.0, wins=c[2], draws=c[0], losses=c[1]) for n, c in zip(names, counts)]
    ours = INFO.report(standings)
    theirs = seed.table(funcs, counts)
    # The same cells in the same order as the seed's printout; the numbers right-aligned under their
    # headings (the seed left-aligns them, so a negative score sticks out).
    assert [line.split() for line in ours.splitlines()] == [line.split() for line in theirs.splitlines()]
    assert ours.splitlines()[2] == "better_constant_player:     0  28665 71335  0.427"
    assert ours.splitlines()[5] == "random_player:            199  75411 24390 -0.510"
    assert INFO.rounds == 10000
