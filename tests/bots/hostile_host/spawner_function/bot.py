"""spawner_function: an isolated function bot (connect4_hidden) that starts 30 busy children at its
first move, each in a session of its own, and leaves them spinning; it plays the leftmost column
that is not full.  Unless its host is frozen, children and all, while its opponent thinks, they
take the opponent's core and make it lose on time.

A hostile test bot for kothkit's containment tests; it misbehaves on purpose.
"""

import subprocess
import sys

_children = []


def spawner_function(view, turn, state):
    if not _children:
        for _ in range(30):
            _children.append(subprocess.Popen([sys.executable, "-S", "-c", "while True: pass"],
                                              start_new_session=True, stdin=subprocess.DEVNULL))
    for j in range(7):
        if view[-1][j] == 0:
            return j, state
