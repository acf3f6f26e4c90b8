"""Nothing privileged leaves a jail: a writable bot folder made harmless before and after its jail.

A build and a stateful bot write their folder.  The jail's seccomp filter already refuses a set-id
bit on anything made inside (chmod, a created file's mode: :mod:`kothkit.procs.jailinit`), and the
folder is mounted nosuid there; but the folder outlives the jail, on the host, where another user of
the machine could run what it holds.  So, around every jail whose folder is writable:

* :func:`own` (before): a root judge gives the folder's root-owned entries to :data:`OWNER`, an
  unprivileged user, so that the C init's id-mapping (the folder's owner is the bot's user inside)
  makes what the bot writes that user's, never root's;
* :func:`defuse` (after): every entry loses its set-uid and set-gid bits and world-write, and
  (a root judge) anything root-owned goes to :data:`OWNER`.

Both walk the folder by descriptors without following a symbolic link (the bot may have planted
one pointing anywhere), and stop at another filesystem's mount point.  :func:`nosuid` says whether
a folder sits on a nosuid, nodev mount (the host side's own guard, docs/hosting.md).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: The unprivileged owner of what a jail wrote, when the judge is root: the bots' user in the jail
#: (nobody), so that the id-mapping of a folder is the identity.
OWNER = 65534
#: Mode bits nothing made by a bot keeps: set-uid, set-gid, world-write.
STRIPPED = stat.S_ISUID | stat.S_ISGID | stat.S_IWOTH


def nosuid(folder: Path) -> bool:
    """Whether ``folder`` is on a mount where set-id bits and devices mean nothing (nosuid, nodev)."""
    try:
        flags = os.statvfs(folder).f_flag
    except OSError:
        return False
    return bool(flags & os.ST_NOSUID) and bool(flags & os.ST_NODEV)


def own(folder: Path) -> int:
    """Before a jail writes ``folder``: its root-owned entries given to :data:`OWNER` (a root judge
    only; else nothing to do).  Returns how many entries changed."""
    if os.geteuid() != 0:
        return 0
    return _walk(Path(folder), strip=False)


def defuse(folder: Path) -> int:
    """After a jail wrote ``folder``: no set-id bit or world-write on any entry, nothing root-owned
    (a root judge).  Returns how many entries changed; errors on single entries are skipped (an
    entry that vanished), the rest is done."""
    return _walk(Path(folder), strip=True)


def _fix(name: str, dfd: int | None, st: os.stat_result, strip: bool, root: bool) -> bool:
    """One entry (``name`` in the folder open as ``dfd``, or an absolute path with ``dfd`` None)."""
    changed = False
    if root and (st.st_uid == 0 or st.st_gid == 0):
        os.chown(name, OWNER if st.st_uid == 0 else st.st_uid, OWNER if st.st_gid == 0 else st.st_gid,
                 dir_fd=dfd, follow_symlinks=False)
        changed = True
    if strip and not stat.S_ISLNK(st.st_mode) and st.st_mode & STRIPPED:
        mode = stat.S_IMODE(st.st_mode) & ~STRIPPED
        # By an O_PATH descriptor of the very entry checked (a bot still running may swap it for a
        # link between the stat and the change: O_NOFOLLOW opens the link itself, and the inode
        # check refuses it), changed through /proc: no read needed (a mode-4000 file), no FIFO opened,
        # and never a path that could follow a link (chmod has no no-follow form on Linux).
        fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dfd)
        try:
            now = os.fstat(fd)
            if now.st_ino == st.st_ino and now.st_dev == st.st_dev and not stat.S_ISLNK(now.st_mode):
                os.chmod(f"/proc/self/fd/{fd}", mode)
                changed = True
        finally:
            os.close(fd)
    return changed


def _walk(folder: Path, strip: bool) -> int:
    root = os.geteuid() == 0
    try:
        top = os.lstat(folder)
    except OSError:
        return 0
    if not stat.S_ISDIR(top.st_mode):
        return 0
    changed = 0
    try:
        changed += _fix(str(folder), None, top, strip, root)
    except OSError:
        pass
    for _, dirs, files, dfd in os.fwalk(folder, follow_symlinks=False):
        for name in dirs + files:
            try:
                st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
                if st.st_dev != top.st_dev:  # another filesystem mounted there: not the bot's
                    if name in dirs:
                        dirs.remove(name)
                    continue
                changed += _fix(name, dfd, st, strip, root)
            except OSError:
                continue
    return changed
