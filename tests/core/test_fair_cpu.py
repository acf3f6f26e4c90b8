"""Bots cannot take what is not theirs (issue 42 item 3): a function host that leaves busy children
is frozen, children and all, while its opponent thinks; a function host's protocol descriptor
written by the bot is the bot's loss, never the judge's error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kothkit.procs.contain import capabilities
from kothkit.testing.procs import processes_touching

ROOT = Path(__file__).resolve().parents[2]
HOSTILE_HOST = ROOT / "tests" / "bots" / "hostile_host"
CAPS = capabilities()

#: A connect4_hidden function bot that thinks 0.1 s of its own CPU time a move (1.5 s a move allowed):
#: beside 30 spinning children on its core it would get a thirty-first of it, 0.1 s in 3.1 s.
THINKER = '''
import time


def thinker(view, turn, state):
    end = time.process_time() + 0.1
    while time.process_time() < end:
        pass
    for j in range(7):
        if view[-1][j] == 0:
            return j, state
'''


def test_a_function_host_that_leaves_busy_children_is_frozen_while_its_opponent_thinks(cli, tmp_path):
    """spawner_function starts 30 busy children; its opponent thinks 0.1 s a move (1.5 s allowed).  Frozen while it
    waits (its host's whole cgroup), it takes none of the opponent's core: no game is lost on time.
    Not frozen (no cgroups: the control), the thinker loses on time."""
    if CAPS.freezer_version is None or not CAPS.namespaces:
        pytest.skip("no writable freezer cgroup (or no jail) here: a waiting bot is not frozen")
    bots = tmp_path / "bots"
    shutil.copytree(HOSTILE_HOST / "spawner_function", bots / "spawner_function")
    (bots / "thinker").mkdir()
    (bots / "thinker" / "bot.py").write_text(THINKER)
    (bots / "thinker" / "bot.toml").write_text('name = "thinker"\nentry = "bot.py:thinker"\n')
    args = ["run", "connect4_hidden", "--bots", bots, "--seed", "3", "--jobs", "1", "--rounds", "1",
            "--move-time", "1.5", "-q"]
    cli(*args, "--db", tmp_path / "a.sqlite", "--json", tmp_path / "a.json", check=True, timeout=300)
    games = json.loads((tmp_path / "a.json").read_text())["games"]
    assert games and all(g["fault"] is None for g in games), games
    assert processes_touching(bots) == []
    cli(*args, "--db", tmp_path / "b.sqlite", "--json", tmp_path / "b.json", check=True, timeout=300,
        env={"KOTHKIT_NO_CGROUP": "1"})
    games = json.loads((tmp_path / "b.json").read_text())["games"]
    assert ("thinker", "timeout") in [(g["fault"], g["verdict"]) for g in games], games
    assert processes_touching(bots) == []


def test_a_deep_json_line_on_a_function_hosts_protocol_descriptor_is_the_bots_crash(cli, tmp_path):
    """deep_answer writes a 30,000-deep JSON line (bare, then inside an answer) onto its host's
    protocol descriptor: the run goes on, and each game is that bot's loss by a crash (the judge
    once raised RecursionError out of HostSeat.answer and aborted the tournament)."""
    bots = tmp_path / "bots"
    shutil.copytree(HOSTILE_HOST / "deep_answer", bots / "deep_answer")
    shutil.copytree(ROOT / "plugins" / "connect4_hidden" / "bots" / "constant_player", bots / "constant_player")
    r = cli("run", "connect4_hidden", "--bots", bots, "--seed", "4", "--jobs", "1", "--rounds", "1",
            "--db", tmp_path / "j.sqlite", "--json", tmp_path / "out.json", "-q", timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "RecursionError" not in r.stderr
    games = json.loads((tmp_path / "out.json").read_text())["games"]
    assert len(games) == 2, games
    assert [(g["fault"], g["verdict"]) for g in games] == [("deep_answer", "crash")] * 2, games
    assert processes_touching(bots) == []


#: A gomoku_swap2 bot that starts 8 busy children, each in a session of its own, and waits a second
#: before its first reply, having written the cores it may run on to its stderr.
SPINNERS = '''
import os, re, sys, time
for line in open("/proc/self/status"):
    if line.startswith("Cpus_allowed_list:"):
        sys.stderr.write("cpus: " + line.split(":", 1)[1].strip() + "\\n")
sys.stderr.flush()
for _ in range(8):
    if os.fork() == 0:
        os.setsid()
        while True:
            pass
first = True
for raw in iter(sys.stdin.readline, ""):
    tag, _, rest = raw.strip().partition(" ")
    if tag == "EXIT":
        break
    if first:
        time.sleep(1.0)
        first = False
    if tag == "A":
        out = "(0,0) (2,0) (1,0)"
    elif tag in ("B", "C"):
        out = "B"
    else:
        taken = {(int(x), int(y)) for x, y in re.findall(r"\\(\\((\\d+),(\\d+)\\)", rest)}
        out = "(%d,%d)" % next((x, y) for y in range(15) for x in range(15) if (x, y) not in taken)
    sys.stdout.write(out + "\\n")
    sys.stdout.flush()
'''


def test_a_play_games_bot_is_held_to_one_core_under_a_cpu_quota(tmp_path):
    """What the Play page does around a game (kothkit.procs.cores.play_core): the game's bots are held
    to the one core it claimed, and whatever they start (8 setsid spinners) shares a quota of half
    a core."""
    from kothkit.bots.folders import load_folder
    from kothkit.playing.referee import play_game
    from kothkit.playing.schedule import Schedule
    from kothkit.plugins import get_game
    from kothkit.procs.cores import play_core
    from tests.core.test_hostile_folders import PLAYER

    if CAPS.cpuset_version is None or not Path("/sys/fs/cgroup/cpu/cpu.cfs_quota_us").exists():
        pytest.skip("no cpuset, or no cgroup v1 cpu hierarchy, here")
    bots = tmp_path / "bots"
    for name, code in (("spinners", SPINNERS), ("plain", PLAYER)):
        (bots / name).mkdir(parents=True)
        (bots / name / "bot.py").write_text(code)
        (bots / name / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "-S", "bot.py"]\n')
    info = get_game("gomoku_swap2")
    sched = Schedule(game=info.name, bots=(load_folder(bots / "spinners"), load_folder(bots / "plain")), seed=5,
                     rounds=1, limits=info.limits.replace(move_time=5.0), rules=dict(info.rules))
    with play_core() as (core, group):
        assert group is not None
        rec = play_game(next(iter(sched)), info=info, cpu=core)
        stat = dict(line.split() for line in (group / "cpu.stat").read_text().splitlines())
        quota = int((group / "cpu.cfs_quota_us").read_text()) / int((group / "cpu.cfs_period_us").read_text())
    assert rec.offender is None, rec.reason
    assert f"cpus: {core}\n" in rec.logs["spinners"] + "\n"
    # The bots' processes ran in the group (periods counted against its quota); on a quiet machine
    # the spinners are throttled too (on a busy one they get less than the quota anyway).
    assert quota == 0.5 and int(stat["nr_periods"]) > 0, stat
    assert not group.exists()
    assert processes_touching(bots) == []


def test_every_command_gives_a_game_that_allows_pondering_a_core_per_seat_by_default(tmp_path):
    """kothkit run, match and gauntlet resolve their jobs here; verify and serve use the same rule
    (kothkit.procs.cores.default_jobs): one game per two cores for a game that allows pondering,
    unless --jobs (or the challenge's jobs) says otherwise."""
    import os

    import attrs

    from kothkit.limits import Limits
    from kothkit.playing.settings import Options, game_of, resolve
    from kothkit.plugins import get_game
    from kothkit.procs.contain import fair_cpu
    from kothkit.procs.cores import default_jobs

    def game(name: str, **limits):
        info = get_game(name)
        return game_of(attrs.evolve(info, limits=info.limits.replace(**limits)) if limits else info)

    n = len(os.sched_getaffinity(0))
    db = tmp_path / "j.sqlite"
    ponders = resolve(game("gomoku_classic12"), Options(db=db))
    assert ponders.jobs == default_jobs(True) == max(1, n // 2 if n >= 2 else 1)
    if n >= 2:
        assert fair_cpu(True, ponders.jobs)[0] == 2  # each seat its own core
    assert resolve(game("gomoku_swap2"), Options(db=db)).jobs == n
    chosen = resolve(game("gomoku_classic12"), Options(db=db, jobs=n))
    assert chosen.jobs == n  # the person's choice, said on the cpu: line
    unpinned = resolve(game("gomoku_classic12", pin_cpu=False), Options(db=db))
    assert unpinned.jobs == n
    assert Limits().pin_cpu  # (the default the first ones have)
