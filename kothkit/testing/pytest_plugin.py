"""pytest plugin: fixtures of the kothkit conformance kit."""
