"""Seats: whatever plays one seat of one game, behind one small interface the referee's loop uses.

A seat is started (:meth:`Seat.start`), asked for a reply with a deadline
(:meth:`Seat.ask`), told what needs no reply (:meth:`Seat.notify`), and stopped
once the game is over (:meth:`Seat.end_input`, then :meth:`Seat.stop`, which returns
what happened at exit).  One class per kind:

* :class:`ProgramSeat` -- a program bot: a process in its jail, talking in lines
  (``kothkit.procs.pipes``);
* :class:`HostSeat` -- a Python function bot in its isolated host process
  (``kothkit.bots.funchost``), kept across games in a :class:`HostPool`;
* :class:`FunctionSeat` -- a function bot called in this process (``--trusted``),
  interrupted past its deadline (``kothkit.bots.overtime``);
* :class:`PersonSeat` -- a person at the terminal, or a record of one (``kothkit play``,
  ``kothkit verify``): untimed.

``kothkit check`` adds its scripted opponent and its listening bot as seats too
(:mod:`kothkit.playing.check`).  The time rules are the referee's, not a seat's: a
seat answers with its reply and the nanoseconds it took; the loop rules on them.
A seat reads and waits through the referee (one selector over every process's pipes,
which also catches another seat's out-of-turn output while one is awaited).
"""

from __future__ import annotations

import json
import os
import select
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, cast

import attrs

from kothkit.bots import overtime
from kothkit.bots.folders import BotKind, BotSpec, folder_bytes
from kothkit.bots.functions import FunctionBot, FunctionBotError
from kothkit.game import GameInfo, Match, Outcome, Prompt, Rejected, Setup, Verdict
from kothkit.limits import Limits
from kothkit.messages import say
from kothkit.playing.seeding import bot_seed as bot_seed
from kothkit.procs.contain import Jail
from kothkit.procs.defuse import defuse, own
from kothkit.procs.fastjson import dumps_compact
from kothkit.procs.pipes import LineProcess, LineTooLong
from kothkit.store.records import GameTask, Move

# A call request's line is this, the prompt's payload as a JSON array, and "}".
_CALL_HEAD = '{"op":"call","args":'

#: Seconds a new function host may take to start and answer its first request (not a move), unless
#: the limits say otherwise (:func:`load_time`).
HOST_START_TIME = 20.0
#: Seconds a seat thinks before the seats that wait are frozen (kothkit.playing.referee.FREEZE_AFTER's
#: value, for a function host's own wait; seats do not import the referee, which imports them).
FREEZE_AFTER = 0.005

_clock_ns = time.perf_counter_ns

#: (verdict, reason) of a reply that comes too late, as the referee rules it.
Late = tuple[Verdict, str]
_NO_REPLY: Late = (Verdict.TIMEOUT, say("no reply in time"))


@attrs.frozen
class Fault:
    """A fault that ends the game: ``seat`` loses with ``verdict``."""

    seat: int
    verdict: Verdict
    reason: str


class Stop(Exception):
    """Raised wherever a fault is found; the referee ends the game with it."""

    def __init__(self, fault: Fault, host_ok: bool = False):
        self.fault = fault
        #: The fault is a function host's well-formed error answer (the bot raised, or its
        #: file does not load): the host is sound and in step, and may serve the next game.
        self.host_ok = host_ok


class EndGame(Exception):
    """Raised by a seat that ends the game itself (``kothkit check``'s opponent resigning):
    ``outcome`` is how it ended, as ``Match.forfeit`` gave it; no fault."""

    def __init__(self, outcome: Outcome):
        self.outcome = outcome


@attrs.frozen
class Exit:
    """What a seat's process did once its game was over (nothing to say for a seat without one)."""

    #: It left within the grace period after its input closed (None: it has no process of its own).
    exited: bool | None = None
    code: int | None = None
    #: What it had written without a newline when its input closed.
    partial: bytes = b""
    #: What came out of its stdout only as it exited (kept by seats that ask for it, see ProgramSeat.keep_exit).
    late: bytes = b""


NO_EXIT = Exit()


def _short(text: str, n: int = 80) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= n else text[:n] + "..."


class Judge(Protocol):
    """What a seat uses of the referee that plays it (:class:`kothkit.playing.referee.Referee`),
    named here so that the seats need not import the referee that imports them."""

    @property
    def task(self) -> GameTask: ...
    @property
    def info(self) -> GameInfo: ...
    @property
    def limits(self) -> Limits: ...
    @property
    def cpus(self) -> Sequence[int | None]: ...
    @property
    def cpu(self) -> int | None: ...
    @property
    def hosts(self) -> HostPool: ...
    @property
    def sel(self) -> select.epoll | None: ...
    @property
    def moves(self) -> list[Move]: ...
    @property
    def prefix(self) -> str | None: ...
    @property
    def folded(self) -> tuple[str, ...]: ...
    @property
    def has_asides(self) -> bool: ...
    def is_aside(self, line: str) -> bool: ...
    @property
    def idle(self) -> set[int]: ...
    @property
    def on_event(self) -> Callable[[str, int, str, float | None], None] | None: ...
    @property
    def seats(self) -> list[Seat]: ...
    def time_allowed(self, s: Seat, step: Prompt) -> tuple[float, Verdict, str]: ...
    def emit(self, kind: str, seat: int, text: str, ms: float | None = None) -> None: ...
    def stderr_shower(self, s: Seat) -> Callable[[str], None] | None: ...
    def wait_line(self, s: Seat, deadline: float, late_verdict: Verdict, late_why: str) -> str: ...
    def watch(self, fd: int, seat: Seat, which: str) -> None: ...
    def read_ready(self, fd: int) -> None: ...
    def keep_aside(self, s: Seat, line: str) -> None: ...
    def freeze_idle(self) -> None: ...
    def overtime_slot(self) -> list[int]: ...


@attrs.define(eq=False)
class Seat:
    """One seat of one game.  The referee sets ``ref`` before :meth:`start`."""

    #: Talks in text lines over pipes of its own: it gets notices and the end messages, its
    #: diagnostic (aside) lines are kept, and a line it writes when no reply is due is a fault.
    lines = False
    #: Its replies are held to the time limits (a person's and a script's are not).
    timed = True
    #: The referee calls :meth:`after_play` once its move is played (kothkit check's listening seat).
    follows = False

    index: int
    spec: BotSpec
    ref: Judge = attrs.field(default=None, repr=False)
    #: The process whose pipes the referee watches (a program, or a function bot's host).
    proc: LineProcess | None = None
    jail: Jail | None = None
    used: float = 0.0  # seconds of own reply time this game (kept only for a game time budget)
    aside: list[str] = attrs.field(factory=list)
    #: Per kept aside line, and per read of stderr (with its end offset): replies recorded so far.
    aside_moves: list[int] = attrs.field(factory=list)
    err_marks: list[tuple[int, int]] = attrs.field(factory=list)
    #: perf_counter time the prompt awaiting this seat's reply was sent (None when none is due).
    asked_at: float | None = None
    aside_bytes: int = 0
    aside_dropped: int = 0
    start_error: str | None = None
    detail: str | None = None  # the traceback of a function bot that raised, for its log
    start_verdict: Verdict = Verdict.CRASH

    def start(self) -> None:
        """Get ready to play; a failure sets ``start_error`` (and ``start_verdict``), it never raises."""

    def ask(self, match: Match, step: Prompt, allowed_ns: int, late: Late) -> tuple[Any, int]:
        """The reply to ``step`` and the nanoseconds it took.  ``allowed_ns`` (tolerance included) is
        the deadline a seat waits to at most; the loop rules on the time, and raises ``late``."""
        raise NotImplementedError

    def notify(self, match: Match, payload: Any, kind: str) -> None:
        """A line that needs no reply (``kind``: notice or final).  Only seats that talk in lines get it."""

    def send_prompt(self, match: Match, step: Prompt) -> bool:
        """Send ``step`` without waiting for the reply (a :class:`kothkit.game.Round`'s prompts go out
        together): True if sent, the reply then coming as lines (:meth:`take_line`); False for a
        seat that is asked in turn (:meth:`ask`: a function called in this process, a person)."""
        return False

    def take_line(self, line: str) -> tuple[bool, Any]:
        """A line read from a seat whose prompt :meth:`send_prompt` sent: (True, the reply), or
        (False, None) for a line that is not the reply yet (a function host's owed acknowledgement);
        raises Stop for a line that is a fault."""
        return True, line

    def show_reply(self, reply: Any, ms: float) -> None:
        """Tell whoever watches the game (on_event) what this seat replied."""
        self.ref.emit("reply", self.index, reply if isinstance(reply, str) else repr(reply), ms)

    def refusal(self, rejected: Rejected) -> Exception:
        """What the referee raises when the game rejects this seat's reply."""
        return Stop(Fault(self.index, rejected.verdict, rejected.reason))

    def after_play(self, match: Match) -> None:
        """Called after this seat's move was played, for seats with ``follows``; may raise Stop or EndGame."""

    def forget(self) -> None:
        """The seat's process died or misbehaved: nothing of it is to be reused."""

    def end_input(self, ended: bool) -> None:
        """The game is over (``ended``) or cut short: the first step of stopping, for every seat at once."""

    def stop(self, end: float, ended: bool) -> Exit:
        """Stop for good (a process gets until ``end``, a monotonic time, to leave); what happened at exit."""
        return NO_EXIT

    def output(self, moves: int) -> tuple[str, list[int]]:
        """What the bot wrote to stderr (or printed) this game, and for its lines the replies recorded
        when each was read, where known (``moves``: the number that means after the game)."""
        return "", []


def _over_disk(seat: Seat, folder: Path) -> bool:
    """What a stateful bot keeps in its folder is capped like its /tmp (disk_mb): over it, the
    bot does not start and loses (True, the seat's start error set); measured before the game,
    deterministically."""
    limits = seat.ref.limits
    cap = limits.disk_mb << 20
    if folder.is_dir() and folder_bytes(folder, cap) > cap:
        seat.start_error = f"its folder holds more than disk_mb ({limits.disk_mb} MiB)"
        seat.start_verdict = Verdict.DISK
        return True
    return False


@attrs.define(eq=False)
class ProgramSeat(Seat):
    """A program bot: a process in its jail, prompts and replies as lines."""

    lines = True
    #: Read its stdout to the end once it exited (``kothkit check``: a reply stuck in its buffer).
    keep_exit = False
    exit: Exit = NO_EXIT

    def start(self) -> None:
        ref, spec, limits = self.ref, self.spec, self.ref.limits
        if spec.stateful and _over_disk(self, spec.path):
            return
        task, info = ref.task, ref.info
        argv = list(spec.command)
        if info.bot_args is not None:
            setup = Setup(players=tuple(b.name for b in task.players), seed=task.seed,
                          rules={**info.rules, **task.rules})
            argv += [str(a) for a in info.bot_args(setup, self.index, bot_seed(task.seed, self.index))]
        self.jail = jail = Jail(limits, cpu=ref.cpus[self.index % len(ref.cpus)], writable=spec.stateful,
                                freezable=not info.pondering, reuse_root=True, env=spec.env)
        if spec.stateful:
            own(spec.path)  # what it writes is an unprivileged user's, never root's (kothkit.procs.defuse)
        proc = self.proc = LineProcess(argv=argv, cwd=spec.path, max_line=limits.max_line,
                                       stderr_cap=limits.stderr_cap, on_stderr=ref.stderr_shower(self),
                                       aside_prefix=ref.prefix.encode() if ref.prefix else None,
                                       aside_folded=tuple(p.encode() for p in ref.folded),
                                       any_line_end=info.any_line_end,
                                       aside_line_cap=limits.aside_line_cap)
        try:
            jail.setup()
            proc.argv = jail.wrap(argv, spec.path)  # under kothkit's init where namespaces work
            proc.pass_fds = jail.pass_fds
            proc.preexec = jail.preexec if jail.needs_preexec() else None
            proc.start()
            jail.started(proc.pid)
        except Exception as e:  # exec failure, bad cwd, preexec failure: the bot's fault, not the judge's
            self.start_error = say("cannot start {program}: {error}", program=repr(_short(argv[0])),
                                   error=_short(str(e), 200))
            if proc.proc is not None:
                proc.kill()
            self.proc = None  # nothing to send to, read or stop
            jail.teardown()  # its cgroups, made before the start failed
            return
        ref.watch(proc.stdout_fd, self, "out")
        ref.watch(proc.stderr_fd, self, "err")

    def send_prompt(self, match: Match, step: Prompt) -> bool:
        if type(self).ask is not ProgramSeat.ask:
            return False  # a seat that asks its own way (kothkit check's) is asked in turn
        ref = self.ref
        line = match.encode(step[1])
        if ref.on_event is not None:
            ref.emit("send", self.index, line)
        ref.idle.discard(self.index)
        jail, proc = self.jail, self.proc
        assert jail is not None and proc is not None  # started (else it left the game at its start)
        if jail.frozen:
            jail.thaw()
        self.asked_at = time.perf_counter()
        proc.send(line)
        return True

    def ask(self, match: Match, step: Prompt, allowed_ns: int, late: Late) -> tuple[Any, int]:
        # Once a move: what only some games need (someone watching, a frozen bot) is a test each.
        ref = self.ref
        line = match.encode(step[1])
        if ref.on_event is not None:
            ref.emit("send", self.index, line)
        idle = ref.idle
        if idle:
            idle.discard(self.index)
        jail, proc = self.jail, self.proc
        assert jail is not None and proc is not None  # started (else the game ended at its start)
        if jail.frozen:
            jail.thaw()  # its turn (a game without pondering froze it while it waited)
        t0 = _clock_ns()
        self.asked_at = t0 / 1e9  # perf_counter's clock, in seconds
        proc.send(line)
        reply = ref.wait_line(self, (t0 + allowed_ns) / 1e9, *late)
        ns = _clock_ns() - t0
        self.asked_at = None
        if jail.freezer_group is not None:
            idle.add(self.index)  # frozen if its opponent takes longer than FREEZE_AFTER
        return reply, ns

    def notify(self, match: Match, payload: Any, kind: str) -> None:
        if self.proc is None:
            return
        line = match.encode(payload)
        self.ref.emit(kind, self.index, line)
        self.proc.send(line)

    def _running(self) -> LineProcess | None:
        """Its process, while there is one to talk to or stop."""
        return self.proc if self.proc is not None and self.proc.proc is not None else None

    def end_input(self, ended: bool) -> None:
        proc = self._running()
        if proc is None:
            return
        assert self.jail is not None  # a process runs in its jail
        self.jail.thaw()  # to read its final message and leave within the grace
        if self.keep_exit:
            partial = bytes(proc.out_buf)
            proc.close_stdin()
            exited = proc.wait_exit(self.ref.limits.grace)
            late = b""
            if exited:
                # What a bot writes only as it exits was stuck in its output buffer all along.
                for _ in range(64):
                    proc.read_stdout()
                    if proc.eof:
                        break
                late = bytes(proc.out_buf[len(partial):])
            self.exit = Exit(exited, proc.poll() if exited else None, partial, late)
            return
        proc.close_stdin()

    def stop(self, end: float, ended: bool) -> Exit:
        proc = self._running()
        if proc is None:
            return self.exit
        assert self.jail is not None  # a process runs in its jail
        proc.wait_exit(max(0.0, end - time.monotonic()))
        self._drain(proc)
        proc.kill()
        self.jail.teardown(reaped=proc.exited)
        if self.spec.stateful:
            defuse(self.spec.path)  # no set-id bit or world-write left behind, nothing root's
        return self.exit

    def _drain(self, proc: LineProcess) -> None:
        """Keep what a bot wrote after the game ended: stderr, and diagnostic (aside) lines,
        e.g. a DEBUG line at END; other stdout lines no longer matter.  Bounded reads only."""
        ref = self.ref
        for _ in range(64):
            before = len(proc.err_log) + proc.err_dropped
            proc.read_stderr()
            if proc.err_eof or len(proc.err_log) + proc.err_dropped == before:
                break
        if not ref.has_asides:
            return
        for _ in range(16):
            if proc.eof or len(proc.out_buf) > ref.limits.max_line:
                break
            size = len(proc.out_buf)
            proc.read_stdout()
            if len(proc.out_buf) == size:
                break
        while True:
            try:
                line = proc.pop_line()
            except (LineTooLong, UnicodeDecodeError):
                return
            if line is None:
                return
            if ref.is_aside(line):
                ref.keep_aside(self, line)

    def output(self, moves: int) -> tuple[str, list[int]]:
        if self.proc is None:
            return "", []
        err = self.proc.stderr_text()
        return err, (_line_moves(bytes(self.proc.err_log), self.err_marks, moves) if err else [])


@attrs.define(eq=False)
class HostSeat(Seat):
    """A function bot in its isolated host (a jailed ``python -m kothkit.bots.funchost``), one request
    line and one answer line per call.  Hosts live across games, in the referee's :class:`HostPool`.

    ``acks`` keeps the pipelined start of a game in step.  A reused host is sent its
    ``{"op": "new"}`` request at the start without waiting for the answer (saving a round
    trip a game), so ``acks`` counts the answers sent for but not yet read.  Invariant: the
    next line the host writes answers the oldest request whose answer is not read, so the
    reply to a call is the line after ``acks`` acknowledgements.  Whoever reads from the host
    reads those first (:meth:`request`); a game that ends with ``acks`` owed reads them at
    :meth:`stop` (or discards the host), so that one can never be taken for the answer to the
    next game's first request; and a host is reused only with ``acks == 0`` and nothing else
    in flight (a game cut short discards it).
    """

    acks: int = 0

    def start(self) -> None:
        ref, spec, limits = self.ref, self.spec, self.ref.limits
        seed = bot_seed(ref.task.seed, self.index)
        if spec.stateful and _over_disk(self, spec.workdir or spec.path.parent):
            return
        try:
            # On the job's core, like a program bot: concurrent jobs' bots never share a core, so
            # they never slow each other down.  The process playing the job runs there too (see
            # kothkit.playing.executor.LocalExecutor).
            host = ref.hosts.get(spec, limits, cpu=ref.cpu, readable=plugin_folders(ref.info))
        except Exception as e:
            self.start_error = say("cannot start the function host: {error}", error=e)
            return
        self.proc = host
        self.jail = jail = ref.hosts.jail(spec)
        fresh = ref.hosts.fresh(spec)
        # Frozen between games (see stop): a game without pondering leaves it so until its first
        # turn (its acknowledgement is read then), so that it takes nothing of the first mover's time.
        waits = jail is not None and jail.freezer_group is not None and not ref.info.pondering
        if jail is not None and jail.frozen and (fresh or not waits):
            jail.thaw()
        # What the bot prints arrives on its host's stderr: shown live to whoever watches.
        host.on_stderr = (lambda line, i=self.index: ref.emit("stderr", i, line)) if ref.on_event else None
        ref.watch(host.stdout_fd, self, "out")
        ref.watch(host.stderr_fd, self, "err")
        new_game = {"op": "new", "seed": seed}
        if fresh:
            # A host just started: its interpreter start-up must not count against the first move.
            try:
                self.request(new_game, load_time(limits))
            except Stop as stop:
                self.start_error = stop.fault.reason
        else:
            # Pipelined (see the class's docstring): the acknowledgement is read before the first reply.
            host.send(dumps_compact(new_game))
            self.acks = 1
        if waits and self.start_error is None and jail is not None and not jail.frozen:
            ref.idle.add(self.index)  # frozen once another seat is asked, until its own turn

    def ask(self, match: Match, step: Prompt, allowed_ns: int, late: Late) -> tuple[Any, int]:
        payload = step[1]
        ref = self.ref
        if ref.on_event is not None:
            ref.emit("send", self.index, repr(payload))
        jail, idle = self.jail, ref.idle
        if idle:
            idle.discard(self.index)
        if jail is not None and jail.frozen:
            jail.thaw()  # its turn (a game without pondering froze it, children and all, while it waited)
        try:
            reply, elapsed = self.call(_CALL_HEAD + dumps_compact(payload) + "}", allowed_ns / 1e9, late)
        except (Stop, EndGame):
            raise
        except Exception as e:  # noqa: BLE001 - what the bot wrote made the judge fail: the bot's loss
            self.forget()
            what = f"what cannot be read ({type(e).__name__})"
            raise Stop(Fault(self.index, Verdict.CRASH, say("function host sent {line}", line=what))) from None
        if jail is not None and jail.freezer_group is not None and not ref.info.pondering:
            idle.add(self.index)  # frozen if its opponent takes longer than FREEZE_AFTER
        return reply, int(elapsed * 1e9)

    def send_prompt(self, match: Match, step: Prompt) -> bool:
        if type(self).ask is not HostSeat.ask:
            return False
        ref, payload = self.ref, step[1]
        if ref.on_event is not None:
            ref.emit("send", self.index, repr(payload))
        ref.idle.discard(self.index)
        jail, proc = self.jail, self.proc
        assert proc is not None  # started
        if jail is not None and jail.frozen:
            jail.thaw()
        self.asked_at = time.perf_counter()
        proc.send(_CALL_HEAD + dumps_compact(payload) + "}")
        return True

    def take_line(self, line: str) -> tuple[bool, Any]:
        # The acknowledgements owed come first (see the class's docstring), then the call's answer.
        try:
            if self.acks:
                self.acks -= 1
                self.answer(line)
                return False, None
            return True, self.answer(line)
        except Stop as stop:
            if not stop.host_ok:
                self.forget()
            raise
        except Exception as e:  # noqa: BLE001 - what the bot wrote made the judge fail: the bot's loss
            self.forget()
            what = f"what cannot be read ({type(e).__name__})"
            raise Stop(Fault(self.index, Verdict.CRASH, say("function host sent {line}", line=what))) from None

    def forget(self) -> None:
        self.ref.hosts.discard(self.spec)

    def request(self, request: dict[str, Any] | str, timeout: float,
                late: Late = _NO_REPLY) -> Any:
        """Send ``request`` (a dict, or its JSON line) to the host and return its answer, after the
        acknowledgements owed (see the class's docstring)."""
        t0 = time.perf_counter()
        ref = self.ref
        assert self.proc is not None  # started
        self.proc.send(request if isinstance(request, str) else dumps_compact(request))
        try:
            owed_error = None  # an acknowledgement's error answer: raised once all answers are in
            while self.acks:
                self.acks -= 1
                try:
                    self.answer(ref.wait_line(self, t0 + timeout, *late))
                except Stop as stop:
                    if not stop.host_ok:
                        raise
                    owed_error = owed_error or stop
            answer = self.answer(ref.wait_line(self, t0 + timeout, *late))
            if owed_error is not None:
                raise owed_error
            return answer
        except Stop as stop:
            if stop.fault.seat == self.index and not stop.host_ok:
                self.forget()  # still busy, dead or confused: never reuse it
            raise

    def call(self, request: str, timeout: float, late: Late) -> tuple[Any, float]:
        """:meth:`request` timed: (answer, seconds from sending to answer).

        The usual case -- nothing queued for the host, no acknowledgement owed, its answer
        a short line -- is handled here with one write, waits and a line cut; anything else
        goes the general way (``Referee.wait_line``), which rules on every fault.
        """
        # A started seat's host (annotated, not checked: this is the hot path of isolated function bots).
        host = cast(LineProcess, self.proc)
        clock = time.perf_counter
        fd = host.stdin_fd
        if self.acks or host.pending or host.broken or host.out_buf or fd is None:
            t0 = clock()
            return self.request(request, timeout, late), clock() - t0
        ref = self.ref
        data = request.encode() + b"\n"
        buf = host.out_buf
        t0 = clock()
        deadline = t0 + timeout
        # The seats that replied and wait are frozen once this one has thought FREEZE_AFTER (as in
        # the general wait, Referee.wait_line): a fast reply costs no freezer write.
        freeze_at = t0 + FREEZE_AFTER if ref.idle else None
        try:
            try:
                n = os.write(fd, data)
            except BlockingIOError:
                n = 0
            except OSError:  # the host is gone: the general wait rules on how it ended
                host.broken = True
                n = len(data)
            if n < len(data):
                host.pending += data[n:]
            while True:
                i = buf.find(b"\n")
                if i >= 0 or host.eof or host.pending or len(buf) > host.max_line:
                    if 0 <= i <= host.max_line and buf.isascii():
                        line = buf[:i].decode()
                        del buf[: i + 1]
                    else:
                        line = ref.wait_line(self, deadline, *late)
                    return self.answer(line), clock() - t0
                now = clock()
                left = deadline - now
                if left <= 0:
                    raise Stop(Fault(self.index, *late))
                if freeze_at is not None:
                    if now >= freeze_at:
                        ref.freeze_idle()
                        freeze_at = None
                    else:
                        left = min(left, freeze_at - now)
                # A host is a process: the referee has a selector.
                for ready, _ in cast(select.epoll, ref.sel).poll(left):
                    ref.read_ready(ready)
        except Stop as stop:
            if stop.fault.seat == self.index and not stop.host_ok:
                self.forget()
            raise

    def answer(self, line: str) -> Any:
        """The value of one answer line of the host; an error answer is the bot's fault, and so is any
        line that is not an answer (the bot can write on its host's descriptors: whatever it writes,
        a 30,000-deep JSON array, a bare number, is a crash of the bot, never the judge's error)."""
        if line.startswith('{"ok":'):
            value = line[6:-1]
            # The common case, a small number (a column, a cell), without a JSON parse.
            if line[-1] == "}" and value.isdigit() and value.isascii() and (len(value) == 1 or value[0] != "0"):
                return int(value)
        try:
            answer = json.loads(line)
        except (ValueError, RecursionError, MemoryError):
            answer = None
        if not isinstance(answer, dict) or not ("ok" in answer or "error" in answer):
            raise Stop(Fault(self.index, Verdict.CRASH, say("function host sent {line}",
                                                            line=repr(_short(line)))))
        if "error" in answer:
            detail = answer.get("detail")
            self.detail = detail if isinstance(detail, str) else None
            raise Stop(Fault(self.index, _verdict(answer.get("kind")), str(answer["error"])), host_ok=True)
        return answer.get("ok")

    def end_input(self, ended: bool) -> None:
        if self.jail is not None:
            self.jail.thaw()  # to read what it owes, or to be killed
        if not ended and self.proc is not None:  # a game cut short: a host may be in the middle of a call
            self.acks = 0
            self.forget()

    def stop(self, end: float, ended: bool) -> Exit:
        if self.proc is None:
            return NO_EXIT
        try:
            return self._stop()
        finally:
            self._rest()

    def _rest(self) -> None:
        """Between games a kept host is frozen with all it started (it has no opponent to think
        for, and would take the next game's core), and a stateful bot's folder updated from its
        copy where it runs over one (kothkit.procs.copies: as a program bot's after its game, not
        only when the host ends) and defused."""
        jail = self.ref.hosts.jail(self.spec)
        if jail is None or jail is not self.jail:
            return  # discarded: its jail is gone with it (its teardown copied its folder back)
        jail.freeze()
        if self.spec.stateful:
            jail.keep_copy()  # (frozen, or idle between calls: it is not writing its copy)
            defuse(self.spec.workdir or self.spec.path.parent)

    def _stop(self) -> Exit:
        assert self.proc is not None
        if self.acks:
            # Never asked this game: read its pending acknowledgement now (the invariant above).
            try:
                while self.acks:
                    self.acks -= 1
                    self.answer(self.ref.wait_line(self, time.perf_counter() + self.ref.limits.first_time,
                                                   Verdict.TIMEOUT, say("no acknowledgement")))
            except Stop as stop:
                if not (stop.host_ok and self.acks == 0):
                    self.forget()
                return NO_EXIT
        if self.proc.poll() is not None or self.proc.eof:
            self.forget()
        return NO_EXIT

    def output(self, moves: int) -> tuple[str, list[int]]:
        if self.proc is None:
            return "", []
        # The host's stderr of this game only: what is in the pipe now is this game's
        # (the host writes a call's prints before its answer).  A call's prints are read
        # before its answer is (they are in the pipe first), each read marked with the replies
        # recorded then: each line is filed at the move it was printed in.
        self.proc.drain_stderr()
        data = bytes(self.proc.err_log)
        tags = _line_moves(data, self.err_marks, moves) if data else []
        return self.proc.take_stderr("output"), tags


@attrs.define(eq=False)
class FunctionSeat(Seat):
    """A function bot called in this process (``--trusted``); a call past its deadline is interrupted."""

    func: FunctionBot | None = None
    #: The slot to arm around a call (kothkit.bots.overtime.watch): two stores a move.
    watch: list[int] | None = None
    #: The bot's function, once started: payload -> reply (FunctionBot.call).
    call: Callable[[Any], Any] | None = None

    def start(self) -> None:
        limits = self.ref.limits
        # Loading gets what an isolated bot's host gets to start.
        allowed = load_time(limits)
        try:
            self.func = func = function_cache(self.spec, allowed)
            # Deriving a seed costs a hash: only bots that use randomness get one.
            func.new_game(bot_seed(self.ref.task.seed, self.index) if func.uses_random else 0)
            func.out_cap = limits.stderr_cap
        except FunctionBotError as e:
            self.start_error = e.message if hasattr(e, "message") else str(e)
            self.detail = e.detail
            return
        except overtime.Overtime:
            self.start_error = say("{entry} took more than {limit} s to load", entry=self.spec.entry,
                                   limit=f"{allowed:g}")
            return
        except Exception as e:  # a module that fails to import
            self.start_error = say("cannot load {entry}: {error}", entry=self.spec.entry,
                                   error=f"{type(e).__name__}: {e}")
            return
        self.call = func.call
        self.watch = self.ref.overtime_slot()
        # What it prints is marked with the replies recorded so far (see FunctionBot.keep);
        # what it printed while loading, before this game's first move.
        func.moves = self.ref.moves
        func.marks = [(len(func.out), 0)] if func.out else []

    def ask(self, match: Match, step: Prompt, allowed_ns: int, late: Late) -> tuple[Any, int]:
        # Microseconds a move: integer nanoseconds, no context manager, the deadline armed and
        # disarmed by two stores.  Referee._loop makes this same call inline for a FunctionSeat
        # (its hot path); this is for subclasses (kothkit check's) and other callers.
        watch, call = self.watch, self.call
        assert watch is not None and call is not None  # started
        clock_ns = _clock_ns
        t0 = clock_ns()
        watch[0] = t0 + allowed_ns
        try:
            try:
                reply = call(step[1])
            finally:
                watch[0] = 0
        except FunctionBotError as e:
            self.detail = e.detail
            raise Stop(Fault(self.index, e.verdict, e.message)) from None
        except overtime.Overtime:
            raise Stop(Fault(self.index, *late)) from None
        return reply, clock_ns() - t0

    def output(self, moves: int) -> tuple[str, list[int]]:
        func = self.func
        if func is None:
            return "", []
        data = bytes(func.out)
        tags = _line_moves(data, func.take_marks(), moves) if data else []
        return (func.take_output() if func.out or func.out_dropped else ""), tags


#: A person's (or a record's) reply: f(match, prompt) -> the reply.
PersonFn = Callable[[Match, Prompt], Any]


@attrs.define(eq=False)
class PersonSeat(Seat):
    """A seat whose replies come from ``reply(match, prompt)``: a person at the terminal (kothkit play)
    or a recorded person's replies (kothkit verify).  Untimed: a person thinks as long as they like;
    the bots that wait are frozen meanwhile where the game allows no pondering."""

    timed = False
    reply: PersonFn | None = None

    def ask(self, match: Match, step: Prompt, allowed_ns: int, late: Late) -> tuple[Any, int]:
        ref = self.ref
        ref.freeze_idle()
        ref.emit("send", self.index, match.encode(step[1]))
        t0 = time.perf_counter_ns()
        assert self.reply is not None  # a PersonSeat is made with its reply function
        reply = self.reply(match, step)
        return reply, time.perf_counter_ns() - t0


def seat_class(spec: BotSpec, trusted: bool) -> type[Seat]:
    """The kind of seat that plays ``spec``'s bot (``trusted``: function bots run in this process)."""
    if spec.kind != BotKind.FUNCTION:
        return ProgramSeat
    return FunctionSeat if trusted else HostSeat


def _verdict(kind: object) -> Verdict:
    """The verdict a function host's error answer names; a name that is not one is a crash."""
    return Verdict(kind) if isinstance(kind, str) and kind in _VERDICTS else Verdict.CRASH


_VERDICTS = frozenset(Verdict)


def _line_moves(data: bytes, marks: list[tuple[int, int]], moves: int) -> list[int]:
    """For each line of a bot's kept stderr ``data``: the replies recorded when its first byte was
    read (``marks``: the stderr's size after each read, and the replies recorded then)."""
    tags = []
    offset = 0
    i = 0
    for line in data.split(b"\n"):
        while i < len(marks) and marks[i][0] <= offset:
            i += 1
        tags.append(marks[i][1] if i < len(marks) else moves)
        offset += len(line) + 1
    return tags


_FUNCTIONS: dict[tuple[str, str, str], FunctionBot] = {}


def load_time(limits: Limits) -> float:
    """Seconds a function bot's file has to load, in the judge's process or in its host (the host's
    start and first request included): the limits' ``load_time``, else the first reply's time, at
    least :data:`HOST_START_TIME`."""
    return limits.load_time if limits.load_time is not None else max(limits.first_time, HOST_START_TIME)


def function_cache(spec: BotSpec, load_time: float) -> FunctionBot:
    """The bot of ``spec`` loaded in this process, loaded now if it is not yet; a module
    that takes more than ``load_time`` s to load is interrupted (overtime.Overtime)."""
    key = _host_key(spec)
    found = _FUNCTIONS.get(key)
    if found is None:
        with overtime.within(load_time):
            found = FunctionBot(spec)
        _FUNCTIONS[key] = found
    return found


def _host_key(spec: BotSpec) -> tuple[str, str, str]:
    # By name too: the same function bot may sit in both seats of one game (a match of a bot
    # against itself), and each seat needs a host of its own.
    return (spec.name, spec.entry or "", spec.hash)


_PLUGIN_FOLDERS: dict[str, tuple[Path, ...]] = {}


def plugin_folders(info: GameInfo) -> tuple[Path, ...]:
    """The folders of the package that holds ``info``'s game (the top-level package of the module
    its match comes from), for a function host's jail to show: a bot may import its game's
    plugin, and where the plugin is an editable install (``pip install -e``), its source lies
    outside the site folders and kothkit's own folder that every jail shows.  Nothing for a game of
    kothkit's own package."""
    module = getattr(info.match, "__module__", None) or ""
    top = module.split(".")[0]
    found = _PLUGIN_FOLDERS.get(top)
    if found is None:
        package = sys.modules.get(top)
        paths: list[Path] = []
        if package is not None and top != "kothkit":
            paths = [Path(p) for p in getattr(package, "__path__", ())]
            file = getattr(package, "__file__", None)
            if not paths and file:
                paths = [Path(file).parent]  # a plugin that is one module: its folder
        found = _PLUGIN_FOLDERS[top] = tuple(p.resolve() for p in paths if p.is_dir())
    return found


#: Most function hosts one worker keeps (each is three processes: jail leader, init, Python).
#: Past it, the host used least lately is stopped; the schedule plays many bots block by
#: block (kothkit.playing.schedule.BLOCK) so that this rarely costs a restart.  ``KOTHKIT_MAX_HOSTS``
#: sets another (at least 2: the two bots of a game).
MAX_HOSTS = max(2, int(os.environ.get("KOTHKIT_MAX_HOSTS") or 64))


class HostPool:
    """Isolated function hosts kept alive across games (one per bot) within one worker process.

    Each host runs in its own jail (PID namespace, files, memory cap where the machine
    allows), so a function bot is contained like a program bot; what it starts lives until
    its host is discarded (a fault, eviction past :data:`MAX_HOSTS`, or the end of the
    worker), not just until a game ends.
    """

    def __init__(self, limit: int | None = None) -> None:
        # In the order of last use: the first is the one to evict.
        self._hosts: dict[tuple[str, str, str], tuple[LineProcess, Jail]] = {}
        self.limit = max(2, limit or MAX_HOSTS)
        self._fresh: set[tuple[str, str, str]] = set()
        #: The folder a stateful bot's host writes: defused once the host is ended, whenever that is
        #: (a host discarded in the middle of a game is never rested by HostSeat.stop).
        self._writes: dict[tuple[str, str, str], Path] = {}

    def fresh(self, spec: BotSpec) -> bool:
        """True once after a host was started for ``spec`` (it has not answered anything yet)."""
        key = _host_key(spec)
        if key in self._fresh:
            self._fresh.discard(key)
            return True
        return False

    def get(self, spec: BotSpec, limits: Limits, cpu: int | None = None,
            readable: tuple[Path, ...] = ()) -> LineProcess:
        """The host of ``spec``'s bot, started if it has none (``readable``: folders its jail shows
        read-only besides the bot's own, such as the game plugin's, see :func:`plugin_folders`)."""
        key = _host_key(spec)
        found = self._hosts.get(key)
        if found is not None and (found[0].eof or found[0].poll() is not None
                                  or spec.stateful and not found[1].refresh_copy()):
            self.discard(spec, between=True)
            found = None
        if found is not None:
            self._hosts[key] = self._hosts.pop(key)  # now the last used
        else:
            while len(self._hosts) >= self.limit:
                # The game's other bot was got just before this one: it is never the first.
                old = next(iter(self._hosts))
                self._fresh.discard(old)
                _end_host(*self._hosts.pop(old), self._writes.pop(old, None), between=True)
            folder = spec.workdir or spec.path.parent
            if spec.workdir is not None:
                folder.mkdir(parents=True, exist_ok=True)
            # (no prepared root: a host is started once per bot and worker, and serves many games)
            # A stateful bot writes its folder (its working directory), as a program bot does.
            # Freezable: frozen, with whatever it started, while its opponent thinks in a game
            # without pondering (HostSeat.ask) and between games (HostSeat.stop).
            jail = Jail(limits, cpu=cpu, writable=spec.stateful, freezable=True, env=spec.env)
            jail.setup()
            if spec.stateful:
                own(folder)
                self._writes[key] = folder
            # A bot working in a private folder still reads its own file, from the shared folder.
            assert spec.entry is not None  # a function bot names its file and function
            shown = ((spec.path.parent,) if spec.workdir is not None else ()) + tuple(readable)
            argv = jail.wrap([sys.executable, "-m", "kothkit.bots.funchost", spec.entry], folder, readable=shown)
            p = LineProcess(argv=argv, cwd=folder, max_line=limits.max_line, stderr_cap=limits.stderr_cap,
                            preexec=jail.preexec if jail.needs_preexec() else None, pass_fds=jail.pass_fds)
            try:
                p.start()
            except Exception:
                jail.teardown()
                raise
            jail.started(p.pid)
            self._hosts[key] = found = (p, jail)
            self._fresh.add(key)
        # Stale output from a previous game (e.g. a reply that came after its deadline) is dropped.
        found[0].out_buf.clear()
        return found[0]

    def jail(self, spec: BotSpec) -> Jail | None:
        found = self._hosts.get(_host_key(spec))
        return found[1] if found else None

    def discard(self, spec: BotSpec, between: bool = False) -> None:
        """End ``spec``'s host: in a game (``between``: between two, see :func:`_end_host`)."""
        key = _host_key(spec)
        found = self._hosts.pop(key, None)
        if found is not None:
            _end_host(*found, self._writes.pop(key, None), between=between)

    def close(self) -> None:
        for key, (p, jail) in self._hosts.items():
            _end_host(p, jail, self._writes.get(key), between=True)
        self._hosts.clear()
        self._writes.clear()


def _end_host(p: LineProcess, jail: Jail, writes: Path | None = None, between: bool = False) -> None:
    """``between``: ended between games, its copy of its folder (where it runs over one) went back
    after its last game (HostSeat._rest) and is not copied back again: another worker's host of
    the same stateful bot may have played since, and written the folder."""
    p.drain_stderr()  # what the bot printed last is its game's log (read by the referee after)
    p.kill()
    jail.teardown(keep=not between)
    if writes is not None:
        defuse(writes)  # a stateful bot's folder: no set-id bit or world-write left behind, nothing root's


__all__ = ["EndGame", "Exit", "Fault", "FunctionSeat", "HostPool", "HostSeat", "PersonSeat", "ProgramSeat", "Seat",
           "Stop", "function_cache", "seat_class"]
