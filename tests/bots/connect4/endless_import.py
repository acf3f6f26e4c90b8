"""Never finishes loading: its module loops forever at import, before any function exists."""

while True:
    pass


def endless(view, turn, state):  # never reached
    return 0, state
