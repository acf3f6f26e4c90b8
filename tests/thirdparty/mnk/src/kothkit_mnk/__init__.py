"""The m,n,k-game for kothkit: k in a row on an m x n board (3,3,3 is tic-tac-toe).

Modules: ``rules`` (board and lines), ``codec`` (the lines on the wire),
``match`` (the state machine), ``plugin`` (registration and scenarios).
"""
