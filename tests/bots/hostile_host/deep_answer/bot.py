"""deep_answer: an isolated function bot (connect4_hidden) that writes a 30,000-deep JSON line onto
its host's protocol descriptor (found in /proc/self/fd: a pipe it may write other than its stdout
and stderr) before it answers, in its first game a bare array, then one inside an answer
(``{"ok": [[[...]]]}``).  The judge must rule it a crash of this bot, never fail itself (a
RecursionError out of the JSON parser).

A hostile test bot for kothkit's containment tests; it misbehaves on purpose.
"""

import os
import stat

_games = [0]
DEEP = "[" * 30000 + "]" * 30000


def deep_answer(view, turn, state):
    _games[0] += 1
    line = DEEP if _games[0] % 2 else '{"ok":' + DEEP + "}"
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd <= 2:
            continue
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode) and os.get_blocking(fd) is not None:
                os.write(fd, (line + "\n").encode())
        except OSError:
            pass
    for j in range(7):
        if view[-1][j] == 0:
            return j, state
