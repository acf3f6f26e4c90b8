"""kothkit: a plugin-based framework for King-of-the-Hill bot tournaments.

The core runs bots, enforces limits, seeds, schedules, scores and stores;
games come in as pluggy plugins (entry-point group ``kothkit``).
"""

import pluggy

__version__ = "0.1.0"

#: Marker for plugin implementations: ``@kothkit.hookimpl def kothkit_games(): ...``
hookimpl = pluggy.HookimplMarker("kothkit")
