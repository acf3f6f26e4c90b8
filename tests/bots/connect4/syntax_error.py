def syntax(view, turn, state)
    return 0, state
