"""The jail: a bot process run contained (:class:`Jail`), and what the operating system enforces on it.

What the machine offers is probed once per judge process (:func:`kothkit.procs.probe.capabilities`)
and said in the ``kothkit run`` output (:meth:`kothkit.procs.probe.Capabilities.summary`); the
cgroups are :mod:`kothkit.procs.cgroups`'; a folder that cannot be id-mapped is copied
(:mod:`kothkit.procs.copies`).  What the jail enforces:

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

import os
import resource
import select
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from kothkit.limits import DEFAULT_PROCESSES, Limits
from kothkit.procs import cgroups, copies

# The names the other layers use, from the modules that hold them: kothkit.procs.contain is
# their one import for containment (what the machine offers, kothkit.procs.probe; cgroups and CPU
# quotas, kothkit.procs.cgroups; the jail, here).
from kothkit.procs.cgroups import cpu_quota_base as cpu_quota_base
from kothkit.procs.cgroups import leave_cpu_quota as leave_cpu_quota
from kothkit.procs.cgroups import thread_cpu_quota as thread_cpu_quota
from kothkit.procs.probe import Capabilities as Capabilities
from kothkit.procs.probe import capabilities as capabilities
from kothkit.procs.probe import compiled_helper, folder_copied, helper_command
from kothkit.procs.probe import fair_cpu as fair_cpu
from kothkit.procs.probe import gaps_line as gaps_line
from kothkit.procs.probe import jail_gaps as jail_gaps
from kothkit.procs.probe import summary as summary
from kothkit.procs.probe import sweep_cgroups as sweep_cgroups

MiB = 1 << 20
#: How the init's line on a bot's stderr starts when the bot ended with its /tmp or /dev/shm full.
DISK_FULL = "kothkit: the bot ended with its "
#: The kothkit package folder (this module lives in kothkit/procs/): bots and hosts are shown all of it.
KOTHKIT_DIR = Path(__file__).resolve().parent.parent


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



# -- the jail --------------------------------------------------------------------------
_PRCTL: Callable[..., int] | None = None
#: Jail.wrap's options by what they are made from (see there): (the capabilities, options, prepared root).
_WRAPS: dict[tuple[Any, ...], tuple[Capabilities, list[str], tuple[list[str], list[str]] | None]] = {}




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
    #: The bot's group under a CPU quota (cgroup v2: cpu.max; its memory or pids group), or None:
    #: set up by a thread under :func:`kothkit.procs.cgroups.thread_cpu_quota` (the Play page's bots).
    quota_group: Path | None = None
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
    #: Groups that may be kept for the next bot once empty (pids and freezer groups, see cgroups.POOL).
    _keepable: list[Path] = attrs.field(factory=list)
    #: The command runs under the C init (see :meth:`kill_all`).
    c_init: bool = False
    #: The environment :meth:`preexec` gives the command (without namespaces).
    _start_env: dict[str, str] | None = attrs.field(default=None, init=False)
    #: (the copy, the folder) where the bot runs over a copy of its folder (:mod:`kothkit.procs.copies`):
    #: a writable one is copied back at :meth:`teardown`.
    copied: tuple[Path, Path] | None = attrs.field(default=None, init=False)

    def _mkgroup(self, base: Path) -> Path:
        g = base / cgroups.group_name()
        g.mkdir()
        return g

    def _take(self, base: Path) -> Path:
        """A pids or freezer group: one kept from an earlier bot of this process (empty, thawed), or a new one."""
        kept = cgroups.pool().get(base)
        if kept:
            g = kept.pop()
        else:
            g = self._mkgroup(base)
            if base == self.caps.pids_dir:
                cgroups.PIDS_MAX[g] = "max"  # a new group's
        self._keepable.append(g)
        return g

    def _give(self, g: Path) -> bool:
        """Keep the empty group ``g`` for the next bot; False if it is to be removed."""
        if g not in self._keepable or (self.frozen and g == self.freezer_group and not self._thawed_empty()):
            return False
        kept = cgroups.pool().setdefault(g.parent, [])
        if len(kept) >= cgroups.POOL_SIZE:
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
            if not (caps.minimal and cgroups.PIDS_MAX.get(g) == value):
                cgroups.PIDS_MAX.pop(g, None)
                cgroups.write(f"{g}/pids.max", value)
                cgroups.PIDS_MAX[g] = value
        share = cgroups.thread_share()
        if share is not None and caps.cpu_version == "v2" and caps.cpu_dir is not None:
            self._cap_cpu(caps.cpu_dir, share)
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
        if cgroups.CPUSET.get(g) == str(cpu):
            self.cpuset_group = g
            return
        cgroups.CPUSET.pop(g, None)
        try:
            if caps.cpuset_version == "v1" and not cgroups.CPUSET_MEMS.get(g):
                # (a v1 cpuset takes no process until it has memory nodes: its parent's)
                mems = (g.parent / "cpuset.mems").read_text().strip()
                cgroups.write(f"{g}/cpuset.mems", mems)
                cgroups.CPUSET_MEMS[g] = mems
            cgroups.write(f"{g}/cpuset.cpus", str(cpu))
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
        cgroups.CPUSET[g] = str(cpu)
        self.cpuset_group = g

    def environment(self, argv: list[str]) -> dict[str, str]:
        """The bot's whole environment, built from nothing (:func:`environment`) with the
        challenge's ``env`` and then the bot's own."""
        return environment(argv, self.limits.env, self.env)

    def _cap_cpu(self, base: Path, share: float) -> None:
        """The bot's own group capped at ``share`` of a core (cgroup v2's cpu.max), whatever it starts."""
        shared = [x for x in (self.group, self.pids_group) if x is not None and x.parent == base]
        g = shared[0] if shared else self._mkgroup(base)
        if g in self._keepable:
            self._keepable.remove(g)  # (not kept for a next bot: its cpu.max is this one's)
        self.quota_group = g
        cgroups.write_cpu_quota(g, share)

    def _groups(self) -> list[Path]:
        return [g for g in dict.fromkeys((self.group, self.pids_group, self.freezer_group, self.cpuset_group,
                                          self.quota_group))
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
                cgroups.write(f"{g}/cgroup.freeze", "1" if frozen else "0")
            else:
                cgroups.write(f"{g}/freezer.state", "FROZEN" if frozen else "THAWED")
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
        if self.caps.files and folder_copied(Path(folder)):
            # Its folder cannot be id-mapped: the bot runs as its uid over a copy owned by it.
            user = self.caps.user
            assert user is not None  # (folder_copied: the bots run as a uid of their own)
            real = Path(folder).resolve()
            self.copied = (copies.copy_for(real, self.writable, (user, user)), real)
        # Under the C init the options are the same for every game of a bot in this process but
        # the prepared root's fd (checked by prepared_root each time): built once, not per game.
        # (Of the command they depend on its program only (_exposed): not on a game's arguments.)
        key = (argv[0] if argv else None, folder, self.copied, tuple(readable), self.writable, self.cpu,
               (self.group, self.pids_group, self.freezer_group, self.cpuset_group, self.quota_group),
               tuple(self._rlimits()), self.limits.disk_mb, self.limits.env, self.limits.network, self.env,
               self.reuse_root, os.getpid(), os.environ.get("PATH", ""), os.environ.get("KOTHKIT_JAIL_REUSE"))
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
        if self.copied is not None:
            opts.append(f"source={self.copied[0]}")
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
        shown = [] if self.copied is None else [str(self.copied[0])]
        base += [f"source={p}" for p in shown]
        return base, [str(folder), *shown, *keeps]

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
        return g is not None and cgroups.refused_forks(g) > cgroups.PIDS_REFUSED.get(g, 0)

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

    def kill_all(self, timeout: float = cgroups.KILL_WAIT, reaped: bool = False) -> bool:
        """Kill every process left in the bot's cgroups; True once they are empty
        (:func:`kothkit.procs.cgroups.kill_groups`).

        ``reaped``: the leader exited by itself (not killed by a signal).  Under the C init that
        means the groups are empty without reading them: its leader exits by itself only before
        it forks the init (no bot yet) or after it reaped the init, and once the init of a PID
        namespace is reaped every process of the namespace is gone (the kernel kills them and
        waits for them as the init exits); only the bot's processes, all in its namespace, join
        its groups.  A leader killed by a signal (ours after the grace, the bot's own, which the
        leader passes on, or anyone's) and a frozen group are checked as before."""
        groups = self._groups()
        if not groups or (reaped and self.c_init and not self.frozen) or not cgroups.listed(groups):
            return True  # the usual end: the bot's PID namespace died with its init
        self.thaw()  # a frozen process does not die of SIGKILL until it is thawed
        return cgroups.kill_groups(groups, self.pids_group, timeout)

    def teardown(self, reaped: bool = False, keep: bool = True) -> None:
        """Empty the bot's groups and keep or remove them, ``reaped``: see :meth:`kill_all`; then
        what a writable bot left in the copy of its folder goes back to its folder, with ``keep``
        (not for a process ended between games, whose copy went back after its last game: another
        worker's copy of the same bot may have written the folder since)."""
        groups = self._groups()
        empty = not groups or self.kill_all(reaped=reaped)
        for g in groups:
            if empty and g == self.pids_group and g in self._keepable:
                cgroups.PIDS_REFUSED[g] = cgroups.refused_forks(g)  # the next bot's count starts there
            if empty and self._give(g):
                continue
            cgroups.remove_group(g)
        self.group = self.pids_group = self.freezer_group = self.cpuset_group = self.quota_group = None
        self._keepable.clear()
        if keep:
            self.keep_copy()
        self.copied = None

    def refresh_copy(self) -> bool:
        """A writable bot's copy of its folder, if it runs over one, brought up to date with its
        folder before a game of a bot whose process outlives a game (an isolated function host):
        its last game may have been played by another worker's host of the same bot, over a copy of
        its own.  False if it cannot be (too deep, too many files): the copy is gone then, and the
        caller ends the bot (its next start copies afresh, or says why it cannot)."""
        if self.copied is None or not self.writable:
            return True
        user = self.caps.user
        assert user is not None  # (a copy is made only for a bot that runs as a uid of its own)
        try:
            return copies.copy_for(self.copied[1], True, (user, user)) == self.copied[0]
        except OSError:
            return False

    def keep_copy(self) -> None:
        """What a writable bot left in the copy of its folder, if it runs over one, back in its
        folder now: at its teardown, and after each game of a bot whose process outlives a game
        (an isolated function host, kothkit.playing.seats.HostSeat), so that its folder holds what
        its finished games wrote even if the judge is killed later."""
        if self.copied is not None and self.writable:
            try:
                copies.copy_back(*self.copied)
            except OSError:
                pass  # (nested too deep, too many files: its folder keeps what was copied back)

