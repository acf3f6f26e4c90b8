"""What the hostile_privileged bots try, in their own folder (copied into each bot's folder, the
copies kept the same: tests/core/test_privileged_files.py checks it).

Each attempt is a line "what: result" in the report: a setuid-root shell (``cp /bin/dash rootsh;
chmod 4755 rootsh``), a file created set-uid, a set-gid folder, a world-writable file and folder,
an AF_VSOCK socket to the hypervisor (CID 2) and an io_uring.  A hostile test bot for kothkit's
containment tests; it misbehaves on purpose.
"""

import ctypes
import os
import shutil
import socket


def _try(report, what, action):
    try:
        action()
        report.append(f"{what}: done")
    except OSError as e:
        report.append(f"{what}: {'EPERM' if e.errno == 1 else e.strerror}")


def plant():
    report = []
    _try(report, "copy dash", lambda: shutil.copy("/bin/dash" if os.path.exists("/bin/dash") else "/bin/sh", "rootsh"))
    _try(report, "chmod 4755 rootsh", lambda: os.chmod("rootsh", 0o4755))
    _try(report, "create 4755", lambda: os.close(os.open("made4755", os.O_CREAT | os.O_WRONLY, 0o4755)))
    _try(report, "mkdir 2755", lambda: os.mkdir("sgdir", 0o2755))
    _try(report, "chmod 2775 sgdir", lambda: os.chmod("sgdir", 0o2775))
    with open("ww", "w") as f:
        f.write("anyone may write me\n")
    _try(report, "chmod 666 ww", lambda: os.chmod("ww", 0o666))
    _try(report, "mkdir wwdir", lambda: os.mkdir("wwdir"))
    _try(report, "chmod 777 wwdir", lambda: os.chmod("wwdir", 0o777))

    def vsock():
        with socket.socket(40, socket.SOCK_STREAM) as s:  # AF_VSOCK
            s.settimeout(1)
            s.connect((2, 1234))

    _try(report, "vsock", vsock)

    def io_uring():
        libc = ctypes.CDLL(None, use_errno=True)
        params = ctypes.create_string_buffer(120)
        fd = libc.syscall(425, 4, params)  # io_uring_setup (the same number everywhere)
        if fd < 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
        os.close(fd)

    _try(report, "io_uring", io_uring)
    return report
