"""ww_then_dies: on its first move, writes a file others may write (mode 0666, its umask cleared),
then ends its function host's process at once: the host is discarded mid-game, and what it left
must be defused all the same.

A hostile test bot for kothkit's containment tests; it misbehaves on purpose.
"""

import os


def ww_then_dies(*args):
    os.umask(0)
    fd = os.open("left.txt", os.O_WRONLY | os.O_CREAT, 0o666)
    os.write(fd, b"anyone may change me\n")
    os.close(fd)
    os.fchmod(os.open(".", os.O_RDONLY), 0o777)
    os._exit(1)
