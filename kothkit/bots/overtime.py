"""Deadlines for function bots called in this process (``--trusted``): a call that runs past
its time is interrupted, so that a bot stuck in a loop loses on time instead of hanging the judge.

The referee arms a deadline before each call and disarms it after: two stores into
:data:`deadline` a move, nothing more on the hot path.  One watchdog thread per process
looks at it every :data:`WATCH_EVERY` seconds; when an armed deadline has passed, it sends
the main thread :data:`SIGNAL`, whose handler raises :class:`Overtime` inside the bot's
code, and the referee rules a timeout.  A blocking call (``time.sleep``, a read) is cut
short too: the signal interrupts it.

A process that calls trusted bots this way gives :data:`SIGNAL` over to it.  Limits (docs/bots.md's
"Function bots" tells users the same):

* only the main thread can be interrupted (Python runs signal handlers there); the
  referee runs there in the judge and its workers.  Elsewhere :func:`watch` hands out a
  slot nobody watches, and a call is ruled on only when it returns;
* code that does not return to the interpreter (a long computation in a C extension
  holding the interpreter lock) is interrupted only once it does;
* a bot that catches ``BaseException`` and carries on is interrupted again every
  :data:`REPEAT` seconds; if it swallows them all for :data:`GIVE_UP` seconds, the
  process's :data:`give_up` ends it where there is one (a tournament's workers), and
  nothing stops it where there is none (the judge itself, at ``--jobs 1``).
  Isolated bots (the default) have none of these limits: their host is killed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType

#: Seconds between the watchdog's looks (also the most a deadline is overshot by, on an idle machine).
WATCH_EVERY = 0.05
#: Seconds after an interruption before the next, if the bot caught it and is still running.
REPEAT = 0.1
#: Seconds past its deadline after which a call that swallowed every interruption makes the
#: watchdog call :data:`give_up`.
GIVE_UP = 5.0
SIGNAL = signal.SIGUSR2

#: What a process does with a call it cannot interrupt: None (go on interrupting), or a
#: function that ends it -- a tournament's worker exits, and its judge plays the worker's
#: games again with their bots isolated (see kothkit.playing.tournament.dispatch).
give_up: Callable[[], None] | None = None

#: The armed deadline, in ``time.perf_counter_ns()`` units, or 0 while no call is running.
deadline = [0]
_watching_pid: int | None = None


class Overtime(BaseException):
    """Raised inside a function bot's call whose deadline passed.

    A BaseException, so that a bot's ``except Exception`` does not swallow it.
    """


def watch() -> list[int]:
    """The slot to arm around calls in this thread: ``slot[0] = deadline_ns`` before a call,
    ``slot[0] = 0`` after.  Starts this process's watchdog on first use; off the main
    thread (or where signals cannot be set), a slot nobody watches."""
    global _watching_pid
    pid = os.getpid()
    if _watching_pid == pid:
        return deadline if threading.current_thread() is threading.main_thread() else [0]
    if threading.current_thread() is not threading.main_thread():
        return [0]
    try:
        signal.signal(SIGNAL, _interrupt)
    except (ValueError, OSError):
        return [0]
    deadline[0] = 0
    # A forked worker has no thread of its parent's: each process starts its own.
    threading.Thread(target=_watchdog, args=(threading.main_thread().ident,), name="kothkit-overtime",
                     daemon=True).start()
    _watching_pid = pid
    return deadline


@contextlib.contextmanager
def within(seconds: float) -> Iterator[None]:
    """Run the block with a deadline ``seconds`` from now (off the hot path: the referee's
    lean loop arms :func:`watch`'s slot itself, two stores a move)."""
    slot = watch()
    slot[0] = time.perf_counter_ns() + int(seconds * 1e9)
    try:
        yield
    finally:
        slot[0] = 0


def _interrupt(signum: int, frame: FrameType | None) -> None:
    # The signal may arrive late, after the call it was meant for: only an armed deadline
    # that has passed interrupts anything.
    due = deadline[0]
    if due and time.perf_counter_ns() >= due:
        raise Overtime()


def _watchdog(main_ident: int) -> None:
    clock = time.perf_counter_ns
    repeat, give_up_ns = int(REPEAT * 1e9), int(GIVE_UP * 1e9)
    next_kick = 0
    while True:
        due = deadline[0]
        now = clock()
        if due and now >= due:
            if now - due >= give_up_ns and give_up is not None:
                give_up()
            if now >= next_kick:  # again every REPEAT s, while the bot catches them
                next_kick = now + repeat
                try:
                    signal.pthread_kill(main_ident, SIGNAL)
                except (ProcessLookupError, OSError):
                    return  # the main thread is gone: so is everything we watch
        time.sleep(WATCH_EVERY)
