"""The host: one long-running player for several challenges, behind ``kothkit serve``.

A :class:`Host` keeps every challenge it serves current.  Folder challenges are
rescanned every couple of seconds and only changed games are played (a game's id
holds both bots' content hashes, so the journal's incremental re-run does it).
Submissions are stored as bot folders, built contained with the challenge's build
time limit, and the author's newest brain that builds replaces their previous one:
only its games are played, and the old brain's games drop out of the standings.
All challenges share ``jobs`` game slots, round robin between challenges, builds
and a new submission's games first.  Restart loses nothing: the work queue is
what the state says is not done yet (submissions not built, scheduled games not
in the journal), so it is redone, and a game already stored is never played or
counted twice.

Public API (what the web calls): see the methods below.  Every method is
thread-safe; none blocks on a game, except :meth:`Host.wait`, which waits for
the scoreboard to change.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from kothkit.serve.errors import BadFileName, RateLimited, SubmitError, TooLarge, UnknownLanguage
from kothkit.serve.views import ChallengeInfo, Crosstable, GameSummary, Language, Standing, Submission

__all__ = ["Host", "SubmitError", "TooLarge", "BadFileName", "UnknownLanguage", "RateLimited", "ChallengeInfo",
           "Crosstable", "GameSummary", "Language", "Standing", "Submission"]


@attrs.define
class Host:
    """Serves ``challenge_dirs`` (folders with a kothkit.toml), keeping its state in ``state_dir``
    (``host.sqlite``, the submissions' folders, the submission challenges' journals), playing
    at most ``jobs`` games (or builds) at once.

    A wrong challenge file raises :class:`kothkit.serve.settings.SettingsError` naming the
    file and line, from the constructor.
    """

    challenge_dirs: list[Path]
    state_dir: Path
    jobs: int = 1

    def start(self) -> None:
        """Start playing in background threads (returns at once)."""
        raise NotImplementedError

    def stop(self, timeout: float = 10.0) -> None:
        """Stop: games and builds in progress are killed (they are redone at the next start),
        every process started is reaped, threads joined; returns within about ``timeout`` s."""
        raise NotImplementedError

    # -- reading ----------------------------------------------------------------------------
    def challenges(self) -> list[ChallengeInfo]:
        """Every challenge served, in the order given."""
        raise NotImplementedError

    def challenge(self, name: str) -> ChallengeInfo:
        """The challenge ``name``; KeyError if there is none."""
        raise NotImplementedError

    def standings(self, name: str) -> list[Standing]:
        """The Scoreboard: every bot in the current round robin, best first."""
        raise NotImplementedError

    def crosstable(self, name: str) -> Crosstable:
        """Each pair's games counted in the standings, by bot."""
        raise NotImplementedError

    def games(self, name: str, bot: str | None = None) -> list[GameSummary]:
        """The games counted in the standings (only ``bot``'s, if given), latest first."""
        raise NotImplementedError

    def game(self, name: str, game_id: str) -> GameSummary:
        """One game of the challenge's journal (counted or not); KeyError if unknown."""
        raise NotImplementedError

    def owners(self, name: str, game_id: str) -> set[str]:
        """The logins whose brains played game ``game_id`` (empty for folder bots); KeyError if unknown."""
        raise NotImplementedError

    def game_log(self, name: str, game_id: str, bot: str | None = None) -> str:
        """The game's full log as text: every line sent and reply with its time, DEBUG lines and
        stderr of both bots, the outcome.  With ``bot``: only what that bot was sent and said, and
        its own stderr (``kothkit show --log``), never a line of its opponent's.  KeyError if unknown."""
        raise NotImplementedError

    def replay_html(self, name: str, game_id: str) -> str:
        """The game's self-contained replay page (:mod:`kothkit.replay`); KeyError if unknown."""
        raise NotImplementedError

    def version(self, name: str) -> int:
        """A number that grows each time something on the challenge's scoreboard (standings,
        games, submissions' statuses, queue) changes."""
        raise NotImplementedError

    def wait(self, name: str, since: int, timeout: float) -> int:
        """Block until :meth:`version` is above ``since``, or ``timeout`` s pass; the version then."""
        raise NotImplementedError

    # -- submitting -------------------------------------------------------------------------
    def submit(self, name: str, login: str, filename: str, language: str, data: bytes) -> Submission:
        """Store ``data`` as ``login``'s new brain for challenge ``name`` and queue its build.

        Raises (nothing stored then) :class:`TooLarge`, :class:`BadFileName`,
        :class:`UnknownLanguage` (also for a folder challenge), :class:`RateLimited` (with
        ``retry_after`` seconds), all :class:`SubmitError`; KeyError for an unknown challenge."""
        raise NotImplementedError

    def submissions(self, name: str, login: str | None = None) -> list[Submission]:
        """The challenge's submissions (only ``login``'s, if given), newest first."""
        raise NotImplementedError
