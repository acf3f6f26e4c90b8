"""A blindfold Connect-4 function bot with one protocol mistake: it returns the column alone, not (column, state)."""


def play(view, turn, state):
    return 3
