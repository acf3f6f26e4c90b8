"""Scenarios for ``kothkit check``, as a game plugin imports them (``kothkit.testing.Scenario``).

They are defined in the API layer, :mod:`kothkit.scenarios` (its docstring says how a game lists its own).
"""

from kothkit.scenarios import THEN, Scenario, shape, shapes

__all__ = ["THEN", "Scenario", "shape", "shapes"]
