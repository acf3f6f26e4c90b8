"""What ``kothkit run`` tells while and after it plays: the pace (games/s, time left) and the faults.

:class:`Pace` counts games as they are stored or found in the journal; its rate
and estimate count only games played in this run (reused games take no time).
:class:`Faults` keeps the faults of the games that count, played now or reused:
the first ones in schedule order in full, and a count per bot and verdict of all.
Both take constant memory however many games a tournament has.
"""

from __future__ import annotations

import heapq
import time
from collections import Counter

from kothkit.procs.pipes import error_line
from kothkit.store.records import GameResult

#: Faults listed one per line at the end of a run; the others are counted per bot.
SHOWN_FAULTS = 20
#: Characters of a game's id shown (enough to find it: ``SELECT ... WHERE id LIKE 'abcd1234%'``).
SHORT_ID = 8


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun`` in agreement: "1 bot", "2 bots", "0 games" (``plural``: where it is not noun + s)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def clock(seconds: float) -> str:
    """``seconds`` as H:MM:SS."""
    s = int(seconds + 0.5)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


class Pace:
    """Games done of ``total``, and how fast this run plays them."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.played = 0
        self.reused = 0
        self.faults = 0
        self.start = time.monotonic()

    def add(self, result: GameResult, reused: bool) -> None:
        if reused:
            self.reused += 1
        else:
            self.played += 1
        if result.offender:
            self.faults += 1

    @property
    def done(self) -> int:
        return self.played + self.reused

    def rate(self) -> float | None:
        """Games played per second in this run (None before the first)."""
        took = time.monotonic() - self.start
        return self.played / took if self.played and took > 0 else None

    def summary(self) -> str:
        """``games/s, time left, faults``: what the bar shows beside its count."""
        rate = self.rate()
        parts = []
        if rate is not None:
            parts.append(f"{rate:,.1f} games/s" if rate < 100 else f"{rate:,.0f} games/s")
            parts.append(f"about {clock((self.total - self.done) / rate)} left")
        if self.faults:
            parts.append(counted(self.faults, "fault"))
        return ", ".join(parts)

    def line(self) -> str:
        """One plain progress line (for output that is not a terminal)."""
        reused = f" ({self.reused} reused)" if self.reused else ""
        rest = self.summary()
        return (f"progress: {self.done}/{self.total} games{reused}, {clock(time.monotonic() - self.start)} elapsed"
                + (f", {rest}" if rest else ""))


class Faults:
    """The faults of a run's games: the first :data:`SHOWN_FAULTS` by schedule index, and counts."""

    def __init__(self, shown: int = SHOWN_FAULTS) -> None:
        self.shown = shown
        self.played = 0
        self.reused = 0
        self.by_bot: Counter[tuple[str, str]] = Counter()
        # A max-heap (negated index) of the lowest indexes seen: the earliest games are listed.
        self._first: list[tuple[int, str, GameResult, bool]] = []

    def add(self, result: GameResult, reused: bool) -> None:
        if not result.offender:
            return
        if reused:
            self.reused += 1
        else:
            self.played += 1
        self.by_bot[result.offender, result.verdict or "fault"] += 1
        item = (-result.place, result.id, result, reused)
        if len(self._first) < self.shown:
            heapq.heappush(self._first, item)
        elif item > self._first[0]:
            heapq.heapreplace(self._first, item)

    @property
    def total(self) -> int:
        return self.played + self.reused

    def lines(self) -> list[str]:
        """The report: a head line, one line per listed fault, and the counts when some are not listed."""
        if not self.total:
            return []
        how = []
        if self.played:
            how.append(f"{self.played} played now")
        if self.reused:
            how.append(f"{self.reused} reused from the journal")
        out = [f"faults: {counted(self.total, 'game')} lost by a fault ({', '.join(how)})"]
        for _neg, gid, r, reused in sorted(self._first, reverse=True):
            where = f"#{r.place} {gid[:SHORT_ID]}" if r.place >= 0 else gid[:SHORT_ID]
            # One line a fault: a reason that holds a whole traceback is cut to the line that says what happened.
            reason = r.reason if "\n" not in r.reason else f"{r.verdict}: {error_line(r.reason)}"
            # (a game of more seats goes on after a fault: its reason is the game's end, not the fault)
            said = (f"{r.offender} left the game: {r.verdict}" if r.seat_places is not None
                    else f"{r.offender} lost to {r.winner or '-'}: {reason}")
            out.append(f"  {where}  {said}" + ("  (reused)" if reused else ""))
        if self.total > len(self._first):
            counts = ", ".join(f"{bot} {n} {verdict}" for (bot, verdict), n in
                               sorted(self.by_bot.items(), key=lambda kv: (-kv[1], kv[0])))
            out.append(f"  ... and {self.total - len(self._first)} more; in all: {counts}")
        return out
