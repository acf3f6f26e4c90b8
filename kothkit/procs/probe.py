"""What the machine offers the jail, probed once per judge process, and what it says of it.

* :func:`capabilities` -- the jail's :class:`Capabilities` here: the cgroups the judge may make
  groups in (:mod:`kothkit.procs.cgroups`), and what kothkit's init achieves (its probe run in a
  scratch layout: namespaces, file confinement, the bots' uid, capabilities, the seccomp filter,
  the network namespace);
* the containment line (:meth:`Capabilities.summary`, printed by ``kothkit run`` and ``serve``)
  and its long form (:meth:`Capabilities.describe`);
* :func:`jail_gaps` -- what a host taking strangers' code must have and this one lacks, each with
  why and how to get it (``kothkit serve`` refuses to start on any); :func:`fair_cpu`, how a bot is
  kept from its opponent's CPU;
* the init itself: jailinit.c compiled once per machine (:func:`compiled_helper`), else jailinit.py.

The jail that uses all this is :class:`kothkit.procs.contain.Jail`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import attrs

from kothkit.procs import cgroups
from kothkit.procs.copies import mirror

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
    #: Bots run as ``user`` over a copy of their folder owned by it (:mod:`kothkit.procs.copies`): the
    #: probe's folder, in the judge's scratch (TMPDIR), could not be id-mapped (or KOTHKIT_JAIL_COPY=1).
    #: (Each bot's folder is tried by :func:`folder_copied`.)
    copied: bool = False
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
        over = " over a copy of their folder (it cannot be id-mapped here)" if self.copied else ""
        who = (f"bots run as uid {self.user}{over}" if self.user is not None
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


def sweep_cgroups() -> None:
    """:func:`cgroups.sweep` the cgroup folders kothkit uses here (a judge does at its start and end)."""
    caps = capabilities()
    for d in {d for d in (caps.cgroup_dir, caps.pids_dir, caps.freezer_dir, caps.cpuset_dir) if d is not None}:
        cgroups.sweep(d)


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
    copied: bool = False
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
        # (files, as the bots' uid, filtered, over a copy of the folder): a root judge's bots run
        # over a copy where the folder cannot be id-mapped (kothkit.procs.copies), and no init but
        # the C one changes the bots' uid.
        forced = os.environ.get("KOTHKIT_JAIL_COPY") == "1"
        copyable = not userns and compiled_helper() is not None
        attempts = [(True, not userns, True, forced and copyable)]
        attempts += [(True, True, True, True)] if copyable and not forced else []
        attempts += [(True, False, True, False), (True, False, False, False), (False, False, False, False)]
        for files, as_user, filtered, copied in attempts:
            opts = [f"folder={me}", f"parent={os.getpid()}", "probe=1", f"outside={tmp}", f"sibling={other}"]
            opts += ["userns=1"] if userns else []
            opts += ["fs=1", "folder_rw=1", f"hide={bots}"] if files else []
            opts += [f"user={BOT_UID}"] if as_user else []
            written = me
            if copied:
                written = tmp / "copy"
                written.mkdir(mode=0o700, exist_ok=True)
                mirror(me, written, (BOT_UID, BOT_UID))
                opts.append(f"source={written}")
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
            got: dict[str, Any] = dict(namespaces=True, userns=userns, network=net, copied=copied,
                       user=int(report["uid"]) if as_user and report.get("uid") == str(BOT_UID) else None,
                       no_caps=report.get("caps", "?").strip("0") == "" and report.get("nnp") == "1",
                       seccomp=filtered and report.get("seccomp") == "2" and report.get("handle") == "EPERM")
            if not files:
                return _Probed(files=False, why=why or "file confinement unavailable", **got)
            own = written / ".kothkit-probe"
            confined = (own.exists() and not (tmp / ".kothkit-probe").exists()
                        and report.get("sibling_hidden") == "True")
            if confined:
                # The C init builds a minimal root; the Python one makes the machine read-only.
                return _Probed(files=True, minimal=compiled_helper() is not None, why="", **got)
            why = "the probe could write outside its folder"
        return _Probed(userns=userns, why=why or "unshare failed")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)



@cache
def capabilities() -> Capabilities:
    cores = tuple(sorted(os.sched_getaffinity(0)))
    mem = mem_v = pids = pids_v = frz = frz_v = cs = cs_v = cpu = cpu_v = None
    cgroup_why = ""
    if os.environ.get("KOTHKIT_NO_CGROUP") == "1":
        cgroup_why = "disabled by KOTHKIT_NO_CGROUP=1"
    else:
        mem, mem_v = cgroups.usable_cgroup("memory")
        pids, pids_v = cgroups.usable_cgroup("pids")
        if mem_v == "v2" or pids_v == "v2":
            frz, frz_v = (mem if mem_v == "v2" else pids), "v2"  # cgroup.freeze in every group
        else:
            frz, frz_v = cgroups.usable_cgroup("freezer", v2=False)
        cs, cs_v = cgroups.usable_cgroup("cpuset")
        cpu, cpu_v = cgroups.usable_cgroup("cpu")
        for d in {d for d in (mem, pids, frz, cs, cpu) if d is not None}:
            cgroups.sweep(d)
        if mem is None or pids is None:
            cgroup_why = cgroups.v2_setup().why if cgroups.own_v2_dir() is not None else cgroups.v1_why()
    p = _probe_namespaces()
    return Capabilities(cgroup_dir=mem, cgroup_version=mem_v, cores=cores, pids_dir=pids, pids_version=pids_v,
                        namespaces=p.namespaces, files=p.files, userns=p.userns, why=p.why,
                        helper=("C" if compiled_helper() else "Python") if p.namespaces else "",
                        minimal=p.minimal, user=p.user, copied=p.copied, no_caps=p.no_caps, seccomp=p.seccomp,
                        freezer_dir=frz, freezer_version=frz_v, network=p.network, cpuset_dir=cs,
                        cpuset_version=cs_v, cpu_dir=cpu, cpu_version=cpu_v, cgroup_why=cgroup_why)



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


_IDMAPS: dict[int, bool] = {}


def folder_copied(folder: Path) -> bool:
    """Whether the jail runs the bot of ``folder`` over a copy of it (:mod:`kothkit.procs.copies`):
    a root judge's bots run as :data:`BOT_UID` under the C init, and ``folder``'s file system takes
    no id-mapping (tried once per file system and process: the init's probe on the folder itself,
    read-only), or KOTHKIT_JAIL_COPY=1 says to copy (the tests' way to try the copies anywhere)."""
    caps = capabilities()
    if caps.user is None or caps.userns or not caps.minimal:
        return False
    if os.environ.get("KOTHKIT_JAIL_COPY") == "1":
        return True
    try:
        st = os.stat(folder)
        if not stat.S_ISDIR(st.st_mode):  # (a function bot's file: its folder is what is mapped; the
            folder = folder.parent       # init's probe of a file fails, and would say so for its file system)
            st = os.stat(folder)
    except OSError:
        return False  # (its start says what is wrong with it)
    dev = st.st_dev
    if dev not in _IDMAPS:
        opts = [f"folder={folder}", f"parent={os.getpid()}", "probe=1", "fs=1", "folder_rw=0", f"user={BOT_UID}"]
        try:
            done = subprocess.run(helper_command(opts, ["true"]), cwd="/", capture_output=True, text=True,
                                  timeout=20, stdin=subprocess.DEVNULL)
            _IDMAPS[dev] = done.returncode == 0 and f"uid={BOT_UID}" in done.stdout.split()
        except (OSError, subprocess.TimeoutExpired):
            _IDMAPS[dev] = False
    return not _IDMAPS[dev]


def summary(folders: tuple[Path, ...] = ()) -> str:
    """The containment line (:meth:`Capabilities.summary`) for bots whose folders lie in
    ``folders``: it says so when they run over copies (:func:`folder_copied`)."""
    caps = capabilities()
    if not caps.copied and any(folder_copied(Path(f)) for f in folders):
        caps = attrs.evolve(caps, copied=True)
    return caps.summary()


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

