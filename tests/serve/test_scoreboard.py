"""The host's live scoreboard (kothkit.serve.scoreboard.Board) ranks exactly as kothkit.scoring.Tally,
game by game, under every scoring shape the core knows."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kothkit.scoring import Scoring, Tally
from kothkit.serve.scoreboard import Board

BOTS = ["a", "b", "c", "d"]
SCORINGS = [Scoring(), Scoring(unit="match", win=3, draw=1, loss=0, tiebreak=("wins", "name")),
            Scoring(win=1, draw=0, loss=-1, mean=True), Scoring(unit="match", tiebreak=("submitted", "name"))]

games = st.lists(st.tuples(st.sampled_from(BOTS + ["gone"]), st.sampled_from(BOTS), st.integers(0, 2)), max_size=40)


@settings(max_examples=150, deadline=None)
@given(games=games, which=st.integers(0, len(SCORINGS) - 1))
def test_board_ranks_as_the_tally(games, which):
    scoring = SCORINGS[which]
    submitted = {"b": "2024-01-02", "c": "2024-01-01"}
    board, tally = Board(scoring, BOTS), Tally(scoring, BOTS)
    for a, b, outcome in games:
        if a == b:
            continue
        winner = (a, b, None)[outcome]
        board.add((a, b), winner)
        tally.add((a, b), winner)
        assert board.standings(submitted) == tally.standings(submitted)


def test_cells_count_each_side():
    board = Board(Scoring(), ["a", "b"])
    board.add(("a", "b"), "a")
    board.add(("b", "a"), None)
    assert board.cells[("a", "b")] == (1, 1, 0) and board.cells[("b", "a")] == (0, 1, 1)
    assert board.games("a") == 2


@settings(max_examples=150, deadline=None)
@given(games=games, which=st.integers(0, len(SCORINGS) - 1), leaving=st.sampled_from(BOTS),
       data=st.data())
def test_games_and_bots_taken_back_leave_the_board_as_if_never_added(games, which, leaving, data):
    """The host takes a replaced or removed bot's games back (Board.remove, remove_bot) and adds a
    new bot (add_bot): the board is then the one of the games left, under every scoring shape."""
    scoring = SCORINGS[which]
    played = [(a, b, (a, b, None)[outcome]) for a, b, outcome in games if a != b]
    board = Board(scoring, BOTS)
    for a, b, winner in played:
        board.add((a, b), winner)
    back = data.draw(st.sets(st.integers(0, max(0, len(played) - 1)))) if played else set()
    back |= {i for i, (a, b, _) in enumerate(played) if leaving in (a, b)}
    for i in sorted(back):
        board.remove(played[i][:2], played[i][2])
    board.remove_bot(leaving)
    board.add_bot("new")
    board.add(("new", BOTS[0] if leaving != BOTS[0] else BOTS[1]), "new")
    left = [g for i, g in enumerate(played) if i not in back]
    kept = [b for b in BOTS if b != leaving] + ["new"]
    fresh = Board(scoring, kept)
    for a, b, winner in left:
        fresh.add((a, b), winner)
    fresh.add(("new", BOTS[0] if leaving != BOTS[0] else BOTS[1]), "new")
    assert board.standings() == fresh.standings()
    assert board.cells == fresh.cells
    assert {b: board.games(b) for b in kept} == {b: fresh.games(b) for b in kept}
