"""Hook specifications: the whole contract between the kothkit core and its plugins.

Plugins implement these with ``@kothkit.hookimpl`` and are found through the
``kothkit`` entry-point group (the bundled games too).  The core registers its
own defaults (``kothkit.defaults``) as a plugin first, the way pluggy's
eggsample, tox and datasette do.
"""

from __future__ import annotations

import pluggy

hookspec = pluggy.HookspecMarker("kothkit")


@hookspec
def kothkit_games():
    """Return the games this plugin provides.

    :return: a list of :class:`kothkit.game.GameInfo` (or a single one).
    Called once when the plugin manager is built; every game name must be unique
    across all installed plugins (a clash is reported with both sources).
    """


@hookspec
def kothkit_bot_loaders():
    """Return bot loaders: callables ``loader(path: Path) -> BotSpec | None``.

    Called once when bots are loaded.  Each loader is tried in turn on every
    entry given to ``--bots``; the first that returns a ``BotSpec`` wins, one that
    returns None passes, one that raises ``kothkit.bots.BotError`` reports a
    broken bot (that bot sits out).  The core's own loaders read ``bot.toml``,
    the legacy ``meta`` file, and ``file.py:function`` references.
    """


@hookspec
def kothkit_tournament_finished(game, standings, journal):
    """Called after a tournament's last game is stored (e.g. to publish a leaderboard).

    :param game: the :class:`kothkit.game.GameInfo` played.
    :param standings: the ranked list of :class:`kothkit.scoring.Standing`.
    :param journal: the path of the SQLite journal holding every game record.
    """
