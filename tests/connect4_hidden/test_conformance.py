"""The kothkit conformance kit on connect4_hidden: one test per check (hidden information included)."""

from kothkit.testing import conformance_tests

TestConformance = conformance_tests("connect4_hidden", seeds=range(40))
