"""Scenarios for ``kothkit check``, as a game plugin imports them (``kothkit.testing.Scenario``).

They are defined next to the check that plays them, in :mod:`kothkit.playing.scenarios`
(its docstring says how a game lists its own).
"""

from kothkit.playing.scenarios import THEN, Scenario, shape, shapes

__all__ = ["THEN", "Scenario", "shape", "shapes"]
