"""Hook specifications: how the kothkit core finds its plugins' games and bot loaders.

Plugins implement these with ``@kothkit.hookimpl`` and are found through the ``kothkit``
entry-point group (the bundled games too).  The core registers its own defaults
(``kothkit.defaults``) as a plugin first, the way pluggy's eggsample, tox and datasette do.

Few hooks, behaviour on the registered object (as tox's): a game is a :class:`kothkit.game.GameInfo`
from :func:`kothkit_games`, and everything it offers beyond its ``Match`` is reached through it:
its picture and play by a person are methods of its match class (``Match.picture``,
``Match.human``), its exporters and check scenarios are fields of its ``GameInfo``.  The four
broadcast hooks a plugin answered for its own game (``kothkit_picture``, ``kothkit_human``,
``kothkit_exporters``, ``kothkit_scenarios``) still work for this release: pluggy warns
(DeprecationWarning) when a plugin implementing one is registered, saying what to use instead.
Every type named here lives in the plugin API layer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

import pluggy

if TYPE_CHECKING:
    from kothkit.botspec import BotSpec
    from kothkit.game import GameInfo, GameReplay, Match, Prompt
    from kothkit.people import Grid, Svg, Turn
    from kothkit.scenarios import Scenario
    from kothkit.scoring import Standing

hookspec = pluggy.HookspecMarker("kothkit")

#: ``loader(entry)``: the bot(s) at ``entry`` (a path given to ``--bots``), or None if not this loader's.
BotLoader: TypeAlias = "Callable[[Path], BotSpec | list[BotSpec] | None]"
#: ``exporter(replay)``: a re-played game as the text of one file (:data:`kothkit.game.Exporter`).
Exporter: TypeAlias = "Callable[[GameReplay], str]"


def _moved(hook: str, instead: str) -> DeprecationWarning:
    return DeprecationWarning(f"the {hook} hook is deprecated and will be removed in kothkit 0.2: {instead} "
                              "(see docs/plugins.md), and drop the hook with its `if game.name != ...` guard")


@hookspec
def kothkit_games() -> GameInfo | Iterable[GameInfo] | None:
    """Return the games this plugin provides.

    :return: a list of :class:`kothkit.game.GameInfo` (or a single one; ``[]``
        or None is fine).  Game names are one word.
    Called once per process, the first time any game is looked up; every game
    name must be unique across all installed plugins (a clash is reported with
    both sources).  Plugin modules are imported by every kothkit command and by
    pytest through the entry point, so keep their imports cheap.
    """


@hookspec
def kothkit_bot_loaders() -> list[BotLoader]:
    """Return bot loaders: callables ``loader(path: Path) -> BotSpec | list[BotSpec] | None``.

    Called once when bots are loaded.  Each loader is tried in turn on every
    entry given to ``--bots``; the first that returns a ``BotSpec`` (or a list)
    wins, one that returns None passes, one that raises ``kothkit.botspec.BotError``
    reports a broken bot (that bot sits out).  pluggy calls the last registered
    plugin first, so a plugin's loaders are tried before the core's own, which
    read ``bot.toml``, the legacy ``meta`` file and ``file.py:function`` references.
    """


@hookspec
def kothkit_tournament_finished(game: GameInfo, standings: list[Standing], journal: Path) -> None:
    """Called by ``kothkit run`` after a tournament's last game is stored (e.g. to
    publish a leaderboard).  :func:`kothkit.playing.tournament.run_tournament` itself
    does not call it.

    :param game: the :class:`kothkit.game.GameInfo` played.
    :param standings: the ranked list of :class:`kothkit.scoring.Standing`.
    :param journal: the path of the SQLite journal holding every game record.
    """


# -- deprecated: answered by every plugin for every game; a game's registration says these now ---------
@hookspec(warn_on_impl=_moved("kothkit_scenarios", "give GameInfo(scenarios=[...])"))
def kothkit_scenarios(game: GameInfo) -> list[Scenario] | None:
    """Return scripted situations for ``kothkit check`` to put a bot in, for ``game``.

    :param game: the :class:`kothkit.game.GameInfo` being checked.  Every plugin is
        asked; return None for a game that is not yours.
    :return: a list of :class:`kothkit.scenarios.Scenario`, or None.
    Called by ``kothkit check GAME BOT`` (and ``kothkit.testing.check_bot``) once per
    check, before its own exploration of the opening.  Scripted replies must stay
    legal whatever the bot does; a reply the game rejects is reported as the game's
    error, not the bot's.
    """


@hookspec(firstresult=True, warn_on_impl=_moved("kothkit_picture", "give the match class a picture(self) method"))
def kothkit_picture(game: GameInfo, match: Match) -> Grid | Svg | list[Grid | Svg] | None:
    """Return a picture of ``match``'s board for replay pages, or None for another plugin's game.

    :param game: the :class:`kothkit.game.GameInfo` of the match.
    :param match: a match of that game, after some replies (or none) were played into it.
    :return: a :class:`kothkit.people.Grid` (a board the core draws: rows of piece characters,
        the last move, a winning line, hatched rows, in its style and colours) or
        :class:`kothkit.people.Svg` (an ``<svg>`` the game drew; escape any text in it), or a list
        of them, drawn side by side (e.g. the true board and what each player saw).  Optional:
        without it a page shows the game's ``render`` text.  Called once per move of every game a
        page or report shows: read the match, never change it.  A hook that raises (or returns
        anything else) is reported: ``kothkit export`` fails naming it, a page says so over its
        text board; the conformance kit calls it on every position of its games.
    """


@hookspec(warn_on_impl=_moved("kothkit_exporters", "give GameInfo(exporters={name: function})"))
def kothkit_exporters(game: GameInfo) -> dict[str, Exporter] | None:
    """Return this game's export formats for ``kothkit export --format NAME``, or None for another
    plugin's game.

    :param game: the :class:`kothkit.game.GameInfo` being exported.
    :return: ``{name: exporter}``; ``exporter(transcript)`` gets a
        a :class:`kothkit.game.GameReplay` (the record re-played: setup, rules, every step) and
        returns the file's text; the file is named ``<game>-<index>-<id>.<name>``.  Formats of
        all plugins are merged (``json`` is the core's own, for every game).  An exporter that
        raises fails ``kothkit export``, naming it; the conformance kit runs each on its games.
    """


@hookspec(firstresult=True, warn_on_impl=_moved("kothkit_human", "give the match class a human(self, prompt) method"))
def kothkit_human(game: GameInfo, match: Match, prompt: Prompt) -> Turn | None:
    """Return what a person playing a seat sees and may type at ``prompt``, or None for another
    plugin's game.

    :param game: the :class:`kothkit.game.GameInfo` of the match.
    :param match: the match, waiting for ``prompt``'s reply: read it, never change it.
    :param prompt: the :class:`kothkit.game.Prompt` the person's seat answers (``prompt.seat``).
    :return: a :class:`kothkit.people.Turn`: the board as that seat may see it (in a
        hidden-information game, only what the prompt shows a bot), what to type, the legal
        choices in words, and ``parse(text)``, the person's entry to the reply a bot would give,
        raising :class:`kothkit.people.Mistake` with a helpful message for a bad entry; or a
        ``Turn`` with ``auto`` set to answer a handshake without asking.  Optional: without it
        ``kothkit play`` refuses the game.  The core tries a parsed reply on a copy of the match
        and asks again if the game rejects it, so ``parse`` need not check the rules.
    """
