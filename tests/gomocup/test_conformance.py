"""The conformance kit on the gomocup game: its freestyle games (with its bundled engines), and its
Swap2 and renju variants."""

from __future__ import annotations

from kothkit.testing import conformance_tests

TestGomocup = conformance_tests("gomocup")
TestGomocupSwap2 = conformance_tests("gomocup", rules={"opening": "swap2", "size": 20}, bundled_bots=False)
TestGomocupRenju = conformance_tests("gomocup", rules={"rule": 4}, bundled_bots=False)
