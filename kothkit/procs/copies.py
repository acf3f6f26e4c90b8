"""A bot's folder copied for its jail, where the folder's file system cannot be id-mapped.

A root judge runs its bots as an unprivileged uid (:data:`kothkit.procs.probe.BOT_UID`), their
folder id-mapped to it (jailinit.c).  Some file systems take no id-mapping (tmpfs before Linux 6.3,
9p, NFS...): there the bot runs as that uid all the same, over a private copy of its folder owned by
it (:func:`copy_for`), which the init mounts at the folder's own path (``source=``).  A read-only
bot's copy is made once per judge process; a stateful bot's (and a build's) is brought up to date
before each game and copied back after it (:func:`copy_back`), so that its folder holds what it
kept, as where the folder is id-mapped (an isolated function host, which outlives a game, too:
kothkit.procs.contain.Jail.refresh_copy and keep_copy).

Both ways the walk (:func:`mirror`) goes by descriptors and never follows a symbolic link (one a bot
planted is copied as a link, never opened), stops at another file system's mount point, copies only
folders, regular files and links (nothing of a FIFO, a socket or a device), gives what it writes to
one owner, and leaves no set-id bit or world-write (:data:`kothkit.procs.defuse.STRIPPED`).  The
copies live in a folder of the judge's scratch (TMPDIR) only its user may enter, removed when the
judge process exits; a killed judge's are removed by the next judge (:func:`sweep_copies`).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
import threading
import time
import uuid
from pathlib import Path

from kothkit.procs.cgroups import group_name, stale
from kothkit.procs.defuse import STRIPPED

#: Deepest folder nesting copied, and most entries (beyond them a copy fails: the bot's start does,
#: or its folder keeps what the last complete copy-back left).  A bot's folder holds far fewer
#: (kothkit.bots.folders.MAX_DEPTH and MAX_FILES).
MAX_DEPTH = 64
MAX_ENTRIES = 100_000
#: Most bytes of data one copy writes (holes are kept as holes: a sparse file costs no more than
#: in the bot's copy).  A stateful bot's folder over its disk_mb loses its next game anyway.
MAX_BYTES = 2 << 30
#: A file modified less than this long ago (ns) is copied even if its size and time match its copy's:
#: a file's time is the kernel's coarse clock (a tick of up to 10 ms), and a bot's file written twice
#: within a tick, in its copy and then by another worker's copy of the same bot, keeps its size and
#: time (a counter's "1" then "2"); a walk of the folder skipping it would lose the second write.
FRESH_NS = 2_000_000_000
#: The prefix of a judge process's folder of copies in TMPDIR (then its owner's name, see
#: :func:`kothkit.procs.cgroups.group_name`, so that a dead judge's are told apart).
HOME_PREFIX = "kothkit-copies."

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_LOCK = threading.Lock()


def _after_fork() -> None:
    global _LOCK
    _LOCK = threading.Lock()  # (a worker forked while another thread copied: not held in the worker)


os.register_at_fork(after_in_child=_after_fork)
#: (pid, folder, device, inode) -> its copy, made by this process.
_COPIES: dict[tuple[int, str, int, int], Path] = {}
_HOME: dict[int, Path] = {}


def mirror(src: Path, dst: Path, owner: tuple[int, int]) -> None:
    """Make folder ``dst`` hold what folder ``src`` holds (see the module's docstring), what it
    writes owned by ``owner`` (uid, gid).  Files whose size, time, mode and owner already match are
    not copied again (unless modified in the last :data:`FRESH_NS`).  An OSError beyond
    :data:`MAX_DEPTH`, :data:`MAX_ENTRIES` or :data:`MAX_BYTES`."""
    s = os.open(src, _DIR)
    try:
        d = os.open(dst, _DIR)
        try:
            top = os.fstat(s)
            _mirror(s, d, top.st_dev, owner, 0, [0, 0])
            os.fchown(d, *owner)
            os.fchmod(d, stat.S_IMODE(top.st_mode) & ~STRIPPED)
        finally:
            os.close(d)
    finally:
        os.close(s)


def _mirror(s: int, d: int, dev: int, owner: tuple[int, int], depth: int, seen: list[int]) -> None:
    """``d`` made to hold what ``s`` holds; ``seen``: the entries and bytes copied so far."""
    if depth > MAX_DEPTH:
        raise OSError(errno.ELOOP, f"folders nested more than {MAX_DEPTH} deep")
    names = os.listdir(s)
    seen[0] += len(names)
    if seen[0] > MAX_ENTRIES:
        raise OSError(errno.EFBIG, f"more than {MAX_ENTRIES} files and folders")
    wanted = set(names)
    fresh = time.time_ns() - FRESH_NS
    for name in os.listdir(d):
        if name not in wanted:
            _remove(d, name)
    for name in names:
        try:
            st = os.stat(name, dir_fd=s, follow_symlinks=False)
        except FileNotFoundError:
            continue
        old = _lstat(d, name)
        kind = stat.S_IFMT(st.st_mode)
        if st.st_dev != dev or kind not in (stat.S_IFDIR, stat.S_IFREG, stat.S_IFLNK):
            if old is not None:  # (another file system mounted there, a FIFO, a device: not copied)
                _remove(d, name)
            continue
        if old is not None and stat.S_IFMT(old.st_mode) != kind:
            _remove(d, name)
            old = None
        mode = stat.S_IMODE(st.st_mode) & ~STRIPPED
        if kind == stat.S_IFDIR:
            if old is None:
                os.mkdir(name, 0o700, dir_fd=d)
            s2 = os.open(name, _DIR, dir_fd=s)
            try:
                if os.fstat(s2).st_ino != st.st_ino:
                    continue  # swapped meanwhile
                d2 = os.open(name, _DIR, dir_fd=d)
                try:
                    _mirror(s2, d2, dev, owner, depth + 1, seen)
                    os.fchown(d2, *owner)
                    os.fchmod(d2, mode)
                finally:
                    os.close(d2)
            finally:
                os.close(s2)
        elif kind == stat.S_IFREG:
            if old is None or st.st_mtime_ns > fresh or (
                    old.st_size, old.st_mtime_ns, stat.S_IMODE(old.st_mode), old.st_uid, old.st_gid) != (
                    st.st_size, st.st_mtime_ns, mode, *owner):
                _copy_file(s, d, name, st, mode, owner, seen)
        else:
            target = os.readlink(name, dir_fd=s)
            if old is not None and os.readlink(name, dir_fd=d) == target and (old.st_uid, old.st_gid) == owner:
                continue
            tmp = _temp_name()
            os.symlink(target, tmp, dir_fd=d)
            os.chown(tmp, *owner, dir_fd=d, follow_symlinks=False)
            os.replace(tmp, name, src_dir_fd=d, dst_dir_fd=d)


def _copy_file(s: int, d: int, name: str, st: os.stat_result, mode: int, owner: tuple[int, int],
               seen: list[int]) -> None:
    # O_NOFOLLOW | O_NONBLOCK: a link swapped in is refused, a FIFO does not block; then checked.
    src = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=s)
    try:
        now = os.fstat(src)
        if not stat.S_ISREG(now.st_mode) or now.st_ino != st.st_ino:
            return
        tmp = _temp_name()
        out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=d)
        try:
            _copy_data(src, out, now.st_size, seen)
            os.fchown(out, *owner)
            os.fchmod(out, mode)
            os.utime(out, ns=(now.st_atime_ns, now.st_mtime_ns))
        except BaseException:
            os.close(out)
            os.unlink(tmp, dir_fd=d)
            raise
        os.close(out)
        os.replace(tmp, name, src_dir_fd=d, dst_dir_fd=d)
    finally:
        os.close(src)


def _copy_data(src: int, out: int, size: int, seen: list[int]) -> None:
    """The data of ``src`` written at the same offsets of ``out``, its holes left holes."""
    pos = 0
    while pos < size:
        try:
            start = os.lseek(src, pos, os.SEEK_DATA)
        except OSError as e:
            if e.errno == errno.ENXIO:
                break  # a hole to the end
            raise
        end = os.lseek(src, start, os.SEEK_HOLE)
        seen[1] += end - start
        if seen[1] > MAX_BYTES:
            raise OSError(errno.EFBIG, f"more than {MAX_BYTES >> 20} MiB")
        os.lseek(src, start, os.SEEK_SET)
        os.lseek(out, start, os.SEEK_SET)
        left = end - start
        while left > 0:
            n = os.sendfile(out, src, None, min(left, 1 << 20))
            if n == 0:
                break
            left -= n
        pos = end
    os.ftruncate(out, size)


def _lstat(d: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=d, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _remove(d: int, name: str) -> None:
    st = _lstat(d, name)
    if st is None:
        return
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(name, dir_fd=d)  # (by descriptors: never follows a link)
    else:
        os.unlink(name, dir_fd=d)


def _temp_name() -> str:
    return f".kothkit-copy-{uuid.uuid4().hex[:12]}"


def _home() -> Path:
    """This process's folder of copies (a forked worker makes its own)."""
    pid = os.getpid()
    home = _HOME.get(pid)
    if home is None:
        _HOME.clear()
        _COPIES.clear()
        sweep_copies()
        home = Path(tempfile.gettempdir()) / f"{HOME_PREFIX}{group_name()}"
        os.mkdir(home, 0o700)
        _HOME[pid] = home
        import atexit
        import multiprocessing.util

        atexit.register(release_copies)
        # A pool worker leaves by os._exit, after running its multiprocessing finalizers.
        multiprocessing.util.Finalize(None, release_copies, exitpriority=0)
    return home


def copy_for(folder: Path, writable: bool, owner: tuple[int, int]) -> Path:
    """The copy of ``folder`` its jail mounts in its place, owned by ``owner``: made at the bot's
    first start in this process; a ``writable`` bot's brought up to date with its folder at each."""
    st = os.stat(folder)
    key = (os.getpid(), str(folder), st.st_dev, st.st_ino)
    with _LOCK:
        copy = _COPIES.get(key)
        if copy is not None and not writable:
            return copy
        if copy is None:
            copy = _home() / uuid.uuid4().hex[:12]
            os.mkdir(copy, 0o700)
        try:
            mirror(folder, copy, owner)
        except OSError:
            _COPIES.pop(key, None)
            shutil.rmtree(copy, ignore_errors=True)
            raise
        _COPIES[key] = copy
        return copy


def copy_back(copy: Path, folder: Path) -> None:
    """What a writable bot left in its copy, back in its folder (owned by the folder's owner)."""
    st = os.stat(folder)
    with _LOCK:
        mirror(copy, folder, (st.st_uid, st.st_gid))


def release_copies() -> None:
    """Remove this process's copies (at its exit)."""
    home = _HOME.pop(os.getpid(), None)
    if home is not None:
        _COPIES.clear()
        shutil.rmtree(home, ignore_errors=True)


def sweep_copies() -> None:
    """Remove the folders of copies of judge processes that are gone (killed: no exit to do it)."""
    base = Path(tempfile.gettempdir())
    try:
        found = [p for p in base.iterdir() if p.name.startswith(HOME_PREFIX)]
    except OSError:
        return
    for p in found:
        try:
            st = os.lstat(p)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and stale(p.name.removeprefix(HOME_PREFIX)):
            shutil.rmtree(p, ignore_errors=True)
