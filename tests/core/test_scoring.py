"""Scoring policies: points per game, per match, mean scores, and tie-breakers."""

from kothkit.scoring import Result, Scoring, standings


def R(a, b, w):
    return Result(players=(a, b), winner=w)


def test_points_per_game_with_submission_tiebreak():
    sc = Scoring(unit="game", win=2, draw=1, loss=0, tiebreak=("submitted", "name"))
    rows = standings(sc, ["a", "b", "c"], [R("a", "b", "a"), R("b", "a", "b"), R("a", "c", None), R("b", "c", None)],
                     submitted={"b": "2018-08-24", "a": "2018-08-25"})
    assert [(s.bot, s.points) for s in rows] == [("b", 3), ("a", 3), ("c", 2)]
    assert (rows[0].wins, rows[0].draws, rows[0].losses, rows[0].games) == (1, 1, 1, 3)


def test_match_points_count_games_won_per_pair():
    sc = Scoring(unit="match", win=3, draw=1, loss=0, tiebreak=("wins", "name"))
    results = [R("a", "b", "a"), R("b", "a", "a"),  # a wins the match 2-0
               R("a", "c", "c"), R("c", "a", "a"),  # drawn match 1-1
               R("b", "c", None), R("c", "b", "b")]  # b wins 1-0 with a draw
    rows = {s.bot: s for s in standings(sc, ["a", "b", "c"], results)}
    assert rows["a"].points == 4 and rows["b"].points == 3 and rows["c"].points == 1
    assert rows["a"].wins == 3
    # Matches won, drawn and lost, beside the games.
    assert [(rows[n].match_wins, rows[n].match_draws, rows[n].match_losses) for n in "abc"] == [
        (1, 1, 0), (1, 0, 1), (0, 1, 1)]
    assert all(r.match_wins is None for r in standings(Scoring(), ["a", "b", "c"], results))


def test_mean_score():
    sc = Scoring(win=1, draw=0, loss=-1, mean=True)
    rows = standings(sc, ["x", "y"], [R("x", "y", "x"), R("y", "x", "x"), R("x", "y", None), R("y", "x", "y")])
    assert rows[0].bot == "x" and rows[0].points == 0.25 and rows[1].points == -0.25


def test_results_of_removed_bots_are_ignored():
    rows = standings(Scoring(), ["a", "b"], [R("a", "gone", "a"), R("a", "b", "b")])
    assert [(s.bot, s.wins, s.losses) for s in rows] == [("b", 1, 0), ("a", 0, 1)]
