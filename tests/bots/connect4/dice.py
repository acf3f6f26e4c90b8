"""Random bots in the styles a bot author may use; each must be reproducible from its seed."""

import random
from random import choice, randrange


def module_style(view, turn, state):
    return random.randrange(0, 7), state


def imported_style(view, turn, state):
    return randrange(7) if turn % 2 else choice(range(7)), state


def own_generator(view, turn, state):
    # random.Random is still the class, so a bot can make its own generator from the seeded one.
    if state is None:
        state = random.Random(random.getrandbits(32))
    return state.randrange(7), state


def sequence(view, turn, state):
    """Replies with a list of draws (for the tests, not a legal column)."""
    return [random.random() for _ in range(3)], state
