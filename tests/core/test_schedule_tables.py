"""Tables: schedules of games of more than two seats (kothkit.playing.schedule, kothkit.playing.tables).

Pure functions: no game is played.  Balance for B from 2 to 40 bots and k from 3 to 8 seats: equal
games per bot, every bot once in every seat each round, pair counts within one (within two in the
cases listed, where the design's search finds no better), and a changing field equal to a full
schedule of the new one.
"""

from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from kothkit.bots.folders import BotSpec
from kothkit.limits import Limits
from kothkit.playing.schedule import Planned, Schedule
from kothkit.playing.tables import offsets, spread

#: (B, k, rounds) whose pair counts differ by two (the others' by at most one); the module
#: docstring of kothkit.playing.schedule states this list's length.
SPREAD_TWO = frozenset([(12, 3, 2), (14, 3, 2), (24, 4, 2), (25, 4, 2), (14, 5, 2), (20, 5, 1), (22, 5, 1), (40, 5, 2), (16, 6, 1), (17, 6, 1), (29, 6, 1), (30, 6, 1), (32, 6, 1), (33, 6, 1), (34, 6, 1), (14, 7, 1), (22, 7, 1), (23, 7, 1), (29, 7, 2), (38, 7, 1), (39, 7, 1), (40, 7, 1), (20, 8, 1), (24, 8, 2), (28, 8, 1), (29, 8, 1), (30, 8, 1), (38, 8, 2), (39, 8, 2), (40, 8, 2)])


def bots(n, version="1"):
    return tuple(BotSpec(name=f"b{i:02d}", path=Path("."), command=("x",), hash=f"b{i:02d}-{version}")
                 for i in range(n))


def table_schedule(field, seats, rounds=1, seed=7):
    return Schedule(game="g", bots=field, seed=seed, rounds=rounds, limits=Limits(), seats=seats)


def test_the_designs_are_balanced_for_2_to_40_bots_and_3_to_8_seats():
    # The designs alone (the places' pair counts), for one and two rounds.
    found = set()
    for k in range(3, 9):
        for b in range(2, 41):
            for rounds in (1, 2):
                design = offsets(b, k, rounds)
                assert len(design) == rounds and all(len(set(d)) == min(b, k) for d in design)
                s = spread(b, design)
                assert s <= 2, (b, k, rounds)
                if s == 2:
                    found.add((b, k, rounds))
    assert found == SPREAD_TWO
    # Difference sets (projective planes of order 2, 3, 5): every pair meets once a round, in any rounds.
    for b, k in ((7, 3), (13, 4), (31, 6)):
        assert all(spread(b, offsets(b, k, rounds)) == 0 for rounds in (1, 2, 5))


@pytest.mark.parametrize("k", range(3, 9))
def test_tables_seat_every_bot_equally_in_every_seat_and_pairs_meet_evenly(k):
    for b in range(2, 41):
        rounds = 2
        # Seats (2, k): fewer bots than k sit at one table of everyone (a game of k seats needs k).
        tasks = list(table_schedule(bots(b), (2, k), rounds))
        size = min(b, k)
        assert len(tasks) == b * rounds == table_schedule(bots(b), (2, k), rounds).total
        assert [t.index for t in tasks] == list(range(len(tasks)))
        assert len({t.id for t in tasks}) == len(tasks) and len({t.seed for t in tasks}) == len(tasks)
        games = Counter(p.name for t in tasks for p in t.players)
        assert set(games.values()) == {size * rounds}, b
        for r in range(rounds):  # each round: every bot once in every seat
            for seat in range(size):
                assert sorted(t.players[seat].name for t in tasks[r * b:(r + 1) * b]) == [x.name for x in bots(b)]
        meet = Counter(frozenset(p) for t in tasks for p in combinations((x.name for x in t.players), 2))
        counts = [meet[frozenset((x.name, y.name))] for x, y in combinations(bots(b), 2)]
        assert max(counts) - min(counts) <= (2 if (b, k, rounds) in SPREAD_TWO else 1), b
        if b <= k:  # every game seats everyone
            assert all(len(t.players) == b for t in tasks)


def test_tables_come_from_the_seed_alone():
    a = list(table_schedule(bots(13), 5, 2, seed=3))
    assert a == list(table_schedule(bots(13), 5, 2, seed=3))
    assert list(table_schedule(bots(13), 5, 2, seed=3).ids()) == [t.id for t in a]
    other = list(table_schedule(bots(13), 5, 2, seed=4))
    assert [t.players for t in other] != [t.players for t in a] and not {t.id for t in a} & {t.id for t in other}


def test_a_range_of_seats_and_too_few_bots():
    # seats=(3, 6): 2 bots are too few (no games), 4 bots sit at one table of 4, 9 bots at tables of 6.
    assert list(table_schedule(bots(2), (3, 6))) == [] and table_schedule(bots(2), (3, 6)).total == 0
    assert {len(t.players) for t in table_schedule(bots(4), (3, 6))} == {4}
    assert {len(t.players) for t in table_schedule(bots(9), (3, 6))} == {6}
    # A range down to two seats: two bots play two games a round, each opening one.
    assert [tuple(p.name for p in t.players) for t in table_schedule(bots(2), (2, 4))] in (
        [("b00", "b01"), ("b01", "b00")], [("b01", "b00"), ("b00", "b01")])


def test_two_seat_schedules_are_unchanged():
    # A game of exactly two seats is a round robin of pairs whatever the seats field says it is.
    old = list(Schedule(game="g", bots=bots(5), seed=7, rounds=2, limits=Limits()))
    assert list(table_schedule(bots(5), 2, 2)) == old == list(table_schedule(bots(5), (2, 2), 2))
    assert all(len(t.players) == 2 for t in old)


def test_table_ids_and_seeds_hash_the_seats_and_the_slot():
    from kothkit.playing.schedule import game_id, settings_of
    from kothkit.playing.seeding import derive

    s = table_schedule(bots(6), 4, 2, seed=77)
    for t in s:
        r = t.index // 6
        assert t.id == game_id("g", settings_of(s.limits, s.rules), t.players, ("table", r, 77))
        assert t.seed == derive(77, "table", r, *(p.name for p in t.players))


def test_table_changes_equal_a_full_schedule():
    plan = Planned.empty(table_schedule((), (3, 5), 2))
    field = list(bots(12))
    steps = [
        field[:2],  # too few bots: no games
        field[:3],  # one table of everyone
        field,  # all at once
        [*field, BotSpec(name="a00", path=Path("."), command=("x",), hash="a00")],  # one added
        [*field[:5], *bots(12, "2")[5:6], *field[6:]],  # one replaced
        [*field[:5], *bots(12, "2")[5:6], *field[7:]],  # one dropped
        field,
    ]
    for now in steps:
        before = set(plan.where)
        old = plan
        plan, changes = plan.change(now)
        full = list(table_schedule(tuple(sorted(now, key=lambda b: b.name)), (3, 5), 2))
        assert plan.tasks(t.id for t in full) == full and len(plan) == len(full)
        assert [plan.players(t.id) for t in full] == [tuple(p.name for p in t.players) for t in full]
        assert {t.id for t in changes.added} == {t.id for t in full} - before
        assert changes.removed == before - {t.id for t in full}
        assert list(changes.added) == [t for t in full if t.id not in before]
        if old.schedule.bots and {b.name for b in now} == {b.name for b in old.schedule.bots}:
            # a replaced bot changes exactly its own games
            assert all(changes.new & {p.name for p in t.players} for t in changes.added)
            assert len(changes.added) == len(changes.removed) == sum(
                1 for t in full if changes.new & {p.name for p in t.players})
        backlog = plan.backlog(changes.added, changes.new)
        assert sorted(t.id for t in backlog) == sorted(t.id for t in changes.added
                                                       if changes.new & {p.name for p in t.players})


def _class_counts(b, k):
    """Every cyclic design's pair counts per distance class, one round (offsets from 0 up)."""
    out = set()
    for rest in combinations(range(1, b), k - 1):
        c = [0] * (b // 2 + 1)
        for x, y in combinations((0, *rest), 2):
            q = min((y - x) % b, (x - y) % b)
            c[q] += 2 if 2 * q == b else 1
        out.add(tuple(c[1:]))
    return sorted(out)


@pytest.mark.parametrize(("b", "k", "rounds"), [(20, 5, 1), (22, 5, 1), (16, 6, 1), (17, 6, 1), (14, 7, 1),
                                                (12, 3, 2), (14, 3, 2), (14, 5, 2), (24, 4, 2), (25, 4, 2)])
def test_where_pairs_differ_by_two_no_cyclic_design_does_better(b, k, rounds):
    # Exhaustively: no offsets (one round), no two offset sets (two rounds), meet within one.
    assert (b, k, rounds) in SPREAD_TWO
    vectors = _class_counts(b, k)
    combos = ([(v,) for v in vectors] if rounds == 1 else
              [(v, w) for i, v in enumerate(vectors) for w in vectors[i:]])
    for combo in combos:
        total = [sum(x) for x in zip(*combo)]
        assert max(total) - min(total) >= 2


def test_tables_are_the_size_the_game_says():
    # GameInfo.table_size (kothkit.game) and a schedule of its seats agree; too few bots: no games.
    from kothkit.game import GameInfo

    info = GameInfo(name="g", summary="", match=lambda setup: None, seats=(3, 10))  # type: ignore[arg-type,return-value]
    for b in range(2, 14):
        s = table_schedule(bots(b), info.seats)
        if b < 3:
            with pytest.raises(ValueError, match="needs at least 3 bots"):
                info.table_size(b)
            assert s.table_size == 0 and not list(s)
        else:
            assert s.table_size == info.table_size(b) == {len(t.players) for t in s}.pop()


def test_a_tables_round_is_found_again_from_its_seed_and_id():
    # What a journal's reader (verify) needs: a recorded table's round, from its seats, seed and id.
    from kothkit.playing.schedule import settings_of, table_slot

    s = table_schedule(bots(9), 4, 3, seed=11)
    settings = settings_of(s.limits, s.rules)
    for t in s:
        assert table_slot("g", settings, 11, t.players, t.seed, t.id, 3) == t.index // 9
        assert table_slot("g", settings, 12, t.players, t.seed, t.id, 3) is None
        assert table_slot("g", settings, 11, t.players[::-1], t.seed, t.id, 3) is None
