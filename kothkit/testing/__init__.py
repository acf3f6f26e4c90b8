"""kothkit.testing: the conformance kit game plugins use in their tests."""
