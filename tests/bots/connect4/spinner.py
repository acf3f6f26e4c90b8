"""Never returns from its second move: a loop with no end, far past connect4_hidden's 1 s limit."""


def spinner(view, turn, state):
    if turn >= 2:
        while True:
            pass
    return turn % 7, state
