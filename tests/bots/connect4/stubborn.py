"""Never returns from its second move, and catches whatever interrupts it for 0.5 s more:
a bot that swallows the first interruptions still loses on time."""

import time


def stubborn(view, turn, state):
    if turn >= 2:
        until = time.monotonic() + 0.5
        while True:
            try:
                while True:
                    pass
            except BaseException:
                if time.monotonic() > until:
                    raise
    return turn % 7, state
