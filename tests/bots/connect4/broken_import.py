"""Fails while loading."""

import this_module_does_not_exist  # noqa: F401


def broken(view, turn, state):
    return 0, state
