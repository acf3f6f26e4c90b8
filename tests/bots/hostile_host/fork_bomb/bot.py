"""fork_bomb: forks, and every child forks, for ever, without a care for errors; the bot's own
process dies at the first fork refused.

A hostile test bot for kothkit's containment tests (gomoku_swap2); it misbehaves on purpose.
"""

import os

while True:
    os.fork()
