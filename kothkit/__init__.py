"""kothkit: a plugin-based framework for King-of-the-Hill bot tournaments.

The core runs bots, enforces limits, seeds, schedules, scores and stores;
games come in as pluggy plugins (entry-point group ``kothkit``).

This module declares the plugin API: what a game plugin may use.  The modules behind it
(:mod:`kothkit.game`, :mod:`kothkit.limits`, :mod:`kothkit.scoring`, :mod:`kothkit.hookspecs`,
:mod:`kothkit.picture`, :mod:`kothkit.human`, :mod:`kothkit.testing`) keep their import paths;
everything else (``procs``, ``bots``, ``store``, ``playing``, ``results``, ``cli``) is the core's
own and may change.  ``docs/internals.md`` maps the core.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
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

    #: Marker for plugin implementations: ``@kothkit.hookimpl def kothkit_games(): ...``
    hookimpl: pluggy.HookimplMarker

#: The module of each name of the plugin API.  They are imported when first asked for (PEP 562), so
#: that ``kothkit --version``, which needs none of them, does not import pluggy, attrs and the game API.
_FROM = {"GameInfo": "kothkit.game", "Match": "kothkit.game", "Message": "kothkit.game", "Outcome": "kothkit.game",
         "Prompt": "kothkit.game", "Rejected": "kothkit.game", "Setup": "kothkit.game", "Verdict": "kothkit.game",
         "Limits": "kothkit.limits", "Scoring": "kothkit.scoring"}


def __getattr__(name: str) -> Any:
    if name == "hookimpl":
        import pluggy

        value: Any = pluggy.HookimplMarker("kothkit")
    elif name in _FROM:
        value = getattr(importlib.import_module(_FROM[name]), name)
    else:
        raise AttributeError(f"module 'kothkit' has no attribute {name!r}")
    globals()[name] = value  # one object for the process: every plugin's hookimpl is the same marker
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_FROM) | {"hookimpl"})


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
