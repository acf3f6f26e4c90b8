"""Never returns from its second move and catches every interruption: a trusted worker running
it can only end itself (after overtime.GIVE_UP s); isolated, its host is killed on time."""


def unstoppable(view, turn, state):
    if turn >= 2:
        while True:
            try:
                while True:
                    pass
            except BaseException:
                pass
    return turn % 7, state
