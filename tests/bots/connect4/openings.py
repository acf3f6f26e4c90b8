"""The bundled deducer and a twin that ignores the stones it cannot see, both opening with random moves.

The twin is the same code told a turn number that accounts for no hidden
stones (the turn number is all the deducer counts them by), so the difference
between the two is the deduction alone.  Random first moves make the games
differ; both draw them from the bot's seeded ``random``.
"""

import importlib.util
import random
from pathlib import Path

_FILE = Path(__file__).resolve().parents[3] / "plugins" / "connect4_hidden" / "bots" / "deducer" / "bot.py"
_spec = importlib.util.spec_from_file_location("_deducer_for_openings", _FILE)
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
_deducer = _module.deducer
OPENING = 6


def deducer_opening(view, turn, state):
    if turn < OPENING:
        return random.randrange(7), state
    return _deducer(view, turn, state)


def _seen_opponent_stones(view, me):
    n = 0
    for c in range(7):
        top = max((r + 1 for r in range(6) if view[r][c]), default=0)
        n += sum(1 for r in range(top) if view[r][c] != me)
    return n


def naive_opening(view, turn, state):
    if turn < OPENING:
        return random.randrange(7), state
    me = 1 if turn % 2 == 0 else 2
    seen = _seen_opponent_stones(view, me)
    # Same parity (same player), and (fake + 1) // 2 == seen: "every opponent stone is in sight".
    fake = 2 * seen if me == 1 else 2 * seen - 1
    return _deducer(view, fake, state)
