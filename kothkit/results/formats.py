"""The board-game file writers, under the name plugins of kothkit 0.1 imported them: they live in the
plugin API layer now, :mod:`kothkit.formats`."""

from kothkit.formats import Stone, Unwritable, psq, psq_order, sgf, sgf_result, sgf_text

__all__ = ["Stone", "Unwritable", "psq", "psq_order", "sgf", "sgf_result", "sgf_text"]
