"""kothkit: a plugin-based framework for King-of-the-Hill bot tournaments.

The core runs bots, enforces limits, seeds, schedules, scores and stores;
games come in as pluggy plugins (entry-point group ``kothkit``).

This module declares the plugin API: every type a game plugin sees.  They are defined in the
API layer (:mod:`kothkit.game`, :mod:`kothkit.limits`, :mod:`kothkit.scoring`,
:mod:`kothkit.people`, :mod:`kothkit.scenarios`, :mod:`kothkit.botspec`, :mod:`kothkit.formats`,
:mod:`kothkit.hookspecs`), which imports nothing of the core above it; :mod:`kothkit.picture`,
:mod:`kothkit.human` and :mod:`kothkit.testing` name them too.  Everything else (``procs``, ``bots``, ``store``,
``playing``, ``results``, ``cli``, ``serve``) is the core's own and may change.
``docs/internals.md`` maps the core.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    import pluggy

    from kothkit.botspec import BotError, BotKind, BotSpec
    from kothkit.game import (
        Clock,
        End,
        Exporter,
        GameInfo,
        GameReplay,
        Match,
        Message,
        Outcome,
        Prompt,
        Rejected,
        Round,
        Rule,
        Setup,
        Verdict,
        integer,
        one_of,
    )
    from kothkit.limits import Limits
    from kothkit.people import CELLS, POINTS, STONES, Grid, Mistake, Svg, Turn
    from kothkit.scenarios import Scenario
    from kothkit.scoring import Counts, Scoring, Unit

    #: Marker for plugin implementations: ``@kothkit.hookimpl def kothkit_games(): ...``
    hookimpl: pluggy.HookimplMarker

#: The module of each name of the plugin API.  They are imported when first asked for (PEP 562), so
#: that ``kothkit --version``, which needs none of them, does not import pluggy, attrs and the game API.
_FROM = {
    **dict.fromkeys(("Clock", "End", "Exporter", "GameInfo", "GameReplay", "Match", "Message", "Outcome", "Prompt",
                     "Rejected", "Round", "Rule", "Setup", "Verdict", "integer", "one_of"), "kothkit.game"),
    **dict.fromkeys(("BotError", "BotKind", "BotSpec"), "kothkit.botspec"),
    **dict.fromkeys(("CELLS", "POINTS", "STONES", "Grid", "Mistake", "Svg", "Turn"), "kothkit.people"),
    "Limits": "kothkit.limits", "Scenario": "kothkit.scenarios", "Scoring": "kothkit.scoring",
    "Unit": "kothkit.scoring", "Counts": "kothkit.scoring",
}


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
    "CELLS",
    "POINTS",
    "STONES",
    "BotError",
    "BotKind",
    "BotSpec",
    "Clock",
    "Counts",
    "End",
    "Exporter",
    "GameInfo",
    "GameReplay",
    "Grid",
    "Limits",
    "Match",
    "Message",
    "Mistake",
    "Outcome",
    "Prompt",
    "Rejected",
    "Round",
    "Rule",
    "Scenario",
    "Scoring",
    "Setup",
    "Svg",
    "Turn",
    "Unit",
    "Verdict",
    "__version__",
    "hookimpl",
    "integer",
    "one_of",
]
