"""Limits: the time, memory and I/O bounds the core enforces on every bot.

A game plugin gives its defaults in ``GameInfo.limits``; a challenge file's
``[limits]`` table and command-line flags override them.  All times are in
seconds of wall time measured by the core from the prompt sent to the reply
line received; ``tolerance`` is added to each limit before a bot is ruled late.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import attrs

#: The longest time any limit may give (a week): larger ones overflow the waits' timeouts.
MAX_SECONDS = 7 * 24 * 3600.0
#: The largest count or size (in its unit) a limit may give: caps go into kernel interfaces.
MAX_COUNT = 1 << 31
#: The process cap of a game's bot (and of a build) when the challenge sets none.
DEFAULT_PROCESSES = 256
#: An environment variable's name, as a bot.toml's or a challenge's ``env`` table may give it.
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
#: Most variables, and longest value, an ``env`` table may give.
MAX_ENV = 64
MAX_ENV_VALUE = 4096


def env_pairs(value: Any, what: str) -> tuple[tuple[str, str], ...]:
    """An ``env`` table (a mapping of names to strings, or (name, value) pairs as a journal stores
    them) as sorted pairs; a ValueError says what is wrong with it."""
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, (list, tuple)) and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in value):
        items = [(p[0], p[1]) for p in value]
    else:
        raise ValueError(f"{what} must be a table of names to strings, got {value!r:.100}")
    if len(items) > MAX_ENV:
        raise ValueError(f"{what} gives more than {MAX_ENV} variables")
    for k, v in items:
        if not isinstance(k, str) or not ENV_NAME.fullmatch(k):
            raise ValueError(f"{what}: {k!r:.80} is not a variable name (letters, digits and '_', not first a digit)")
        if not isinstance(v, str) or "\0" in v or len(v) > MAX_ENV_VALUE:
            raise ValueError(f"{what}: {k} must be a string of at most {MAX_ENV_VALUE} characters, got {v!r:.80}")
    return tuple(sorted(items))


def _seconds(minimum_exclusive: bool) -> Callable[[object, attrs.Attribute[Any], Any], None]:
    """A time in seconds: a real, finite number (nan and inf are not), positive or at least 0."""

    def check(inst: object, attribute: attrs.Attribute[Any], value: Any) -> None:
        if value is None and attribute.default is None:
            return
        if type(value) not in (int, float) or not math.isfinite(value) or not (
                0 < value if minimum_exclusive else 0 <= value) or value > MAX_SECONDS:
            least = "> 0" if minimum_exclusive else ">= 0"
            raise ValueError(f"{attribute.name} must be a number of seconds {least} and at most {MAX_SECONDS:g}, "
                             f"got {value!r}")

    return check


def _positive(inst: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """A count or size: a whole number (300.5 MiB is not) from 1 to :data:`MAX_COUNT`."""
    if value is None and attribute.default is None:
        return
    if type(value) is not int or not 0 < value <= MAX_COUNT:
        raise ValueError(f"{attribute.name} must be a whole number from 1 to {MAX_COUNT}, got {value!r}")


def _env_limit(value: Any) -> tuple[tuple[str, str], ...]:
    return env_pairs(value, "env")


@attrs.frozen
class Limits:
    #: Seconds for one reply (every wait has a deadline, so this is never unlimited).
    move_time: float = attrs.field(default=5.0, validator=_seconds(True))
    #: Seconds for a reply to a prompt with ``clock="first"`` (e.g. START -> OK); None: move_time.
    first_reply_time: float | None = attrs.field(default=None, validator=_seconds(True))
    #: Seconds of a bot's own reply time in one game, summed; None: no budget.
    game_time: float | None = attrs.field(default=None, validator=_seconds(True))
    #: Added to every time limit before a reply counts as late (pipe and scheduling jitter).
    tolerance: float = attrs.field(default=0.05, validator=_seconds(False))
    #: Seconds for a reply to a prompt with ``clock="start"`` (an engine's start-up, e.g. Piskvork's
    #: START -> OK), never charged to ``game_time``; None: ``first_reply_time``.
    startup_time: float | None = attrs.field(default=None, validator=_seconds(True))
    #: Seconds a Python function bot's file has to load (an isolated bot's host included: its start
    #: and its first request), before its first move and never charged to it; None: the first
    #: reply's time, at least 20 s (kothkit.playing.seats.load_time).
    load_time: float | None = attrs.field(default=None, validator=_seconds(True))
    #: Seconds the core waits, after a bot's reply, before it writes to that bot again (some
    #: engines drop a command that comes within milliseconds of their move); 0: none.  At most 1.
    guard: float = attrs.field(default=0.0, validator=[_seconds(False), attrs.validators.le(1.0)])
    #: Seconds a bot gets after the final message before its process group is killed.
    grace: float = attrs.field(default=0.5, validator=_seconds(False))
    #: Cap on the resident memory of a bot and its children, in MiB; None: no cap.
    memory_mb: int | None = attrs.field(default=None, validator=_positive)
    #: Cap on a bot's CPU seconds over one game (RLIMIT_CPU); None: no cap.
    cpu_seconds: int | None = attrs.field(default=None, validator=_positive)
    #: Cap on the processes (tasks: threads count) a bot may run at once; None: :data:`DEFAULT_PROCESSES`
    #: where a pids cgroup holds it (a fork bomb must not take the host's PID space).
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
    aside_line_cap: int = attrs.field(default=16 * 1024, validator=_positive)
    #: Diagnostic bytes kept per bot and game; more are counted and dropped.
    aside_total_cap: int = attrs.field(default=32 * 1024, validator=_positive)
    #: stderr bytes kept per bot and game in the record; more are counted and dropped.
    stderr_cap: int = attrs.field(default=32 * 1024, validator=_positive)
    #: Bind each running game's bots to one CPU core (core = job slot).
    pin_cpu: bool = attrs.field(default=True, validator=attrs.validators.instance_of(bool))
    #: Bots may use the host's network.  Off: each bot runs in a network namespace of its own with
    #: nothing but its own loopback (where the machine has network namespaces).
    network: bool = attrs.field(default=False, validator=attrs.validators.instance_of(bool))
    #: Environment variables every bot of the challenge gets (the challenge's ``[env]`` table), as
    #: (name, value) pairs, on top of the jail's short list (kothkit.procs.contain.Jail.environment).
    env: tuple[tuple[str, str], ...] = attrs.field(default=(), converter=_env_limit)

    @property
    def first_time(self) -> float:
        return self.first_reply_time if self.first_reply_time is not None else self.move_time

    @property
    def start_time(self) -> float:
        return self.startup_time if self.startup_time is not None else self.first_time

    def replace(self, **changes: Any) -> Limits:
        """A copy with ``changes`` applied; keys that are None are left as they were."""
        return attrs.evolve(self, **{k: v for k, v in changes.items() if v is not None})


LIMIT_KEYS = tuple(a.name for a in attrs.fields(Limits))
#: Limits added after journals existed: left out of a game's identity while at their defaults
#: (kothkit.playing.schedule.settings_of), so that the games played before keep their ids.
LATER_LIMITS = ("network", "env", "startup_time", "guard", "load_time")
