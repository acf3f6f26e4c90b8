"""Keeps state two ways: the state argument (reset each game) and a module global (per bot)."""

CALLS = 0


def counter(view, turn, state):
    global CALLS
    CALLS += 1
    state = 1 if state is None else state + 1
    # Reply with the number of calls this game and in total, packed in the column: 0-6 needs mod.
    return state % 7, state


def calls(view, turn, state):
    return CALLS, state
