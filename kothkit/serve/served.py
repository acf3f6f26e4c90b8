"""What the host keeps of each challenge it serves (:class:`Served`), a schedule made for one
(:class:`Plan`), a challenge's phase (:class:`Phase`), and :class:`Parts`: the state the parts of
:class:`kothkit.serve.host.Host` share (serving in ``host.py``, reading in ``reading.py``, the
schedule in ``scheduling.py``, builds and checks in ``building.py``)."""

from __future__ import annotations

import datetime as dt
import enum
import queue
import re
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from kothkit.scoring import Scoring, Tally
from kothkit.serve.errors import SubmitError
from kothkit.serve.settings import ServeSettings
from kothkit.serve.views import GameSummary

if TYPE_CHECKING:
    from kothkit.game import GameInfo
    from kothkit.limits import Limits
    from kothkit.playing.dispatcher import Dispatcher
    from kothkit.playing.executor import Executor
    from kothkit.playing.openings import Openings
    from kothkit.playing.schedule import Changes, Planned
    from kothkit.serve.submissions import Store
    from kothkit.store.journal import Journal



class PhaseClosed(SubmitError):
    """Submissions are not taken now: before the challenge's ``opens`` or after its ``closes``."""


class Period(enum.StrEnum):
    """A :class:`Phase`'s name."""

    BEFORE = "before"
    OPEN = "open"
    CLOSED = "closed"
    FINAL = "final"


@attrs.frozen
class Phase:
    """Where a challenge is in its contest: ``open`` (submissions taken), ``before`` (``opens`` is
    to come), ``closed`` (``closes`` passed, games still due) or ``final`` (closed, nothing due:
    the standings are final).  ``text`` says it in a few words, with the date."""

    name: Period
    opens: dt.datetime | None
    closes: dt.datetime | None
    text: str

    @property
    def final(self) -> bool:
        return self.name == Period.FINAL

    @property
    def taking(self) -> bool:
        return self.name == Period.OPEN


def date_text(d: dt.datetime) -> str:
    return d.isoformat(sep=" ", timespec="minutes")


@attrs.define(eq=False)
class Served:
    """One challenge as the host keeps it.  Written by the dispatcher thread, under the host's lock."""

    name: str
    folder: Path
    settings: ServeSettings
    info: GameInfo
    #: How its results count: the game's scoring with the challenge's ``[scoring]`` over it, as
    #: loaded and checked at start (``Game.scoring``).
    scoring: Scoring
    limits: Limits
    rules: dict
    rounds: int
    seed: int | None
    journal_path: Path
    #: Folder challenges: where the bots are (the challenge's ``bots``).
    entries: list[str]
    #: The challenge file's openings (``openings``: kothkit.playing.openings), or None.
    openings: Openings | None = None
    #: The bots in the round robin now, and when each last changed (its submission's time, or its
    #: folder's latest change).
    bots: dict = attrs.field(factory=dict)
    latest: dict = attrs.field(factory=dict)
    #: Submissions: bot -> its author's login (every bot ever submitted), and the active submission's id.
    logins: dict = attrs.field(factory=dict)
    active: dict = attrs.field(factory=dict)
    #: Folder bots left out (do not load or build): one line each.
    errors: tuple = ()
    #: Folder bots whose build failed, by (name, hash): the build's message.
    failed: dict = attrs.field(factory=dict)
    #: Bots whose games are played first (new or changed, until their games are all played).
    fresh: set = attrs.field(factory=set)
    #: The current schedule (kothkit.playing.schedule.Planned: its games, their places), the bots
    #: it was made of (name -> hash), and its games not counted.
    plan: Planned | None = None
    planned: dict = attrs.field(factory=dict)
    unplayed: set = attrs.field(factory=set)
    #: Whether counted games may hold an index from before the pairs' order last changed.
    stale: bool = False
    #: The current schedule's games found in the journal.
    counted: dict = attrs.field(factory=dict)
    #: Folder bots being built or queued, by (name, hash); and those built by a cluster's workers
    #: (their build output is on the workers' machines, not necessarily here).
    building: set = attrs.field(factory=set)
    built: set = attrs.field(factory=set)
    #: The standings of the counted games, kept game by game.
    board: Tally | None = None
    version: int = 0
    #: (version, standings) and (version, crosstable), worked out when asked.
    cache: tuple | None = None
    table: tuple | None = None
    #: (version, {bot: kothkit.store.ratings.SkillRating}): a game of more seats' openskill ratings.
    skills: tuple | None = None
    #: The ratings kept game by game (kothkit.store.ratings.TableRater) and its lock: the web's
    #: threads rate new games on top of them, one at a time.
    rater: Any = None
    rating: threading.Lock = attrs.field(factory=threading.Lock)
    #: The counted games, oldest first (games are stored as they finish: a new one goes last).
    recent: list = attrs.field(factory=list)
    # Owned by the dispatcher thread:
    journal: Journal | None = None
    #: A folder challenge's records of its stateful bots' folders (kothkit.playing.keeping.Records).
    kept: Any = None
    code: dict | None = None
    run_id: int | None = None
    run_stored: int = 0
    run_bots: list | None = None
    #: Bots added or changed since the last schedule (None: nothing changed).
    changed: set | None = None
    #: The thread planning a new schedule, the bots changed since it started (None: none), and
    #: the games stored meanwhile (None: no plan is being made).
    planner: threading.Thread | None = None
    again: set | None = None
    stored_since: list | None = None

    @property
    def kind(self) -> str:
        return self.settings.kind

    @property
    def played_rules(self) -> dict:
        """The rules its schedule and its run are made of: ``rules`` with its openings (if any) under
        kothkit.playing.openings.KEY, as kothkit run keeps them (so the same games, the same ids)."""
        if self.openings is None:
            return dict(self.rules)
        from kothkit.playing.openings import KEY, as_setting

        return {**self.rules, KEY: as_setting(self.openings)}

    def total_per_bot(self) -> int:
        """Games each bot has in the schedule: 2 * rounds against each other bot in a round robin of
        pairs; k * rounds at tables of k seats (kothkit.playing.schedule), none while too few bots."""
        n = len(self.bots)
        if self.info.two_seats:
            return 2 * self.rounds * max(0, n - 1)
        fewest, most = self.info.seat_range
        return min(n, most) * self.rounds if n >= max(fewest, 2) else 0


@attrs.frozen
class Plan:
    """A challenge's round robin as scheduled from its bots (see Host._plan): what changed since
    the schedule before it, or (``full``) the whole of it."""

    fresh: set
    full: bool
    plan: Planned
    changes: Changes
    #: The new games found in the journal (every game's, when ``full``).
    found: list
    #: The games not in the journal, a new bot's first.
    first: list
    rest: list
    #: Games that were in play when it was planned.
    skipped: list


def safe_name(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.")[:60]
    return name or "challenge"


def recent_key(s: GameSummary) -> tuple:
    """The order of the counted games: as they were stored (a game's index at the time it was
    counted settles a tie)."""
    return s.time, -s.index


def folder_time(folder: Path) -> float | None:
    """The latest change among a bot folder's files (build output and state left out)."""
    from kothkit.bots.folders import HASH_IGNORE, stats_below

    return max((st.st_mtime for st in stats_below(folder, 2000, HASH_IGNORE)), default=None)


class Parts:
    """The state the parts of :class:`kothkit.serve.host.Host` share (set by its constructor), and
    what each part may call of the others."""

    state_dir: Path
    jobs: int
    cpu: dict[str, str]
    cluster: str | None
    problem: str | None
    _lock: threading.RLock
    _changed: threading.Condition
    _served: list[Served]
    _by_name: dict[str, Served]
    _store: Store
    _stopping: threading.Event
    _wake: threading.Event
    #: Where games and builds run, and what plays and builds there (one lane per challenge).
    _slots: Executor | None
    _work: Dispatcher
    #: (challenge, plan) from the planning threads; work for the dispatcher thread from the web's.
    _planned: queue.Queue
    _commands: queue.Queue

    if TYPE_CHECKING:
        def _build(self, c: Served, item: tuple, front: bool = False) -> None: ...


    def _get(self, name: str) -> Served:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"no challenge {name!r}") from None

    def _bump(self, c: Served) -> None:
        """Something on ``c``'s scoreboard changed (call with the lock held)."""
        c.version += 1
        self._changed.notify_all()

    def _note(self, text: str) -> None:
        self.problem = text
        self._log(text)

    @staticmethod
    def _log(text: str) -> None:
        print(f"kothkit host: {text}", file=sys.stderr, flush=True)

    def _playing(self, c: Served) -> dict:
        """``c``'s games in play: id -> task."""
        return self._work.inflight(c.name)
