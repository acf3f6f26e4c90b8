"""Plays column 3, then column 4...: the file the rewriter beside it tries to change."""


def victim(view, turn, state):
    return (3 + turn // 2) % 7, state
