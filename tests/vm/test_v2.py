"""The jail on cgroup v2, as tests/vm/run.sh runs it in a VM (KOTHKIT_VM_WAY: root, delegated or
service): the judge sets its tree up itself, the containment line is as full as on v1, its tree is
undone when it leaves, and a host that lacks a part of the jail refuses submissions.

Skipped elsewhere (they say what a v2 host must show, and this machine may not be one)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from kothkit.procs import cgroups, probe
from kothkit.procs.contain import capabilities, fair_cpu, jail_gaps

WAY = os.environ.get("KOTHKIT_VM_WAY", "")
pytestmark = pytest.mark.skipif(WAY not in ("root", "delegated", "service"),
                                reason="run by tests/vm/run.sh in a VM with cgroup v2 (KOTHKIT_VM_WAY)")
ROOT = Path(__file__).resolve().parents[2]


def own_group() -> Path:
    line = next(l for l in Path("/proc/self/cgroup").read_text().splitlines() if l.startswith("0::"))
    return Path("/sys/fs/cgroup") / line[3:].strip().lstrip("/")


def test_the_containment_line_is_full():
    caps = capabilities()
    line = caps.summary()
    who = "bots run as root in a user namespace" if WAY == "service" else f"bots run as uid {probe.BOT_UID}"
    for part in ("PID namespace per bot (C init)", "minimal filesystem", who, "no capabilities", "seccomp filter",
                 "memory cgroup v2", "pids cgroup v2", "no network", "cores held by cpuset v2"):
        assert part in line, (part, line)
    assert fair_cpu(False, 1)[1].startswith("a waiting bot is frozen (freezer cgroup v2)")
    assert caps.cpu_version == "v2"  # cpu.max for CPU quotas
    assert jail_gaps() == []


def test_the_judge_made_its_own_tree():
    """Root in the root group: controllers enabled there, no leaf needed; in a group of its own
    (delegated): its processes moved into kothkit-leaf, the controllers enabled for the bots."""
    caps = capabilities()
    here = own_group()
    base = caps.cgroup_dir
    assert base is not None and caps.pids_dir == caps.freezer_dir == caps.cpuset_dir == caps.cpu_dir == base
    if WAY == "root":
        assert here == base == Path("/sys/fs/cgroup")
    else:
        assert here == base / cgroups.V2_LEAF
        assert (base / "cgroup.procs").read_text() == ""  # no process left beside the bots' groups
    assert {"memory", "pids", "cpuset", "cpu"} <= set((base / "cgroup.subtree_control").read_text().split())


#: A judge on its own: sets the tree up, runs a bot under a memory cap, leaves.
JUDGE = textwrap.dedent("""
    import sys
    from pathlib import Path
    from kothkit.limits import Limits
    from kothkit.procs.contain import Jail, capabilities
    caps = capabilities()
    print("base", caps.cgroup_dir, caps.cgroup_version, caps.pids_version, caps.cpuset_version)
    print("own", open("/proc/self/cgroup").read().strip())
    print("why", caps.cgroup_why)
    jail = Jail(Limits(memory_mb=64, processes=8), cpu=0, freezable=True)
    jail.setup()
    print("memory.max", (jail.group / "memory.max").read_text().strip(), "pids.max",
          (jail.pids_group / "pids.max").read_text().strip(), "cpus",
          (jail.cpuset_group / "cpuset.cpus").read_text().strip())
    import subprocess
    folder = Path(sys.argv[1])
    p = subprocess.run(jail.wrap(["/bin/sh", "-c", "id -u; cat /proc/self/cgroup"], folder), cwd=folder,
                       capture_output=True, text=True, pass_fds=jail.pass_fds, timeout=60)
    print("bot", p.returncode, p.stdout.split(), p.stderr.strip())
    jail.teardown()
""")


def test_a_group_delegated_to_the_judge_is_left_as_it_found_it(tmp_path):
    """A judge alone in a group of its own (a unit with Delegate=yes; here a group made under the
    test's own tree) sets it up, plays, and at its exit undoes it: controllers off, back in its
    group, its leaf and its bots' groups gone."""
    base = capabilities().cgroup_dir
    assert base is not None
    unit = base / f"kk-unit-{uuid.uuid4().hex[:8]}"
    unit.mkdir()
    try:
        folder = tmp_path / "bot"
        folder.mkdir()
        folder.chmod(0o755)
        start = f"echo $$ > {unit}/cgroup.procs && exec {sys.executable} -c '{JUDGE}' {folder}"
        p = subprocess.run(["/bin/sh", "-c", start], capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert p.returncode == 0, p.stdout + p.stderr
        out = p.stdout
        assert f"base {unit} v2 v2 v2" in out, out
        assert f"own 0::/{(unit / cgroups.V2_LEAF).relative_to('/sys/fs/cgroup')}" in out, out
        assert "memory.max 67108864 pids.max 8 cpus 0" in out, out
        bot = next(l for l in out.splitlines() if l.startswith("bot "))
        assert bot.startswith("bot 0 ['" + ("0" if WAY == "service" else str(probe.BOT_UID)) + "', '0::/']"), bot
        assert [d.name for d in unit.iterdir() if d.is_dir()] == []
        assert (unit / "cgroup.subtree_control").read_text().split() == []
        assert (unit / "cgroup.procs").read_text() == ""
    finally:
        unit.rmdir()


def test_a_killed_judges_groups_are_swept(tmp_path):
    """A judge killed with its bot's group full: the next judge kills what is left and removes the group."""
    start = textwrap.dedent("""
        import os, subprocess, sys, time
        from kothkit.limits import Limits
        from kothkit.procs.contain import Jail
        jail = Jail(Limits(memory_mb=64))
        jail.setup()
        def join():
            open(f"{jail.group}/cgroup.procs", "w").write(str(os.getpid()))
        p = subprocess.Popen(["sleep", "600"], preexec_fn=join, start_new_session=True)
        print(jail.group, p.pid, flush=True)
        time.sleep(600)
    """)
    judge = subprocess.Popen([sys.executable, "-c", start], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        group, pid = judge.stdout.readline().split()
    finally:
        judge.kill()
        judge.wait(30)
    assert Path(group).is_dir() and Path(f"/proc/{pid}").exists()
    p = subprocess.run([sys.executable, "-c", "from kothkit.procs.contain import sweep_cgroups; sweep_cgroups()"],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert not Path(group).exists()
    for _ in range(100):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            break
        if state == "Z":  # (killed; its parent, the killed judge, reaped by init later)
            break
        import time

        time.sleep(0.1)
    else:
        pytest.fail(f"the dead judge's bot {pid} is alive")


def kothkit(*args, env=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "kothkit", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, cwd=ROOT,
                          env={**os.environ, "COLUMNS": "200", **(env or {})})


def test_serve_without_a_cgroup_refuses_the_course(tmp_path):
    r = kothkit("serve", ROOT / "challenges" / "course12", "--state", tmp_path / "state", "--port", "0",
                env={"KOTHKIT_NO_CGROUP": "1"})
    assert r.returncode == 1, r.stdout + r.stderr
    assert "a memory cap by cgroup (disabled by KOTHKIT_NO_CGROUP=1)" in r.stderr, r.stderr


@pytest.mark.skipif(WAY == "service", reason="bots of a service user run as root of a user namespace: no id-mapping")
def test_a_bot_folder_on_tmpfs_runs_as_the_bots_uid_over_a_copy(tmp_path):
    """Linux 6.1's tmpfs takes no idmapped mount: a root judge's bot there runs as the bots' uid all
    the same, over a copy of its folder owned by that uid (kothkit.procs.copies), and a host whose
    state folder is there lacks nothing."""
    if probe._kernel() >= probe.TMPFS_IDMAP:
        pytest.skip("tmpfs takes idmapped mounts on this kernel")
    state = Path("/dev/shm") / f"kk-state-{uuid.uuid4().hex[:8]}"
    folder = state / "bots" / "keeper"
    folder.mkdir(parents=True)
    try:
        assert probe.folder_copied(folder)
        assert jail_gaps(folders=(state,)) == []
        assert "over a copy of their folder (it cannot be id-mapped here)" in probe.summary((state,))  # serve's line
        from kothkit.limits import Limits
        from kothkit.procs.contain import Jail

        jail = Jail(Limits(memory_mb=64), writable=True, reuse_root=True)
        jail.setup()
        try:
            argv = jail.wrap(["/bin/sh", "-c", "id -u; echo kept > kept.txt"], folder)
            assert jail.copied is not None
            p = subprocess.run(argv, cwd=folder, capture_output=True, text=True, timeout=120, pass_fds=jail.pass_fds)
        finally:
            jail.teardown()
        assert (p.returncode, p.stdout.split()) == (0, [str(probe.BOT_UID)]), p.stderr
        assert (folder / "kept.txt").read_text() == "kept\n"
    finally:
        subprocess.run(["rm", "-rf", str(state)], timeout=60)


def test_run_from_tmpfs_says_the_bots_run_over_copies(tmp_path):
    if WAY == "service" or probe._kernel() >= probe.TMPFS_IDMAP:
        pytest.skip("no id-mapping needed, or tmpfs takes it here")
    code = "from kothkit.procs.contain import capabilities, jail_gaps; print(capabilities().summary()); print(jail_gaps())"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                       env={**os.environ, "TMPDIR": "/dev/shm"})
    assert f"bots run as uid {probe.BOT_UID} over a copy of their folder (it cannot be id-mapped here)" in r.stdout, (
        r.stdout + r.stderr)
    assert r.stdout.splitlines()[-1] == "[]", r.stdout


#: Spins two seconds in three processes, two of them setsid'd away from the bot.
SPINNERS = """
import os, time
for _ in range(2):
    if os.fork() == 0:
        os.setsid()
        break
t = time.time()
while time.time() - t < 2:
    pass
"""


def test_the_play_pages_quota_caps_the_bots_own_group(tmp_path):
    """cgroup v2 gives a thread no group of its own: the jails a Play game's thread sets up cap
    their bot's own group at PLAY_SHARE of a core (cpu.max), whatever it starts; then no more."""
    from kothkit.limits import Limits
    from kothkit.procs.cgroups import leave_cpu_quota, thread_cpu_quota
    from kothkit.procs.contain import Jail
    from kothkit.procs.cores import PLAY_SHARE

    folder = tmp_path / "bot"
    folder.mkdir()
    folder.chmod(0o755)
    base = thread_cpu_quota(PLAY_SHARE)
    assert base is not None and base == capabilities().cpu_dir
    try:
        jail = Jail(Limits(memory_mb=64), cpu=0)
        jail.setup()
        try:
            g = jail.quota_group
            assert g is not None and g in (jail.group, jail.pids_group)
            assert (g / "cpu.max").read_text().split() == [str(int(100_000 * PLAY_SHARE)), "100000"]
            p = subprocess.run(jail.wrap([sys.executable, "-S", "-c", SPINNERS], folder), cwd=folder,
                               capture_output=True, text=True, timeout=120, pass_fds=jail.pass_fds)
            stat = dict(line.split() for line in (g / "cpu.stat").read_text().splitlines())
        finally:
            jail.teardown()
    finally:
        leave_cpu_quota(base)
    assert p.returncode == 0, p.stderr
    assert int(stat["nr_throttled"]) > 0, stat
    jail = Jail(Limits(memory_mb=64))
    jail.setup()
    try:
        assert jail.quota_group is None and (jail.group / "cpu.max").read_text().split()[0] == "max"
    finally:
        jail.teardown()
