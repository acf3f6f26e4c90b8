"""Containment: what the operating system enforces on a bot process beyond its pipes.

Probed once per judge process (:func:`capabilities`), and said in the
``kothkit run`` output (:meth:`Capabilities.summary`):

* **Processes.**  Where the machine allows it, every bot runs in its own PID
  namespace under a small init (:mod:`kothkit.procs.jailinit`): when the bot exits,
  is killed, or the judge dies, the kernel kills everything the bot started,
  setsid and double-forked children included.  Without namespaces, a bot's
  process group is killed and, where a cgroup is writable, every process left
  in the bot's cgroup.
* **Files.**  With namespaces and the C init, a bot sees a minimal root: the
  system's runtime folders, the interpreter and kothkit (:func:`_exposed`)
  read-only, its own folder (writable only if stateful), a private /tmp and
  /dev/shm, its /proc and a few devices.  A root judge builds a bot's root once
  per process (:func:`prepared_root`) and each game of the bot starts in a copy
  of it, with a /tmp, /dev/shm and /proc of its own.  With the Python init it sees the
  machine read-only except those, the other bots' folders hidden (when the
  bot's parent folder holds only bot folders).  Without, files are not
  confined, and the summary says so.
* **Privileges.**  With the C init a root judge's bots run as :data:`BOT_UID`,
  their folder id-mapped to it; in a user namespace, as its root; either way
  without any capability, with no_new_privs, under a seccomp filter (the
  Python init: the judge's user, a few capabilities, the same filter).
* **CPU.**  Without pondering a waiting bot is frozen (:meth:`Jail.freeze`);
  with it each bot may get its own core (:func:`fair_cpu`).  A pinned bot stays on its
  core: a cpuset cgroup of that core alone, or, where none is writable, a seccomp filter
  that refuses sched_setaffinity (``pinned=1``).
* **Network.**  Each bot has a network namespace of its own with only its loopback
  (``net=1``; made with its prepared root where there is one, :func:`prepared_root`), unless
  its challenge sets ``network = true``.
* **Environment.**  Built from nothing (:func:`environment`): the init clears it and sets
  only what the judge names; without namespaces :meth:`Jail.preexec` does.
* **The host in view.**  ``/etc/passwd`` and ``/etc/group`` of root and nobody; the init
  blanks its arguments and environment (``/proc/1/cmdline``); a cgroup namespace rooted at
  the bot's own groups hides their names.
* **Disk.**  A bot's private /tmp and /dev/shm are tmpfs of ``disk_mb`` each;
  RLIMIT_FSIZE caps any one file at that size; the init says on the bot's
  stderr when the bot ended with its /tmp full (:data:`DISK_FULL`).
* **Limits.**  A memory cgroup (v2, or v1 as on many container hosts) caps
  real memory and tells an OOM kill apart from a crash; a pids cgroup caps the
  number of processes (threads count; :data:`kothkit.limits.DEFAULT_PROCESSES` when the
  challenge sets none) and lets the jail kill every process of
  a bot without racing PID reuse; CPU time, file size and open files are
  rlimits; each game's bots are pinned to the game's core.  A bot's pids and
  freezer groups, empty once its game is over, are kept for the process's next
  bot (:data:`_POOL`).

Why a cgroup and not RLIMIT_AS: address-space limits break node and the JVM,
which reserve far more virtual memory than they use; a memory cgroup counts
only pages really used.  Without a writable cgroup we fall back to RLIMIT_DATA
(private writable memory: node and the JVM still start) and say so.
"""

from __future__ import annotations

import errno
import hashlib
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import attrs

from kothkit.limits import DEFAULT_PROCESSES, Limits

MiB = 1 << 20
#: How the init's line on a bot's stderr starts when the bot ended with its /tmp or /dev/shm full.
DISK_FULL = "kothkit: the bot ended with its "
#: The kothkit package folder (this module lives in kothkit/procs/): bots and hosts are shown all of it.
KOTHKIT_DIR = Path(__file__).resolve().parent.parent
HELPER = Path(__file__).with_name("jailinit.py")
HELPER_C = Path(__file__).with_name("jailinit.c")


@attrs.frozen
class Capabilities:
    #: A writable memory cgroup directory to create per-bot groups in, or None.
    cgroup_dir: Path | None
    #: "v2", "v1" or None.
    cgroup_version: str | None
    cores: tuple[int, ...]
    #: A writable cgroup directory with the pids controller (v1: the pids hierarchy; v2: as cgroup_dir).
    pids_dir: Path | None = None
    pids_version: str | None = None
    #: Bots run in a PID namespace under kothkit's init.
    namespaces: bool = False
    #: Bots see the filesystem read-only but their own folder (needs namespaces).
    files: bool = False
    #: The namespaces need a user namespace (the judge is not root).
    userns: bool = False
    #: Why namespaces or file confinement are missing ("" when both work).
    why: str = ""
    #: The init the bots run under: "C" (compiled here, fast) or "Python".
    helper: str = ""
    #: Bots see a minimal root (system folders, their own folder, private /tmp), not the machine.
    minimal: bool = False
    #: The uid bots run as (the folder id-mapped to it), or None: the judge's uid (root in a user namespace).
    user: int | None = None
    #: Bots run with no capability at all (else a few, to use their folder: the judge is root without id-mapping).
    no_caps: bool = False
    #: A seccomp filter refuses the calls a bot never needs (open_by_handle_at, mount, ptrace...).
    seccomp: bool = False
    #: A writable freezer cgroup directory (v1: the freezer hierarchy; v2: as cgroup_dir), or None.
    freezer_dir: Path | None = None
    freezer_version: str | None = None
    #: Each bot runs in a network namespace of its own, with nothing but its own loopback.
    network: bool = False
    #: A writable cpuset cgroup directory (v1: the cpuset hierarchy; v2: a group with the cpuset
    #: controller), or None: a pinned bot's core is then held by nothing (it may widen its affinity).
    cpuset_dir: Path | None = None
    cpuset_version: str | None = None
    #: A writable cgroup directory with the cpu controller (cpu.max on v2, cpu.cfs_quota_us on v1), or None.
    cpu_dir: Path | None = None
    cpu_version: str | None = None
    #: Why a cgroup kothkit wants is missing ("" when none is): said by :func:`jail_gaps`.
    cgroup_why: str = ""

    def network_line(self) -> str:
        if self.network:
            return "no network (a network namespace per bot and build, with only its own loopback)"
        return f"network NOT confined ({self.why or 'no network namespace'}): bots reach the host's network"

    def cpu_line(self) -> str:
        if self.cpuset_version:
            return f"each bot held to its core by a cpuset cgroup {self.cpuset_version} (it cannot widen its affinity)"
        if self.namespaces and self.seccomp:
            return "no writable cpuset cgroup: the seccomp filter refuses a pinned bot's sched_setaffinity"
        return "a bot's core NOT held (no writable cpuset cgroup, no seccomp filter): a bot may widen its affinity"

    def describe(self) -> list[str]:
        lines = []
        if self.namespaces:
            lines.append(f"processes: a PID namespace per bot under kothkit's {self.helper} init; whatever a bot "
                         "starts dies with it, and with the judge")
        else:
            lines.append(f"processes: no PID namespace ({self.why}); a bot's process group"
                         + (" and cgroup are" if self.pids_dir or self.cgroup_dir else " is")
                         + " killed after its game; children that leave both can survive")
        if self.files and self.minimal:
            lines.append("files: a minimal root: the system's runtime folders and the interpreter read-only, the "
                         "bot's own folder (writable if stateful), a private /tmp, /proc of its namespace, "
                         "/dev null, zero, urandom")
        elif self.files:
            lines.append("files: read-only machine; a bot writes only its own folder and a private /tmp; "
                         "other bots' folders hidden")
        else:
            lines.append(f"files: NOT confined ({self.why or 'no mount namespace'}); "
                         "a bot can write wherever its user can")
        if self.cgroup_version:
            lines.append(f"memory cap: cgroup {self.cgroup_version} ({self.cgroup_dir}), real memory, "
                         f"OOM kill -> verdict 'memory'")
        else:
            lines.append("memory cap: no writable cgroup; RLIMIT_DATA instead (a bot over the cap crashes with an "
                         "allocation failure)")
        if self.pids_version:
            lines.append(f"process cap: pids cgroup {self.pids_version} (threads count)")
        else:
            lines.append("process cap: RLIMIT_NPROC (per user; not enforced for root)")
        lines.append(f"privileges: {self.privileges()}")
        lines.append(f"waiting bots: frozen (freezer cgroup {self.freezer_version}) in games without pondering"
                     if self.freezer_version else "waiting bots: NOT frozen (no writable freezer cgroup)")
        lines.append(f"cpu pinning: cores {list(self.cores)}; {self.cpu_line()}")
        lines.append(f"network: {self.network_line()}")
        return lines

    def privileges(self) -> str:
        if not self.namespaces:
            return "bots run as the judge's user"
        who = (f"bots run as uid {self.user}" if self.user is not None
               else "bots run as root in a user namespace" if self.userns else "bots run as root (NOT unprivileged)")
        caps = "no capabilities" if self.no_caps else "a few capabilities"
        return f"{who}, {caps}, no_new_privs, " + ("seccomp filter" if self.seccomp else "no seccomp filter")

    def summary(self) -> str:
        """One line for the run output: what is enforced, and what is not."""
        parts = [f"PID namespace per bot ({self.helper} init)" if self.namespaces else f"no PID namespace ({self.why})"]
        parts.append(("minimal filesystem" if self.minimal else "files read-only outside the bot's folder")
                     if self.files else "files NOT confined")
        if self.namespaces:
            parts.append(self.privileges())
        parts.append(f"memory cgroup {self.cgroup_version}" if self.cgroup_version else "memory by RLIMIT_DATA")
        parts.append(f"pids cgroup {self.pids_version}" if self.pids_version else "no pids cgroup")
        parts.append("no network" if self.network else "network NOT confined")
        parts.append(f"cores held by cpuset {self.cpuset_version}" if self.cpuset_version
                     else "cores held by seccomp (sched_setaffinity refused)" if self.namespaces and self.seccomp
                     else "cores NOT held")
        return ", ".join(parts)


# -- probing -------------------------------------------------------------------
def _own_cgroup_v1(controller: str) -> Path | None:
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
    """What :func:`_v2_setup` made of the unified hierarchy for this process."""

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


def _own_v2_dir() -> Path | None:
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
            _write(str(base / "cgroup.subtree_control"), f"+{c}")
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
                _write(str(dst / "cgroup.procs"), pid)
            except ProcessLookupError:
                pass


def _v2_setup() -> _V2:
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
    own = _own_v2_dir()
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
            _write(str(base / "cgroup.subtree_control"), f"-{c}")
        _write(str(base / "cgroup.procs"), str(os.getpid()))
        leaf.rmdir()
    except OSError:
        pass


def _own_cgroup_v2(controller: str = "memory") -> Path | None:
    state = _v2_setup()
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


def _group_name() -> str:
    global _OWNER
    pid = os.getpid()
    if _OWNER is None or _OWNER[0] != pid:  # a forked worker names its groups after itself
        _OWNER = (pid, f"kothkit-ns{_pid_namespace()}-{pid}-{_start_time(pid) or 0}")
    return f"{_OWNER[1]}-{uuid.uuid4().hex[:12]}"


def _stale(name: str) -> bool:
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


def _sweep(d: Path) -> None:
    """Remove the groups of judges (and workers) that are gone, killing what is left in them."""
    try:
        entries = [g for g in d.glob("kothkit-*") if g.is_dir()]
    except OSError:
        return
    for g in entries:
        if not _stale(g.name):
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
            # No capabilities: a jail that only kills the group's processes and removes it.
            Jail(Limits(), caps=Capabilities(cgroup_dir=None, cgroup_version=None, cores=()), pids_group=g).teardown()


def sweep_cgroups() -> None:
    """:func:`_sweep` the cgroup folders kothkit uses here (a judge does at its start and end)."""
    caps = capabilities()
    for d in {d for d in (caps.cgroup_dir, caps.pids_dir, caps.freezer_dir, caps.cpuset_dir) if d is not None}:
        _sweep(d)


def _cache_dir() -> Path | None:
    """The user's cache folder for kothkit, if it is the user's own and nobody else can write it."""
    try:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kothkit"
        base.mkdir(parents=True, exist_ok=True)
        st = base.stat()
    except (OSError, RuntimeError):
        return None
    if st.st_uid != os.geteuid() or st.st_mode & 0o022:
        return None  # someone else could plant a helper here
    return base


@cache
def compiled_helper() -> Path | None:
    """jailinit.c compiled once per machine (cached by its content), or None: no C compiler here.

    The C helper starts in about a millisecond, the Python one in about twelve, once per bot and game."""
    if os.environ.get("KOTHKIT_JAIL_HELPER") == "python":
        return None
    try:
        source = HELPER_C.read_bytes()
    except OSError:
        return None
    digest = hashlib.sha256(source + os.uname().machine.encode() + b"static").hexdigest()[:16]
    folder = _cache_dir()
    if folder is None:
        return None
    exe = folder / f"jailinit-{digest}"
    if os.access(exe, os.X_OK):
        return exe
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        return None
    tmp = folder / f".jailinit-{digest}-{os.getpid()}"
    # Linked statically where the C library allows: it is run once per bot and game, and a
    # static program starts measurably faster (no dynamic loader, no relocations).
    for flags in (["-static"], []):
        try:
            subprocess.run([cc, "-O2", *flags, "-o", str(tmp), str(HELPER_C)], capture_output=True, timeout=120,
                           check=True, stdin=subprocess.DEVNULL)
            os.replace(tmp, exe)  # atomic: judges starting at once never run a half-written helper
            return exe
        except (OSError, subprocess.SubprocessError):
            tmp.unlink(missing_ok=True)
    return None


def helper_command(options: list[str], argv: list[str]) -> list[str]:
    exe = compiled_helper()
    if exe is not None:
        return [str(exe), *options, "--", *argv]
    # -I -S: no site-packages, no environment; imported rather than run as a script so that its
    # compiled form is cached: the helper is ready in ~12 ms (most of it the interpreter's start).
    boot = f"import sys; sys.path.append({str(HELPER.parent)!r}); from jailinit import main; main()"
    return [sys.executable, "-I", "-S", "-c", boot, *options, "--", *argv]


@attrs.frozen
class _Probed:
    namespaces: bool = False
    files: bool = False
    userns: bool = False
    why: str = ""
    minimal: bool = False
    user: int | None = None
    no_caps: bool = False
    seccomp: bool = False
    network: bool = False


#: The uid bots run as when the judge is root (nobody): their folder is id-mapped to it.
BOT_UID = 65534


def _probe_namespaces() -> _Probed:
    """What the jail achieves here: run the helper's probe in a scratch layout, with the most
    asked of it first, then less."""
    if os.environ.get("KOTHKIT_NO_NAMESPACE") == "1":
        return _Probed(why="disabled by KOTHKIT_NO_NAMESPACE=1")
    if not sys.platform.startswith("linux"):
        return _Probed(why="not Linux")
    probed = _probe_jail(net=True)
    if probed.namespaces or os.environ.get("KOTHKIT_NO_NETNS") == "1":
        return probed
    # No network namespace here, maybe: the jail without one, said in the containment line.
    return _probe_jail(net=False)


def _probe_jail(net: bool, where: Path | None = None) -> _Probed:
    """The helper's probe run in a scratch layout made in ``where`` (default: the judge's scratch, TMPDIR)."""
    userns = os.geteuid() != 0
    net = net and os.environ.get("KOTHKIT_NO_NETNS") != "1"
    tmp = Path(tempfile.mkdtemp(prefix="kothkit-probe-", dir=where))
    why = ""
    try:
        bots = tmp / "bots"
        me, other = bots / "a", bots / "b"
        me.mkdir(parents=True)
        other.mkdir()
        (other / "secret").write_text("x")
        attempts = [(True, not userns, True), (True, False, True), (True, False, False), (False, False, False)]
        for files, as_user, filtered in attempts:
            opts = [f"folder={me}", f"parent={os.getpid()}", "probe=1", f"outside={tmp}", f"sibling={other}"]
            opts += ["userns=1"] if userns else []
            opts += ["fs=1", "folder_rw=1", f"hide={bots}"] if files else []
            opts += [f"user={BOT_UID}"] if as_user else []
            opts += ["seccomp=1"] if filtered else []
            opts += ["net=1"] if net else []
            try:
                done = subprocess.run(helper_command(opts, ["true"]), cwd=me, capture_output=True, text=True,
                                      timeout=20, stdin=subprocess.DEVNULL)
            except (OSError, subprocess.TimeoutExpired) as e:
                why = f"the jail helper failed: {e}"
                continue
            report = dict(kv.split("=", 1) for kv in done.stdout.split() if "=" in kv)
            if done.returncode != 0 or report.get("pid") != "2":
                err = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
                why = err.removeprefix("kothkit: ").removeprefix("cannot set up the bot's jail: ")
                continue
            got: dict[str, Any] = dict(namespaces=True, userns=userns, network=net,
                       user=int(report["uid"]) if as_user and report.get("uid") == str(BOT_UID) else None,
                       no_caps=report.get("caps", "?").strip("0") == "" and report.get("nnp") == "1",
                       seccomp=filtered and report.get("seccomp") == "2" and report.get("handle") == "EPERM")
            if not files:
                return _Probed(files=False, why=why or "file confinement unavailable", **got)
            own = me / ".kothkit-probe"
            confined = (own.exists() and not (tmp / ".kothkit-probe").exists()
                        and report.get("sibling_hidden") == "True")
            if confined:
                # The C init builds a minimal root; the Python one makes the machine read-only.
                return _Probed(files=True, minimal=compiled_helper() is not None, why="", **got)
            why = "the probe could write outside its folder"
        return _Probed(userns=userns, why=why or "unshare failed")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _usable_cgroup(controller: str, v2: bool = True) -> tuple[Path | None, str | None]:
    """Our own cgroup of ``controller`` that we may make groups in, and its version: the unified
    hierarchy's first (unless ``v2`` is False), else the v1 one; (None, None) if neither."""
    places = ((("v2", _own_cgroup_v2),) if v2 else ()) + (("v1", _own_cgroup_v1),)
    for version, own in places:
        d = own(controller)
        if d is not None and _probe_dir(d):
            return d, version
    return None, None


@cache
def capabilities() -> Capabilities:
    cores = tuple(sorted(os.sched_getaffinity(0)))
    mem = mem_v = pids = pids_v = frz = frz_v = cs = cs_v = cpu = cpu_v = None
    cgroup_why = ""
    if os.environ.get("KOTHKIT_NO_CGROUP") == "1":
        cgroup_why = "disabled by KOTHKIT_NO_CGROUP=1"
    else:
        mem, mem_v = _usable_cgroup("memory")
        pids, pids_v = _usable_cgroup("pids")
        if mem_v == "v2" or pids_v == "v2":
            frz, frz_v = (mem if mem_v == "v2" else pids), "v2"  # cgroup.freeze in every group
        else:
            frz, frz_v = _usable_cgroup("freezer", v2=False)
        cs, cs_v = _usable_cgroup("cpuset")
        cpu, cpu_v = _usable_cgroup("cpu")
        for d in {d for d in (mem, pids, frz, cs, cpu) if d is not None}:
            _sweep(d)
        if mem is None or pids is None:
            cgroup_why = _v2_setup().why if _own_v2_dir() is not None else _v1_why()
    p = _probe_namespaces()
    return Capabilities(cgroup_dir=mem, cgroup_version=mem_v, cores=cores, pids_dir=pids, pids_version=pids_v,
                        namespaces=p.namespaces, files=p.files, userns=p.userns, why=p.why,
                        helper=("C" if compiled_helper() else "Python") if p.namespaces else "",
                        minimal=p.minimal, user=p.user, no_caps=p.no_caps, seccomp=p.seccomp,
                        freezer_dir=frz, freezer_version=frz_v, network=p.network, cpuset_dir=cs,
                        cpuset_version=cs_v, cpu_dir=cpu, cpu_version=cpu_v, cgroup_why=cgroup_why)


def _v1_why() -> str:
    if not Path("/sys/fs/cgroup").is_dir() or not any(Path("/sys/fs/cgroup").iterdir()):
        return "no cgroup file system at /sys/fs/cgroup"
    missing = [c for c in ("memory", "pids") if _own_cgroup_v1(c) is None]
    if missing:
        return f"no {' or '.join(missing)} cgroup hierarchy mounted"
    return "the judge's memory or pids cgroup is not writable by it (run it as root, or give it a group of its own)"


# -- what a host taking strangers' code must have ----------------------------------------
#: Linux gave tmpfs idmapped mounts in 6.3 (ext4, xfs and btrfs had them in 5.12 to 5.15).
TMPFS_IDMAP = (6, 3)


def _filesystem(path: Path) -> str:
    """The type of the file system ``path`` lies on ("" if unknown), from /proc/self/mountinfo."""
    try:
        target = str(Path(path).resolve())
        best, kind = "", ""
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            left, _, right = line.partition(" - ")
            fields = left.split()
            mount = fields[4].encode().decode("unicode_escape") if len(fields) > 4 else ""
            inside = target == mount or target.startswith(mount.rstrip("/") + "/")
            if inside and len(mount) >= len(best):
                best, kind = mount, right.split()[0] if right else ""
        return kind
    except (OSError, IndexError, UnicodeDecodeError):
        return ""


def _kernel() -> tuple[int, int]:
    try:
        major, minor = os.uname().release.split(".")[:2]
        return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)
    except ValueError:
        return (0, 0)


def _idmap_why(folders: tuple[Path, ...]) -> str:
    """Why a bot's folder cannot be id-mapped here, naming the folder and what to do, or ""."""
    for f in folders:
        fs = _filesystem(f)
        if fs == "tmpfs" and _kernel() < TMPFS_IDMAP:
            return (f"{f} is on tmpfs, which cannot be id-mapped on this kernel (Linux {'.'.join(map(str, _kernel()))}"
                    f"; tmpfs can from 6.3): put it on ext4, xfs or btrfs")
        if fs in ("9p", "overlay", "nfs", "nfs4", "fuse", "cifs", "smb3", "vboxsf", "virtiofs"):
            return f"{f} is on {fs}, which cannot be id-mapped: put it on ext4, xfs or btrfs"
    return ""


@cache
def folder_unprivileged(folder: Path) -> bool:
    """Whether a bot whose folder lies in ``folder`` runs unprivileged: as :data:`BOT_UID` (the
    folder id-mapped to it) or as root of a user namespace.  (The probe of :func:`capabilities`
    tries the judge's scratch, TMPDIR: the host's bots live in its state folder.)"""
    caps = capabilities()
    if not caps.namespaces or caps.userns:
        return caps.userns
    try:
        return _probe_jail(net=False, where=folder).user is not None
    except OSError:
        return False


USERNS_HOW = ("allow user namespaces (Debian: sysctl kernel.unprivileged_userns_clone=1; Ubuntu 24.04: "
              "sysctl kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile giving the judge's "
              "python `userns,`, see docs/hosting.md), or run the judge as root")
CGROUP_HOW = ("run the judge as root, or under systemd with Delegate=yes (docs/hosting.md's unit; "
              "by hand: systemd-run --scope -p Delegate=yes kothkit ...)")


def jail_gaps(folders: tuple[Path, ...] = (), caps: Capabilities | None = None) -> list[str]:
    """What the jail lacks of what a host taking strangers' code must have -- file confinement, a
    memory cap by cgroup, a process cap, no network, an unprivileged uid -- each with why and how
    to get it; [] when nothing.  ``folders``: where the bots' folders live (their file system
    must take an id-mapping when the judge is root)."""
    caps = caps or capabilities()
    gaps = []
    cgroup_how = ("unset KOTHKIT_NO_CGROUP" if os.environ.get("KOTHKIT_NO_CGROUP") == "1" else CGROUP_HOW)
    if not caps.files:
        gaps.append(f"file confinement ({caps.why or 'no mount namespace'}): {USERNS_HOW}")
    if caps.cgroup_version is None:
        gaps.append(f"a memory cap by cgroup ({caps.cgroup_why or 'no writable memory cgroup'}): {cgroup_how}")
    if caps.pids_version is None:
        gaps.append(f"a process cap ({caps.cgroup_why or 'no writable pids cgroup'}; RLIMIT_NPROC counts the "
                    f"judge's user, not a bot): {cgroup_how}")
    if not caps.network:
        gaps.append(f"no network ({caps.why or 'no network namespace'}): a network namespace per bot needs the "
                    "namespaces of file confinement")
    places = (*folders, Path(tempfile.gettempdir()))
    if not caps.namespaces:
        gaps.append("an unprivileged uid (bots run as the judge's user): " + USERNS_HOW)
    elif not caps.userns and (caps.user is None or not all(folder_unprivileged(Path(f)) for f in folders)):
        why = _idmap_why(places) or caps.why or "the id-mapping of a bot's folder failed"
        gaps.append(f"an unprivileged uid (bots would run as root: {why})")
    return gaps


def gaps_line(gaps: list[str]) -> str:
    """One line saying what the jail lacks, made to stand out in a run's output."""
    return "JAIL INCOMPLETE: strangers' bots are NOT fully contained here; missing: " + "; ".join(gaps)


def fair_cpu(pondering: bool, jobs: int, pin_cpu: bool = True, caps: Capabilities | None = None) -> tuple[int, str]:
    """(cores per job, what the run output says): how a bot is kept from taking its opponent's CPU.

    Without pondering, a waiting bot is frozen.  With it, each bot of a game needs a core of its
    own: two per job when the machine has them, else the two bots share the job's core."""
    caps = caps or capabilities()
    if not pondering:
        if caps.freezer_version:
            return 1, (f"a waiting bot is frozen (freezer cgroup {caps.freezer_version}): it cannot take its "
                       f"opponent's CPU")
        return 1, ("a waiting bot is NOT frozen (no writable freezer cgroup): what it leaves running shares its "
                   "opponent's core")
    n = len(caps.cores)
    if pin_cpu and n >= 2 * jobs:
        return 2, "the game allows pondering: each bot of a game has a core of its own"
    return 1, (f"the game allows pondering, but {jobs} job(s) on {n} core(s) leave a game's two bots one core to share"
               + (f" (--jobs {n // 2} gives each bot its own)" if n >= 2 else ""))


# -- hiding the other bots -----------------------------------------------------------
_HIDE: dict[Path, tuple[float, bool]] = {}


def hidden_parent(folder: Path) -> Path | None:
    """The bot's parent folder when it holds only bot folders (then it is hidden from the bot)."""
    parent = folder.parent
    if parent == folder or parent == Path("/"):
        return None
    try:
        mtime = parent.stat().st_mtime
    except OSError:
        return None
    hit = _HIDE.get(parent)
    if hit is None or hit[0] != mtime:
        try:
            subs = [p for p in parent.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))]
            only_bots = bool(subs) and all((p / "bot.toml").is_file() or (p / "meta").is_file() for p in subs)
        except OSError:
            only_bots = False
        hit = _HIDE[parent] = (mtime, only_bots)
    return parent if hit[1] else None


# -- roots prepared once ------------------------------------------------------------
#: Most prepared roots a process keeps (one per bot and what it is shown); past it, the one used least
#: lately goes.  (With many bots, a round is played block by block of 2 x kothkit.playing.schedule.BLOCK bots.)
MAX_PREPARED = 64
#: Seconds a preparing helper may take to say it is ready.
PREPARE_TIME = 20.0
#: key -> (the fd of a prepared mount namespace, its inode, the fd of the bot's network namespace or
#: None), or None: preparing failed (the root is built per game).
_PREPARED: dict[tuple[Any, ...], tuple[int, int, int | None] | None] = {}


def _identity(path: str) -> tuple[str, int, int, int]:
    # (and its owner: the C init id-maps a folder's owner to the bot's user, see kothkit.procs.defuse)
    try:
        st = os.stat(path)
    except OSError:
        return (path, -1, -1, -1)
    return (path, st.st_dev, st.st_ino, st.st_uid)


def _still(found: tuple[int, int, int | None]) -> bool:
    """Whether fd ``found[0]`` is still the namespace (inode ``found[1]``) it was opened on."""
    try:
        return os.fstat(found[0]).st_ino == found[1]
    except OSError:
        return False


def prepared_root(options: list[str], paths: list[str]) -> tuple[int, int | None] | None:
    """The fd of a mount namespace whose root is a bot's minimal root, built by the C init once
    (``prepare=1``) for the files ``options`` name, and (``net=1``) the fd of the bot's network
    namespace, made with it; or None where that fails (the bot's root is then built for each game,
    as before).  Each game of the bot enters a copy of the root (``mntns=FD``), made read-only once
    and for all, and its network namespace (``netns=FD``): the mounts, the pivot_root, the
    id-mapping of its folder and the network namespace are paid once per bot and process, not once
    per game.  (Nothing of a game is left in the network namespace for the next: sockets die with
    the bot's processes, and /proc/sys is read-only to it.)

    Keyed by the options and the identity (device, inode) of the folders ``paths`` names: a folder
    removed and made again at the same path gets a new root."""
    key = (*options, *(_identity(p) for p in paths))
    if key in _PREPARED:
        found = _PREPARED[key]
        if found is None:
            return None
        if _still(found):
            _PREPARED[key] = _PREPARED.pop(key)  # now the last used: the oldest goes first
            return found[0], found[2]
        del _PREPARED[key]  # its fd was closed by someone else (and its number maybe reused): not ours
    while len(_PREPARED) >= MAX_PREPARED:
        old = _PREPARED.pop(next(iter(_PREPARED)))
        if old is not None and _still(old):
            os.close(old[0])
            if old[2] is not None:
                os.close(old[2])
    fd = net = None
    exe = compiled_helper()
    if exe is not None:
        try:
            p = subprocess.Popen([str(exe), *options, f"parent={os.getpid()}", "prepare=1", "--"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 close_fds=True)
        except OSError:
            p = None
        if p is not None:
            assert p.stdout is not None and p.stdin is not None  # pipes
            try:
                ready, _, _ = select.select([p.stdout], [], [], PREPARE_TIME)
                if ready and p.stdout.readline() == b"ready\n":
                    if "net=1" in options:
                        net = os.open(f"/proc/{p.pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
                    fd = os.open(f"/proc/{p.pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                fd = None
                if net is not None:
                    os.close(net)
                    net = None
            finally:
                if fd is None:
                    p.kill()
                p.stdin.close()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
                p.stdout.close()
    if fd is None:
        _PREPARED[key] = None
        return None
    _PREPARED[key] = (fd, os.fstat(fd).st_ino, net)
    return fd, net


# -- cgroups kept for the next game ------------------------------------------------------
#: Empty pids and freezer groups this process made, kept for its next bots (folder -> groups):
#: making and removing a group costs more than checking it is empty and setting its limit again.
#: Memory groups are never kept (their OOM counts are the game's).  They go when the process exits.
_POOL: dict[Path, list[Path]] = {}
#: The pids.max this process last wrote to each of its pids groups ("max" for a new one), so that a
#: kept group is written only when the next bot's cap differs (a cgroup file's open costs ~20 us).
#: Trusted only where no bot can reach the cgroup files (the C init's minimal root has no /sys).
_PIDS_MAX: dict[Path, str] = {}
#: The cpuset.cpus (and, v1, cpuset.mems) this process last wrote to each of its cpuset groups.
_CPUSET: dict[Path, str] = {}
_CPUSET_MEMS: dict[Path, str] = {}
#: The forks each kept pids group had refused (pids.events' "max") when its last bot left.
_PIDS_REFUSED: dict[Path, int] = {}
_POOL_OWNER = [0]
#: Most groups kept per cgroup folder.
POOL_SIZE = 8


def _pool() -> dict[Path, list[Path]]:
    if _POOL_OWNER[0] != os.getpid():  # a forked worker: its parent's groups are its parent's
        _POOL.clear()
        _PIDS_MAX.clear()
        _PIDS_REFUSED.clear()
        _CPUSET.clear()
        _CPUSET_MEMS.clear()
        _POOL_OWNER[0] = os.getpid()
        import atexit
        import multiprocessing.util

        atexit.register(release_cgroups)
        # A pool worker leaves by os._exit, after running its multiprocessing finalizers.
        multiprocessing.util.Finalize(None, release_cgroups, exitpriority=0)
    return _POOL


def release_cgroups() -> None:
    """Remove the empty groups this process kept (at its exit)."""
    if _POOL_OWNER[0] != os.getpid():
        return
    _PIDS_MAX.clear()
    _CPUSET.clear()
    _CPUSET_MEMS.clear()
    for groups in _POOL.values():
        while groups:
            try:
                groups.pop().rmdir()
            except OSError:
                pass  # left to the next judge's sweep


# -- the jail --------------------------------------------------------------------------
_PRCTL: Callable[..., int] | None = None
#: Jail.wrap's options by what they are made from (see there): (the capabilities, options, prepared root).
_WRAPS: dict[tuple[Any, ...], tuple[Capabilities, list[str], tuple[list[str], list[str]] | None]] = {}


def _refused_forks(g: Path) -> int:
    """The forks pids group ``g`` refused at its cap so far (its pids.events' "max")."""
    try:
        for line in (g / "pids.events").read_text().splitlines():
            k, _, v = line.partition(" ")
            if k == "max":
                return int(v)
    except (OSError, ValueError):
        pass
    return 0


def _write(path: str, text: str) -> None:
    """Write ``text`` to a cgroup file (os calls: a bot's start and stop write a few)."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _prctl() -> Callable[..., int]:
    global _PRCTL
    if _PRCTL is None:
        import ctypes

        _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
    return _PRCTL


_CLEARENV: list[Callable[[], int]] = []


def _clearenv() -> Callable[[], int]:
    """The C library's clearenv (loaded before a fork: preexec only calls it)."""
    if not _CLEARENV:
        import ctypes

        _CLEARENV.append(ctypes.CDLL(None).clearenv)
    return _CLEARENV[0]


def site_dirs() -> list[str]:
    """The judge's site folders on its sys.path: where the packages a function host imports live.

    Not only its prefix's: the user's site, and folders a ``.pth`` file adds (a
    :mod:`kothkit.testing.sandbox` venv sees the packages of the venv that made it that way).
    """
    return [p for p in sys.path
            if os.path.isabs(p) and os.path.basename(os.path.normpath(p)) in ("site-packages", "dist-packages")]


def _scratch_root(path: Path) -> Path | None:
    """The top folder just below /tmp or /dev/shm that holds ``path``, if it lives there."""
    for d in (Path("/tmp"), Path("/dev/shm")):
        if d in path.parents:
            return d / path.relative_to(d).parts[0]
    return None


def _kept(argv: list[str], readable: tuple[Path, ...] = ()) -> list[str]:
    paths = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent, KOTHKIT_DIR.parent,
             *readable]
    paths += [Path(p) for p in site_dirs()]
    if argv and os.path.isabs(argv[0]):
        paths.append(Path(argv[0]).parent)
    kept: list[str] = []
    for p in paths:
        for q in (p, p.resolve()):
            root = _scratch_root(q)
            if root is not None and root.is_dir() and str(root) not in kept:
                kept.append(str(root))
    return kept


#: Where the system's programs live: shown to every bot by the init itself.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")


#: A bot's PATH: the system's program folders (the folder of its command first, when the judge
#: found it elsewhere on its own PATH: a venv's python3, node in /opt/node/bin).
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: The locale of a bot (LANG and LC_ALL): UTF-8, present in every C library kothkit runs on.
LOCALE = "C.UTF-8"
_COMMAND_DIR: dict[tuple[str, str], str | None] = {}


def environment(argv: list[str], *tables: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """A bot's (or a build's, or a function host's) whole environment, built from nothing: PATH,
    LANG and LC_ALL, HOME and TMPDIR (its private /tmp), then the ``tables`` in order (a
    challenge's ``env``, then a bot's).  Nothing of the judge's environment."""
    path = SYSTEM_PATH
    if argv and "/" not in argv[0]:
        key = (os.environ.get("PATH", ""), argv[0])
        if key not in _COMMAND_DIR:
            if len(_COMMAND_DIR) > 256:
                _COMMAND_DIR.clear()
            found = shutil.which(argv[0])
            _COMMAND_DIR[key] = os.path.dirname(found) if found else None
        where = _COMMAND_DIR[key]
        if where and where not in SYSTEM_PATH.split(":"):
            path = f"{where}:{path}"
    env = {"PATH": path, "LANG": LOCALE, "LC_ALL": LOCALE, "HOME": "/tmp", "TMPDIR": "/tmp"}
    for table in tables:
        env.update(table)
    return env


_EXPOSED: dict[tuple[str, ...], list[str]] = {}


def _exposed(argv: list[str]) -> list[str]:
    """:func:`_find_exposed`, looked up once per command and process (it looks on PATH and resolves links)."""
    key = (os.environ.get("PATH", ""), *argv[:1])
    found = _EXPOSED.get(key)
    if found is None:
        if len(_EXPOSED) > 256:
            _EXPOSED.clear()
        found = _EXPOSED[key] = _find_exposed(argv)
    return list(found)


def _find_exposed(argv: list[str]) -> list[str]:
    """Paths outside the system folders a bot's command needs, shown read-only in its root: the
    Python kothkit runs with (its prefix and venv: ``python3`` bots run it), kothkit itself
    (function hosts import it), its site folders (a sandbox venv's outer packages, a user site), and
    the folder of a command found on PATH (node in /opt/node/bin, say, with /opt/node/lib).  Never a
    path the bot names itself: an absolute command must be a system program's or lie in the bot's
    folder."""
    paths = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, str(Path(sys.executable).parent),
             str(KOTHKIT_DIR), *site_dirs()]
    if argv and "/" not in argv[0]:
        found = shutil.which(argv[0])
        if found:
            for c in (found, os.path.realpath(found)):
                d = os.path.dirname(c)
                paths.append(d)
                if os.path.basename(d) == "bin":  # its libraries, not the whole prefix (~/.local, say)
                    paths += [os.path.join(os.path.dirname(d), sub) for sub in ("lib", "lib64", "libexec")]
    if argv and argv[0] == sys.executable:
        paths.append(os.path.dirname(os.path.realpath(sys.executable)))
    out: list[str] = []
    for p in paths + [os.path.realpath(p) for p in paths]:
        p = os.path.normpath(p)
        if p == "/" or any(p == d or p.startswith(d + "/") for d in SYSTEM_DIRS) or not os.path.exists(p):
            continue
        if p not in out:
            out.append(p)
    # a path inside another one is shown with it
    return [p for p in out if not any(q != p and p.startswith(q.rstrip("/") + "/") for q in out)]


@attrs.define(eq=False)
class Jail:
    """The OS-side limits of one bot process for one game."""

    limits: Limits
    cpu: int | None = None
    #: The bot may write its folder (a stateful bot, a build); else its folder is read-only to it.
    writable: bool = False
    #: The bot is frozen while it waits (:meth:`freeze`, :meth:`thaw`): needs a freezer cgroup.
    freezable: bool = False
    caps: Capabilities = attrs.field(factory=capabilities)
    #: The bot's memory cgroup (v1 or v2), or None.
    group: Path | None = None
    #: The bot's pids cgroup (v1; in v2 it is ``group`` when both exist), or None.
    pids_group: Path | None = None
    #: The bot's freezer cgroup (v1; in v2 the memory or pids group), or None.
    freezer_group: Path | None = None
    #: The bot's cpuset cgroup holding it to its core ``cpu`` (v1; in v2 the memory or pids group), or None.
    cpuset_group: Path | None = None
    #: The bot's own environment variables (its bot.toml's ``env``), over the challenge's.
    env: tuple[tuple[str, str], ...] = ()
    frozen: bool = False
    #: The command runs under kothkit's init (namespaces); ``preexec`` is then not used.
    wrapped: bool = False
    parent: int = 0
    #: Start in a root prepared once for this bot (:func:`prepared_root`) where the machine allows;
    #: the process must then be started with ``pass_fds`` open.
    reuse_root: bool = False
    #: File descriptors the wrapped command needs (the prepared root's).
    pass_fds: tuple[int, ...] = ()
    #: Groups that may be kept for the next bot once empty (pids and freezer groups, see _POOL).
    _keepable: list[Path] = attrs.field(factory=list)
    #: The command runs under the C init (see :meth:`kill_all`).
    c_init: bool = False
    #: The environment :meth:`preexec` gives the command (without namespaces).
    _start_env: dict[str, str] | None = attrs.field(default=None, init=False)

    def _mkgroup(self, base: Path) -> Path:
        g = base / _group_name()
        g.mkdir()
        return g

    def _take(self, base: Path) -> Path:
        """A pids or freezer group: one kept from an earlier bot of this process (empty, thawed), or a new one."""
        kept = _pool().get(base)
        if kept:
            g = kept.pop()
        else:
            g = self._mkgroup(base)
            if base == self.caps.pids_dir:
                _PIDS_MAX[g] = "max"  # a new group's
        self._keepable.append(g)
        return g

    def _give(self, g: Path) -> bool:
        """Keep the empty group ``g`` for the next bot; False if it is to be removed."""
        if g not in self._keepable or (self.frozen and g == self.freezer_group and not self._thawed_empty()):
            return False
        kept = _pool().setdefault(g.parent, [])
        if len(kept) >= POOL_SIZE:
            return False
        kept.append(g)
        return True

    def _thawed_empty(self) -> bool:
        try:
            self._set_frozen(False)
        except OSError:
            return False
        return not self.frozen

    def setup(self) -> None:
        """Create the bot's cgroups: memory when a cap is asked, pids whenever writable."""
        lim, caps = self.limits, self.caps
        self.parent = os.getpid()
        if lim.memory_mb is not None and caps.cgroup_dir is not None:
            g = self._mkgroup(caps.cgroup_dir)
            self.group = g
            cap = lim.memory_mb * MiB
            if caps.cgroup_version == "v2":
                (g / "memory.max").write_text(str(cap))
                if (g / "memory.swap.max").exists():
                    (g / "memory.swap.max").write_text("0")
            else:
                (g / "memory.limit_in_bytes").write_text(str(cap))
                sw = g / "memory.memsw.limit_in_bytes"
                if sw.exists():
                    try:
                        sw.write_text(str(cap))  # no swapping around the cap
                    except OSError:
                        pass
        if caps.pids_dir is not None:
            if caps.pids_version == "v2" and self.group is not None and caps.pids_dir == caps.cgroup_dir:
                self.pids_group = self.group
            else:
                self.pids_group = self._take(caps.pids_dir)
            # Always capped: a fork bomb must not take the host's PID space.  (A kept group's
            # limit is the last bot's, or 0 if it was killed.)
            value, g = str(lim.processes or DEFAULT_PROCESSES), self.pids_group
            if not (caps.minimal and _PIDS_MAX.get(g) == value):
                _PIDS_MAX.pop(g, None)
                _write(f"{g}/pids.max", value)
                _PIDS_MAX[g] = value
        if self.cpu is not None and caps.cpuset_dir is not None:
            self._hold_cpu(self.cpu)
        # Only under kothkit's init, which thaws the bot when it dies with the judge: a frozen
        # process (cgroup v1) does not die of SIGKILL, and without the init nobody would thaw it.
        if self.freezable and caps.freezer_dir is not None and caps.namespaces:
            if caps.freezer_version == "v2":
                self.freezer_group = self.group or self.pids_group or self._take(caps.freezer_dir)
            else:
                self.freezer_group = self._take(caps.freezer_dir)
        if not self.caps.namespaces:
            _prctl()  # loaded before the fork: preexec only calls it
            _clearenv()

    def _hold_cpu(self, cpu: int) -> None:
        """Put the bot in a cpuset of its core alone: sched_setaffinity cannot widen a cpuset."""
        caps = self.caps
        assert caps.cpuset_dir is not None
        # (v2: one hierarchy, so the bot's memory or pids group where it lies in the cpuset's folder)
        shared = [x for x in (self.group, self.pids_group) if x is not None and x.parent == caps.cpuset_dir]
        g = shared[0] if caps.cpuset_version == "v2" and shared else self._take(caps.cpuset_dir)
        if _CPUSET.get(g) == str(cpu):
            self.cpuset_group = g
            return
        _CPUSET.pop(g, None)
        try:
            if caps.cpuset_version == "v1" and not _CPUSET_MEMS.get(g):
                # (a v1 cpuset takes no process until it has memory nodes: its parent's)
                mems = (g.parent / "cpuset.mems").read_text().strip()
                _write(f"{g}/cpuset.mems", mems)
                _CPUSET_MEMS[g] = mems
            _write(f"{g}/cpuset.cpus", str(cpu))
        except OSError:
            # A core the cpuset may not take (a container's narrower cpuset, say): the bot is
            # held by the seccomp filter instead (pinned=1), not left unable to start.
            if g not in (self.group, self.pids_group):
                self._keepable.remove(g)
                try:
                    g.rmdir()
                except OSError:
                    pass
            return
        _CPUSET[g] = str(cpu)
        self.cpuset_group = g

    def environment(self, argv: list[str]) -> dict[str, str]:
        """The bot's whole environment, built from nothing (:func:`environment`) with the
        challenge's ``env`` and then the bot's own."""
        return environment(argv, self.limits.env, self.env)

    def _groups(self) -> list[Path]:
        return [g for g in dict.fromkeys((self.group, self.pids_group, self.freezer_group, self.cpuset_group))
                if g is not None]

    def freeze(self) -> None:
        """Stop every process of the bot until :meth:`thaw` (it waits for its turn)."""
        if self.freezer_group is not None and not self.frozen:
            self._set_frozen(True)

    def thaw(self) -> None:
        if self.freezer_group is not None and self.frozen:
            self._set_frozen(False)

    def _set_frozen(self, frozen: bool) -> None:
        g = self.freezer_group
        if g is None:
            return
        try:
            if self.caps.freezer_version == "v2":
                _write(f"{g}/cgroup.freeze", "1" if frozen else "0")
            else:
                _write(f"{g}/freezer.state", "FROZEN" if frozen else "THAWED")
            self.frozen = frozen
        except OSError:
            pass

    def _rlimits(self) -> list[tuple[str, int, int]]:
        lim, out = self.limits, []
        if lim.memory_mb is not None and self.group is None:
            out.append(("RLIMIT_DATA", lim.memory_mb * MiB, lim.memory_mb * MiB))
        if lim.cpu_seconds is not None:
            out.append(("RLIMIT_CPU", lim.cpu_seconds, lim.cpu_seconds + 1))
        fsize = min(lim.file_size_mb or lim.disk_mb, lim.disk_mb)
        out.append(("RLIMIT_FSIZE", fsize * MiB, fsize * MiB))
        if lim.open_files is not None:
            out.append(("RLIMIT_NOFILE", lim.open_files, lim.open_files))
        if lim.processes is not None and self.pids_group is None:
            # RLIMIT_NPROC counts the user's processes, so it is only meaningful per-uid (and so
            # set only when the challenge asks: the default cap would count the judge's user's
            # other processes); it still stops a fork bomb from taking the machine down.
            out.append(("RLIMIT_NPROC", lim.processes, lim.processes))
        return out

    def wrap(self, argv: list[str], folder: Path, readable: tuple[Path, ...] = ()) -> list[str]:
        """The command to start: ``argv`` under kothkit's init where namespaces work, else ``argv``.

        ``readable``: folders the bot must see (read-only) besides its own, even under /tmp."""
        if not self.caps.namespaces:
            self._start_env = self.environment(list(argv))
            return list(argv)
        # Under the C init the options are the same for every game of a bot in this process but
        # the prepared root's fd (checked by prepared_root each time): built once, not per game.
        # (Of the command they depend on its program only (_exposed): not on a game's arguments.)
        key = (argv[0] if argv else None, folder, tuple(readable), self.writable, self.cpu, self.group, self.pids_group,
               self.freezer_group, self.cpuset_group, tuple(self._rlimits()), self.limits.disk_mb, self.limits.env,
               self.limits.network, self.env, self.reuse_root, os.getpid(), os.environ.get("PATH", ""),
               os.environ.get("KOTHKIT_JAIL_REUSE"))
        hit = _WRAPS.get(key)
        if hit is None or hit[0] is not self.caps:
            hit = (self.caps, *self._options(argv, folder, readable))
            if self.caps.minimal:  # (the Python init's options look at the folders each time: hidden_parent)
                if len(_WRAPS) >= 256:
                    _WRAPS.clear()
                _WRAPS[key] = hit
        _, opts, reuse = hit
        if reuse is not None:
            found = prepared_root(*reuse)
            if found is not None:
                mnt, net = found
                opts = [*opts, f"mntns={mnt}", *([f"netns={net}"] if net is not None else [])]
                self.pass_fds = (mnt,) if net is None else (mnt, net)
        self.wrapped = True
        self.c_init = compiled_helper() is not None
        return helper_command(opts, list(argv))

    def _options(self, argv: list[str], folder: Path, readable: tuple[Path, ...]
                 ) -> tuple[list[str], tuple[list[str], list[str]] | None]:
        """The init's options for :meth:`wrap` but the prepared root, and what to prepare it from
        (:func:`prepared_root`'s arguments), if it is to be."""
        folder = Path(folder).resolve()
        opts = [f"folder={folder}", f"parent={os.getpid()}"]
        if self.cpu is not None:
            opts.append(f"cpu={self.cpu}")
        opts += [f"cgroup={g / 'cgroup.procs'}" for g in self._groups()]
        if self.freezer_group is not None:
            state = "cgroup.freeze" if self.caps.freezer_version == "v2" else "freezer.state"
            opts.append(f"freezer={self.freezer_group / state}")
        opts += [f"rlimit={n}:{s}:{h}" for n, s, h in self._rlimits()]
        if self.caps.userns:
            opts.append("userns=1")
        if self.caps.user is not None:
            opts.append(f"user={self.caps.user}")
        if self.caps.seccomp:
            opts.append("seccomp=1")
        if self.caps.network and not self.limits.network:
            opts.append("net=1")
        if self.cpu is not None and self.cpuset_group is None and self.caps.seccomp:
            opts.append("pinned=1")  # no cpuset holds it to its core: the filter refuses any change
        # (TMPDIR and HOME are its private /tmp where files are confined)
        opts += [f"env={k}={v}" for k, v in self.environment(argv).items()]
        reuse = None
        if self.caps.files:
            opts += ["fs=1", f"tmp_mb={self.limits.disk_mb}", f"folder_rw={int(self.writable)}"]
            if self.caps.minimal:
                # What the command needs outside the system folders, shown read-only (and the
                # folders ``readable`` names: a function bot's shared source folder).
                keeps = _exposed(argv) + [str(Path(r).resolve()) for r in readable]
                opts += [f"keep={k}" for k in keeps]
                reuse = self._reuse(folder, keeps)
            else:
                # The Python init's private /tmp must not hide what the bot's command needs from
                # under /tmp (a venv made there, kothkit itself): bound back read-only.
                opts += [f"keep={k}" for k in _kept(argv, tuple(readable))]
                hide = hidden_parent(folder)
                if hide is not None:
                    opts.append(f"hide={hide}")
        return opts, reuse

    def _reuse(self, folder: Path, keeps: list[str]) -> tuple[list[str], list[str]] | None:
        """:func:`prepared_root`'s arguments when this bot's root can be prepared once (a root judge:
        in a user namespace a copied root would need the namespace entered too; nothing under
        /dev/shm, which the prepared root's read-only /dev holds); its fd is then passed as ``mntns=FD``."""
        if (not self.reuse_root or self.caps.userns or os.environ.get("KOTHKIT_JAIL_REUSE") == "0"
                or any(p == "/dev/shm" or p.startswith("/dev/shm/") for p in [str(folder), *keeps])):
            return None
        base = [f"folder={folder}", "fs=1", f"folder_rw={int(self.writable)}", *(f"keep={k}" for k in keeps)]
        if self.caps.user is not None:
            base.append(f"user={self.caps.user}")
        if self.caps.network and not self.limits.network:
            base.append("net=1")  # its network namespace, made once with its root
        return base, [str(folder), *keeps]

    def preexec(self) -> None:
        """Runs in the child between fork and exec (without namespaces): die with the judge,
        join the cgroups, pin, set rlimits."""
        _prctl()(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != self.parent:
            os._exit(137)
        for g in self._groups():
            with open(g / "cgroup.procs", "w") as f:
                f.write(str(os.getpid()))
        if self.cpu is not None:
            os.sched_setaffinity(0, {self.cpu})
        for name, soft, hard in self._rlimits():
            resource.setrlimit(getattr(resource, name), (soft, hard))
        # The environment built from nothing: the C library's, which the exec that follows passes
        # on (the command is started with env=None); cleared there, since os.environ does not know
        # what C code set after the interpreter started.
        _clearenv()()
        for k, v in (self._start_env or {}).items():
            os.putenv(k, v)

    def needs_preexec(self) -> bool:
        # Under the helper nothing runs between fork and exec, so spawning can use vfork.
        return not self.wrapped

    def started(self, pid: int) -> None:
        """Right after spawn: pin the bot to its core (the helper pins itself too, before its
        forks; without it, a child forked in the first microseconds may escape the pin)."""
        if self.cpu is not None:
            try:
                os.sched_setaffinity(pid, {self.cpu})
            except OSError:
                pass

    def oom_killed(self) -> bool:
        """Whether the kernel killed something in this bot's cgroup for memory."""
        if self.group is None:
            return False
        try:
            if self.caps.cgroup_version == "v2":
                for line in (self.group / "memory.events").read_text().splitlines():
                    k, v = line.split()
                    if k == "oom_kill" and int(v) > 0:
                        return True
                return False
            text = (self.group / "memory.oom_control").read_text()
            for line in text.splitlines():
                k, v = line.split()
                if k == "oom_kill" and int(v) > 0:
                    return True
            return int((self.group / "memory.failcnt").read_text()) > 0 and "under_oom 1" in text
        except (OSError, ValueError):
            return False

    def process_cap_hit(self) -> bool:
        """Whether the bot tried to run more processes than its cap (its pids cgroup refused a fork)."""
        g = self.pids_group
        return g is not None and _refused_forks(g) > _PIDS_REFUSED.get(g, 0)

    def memory_peak(self) -> int | None:
        """The most real memory the bot used at once (bytes), from its memory cgroup; None without one
        (or a v2 kernel before 5.19, which keeps no peak)."""
        if self.group is None:
            return None
        name = "memory.peak" if self.caps.cgroup_version == "v2" else "memory.max_usage_in_bytes"
        try:
            return int((self.group / name).read_text())
        except (OSError, ValueError):
            return None

    def kill_all(self, timeout: float = 2.0, reaped: bool = False) -> bool:
        """Kill every process left in the bot's cgroups; True once they are empty.

        Forks are blocked first (pids.max 0), and a PID is signalled through a
        pidfd only if it is still listed in the group after the pidfd was
        opened, so a PID reused by another process is never hit.

        ``reaped``: the leader exited by itself (not killed by a signal).  Under the C init that
        means the groups are empty without reading them: its leader exits by itself only before
        it forks the init (no bot yet) or after it reaped the init, and once the init of a PID
        namespace is reaped every process of the namespace is gone (the kernel kills them and
        waits for them as the init exits); only the bot's processes, all in its namespace, join
        its groups.  A leader killed by a signal (ours after the grace, the bot's own, which the
        leader passes on, or anyone's) and a frozen group are checked as before."""
        groups = self._groups()
        if not groups or (reaped and self.c_init and not self.frozen) or not self._listed(groups):
            return True  # the usual end: the bot's PID namespace died with its init
        self.thaw()  # a frozen process does not die of SIGKILL until it is thawed
        if self.pids_group is not None:
            _PIDS_MAX.pop(self.pids_group, None)
            try:
                _write(f"{self.pids_group}/pids.max", "0")
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
            listed = self._listed(groups)
            if not listed:
                return True
            if time.monotonic() > end:
                return False
            fds = {}
            for pid in listed:
                try:
                    fds[pid] = os.pidfd_open(pid)
                except ProcessLookupError:
                    pass
                except (AttributeError, OSError):  # pragma: no cover - kernels before 5.3: forks are blocked
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
            still = self._listed(groups)
            for pid, fd in fds.items():
                try:
                    if pid in still:
                        signal.pidfd_send_signal(fd, signal.SIGKILL)
                except OSError:
                    pass
                finally:
                    os.close(fd)
            time.sleep(0.002)

    @staticmethod
    def _listed(groups: list[Path]) -> set[int]:
        pids: set[int] = set()
        for g in groups:
            try:
                with open(f"{g}/cgroup.procs", "rb") as f:
                    pids.update(int(p) for p in f.read().split())
            except (OSError, ValueError):
                pass
        return pids

    def teardown(self, reaped: bool = False) -> None:
        """Empty the bot's groups and keep or remove them; ``reaped``: see :meth:`kill_all`."""
        groups = self._groups()
        if not groups:
            return
        empty = self.kill_all(reaped=reaped)
        for g in groups:
            if empty and g == self.pids_group and g in self._keepable:
                _PIDS_REFUSED[g] = _refused_forks(g)  # the next bot's count starts there
            if empty and self._give(g):
                continue
            _PIDS_REFUSED.pop(g, None)
            _PIDS_MAX.pop(g, None)
            _CPUSET.pop(g, None)
            _CPUSET_MEMS.pop(g, None)
            for _ in range(200):
                try:
                    g.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.005)
        self.group = self.pids_group = self.freezer_group = self.cpuset_group = None
        self._keepable.clear()


# -- a CPU quota (issue 42: the Play page's bot) -------------------------------------------------
def write_cpu_quota(group: Path, share: float, period_us: int = 100_000) -> None:
    """Cap the processes of cgroup ``group`` at ``share`` of one core: v2's cpu.max, or v1's twin
    cpu.cfs_period_us and cpu.cfs_quota_us."""
    quota = max(1000, int(period_us * share))
    if (group / "cpu.max").exists():
        _write(f"{group}/cpu.max", f"{quota} {period_us}")
    else:
        _write(f"{group}/cpu.cfs_period_us", str(period_us))
        _write(f"{group}/cpu.cfs_quota_us", str(quota))


def cpu_quota_base() -> Path | None:
    """The cgroup v1 ``cpu`` group under which :func:`thread_cpu_quota` makes its groups, or None
    where there is none writable (a cgroup v2-only machine: a thread cannot have a group of its own
    there; ``KOTHKIT_NO_CGROUP=1``): then nothing caps the Play page's bots but their core."""
    if os.environ.get("KOTHKIT_NO_CGROUP") == "1":
        return None
    base = _own_cgroup_v1("cpu")
    if base is None or not (base / "cpu.cfs_quota_us").exists() or not os.access(base, os.W_OK):
        return None
    return base


def thread_cpu_quota(share: float) -> Path | None:
    """Put the calling thread in a cpu cgroup of its own capped at ``share`` of one core: every
    process it starts from now on inherits the group (a bot's jail joins groups of other
    controllers only), setsid'd spinners included.  A cgroup v1 cpu hierarchy only: there a
    thread may be in a group of its own (``tasks``).  None where there is none writable."""
    import threading

    base = cpu_quota_base()
    if base is None:
        return None
    g = base / _group_name()
    try:
        g.mkdir()
    except OSError:
        return None
    try:
        write_cpu_quota(g, share)
        _write(f"{g}/tasks", str(threading.get_native_id()))
    except OSError:
        leave_cpu_quota(g)
        return None
    return g


def leave_cpu_quota(group: Path) -> None:
    """The calling thread back in the group's parent; the group removed once its processes are gone."""
    import threading

    try:
        _write(f"{group.parent}/tasks", str(threading.get_native_id()))
    except OSError:
        pass
    for _ in range(200):
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.005)
