"""env_function: an isolated Python function bot (connect4_hidden) whose module writes its host's
whole environment to stderr as it is loaded; it then plays the first column.  The judge's
environment must not be in it.

A hostile test bot for kothkit's containment tests; it misbehaves on purpose.
"""

import os
import sys

for _k in sorted(os.environ):
    sys.stderr.write(f"env {_k}={os.environ[_k]}\n")
sys.stderr.flush()


def env_function(view, turn, state):
    return 0, state
