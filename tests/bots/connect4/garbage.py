"""Bots that return something other than ``(column 0-6, state)``; one function per way of getting it wrong."""


def not_a_tuple(view, turn, state):
    return 3  # forgot the state


def three_tuple(view, turn, state):
    return 3, state, "extra"


def word_column(view, turn, state):
    return "left", state


def float_column(view, turn, state):
    return 3.0, state


def bool_column(view, turn, state):
    return True, state


def off_board(view, turn, state):
    return 7, state


def negative(view, turn, state):
    return -1, state  # the seed's controller would play column 6


class _Opaque:
    pass


def unserialisable(view, turn, state):
    return _Opaque(), state


class _Column:
    """Integer-like, as a numpy integer is."""

    def __init__(self, n):
        self.n = n

    def __index__(self):
        return self.n


def index_like(view, turn, state):
    return _Column(turn % 7), state


def list_reply(view, turn, state):
    return [turn % 7, state]  # a list of two: the seed's controller unpacks it too


def huge(view, turn, state):
    return list(range(300000)), state  # a reply line of about 2 MB
