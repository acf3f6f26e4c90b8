"""Counts its games in a file of its folder (its working directory): a stateful bot keeps it from
game to game; a bot that is not stateful cannot write it and says so in its log."""

import os


def keeper(view, turn, state):
    if state is None:  # the first call of a game
        try:
            n = int(open("games.txt").read()) if os.path.exists("games.txt") else 0
            with open("games.txt", "w") as f:
                f.write(str(n + 1))
            print("keeper: game", n + 1)
        except OSError as e:
            print("keeper: cannot write its folder:", type(e).__name__, e.errno)
        state = 0
    return turn % 7, state
