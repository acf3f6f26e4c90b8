"""The one dispatcher (kothkit.playing.dispatcher) on real executors and real games: lanes take
turns with a new bot's games first, a stateful bot plays one game at a time in order, a bot's
games are dropped mid-run, a game lost with its (really killed) worker is tried again and then put
off with a growing wait, and a tournament with a stateful bot gives the same games at --jobs 1 and 2."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import attrs

from kothkit.bots.folders import load_bots
from kothkit.playing.dispatcher import HOST, Dispatcher, Policy, run_policy
from kothkit.playing.executor import LocalExecutor
from kothkit.playing.schedule import Schedule
from kothkit.plugins import get_game

ROOT = Path(__file__).resolve().parents[2]
C4 = ROOT / "plugins" / "connect4_hidden" / "bots"


def _tasks(names=("random_player", "constant_player", "better_random_player"), rounds=1, seed=1):
    info = get_game("connect4_hidden")
    bots = load_bots([C4 / n for n in names]).bots
    return list(Schedule(game=info.name, bots=tuple(bots), seed=seed, rounds=rounds, limits=info.limits,
                         rules=dict(info.rules), trusted=True))


def _drain(d: Dispatcher, on_done=None) -> list:
    """Poll ``d`` until nothing is queued, in flight or put off; the finished units in the order they came."""
    out = []
    while True:
        done = d.poll(30)
        if not done and not d.running and not any(d.later(key) for key in ("koth", "c", None)):
            return out
        if not done and not d.running:
            import time

            time.sleep(0.02)  # a game put off: queued again once its wait is over
        for x in done:
            out.append(x)
            if on_done is not None:
                on_done(x)


def test_lanes_take_turns_and_first_games_come_first():
    tasks = _tasks(rounds=10)
    big, small, new, old = tasks[:40], tasks[40:42], tasks[42:44], tasks[44:46]
    with LocalExecutor(1, pin_cpu=False) as pool:  # one job: played here, one at a time, in start order
        d = Dispatcher(pool, Policy(retries=0, later=1.0, isolate=False))
        d.submit(big, "big")
        d.submit(small, "small")
        d.submit(old, "other")
        d.submit(new, "other", first=True)
        order = [(x.key, x.tasks[0].id) for x in _drain(d)]
    ids = lambda key, ts: [(key, t.id) for t in ts]  # noqa: E731
    # The new bot's games first (whoever's turn it is), then the lanes in turn: the big one does
    # not hold the small one back.
    assert order[:2] == ids("other", new)
    assert order[2:8] == [ids("big", big)[0], ids("small", small)[0], ids("other", old)[0],
                          ids("big", big)[1], ids("small", small)[1], ids("other", old)[1]]
    assert order[8:] == ids("big", big[2:])


def test_a_stateful_bot_plays_one_game_at_a_time_in_schedule_order():
    tasks = _tasks(rounds=6)
    stateful = tasks[0].players[0].name
    mine = [t.id for t in tasks if stateful in (b.name for b in t.players)]
    with LocalExecutor(2, pin_cpu=False) as pool:
        d = Dispatcher(pool, run_policy(batch=1, first=1, stateful=True))
        d.lane(None, stateful={stateful})
        d.submit(tasks)
        d.end()
        running: list[set] = []

        def look(x):
            running.append(set(d.inflight()))

        done = _drain(d, look)
    got = [t.id for x in done for t in x.tasks]
    assert sorted(got) == sorted(t.id for t in tasks)
    # Its games came back in schedule order: never two at once, so each ended before the next began.
    assert [g for g in got if g in mine] == mine
    assert all(len(ids & set(mine)) <= 1 for ids in running)


def test_a_bots_games_are_dropped_mid_run_and_the_others_all_played():
    tasks = _tasks(rounds=8)
    gone = "constant_player"
    with LocalExecutor(1, pin_cpu=False) as pool:
        d = Dispatcher(pool, HOST)
        d.submit(tasks, "c")
        played = [t for x in d.poll(30) for t in x.tasks]
        dropped = d.drop({gone}, "c")
        played += [t for x in _drain(d) for t in x.tasks]
    theirs = [t for t in tasks if gone in (b.name for b in t.players)]
    assert dropped == len([t for t in theirs if t not in played]) > 0
    # Nothing of theirs started after the drop (the first game was in play); every other game played once.
    assert [t.id for t in played if gone in (b.name for b in t.players)] == [t.id for t in theirs if t in played[:1]]
    assert sorted(t.id for t in played if gone not in (b.name for b in t.players)) == \
        sorted(t.id for t in tasks if gone not in (b.name for b in t.players))


#: The game whose worker dies (set before the pool's workers are forked), and a file counting its tries.
_DOOMED: list = [None, None, 0]


def _dies_on_the_doomed(tasks, cpu=None, rows=False):
    """The worker's play_batch: the doomed game ends its worker (os._exit, as a trusted function bot
    or the OOM killer would) its first ``_DOOMED[2]`` tries, counted in a file (workers come and go)."""

    gid, counter, times = _DOOMED
    if any(t.id == gid for t in tasks):
        n = int(counter.read_text() or 0) if counter.exists() else 0
        counter.write_text(str(n + 1))
        if n < times:
            os._exit(9)
    return _REAL[0](tasks, cpu, rows)


_REAL: list = []


def _doom(monkeypatch, task, counter: Path, times: int) -> None:
    """Workers forked from now on end on ``task``'s first ``times`` tries."""
    from kothkit.playing import executor

    _REAL[:] = [executor.play_batch]
    _DOOMED[:] = [task.id, counter, times]
    monkeypatch.setattr(executor, "play_batch", _dies_on_the_doomed)


def test_a_game_lost_again_and_again_is_retried_then_put_off_with_a_growing_wait(tmp_path, monkeypatch):
    tasks = _tasks()[:3]
    counter = tmp_path / "tries"
    _doom(monkeypatch, tasks[1], counter, 3)
    said: list[str] = []
    policy = attrs.evolve(HOST, later=0.5)
    with LocalExecutor(2, pin_cpu=False) as pool:
        d = Dispatcher(pool, policy, on_notice=said.append)
        d.submit(tasks, "koth")
        done: list = []
        while tasks[1].id not in d.later("koth"):  # tried retries + 1 times at once, then put off
            done += d.poll(30)
        # (a game in the other worker is lost with the pool too, and may be put off beside it)
        left, t = d.later("koth")[tasks[1].id]
        assert t == tasks[1] and 0 < left <= 0.5
        assert any(f"game {t.id} (" in s and s.endswith("failed 3 times: tried again in 0.5 s") for s in said)
        assert sum("a worker died" in s for s in said) >= 3
        done += _drain(d)  # played once its wait is over (a fourth try: its worker left alone now)
    assert sorted(t.id for x in done for t in x.tasks) == sorted(t.id for t in tasks)
    assert counter.read_text() == "4" and not d.later("koth")


def test_a_game_put_off_as_often_as_the_policy_allows_is_left_out(tmp_path, monkeypatch):
    tasks = _tasks()[:2]
    counter = tmp_path / "tries"
    _doom(monkeypatch, tasks[0], counter, 99)
    said: list[str] = []
    with LocalExecutor(2, pin_cpu=False) as pool:
        d = Dispatcher(pool, Policy(retries=0, isolate=False, later=0.05, later_max=0.1, later_rounds=2,
                                    retry_errors=True), on_notice=said.append)
        # The two games share a stateful bot, so they are never in flight together: the other game is
        # not lost with the doomed one's pool (on a busy machine it was, each time, and left out too).
        d.lane("koth", stateful={"constant_player"})
        d.submit(tasks, "koth")
        done = _drain(d)
    assert [t.id for x in done for t in x.tasks] == [tasks[1].id]
    # Waits of 0.05 s then 0.1 s, then left out: three tries in all.
    assert counter.read_text() == "3"
    assert [s.rsplit(": ", 1)[1] for s in said if f"game {tasks[0].id} (" in s] == \
        ["tried again in 0.05 s", "tried again in 0.1 s", "left unplayed until it is submitted again"]


STATEFUL = '''import os


def counter(view, turn, state):
    """Plays the column its games so far say: its moves depend on the order it saw its games in."""
    if state is None:
        n = int(open("seen.txt").read()) if os.path.exists("seen.txt") else 0
        with open("seen.txt", "w") as f:
            f.write(str(n + 1))
        state = n
    return (turn + state) % 7, state
'''


def test_a_stateful_bot_gives_the_same_games_at_jobs_1_and_2(tmp_path):
    from kothkit.playing.tournament import run_tournament
    from kothkit.store.journal import Journal

    info = get_game("connect4_hidden")
    results = []
    for jobs in (1, 2):
        root = tmp_path / f"jobs{jobs}"
        bot = root / "counter"
        bot.mkdir(parents=True)
        (bot / "bot.py").write_text(STATEFUL)
        (bot / "bot.toml").write_text('name = "counter"\nentry = "bot.py:counter"\nstateful = true\n')
        for n in ("random_player", "constant_player", "better_random_player"):
            shutil.copytree(C4 / n, root / n)
        bots = load_bots([root / n for n in ("counter", "random_player", "constant_player",
                                             "better_random_player")]).bots
        r = run_tournament(info, bots, seed=11, journal=root / "j.sqlite", jobs=jobs, rounds=2)
        with Journal(root / "j.sqlite") as j:
            games = [(g.id, g.winner, [m.reply for m in g.moves]) for g in r.records(j)]
        results.append((games, [(s.bot, s.points, s.wins) for s in r.standings], (bot / "seen.txt").read_text()))
    assert results[0] == results[1]
    assert results[0][2] == str(2 * 2 * 3)  # its 12 games, each seen once


def test_a_replay_holding_the_workers_while_the_read_ahead_is_full_loses_no_game(tmp_path, monkeypatch):
    """``run``'s dispatch reads its schedule at most a window ahead.  A worker dies on an early game:
    its pool's batches are played again, isolated, and while they play nothing else starts, so the
    queue stays full and the next look at the schedule has no room.  That is not its end (the old
    dispatch took an empty read for one and left the games past the window unplayed): every game
    of a schedule longer than the window is played, once."""
    from kothkit.playing.tournament import dispatch, read_ahead

    window = read_ahead(2, 1)
    tasks = _tasks(rounds=-(-(window + 8) // 6))  # (3 bots: 6 games a round)
    assert len(tasks) > window
    _doom(monkeypatch, tasks[0], tmp_path / "tries", 1)
    played: list[str] = []
    said: list[str] = []
    with LocalExecutor(2, pin_cpu=False) as pool:
        dispatch(iter(tasks), stateful=set(), executor=pool, batch=1, first=1, on_notice=said.append,
                 on_done=lambda ts, records: played.extend(t.id for t in ts))
    assert any(s.startswith("a worker died") for s in said)
    assert (tmp_path / "tries").read_text() == "2"  # (died once, then played isolated)
    assert sorted(played) == sorted(t.id for t in tasks) and len(set(played)) == len(played)
