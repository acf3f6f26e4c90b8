"""kothkit.testing: the conformance kit game plugins use in their tests.

::

    from kothkit.testing import conformance_tests

    TestConformance = conformance_tests("mygame")     # one pytest test per check

or, without pytest::

    from kothkit.testing import Kit

    failures = Kit("mygame").run()                    # [(check, message), ...]

Also here: :class:`Scenario` (scripted situations for ``kothkit check``,
returned by a game's ``kothkit_scenarios`` hook), :func:`check_bot` (what
``kothkit check`` runs), the junk replies and, in
:mod:`kothkit.testing.strategies`, Hypothesis strategies.  docs/plugins.md
describes every check.
"""

from kothkit.testing.junk import JUNK_TEXT, JUNK_VALUES
from kothkit.testing.kit import Kit
from kothkit.testing.playout import ConformanceError, Playout, Step, playout
from kothkit.testing.scenarios import Scenario

__all__ = ["JUNK_TEXT", "JUNK_VALUES", "ConformanceError", "Kit", "Playout", "Scenario", "Step", "check_bot",
           "conformance_tests", "playout"]


def conformance_tests(game, **options):
    """See :func:`kothkit.testing.pytest_support.conformance_tests` (imports pytest only when called)."""
    from kothkit.testing.pytest_support import conformance_tests as make

    return make(game, **options)


def check_bot(game, bot, **options):
    """See :func:`kothkit.playing.check.check_bot`."""
    from kothkit.playing.check import check_bot as run

    return run(game, bot, **options)
