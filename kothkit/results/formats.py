"""The board-game file writers, under the name plugins of kothkit 0.1 imported them: they live in the
plugin API layer now, :mod:`kothkit.formats`."""

from kothkit.formats import Stone, psq, sgf, sgf_result, sgf_text

__all__ = ["Stone", "psq", "sgf", "sgf_result", "sgf_text"]
