"""The live progress of ``kothkit run``: a bar on a terminal, a plain line now and then in a log or a
pipe, nothing with ``--quiet``; and the counts of games and faults that the summary prints."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from kothkit.playing.progress import Faults, Pace

if TYPE_CHECKING:
    from rich.console import Console


class Progress:
    """Fed every finished game (:meth:`on_record`), it shows how far a run of ``total`` games is."""

    def __init__(self, out: Console, total: int, *, quiet: bool, every: float) -> None:
        self.out = out
        self.pace, self.faults = Pace(total), Faults()
        self.live = out.is_terminal and not quiet
        #: Not a terminal (a log, a pipe): a plain line every ``every`` seconds, or a line a game if 0.
        self.plain = not out.is_terminal and not quiet
        self.every = every
        self._shown = 0.0  # when the bar was last drawn
        self._bar: Any = None
        self._task: Any = None
        if self.live:  # (rich's progress modules are imported only when a bar is shown)
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as Bar

            self._bar = Bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            TextColumn("{task.fields[pace]}"), console=out, auto_refresh=False)
            self._task = self._bar.add_task("games", total=total, pace="")

    def on_record(self, record: Any, reused: bool) -> None:
        self.pace.add(record, reused)
        self.faults.add(record, reused)
        # Games can finish by the thousand a second: the bar is redrawn ten times a second at most.
        now = time.monotonic()
        if self.live and now - self._shown >= 0.1:
            self._draw()
            self._shown = now
        elif self.plain and self.every <= 0:
            self.out.print(self.pace.line(), markup=False)

    def _draw(self) -> None:
        self._bar.update(self._task, completed=self.pace.done, pace=self.pace.summary())
        self._bar.refresh()

    @contextlib.contextmanager
    def shown(self) -> Iterator[None]:
        """While the games are played: the bar drawn, or plain lines on a timer.  The timer has a thread
        of its own, which only reads the counts, so that lines come also while no game finishes (a
        game of minutes, or ``--jobs 1``, where the main thread plays the games itself)."""
        stop = threading.Event()

        def tick() -> None:
            while not stop.wait(self.every):
                self.out.print(self.pace.line(), markup=False)

        ticker = threading.Thread(target=tick, name="progress", daemon=True)
        if self.plain and self.every > 0:
            ticker.start()
        try:
            with self._bar if self.live else contextlib.nullcontext():
                yield
                if self.live:
                    self._draw()
        finally:
            stop.set()
            if ticker.is_alive():
                ticker.join(timeout=10)
