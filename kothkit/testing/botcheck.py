"""``kothkit check`` for a plugin author's tests: :func:`check_bot` and what its report holds.

The check itself lives next to the referee, in :mod:`kothkit.playing.check`; this module
keeps its old import path.
"""

from kothkit.playing.check import CheckError, Finding, Report, Run, check_bot, explain, game_scenarios

__all__ = ["CheckError", "Finding", "Report", "Run", "check_bot", "explain", "game_scenarios"]
