"""A template bot for the course's blindfold Connect-4: submit this file (as "Python 3: a function").

The game calls play(view, turn, state) once a turn and takes back (column, state):
  view   6 lists of 7 ints, the bottom row first (view[0] bottom, view[-1] top): 0 empty,
         1 the first player's stone, 2 the second's; your opponent's stones in rows 0, 2 and 4
         are hidden (shown as 0), yours are always shown.
  turn   0, 1, 2, ...: you are the first player (stones 1) when turn is even, else the second.
  state  None at the start of each game, then whatever you returned last turn.
A column is an int 0-6; a full column is a pass.  Keep to about a second a turn.
print() goes to your log of the game (on your submission's page), never to the judge.
"""

import random


def play(view, turn, state):
    me = 1 if turn % 2 == 0 else 2
    free = [c for c in range(7) if view[-1][c] == 0]   # the top row is never hidden
    if not free:
        return 0, state                                 # a full board: any column passes
    # Prefer the middle columns; choose among the best at random.
    best = min(abs(c - 3) for c in free)
    column = random.choice([c for c in free if abs(c - 3) == best])
    moves = (state or 0) + 1                            # state: anything you like (here: moves made)
    print(f"turn {turn}: I am {me}, I play {column}")
    return column, moves
