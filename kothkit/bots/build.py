"""The build step: compile a bot once before a tournament, cached by its content hash.

A bot.toml may give ``build`` (e.g. ``["gcc", "-O2", "-o", "brain", "brain.c"]``).
It runs in the bot's folder; success is stamped in ``.kothkit-build/stamp`` with
the hash of the bot's sources, so the next run skips it until a source changes.
A failed build returns a :class:`BotError` carrying the compiler's output, and
that bot sits out.

A build is the bot's code too (and a stateful bot can rewrite its own build
step, or a submission be a compile bomb such as ``#include "/dev/zero"``): it
runs jailed like the bot (:class:`kothkit.procs.contain.Jail`: its own
namespaces, no network, the bot's user, its folder the only one it can write,
an environment built from nothing), under caps of its own: a memory cgroup of
:data:`BUILD_MEMORY_MB` (an OOM kill is said as such), a process cap of
:data:`BUILD_PROCESSES` and a time limit, after which it is killed with
everything it started; its output is read as it comes and kept up to
:data:`OUTPUT_CAP`.  It runs on one core (the worker's, or one claimed as a judge claims
its cores), and may add at most :data:`BUILD_OUTPUT_MB` to its folder (no file bigger, the
folder no more): a 61-byte source that makes a 262 MB binary fails.  What a failed or
oversized build made is removed; what is left is defused (:mod:`kothkit.procs.defuse`).
"""

from __future__ import annotations

import os
import select
import shutil
import stat
import subprocess
import time
from pathlib import Path

import attrs

from kothkit.bots.folders import BotError, BotSpec, folder_bytes, printable, read_small
from kothkit.limits import Limits
from kothkit.procs.contain import Jail
from kothkit.procs.cores import Claim, claim
from kothkit.procs.defuse import OWNER, defuse, own

BUILD_TIMEOUT = 300.0
#: Real memory (MiB) a build and all it starts may use; over it, the build fails with "memory".
BUILD_MEMORY_MB = 1024
#: Processes (tasks) a build may run at once (make -j, the compiler's passes).
BUILD_PROCESSES = 256
#: Bytes of a build's output (stdout and stderr) kept for its error message; the rest is counted.
OUTPUT_CAP = 32 * 1024
#: MiB a build may add to its bot's folder (binaries, objects), and the most any file it writes may hold.
BUILD_OUTPUT_MB = 64
#: Entries of a folder listed before a build, to remove what a failed build made (past it: nothing removed).
MAX_LISTED = 100_000
STAMP = Path(".kothkit-build") / "stamp"


def _stamp_hash(spec: BotSpec) -> str | None:
    # The bot may have planted anything here (a symlink to a device, a FIFO): read only a small regular file.
    try:
        return read_small(spec.path / STAMP, None, 1024).strip()
    except (OSError, BotError):
        return None


def _write_stamp(spec: BotSpec) -> None:
    """Write the stamp without following a symlink the bot planted (the judge may be root)."""
    d = spec.path / STAMP.parent
    try:
        os.mkdir(d)
    except FileExistsError:
        pass
    dfd = os.open(d, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        fd = os.open(STAMP.name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_NONBLOCK
                     | os.O_CLOEXEC, 0o644, dir_fd=dfd)
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                os.write(fd, (spec.hash + "\n").encode())
                if os.geteuid() == 0:  # as what the build made: nothing in the folder is root's
                    os.fchown(fd, OWNER, OWNER)
                    os.fchown(dfd, OWNER, OWNER)
        finally:
            os.close(fd)
    finally:
        os.close(dfd)


def is_built(spec: BotSpec) -> bool:
    if _stamp_hash(spec) != spec.hash:
        return False
    # A stamp without its output (a copied folder, a cleaned checkout) is no build.
    cmd = spec.command[0] if spec.command else ""
    return not ("/" in cmd and not Path(cmd).is_absolute()) or (spec.path / cmd).exists()


def _found(cmd: str, folder: Path) -> bool:
    return (folder / cmd).exists() if "/" in cmd and not os.path.isabs(cmd) else \
        os.path.exists(cmd) if "/" in cmd else shutil.which(cmd) is not None


@attrs.frozen
class Ran:
    """How a jailed build ended."""

    #: Its exit code, or None when it ran past its time and was killed.
    code: int | None
    #: Its first OUTPUT_CAP bytes of output (stdout and stderr).
    output: bytes
    #: Bytes of output dropped over the cap.
    dropped: int
    #: The kernel killed something of it for memory (its memory cgroup's cap).
    oom: bool = False
    #: The most real memory it used at once (bytes, its memory cgroup's peak), or None: no memory cgroup.
    peak: int | None = None


def _one_core() -> tuple[int | None, Claim | None]:
    """The core a build runs on: the process's own when it is held to one (an executor's worker),
    else one claimed as a judge claims its cores (released when the build is over)."""
    allowed = os.sched_getaffinity(0)
    if len(allowed) == 1:
        return next(iter(allowed)), None
    got = claim(1)
    return got.cores[0], got


def run_jailed(argv: list[str], folder: Path, timeout: float, memory_mb: int = BUILD_MEMORY_MB,
               processes: int = BUILD_PROCESSES, env: tuple[tuple[str, str], ...] = (),
               output_mb: int = BUILD_OUTPUT_MB) -> Ran:
    """Run ``argv`` in ``folder`` under the bot's jail (its folder writable), with ``memory_mb``
    of real memory, ``processes`` tasks, files of at most ``output_mb`` and ``timeout`` seconds, on
    one core.  Whatever it started is dead when this returns."""
    cpu, held = _one_core()
    try:
        return _run_jailed(argv, folder, timeout, memory_mb, processes, env, output_mb, cpu)
    finally:
        if held is not None:
            held.release()


def _run_jailed(argv: list[str], folder: Path, timeout: float, memory_mb: int, processes: int,
                env: tuple[tuple[str, str], ...], output_mb: int, cpu: int | None) -> Ran:
    jail = Jail(Limits(memory_mb=memory_mb, processes=processes, file_size_mb=output_mb), cpu=cpu, writable=True,
                env=env)
    own(folder)  # what the build writes is an unprivileged user's, never root's (kothkit.procs.defuse)
    jail.setup()
    kept = bytearray()
    dropped = 0
    proc = None
    code: int | None = None
    try:
        wrapped = jail.wrap(list(argv), folder)
        proc = subprocess.Popen(wrapped, cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True, close_fds=True,
                                preexec_fn=jail.preexec if jail.needs_preexec() else None)
        assert proc.stdout is not None  # a pipe
        fd = proc.stdout.fileno()
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                try:
                    code = proc.wait(timeout=max(0.0, end - time.monotonic()))
                except subprocess.TimeoutExpired:
                    pass
                break
            room = OUTPUT_CAP - len(kept)
            kept += chunk[:max(room, 0)]
            dropped += max(0, len(chunk) - max(room, 0))
        return Ran(code, bytes(kept), dropped, oom=jail.oom_killed(), peak=jail.memory_peak())
    finally:
        if proc is not None:
            try:
                os.killpg(proc.pid, 9)  # the leader, unreaped: its group cannot be reused yet
            except OSError:
                pass
            proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        jail.teardown()  # every process left in its cgroups
        defuse(folder)  # no set-id bit or world-write left behind, nothing root's


def build(spec: BotSpec, timeout: float = BUILD_TIMEOUT, memory_mb: int = BUILD_MEMORY_MB,
          processes: int = BUILD_PROCESSES) -> tuple[bool, BotError | None]:
    """Build ``spec`` if needed: (built_now, error)."""
    if not spec.build or is_built(spec):
        return False, None
    where = spec.origin or spec.path
    if not _found(spec.build[0], spec.path):
        return False, BotError(where, f"build command not found: {printable(spec.build[0])!r}")
    before = _listed(spec.path)
    size = folder_bytes(spec.path, 1 << 62)
    try:
        ran = run_jailed(list(spec.build), spec.path, timeout, memory_mb, processes, spec.env)
    except OSError as e:
        return False, BotError(where, f"cannot run the build: {e}")
    error = _outcome(spec, ran, timeout, memory_mb, where, size)
    if error is not None:
        _remove_new(spec.path, before)  # a failed build's objects and binaries are kept nowhere
        return False, error
    try:
        _write_stamp(spec)
    except OSError as e:
        return False, BotError(where, f"cannot write {STAMP} after the build: {e.strerror}")
    return True, None


def _outcome(spec: BotSpec, ran: Ran, timeout: float, memory_mb: int, where: Path, size: int) -> BotError | None:
    """The build's error, if it failed (or made more than BUILD_OUTPUT_MB); None if it succeeded."""
    code = ran.code
    text = printable(ran.output.decode("utf-8", "replace").strip(), keep_newlines=True)
    if ran.dropped:
        text += f"\n[... {ran.dropped} more bytes of build output dropped]"
    if ran.oom:
        return BotError(where, f"build failed (memory: it went over its {memory_mb} MiB, build_memory_mb; "
                               f"killed, with all it started)" + (f":\n{text}" if text else ""))
    if code is None:
        return BotError(where, f"build took longer than {timeout:g} s (killed, with all it started)"
                               + (f":\n{text}" if text else ""))
    if code != 0:
        return BotError(where, f"build failed ({printable(' '.join(spec.build or ()))[:200]} exited with {code}):"
                               f"\n{text}" + (f" (no file it writes may hold more than {BUILD_OUTPUT_MB} MiB)"
                                              if code == -25 or "File too large" in text else ""))
    cap = BUILD_OUTPUT_MB << 20
    if folder_bytes(spec.path, size + cap) - size > cap:
        return BotError(where, f"build failed: it made more than {BUILD_OUTPUT_MB} MiB of files (removed)")
    return None


def _listed(folder: Path) -> set[str] | None:
    """The relative paths in ``folder`` (links not followed), or None past MAX_LISTED entries."""
    found: set[str] = set()
    for top, dirs, files in os.walk(folder):
        for name in dirs + files:
            found.add(os.path.relpath(os.path.join(top, name), folder))
            if len(found) > MAX_LISTED:
                return None
    return found


def _remove_new(folder: Path, before: set[str] | None) -> None:
    """Remove what is in ``folder`` now and was not in ``before`` (a failed build's output); links
    are removed, never followed."""
    if before is None:
        return
    now = _listed(folder) or set()
    for rel in sorted(now - before, key=len):
        path = folder / rel
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
        except FileNotFoundError:
            pass  # inside a folder removed before it
        except OSError:
            pass
