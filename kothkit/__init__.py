"""kothkit: a plugin-based framework for King-of-the-Hill bot tournaments.

The core runs bots, enforces limits, seeds, schedules, scores and stores;
games come in as pluggy plugins (entry-point group ``kothkit``).

This module declares the plugin API: what a game plugin may use.  The modules behind it
(:mod:`kothkit.game`, :mod:`kothkit.limits`, :mod:`kothkit.scoring`, :mod:`kothkit.hookspecs`,
:mod:`kothkit.picture`, :mod:`kothkit.human`, :mod:`kothkit.testing`) keep their import paths;
everything else (``procs``, ``bots``, ``store``, ``playing``, ``results``, ``cli``) is the core's
own and may change.  ``docs/internals.md`` maps the core.
"""

import pluggy

from kothkit.game import (
    GameInfo,
    Match,
    Message,
    Outcome,
    Prompt,
    Rejected,
    Setup,
    Verdict,
)
from kothkit.limits import Limits
from kothkit.scoring import Scoring

__version__ = "0.1.0"

#: Marker for plugin implementations: ``@kothkit.hookimpl def kothkit_games(): ...``
hookimpl = pluggy.HookimplMarker("kothkit")

__all__ = [
    "GameInfo",
    "Limits",
    "Match",
    "Message",
    "Outcome",
    "Prompt",
    "Rejected",
    "Scoring",
    "Setup",
    "Verdict",
    "__version__",
    "hookimpl",
]
