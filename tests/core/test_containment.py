"""Containment of program bots: processes die with their game and with the judge; files; process cap.

Bots here are small gomoku_swap2 programs written into the test's folder;
games are played by the real referee (``play_game``) or the real CLI.  What a
machine cannot provide is skipped with the reason kothkit gives for it.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import struct
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from kothkit.bots.folders import load_folder
from kothkit.procs import cgroups, contain, jailinit, probe
from kothkit.procs.contain import capabilities
from kothkit.plugins import get_game
from kothkit.playing.referee import play_game
from kothkit.playing.schedule import Schedule
from kothkit.testing.procs import TIME_SCALE, processes_touching

CAPS = capabilities()
needs_namespaces = pytest.mark.skipif(not CAPS.namespaces, reason=f"no PID namespace here: {CAPS.why}")
needs_files = pytest.mark.skipif(not CAPS.files, reason=f"files are not confined here: {CAPS.why}")

#: A legal Swap2 player (fixed opening, "B" to the choices, first empty cell) that runs ``SETUP`` first.
PLAYER = '''
import os, re, subprocess, sys, time
SETUP
def legal(line):
    tag, _, rest = line.partition(" ")
    if tag == "A":
        return "(0,0) (2,0) (1,0)"
    if tag in ("B", "C"):
        return "B"
    taken = {(int(x), int(y)) for x, y in re.findall(r"\\(\\((\\d+),(\\d+)\\)", rest)}
    return "(%d,%d)" % next((x, y) for y in range(15) for x in range(15) if (x, y) not in taken)
for raw in iter(sys.stdin.readline, ""):
    if raw.startswith("EXIT"):
        break
    sys.stdout.write(legal(raw.strip()) + "\\n")
    sys.stdout.flush()
AFTER
'''


def make_bot(folder: Path, name: str, setup: str = "", after: str = "", stateful: bool = False) -> Path:
    d = folder / name
    d.mkdir(parents=True)
    code = PLAYER.replace("SETUP", textwrap.dedent(setup).strip()).replace("AFTER", textwrap.dedent(after).strip())
    (d / "bot.py").write_text(code)
    (d / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "-S", "bot.py"]\n'
                                + ("stateful = true\n" if stateful else ""))
    return d


SPAWNER = """
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(3600)
    os._exit(0)
os.wait()
subprocess.Popen([sys.executable, "-S", "-c", "import time; time.sleep(3600)"])
"""


def zombie_children(pid: int) -> list[int]:
    """Children of ``pid`` that exited and were never reaped."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] == "Z" and int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def wait_gone(*folders: Path, deadline: float = 15.0) -> list[str]:
    """Processes still touching ``folders`` once they had ``deadline`` seconds to die."""
    end = time.monotonic() + deadline * TIME_SCALE
    while True:
        left = processes_touching(*folders)
        if not left or time.monotonic() > end:
            return left
        time.sleep(0.05)


def first_game(folders: list[Path], **limits):
    info = get_game("gomoku_swap2")
    bots = tuple(load_folder(f) for f in folders)
    # (on a slow machine, KOTHKIT_TEST_SCALE: the times given, or the game's, times the scale)
    times = {k: limits.get(k, getattr(info.limits, k)) for k in ("move_time", "first_reply_time", "game_time")}
    limits.update({k: v * TIME_SCALE for k, v in times.items() if v is not None})
    sched = Schedule(game=info.name, bots=bots, seed=5, rounds=1, limits=info.limits.replace(**limits),
                     rules=dict(info.rules))
    return info, next(iter(sched))


def play_spawner_game(tmp_path: Path) -> None:
    """A game of a bot that leaves a child and a setsid grandchild running against a plain bot."""
    a = make_bot(tmp_path / "bots", "spawner", setup=SPAWNER)
    b = make_bot(tmp_path / "bots", "plain")
    info, task = first_game([a, b], move_time=5.0)
    rec = play_game(task, info=info)
    assert rec.offender is None and rec.reason == "five in a row"


def test_nothing_a_bot_started_outlives_its_game(tmp_path):
    if not CAPS.namespaces and CAPS.pids_dir is None:
        pytest.skip("neither PID namespaces nor a pids cgroup here: children that leave the group survive")
    play_spawner_game(tmp_path)
    # play_game returns only once the setsid grandchild and the child are dead: no waiting here.
    assert processes_touching(tmp_path / "bots") == []
    assert zombie_children(os.getpid()) == []  # the judge (this process) reaped what it started


def test_groups_kept_after_a_bot_exits_with_children_running_are_empty(tmp_path):
    """Under the C init the judge keeps the groups of a bot that exited by itself without reading
    them (its PID namespace died with its init): with a child and a setsid grandchild still running
    as the bot exits, they must be empty all the same."""
    if not (CAPS.namespaces and CAPS.pids_dir is not None and probe.compiled_helper() is not None):
        pytest.skip("needs the C init and a pids cgroup")
    play_spawner_game(tmp_path)
    kept = [g for groups in cgroups.POOL.values() for g in groups]
    assert kept
    for g in kept:
        assert (g / "cgroup.procs").read_text() == ""


def test_bot_ignoring_the_end_is_killed_after_the_grace(tmp_path):
    a = make_bot(tmp_path / "bots", "stubborn", setup="import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN)",
                 after="time.sleep(3600)")
    b = make_bot(tmp_path / "bots", "plain")
    info, task = first_game([a, b], move_time=5.0, grace=0.2)
    rec = play_game(task, info=info)
    assert rec.offender is None
    assert processes_touching(tmp_path / "bots") == []


JUDGE = """
import sys
from pathlib import Path
from kothkit.bots.folders import load_folder
from kothkit.plugins import get_game
from kothkit.playing.referee import play_game
from kothkit.playing.schedule import Schedule
info = get_game("gomoku_swap2")
bots = tuple(load_folder(Path(p)) for p in sys.argv[1:3])
task = next(iter(Schedule(game=info.name, bots=bots, seed=5, rounds=1, limits=info.limits.replace(move_time=600.0),
                          rules=dict(info.rules))))
print("playing", flush=True)
play_game(task, info=info)
"""


@needs_namespaces
def test_bots_die_with_a_killed_judge(tmp_path):
    """SIGKILL of the judge (playing in its own process, as with --jobs 1) kills every bot process."""
    a = make_bot(tmp_path / "bots", "spawner", setup=SPAWNER + "\ntime.sleep(3600)")  # starts, then hangs
    b = make_bot(tmp_path / "bots", "plain", setup=SPAWNER)
    judge = subprocess.Popen([sys.executable, "-c", JUDGE, str(a), str(b)], stdout=subprocess.PIPE, text=True,
                             stdin=subprocess.DEVNULL)
    try:
        assert judge.stdout.readline() == "playing\n"
        end = time.monotonic() + 30 * TIME_SCALE

        def settled() -> bool:
            # Both bots up, each with its child and its setsid grandchild.  The child each starts
            # last sleeps in a command line of its own: until both do, a forked child about to
            # exit may be counted in place of one still to come.
            found = processes_touching(tmp_path / "bots")
            return len(found) >= 6 and sum("time.sleep(3600)" in p for p in found) >= 2

        while not settled() and time.monotonic() < end:
            time.sleep(0.05)
        assert settled(), processes_touching(tmp_path / "bots")
    finally:
        judge.send_signal(signal.SIGKILL)
        judge.wait(timeout=30)
        judge.stdout.close()
    assert wait_gone(tmp_path / "bots") == []


@needs_namespaces
@pytest.mark.parametrize("helper", ["C", "Python"])
def test_a_frozen_bot_dies_with_a_killed_judge(tmp_path, helper):
    """One bot replies (and is frozen: Swap2 allows no pondering) while the other hangs at its
    second prompt; SIGKILL of the judge: the frozen bot and the children it left die too (a
    process frozen by a v1 freezer does not die of SIGKILL: the init thaws it as it goes)."""
    if CAPS.freezer_version is None:
        pytest.skip("no writable freezer cgroup here: bots are not frozen")
    if helper == "C" and CAPS.helper != "C":
        pytest.skip("no C compiler here")
    a = make_bot(tmp_path / "bots", "spawner", setup=SPAWNER)
    b = make_bot(tmp_path / "bots", "hanger", setup="""
    class Second:
        prompts = 0
        def readline(self):
            line = sys.__stdin__.readline()
            Second.prompts += 1
            if Second.prompts == 2:
                time.sleep(3600)
            return line
    sys.stdin = Second()
    """)
    env = {**os.environ, **({"KOTHKIT_JAIL_HELPER": "python"} if helper == "Python" else {})}
    judge = subprocess.Popen([sys.executable, "-c", JUDGE, str(a), str(b)], stdout=subprocess.PIPE, text=True,
                             stdin=subprocess.DEVNULL, env=env)
    try:
        assert judge.stdout.readline() == "playing\n"
        end = time.monotonic() + 30 * TIME_SCALE
        while not _frozen_groups(judge.pid) and time.monotonic() < end:
            time.sleep(0.05)
        assert _frozen_groups(judge.pid), "the spawner was never frozen"
    finally:
        judge.send_signal(signal.SIGKILL)
        judge.wait(timeout=30)
        judge.stdout.close()
    assert wait_gone(tmp_path / "bots") == []


def _frozen_groups(judge: int) -> list[Path]:
    """The judge's freezer cgroups that are frozen."""
    found = []
    for g in CAPS.freezer_dir.glob(f"kothkit-ns*-{judge}-*"):  # named after their maker (kothkit.procs.contain)
        try:
            state = (g / "freezer.state").read_text() if CAPS.freezer_version == "v1" else (g / "cgroup.events").read_text()
        except OSError:
            continue
        if "FROZEN" in state or "frozen 1" in state:
            found.append(g)
    return found


@needs_files
def test_a_root_prepared_once_gives_every_game_its_own_tmp(tmp_path):
    """A root judge builds a bot's root once (kothkit.procs.contain.prepared_root) and each game starts in
    a copy of it: what a game left in /tmp and /dev/shm is gone in the next, the shared part is read-only."""
    probe = """
    def attempt(path):
        try:
            with open(path, "w") as f:
                f.write("x")
            return "written"
        except OSError:
            return "denied"
    found = [str(os.path.exists(p)) for p in ("/tmp/left", "/dev/shm/left")]
    report = found + [attempt("/tmp/left"), attempt("/dev/shm/left"), attempt("/left"), attempt("/etc/left")]
    sys.stderr.write("report: " + " ".join(report) + "\\n")
    """
    a = make_bot(tmp_path / "bots", "leaver", setup=probe)
    b = make_bot(tmp_path / "bots", "plain")
    info, task = first_game([a, b], move_time=5.0)
    for _ in range(2):
        rec = play_game(task, info=info)
        assert rec.offender is None
        assert "report: False False written written denied denied" in rec.logs["leaver"]
        assert processes_touching(tmp_path / "bots") == []
    if CAPS.minimal and not CAPS.userns:
        # the games above started in a root prepared for this bot, not one built for each game
        assert any(v is not None and f"folder={a.resolve()}" in k for k, v in contain._PREPARED.items())


@needs_files
def test_bot_sees_a_read_only_machine_but_its_folder(tmp_path):
    marker = f"kothkit-test-{uuid.uuid4().hex}"
    probe = f"""
    def attempt(path):
        try:
            with open(path, "w") as f:
                f.write("x")
            return "written"
        except OSError as e:
            return "denied"
    report = [attempt("mine.txt"), attempt("../theirs.txt"), attempt("/tmp/{marker}"),
              attempt("/var/tmp/{marker}"), str(os.path.exists("../plain")), str(len(os.listdir("/proc")) < 60)]
    sys.stderr.write("report: " + " ".join(report) + "\\n")
    """
    a = make_bot(tmp_path / "bots", "prober", setup=probe, stateful=True)
    b = make_bot(tmp_path / "bots", "plain")
    info, task = first_game([a, b], move_time=5.0)
    try:
        rec = play_game(task, info=info)
    finally:
        escaped = Path("/var/tmp", marker)
        if escaped.exists():
            escaped.unlink()
            pytest.fail("the bot wrote to /var/tmp")
    assert rec.offender is None
    # its folder yes; its parent and the machine: no; /tmp: yes, a private one; the opponent: hidden;
    # /proc: only the namespace's processes
    assert "report: written denied written denied False True" in rec.logs["prober"]
    assert (a / "mine.txt").exists()
    assert not (tmp_path / "bots" / "theirs.txt").exists()
    assert not Path("/tmp", marker).exists()


def test_process_cap_holds(tmp_path):
    if CAPS.pids_dir is None and os.geteuid() == 0:
        pytest.skip("no pids cgroup, and RLIMIT_NPROC does not hold for root")
    spawn = """
    started = 0
    try:
        for _ in range(10):
            subprocess.Popen([sys.executable, "-S", "-c", "import time; time.sleep(3600)"])
            started += 1
    except OSError as e:
        sys.stderr.write("refused: %s\\n" % e.strerror)
    sys.stderr.write("started %d\\n" % started)
    """
    a = make_bot(tmp_path / "bots", "forker", setup=spawn)
    b = make_bot(tmp_path / "bots", "plain")
    info, task = first_game([a, b], move_time=5.0, processes=4)
    rec = play_game(task, info=info)
    assert rec.offender is None
    assert "started 3" in rec.logs["forker"]  # the bot itself and three children
    assert processes_touching(tmp_path / "bots") == []


def test_run_says_what_is_not_enforced(cli, tmp_path):
    """Without namespaces (as on machines that refuse them) the run output says files are not confined."""
    bots = tmp_path / "bots"
    make_bot(bots, "one")
    make_bot(bots, "two")
    r = cli("run", "gomoku_swap2", "--bots", bots, "--seed", "1", "--jobs", "1", "--db", tmp_path / "j.sqlite",
            env={"KOTHKIT_NO_NAMESPACE": "1"}, check=True)
    line = next(l for l in r.stdout.splitlines() if l.startswith("containment: "))
    assert "no PID namespace (disabled by KOTHKIT_NO_NAMESPACE=1)" in line
    assert "files NOT confined" in line
    assert "network NOT confined" in line  # (a network namespace comes with the others)
    r = cli("run", "gomoku_swap2", "--bots", bots, "--seed", "1", "--jobs", "1", "--db", tmp_path / "j.sqlite",
            check=True)
    line = next(l for l in r.stdout.splitlines() if l.startswith("containment: "))
    assert line == f"containment: {CAPS.summary()}"
    assert ("no network" if CAPS.network else "network NOT confined") in line
    assert ("cores held by cpuset" if CAPS.cpuset_version else "cores NOT held") in line


@pytest.mark.parametrize("mode", ["default", "python-init", "no-namespace"])
def test_tournament_under_each_containment_mode(cli, tmp_path, mode):
    """The same tournament with kothkit's C init (when a compiler is here), its Python init, and
    without namespaces: children die with their game in all three; files are confined in the first two."""
    env = {"python-init": {"KOTHKIT_JAIL_HELPER": "python"},
           "no-namespace": {"KOTHKIT_NO_NAMESPACE": "1"}}.get(mode, {})
    if mode != "no-namespace" and not CAPS.namespaces:
        pytest.skip(f"no PID namespace here: {CAPS.why}")
    if mode == "no-namespace" and CAPS.pids_dir is None:
        pytest.skip("no pids cgroup here: without namespaces, children that leave the group survive")
    bots = tmp_path / "bots"
    make_bot(bots, "spawner", setup=SPAWNER)
    make_bot(bots, "prober", setup="""
    try:
        open("../theirs.txt", "w").write("x")
    except OSError:
        pass
    """)
    make_bot(bots, "plain")
    out = tmp_path / "out.json"
    r = cli("run", "gomoku_swap2", "--bots", bots, "--seed", "3", "--jobs", "2", "--move-time", str(5 * TIME_SCALE),
            "--db", tmp_path / "j.sqlite", "--json", out, env=env, check=True)
    line = next(l for l in r.stdout.splitlines() if l.startswith("containment: "))
    if mode == "python-init":
        assert line.startswith("containment: PID namespace per bot (Python init), files read-only")
    elif mode == "no-namespace":
        assert "no PID namespace" in line and "files NOT confined" in line
    else:
        assert line == f"containment: {CAPS.summary()}"
    doc = json.loads(out.read_text())
    assert doc["played"] == 6 and all(g["fault"] is None for g in doc["games"])
    assert processes_touching(bots) == []
    assert (bots / "theirs.txt").exists() == (mode == "no-namespace")


LIMITED = {
    # limit: (setup code run at start, expected verdict, text in the reason or the bot's log)
    "cpu_seconds": ("while True: pass", "crash", "killed by SIGXCPU"),
    # Python ignores SIGXFSZ, so the write fails (EFBIG) and the bot dies of the exception
    "file_size_mb": ("open('/tmp/big.bin', 'wb').write(b'x' * (3 << 20))", "crash", "File too large"),
    "open_files": ("""
    held = []
    try:
        while len(held) < 200:
            held.append(open("bot.py"))
    except OSError as e:
        sys.stderr.write("opened %d: %s\\n" % (len(held), e.strerror))
    """, None, "opened 13: Too many open files"),
}


@pytest.mark.parametrize("limit", sorted(LIMITED))
def test_challenge_limits_hold_inside_the_jail(tmp_path, limit):
    setup, verdict, text = LIMITED[limit]
    a = make_bot(tmp_path / "bots", "greedyforit", setup=setup)
    b = make_bot(tmp_path / "bots", "plain")
    info, task = first_game([a, b], move_time=10.0, **{limit: 1 if limit != "open_files" else 16})
    rec = play_game(task, info=info)
    if verdict is None:
        assert rec.offender is None
        assert text in rec.logs["greedyforit"]  # stdin, stdout, stderr and bot.py's reader are open
    else:
        assert (rec.offender, rec.verdict) == ("greedyforit", verdict)
        assert text in rec.reason
    assert processes_touching(tmp_path / "bots") == []


@pytest.mark.parametrize("helper", ["C", "Python"])
def test_escape_by_handle_is_refused_under_each_init(cli, tmp_path, helper):
    """The handle_escape hostile bot under kothkit's C init and its Python init: the calls are
    refused, and the run's containment line says what refuses them."""
    import shutil

    if not CAPS.namespaces:
        pytest.skip(f"no PID namespace here: {CAPS.why}")
    if helper == "C" and CAPS.helper != "C":
        pytest.skip("no C compiler here: the Python init runs the bots")
    bots = tmp_path / "bots"
    hostile = Path(__file__).resolve().parents[1] / "bots" / "hostile"
    shutil.copytree(hostile / "handle_escape", bots / "handle_escape")
    make_bot(bots, "plain")
    env = {"KOTHKIT_JAIL_HELPER": "python"} if helper == "Python" else {}
    r = cli("run", "gomoku_swap2", "--bots", bots, "--seed", "3", "--jobs", "1", "--move-time", "5",
            "--db", tmp_path / "j.sqlite", env=env, check=True)
    line = next(l for l in r.stdout.splitlines() if l.startswith("containment: "))
    assert f"({helper} init)" in line
    from kothkit.store.journal import Journal

    with Journal(tmp_path / "j.sqlite") as j:
        logs = [g.logs["handle_escape"] for g in j.all()]
    assert len(logs) == 2
    for log in logs:
        assert "ESCAPED" not in log and "open_by_handle_at: EPERM" in log
        if "seccomp filter" in line and "no seccomp filter" not in line:
            assert "name_to_handle_at: EPERM" in log and "unshare: EPERM" in log and "mount: EPERM" in log


def _run_bpf(prog: list[tuple[int, int, int, int]], data: dict[int, int]) -> tuple[int, int]:
    """A seccomp filter's answer to ``data`` (offset -> 32-bit word), and the instructions it ran."""
    a = pc = steps = 0
    while True:
        code, jt, jf, k = prog[pc]
        steps += 1
        if code == 0x20:  # ld [k]
            a = data[k]
        elif code == 0x06:  # ret k
            return k, steps
        elif code == 0x05:  # ja k
            pc += k
        elif code in (0x15, 0x35, 0x45):  # jeq, jge, jset k
            pc += jt if (a == k if code == 0x15 else a >= k if code == 0x35 else a & k) else jf
        else:
            raise AssertionError(f"unexpected instruction {code:#x}")
        pc += 1


@pytest.mark.skipif(platform.machine() not in jailinit.SYSCALLS, reason="no syscall table for this machine")
def test_the_c_inits_seccomp_filter_answers_as_the_python_inits(tmp_path):
    """The C init looks a call up in a tree (cheap to install: the kernel runs the filter once per
    call number as it installs it); the Python init down a chain.  Both answer the same for every
    call number, on the native ABI, x32 and another ABI, and for clone with and without new namespaces."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler here")
    exe = tmp_path / "jailinit"
    subprocess.run([cc, "-O2", "-DKOTHKIT_DUMP_SECCOMP", "-o", str(exe), str(probe.HELPER_C)], check=True,
                   capture_output=True)
    arch, clone, refused = jailinit.SYSCALLS[platform.machine()]
    allow, eperm = 0x7FFF0000, 0x00050000 | 1
    numbers = [*range(1100), *range(0x40000000, 0x40000000 + 1100, 7), 0x7FFFFFFF, 0xFFFFFFFF]
    longest = 0
    affinity = jailinit.SCHED_SETAFFINITY[platform.machine()]
    for pinned in (False, True):  # pinned=1: sched_setaffinity refused too (no cpuset holds the core)
        raw = subprocess.run([str(exe), "dump-seccomp", f"pinned={int(pinned)}"], check=True,
                             capture_output=True).stdout
        tree = [struct.unpack("HBBI", raw[i:i + 8]) for i in range(0, len(raw), 8)]
        chain = jailinit.seccomp_program(platform.machine(), pinned)
        assert tree and chain
        checked = {nr for nr, _ in jailinit.CHECKED[platform.machine()]}
        # the arguments' low words (args[0..3]): namespaces for clone; a family, open's flags, a mode
        variants = [(0, 0, 0, 0), (0x11, 0, 0, 0), (0x10000000, 0, 0, 0), (0x20000000, 0, 0, 0), (0x00020000, 0, 0, 0),
                    (40, 1, 0, 0), (2, 1, 0, 0), (0, 0o4755, 0, 0), (0, 0o755, 0, 0), (0, 0o101, 0o4755, 0),
                    (0, 0o1, 0o4755, 0), (0, 0, 0o100, 0o2755), (0, 0, 0o20000000, 0o4000), (0, 0, 0o2755, 0o644),
                    (0, 0, 0, 0o6000)]
        for abi in (arch, 0x40000003):  # the machine's, i386's
            for nr in numbers:
                for args in variants if nr in (clone, jailinit.CLONE3) or nr in checked else variants[:1]:
                    data = {4: abi, 0: nr, **{16 + 8 * i: a for i, a in enumerate(args)}}
                    answer, steps = _run_bpf(tree, data)
                    assert answer == _run_bpf(chain, data)[0], (pinned, hex(abi), nr, args)
                    longest = max(longest, steps)
        assert _run_bpf(tree, {0: affinity, 4: arch, 16: 0})[0] == (eperm if pinned else allow)
    native = {0: 0, 4: arch, 16: 0, 24: 0, 32: 0, 40: 0}
    assert _run_bpf(tree, {**native, 0: refused[0]})[0] == eperm
    assert _run_bpf(tree, {**native, 0: clone, 16: 0x10000000})[0] == eperm  # clone(CLONE_NEWUSER)
    assert _run_bpf(tree, {**native, 0: clone, 16: 0x11})[0] == allow  # fork
    # issue 42: io_uring and AF_VSOCK refused, and a set-id bit on what the jail makes
    for nr in jailinit.IO_URING:
        assert _run_bpf(tree, {**native, 0: nr})[0] == eperm
    socket_nr = next(nr for nr, check in jailinit.CHECKED[platform.machine()] if check == "socket")
    assert _run_bpf(tree, {**native, 0: socket_nr, 16: 40})[0] == eperm  # AF_VSOCK
    assert _run_bpf(tree, {**native, 0: socket_nr, 16: 1})[0] == allow  # AF_UNIX
    fchmod = next(nr for nr, check in jailinit.CHECKED[platform.machine()] if check == "mode1")
    openat = next(nr for nr, check in jailinit.CHECKED[platform.machine()] if check == "open2")
    assert _run_bpf(tree, {**native, 0: fchmod, 24: 0o4755})[0] == eperm
    assert _run_bpf(tree, {**native, 0: fchmod, 24: 0o755})[0] == allow
    assert _run_bpf(tree, {**native, 0: openat, 32: 0o101, 40: 0o2755})[0] == eperm  # O_CREAT, setgid
    assert _run_bpf(tree, {**native, 0: openat, 32: 0o1, 40: 0o2755})[0] == allow  # no O_CREAT: no mode
    assert longest < 20  # a chain runs one comparison per refused call (about 40)
