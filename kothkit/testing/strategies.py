"""Hypothesis strategies for game plugins' own property tests.

* :func:`replies` -- anything a bot could send: text of every kind, and for
  games with function bots, JSON-like values too;
* :func:`positions` -- a match at some step of some seeded random playout,
  with its prompt and legal replies (a fresh copy each time);
* :func:`legal_games` -- whole random playouts, for properties over games.

Example, in a plugin's tests::

    from hypothesis import given
    from kothkit.testing import Kit
    from kothkit.testing.strategies import positions, replies

    KIT = Kit("tictactoe")

    @given(positions(KIT), replies())
    def test_play_never_raises(at, reply):
        match, prompt, legal, where = at
        match.play(prompt.seat, reply)
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from kothkit.game import Outcome
from kothkit.testing.junk import JUNK_TEXT, JUNK_VALUES
from kothkit.testing.playout import Where, current, new_match


def text_replies() -> st.SearchStrategy[str]:
    """Lines a program bot could write: random text, junk, and near-misses built from digits and brackets."""
    near = st.lists(st.sampled_from(list("0123456789 -+(),.;[]{}\"'BWXOxo\t")), max_size=24).map("".join)
    return st.one_of(st.text(max_size=40), st.sampled_from(JUNK_TEXT), near)


def values() -> st.SearchStrategy[Any]:
    """JSON-like values an isolated function bot could return."""
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=10))
    return st.one_of(st.sampled_from(JUNK_VALUES),
                     st.recursive(scalars,
                                  lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                          st.dictionaries(st.text(max_size=5), inner, max_size=3)),
                                  max_leaves=12))


def replies(function_bots: bool = False) -> st.SearchStrategy[Any]:
    return st.one_of(text_replies(), values()) if function_bots else text_replies()


def positions(kit: Any) -> st.SearchStrategy[tuple]:
    """(match, prompt, legal_replies, where) at a step of one of the kit's seeded playouts."""

    @st.composite
    def build(draw: st.DrawFn) -> tuple:
        seed = draw(st.sampled_from(kit.seeds))
        p = kit.playout(seed)
        k = draw(st.integers(0, max(len(p.steps) - 1, 0)))
        match = new_match(kit.info, seed, kit.rules)
        for r in p.replies[:k]:
            step = match.next()
            assert not isinstance(step, Outcome)  # the playout went on past this step
            match.play(current(step).seat, r)
        step = match.next()
        prompt = step if isinstance(step, Outcome) else current(step)
        where = Where(kit.name, seed)
        where.step = k
        where.seat = getattr(prompt, "seat", None)
        where.line = p.steps[k].line if p.steps else None
        return match, prompt, list(match.legal_replies()), where

    return build()


def legal_games(kit: Any) -> st.SearchStrategy[Any]:
    """Random playouts (:class:`kothkit.testing.playout.Playout`) from seeds drawn by Hypothesis."""
    return st.integers(0, 2**31 - 1).map(kit.playout)
