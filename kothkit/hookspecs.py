"""Hook specifications: the whole contract between the kothkit core and its plugins.

Plugins implement these with ``@kothkit.hookimpl`` and are found through the
``kothkit`` entry-point group (the bundled games too).  The core registers its
own defaults (``kothkit.defaults``) as a plugin first, the way pluggy's
eggsample, tox and datasette do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

import pluggy

if TYPE_CHECKING:
    # Names for the annotations only: the contract names the types the core hands a plugin wherever they
    # live (tests/core/test_layers.py lets a TYPE_CHECKING import point up a layer).
    from kothkit.bots.folders import BotSpec
    from kothkit.game import GameInfo, Match, Prompt
    from kothkit.human import Turn
    from kothkit.picture import Grid, Svg
    from kothkit.results.archive import Transcript
    from kothkit.scoring import Standing
    from kothkit.testing.scenarios import Scenario

hookspec = pluggy.HookspecMarker("kothkit")

#: ``loader(entry)``: the bot(s) at ``entry`` (a path given to ``--bots``), or None if not this loader's.
BotLoader: TypeAlias = "Callable[[Path], BotSpec | list[BotSpec] | None]"
#: ``exporter(transcript)``: a re-played game as the text of one file.
Exporter: TypeAlias = "Callable[[Transcript], str]"


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
    wins, one that returns None passes, one that raises ``kothkit.bots.folders.BotError``
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


@hookspec
def kothkit_scenarios(game: GameInfo) -> list[Scenario] | None:
    """Return scripted situations for ``kothkit check`` to put a bot in, for ``game``.

    :param game: the :class:`kothkit.game.GameInfo` being checked.  Every plugin is
        asked; return None for a game that is not yours.
    :return: a list of :class:`kothkit.testing.Scenario`, or None.
    Called by ``kothkit check GAME BOT`` (and ``kothkit.testing.check_bot``) once per
    check, before its own exploration of the opening.  Scripted replies must stay
    legal whatever the bot does; a reply the game rejects is reported as the game's
    error, not the bot's.
    """


@hookspec(firstresult=True)
def kothkit_picture(game: GameInfo, match: Match) -> Grid | Svg | list[Grid | Svg] | None:
    """Return a picture of ``match``'s board for replay pages, or None for another plugin's game.

    :param game: the :class:`kothkit.game.GameInfo` of the match.
    :param match: a match of that game, after some replies (or none) were played into it.
    :return: a :class:`kothkit.picture.Grid` (a board the core draws: rows of piece characters,
        the last move, a winning line, hatched rows, in its style and colours) or
        :class:`kothkit.picture.Svg` (an ``<svg>`` the game drew; escape any text in it), or a list
        of them, drawn side by side (e.g. the true board and what each player saw).  Optional:
        without it a page shows the game's ``render`` text.  Called once per move of every game a
        page or report shows: read the match, never change it.  A hook that raises (or returns
        anything else) is reported: ``kothkit export`` fails naming it, a page says so over its
        text board; the conformance kit calls it on every position of its games.
    """


@hookspec
def kothkit_exporters(game: GameInfo) -> dict[str, Exporter] | None:
    """Return this game's export formats for ``kothkit export --format NAME``, or None for another
    plugin's game.

    :param game: the :class:`kothkit.game.GameInfo` being exported.
    :return: ``{name: exporter}``; ``exporter(transcript)`` gets a
        :class:`kothkit.results.archive.Transcript` (the record re-played: setup, rules, every step) and
        returns the file's text; the file is named ``<game>-<index>-<id>.<name>``.  Formats of
        all plugins are merged (``json`` is the core's own, for every game).  An exporter that
        raises fails ``kothkit export``, naming it; the conformance kit runs each on its games.
    """


@hookspec(firstresult=True)
def kothkit_human(game: GameInfo, match: Match, prompt: Prompt) -> Turn | None:
    """Return what a person playing a seat sees and may type at ``prompt``, or None for another
    plugin's game.

    :param game: the :class:`kothkit.game.GameInfo` of the match.
    :param match: the match, waiting for ``prompt``'s reply: read it, never change it.
    :param prompt: the :class:`kothkit.game.Prompt` the person's seat answers (``prompt.seat``).
    :return: a :class:`kothkit.human.Turn`: the board as that seat may see it (in a
        hidden-information game, only what the prompt shows a bot), what to type, the legal
        choices in words, and ``parse(text)``, the person's entry to the reply a bot would give,
        raising :class:`kothkit.human.Mistake` with a helpful message for a bad entry; or a
        ``Turn`` with ``auto`` set to answer a handshake without asking.  Optional: without it
        ``kothkit play`` refuses the game.  The core tries a parsed reply on a copy of the match
        and asks again if the game rejects it, so ``parse`` need not check the rules.
    """
