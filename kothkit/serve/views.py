"""What the host shows: the frozen records its public methods return (the web renders them).

Times are Unix seconds (floats); names are bots' names (1-64 letters, digits, ``_ . + -``);
owners are logins.  Every text that a stranger wrote (a file name, a compiler's output, a
verdict's reason) is returned as it is: the web escapes it.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from kothkit.store.journal import GameRow, Summary


@attrs.frozen
class Language:
    """One build profile a submissions challenge offers (``[serve.languages.<id>]``)."""

    id: str
    label: str
    #: The fixed name the submitted source is stored under (e.g. ``brain.c``).
    file: str
    #: argv of the build step (empty: none), run in the submission's folder, contained.
    build: tuple[str, ...]
    #: argv that runs the built brain (empty for a Python function bot: see ``entry``).
    command: tuple[str, ...]
    #: A Python function bot's ``"FILE.py:function"`` (``file`` is FILE.py), called by the
    #: game's prompts in an isolated host; None for a program.
    entry: str | None = None


@attrs.frozen
class ChallengeInfo:
    #: The challenge's name in URLs: its folder's name (made unique and URL-safe).
    name: str
    #: The title (``[serve] title``, else the folder's name); :attr:`title` is the reader's.
    default_title: str
    game: str
    #: "folder" (bots are folders on disk) or "submissions" (people submit).
    kind: str
    languages: tuple[Language, ...]
    max_bytes: int
    #: Seconds between two submissions of one author, and submissions an author may make a day.
    min_interval: float
    per_day: int
    #: Games waiting for a slot, and games being played now.
    queued: int
    playing: int
    #: Bots in the standings now.
    bots: int
    #: The challenge's folder (its kothkit.toml).
    folder: Path
    #: Folder challenges: one line per bot left out (does not load or build), naming its folder.
    errors: tuple[str, ...] = ()
    #: Seconds of builds an author may use in any 24 hours (None: no limit).
    build_seconds_per_day: float | None = None
    #: The title in the site's languages (``[serve] titles``): language code -> title.
    titles: Mapping[str, str] = attrs.field(factory=dict)
    #: The time zone the challenge's pages write times in (``ServeSettings.zone``).
    zone: dt.tzinfo = dt.UTC

    @property
    def title(self) -> str:
        """The title in the language of the request being answered (kothkit.serve.i18n)."""
        from kothkit.serve.i18n import current

        return self.titles.get(current(), self.default_title)


@attrs.frozen
class ScoreboardRow:
    """One row of the Scoreboard: a bot's :class:`kothkit.scoring.Standing` (its rank, points and
    games, as every ranking numbers them) with what the host knows of it."""

    rank: int
    bot: str
    #: The login whose latest brain this is (submissions); None for a folder's bot.
    owner: str | None
    points: float
    wins: int
    draws: int
    losses: int
    games: int
    #: Time of the bot's latest submission, or of its folder's latest change.
    latest: float | None
    #: Games the bot has in the round robin; while fewer are counted the row is provisional: its
    #: rank is by the games so far, and ``elo`` ± ``elo_error`` (kothkit.store.ratings.performance)
    #: says how far they go (None where they do not tell yet).
    due: int = 0
    provisional: bool = False
    elo: float | None = None
    elo_error: float | None = None
    #: The mean score per game and its standard error (None under two games): what the Scoreboard
    #: of a game of more than two seats shows as "mean ± error".
    mean: float = 0.0
    error: float | None = None
    #: A game of more than two seats: the bot's openskill rating (kothkit.store.ratings.rate_tables),
    #: its mu and sigma (the uncertainty); None in a two-seat game.
    skill: float | None = None
    skill_error: float | None = None


@attrs.frozen
class Cell:
    """The games of the row's bot against the column's bot, from the row bot's side."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


@attrs.frozen
class Crosstable:
    #: Bots in Scoreboard order (rows and columns).
    bots: tuple[str, ...]
    #: (row bot, column bot) -> (wins, draws, losses), for each pair with a game counted; in a game
    #: of more than two seats (``placings``), the games in which the row bot placed above, level
    #: with and below the column bot (kothkit.store.ratings.placed_above).
    counts: Mapping[tuple[str, str], tuple[int, int, int]] = attrs.field(factory=dict)
    placings: bool = False

    def cell(self, row: str, column: str) -> Cell | None:
        """The row bot's games against the column bot, or None if they have none counted."""
        found = self.counts.get((row, column))
        return None if found is None else Cell(*found)

    @property
    def cells(self) -> dict[tuple[str, str], Cell]:
        return {k: Cell(*v) for k, v in self.counts.items()}


class Status(enum.StrEnum):
    """A submission's status: as stored in host.sqlite (the last two only as the host shows an
    ``active`` brain, by its games), each the text of its column."""

    QUEUED = "queued"
    BUILDING = "building"
    BUILD_FAILED = "build-failed"
    CHECKING = "checking"
    CHECK_FAILED = "check-failed"
    ACTIVE = "active"
    REPLACED = "replaced"
    DISABLED = "disabled"
    PLAYING = "playing"
    DONE = "done"


@attrs.frozen
class Submission:
    """A submitted brain: a row of host.sqlite's submissions table as stored (its fields are the
    table's columns, in order: :mod:`kothkit.serve.submissions`), and as the host shows it, its
    stored ``active`` status made ``playing`` or ``done`` with the games counted so far."""

    id: int
    challenge: str
    login: str
    #: The bot's name in games and standings (the login when it is a valid bot name).
    bot: str
    time: float
    #: The language's id (see :class:`Language`).
    language: str
    #: The file name the author uploaded (shown only; the source is stored as ``Language.file``).
    filename: str
    size: int
    #: A :class:`Status` (the text of the column, as stored).
    status: str
    #: The compiler's output (build-failed; warnings otherwise).  The web shows it to its
    #: author and admins only.
    build_output: str
    #: Games of this brain counted so far, and games it has in the current round robin
    #: (for a replaced brain: as they were when it was replaced).
    played: int
    total: int
    #: Seconds its builds took (counted against the author's build_seconds_per_day).
    build_seconds: float = 0.0


@attrs.frozen
class GameSummary:
    id: str
    #: The game's place in the challenge's schedule.
    index: int
    #: Bots in seat order (seat 0 opens).
    bots: tuple[str, ...]
    #: The winner's name; None for a draw.
    winner: str | None
    #: The verdict kind when the game ended on a fault (crash, timeout...), and the bot that lost
    #: by it (the journal's ``fault`` column).
    verdict: str | None
    offender: str | None
    reason: str
    #: When the game was stored.
    time: float
    #: Every seat's place (1 = first), points and verdict, in seat order, in a game of more than two
    #: seats (the journal's seat columns); None in a two-seat game (``winner`` says all).
    seat_places: tuple[int, ...] | None = None
    seat_points: tuple[float, ...] | None = None
    seat_verdicts: tuple[str | None, ...] | None = None

    @classmethod
    def of(cls, row: Summary | GameRow, index: int | None = None) -> GameSummary:
        """The summary of a journal row, as read back (:meth:`kothkit.store.journal.Journal.summaries`)
        or as written (a :class:`kothkit.store.journal.GameRow`), at ``index`` (default: the row's)."""
        bots = tuple(json.loads(row.players))
        places = _seats(row.seat_places, len(bots), int)
        return cls(id=row.id, index=row.idx if index is None else index, bots=bots,
                   winner=row.winner, verdict=row.verdict, offender=row.fault, reason=row.reason,
                   time=row.finished_at, seat_places=places,
                   seat_points=_seats(row.seat_points, len(bots), float) if places is not None else None,
                   seat_verdicts=_seats(row.seat_verdicts, len(bots), str) if places is not None else None)

    @property
    def seated(self) -> bool:
        """Whether the game has every seat's result (a game of more than two seats)."""
        return self.seat_places is not None

    def seat_rows(self) -> list[tuple[str, int, float | None, str | None]]:
        """Every seat's (bot, place, points, verdict), in seat order (a game of more than two seats)."""
        places, points, verdicts = self.seat_places or (), self.seat_points, self.seat_verdicts
        return [(b, places[i], points[i] if points else None, verdicts[i] if verdicts else None)
                for i, b in enumerate(self.bots) if i < len(places)]

    def place_of(self, bot: str) -> int | None:
        """``bot``'s place in a game of more than two seats (its first seat), else None."""
        if self.seat_places is None or bot not in self.bots:
            return None
        return self.seat_places[self.bots.index(bot)]

    def points_of(self, bot: str) -> float | None:
        """``bot``'s points in a game of more than two seats that gave points, else None."""
        if self.seat_points is None or bot not in self.bots:
            return None
        return self.seat_points[self.bots.index(bot)]


def _seats(text: str | None, n: int, kind: type) -> tuple | None:
    """A seat column's JSON list of ``n`` values of ``kind`` (ints taken as floats; None allowed for
    str); None for NULL or anything else."""
    if not text:
        return None
    try:
        values = json.loads(text)
    except ValueError:
        return None
    if not isinstance(values, list) or len(values) != n:
        return None
    out: list = []
    for v in values:
        if kind is float and type(v) in (int, float):
            out.append(float(v))
        elif type(v) is kind or (v is None and kind is str):
            out.append(v)
        else:
            return None
    return tuple(out)
