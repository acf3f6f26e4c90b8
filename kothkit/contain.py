"""Containment: what the operating system enforces on a bot process beyond its pipes.

Probed once per process (``capabilities()``): CPU pinning, resource limits
(setrlimit), a memory cgroup (v2, or v1 as on many container hosts) that caps
real memory and tells an OOM kill apart from a crash.  Each bot gets a
:class:`Jail` that prepares its launch (a ``preexec`` run in the child before
exec) and afterwards says whether the kernel killed it for memory.

Why a cgroup and not RLIMIT_AS: address-space limits break node and the JVM,
which reserve far more virtual memory than they use; a memory cgroup counts
only pages really used.  Without a writable cgroup we fall back to RLIMIT_DATA
(private writable memory: node and the JVM still start) and say so.
"""

from __future__ import annotations

import os
import resource
import signal
import time
import uuid
from functools import cache
from pathlib import Path

import attrs

from kothkit.limits import Limits

MiB = 1 << 20


@attrs.frozen
class Capabilities:
    #: A writable memory cgroup directory to create per-bot groups in, or None.
    cgroup_dir: Path | None
    #: "v2", "v1" or None.
    cgroup_version: str | None
    cores: tuple[int, ...]

    def describe(self) -> list[str]:
        lines = []
        if self.cgroup_version:
            lines.append(f"memory cap: cgroup {self.cgroup_version} ({self.cgroup_dir}), real memory, OOM kill -> verdict 'memory'")
        else:
            lines.append("memory cap: no writable cgroup; RLIMIT_DATA instead (a bot over the cap crashes with an allocation failure)")
        lines.append(f"cpu pinning: cores {list(self.cores)}")
        return lines


def _own_cgroup_v1_memory() -> Path | None:
    root = Path("/sys/fs/cgroup/memory")
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, ctrls, path = line.split(":", 2)
            if "memory" in ctrls.split(","):
                d = root / path.lstrip("/")
                return d if d.is_dir() else (root if root.is_dir() else None)
    except OSError:
        return None
    return None


def _own_cgroup_v2() -> Path | None:
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            if line.startswith("0::"):
                base = Path("/sys/fs/cgroup")
                d = base / line[3:].lstrip("/")
                if (d / "cgroup.controllers").is_file() and "memory" in (d / "cgroup.subtree_control").read_text():
                    return d
    except OSError:
        return None
    return None


def _probe_dir(d: Path) -> bool:
    t = d / f"kothkit-probe-{uuid.uuid4().hex[:8]}"
    try:
        t.mkdir()
        t.rmdir()
        return True
    except OSError:
        return False


@cache
def capabilities() -> Capabilities:
    cores = tuple(sorted(os.sched_getaffinity(0)))
    if os.environ.get("KOTHKIT_NO_CGROUP") != "1":
        d2 = _own_cgroup_v2()
        if d2 is not None and _probe_dir(d2):
            return Capabilities(cgroup_dir=d2, cgroup_version="v2", cores=cores)
        d1 = _own_cgroup_v1_memory()
        if d1 is not None and _probe_dir(d1):
            return Capabilities(cgroup_dir=d1, cgroup_version="v1", cores=cores)
    return Capabilities(cgroup_dir=None, cgroup_version=None, cores=cores)


@attrs.define(eq=False)
class Jail:
    """The OS-side limits of one bot process for one game."""

    limits: Limits
    cpu: int | None = None
    caps: Capabilities = attrs.field(factory=capabilities)
    group: Path | None = None

    def setup(self) -> None:
        """Create the bot's cgroup (if a memory cap is asked and a cgroup is writable)."""
        if self.limits.memory_mb is None or self.caps.cgroup_dir is None:
            return
        g = self.caps.cgroup_dir / f"kothkit-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        g.mkdir()
        cap = self.limits.memory_mb * MiB
        if self.caps.cgroup_version == "v2":
            (g / "memory.max").write_text(str(cap))
            (g / "memory.swap.max").write_text("0") if (g / "memory.swap.max").exists() else None
        else:
            (g / "memory.limit_in_bytes").write_text(str(cap))
            sw = g / "memory.memsw.limit_in_bytes"
            if sw.exists():
                try:
                    sw.write_text(str(cap))  # no swapping around the cap
                except OSError:
                    pass
        self.group = g

    def preexec(self) -> None:
        """Runs in the child between fork and exec: join the cgroup, pin, set rlimits."""
        if self.group is not None:
            with open(self.group / "cgroup.procs", "w") as f:
                f.write(str(os.getpid()))
        elif self.limits.memory_mb is not None:
            cap = self.limits.memory_mb * MiB
            resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))
        lim = self.limits
        if lim.cpu_seconds is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (lim.cpu_seconds, lim.cpu_seconds + 1))
        if lim.file_size_mb is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (lim.file_size_mb * MiB,) * 2)
        if lim.open_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (lim.open_files,) * 2)
        if lim.processes is not None:
            # RLIMIT_NPROC counts the user's processes, so it is only meaningful per-uid;
            # it still stops a fork bomb from taking the machine down.
            resource.setrlimit(resource.RLIMIT_NPROC, (lim.processes,) * 2)

    def needs_preexec(self) -> bool:
        lim = self.limits
        return bool(self.group or lim.memory_mb or lim.cpu_seconds or lim.file_size_mb
                    or lim.open_files or lim.processes)

    def started(self, pid: int) -> None:
        """Right after spawn: pin the bot to its core (done here, not in preexec, so that
        spawning can use vfork; a child forked in the first microseconds may escape the pin)."""
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

    def kill_all(self) -> None:
        """Kill every process left in the cgroup (children that left the process group)."""
        if self.group is None:
            return
        procs = self.group / "cgroup.procs"
        for _ in range(50):
            try:
                pids = [int(p) for p in procs.read_text().split()]
            except OSError:
                return
            if not pids:
                return
            for p in pids:
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.002)

    def teardown(self) -> None:
        if self.group is None:
            return
        self.kill_all()
        for _ in range(100):
            try:
                self.group.rmdir()
                break
            except OSError:
                time.sleep(0.005)
        self.group = None
