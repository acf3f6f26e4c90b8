"""Many isolated function bots: each worker keeps a bounded pool of hosts, and every cgroup goes.

150 bots at ``--jobs 2`` once made 900 processes (a jailed host of three processes per bot
and worker) and left 300 cgroups.  Here a real ``kothkit run`` of 150 bots is watched: the
judge's descendant processes stay under what two pools of ``KOTHKIT_MAX_HOSTS`` hosts make,
though far more bots than that have played.  The judge is then killed with SIGKILL: the
cgroups its workers made stay behind until the next judge starts, which removes them (and
its own, when it ends).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from kothkit.procs.contain import capabilities
from kothkit.testing.procs import cgroups_made_by as groups_of
from kothkit.testing.procs import descendants

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "plugins" / "connect4_hidden" / "bots"
BOTS = 150
MAX_HOSTS = 36  # per worker; a block of the schedule (two groups of 16 bots) fits


def make_bots(folder: Path) -> None:
    for i in range(BOTS):
        bot = folder / f"b{i:03d}"
        bot.mkdir(parents=True)
        # The opener stacks column 0 and wins in seven moves: short games, so that many bots play.
        (bot / "bot.py").write_text("def play(view, turn, state):\n    return turn % 2, state\n")
        (bot / "bot.toml").write_text(f'name = "b{i:03d}"\nentry = "bot.py:play"\n')


def judge(tmp: Path, bots: list[str], db: Path) -> subprocess.Popen:
    args = [a for b in bots for a in ("--bots", b)]
    return subprocess.Popen(
        [sys.executable, "-m", "kothkit", "run", "connect4_hidden", *args, "--rounds", "1", "--seed", "1",
         "--jobs", "2", "--db", str(db), "-q"], cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL, text=True, env={**os.environ, "KOTHKIT_MAX_HOSTS": str(MAX_HOSTS)})


def test_150_isolated_bots_run_with_bounded_processes_and_leave_no_cgroup(tmp_path):
    make_bots(tmp_path / "bots")
    first = judge(tmp_path, [str(tmp_path / "bots")], tmp_path / "many.sqlite")
    seen: set[int] = set()
    peak = 0
    try:
        # Watched until more processes than two full pools hold have started, by four hosts a
        # worker (each pool must have stopped hosts to start them), or 60 s: what the judge does
        # after that proves no more.
        end = time.monotonic() + 60
        while time.monotonic() < end and first.poll() is None and len(seen - {first.pid}) <= 2 * 3 * (MAX_HOSTS + 4):
            now = descendants(first.pid)
            seen |= now
            peak = max(peak, len(now))
            time.sleep(0.2)
        left = groups_of(seen | {first.pid})
    finally:
        first.kill()  # a crash of the judge: its workers and their hosts die with it
        first.communicate(timeout=60)
    # Two workers, each with at most MAX_HOSTS hosts of three processes (jail leader, init,
    # Python), and one more being started while the least used one stops.
    assert peak <= 2 * (1 + 3 * (MAX_HOSTS + 1)), peak
    # Far more hosts than that were started over the run: each is a jail with its own cgroup.
    started = {p for p in seen if p not in (first.pid,)}
    assert len(started) > 2 * 3 * MAX_HOSTS, len(started)
    if capabilities().pids_dir is None and capabilities().cgroup_dir is None:
        return  # no cgroups on this machine: nothing to sweep
    # The killed judge's workers left their groups behind ...
    time.sleep(0.5)
    assert groups_of(seen | {first.pid}), "the SIGKILLed judge's workers left no cgroup to sweep"
    # The workers notice their judge is gone and die (on a loaded machine that can take a while);
    # a group is stale once its maker is gone.
    end = time.monotonic() + 60
    while any(os.path.exists(f"/proc/{p}") for p in seen) and time.monotonic() < end:
        time.sleep(0.1)
    assert not [p for p in seen if os.path.exists(f"/proc/{p}")], "processes of the killed judge live on"
    # ... and the next judge removes them at its start, and its own at its end.
    second = judge(tmp_path, [str(BUNDLED / "constant_player"), str(BUNDLED / "random_player")],
                   tmp_path / "two.sqlite")
    mine: set[int] = set()
    end = time.monotonic() + 120
    while second.poll() is None and time.monotonic() < end:
        mine |= descendants(second.pid)
        time.sleep(0.05)
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert groups_of(seen | {first.pid}) == [], left
    assert groups_of(mine | {second.pid}) == []
