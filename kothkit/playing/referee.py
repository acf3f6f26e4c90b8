"""The referee: plays one game (a :class:`GameTask`) and returns its :class:`GameRecord`.

It owns all I/O of a game.  It asks the game's match what to send, sends it,
waits for the reply under the time control with one selector over every bot's
stdout and stderr, and turns every fault (crash, timeout, time budget, memory,
out-of-turn output, oversized or undecodable lines) into a verdict against the
bot at fault.  Whatever happens, every process it started is killed and reaped
before ``play_game`` returns.

Each bot's log of the game holds what it wrote to stderr (a program bot, or a
function bot's host) or printed (a function bot called in this process: its
prints are captured for the game, see :func:`kothkit.bots.functions.capture_output`),
the traceback of a function bot that raised, and its diagnostic lines.
"""

from __future__ import annotations

import json
import os
import select
import sys
import time
from collections.abc import Callable
from typing import Any

import attrs

from kothkit.bots import overtime
from kothkit.bots.folders import BotSpec, folder_bytes, printable
from kothkit.bots.functions import (
    WRITES,
    FunctionBot,
    FunctionBotError,
    capture_output,
    release_output,
)
from kothkit.game import GameInfo, Match, Outcome, Prompt, Setup, Verdict
from kothkit.limits import Limits
from kothkit.playing.seeding import derive
from kothkit.plugins import get_game
from kothkit.procs.contain import DISK_FULL, Jail
from kothkit.procs.fastjson import dumps_compact
from kothkit.procs.pipes import LineProcess, LineTooLong, describe_exit, error_line
from kothkit.store import records as R
from kothkit.store.records import GameRecord, GameTask, Move

# A call request's line is this, the prompt's payload as a JSON array, and "}".
_CALL_HEAD = '{"op":"call","args":'

#: Seconds a new function host may take to start and answer its first request (not a move).
HOST_START_TIME = 20.0

#: A bot that replied is frozen once its opponent has thought this long (a game without
#: pondering): a fast reply then costs no freezer write (a freeze and thaw take 0.2-0.3 ms on a
#: cgroup v1 host), and a waiting bot can take at most this much of a long think.
FREEZE_AFTER = 0.005

#: A seat played by a person or a record: f(match, prompt) -> the reply (see Referee's ``people``).
PersonFn = Callable[[Match, Prompt], Any]

#: on_event(kind, seat, text, ms): kind is one of send, notice, reply, aside, stderr, final, verdict,
#: and with ``boards`` also board (the game's rendering of the match after ``seat``'s move).
EventFn = Callable[[str, int, str, float | None], None]


@attrs.frozen
class Fault:
    seat: int
    verdict: Verdict
    reason: str


def _short(text: str, n: int = 80) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= n else text[:n] + "..."


class _LiveStderr:
    """A bot's stderr shown live on the judge's stderr (``stderr = true``): escaped, and capped
    like its log (a flooding bot cannot fill the host's terminal or its log file)."""

    def __init__(self, name: str, cap: int):
        self.name, self.left, self.told = name, cap, False

    def __call__(self, line: str) -> None:
        if self.left <= 0:
            if not self.told:
                self.told = True
                print(f"[{self.name}] ... more stderr not shown (the game's log keeps up to its cap)", file=sys.stderr)
            return
        line = printable(line[:1000]) + (" ..." if len(line) > 1000 else "")
        self.left -= len(line) + 1
        print(f"[{self.name}] {line}", file=sys.stderr)


def bot_seed(task_seed: int, seat: int) -> int:
    return derive(task_seed, "bot", seat)


class _Stop(Exception):
    def __init__(self, fault: Fault, host_ok: bool = False):
        self.fault = fault
        #: The fault is a function host's well-formed error answer (the bot raised, or its
        #: file does not load): the host is sound and in step, and may serve the next game.
        self.host_ok = host_ok


@attrs.define(eq=False)
class _Seat:
    """A bot in one game: a process (program or isolated function host) or an in-process function."""

    index: int
    spec: BotSpec
    proc: LineProcess | None = None
    jail: Jail | None = None
    func: Any = None  # kothkit.bots.functions.FunctionBot for trusted function bots
    host: Any = None  # a persistent isolated function host (kothkit.bots.functions worker)
    used: float = 0.0  # seconds of own reply time this game
    aside: list = attrs.field(factory=list)
    #: Per kept aside line, and per read of stderr (with its end offset): replies recorded so far.
    aside_moves: list = attrs.field(factory=list)
    err_marks: list = attrs.field(factory=list)
    #: perf_counter time the prompt awaiting this seat's reply was sent (None when none is due).
    asked_at: float | None = None
    aside_bytes: int = 0
    aside_dropped: int = 0
    start_error: str | None = None
    detail: str | None = None  # the traceback of a function bot that raised, for its log
    start_verdict: Verdict = Verdict.CRASH
    acks: int = 0  # pipelined requests to a function host whose answers are still to be read


class Referee:
    def __init__(self, task: GameTask, info: GameInfo, cpu: int | tuple[int, ...] | None = None,
                 on_event: EventFn | None = None, hosts: "HostPool | None" = None, boards: bool = False,
                 people: "dict[int, PersonFn] | None" = None):
        self.task = task
        self.info = info
        #: Seats whose replies come from a person (kothkit play) or a record (kothkit verify): untimed.
        self.people = people or {}
        #: Emit a "board" event after every move (needs ``on_event`` and a game that renders).
        self.boards = boards and on_event is not None and info.renders
        self.limits: Limits = task.limits
        # One core for the game, or one per seat (a game that allows pondering, with cores enough).
        cpus = cpu if isinstance(cpu, tuple) else (cpu,)
        self.cpus = cpus if self.limits.pin_cpu else (None,)
        self.cpu = self.cpus[0]
        self.on_event = on_event
        # Isolated function hosts outlive a game when a worker passes its pool; else they are ours.
        self._own_hosts = hosts is None
        self.hosts = hosts if hosts is not None else HostPool()
        # Only games with a process (a program bot or an isolated function host) need a selector.
        # epoll itself rather than the selectors module: this wait runs once a move.
        self.sel = (select.epoll() if not task.functions_in_process or any(b.kind != "function" for b in task.players)
                    else None)
        self.fds: dict[int, tuple[_Seat, str]] = {}
        self.seats: list[_Seat] = [_Seat(i, b) for i, b in enumerate(task.players)]
        self.moves: list[Move] = []
        self.prefix = info.aside_prefix
        #: Every seat a function called in this process: no process to start, watch or stop.
        self.no_processes = self.sel is None
        #: A timed-out seat's reply that came in the grace period: [seat, reply, ms].
        self._late_reply: list | None = None
        #: 1 once the game is over: log lines then count as after the last move (see records.LOG_MOVES).
        self._over = 0
        #: The fault that ended the game, once ruled (a timed-out bot's late reply is awaited in the grace).
        self._fault: Fault | None = None
        #: Some seat a function called in this process, whose prints are captured for its log.
        self.captures = task.functions_in_process and (self.no_processes
                                                       or any(b.kind == "function" for b in task.players))
        #: Seats that replied and are to be frozen while they wait (a game without pondering).
        self._idle: set[int] = set()

    # -- events ----------------------------------------------------------------
    def _emit(self, kind: str, seat: int, text: str, ms: float | None = None) -> None:
        if self.on_event is not None:
            self.on_event(kind, seat, text, ms)

    # -- lifecycle ---------------------------------------------------------------
    def run(self) -> GameRecord:
        t0 = time.monotonic()
        task = self.task
        names = tuple([b.name for b in task.players])
        rules = {**self.info.rules, **task.rules} if task.rules else self.info.rules
        match = self.info.match(Setup(players=names, seed=task.seed, rules=rules))
        fault: Fault | None = None
        outcome: Outcome | None = None
        # Once a game, not once a call (once a batch, in kothkit.playing.tournament.play_batch, where this
        # finds it done): what trusted function bots print goes to their logs.
        saved = capture_output() if self.captures else None
        writes = WRITES[0]
        ended = False
        try:
            try:
                self._start_all()
                outcome = self._loop(match)
            except _Stop as stop:
                fault = stop.fault
                outcome = match.forfeit(fault.seat, fault.verdict, fault.reason)
                detail = self.seats[fault.seat].detail
                if detail and self.on_event is not None:
                    for line in detail.splitlines():
                        self._emit("stderr", fault.seat, line)
                self._emit("verdict", fault.seat, f"{fault.verdict}: {fault.reason}")
            self._final(match, outcome)
            ended = True
        finally:
            self._fault = fault
            try:
                # Interrupted (Ctrl-C): the bots are killed at once, without their grace period.
                self._stop_all(ended)
            finally:
                if saved is not None:
                    release_output(saved)
        winner = names[outcome.winner] if outcome.winner is not None else None
        return GameRecord(
            id=task.id, game=task.game, index=task.index, players=names, hashes=tuple([b.hash for b in task.players]),
            seed=task.seed, winner=winner, reason=outcome.reason, offender=names[fault.seat] if fault else None,
            verdict=fault.verdict if fault else None, moves=tuple(self.moves),
            logs=self._logs() if not self.no_processes or fault or WRITES[0] != writes else {},
            seconds=round(time.monotonic() - t0, 4),
        )

    def _start_all(self) -> None:
        for s in self.seats:
            if s.index in self.people:
                continue  # nothing to start: the replies come from ``people``
            if s.spec.kind == "function":
                self._start_function(s)
            else:
                self._start_process(s)
        for s in self.seats:
            if s.start_error is not None:
                raise _Stop(Fault(s.index, s.start_verdict, s.start_error))

    def _start_process(self, s: _Seat) -> None:
        spec = s.spec
        if spec.stateful:
            # What a stateful bot keeps in its folder is capped like its /tmp (disk_mb): over it,
            # the bot does not start and loses; measured here, before the game, deterministically.
            cap = self.limits.disk_mb << 20
            if folder_bytes(spec.path, cap) > cap:
                s.start_error = f"its folder holds more than disk_mb ({self.limits.disk_mb} MiB)"
                s.start_verdict = Verdict.DISK
                return
        argv = list(spec.command)
        if self.info.bot_args is not None:
            setup = Setup(players=tuple(b.name for b in self.task.players), seed=self.task.seed,
                          rules={**self.info.rules, **self.task.rules})
            argv += [str(a) for a in self.info.bot_args(setup, s.index, bot_seed(self.task.seed, s.index))]
        s.jail = Jail(self.limits, cpu=self.cpus[s.index % len(self.cpus)], writable=spec.stateful,
                      freezable=not self.info.pondering)
        on_err = None
        if spec.stderr and self.on_event is None:
            on_err = _LiveStderr(spec.name, self.limits.stderr_cap)
        elif self.on_event is not None:
            on_err = lambda line, i=s.index: self._emit("stderr", i, line)
        s.proc = LineProcess(argv=argv, cwd=spec.path, max_line=self.limits.max_line,
                             stderr_cap=self.limits.stderr_cap, on_stderr=on_err,
                             aside_prefix=self.prefix.encode() if self.prefix else None,
                             aside_line_cap=self.limits.aside_line_cap)
        try:
            s.jail.setup()
            s.proc.argv = s.jail.wrap(argv, spec.path)  # under kothkit's init where namespaces work
            s.proc.preexec = s.jail.preexec if s.jail.needs_preexec() else None
            s.proc.start()
            s.jail.started(s.proc.pid)
        except Exception as e:  # exec failure, bad cwd, preexec failure: the bot's fault, not the judge's
            s.start_error = f"cannot start {_short(argv[0])!r}: {_short(str(e), 200)}"
            if s.proc.proc is not None:
                s.proc.kill()
            s.proc = None  # nothing to send to, read or stop
            s.jail.teardown()  # its cgroups, made before the start failed
            return
        self._register(s.proc.stdout_fd, s, "out")
        self._register(s.proc.stderr_fd, s, "err")

    def _start_function(self, s: _Seat) -> None:
        if self.task.functions_in_process:
            # Loading gets what an isolated bot's host gets to start.
            load_time = max(self.limits.first_time, HOST_START_TIME)
            try:
                s.func = func = _function_cache(s.spec, load_time)
                # Deriving a seed costs a hash: only bots that use randomness get one.
                func.new_game(bot_seed(self.task.seed, s.index) if func.uses_random else 0)
                func.out_cap = self.limits.stderr_cap
            except FunctionBotError as e:
                s.start_error = e.message if hasattr(e, "message") else str(e)
                s.detail = e.detail
            except overtime.Overtime:
                s.start_error = f"{s.spec.entry} took more than {load_time:g} s to load"
            except Exception as e:  # a module that fails to import
                s.start_error = f"cannot load {s.spec.entry}: {type(e).__name__}: {e}"
            return
        seed = bot_seed(self.task.seed, s.index)
        try:
            # On the job's core, like a program bot: concurrent jobs' bots never share a core
            # (measured: 5-10% more games/s at --jobs 2 than hosts left to roam).  The process
            # playing the job runs there too (see kothkit.playing.tournament.make_pool).
            s.host = self.hosts.get(s.spec, self.limits, cpu=self.cpu)
        except Exception as e:
            s.start_error = f"cannot start the function host: {e}"
            return
        s.jail = self.hosts.jail(s.spec)
        # What the bot prints arrives on its host's stderr: shown live to whoever watches.
        s.host.on_stderr = (lambda line, i=s.index: self._emit("stderr", i, line)) if self.on_event else None
        self._register(s.host.stdout_fd, s, "out")
        self._register(s.host.stderr_fd, s, "err")
        s.proc = s.host
        new_game = {"op": "new", "seed": seed}
        if self.hosts.fresh(s.spec):
            # A host just started: its interpreter start-up must not count against the first move.
            try:
                self._host_request(s, new_game, max(self.limits.first_time, HOST_START_TIME))
            except _Stop as stop:
                s.start_error = stop.fault.reason
            return
        # Pipelined: the acknowledgement is read before the first reply, saving a round trip a game.
        s.host.send(dumps_compact(new_game))
        s.acks = 1

    # -- the game loop -----------------------------------------------------------
    def _loop(self, match: Match) -> Outcome:
        if self.on_event is None and not self.people and all(s.func is not None or s.host is not None
                                                              for s in self.seats):
            return self._loop_functions(match)
        while True:
            step = match.next()
            if isinstance(step, Outcome):
                return step
            for m in step.notices:
                self._notify(match, m.seat, m.payload, "notice")
            reply, ms = self._ask(match, step)
            self.moves.append(Move(step.seat, reply, ms))
            rejected = match.play(step.seat, reply)
            if rejected is not None:
                raise _Stop(Fault(step.seat, rejected.verdict, rejected.reason))
            if self.boards:
                self._emit("board", step.seat, match.render())

    def _loop_functions(self, match: Match) -> Outcome:
        """The same loop for games of function bots only (called in this process, or in their
        hosts) with nobody watching: a move then takes microseconds, so the work around it
        is kept small.  (Function bots get prompts only, never notices.)

        Times are integer nanoseconds here (cheaper than float seconds); a move's ``ms``
        is rounded to the microsecond, as everywhere.
        """
        seats = self.seats
        lim = self.limits
        # Without a game budget, a move's allowance never changes and nobody needs ``used``.
        no_budget = lim.game_time is None
        move_allowed = lim.move_time + lim.tolerance
        move_allowed_ns = int(move_allowed * 1e9)
        move_late = (Verdict.TIMEOUT, f"no reply within {lim.move_time:g} s")
        calls = [s.func.call if s.func is not None else None for s in seats]
        # A call in this process that runs past its time is interrupted (kothkit.bots.overtime).
        watch = overtime.watch() if any(calls) else None
        ask_host = self._ask_host
        clock_ns = time.perf_counter_ns
        nxt, play = match.next, match.play
        append = self.moves.append
        new_move = tuple.__new__
        while True:
            step = nxt()
            if type(step) is not Prompt and isinstance(step, Outcome):
                return step
            seat, payload, _notices, clock = step
            if no_budget and clock == "move":
                allowed, allowed_ns, late = move_allowed, move_allowed_ns, move_late
            else:
                allowed, kind, why = self._time_allowed(seats[seat], step)
                allowed += lim.tolerance
                allowed_ns, late = int(allowed * 1e9), (kind, why)
            call = calls[seat]
            if call is not None:  # in this process: ruled on when it returns, or interrupted
                t0 = clock_ns()
                watch[0] = t0 + allowed_ns
                try:
                    try:
                        reply = call(payload)
                    finally:
                        watch[0] = 0
                except FunctionBotError as e:
                    seats[seat].detail = e.detail
                    raise _Stop(Fault(seat, e.verdict, e.message)) from None
                except overtime.Overtime:
                    raise _Stop(Fault(seat, *late)) from None
                ns = clock_ns() - t0
            else:
                reply, elapsed = ask_host(seats[seat], payload, allowed, late)
                ns = int(elapsed * 1e9)
            if ns > allowed_ns:
                raise _Stop(Fault(seat, *late))
            if not no_budget:
                seats[seat].used += ns / 1e9
            # Move(seat, reply, ms) without the named tuple's keyword-handling __new__.
            append(new_move(Move, (seat, reply, (ns + 500) // 1000 / 1000)))
            rejected = play(seat, reply)
            if rejected is not None:
                raise _Stop(Fault(seat, rejected.verdict, rejected.reason))

    def _notify(self, match: Match, seat: int, payload: Any, kind: str) -> None:
        s = self.seats[seat]
        if s.proc is None or s.host is not None:
            return  # function bots only see prompts
        line = match.encode(payload)
        self._emit(kind, seat, line)
        s.proc.send(line)

    def _time_allowed(self, s: _Seat, step: Prompt) -> tuple[float, str, str]:
        limit = self.limits.first_time if step.clock == "first" else self.limits.move_time
        kind, why = Verdict.TIMEOUT, f"no reply within {limit:g} s"
        if self.limits.game_time is not None:
            left = self.limits.game_time - s.used
            if left < limit:
                limit = max(left, 0.0)
                kind = Verdict.TIME_BUDGET
                why = f"used up its {self.limits.game_time:g} s of thinking time for the game"
        return limit, kind, why

    def _ask(self, match: Match, step: Prompt) -> tuple[Any, float]:
        s = self.seats[step.seat]
        if s.index in self.people:
            return self._ask_person(match, s, step)
        allowed, late_verdict, late_why = self._time_allowed(s, step)
        tol = self.limits.tolerance
        if s.func is not None:
            reply, elapsed = self._ask_in_process(s, step.payload, allowed + tol, (late_verdict, late_why))
        elif s.host is not None:
            self._emit("send", s.index, repr(step.payload))
            reply, elapsed = self._ask_host(s, step.payload, allowed + tol, (late_verdict, late_why))
        else:
            line = match.encode(step.payload)
            self._emit("send", s.index, line)
            self._idle.discard(s.index)
            s.jail.thaw()  # its turn (a game without pondering froze it while it waited)
            t0 = s.asked_at = time.perf_counter()
            s.proc.send(line)
            reply = self._wait_line(s, t0 + allowed + tol, late_verdict, late_why)
            elapsed = time.perf_counter() - t0
            s.asked_at = None
            if s.jail.freezer_group is not None:
                self._idle.add(s.index)  # frozen if its opponent takes longer than FREEZE_AFTER
        if elapsed > allowed + tol:
            raise _Stop(Fault(s.index, late_verdict, late_why))
        s.used += elapsed
        ms = round(elapsed * 1000, 3)
        self._emit("reply", s.index, reply if isinstance(reply, str) else repr(reply), ms)
        return reply, ms

    def _ask_person(self, match: Match, s: _Seat, step: Prompt) -> tuple[Any, float]:
        """A person's reply (no time limit: a person thinks as long as they like; the bots that
        wait are frozen meanwhile where the game allows no pondering)."""
        for i in self._idle:
            self.seats[i].jail.freeze()
        self._idle.clear()
        self._emit("send", s.index, match.encode(step.payload))
        t0 = time.perf_counter()
        reply = self.people[s.index](match, step)
        ms = round((time.perf_counter() - t0) * 1000, 3)
        self._emit("reply", s.index, reply if isinstance(reply, str) else repr(reply), ms)
        return reply, ms

    def _ask_in_process(self, s: _Seat, payload: Any, timeout: float, late: tuple[str, str]) -> tuple[Any, float]:
        t0 = time.perf_counter_ns()
        try:
            with overtime.within(timeout):
                reply = s.func.call(payload)
        except FunctionBotError as e:
            s.detail = e.detail
            raise _Stop(Fault(s.index, e.verdict, e.message)) from None
        except overtime.Overtime:
            raise _Stop(Fault(s.index, *late)) from None
        return reply, (time.perf_counter_ns() - t0) / 1e9

    def _ask_host(self, s: _Seat, payload: Any, timeout: float, late: tuple[str, str]) -> tuple[Any, float]:
        """(reply, seconds) of ``s``'s function called in its host."""
        return self._host_call(s, _CALL_HEAD + dumps_compact(payload) + "}", timeout, late)

    def _host_request(self, s: _Seat, request: dict | str, timeout: float,
                      late=(Verdict.TIMEOUT, "no reply in time")) -> Any:
        """Send ``request`` (a dict, or its JSON line) to ``s``'s function host and return its answer."""
        t0 = time.perf_counter()
        s.host.send(request if isinstance(request, str) else dumps_compact(request))
        try:
            owed_error = None  # an acknowledgement's error answer: raised once all answers are in
            while s.acks:
                s.acks -= 1
                try:
                    self._host_answer(s, self._wait_line(s, t0 + timeout, *late))
                except _Stop as stop:
                    if not stop.host_ok:
                        raise
                    owed_error = owed_error or stop
            answer = self._host_answer(s, self._wait_line(s, t0 + timeout, *late))
            if owed_error is not None:
                raise owed_error
            return answer
        except _Stop as stop:
            if stop.fault.seat == s.index and not stop.host_ok:
                self.hosts.discard(s.spec)  # still busy, dead or confused: never reuse it
            raise

    def _host_call(self, s: _Seat, request: str, timeout: float, late: tuple[str, str]) -> tuple[Any, float]:
        """``_host_request`` timed: (answer, seconds from sending to answer).

        The usual case -- nothing queued for the host, no acknowledgement owed, its answer
        a short line -- is handled here with one write, waits and a line cut; anything else
        goes the general way (``_wait_line``), which rules on every fault.
        """
        host = s.host
        clock = time.perf_counter
        fd = host.stdin_fd
        if s.acks or host.pending or host.broken or host.out_buf or fd is None:
            t0 = clock()
            return self._host_request(s, request, timeout, late), clock() - t0
        data = request.encode() + b"\n"
        buf = host.out_buf
        t0 = clock()
        deadline = t0 + timeout
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
                        line = self._wait_line(s, deadline, *late)
                    return self._host_answer(s, line), clock() - t0
                left = deadline - clock()
                if left <= 0:
                    raise _Stop(Fault(s.index, *late))
                for fd, _ in self.sel.poll(left):
                    self._read_ready(fd)
        except _Stop as stop:
            if stop.fault.seat == s.index and not stop.host_ok:
                self.hosts.discard(s.spec)
            raise

    def _host_answer(self, s: _Seat, line: str) -> Any:
        if line.startswith('{"ok":'):
            value = line[6:-1]
            # The common case, a small number (a column, a cell), without a JSON parse.
            if line[-1] == "}" and value.isdigit() and value.isascii() and (len(value) == 1 or value[0] != "0"):
                return int(value)
            try:
                return json.loads(line)["ok"]
            except ValueError:
                pass
        try:
            answer = json.loads(line)
        except ValueError:
            raise _Stop(Fault(s.index, Verdict.CRASH, f"function host sent {_short(line)!r}")) from None
        if "error" in answer:
            detail = answer.get("detail")
            s.detail = detail if isinstance(detail, str) else None
            raise _Stop(Fault(s.index, answer.get("kind", Verdict.CRASH), str(answer["error"])), host_ok=True)
        return answer.get("ok")

    def _wait_line(self, s: _Seat, deadline: float, late_verdict: str, late_why: str) -> str:
        """The awaited seat's next reply line; faults (its own or another's) end the game."""
        clock = time.perf_counter
        freeze_at = clock() + FREEZE_AFTER if self._idle else None
        while True:
            if s.proc.out_buf:
                line = self._pop(s)
                if line is not None:
                    return line
            for other in self.seats:
                if other is not s and other.proc is not None and other.proc.out_buf and other.host is None:
                    extra = self._pop(other, awaited=False)
                    if extra is not None:
                        raise _Stop(Fault(other.index, Verdict.OUT_OF_TURN,
                                          f"wrote {_short(extra)!r} when no reply was due"))
            if s.proc.eof:
                raise _Stop(self._death(s))
            left = deadline - clock()
            if left <= 0:
                raise _Stop(Fault(s.index, late_verdict, late_why))
            pending = False
            for x in self.seats:
                if x.proc is not None and x.proc.pending:
                    pending = not x.proc.flush() or pending
            wait = min(left, 0.002) if pending else left
            if freeze_at is not None:
                if clock() >= freeze_at:
                    for i in self._idle:
                        self.seats[i].jail.freeze()
                    self._idle.clear()
                    freeze_at = None
                else:
                    wait = min(wait, freeze_at - clock())
            for fd, _ in self.sel.poll(wait):
                self._read_ready(fd)

    def _read_ready(self, fd: int) -> None:
        """Read what the selector says ``fd`` (a bot's stdout or stderr) has."""
        seat, which = self.fds[fd]
        if which == "out":
            seat.proc.read_stdout()
            if seat.proc.eof:
                self._unregister(fd)
        else:
            size = len(seat.proc.err_log)
            seat.proc.read_stderr()
            if len(seat.proc.err_log) != size:
                seat.err_marks.append((len(seat.proc.err_log), len(self.moves) + self._over))
            if seat.proc.err_eof:
                self._unregister(fd)

    def _register(self, fd: int, seat: _Seat, which: str) -> None:
        self.sel.register(fd, select.EPOLLIN)
        self.fds[fd] = (seat, which)

    def _unregister(self, fd: int) -> None:
        self.sel.unregister(fd)
        del self.fds[fd]

    def _pop(self, s: _Seat, awaited: bool = True) -> str | None:
        """Next non-aside stdout line of ``s``; oversized or undecodable lines are faults."""
        while True:
            try:
                line = s.proc.pop_line()
            except LineTooLong as e:
                kind = Verdict.OUT_OF_TURN if not awaited else Verdict.INVALID_REPLY
                raise _Stop(Fault(s.index, kind, str(e))) from None
            except UnicodeDecodeError as e:
                kind = Verdict.OUT_OF_TURN if not awaited else Verdict.INVALID_REPLY
                raise _Stop(Fault(s.index, kind, f"reply is not UTF-8 ({e.reason} at byte {e.start})")) from None
            if line is None:
                return None
            if self.prefix and line.startswith(self.prefix) and s.host is None:
                self._keep_aside(s, line)
                continue
            return line

    def _keep_aside(self, s: _Seat, line: str) -> None:
        self._emit("aside", s.index, line)
        data = line.encode()[: self.limits.aside_line_cap]
        room = self.limits.aside_total_cap - s.aside_bytes
        if room <= 0:
            s.aside_dropped += len(data)
            return
        kept = data[:room]
        s.aside.append(kept.decode("utf-8", "ignore"))
        s.aside_moves.append(len(self.moves) + self._over)
        s.aside_bytes += len(kept)
        s.aside_dropped += len(data) - len(kept)

    def _death(self, s: _Seat) -> Fault:
        s.proc.wait_exit(0.25)
        code = s.proc.poll()
        for _ in range(16):  # what the bot (and its jail's init) wrote last, bounded
            before = len(s.proc.err_log) + s.proc.err_dropped
            s.proc.read_stderr()
            if s.proc.err_eof or len(s.proc.err_log) + s.proc.err_dropped == before:
                break
        if s.jail is not None and s.jail.oom_killed():
            return Fault(s.index, Verdict.MEMORY, f"killed for using more than {self.limits.memory_mb} MiB of memory")
        what = describe_exit(code) if code is not None else "closed its output"
        text = s.proc.stderr_text()
        tail = [l for l in text.splitlines() if l.strip()]
        full = [l for l in tail[-3:] if l.startswith(DISK_FULL)]
        if full:  # the jail's init says so (kothkit.procs.contain.DISK_FULL)
            return Fault(s.index, Verdict.DISK, f"{what} with its {full[-1][len(DISK_FULL):]} (disk_mb)")
        said = error_line(text, 120)
        if said is not None:
            what += f"; stderr: {said!r}"
        if s.host is not None:
            self.hosts.discard(s.spec)
        return Fault(s.index, Verdict.CRASH, what)

    # -- the end -----------------------------------------------------------------
    def _final(self, match: Match, outcome: Outcome) -> None:
        self._over = 1
        for s in self.seats:
            if s.jail is not None and s.host is None:
                s.jail.thaw()  # the game is over: to read its end message and leave within the grace
        for m in match.final(outcome):
            self._notify(match, m.seat, m.payload, "final")

    def _stop_all(self, ended: bool = True) -> None:
        if self.no_processes:
            if self._own_hosts:
                self.hosts.close()
            return
        procs = [s for s in self.seats if s.proc is not None and s.host is None and s.proc.proc is not None]
        for s in procs:
            s.jail.thaw()  # to read its final message and leave within the grace
            s.proc.close_stdin()
        if not ended:  # a game cut short: no grace, and a host may be in the middle of a call
            for s in self.seats:
                if s.host is not None:
                    s.acks = 0
                    self.hosts.discard(s.spec)
        end = time.monotonic() + (self.limits.grace if ended else 0.0)
        fault = self._fault
        if ended and fault is not None and fault.verdict in (Verdict.TIMEOUT, Verdict.TIME_BUDGET):
            self._await_late(self.seats[fault.seat], end)
        for s in procs:
            s.proc.wait_exit(max(0.0, end - time.monotonic()))
        for s in procs:
            self._drain(s)
            s.proc.kill()
            s.jail.teardown()
        for s in self.seats:
            if s.host is not None and s.acks:
                # Never asked this game: read its pending acknowledgement now, so that it cannot
                # be taken for the answer to the next game's first request.
                try:
                    while s.acks:
                        s.acks -= 1
                        self._host_answer(s, self._wait_line(s, time.perf_counter() + self.limits.first_time,
                                                             Verdict.TIMEOUT, "no acknowledgement"))
                except _Stop as stop:
                    if not (stop.host_ok and s.acks == 0):
                        self.hosts.discard(s.spec)
                    continue
            if s.host is not None:
                if s.host.poll() is not None or s.host.eof:
                    self.hosts.discard(s.spec)
        if self.sel is not None:
            self.sel.close()
        if self._own_hosts:
            self.hosts.close()

    def _await_late(self, s: _Seat, end: float) -> None:
        """Keep the reply of ``s``, which timed out, if it comes within the grace period (with its
        time from the prompt), so that a timeout can be seen for what it was."""
        if s.asked_at is None or s.proc is None or s.host is not None or s.proc.proc is None:
            return
        try:
            while True:
                line = self._pop(s) if s.proc.out_buf else None
                if line is not None:
                    ms = round((time.perf_counter() - s.asked_at) * 1000, 3)
                    self._late_reply = [s.index, line, ms]
                    return
                left = end - time.monotonic()
                if left <= 0 or s.proc.eof:
                    return
                for fd, _ in self.sel.poll(left):
                    if fd in self.fds:
                        self._read_ready(fd)
        except _Stop:
            return  # an oversized or undecodable late line: nothing to keep

    def _drain(self, s: _Seat) -> None:
        """Keep what a bot wrote after the game ended: stderr, and diagnostic (aside) lines,
        e.g. a DEBUG line at END; other stdout lines no longer matter.  Bounded reads only."""
        for _ in range(64):
            before = len(s.proc.err_log) + s.proc.err_dropped
            s.proc.read_stderr()
            if s.proc.err_eof or len(s.proc.err_log) + s.proc.err_dropped == before:
                break
        if not self.prefix:
            return
        for _ in range(16):
            if s.proc.eof or len(s.proc.out_buf) > self.limits.max_line:
                break
            size = len(s.proc.out_buf)
            s.proc.read_stdout()
            if len(s.proc.out_buf) == size:
                break
        while True:
            try:
                line = s.proc.pop_line()
            except (LineTooLong, UnicodeDecodeError):
                return
            if line is None:
                return
            if line.startswith(self.prefix):
                self._keep_aside(s, line)

    def _logs(self) -> dict[str, Any]:
        logs: dict[str, Any] = {}
        marks: dict[str, dict] = {}
        moves = len(self.moves) + 1  # after the game
        for s in self.seats:
            parts = []
            tags: list[int] = []
            stderr_lines = 0
            if s.host is not None:
                # The host's stderr of this game only: what is in the pipe now is this game's
                # (the host writes a call's prints before its answer).
                s.host.drain_stderr()
                err = s.host.take_stderr("output")
            elif s.func is not None:
                err = s.func.take_output() if s.func.out or s.func.out_dropped else ""
            elif s.proc is not None:
                err = s.proc.stderr_text()
                if err:
                    tags += _line_moves(bytes(s.proc.err_log), s.err_marks, moves)
            else:
                err = ""
            if err:
                parts.append(err)
                # A function bot's prints carry no move marks: they count as after the game.
                tags += [moves] * (len(err.split("\n")) - len(tags))  # and the note of bytes dropped
            if s.detail:
                parts.append(s.detail)
                tags += [moves] * len(s.detail.split("\n"))
            stderr_lines = len(tags)
            if s.aside:
                parts.append("\n".join(s.aside))
                tags += s.aside_moves
            if s.aside_dropped:
                parts.append(f"[... {s.aside_dropped} bytes of {self.prefix} output dropped over the cap]")
                tags.append(moves)
            if parts:
                logs[s.spec.name] = "\n".join(parts)
                marks[s.spec.name] = {"moves": tags, "stderr": stderr_lines}
        if marks:
            logs[R.LOG_MOVES] = marks
        if self._late_reply is not None:
            logs[R.LATE_REPLY] = self._late_reply
        return logs


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


_FUNCTIONS: dict[tuple[str, str], Any] = {}


def _function_cache(spec: BotSpec, load_time: float):
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

    def fresh(self, spec: BotSpec) -> bool:
        """True once after a host was started for ``spec`` (it has not answered anything yet)."""
        key = _host_key(spec)
        if key in self._fresh:
            self._fresh.discard(key)
            return True
        return False

    def get(self, spec: BotSpec, limits: Limits, cpu: int | None = None) -> LineProcess:
        key = _host_key(spec)
        found = self._hosts.get(key)
        if found is not None and (found[0].eof or found[0].poll() is not None):
            self.discard(spec)
            found = None
        if found is not None:
            self._hosts[key] = self._hosts.pop(key)  # now the last used
        else:
            while len(self._hosts) >= self.limit:
                # The game's other bot was got just before this one: it is never the first.
                old = next(iter(self._hosts))
                self._fresh.discard(old)
                _end_host(*self._hosts.pop(old))
            folder = spec.workdir or spec.path.parent
            if spec.workdir is not None:
                folder.mkdir(parents=True, exist_ok=True)
            jail = Jail(limits, cpu=cpu)
            jail.setup()
            # A bot working in a private folder still reads its own file, from the shared folder.
            argv = jail.wrap([sys.executable, "-m", "kothkit.bots.funchost", spec.entry], folder,
                             readable=(spec.path.parent,) if spec.workdir is not None else ())
            p = LineProcess(argv=argv, cwd=folder, max_line=limits.max_line, stderr_cap=limits.stderr_cap,
                            preexec=jail.preexec if jail.needs_preexec() else None)
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

    def discard(self, spec: BotSpec) -> None:
        found = self._hosts.pop(_host_key(spec), None)
        if found is not None:
            _end_host(*found)

    def close(self) -> None:
        for p, jail in self._hosts.values():
            _end_host(p, jail)
        self._hosts.clear()


def _end_host(p: LineProcess, jail: Jail) -> None:
    p.drain_stderr()  # what the bot printed last is its game's log (read by the referee after)
    p.kill()
    jail.teardown()


def play_game(task: GameTask, *, cpu: int | tuple[int, ...] | None = None, on_event: EventFn | None = None,
              hosts: HostPool | None = None, info: GameInfo | None = None, boards: bool = False,
              people: dict[int, PersonFn] | None = None) -> GameRecord:
    """Play ``task`` to its end and return its record; never leaves a process behind.

    ``people``: seats whose replies come from ``f(match, prompt)`` instead of a bot (a person at the
    terminal, or a recorded person's replies), with no time limit."""
    return Referee(task, info or get_game(task.game), cpu=cpu, on_event=on_event, hosts=hosts, boards=boards,
                   people=people).run()
