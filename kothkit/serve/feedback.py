"""What a student learns from a submission: per brain, its points and wins, draws and losses, the
games counted of those due, and its games' faults by verdict, each kind with its first game (a
link) and reason: the brain's own faults in full (stderr quote included: it is the author's), the
opponents' faults neutral.  A brain that lost every game counted by a fault of its own is flagged.

And one spelling of each submission status for every page (:func:`status_label`).
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from kothkit.serve.i18n import _
from kothkit.serve.privacy import neutral
from kothkit.serve.views import GameSummary, ScoreboardRow


def status_label(status: str) -> str:
    """A submission's status (a stored id) as the pages spell it, in the request's language."""
    labels = {"queued": _("queued"), "building": _("building"), "build-failed": _("build failed"),
              "playing": _("playing"), "done": _("done"), "replaced": _("replaced"),
              "checking": _("checking"), "check-failed": _("check failed"), "active": _("in play"),
              "disabled": _("disabled")}
    return labels.get(status, status)


@attrs.frozen
class Faults:
    """The games of one verdict: how many, and the first of them (by its place in the schedule)."""

    verdict: str
    count: int
    game: str
    reason: str


@attrs.frozen
class Feedback:
    rank: int | None
    points: float
    wins: int
    draws: int
    losses: int
    played: int
    total: int
    #: The brain's own faults, and its opponents' (in games against it), by verdict.
    own: tuple[Faults, ...]
    theirs: tuple[Faults, ...]
    #: A game of more seats: the mean score per game ± its error, the openskill rating ± sigma (None
    #: in a two-seat game).
    mean: float = 0.0
    error: float | None = None
    skill: float | None = None
    skill_error: float | None = None

    @property
    def own_faults(self) -> int:
        return sum(f.count for f in self.own)

    @property
    def all_by_fault(self) -> bool:
        """Whether the brain lost every game counted by a fault of its own."""
        return self.played > 0 and self.own_faults >= self.played


def _by_verdict(games: Iterable[GameSummary], private: bool) -> tuple[Faults, ...]:
    first: dict[str, GameSummary] = {}
    counts: dict[str, int] = {}
    for g in sorted(games, key=lambda g: g.index):
        kind = g.verdict or "fault"
        counts[kind] = counts.get(kind, 0) + 1
        first.setdefault(kind, g)
    return tuple(Faults(kind, counts[kind], g.id, g.reason if private else neutral(g.reason))
                 for kind, g in first.items())


def feedback(bot: str, standing: ScoreboardRow | None, games: list[GameSummary], played: int, total: int) -> Feedback:
    """The feedback of the brain playing as ``bot`` from its row of the standings and its games
    counted (``played`` of ``total`` due)."""
    own, theirs = [], []
    for g in games:
        if g.seat_verdicts is not None:  # a game of more seats: each seat's own verdict (the brain's first seat's)
            mine = g.seat_verdicts[g.bots.index(bot)] if bot in g.bots else None
            if mine is not None:
                own.append(attrs.evolve(g, verdict=mine))
            other = next((v for b, v in zip(g.bots, g.seat_verdicts) if b != bot and v is not None), None)
            if other is not None:
                theirs.append(attrs.evolve(g, verdict=other))
        elif g.offender == bot:
            own.append(g)
        elif g.offender is not None:
            theirs.append(g)
    s = standing
    return Feedback(rank=s.rank if s else None, points=s.points if s else 0.0, wins=s.wins if s else 0,
                    draws=s.draws if s else 0, losses=s.losses if s else 0, played=played, total=total,
                    own=_by_verdict(own, True), theirs=_by_verdict(theirs, False),
                    mean=s.mean if s else 0.0, error=s.error if s else None, skill=s.skill if s else None,
                    skill_error=s.skill_error if s else None)
