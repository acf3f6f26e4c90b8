"""The jail on a shared host: what a bot sees of the judge's environment, the network, its core,
the host's users and its init, and what a fork bomb costs.

Each hostile bot of tests/bots/hostile_host/ plays one real game (the real referee,
``play_game``) against a plain bot; most write what they saw to their stderr, which the game's
log keeps.  What the machine cannot provide is skipped with the reason kothkit gives.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import attrs
import pytest

from kothkit.bots.folders import load_folder, load_function_ref
from kothkit.limits import DEFAULT_PROCESSES, Limits
from kothkit.playing.challenge import ChallengeError
from kothkit.playing.challenge import load as load_challenge
from kothkit.playing.referee import play_game
from kothkit.playing.schedule import Schedule, settings_of
from kothkit.playing.seats import HostPool
from kothkit.plugins import get_game
from kothkit.procs.contain import Jail, capabilities
from kothkit.testing.procs import TIME_SCALE, processes_touching
from tests.core.test_hostile_folders import PLAYER

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "bots" / "hostile_host"
CAPS = capabilities()
needs_namespaces = pytest.mark.skipif(not CAPS.namespaces, reason=f"no PID namespace here: {CAPS.why}")
#: The names every bot's environment holds (docs/tournaments.md), and nothing else but what its
#: bot.toml's and its challenge's ``env`` tables give.
DOCUMENTED = {"PATH", "LANG", "LC_ALL", "HOME", "TMPDIR"}

#: A plain Swap2 player: the first free cell (the hostile folders' tests' own).
PLAIN = PLAYER


def play(tmp_path: Path, hostile: str, cpu: int | None = None, where: Path = HOSTILE, **limits):
    """One game of the hostile bot ``hostile`` (copied from ``where`` into the test's folder)
    against a plain bot (its times scaled by KOTHKIT_TEST_SCALE: the VM of tests/vm/ is slow)."""
    bots = tmp_path / "bots"
    shutil.copytree(where / hostile, bots / hostile)
    plain = bots / "plain"
    plain.mkdir()
    (plain / "bot.py").write_text(PLAIN)
    (plain / "bot.toml").write_text('name = "plain"\ncommand = ["python3", "-S", "bot.py"]\n')
    info = get_game("gomoku_swap2")
    times = {k: getattr(info.limits, k) for k in ("first_reply_time", "game_time")} | {"move_time": 5.0}
    limits = {k: v * TIME_SCALE for k, v in times.items() if v is not None} | limits
    sched = Schedule(game=info.name, bots=(load_folder(bots / hostile), load_folder(plain)), seed=5, rounds=1,
                     limits=info.limits.replace(**limits), rules=dict(info.rules))
    rec = play_game(next(iter(sched)), info=info, cpu=cpu)
    assert processes_touching(bots) == []  # whatever the bot started is gone
    return rec


def test_a_bot_sees_only_the_documented_environment(tmp_path, monkeypatch):
    secret = "judge-secret-4f1c"
    monkeypatch.setenv("KOTHKIT_TEST_SECRET", secret)
    rec = play(tmp_path, "env_printer", env={"GAME_DATA": "from the challenge"})
    assert rec.offender is None
    log = rec.logs["env_printer"]
    env = dict(line[4:].split("=", 1) for line in log.splitlines() if line.startswith("env "))
    assert set(env) == DOCUMENTED | {"GAME_DATA", "BOT_OWN"}
    assert (env["GAME_DATA"], env["BOT_OWN"]) == ("from the challenge", "from bot.toml")
    assert env["LANG"] == env["LC_ALL"] and "UTF-8" in env["LANG"]
    if CAPS.files:
        assert env["HOME"] == env["TMPDIR"] == "/tmp"  # its private /tmp
    assert secret not in log  # nor in /proc/self/environ, which the bot printed too
    assert "environ b'" in log


def _host_environment(spec) -> str:
    """What ``spec``'s isolated host wrote of its environment as it loaded the bot."""
    pool = HostPool()
    try:
        proc = pool.get(spec, Limits())
        end = time.monotonic() + 30
        while "env TMPDIR=" not in proc.stderr_text():  # written as the host loads the bot
            assert time.monotonic() < end and proc.poll() is None, proc.stderr_text()
            proc.drain_stderr()
            time.sleep(0.01)
    finally:
        pool.close()
    return proc.stderr_text()


@needs_namespaces
def test_an_isolated_function_bot_folder_gets_its_own_env_table(tmp_path, monkeypatch):
    monkeypatch.setenv("KOTHKIT_TEST_SECRET", "judge-secret-9d0e")
    folder = tmp_path / "envbot"
    folder.mkdir()
    shutil.copy(HOSTILE / "env_function.py", folder / "env_function.py")
    (folder / "bot.toml").write_text('name = "envbot"\nentry = "env_function.py:env_function"\n'
                                     'env = { BOT_MODE = "fast" }\n')
    text = _host_environment(load_folder(folder))
    names = {line[4:].split("=", 1)[0] for line in text.splitlines() if line.startswith("env ")}
    assert names == DOCUMENTED | {"BOT_MODE"}
    assert "env BOT_MODE=fast" in text and "judge-secret-9d0e" not in text


@needs_namespaces
def test_an_isolated_function_bots_host_sees_only_the_documented_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("KOTHKIT_TEST_SECRET", "judge-secret-9d0e")
    bot = Path(shutil.copy(HOSTILE / "env_function.py", tmp_path / "env_function.py"))
    spec = load_function_ref(f"{bot}:env_function")
    text = _host_environment(spec)
    names = {line[4:].split("=", 1)[0] for line in text.splitlines() if line.startswith("env ")}
    assert names == DOCUMENTED
    assert "judge-secret-9d0e" not in text


def test_env_tables_are_checked_with_the_file_and_line(tmp_path):
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.py").write_text("")
    (bot / "bot.toml").write_text('name = "x"\ncommand = ["python3", "bot.py"]\nenv = { "1BAD" = "x" }\n')
    with pytest.raises(Exception, match=r"bot.toml:3: .*not a variable name"):
        load_folder(bot)
    (tmp_path / "kothkit.toml").write_text('game = "gomoku_swap2"\n\n[env]\nGOOD = "x"\nBAD = 3\n')
    with pytest.raises(ChallengeError, match=r"kothkit.toml:5: .*BAD must be a string"):
        load_challenge(tmp_path)
    (tmp_path / "kothkit.toml").write_text('game = "gomoku_swap2"\n\n[env]\nGOOD = "x"\n')
    assert load_challenge(tmp_path).limits["env"] == (("GOOD", "x"),)


def _listener():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    srv.settimeout(0)
    return srv


@pytest.mark.skipif(not CAPS.network, reason=f"no network namespace here: {CAPS.why or 'refused'}")
def test_a_bot_cannot_reach_the_hosts_loopback(tmp_path):
    assert "no network" in CAPS.summary()
    with _listener() as srv:
        port = srv.getsockname()[1]
        rec = play(tmp_path / "closed", "net_client", env={"TARGET_PORT": str(port)})
        assert rec.offender is None
        log = rec.logs["net_client"]
        assert "connect: failed" in log and "loopback: works" in log  # its own loopback only
        with pytest.raises(BlockingIOError):
            srv.accept()  # nothing came
        # A challenge that opts in (network = true) gives its bots the host's network.
        rec = play(tmp_path / "open", "net_client", env={"TARGET_PORT": str(port)}, network=True)
        assert "connect: reached the host" in rec.logs["net_client"]


@pytest.mark.skipif(len(CAPS.cores) < 2, reason="one core: there is no other core to widen to")
@pytest.mark.skipif(CAPS.cpuset_version is None, reason=f"no writable cpuset cgroup: {CAPS.cpu_line()}")
def test_a_bot_that_widens_its_affinity_stays_on_its_core(tmp_path):
    core = CAPS.cores[-1]
    rec = play(tmp_path, "affinity_widener", cpu=core)
    assert rec.offender is None
    log = rec.logs["affinity_widener"]
    assert "widen: granted" in log  # the call succeeds: the cpuset narrows it to the bot's core
    assert f"cpus: {core}\n" in log
    assert "by a cpuset cgroup" in CAPS.cpu_line()


@pytest.mark.skipif(len(CAPS.cores) < 2, reason="one core: there is no other core to widen to")
@pytest.mark.skipif(not (CAPS.namespaces and CAPS.seccomp), reason=f"no seccomp filter here: {CAPS.why or 'refused'}")
def test_without_a_cpuset_the_filter_refuses_to_widen_a_pinned_bot(tmp_path):
    """Where no cpuset is writable (here: the jail told so), the seccomp filter refuses the call."""
    caps = attrs.evolve(CAPS, cpuset_dir=None, cpuset_version=None)
    assert "seccomp filter refuses" in caps.cpu_line()
    folder = Path(shutil.copytree(HOSTILE / "affinity_widener", tmp_path / "affinity_widener"))
    core = CAPS.cores[-1]
    jail = Jail(Limits(), cpu=core, caps=caps)
    jail.setup()
    try:
        argv = jail.wrap([sys.executable, "-S", "bot.py"], folder)
        done = subprocess.run(argv, cwd=folder, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=60, pass_fds=jail.pass_fds)
    finally:
        jail.teardown()
    assert done.returncode == 0, done.stderr
    assert "widen: refused (Operation not permitted)" in done.stderr
    assert f"cpus: {core}\n" in done.stderr


@pytest.mark.skipif(CAPS.cgroup_dir is None, reason="no memory cgroup: RLIMIT_DATA makes a hog crash, no verdict")
def test_a_memory_hog_loses_at_its_memory_cap(tmp_path):
    rec = play(tmp_path, "memory_hog", where=HOSTILE.parent / "hostile", memory_mb=64)
    assert (rec.offender, rec.verdict) == ("memory_hog", "memory"), rec.reason
    assert "more than 64 MiB" in rec.reason


@pytest.mark.skipif(CAPS.pids_dir is None, reason="no pids cgroup: the default process cap needs one")
def test_a_fork_bomb_loses_at_the_default_process_cap(tmp_path):
    rec = play(tmp_path, "fork_bomb")  # the challenge sets no processes limit
    assert rec.offender == "fork_bomb", rec.reason
    assert rec.verdict in ("crash", "timeout")
    if rec.verdict == "crash":
        assert f"over its process cap ({DEFAULT_PROCESSES} tasks, processes)" in rec.reason


@needs_namespaces
def test_the_host_shows_no_users_nor_the_inits_paths(tmp_path):
    rec = play(tmp_path, "host_viewer")
    assert rec.offender is None
    log = rec.logs["host_viewer"]
    seen = dict(re.findall(r"== (\S+)\n(.*?)(?=\n== |\Z)", log, re.S))
    if CAPS.files:
        users = [line.split(":")[0] for line in seen["/etc/passwd"].splitlines() if line]
        groups = [line.split(":")[0] for line in seen["/etc/group"].splitlines() if line]
        assert (users, groups) == (["root", "nobody"], ["root", "nobody"])
    assert "/" not in seen["/proc/1/cmdline"] and "kothkit-init" in seen["/proc/1/cmdline"]
    assert str(tmp_path) not in log and "kothkit-ns" not in log
    own = Path("/proc/self/cgroup").read_text()
    for line in own.splitlines():  # the judge's own cgroups are not named to the bot either
        path = line.split(":", 2)[2]
        if path.strip("/"):
            assert path not in log



def test_the_new_limits_leave_game_ids_as_they_were_at_their_defaults():
    """network and env are part of a game's identity only when a challenge sets them: the games of
    journals played before they existed keep their ids (incremental runs, verify)."""
    plain = settings_of(Limits(), {})["limits"]
    assert "network" not in plain and "env" not in plain and "load_time" not in plain
    assert settings_of(Limits(load_time=2), {})["limits"]["load_time"] == 2
    assert settings_of(Limits(network=True), {})["limits"]["network"] is True
    assert [list(p) for p in settings_of(Limits(env={"A": "b"}), {})["limits"]["env"]] == [["A", "b"]]
