"""Raises on the third call it ever gets, then plays on: whoever runs it must keep its module
(as a trusted bot's is kept) for its later games to come out the same either way."""

CALLS = 0


def raises_once(view, turn, state):
    global CALLS
    CALLS += 1
    if CALLS == 3:
        raise RuntimeError("the third call")
    return CALLS % 7, state
