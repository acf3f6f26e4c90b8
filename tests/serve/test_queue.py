"""The host's work queue (kothkit.serve.queue): fair turns between challenges, a new bot's games
first, and a stateful bot in one game at a time, in schedule order."""

from __future__ import annotations

from pathlib import Path

from kothkit.serve.queue import GameQueue, pick


def tasks(prefix: str, pairs, stateful=()):
    from kothkit.bots.folders import BotSpec
    from kothkit.limits import Limits
    from kothkit.store.records import GameTask

    bot = lambda n: BotSpec(name=n, path=Path("/nowhere"), command=("x",), stateful=n in stateful)  # noqa: E731
    return [GameTask(id=f"{prefix}{i}", game="g", players=(bot(a), bot(b)), seed=i, limits=Limits(), index=i)
            for i, (a, b) in enumerate(pairs)]


def test_challenges_take_turns_and_fresh_games_come_first():
    big, small, other = GameQueue(), GameQueue(), GameQueue()
    big.reset([], tasks("big", [("a", "b")] * 50), ())
    small.reset([], tasks("small", [("c", "d")] * 2), ())
    other.reset(tasks("new", [("e", "f")] * 2), tasks("old", [("e", "g")] * 2), ())
    queues = [big, small, other]
    order, turn = [], 0
    while (found := pick(queues, turn)) is not None:
        i, t = found
        order.append(t.id)
        turn = i + 1
    # The new bot's games first (whoever's turn it is), then the challenges in turn: the big queue
    # does not hold the small one back.
    assert order[:2] == ["new0", "new1"]
    assert order[2:8] == ["big0", "small0", "old0", "big1", "small1", "old1"]
    assert order[8:] == [f"big{i}" for i in range(2, 50)]


def test_a_stateful_bot_plays_one_game_at_a_time_in_order():
    q = GameQueue()
    q.reset([], tasks("t", [("s", "a"), ("s", "b"), ("a", "b"), ("b", "s")], stateful=("s",)), ("s",))
    first = q.take(1)
    assert first.id == "t0"
    second = q.take(1)
    assert second.id == "t2"  # s is busy: its games wait, the others go on
    assert q.take(1) is None
    q.done(first)
    assert q.take(1).id == "t1"  # then s's next game, in schedule order
    assert q.take(1) is None
