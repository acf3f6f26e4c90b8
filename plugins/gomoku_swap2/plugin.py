"""Registers the gomoku_swap2 game with kothkit (entry point group ``kothkit``)."""

from kothkit import hookimpl


@hookimpl
def kothkit_games():
    return []
