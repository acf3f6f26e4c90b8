"""Bots that return values built to break whoever reads them: each must be judged an invalid reply,
and none may end the judge (trusted, these run in the judge's own processes)."""


class _BadLen(list):
    def __len__(self):
        raise ValueError("no length for you")


def bad_len(view, turn, state):
    return _BadLen([3, state])


class _BadIter(tuple):
    def __iter__(self):
        raise SystemExit("unpack me and exit")


def bad_iter(view, turn, state):
    return _BadIter((3, state))


class _LongIter(list):
    def __iter__(self):
        return iter([1, 2, 3])  # claims two items, gives three


def long_iter(view, turn, state):
    return _LongIter([3, state])


class _BadItems(dict):
    def items(self):
        raise ZeroDivisionError("no items")


def bad_mapping(view, turn, state):
    return _BadItems(a=1), state


class _BadRepr:
    def __repr__(self):
        raise SystemExit("repr me and exit")


def bad_repr(view, turn, state):
    return _BadRepr(), state


class _BadIndex:
    def __index__(self):
        raise SystemExit("index me and exit")


def bad_index(view, turn, state):
    return _BadIndex(), state


def bad_repr_not_a_pair(view, turn, state):
    return _BadRepr()
