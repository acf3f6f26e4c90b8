"""Limits: the time, memory and I/O bounds the core enforces on every bot.

A game plugin gives its defaults in ``GameInfo.limits``; a challenge file's
``[limits]`` table and command-line flags override them.  All times are in
seconds of wall time measured by the core from the prompt sent to the reply
line received; ``tolerance`` is added to each limit before a bot is ruled late.
"""

from __future__ import annotations

import attrs


def _positive(inst, attribute, value):
    if value is not None and value <= 0:
        raise ValueError(f"{attribute.name} must be positive, got {value!r}")


@attrs.frozen
class Limits:
    #: Seconds for one reply (every wait has a deadline, so this is never unlimited).
    move_time: float = attrs.field(default=5.0, validator=_positive)
    #: Seconds for a reply to a prompt with ``clock="first"`` (e.g. START -> OK); None: move_time.
    first_reply_time: float | None = attrs.field(default=None, validator=_positive)
    #: Seconds of a bot's own reply time in one game, summed; None: no budget.
    game_time: float | None = attrs.field(default=None, validator=_positive)
    #: Added to every time limit before a reply counts as late (pipe and scheduling jitter).
    tolerance: float = 0.05
    #: Seconds a bot gets after the final message before its process group is killed.
    grace: float = attrs.field(default=0.5, validator=attrs.validators.ge(0))
    #: Cap on the resident memory of a bot and its children, in MiB; None: no cap.
    memory_mb: int | None = attrs.field(default=None, validator=_positive)
    #: Cap on a bot's CPU seconds over one game (RLIMIT_CPU); None: no cap.
    cpu_seconds: int | None = attrs.field(default=None, validator=_positive)
    #: Cap on the processes (tasks) a bot may run at once; None: no cap.
    processes: int | None = attrs.field(default=None, validator=_positive)
    #: Cap on the size of any file a bot writes, in MiB; None: no cap.
    file_size_mb: int | None = attrs.field(default=None, validator=_positive)
    #: Cap on what a bot writes, in MiB: its private /tmp and /dev/shm (tmpfs of this size each,
    #: their pages counted by the memory cap too), any one file (RLIMIT_FSIZE), and a stateful
    #: bot's folder, measured before each of its games.
    disk_mb: int = attrs.field(default=256, validator=_positive)
    #: Cap on a bot's open file descriptors; None: no cap.
    open_files: int | None = attrs.field(default=None, validator=_positive)
    #: Longest line a bot may write, in bytes; a longer one is an invalid reply.
    max_line: int = attrs.field(default=1 << 16, validator=_positive)
    #: Longest diagnostic (aside) line kept, in bytes; the rest of it is cut.
    aside_line_cap: int = 16 * 1024
    #: Diagnostic bytes kept per bot and game; more are counted and dropped.
    aside_total_cap: int = 32 * 1024
    #: stderr bytes kept per bot and game in the record; more are counted and dropped.
    stderr_cap: int = 32 * 1024
    #: Bind each running game's bots to one CPU core (core = job slot).
    pin_cpu: bool = True

    @property
    def first_time(self) -> float:
        return self.first_reply_time if self.first_reply_time is not None else self.move_time

    def replace(self, **changes) -> "Limits":
        """A copy with ``changes`` applied; keys that are None are left as they were."""
        return attrs.evolve(self, **{k: v for k, v in changes.items() if v is not None})


LIMIT_KEYS = tuple(a.name for a in attrs.fields(Limits))
