"""kothkit.scoring.Tally, the one scoring of ``kothkit run``, reports and the host's Scoreboard:
counted game by game (and taken back a game or a bot at a time) it ranks as the rules say, worked
out afresh from all the games, under every scoring shape the core knows; and ranks are numbered
from the game's own tie-breaks (kothkit.scoring.ranked)."""

from __future__ import annotations

from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from kothkit.scoring import Scoring, Standing, Tally, ranked

BOTS = ["a", "b", "c", "d"]
SCORINGS = [Scoring(), Scoring(unit="match", win=3, draw=1, loss=0, tiebreak=("wins", "name")),
            Scoring(win=1, draw=0, loss=-1, mean=True), Scoring(unit="match", tiebreak=("submitted", "name")),
            Scoring(tiebreak=("wins",))]

games = st.lists(st.tuples(st.sampled_from(BOTS + ["gone"]), st.sampled_from(BOTS), st.integers(0, 2)), max_size=40)


def afresh(scoring: Scoring, bots: list[str], played: list[tuple[str, str, str | None]],
           submitted: dict[str, str]) -> list[Standing]:
    """The standings as the rules say, from all the games at once (games naming another bot left out)."""
    wins: dict[str, int] = defaultdict(int)
    draws: dict[str, int] = defaultdict(int)
    losses: dict[str, int] = defaultdict(int)
    points: dict[str, float] = defaultdict(float)
    pairs: dict[tuple[str, str], dict[str | None, int]] = defaultdict(lambda: defaultdict(int))
    for a, b, winner in played:
        if a not in bots or b not in bots:
            continue
        for p in (a, b):
            (draws if winner is None else wins if p == winner else losses)[p] += 1
            if scoring.unit == "game":
                points[p] += scoring.draw if winner is None else scoring.win if p == winner else scoring.loss
        pairs[tuple(sorted((a, b)))][winner] += 1  # type: ignore[index]
    record = {b: [0, 0, 0] for b in bots}
    if scoring.unit == "match":
        for (a, b), won in pairs.items():
            if won[a] == won[b]:
                for p in (a, b):
                    points[p] += scoring.draw
                    record[p][1] += 1
            else:
                w, lost = (a, b) if won[a] > won[b] else (b, a)
                points[w] += scoring.win
                points[lost] += scoring.loss
                record[w][0] += 1
                record[lost][2] += 1
    rows = []
    for b in bots:
        n = wins[b] + draws[b] + losses[b]
        pts = (points[b] / n if n else 0.0) if scoring.mean else points[b]
        extra = {}
        if scoring.unit == "match":
            extra = dict(match_wins=record[b][0], match_draws=record[b][1], match_losses=record[b][2])
        rows.append(Standing(bot=b, points=pts, wins=wins[b], draws=draws[b], losses=losses[b], **extra))
    return ranked(scoring, rows, submitted)


@settings(max_examples=150, deadline=None)
@given(games=games, which=st.integers(0, len(SCORINGS) - 1))
def test_the_tally_ranks_as_the_rules_say_after_every_game(games, which):
    scoring = SCORINGS[which]
    submitted = {"b": "2024-01-02", "c": "2024-01-01"}
    tally = Tally(scoring, BOTS)
    played = []
    for a, b, outcome in games:
        if a == b:
            continue
        winner = (a, b, None)[outcome]
        played.append((a, b, winner))
        tally.add((a, b), winner)
        assert tally.standings(submitted) == afresh(scoring, BOTS, played, submitted)


def test_cells_count_each_side():
    tally = Tally(Scoring(), ["a", "b"])
    tally.add(("a", "b"), "a")
    tally.add(("b", "a"), None)
    assert tally.cells[("a", "b")] == (1, 1, 0) and tally.cells[("b", "a")] == (0, 1, 1)
    assert tally.games("a") == 2


def test_ranks_come_from_the_games_own_tie_breaks():
    """Level on points: a game whose tie-breaks end with the name ranks every bot apart (2 and 3,
    as connect4's does); one whose last tie-break is the wins shares the rank of bots level on
    those too, and skips the next."""
    rows = [Standing("x", 1.0, 1, 0, 1), Standing("b", 1.0, 1, 0, 1), Standing("a", 2.0, 2, 0, 0),
            Standing("c", 0.0, 0, 0, 2)]
    assert [(s.bot, s.rank) for s in ranked(Scoring(tiebreak=("name",)), rows)] == [
        ("a", 1), ("b", 2), ("x", 3), ("c", 4)]
    assert [(s.bot, s.rank) for s in ranked(Scoring(tiebreak=("wins",)), rows)] == [
        ("a", 1), ("b", 2), ("x", 2), ("c", 4)]
    # "submitted": the earlier date first, a bot without one after, and only the dates tell apart.
    dated = ranked(Scoring(tiebreak=("submitted",)), rows, {"x": "2024-01-01"})
    assert [(s.bot, s.rank) for s in dated] == [("a", 1), ("x", 2), ("b", 3), ("c", 4)]


@settings(max_examples=150, deadline=None)
@given(games=games, which=st.integers(0, len(SCORINGS) - 1), leaving=st.sampled_from(BOTS),
       data=st.data())
def test_games_and_bots_taken_back_leave_the_tally_as_if_never_added(games, which, leaving, data):
    """The host takes a replaced or removed bot's games back (Tally.remove, remove_bot) and adds a
    new bot (add_bot): the tally is then the one of the games left, under every scoring shape."""
    scoring = SCORINGS[which]
    played = [(a, b, (a, b, None)[outcome]) for a, b, outcome in games if a != b]
    tally = Tally(scoring, BOTS)
    for a, b, winner in played:
        tally.add((a, b), winner)
    back = data.draw(st.sets(st.integers(0, max(0, len(played) - 1)))) if played else set()
    back |= {i for i, (a, b, _) in enumerate(played) if leaving in (a, b)}
    for i in sorted(back):
        tally.remove(played[i][:2], played[i][2])
    tally.remove_bot(leaving)
    tally.add_bot("new")
    tally.add(("new", BOTS[0] if leaving != BOTS[0] else BOTS[1]), "new")
    left = [g for i, g in enumerate(played) if i not in back]
    kept = [b for b in BOTS if b != leaving] + ["new"]
    fresh = Tally(scoring, kept)
    for a, b, winner in left:
        fresh.add((a, b), winner)
    fresh.add(("new", BOTS[0] if leaving != BOTS[0] else BOTS[1]), "new")
    new = ("new", BOTS[0] if leaving != BOTS[0] else BOTS[1], "new")
    assert tally.standings() == fresh.standings() == afresh(scoring, kept, [*left, new], {})
    assert tally.cells == fresh.cells
    assert {b: tally.games(b) for b in kept} == {b: fresh.games(b) for b in kept}


def test_games_of_more_seats_count_by_places_and_points_and_come_back_out():
    """Every way a game can count (Scoring.counts) from seat places and points, a game taken back
    as it was added, and each bot's mean with its standard error."""
    games = [(("a", "b", "c"), (1, 2, 3), (9.0, 5.0, 1.0)), (("c", "a", "b"), (1, 1, 3), (4.0, 4.0, 0.0)),
             (("b", "c", "a"), (2, 3, 1), (3.0, 2.0, 7.0))]
    expect = {"points": {"a": 20.0, "b": 8.0, "c": 7.0}, "placing": {"a": 6.0, "b": 2.0, "c": 2.0},
              "wins": {"a": 2.0, "b": 0.0, "c": 0.0}, "outcome": {"a": 2.5, "b": 0.0, "c": 0.5}}
    for counts, totals in expect.items():
        tally = Tally(Scoring(counts=counts), ["a", "b", "c"])
        for players, places, points in games:
            winner = players[places.index(1)] if places.count(1) == 1 else None
            tally.add(players, winner, places=places, points=points)
        rows = {s.bot: s for s in tally.standings()}
        assert {b: s.points for b, s in rows.items()} == totals, counts
        assert (rows["a"].wins, rows["a"].draws, rows["a"].losses) == (2, 1, 0)
        tally.remove(("b", "c", "a"), "a", places=(2, 3, 1), points=(3.0, 2.0, 7.0))
        assert rows["a"].games == 3 and tally.games("a") == 2
    by_place = Tally(Scoring(counts="placing", by_place=(10, 6)), ["a", "b", "c"])
    by_place.add(("a", "b", "c"), "a", places=(1, 2, 3))
    assert [s.points for s in by_place.standings()] == [10.0, 6.0, 0.0]
    # Mean and standard error of the per-game points: a's 9, 4, 7.
    tally = Tally(Scoring(counts="points", mean=True), ["a", "b", "c"])
    for players, places, points in games:
        tally.add(players, None, places=places, points=points)
    a = next(s for s in tally.standings() if s.bot == "a")
    assert a.points == a.mean == 20 / 3
    assert abs(a.error - (((9 - 20 / 3) ** 2 + (4 - 20 / 3) ** 2 + (7 - 20 / 3) ** 2) / 2 / 3) ** 0.5) < 1e-9
    one = Tally(Scoring(counts="points"), ["a", "b", "c"])
    one.add(*games[0][:1], None, places=games[0][1], points=games[0][2])
    assert next(s for s in one.standings() if s.bot == "a").error is None  # under two games


def test_two_seat_standings_carry_their_mean_and_error_too():
    tally = Tally(Scoring(win=1, draw=0, loss=-1), ["a", "b"])
    for winner in ("a", "a", None, "b"):
        tally.add(("a", "b"), winner)
    a = next(s for s in tally.standings() if s.bot == "a")
    assert a.points == 1.0 and a.mean == 0.25
    assert abs(a.error - ((2 * 0.75 ** 2 + 0.25 ** 2 + 1.25 ** 2) / 3 / 4) ** 0.5) < 1e-9
