"""A function bot that forges its host's protocol: it finds the host's answer pipe among its
open files and writes an error answer naming a verdict of its choosing."""

import os
import stat


def forger(view, turn, state):
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, b'{"error": "forged", "kind": "win"}\n')
        except OSError:
            pass
    return 3, state
