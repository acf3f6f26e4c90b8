"""A game that fails in its worker again and again (here: its worker killed each time it plays it,
a real SIGKILL of the host's real worker process) is tried POLICY.retries more times at once, then put
off: shown in the admin's work queue with the time it waits, queued again once the wait is over,
and then played and counted once."""

from __future__ import annotations

import os
import time

import attrs

from kothkit.serve import host as host_module
from kothkit.serve.host import Host
from tests.serve.test_host import _workers, settled, stored_ids, until

#: A connect4 bot in Python that takes a tenth of a second a move: a game lasts seconds, long
#: enough for the test to kill the worker that plays it.
SLOW = "import sys, time\nk = {offset}\nfor line in sys.stdin:\n    time.sleep(0.1)\n    print(k % 7, flush=True)\n" \
       "    k += 1\n"


def _challenge(root):
    d = root / "koth"
    for name, offset in (("left", 0), ("right", 3)):
        bot = d / "bots" / name
        bot.mkdir(parents=True)
        (bot / "bot.py").write_text(SLOW.format(offset=offset))
        (bot / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "bot.py"]\n')
    (d / "kothkit.toml").write_text('game = "connect4_hidden"\nbots = ["bots"]\nrounds = 1\nseed = 5\n')
    return d


def _kill_while_playing(host, target: str | None, killed: set[int], timeout: float = 60.0) -> str:
    """Kill the host's worker (one slot) while game ``target`` (None: the first game) is in play in
    a worker not killed before; the game's id."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        playing = [gid for gid, _ in host.work()["challenges"][0]["playing"]]
        workers = [pid for pid in _workers() if pid not in killed]
        if playing and workers and (target is None or target in playing):
            os.kill(workers[0], 9)
            killed.add(workers[0])
            return playing[0] if target is None else target
        assert target is None or target not in stored_ids_of(host), "the game ended before its worker was killed"
        time.sleep(0.02)
    raise AssertionError(f"game {target} was not played again within {timeout} s")


def stored_ids_of(host) -> list[str]:
    return [g.id for g in host.games("koth")]


def test_a_game_that_fails_again_and_again_waits_and_is_played_once(tmp_path, monkeypatch):
    monkeypatch.setattr(host_module, "POLICY", attrs.evolve(host_module.POLICY, later=1.0))
    ch = _challenge(tmp_path)
    host = Host([ch], tmp_path / "state", jobs=1)
    try:
        host.start()
        killed: set[int] = set()
        target = _kill_while_playing(host, None, killed)
        for _ in range(host_module.POLICY.retries):
            target = _kill_while_playing(host, target, killed)
        # Failed RETRIES + 1 times in a row: put off, and the admin's work queue says so.
        later = until(host, "koth", lambda: host.work()["challenges"][0]["later"])
        assert [gid for gid, _, _ in later] == [target]
        assert later[0][1] == ("left", "right") or later[0][1] == ("right", "left")
        assert 0 <= later[0][2] <= 1.0
        assert f"game {target} (" in (host.problem or "") and "failed 3 times: tried again in 1 s" in host.problem
        assert host.challenge("koth").queued >= 1  # still due
        # Then played (its worker left alone now), and counted once.
        until(host, "koth", lambda: settled(host, "koth") and len(host.games("koth")) == 2, timeout=120)
        assert sorted(stored_ids(ch / "kothkit.sqlite")) == sorted(stored_ids_of(host))
        assert target in stored_ids_of(host)
        assert all(s.games == 2 for s in host.standings("koth"))
        assert not host.work()["challenges"][0]["later"]
    finally:
        host.stop()
