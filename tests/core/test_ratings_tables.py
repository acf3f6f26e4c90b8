"""Ratings and the crosstable of games of any number of seats (kothkit.store.ratings: rate_tables,
placed_above, result_places), from places: a result's seat_places, its seat_points, or its winner."""

import random
from typing import NamedTuple

from kothkit.store.ratings import placed_above, rate_tables, result_places
from kothkit.store.records import GameResult


class Table(NamedTuple):
    """A finished game as a GameResult of a table carries it (the fields this module reads)."""

    players: tuple[str, ...]
    winner: str | None = None
    seat_places: tuple[int, ...] | None = None
    seat_points: tuple[float, ...] | None = None


def duel(a, b, winner):
    return GameResult(id=f"{a}-{b}", players=(a, b), winner=winner, reason="", offender=None, verdict=None)


def test_places_come_from_places_points_or_the_winner():
    assert result_places(Table(("a", "b", "c"), seat_places=(2, 1, 2))) == (2, 1, 2)
    assert result_places(Table(("a", "b", "c", "d"), seat_points=(3.0, 7.0, 3.0, 0.0))) == (2, 1, 2, 4)
    assert result_places(duel("a", "b", "b")) == (2, 1)
    assert result_places(duel("a", "b", None)) == (1, 1)
    assert result_places(Table(("a", "b", "c"), winner="c")) == (2, 2, 1)


def test_the_crosstable_counts_who_placed_above_whom():
    games = [
        Table(("a", "b", "c"), seat_places=(1, 2, 3)),
        Table(("c", "a", "b"), seat_places=(1, 2, 2)),  # a and b tie second
        Table(("b", "c", "a"), seat_points=(5.0, 1.0, 5.0)),  # a and b tie first, c last
        duel("a", "c", "a"),
        duel("a", "b", None),
    ]
    t = placed_above(games)
    assert t[("a", "b")] == (1, 4) and t[("b", "a")] == (0, 4)  # 3 ties
    assert t[("a", "c")] == (3, 4) and t[("c", "a")] == (1, 4)
    assert t[("b", "c")] == (2, 3) and t[("c", "b")] == (1, 3)
    for (a, b), (above, n) in t.items():  # above both ways never exceeds the games
        assert t[(b, a)][1] == n and above + t[(b, a)][0] <= n


def _field(seed, games=300, seats=4):
    """Tables among bots of known strength: places drawn by Plackett-Luce from each bot's weight."""
    rng = random.Random(seed)
    weight = {f"bot{i}": 2.0 ** i for i in range(6)}  # bot5 strongest
    out = []
    for _ in range(games):
        players = rng.sample(sorted(weight), seats)
        left, order = list(players), []
        while left:
            pick = rng.choices(left, [weight[p] for p in left])[0]
            order.append(pick)
            left.remove(pick)
        out.append(Table(tuple(players), seat_places=tuple(1 + order.index(p) for p in players)))
    return out


def test_rate_tables_finds_the_stronger_bots_with_shrinking_uncertainty():
    games = _field(1)
    ratings = rate_tables(games)
    assert [r.bot for r in ratings] == [f"bot{i}" for i in reversed(range(6))]
    assert all(abs(r.ordinal - (r.mu - 3 * r.sigma)) < 1e-9 for r in ratings)
    assert sum(r.games for r in ratings) == 300 * 4
    few = {r.bot: r.sigma for r in rate_tables(games[:20])}
    assert all(r.sigma < few[r.bot] < 25 / 3 for r in ratings)
    # Deterministic in the order given; a bot without games is the prior (25, 25/3, 0).
    assert rate_tables(games) == ratings
    fresh = next(r for r in rate_tables(games, bots=["nobody", "bot0"]) if r.bot == "nobody")
    assert (fresh.mu, round(fresh.sigma, 9), fresh.games) == (25.0, round(25 / 3, 9), 0)


def test_rate_tables_reads_two_seat_results_and_ties():
    games = [duel("a", "b", "a"), duel("b", "a", "a"), duel("a", "b", None)] * 5
    a, b = rate_tables(games)
    assert (a.bot, b.bot) == ("a", "b") and a.mu > 25 > b.mu
    tie = rate_tables([Table(("x", "y", "z"), seat_places=(1, 1, 1))])
    assert len({round(r.mu, 9) for r in tie}) == 1
    # A game in which a bot holds two seats is left out.
    assert rate_tables([Table(("x", "x", "z"), seat_places=(1, 2, 3))]) == []


def test_places_that_do_not_match_the_seats_are_refused_by_game():
    import pytest

    class Bad(NamedTuple):
        id: str
        players: tuple[str, ...]
        winner: str | None = None
        seat_places: tuple[int, ...] | None = None

    with pytest.raises(ValueError, match="game g7: 2 seat_places for 3 seats"):
        rate_tables([Bad("g7", ("a", "b", "c"), seat_places=(1, 2))])


def test_the_kept_ratings_rate_only_new_games_and_equal_a_full_recompute():
    """TableRater (the host's ratings, kept game by game): games appended after the rated ones are
    rated on top of the kept ratings; a game that comes before a rated one (finished out of
    order), one placed again, and a bot's games gone make it rate again from a state kept before
    the change; every update equals rate_tables over the games in key order, to the last bit."""
    from kothkit.store.ratings import TableRater

    rng = random.Random(5)
    names = [f"b{i}" for i in range(8)]
    schedule = []
    for index in range(300):
        players = tuple(rng.sample(names, 4))
        schedule.append(((index, f"g{index:03d}"), Table(players, seat_places=tuple(rng.randint(1, 4) for _ in players))))
    rater = TableRater(every=16)

    def same(counted):
        got = rater.update(counted.items())
        full = rate_tables(r for _, r in sorted(counted.items()))
        assert got == full  # (mu and sigma to the last bit: the same games, in the same order)

    counted: dict = {}
    for key, table in schedule[:100]:  # appended in schedule order: always on top
        counted[key] = table
        same(counted)
        assert rater.rated == 1
    assert rater.on_top == 99 and rater.from_kept == rater.restarts == 0
    for key, table in schedule[110:150]:  # games 100-109 not done yet: later games first
        counted[key] = table
        same(counted)
    for key, table in schedule[100:110]:  # come in now, before rated games: from a kept state
        counted[key] = table
        same(counted)
        assert rater.rated < 60
    assert rater.from_kept == 10 and rater.restarts == 0
    key, table = schedule[120]  # placed again: rated again from before it
    counted[key] = Table(table.players, seat_places=tuple(reversed(table.seat_places)))
    same(counted)
    assert rater.from_kept == 11 and rater.rated == 150 - 112
    for key in [k for k, t in counted.items() if "b3" in t.players]:  # a bot dropped: its games gone
        del counted[key]
    same(counted)
    assert all(r.bot != "b3" for r in rater.update(counted.items()))
    assert rater.from_kept + rater.restarts == 12
    restarts = rater.restarts
    counted = dict(schedule[150:170])  # every game another: from the start
    same(counted)
    assert rater.restarts == restarts + 1 and rater.rated == 20


def test_the_kept_states_are_thinned_and_still_give_the_same_ratings():
    from kothkit.store.ratings import TableRater

    rng = random.Random(9)
    names = [f"b{i}" for i in range(6)]
    games = {(i, f"g{i:03d}"): Table(p := tuple(rng.sample(names, 3)), seat_places=tuple(rng.randint(1, 3) for _ in p))
             for i in range(200)}
    rater = TableRater(every=1, most=16)
    keys = sorted(games)
    for k in keys[:150] + keys[151:]:  # one game late
        rater.update({key: games[key] for key in keys if key <= k and key != keys[150]}.items())
    assert len(rater._kept) <= 16
    late = rater.update(games.items())
    assert late == rate_tables(games[k] for k in keys) and rater.from_kept == 1 and rater.rated < 100
