"""The schedule: pairs play 2 games a round with alternating openers; seeds depend on slots only."""

from collections import Counter
from pathlib import Path

from kothkit.bots.folders import BotSpec
from kothkit.limits import Limits
from kothkit.playing.schedule import Schedule


def bots(*names):
    return tuple(BotSpec(name=n, path=Path("."), command=("x",), hash=n * 4) for n in names)


def test_every_pair_twice_per_round_openers_alternate():
    s = Schedule(game="g", bots=bots("a", "b", "c"), seed=5, rounds=2, limits=Limits())
    tasks = list(s)
    assert len(tasks) == s.total == 12
    openers = Counter(t.players[0].name for t in tasks)
    assert openers == {"a": 4, "b": 4, "c": 4}
    assert [t.index for t in tasks] == list(range(12))
    assert len({t.id for t in tasks}) == 12 and len({t.seed for t in tasks}) == 12


def test_slots_do_not_depend_on_other_bots():
    two = {(t.players[0].name, t.players[1].name, t.seed): t.id for t in Schedule("g", bots("a", "b"), 9, 1, Limits())}
    three = {(t.players[0].name, t.players[1].name, t.seed): t.id for t in Schedule("g", bots("a", "b", "c"), 9, 1, Limits())}
    assert two.items() <= three.items()


def test_changed_bot_changes_only_its_ids():
    a = {t.id for t in Schedule("g", bots("a", "b", "c"), 1, 1, Limits())}
    changed = bots("a", "b", "c")[:2] + (BotSpec(name="c", path=Path("."), command=("x",), hash="new"),)
    b = {t.id for t in Schedule("g", changed, 1, 1, Limits())}
    assert len(a & b) == 2 and len(a - b) == 4


def test_seed_changes_everything():
    a = [t.seed for t in Schedule("g", bots("a", "b"), 1, 1, Limits())]
    b = [t.seed for t in Schedule("g", bots("a", "b"), 2, 1, Limits())]
    assert a != b


def test_ids_and_seeds_are_game_id_and_derive_of_each_slot():
    # The schedule hashes each pair's shared prefix once; the values must be exactly the documented ones.
    from kothkit.playing.schedule import game_id, settings_of
    from kothkit.playing.seeding import derive

    s = Schedule(game="g", bots=bots("a", "b", "c"), seed=77, rounds=1, limits=Limits(), rules={"k": 1})
    tasks = list(s)
    settings = settings_of(s.limits, s.rules)
    firsts: set[tuple[str, str]] = set()
    for t in tasks:
        a, b = sorted(p.name for p in t.players)
        k = 1 if (a, b) in firsts else 0
        firsts.add((a, b))
        assert t.seed == derive(77, "game", a, b, k)
        assert t.id == game_id("g", settings, t.players, (a, b, k, 77))
    assert list(s.ids()) == [t.id for t in tasks]



def test_a_bots_seed_is_derived_from_its_games_seed_and_seat():
    # bot_seed formats its label at once: the same seeds as derive's.
    import random

    from kothkit.playing.seeding import bot_seed, derive

    rng = random.Random(20)
    for seed in [0, 1, (1 << 31) - 1] + [rng.randrange(1 << 31) for _ in range(500)]:
        for seat in (0, 1, 2):
            assert bot_seed(seed, seat) == derive(seed, "bot", seat)


def _bot(name, version="1"):
    return BotSpec(name=name, path=Path("."), command=("x",), hash=f"{name}-{version}")


def _same_as_full(plan, changes, before_ids):
    """``plan`` is a full schedule of its bots, and ``changes`` the difference from ``before_ids``."""
    full = list(Schedule(game="g", bots=plan.schedule.bots, seed=7, rounds=2, limits=Limits()))
    assert plan.tasks(t.id for t in full) == full  # ids, seats, seeds and indices
    assert len(plan) == len(full)
    ids = {t.id for t in full}
    assert {t.id for t in changes.added} == ids - before_ids
    assert changes.removed == before_ids - ids
    assert list(changes.added) == [t for t in full if t.id not in before_ids]  # in play order


def test_schedule_changes_equal_a_full_schedule():
    from kothkit.playing.schedule import Planned

    # More than a BLOCK (16) of bots: a new name moves others to the next group.
    names = [f"b{i:02d}" for i in range(20)]
    plan = Planned.empty(Schedule(game="g", bots=(), seed=7, rounds=2, limits=Limits()))
    steps = [
        [_bot(n) for n in names],  # all at once
        [_bot(n) for n in [*names, "a00"]],  # one added, first by name
        [_bot(n, "2" if n == "b05" else "1") for n in [*names, "a00"]],  # one replaced
        [_bot(n, "2" if n == "b05" else "1") for n in [*names, "a00"] if n != "b11"],  # one dropped
        # many at once: two added, two replaced, two dropped
        [_bot(n, "3" if n in ("b01", "b19") else "1") for n in [*names, "c1", "a01"] if n not in ("b02", "b03")],
        [_bot(n) for n in names],  # the first bots again
    ]
    for bots_now in steps:
        before = set(plan.where)
        plan, changes = plan.change(bots_now)
        _same_as_full(plan, changes, before)
    # Schedule.changed: the same from a whole schedule.
    s = Schedule(game="g", bots=tuple(_bot(n) for n in names), seed=7, rounds=2, limits=Limits())
    after, changes = s.changed([_bot(n) for n in names[1:]] + [_bot("z")])
    assert list(after) == list(Schedule(game="g", bots=after.bots, seed=7, rounds=2, limits=Limits()))
    assert changes.new == {"z"} and changes.gone == {names[0]} and changes.moved
    assert changes.removed == {t.id for t in s if names[0] in (t.players[0].name, t.players[1].name)}


def test_a_backlog_interleaves_each_new_bots_opponents_and_the_new_bots_take_turns():
    from kothkit.playing.schedule import Planned

    names = [f"b{i:02d}" for i in range(40)]
    plan = Planned.of(Schedule(game="g", bots=tuple(_bot(n) for n in names), seed=7, rounds=2, limits=Limits()))
    plan, changes = plan.change([*(_bot(n) for n in names), _bot("new1"), _bot("new2")])
    order = plan.backlog(changes.added, {"new1", "new2"})
    assert sorted(t.id for t in order) == sorted(t.id for t in changes.added)  # each game once
    assert order == plan.backlog(reversed(changes.added), {"new2", "new1"})  # seeded: the same order
    # The new bots take turns, a game pair each; a pair's two games of a round come together.
    owners = [("new1" if "new1" in (t.players[0].name, t.players[1].name) else "new2") for t in order[:40]]
    assert owners[:8] == ["new1", "new1", "new2", "new2"] * 2
    assert all(order[i].players == order[i + 1].players[::-1] for i in range(0, 40, 2))
    # A new bot's first games are spread over the field (its groups of 16 bots alike), round 1 first.
    first = [next(b.name for b in t.players if b.name != "new1") for t in order if "new1" in
             (t.players[0].name, t.players[1].name)]
    early = set(first[:30])
    assert len(early) == 15 and {int(n[1:]) // 16 for n in early if n.startswith("b")} == {0, 1, 2}
    assert first[:15 * 2] != sorted(first[:15 * 2])
