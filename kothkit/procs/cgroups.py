"""Cgroups for the jail: the judge's own groups on either hierarchy, its cgroup v2 tree, the bots'
groups' names and the sweep of a dead judge's, groups kept for the next bot, and CPU quotas.

* **Where.**  :func:`usable_cgroup` finds the judge's own group of a controller that it may make
  groups in: on the unified hierarchy (cgroup v2) first, where :func:`v2_setup` makes the judge's
  tree once per process (its processes moved into the leaf :data:`V2_LEAF`, the controllers
  :data:`V2_CONTROLLERS` enabled for its bots' groups, all undone at its exit), else on a v1
  hierarchy of that controller.
* **Names and sweeps.**  A bot's group is named after the process that made it
  (:func:`group_name`); :func:`sweep` removes the groups of processes that are gone, killing what
  is left in them (:func:`kill_groups`, which :class:`kothkit.procs.contain.Jail` uses too).
* **Kept groups.**  Empty pids, freezer and cpuset groups are kept for the process's next bots
  (:func:`pool`), with the limits last written to them (:data:`PIDS_MAX`, :data:`CPUSET`).
* **CPU quotas.**  :func:`write_cpu_quota` on a group (the Play page's bots: v2's cpu.max on the
  bot's own group, :class:`kothkit.procs.contain.Jail`'s ``cpu_share``; v1's per thread,
  :func:`thread_cpu_quota`).

What the machine offers is probed by :mod:`kothkit.procs.probe`, from these.
"""

from __future__ import annotations

import errno
import os
import signal
import threading
import time
import uuid
from pathlib import Path

import attrs


def own_cgroup_v1(controller: str) -> Path | None:
    root = Path("/sys/fs/cgroup") / controller
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, ctrls, path = line.split(":", 2)
            if controller in ctrls.split(","):
                d = root / path.lstrip("/")
                return d if d.is_dir() else (root if root.is_dir() else None)
    except OSError:
        return None
    return None



# -- cgroup v2: the judge's own tree ------------------------------------------------------
#: The unified hierarchy's mount point.
CGROUP2_ROOT = Path("/sys/fs/cgroup")
#: The controllers a judge enables for its bots' groups on the unified hierarchy (cpu: cpu.max, CPU quotas).
V2_CONTROLLERS = ("memory", "pids", "cpuset", "cpu")
#: The leaf a judge moves its group's processes into before it enables controllers there: a
#: non-root group with processes of its own cannot hand controllers to its children (cgroup v2's
#: no-internal-processes rule).  Named so that the sweep never takes it for a dead judge's.
V2_LEAF = "kothkit-leaf"


@attrs.frozen
class _V2:
    """What :func:`v2_setup` made of the unified hierarchy for this process."""

    #: The group the bots' groups are made in (the judge's own, or the parent of its leaf), or None.
    base: Path | None = None
    #: The controllers enabled for the base's children.
    controllers: frozenset[str] = frozenset()
    #: Why a controller kothkit wants is missing ("" when none is).
    why: str = ""
    #: The leaf this process made and moved its group's processes into, and the controllers it
    #: enabled, undone at its exit when nothing else is left in them (:func:`_v2_restore`).
    made_leaf: Path | None = None
    enabled: tuple[str, ...] = ()


_V2_STATE: dict[int, _V2] = {}


def own_v2_dir() -> Path | None:
    """The judge's group on the unified hierarchy, or None (no cgroup v2 mounted at /sys/fs/cgroup)."""
    try:
        if not (CGROUP2_ROOT / "cgroup.controllers").is_file():
            return None  # cgroup v1 (or a hybrid, whose unified tree holds no controller)
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            if line.startswith("0::"):
                d = CGROUP2_ROOT / line[3:].strip().lstrip("/")
                return d if (d / "cgroup.controllers").is_file() else None
    except OSError:
        return None
    return None


def _words(path: Path) -> list[str]:
    try:
        return path.read_text().split()
    except OSError:
        return []


def _enable(base: Path, controllers: list[str]) -> tuple[list[str], OSError | None]:
    """Enable each of ``controllers`` for ``base``'s children; those enabled, and the last error."""
    done, error = [], None
    for c in controllers:
        try:
            write(str(base / "cgroup.subtree_control"), f"+{c}")
            done.append(c)
        except OSError as e:
            error = e
    return done, error


def _move_all(src: Path, dst: Path) -> None:
    """Move every process of ``src`` into ``dst`` (again while some fork as they are moved)."""
    for _ in range(20):
        pids = _words(src / "cgroup.procs")
        if not pids:
            return
        for pid in pids:
            try:
                write(str(dst / "cgroup.procs"), pid)
            except ProcessLookupError:
                pass


def v2_setup() -> _V2:
    """The judge's cgroup v2 tree, set up once per process: where its group is writable (root, or
    a group delegated to it: ``Delegate=yes``, a chown by hand), the processes of the group move
    into its leaf :data:`V2_LEAF` and :data:`V2_CONTROLLERS` are enabled for the bots' groups, made
    beside the leaf.  (The root group needs no leaf: it may hold processes and hand controllers on.)
    A judge started inside the leaf (a worker, a second judge) finds the tree made."""
    pid = os.getpid()
    if pid in _V2_STATE:
        return _V2_STATE[pid]
    state = _v2_make()
    _V2_STATE[pid] = state
    if state.made_leaf is not None:
        import atexit

        atexit.register(_v2_restore)
    return state


def _v2_make() -> _V2:
    own = own_v2_dir()
    if own is None:
        return _V2(why="no cgroup v2 hierarchy at /sys/fs/cgroup")
    base = own.parent if own.name == V2_LEAF else own
    want = [c for c in V2_CONTROLLERS if c in _words(base / "cgroup.controllers")]
    have = set(_words(base / "cgroup.subtree_control"))
    missing = [c for c in want if c not in have]
    made_leaf: Path | None = None
    enabled: list[str] = []
    why = ""
    if missing:
        error: OSError | None = None
        if own == base and (base / "cgroup.type").exists() and _words(base / "cgroup.procs"):
            # A group that is not the root, with processes of its own (the judge, maybe its shell):
            # they go to its leaf first.  (Moved before any controller is enabled: the threaded ones,
            # cpu, cpuset and pids, could be enabled beside them, and the group be left half set up.)
            leaf = base / V2_LEAF
            try:
                try:
                    leaf.mkdir()
                    made_leaf = leaf
                except FileExistsError:
                    pass
                _move_all(base, leaf)
            except OSError as e:
                error = e
                if made_leaf is not None:
                    try:
                        _move_all(leaf, base)
                        leaf.rmdir()
                    except OSError:
                        pass
                    made_leaf = None
        if error is None:
            enabled, error = _enable(base, missing)
        have = set(_words(base / "cgroup.subtree_control"))
        if error is not None and not set(want) <= have:
            why = (f"cannot enable {' '.join(c for c in want if c not in have)} in {base}: "
                   f"{error.strerror or error}" + (f" (its processes: {' '.join(_words(base / 'cgroup.procs'))})"
                                                   if error.errno == errno.EBUSY else ""))
    lacking = [c for c in ("memory", "pids", "cpuset") if c not in have]
    if lacking and not why:
        why = (f"{' '.join(lacking)} not available to {base} (its parent does not hand "
               f"{'it' if len(lacking) == 1 else 'them'} on)")
    if not _probe_dir(base):
        return _V2(why=why or f"{base} is not writable by the judge", made_leaf=made_leaf,
                   enabled=tuple(enabled))
    return _V2(base=base, controllers=frozenset(have & set(V2_CONTROLLERS)), why=why, made_leaf=made_leaf,
               enabled=tuple(enabled))


def _v2_restore() -> None:
    """At the exit of the judge that set the tree up: when it is alone in its leaf and no group
    of its bots is left, the group is as it found it (controllers off, processes back, leaf gone).
    Else it stays for the others (the unit's end removes it)."""
    state = _V2_STATE.get(os.getpid())
    if state is None or state.made_leaf is None or state.base is None:
        return
    leaf, base = state.made_leaf, state.base
    try:
        if _words(leaf / "cgroup.procs") != [str(os.getpid())]:
            return
        if any(d.is_dir() and d != leaf for d in base.iterdir()):
            return
        for c in reversed(state.enabled):
            write(str(base / "cgroup.subtree_control"), f"-{c}")
        write(str(base / "cgroup.procs"), str(os.getpid()))
        leaf.rmdir()
    except OSError:
        pass


def _own_cgroup_v2(controller: str = "memory") -> Path | None:
    state = v2_setup()
    return state.base if controller in state.controllers else None


def _probe_dir(d: Path) -> bool:
    t = d / f"kothkit-probe-{uuid.uuid4().hex[:8]}"
    try:
        t.mkdir()
        t.rmdir()
        return True
    except OSError:
        return False


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OverflowError, ValueError):  # not a pid at all: a folder named by someone else, left alone
        return True


# -- cgroup names, and sweeping those of dead judges ---------------------------------
# A bot's cgroup is named kothkit-nsNS-PID-START-RANDOM after the process that made it (a judge
# or one of its workers): its PID namespace, PID and start time (/proc/PID/stat, clock ticks
# since boot).  ("ns" keeps judges of older versions, which read the field after "kothkit-"
# as their maker's PID, from taking the namespace for a dead PID and removing a live group.)  A group
# whose maker is gone -- no process with that PID, or another one that reused it, in the same
# namespace -- is stale, whatever happened to the maker (SIGKILL, OOM).
_OWNER: tuple[int, str] | None = None


def _start_time(pid: int) -> str | None:
    """Field 22 of /proc/PID/stat, or None if there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()  # the command name may hold spaces and ')'
    return fields[19] if len(fields) > 19 else None


def _pid_namespace() -> str:
    try:
        return "".join(c for c in os.readlink("/proc/self/ns/pid") if c.isdigit()) or "0"
    except OSError:
        return "0"


def group_name() -> str:
    global _OWNER
    pid = os.getpid()
    if _OWNER is None or _OWNER[0] != pid:  # a forked worker names its groups after itself
        _OWNER = (pid, f"kothkit-ns{_pid_namespace()}-{pid}-{_start_time(pid) or 0}")
    return f"{_OWNER[1]}-{uuid.uuid4().hex[:12]}"


def stale(name: str) -> bool:
    """Whether the group ``name`` was made by a process that is gone (never one of this process)."""
    parts = name.split("-")
    try:
        if len(parts) == 5 and parts[1].startswith("ns"):
            ns, pid, start = parts[1][2:], int(parts[2]), parts[3]
            # Another PID namespace's PIDs mean nothing here: its groups are its own to sweep.
            return ns == _pid_namespace() and pid != os.getpid() and _start_time(pid) != start
        if len(parts) == 3:  # named by an older kothkit: kothkit-PID-RANDOM
            pid = int(parts[1])
            return pid != os.getpid() and not _pid_alive(pid)
    except ValueError:
        pass
    return False


def sweep(d: Path) -> None:
    """Remove the groups of judges (and workers) that are gone, killing what is left in them."""
    try:
        entries = [g for g in d.glob("kothkit-*") if g.is_dir()]
    except OSError:
        return
    for g in entries:
        if not stale(g.name):
            continue
        try:
            g.rmdir()
        except FileNotFoundError:
            continue
        except OSError:
            # Processes left behind by a dead judge's bot: thawed (a frozen process dies only once
            # thawed), killed (forks blocked first), then removed.
            for name, value in (("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
                try:
                    (g / name).write_text(value)
                except OSError:
                    pass
            kill_groups([g], pids_group=g)
            remove_group(g)


def usable_cgroup(controller: str, v2: bool = True) -> tuple[Path | None, str | None]:
    """Our own cgroup of ``controller`` that we may make groups in, and its version: the unified
    hierarchy's first (unless ``v2`` is False), else the v1 one; (None, None) if neither."""
    places = ((("v2", _own_cgroup_v2),) if v2 else ()) + (("v1", own_cgroup_v1),)
    for version, own in places:
        d = own(controller)
        if d is not None and _probe_dir(d):
            return d, version
    return None, None



def v1_why() -> str:
    if not Path("/sys/fs/cgroup").is_dir() or not any(Path("/sys/fs/cgroup").iterdir()):
        return "no cgroup file system at /sys/fs/cgroup"
    missing = [c for c in ("memory", "pids") if own_cgroup_v1(c) is None]
    if missing:
        return f"no {' or '.join(missing)} cgroup hierarchy mounted"
    return "the judge's memory or pids cgroup is not writable by it (run it as root, or give it a group of its own)"



# -- cgroups kept for the next game ------------------------------------------------------
#: Empty pids and freezer groups this process made, kept for its next bots (folder -> groups):
#: making and removing a group costs more than checking it is empty and setting its limit again.
#: Memory groups are never kept (their OOM counts are the game's).  They go when the process exits.
POOL: dict[Path, list[Path]] = {}
#: The pids.max this process last wrote to each of its pids groups ("max" for a new one), so that a
#: kept group is written only when the next bot's cap differs (a cgroup file's open costs ~20 us).
#: Trusted only where no bot can reach the cgroup files (the C init's minimal root has no /sys).
PIDS_MAX: dict[Path, str] = {}
#: The cpuset.cpus (and, v1, cpuset.mems) this process last wrote to each of its cpuset groups.
CPUSET: dict[Path, str] = {}
CPUSET_MEMS: dict[Path, str] = {}
#: The forks each kept pids group had refused (pids.events' "max") when its last bot left.
PIDS_REFUSED: dict[Path, int] = {}
_POOL_OWNER = [0]
#: Most groups kept per cgroup folder.
POOL_SIZE = 8


def pool() -> dict[Path, list[Path]]:
    if _POOL_OWNER[0] != os.getpid():  # a forked worker: its parent's groups are its parent's
        POOL.clear()
        PIDS_MAX.clear()
        PIDS_REFUSED.clear()
        CPUSET.clear()
        CPUSET_MEMS.clear()
        _POOL_OWNER[0] = os.getpid()
        import atexit
        import multiprocessing.util

        atexit.register(release_cgroups)
        # A pool worker leaves by os._exit, after running its multiprocessing finalizers.
        multiprocessing.util.Finalize(None, release_cgroups, exitpriority=0)
    return POOL


def release_cgroups() -> None:
    """Remove the empty groups this process kept (at its exit)."""
    if _POOL_OWNER[0] != os.getpid():
        return
    PIDS_MAX.clear()
    CPUSET.clear()
    CPUSET_MEMS.clear()
    for groups in POOL.values():
        while groups:
            try:
                groups.pop().rmdir()
            except OSError:
                pass  # left to the next judge's sweep


def refused_forks(g: Path) -> int:
    """The forks pids group ``g`` refused at its cap so far (its pids.events' "max")."""
    try:
        for line in (g / "pids.events").read_text().splitlines():
            k, _, v = line.partition(" ")
            if k == "max":
                return int(v)
    except (OSError, ValueError):
        pass
    return 0


def write(path: str, text: str) -> None:
    """Write ``text`` to a cgroup file (os calls: a bot's start and stop write a few)."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)



def listed(groups: list[Path]) -> set[int]:
    """The processes in ``groups`` (their cgroup.procs)."""
    pids: set[int] = set()
    for g in groups:
        try:
            with open(f"{g}/cgroup.procs", "rb") as f:
                pids.update(int(p) for p in f.read().split())
        except (OSError, ValueError):
            pass
    return pids


#: Seconds a kill waits for a bot's groups to empty: it ends as soon as they do, but a fork bomb's
#: hundreds of processes on a loaded machine (or in the emulator of tests/vm) take more than the 2 s
#: once allowed to die, and those left would outlive their game.
KILL_WAIT = 10.0


def kill_groups(groups: list[Path], pids_group: Path | None = None, timeout: float = KILL_WAIT) -> bool:
    """Kill every process in ``groups``; True once they are empty (waiting at most ``timeout``).

    Forks are blocked first (``pids_group``'s pids.max 0), and a PID is signalled through a pidfd
    only if it is still listed in the group after the pidfd was opened, so a PID reused by another
    process is never hit.  (Frozen groups must be thawed first: a frozen process does not die.)"""
    if pids_group is not None:
        PIDS_MAX.pop(pids_group, None)
        try:
            write(f"{pids_group}/pids.max", "0")
        except OSError:
            pass
    for g in groups:
        kill = g / "cgroup.kill"  # cgroup v2, Linux 5.14+: atomic
        if kill.exists():
            try:
                kill.write_text("1")
            except OSError:
                pass
    end = time.monotonic() + timeout
    while True:
        left = listed(groups)
        if not left:
            return True
        if time.monotonic() > end:
            return False
        fds = {}
        for pid in left:
            try:
                fds[pid] = os.pidfd_open(pid)
            except ProcessLookupError:
                pass
            except (AttributeError, OSError):  # pragma: no cover - kernels before 5.3: forks are blocked
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        still = listed(groups)
        for pid, fd in fds.items():
            try:
                if pid in still:
                    signal.pidfd_send_signal(fd, signal.SIGKILL)
            except OSError:
                pass
            finally:
                os.close(fd)
        time.sleep(0.002)


def remove_group(g: Path) -> None:
    """Remove the (emptied) group ``g``, again while the kernel still counts its last processes."""
    PIDS_REFUSED.pop(g, None)
    PIDS_MAX.pop(g, None)
    CPUSET.pop(g, None)
    CPUSET_MEMS.pop(g, None)
    for _ in range(200):
        try:
            g.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.005)


# -- a CPU quota (issue 42: the Play page's bot) -------------------------------------------------
def write_cpu_quota(group: Path, share: float, period_us: int = 100_000) -> None:
    """Cap the processes of cgroup ``group`` at ``share`` of one core: v2's cpu.max, or v1's twin
    cpu.cfs_period_us and cpu.cfs_quota_us."""
    quota = max(1000, int(period_us * share))
    if (group / "cpu.max").exists():
        write(f"{group}/cpu.max", f"{quota} {period_us}")
    else:
        write(f"{group}/cpu.cfs_period_us", str(period_us))
        write(f"{group}/cpu.cfs_quota_us", str(quota))


def cpu_quota_base() -> Path | None:
    """Where the Play page's bots get their CPU quota (:func:`thread_cpu_quota`): the cgroup v1
    ``cpu`` group under which a thread gets a group of its own, or the cgroup v2 group the bots'
    groups are made in, with the cpu controller (each bot's own group gets cpu.max); None where
    there is neither (``KOTHKIT_NO_CGROUP=1``): then nothing caps the Play page's bots but their core."""
    if os.environ.get("KOTHKIT_NO_CGROUP") == "1":
        return None
    base = own_cgroup_v1("cpu")
    if base is not None and (base / "cpu.cfs_quota_us").exists() and os.access(base, os.W_OK):
        return base
    state = v2_setup()
    return state.base if "cpu" in state.controllers else None


#: The CPU share of the bots whose jails the calling thread sets up, on cgroup v2 (:func:`thread_cpu_quota`).
_THREAD = threading.local()


def thread_cpu_quota(share: float) -> Path | None:
    """A CPU quota of ``share`` of one core on every bot the calling thread starts from now on,
    setsid'd spinners included, until :func:`leave_cpu_quota`.  On a cgroup v1 cpu hierarchy the
    thread goes into a cpu group of its own capped at ``share`` (``tasks``), which its processes
    inherit (a bot's jail joins groups of other controllers only): that group is returned.  On
    cgroup v2 a thread cannot have a group of its own: the jails the thread sets up give their bot's
    own group a cpu.max of ``share`` (:func:`thread_share`, :meth:`kothkit.procs.contain.Jail.setup`),
    and the v2 base is returned.  None where there is neither."""
    base = cpu_quota_base()
    if base is None:
        return None
    if (base / "cgroup.controllers").is_file():  # cgroup v2
        _THREAD.share = share
        return base
    g = base / group_name()
    try:
        g.mkdir()
    except OSError:
        return None
    try:
        write_cpu_quota(g, share)
        write(f"{g}/tasks", str(threading.get_native_id()))
    except OSError:
        leave_cpu_quota(g)
        return None
    return g


def thread_share() -> float | None:
    """The CPU share :func:`thread_cpu_quota` gave the calling thread's bots on cgroup v2, or None."""
    share: float | None = getattr(_THREAD, "share", None)
    return share


def leave_cpu_quota(group: Path) -> None:
    """The calling thread's quota undone: v1, the thread back in the group's parent, the group
    removed once its processes are gone; v2, its next bots without a quota."""
    if (group / "cgroup.controllers").is_file() and not (group / "tasks").exists():
        _THREAD.share = None
        return
    try:
        write(f"{group.parent}/tasks", str(threading.get_native_id()))
    except OSError:
        pass
    remove_group(group)
