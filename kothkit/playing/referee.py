"""The referee: plays one game (a :class:`GameTask`) and returns its :class:`GameRecord`.

It owns all I/O of a game.  It asks the game's match what to send, sends it to the
seat's player (:mod:`kothkit.playing.seats`: a program, a function bot in its host or
in this process, a person), waits for the reply under the time control with one
selector over every bot's stdout and stderr, and turns every fault (crash, timeout,
time budget, memory, out-of-turn output, oversized or undecodable lines) into a
verdict against the bot at fault.  Whatever happens, every process it started is
killed and reaped before ``play_game`` returns.

A fault takes its seat out of the game (``Match.leave``): in a two-seat game that ends it; in a
game of more seats the game goes on without the seat, whose process is stopped at once and whose
verdict is recorded against it alone.  A :class:`kothkit.game.Round` (simultaneous moves) sends
every prompt at once and collects the replies together, each within its own clock
(:meth:`Referee._round`): a round costs the slowest reply, not the sum.

One loop (:meth:`Referee._loop`) holds the time rules for every kind of seat.  It is
the hot path of a tournament of function bots (a move in microseconds, connect4 at
thousands of games a second, see benchmarks/bench_connect4.py): what only some games
need -- notices, people, someone watching, boards -- sits behind branches that cost a
test each, and the times are integer nanoseconds.

Each bot's log of the game holds what it wrote to stderr (a program bot, or a
function bot's host) or printed (a function bot called in this process: its
prints are captured for the game, see :func:`kothkit.bots.functions.capture_output`),
the traceback of a function bot that raised, and its diagnostic lines.
"""

from __future__ import annotations

import functools
import re
import select
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

from kothkit.bots import overtime
from kothkit.bots.folders import BotKind, printable
from kothkit.bots.functions import WRITES, FunctionBotError, capture_output, release_output
from kothkit.game import Clock, GameInfo, Match, Outcome, Prompt, Round, SeatClocks, Setup, Verdict
from kothkit.limits import DEFAULT_PROCESSES, Limits
from kothkit.messages import say
from kothkit.playing.seats import (  # noqa: F401  (HostPool, HOST_START_TIME, bot_seed: used from here)
    HOST_START_TIME,
    NO_EXIT,
    EndGame,
    Exit,
    Fault,
    FunctionSeat,
    HostPool,
    Late,
    PersonFn,
    PersonSeat,
    Seat,
    Stop,
    bot_seed,
    function_cache,
    seat_class,
)
from kothkit.plugins import get_game
from kothkit.procs.contain import DISK_FULL
from kothkit.procs.pipes import LineTooLong, describe_exit, error_line
from kothkit.store import records as R
from kothkit.store.records import STDERR_MARK, GameRecord, GameTask, Move, seat_results

#: A bot that replied is frozen once its opponent has thought this long (a game without
#: pondering): a fast reply then costs no freezer write (a freeze and thaw are slow on a cgroup v1
#: host), and a waiting bot can take at most this much of a long think.
FREEZE_AFTER = 0.005

#: on_event(kind, seat, text, ms): kind is one of send, notice, reply, aside, stderr, final, verdict,
#: and with ``boards`` also board (the game's rendering of the match after ``seat``'s move).
EventFn = Callable[[str, int, str, float | None], None]



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


#: The rest of the jail's init's line (DISK_FULL) on a full scratch folder: "/tmp full (16 MiB)".
_DISK_FULL_SAID = re.compile(r"(\S+) full \((\d+) MiB\)")


# The timeout reasons are worked out on every move of a game with a time budget: made once each.
@functools.lru_cache(maxsize=256)
def no_reply_within(limit: float) -> str:
    return say("no reply within {limit} s", limit=f"{limit:g}")


@functools.lru_cache(maxsize=256)
def used_up(budget: float) -> str:
    return say("used up its {limit} s of thinking time for the game", limit=f"{budget:g}")


class Referee:
    """Plays one task.  ``seats`` puts a seat of the caller's in some places (kothkit check's
    scripted opponent and listening bot); ``people`` puts a :class:`PersonSeat` there; every
    other seat is the kind its bot is (:func:`kothkit.playing.seats.seat_class`)."""

    def __init__(self, task: GameTask, info: GameInfo, cpu: int | tuple[int, ...] | None = None,
                 on_event: EventFn | None = None, hosts: HostPool | None = None, boards: bool = False,
                 people: Mapping[int, PersonFn] | None = None, seats: Mapping[int, Seat] | None = None):
        self.task = task
        self.info = info
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
        self.sel = (select.epoll() if not task.trusted or any(b.kind != BotKind.FUNCTION for b in task.players)
                    else None)
        self.fds: dict[int, tuple[Seat, str]] = {}
        if seats or people:
            given = dict(seats or {})
            for i, reply in (people or {}).items():
                given[i] = PersonSeat(i, task.players[i], reply=reply)
            for s in given.values():
                s.ref = self
        else:
            given = {}
        self.seats: list[Seat] = [given[i] if i in given else seat_class(b, task.trusted)(i, b, self)
                                  for i, b in enumerate(task.players)]
        self.moves: list[Move] = []
        #: The seats whose processes are watched: every seat, until one leaves the game (a new list then).
        self.live: list[Seat] = self.seats
        #: Each seat's fault, in the order they came (the first is the record's offender and verdict).
        self.faults: dict[int, Fault] = {}
        #: [seat, replies so far] of each seat that left a game of more than two seats (records.LEFT).
        self.left: list[list[int]] = []
        #: What a seat that left the game mid-game did at exit, and its memory peak, taken as it left.
        self.gone: dict[int, tuple[Exit, int | None]] = {}
        #: The match being played (for a fault ruled while another seat is awaited).
        self.match: Match | None = None
        self.prefix = info.aside_prefix
        #: The lower-cased prefixes of aside lines whatever their case (GameInfo.aside_prefixes).
        self.folded = tuple(p.lower() for p in info.aside_prefixes)
        #: Whether the game has aside lines at all.
        self.has_asides = bool(self.prefix or self.folded)
        #: The seats' reply time used, as the match sees it (Setup.clock).
        self.clock = SeatClocks([0.0] * len(task.players), task.limits.game_time)
        #: perf_counter_ns of each seat's last reply, for the guard delay (Limits.guard).
        self.replied_ns = [0] * len(task.players)
        #: Every seat a function called in this process: no process to start, watch or stop.
        self.no_processes = self.sel is None
        #: A timed-out seat's reply that came in the grace period: [seat, reply, ms].
        self._late_reply: list[int | str | float] | None = None
        #: 1 once the game is over: log lines then count as after the last move (see records.LOG_MOVES).
        self._over = 0
        #: The fault that ended the game, once ruled (a timed-out bot's late reply is awaited in the grace).
        self._fault: Fault | None = None
        #: Some seat a function called in this process, whose prints are captured for its log.
        self.captures = task.trusted and (self.no_processes or any(b.kind == BotKind.FUNCTION for b in task.players))
        #: Seats that replied and are to be frozen while they wait (a game without pondering).
        self.idle: set[int] = set()
        #: What each seat did at exit (Seat.stop), once the game is over.
        self.exits: list[Exit] = []
        self._slot: list[int] | None = None
        #: Each seat's memory peak in MiB (None: no memory cgroup), read as the game ends.
        self.peaks: list[int | None] = []

    def overtime_slot(self) -> list[int]:
        """The slot that arms a deadline around a call in this process (kothkit.bots.overtime.watch),
        looked up once a game."""
        if self._slot is None:
            self._slot = overtime.watch()
        return self._slot

    # -- events ----------------------------------------------------------------
    def emit(self, kind: str, seat: int, text: str, ms: float | None = None) -> None:
        if self.on_event is not None:
            self.on_event(kind, seat, text, ms)

    def stderr_shower(self, s: Seat) -> Callable[[str], None] | None:
        """What shows a program bot's stderr lines live: whoever watches the game, or the judge's
        stderr for a bot that asks for it (``stderr = true``), or nobody."""
        if self.on_event is not None:
            i = s.index
            return lambda line: self.emit("stderr", i, line)
        if s.spec.stderr:
            return _LiveStderr(s.spec.name, self.limits.stderr_cap)
        return None

    # -- lifecycle ---------------------------------------------------------------
    def run(self) -> GameRecord:
        t0 = time.monotonic()
        task = self.task
        names = tuple([b.name for b in task.players])
        rules = {**self.info.rules, **task.rules} if task.rules else self.info.rules
        match = self.match = self.info.match(Setup(players=names, seed=task.seed, rules=rules, limits=task.limits,
                                                   clock=self.clock))
        outcome: Outcome | None = None
        # Once a game, not once a call (once a batch, in kothkit.playing.executor.play_batch, where this
        # finds it done): what trusted function bots print goes to their logs.
        saved = capture_output() if self.captures else None
        writes = WRITES[0]
        ended = False
        try:
            try:
                self._start_all(match)
                outcome = self._play(match)
            except EndGame as end:
                outcome = end.outcome
            self._final(match, outcome)
            ended = True
        finally:
            try:
                # Interrupted (Ctrl-C): the bots are killed at once, without their grace period.
                self._stop_all(ended)
            finally:
                if saved is not None:
                    release_output(saved)
        winner = names[outcome.winner] if outcome.winner is not None else None
        faults = self.faults
        fault = next(iter(faults.values())) if faults else None
        n = len(names)
        places = points = verdicts = None
        if n != 2 or outcome.points is not None or outcome.places is not None:
            # Every seat's result: those that left share the last place and score the forfeit.
            places, points = seat_results(outcome.places_of(n), outcome.points, set(faults),
                                          self.info.scoring.forfeit)
            verdicts = tuple([str(faults[i].verdict) if i in faults else None for i in range(n)])
        record = GameRecord(
            id=task.id, game=task.game, index=task.index, players=names, hashes=tuple([b.hash for b in task.players]),
            seed=task.seed, winner=winner, reason=outcome.reason, offender=names[fault.seat] if fault else None,
            verdict=fault.verdict if fault else None, moves=tuple(self.moves),
            logs=self._logs() if not self.no_processes or fault or WRITES[0] != writes else {},
            seconds=round(time.monotonic() - t0, 4),
            memory=tuple(self.peaks) if any(p is not None for p in self.peaks) else None,
            seat_places=places, seat_points=points, seat_verdicts=verdicts,
        )
        # Seats and referee point at each other: undone here, so that a game's objects go when it
        # ends, not at a garbage collection (the cycle would set collections off, game after game).
        for s in self.seats:
            del s.ref
        return record

    def _start_all(self, match: Match) -> None:
        for s in self.seats:
            s.start()
        for s in self.seats:
            if s.start_error is not None:
                self._leave_or_end(match, Fault(s.index, s.start_verdict, s.start_error))

    # -- faults: a seat leaves the game ------------------------------------------------
    def _play(self, match: Match) -> Outcome:
        """The game's moves (:meth:`_loop`) to its end, each fault ruled as it comes (:meth:`_leave`)."""
        while True:
            try:
                return self._loop(match)
            except Stop as stop:
                outcome = self._leave(match, stop.fault)
                if outcome is not None:
                    return outcome

    def _leave(self, match: Match, fault: Fault) -> Outcome | None:
        """Rule on ``fault``: the verdict is the seat's alone, and the match is told
        (``Match.leave``).  The outcome if that ends the game; else None, the seat's process
        stopped at once and the game going on without it."""
        seat = fault.seat
        if seat in self.faults:
            raise RuntimeError(f"{self.info.name}: the match asked seat {seat} for a move after it left the game "
                               f"({self.faults[seat].verdict}); Match.next() must not prompt a seat in Match.out")
        self.faults[seat] = fault
        if len(self.seats) != 2:  # when it left, for a re-play (records.LEFT)
            self.left.append([seat, len(self.moves)])
        detail = self.seats[seat].detail
        if detail and self.on_event is not None:
            for line in detail.splitlines():
                self.emit("stderr", seat, line)
        self.emit("verdict", seat, f"{fault.verdict}: {fault.reason}")
        outcome = match.leave(seat, fault.verdict, fault.reason)
        if outcome is None:
            self._drop(self.seats[seat])
        else:
            self._fault = fault
        return outcome

    def _leave_or_end(self, match: Match, fault: Fault) -> None:
        """:meth:`_leave`, raising EndGame when that ends the game."""
        outcome = self._leave(match, fault)
        if outcome is not None:
            raise EndGame(outcome)

    def _drop(self, s: Seat) -> None:
        """Stop the process of ``s``, which left a game that goes on: killed and reaped now, its
        pipes no longer watched (what it wrote to stderr is kept for its log)."""
        self.idle.discard(s.index)
        self.live = [x for x in self.live if x is not s]
        peak = _peak_mib(s)
        for fd in [fd for fd, (x, _) in self.fds.items() if x is s]:
            del self.fds[fd]
            try:
                assert self.sel is not None  # it watched fd
                self.sel.unregister(fd)
            except OSError:
                pass  # closed already (a function host discarded): epoll forgot it then
        s.asked_at = None
        s.end_input(False)
        self.gone[s.index] = (s.stop(time.monotonic(), False), peak)

    # -- the game loop -----------------------------------------------------------
    def _loop(self, match: Match) -> Outcome:
        """Every game's moves, for every kind of seat: the time rules live here and nowhere else.

        A seat answers with its reply and the nanoseconds it took (it waits at most the
        allowance); the loop rules on the time.  The rest is the hot path of function-bot
        games, kept lean: what only some games need (notices, an untimed seat, someone
        watching, boards, a seat that acts after its move) is one test each.
        """
        seats = self.seats
        lim = self.limits
        # Without a game budget, a move's allowance never changes and nobody needs ``used``.
        budget = lim.game_time is not None
        move_allowed_ns = int((lim.move_time + lim.tolerance) * 1e9)
        move_late = (Verdict.TIMEOUT, no_reply_within(lim.move_time))
        watched = self.on_event is not None
        boards = self.boards
        nxt, play = match.next, match.play
        append = self.moves.append
        new_move = tuple.__new__
        asks = [s.ask for s in seats]
        follows = True in [s.follows for s in seats]
        # The hot path's one shortcut: a FunctionSeat (not a subclass) is called here, inline, as
        # FunctionSeat.ask would call it, saving a method call and a tuple a move.
        calls = [s.call if type(s) is FunctionSeat else None for s in seats]
        watch = self.overtime_slot() if any(calls) else []
        clock_ns = time.perf_counter_ns
        guard = lim.guard > 0
        used = self.clock.used
        late: Late
        while True:
            step = nxt()
            if type(step) is not Prompt:
                if isinstance(step, Outcome):
                    return step
                if isinstance(step, Round):
                    self._round(match, step)
                    continue
            seat, _payload, notices, clock = step
            if notices:  # function bots get prompts only: their seats ignore notices
                for m in notices:
                    if guard:
                        self.guard(m.seat)
                    seats[m.seat].notify(match, m.payload, "notice")
            if guard:
                self.guard(seat)
            s = seats[seat]
            if budget or clock != "move":
                allowed, kind, why = self.time_allowed(s, step)
                allowed_ns, late = int((allowed + lim.tolerance) * 1e9), (kind, why)
            else:
                allowed_ns, late = move_allowed_ns, move_late
            call = calls[seat]
            if call is not None:
                t0 = clock_ns()
                watch[0] = t0 + allowed_ns
                try:
                    try:
                        reply = call(step[1])
                    finally:
                        watch[0] = 0
                except FunctionBotError as e:
                    s.detail = e.detail
                    raise Stop(Fault(seat, e.verdict, e.message)) from None
                except overtime.Overtime:
                    raise Stop(Fault(seat, *late)) from None
                ns = clock_ns() - t0
            else:
                reply, ns = asks[seat](match, step, allowed_ns, late)
            if ns > allowed_ns and s.timed:
                raise Stop(Fault(seat, *late))
            if budget and s.timed and clock != Clock.START:
                s.used += ns / 1e9
                used[seat] = s.used
            if guard:
                self.replied_ns[seat] = clock_ns()
            ms = (ns + 500) // 1000 / 1000  # to the microsecond
            if watched:
                s.show_reply(reply, ms)
            # Move(seat, reply, ms) without the named tuple's keyword-handling __new__.
            append(new_move(Move, (seat, reply, ms)))
            rejected = play(seat, reply)
            if rejected is not None:
                raise s.refusal(rejected)
            if boards:
                self.emit("board", seat, match.render())
            if follows and s.follows:
                s.after_play(match)

    # -- simultaneous moves ---------------------------------------------------------
    def _round(self, match: Match, step: Round) -> None:
        """One :class:`Round`: every prompt sent at once (each seat's notices first), the replies
        collected together, each within its own clock, then played in seat order.  A seat that
        faults leaves the game (:meth:`_leave`) and the others' replies are played all the same."""
        seats, lim = self.seats, self.limits
        prompts = sorted(step.prompts, key=lambda p: p.seat)
        if not prompts:  # (next() would give it again and again)
            raise RuntimeError(f"{self.info.name}: Match.next() returned a Round of no prompts")
        if self.sel is not None and self._stray(match):
            return  # a seat left: the match says again what is asked now
        guard = lim.guard > 0
        for p in prompts:
            for m in p.notices:
                if guard:
                    self.guard(m.seat)
                seats[m.seat].notify(match, m.payload, "notice")
        clock_ns = time.perf_counter_ns
        rules: dict[int, tuple[int, int, Late]] = {}  # seat -> (sent at, allowed ns, late verdict)
        in_turn: list[Prompt] = []
        for p in prompts:
            s = seats[p.seat]
            if guard:
                self.guard(p.seat)
            allowed, kind, why = self.time_allowed(s, p)
            rules[p.seat] = (clock_ns(), int((allowed + lim.tolerance) * 1e9), (kind, why))
            if not s.send_prompt(match, p):
                in_turn.append(p)
        got: dict[int, tuple[Any, int]] = {}
        faults: dict[int, Fault] = {}
        # The replies whose prompts are out first: a reply's time is taken when it is read, and
        # nothing reads while a function is called in this process (or a person types), so a
        # seat waited for after those would be charged their time too.
        waiting = {p.seat: rules[p.seat] for p in prompts if p not in in_turn}
        if waiting:
            self._collect(waiting, got, faults)
        for p in in_turn:  # functions called in this process, people: one after another
            if p.seat in self.faults or p.seat in faults:
                continue  # it left while another was asked (ruled on then), or wrote out of turn
            _, allowed_ns, late = rules[p.seat]
            try:
                got[p.seat] = seats[p.seat].ask(match, p, allowed_ns, late)
            except Stop as stop:
                faults.setdefault(stop.fault.seat, stop.fault)
        budget = lim.game_time is not None
        for seat in sorted(set(rules) | set(faults)):
            if seat in self.faults:
                continue  # it left during the round (ruled on then): a reply it gave is not played
            s = seats[seat]
            fault = faults.get(seat)
            if fault is None and seat in got:
                reply, ns = got[seat]
                _, allowed_ns, late = rules[seat]
                if ns > allowed_ns and s.timed:
                    fault = Fault(seat, *late)
            if fault is not None:
                self._leave_or_end(match, fault)
                continue
            if budget and s.timed and step_clock(prompts, seat) != Clock.START:
                s.used += ns / 1e9
                self.clock.used[seat] = s.used
            if guard:
                self.replied_ns[seat] = clock_ns()
            ms = (ns + 500) // 1000 / 1000
            if self.on_event is not None:
                s.show_reply(reply, ms)
            self.moves.append(Move(seat, reply, ms))
            rejected = match.play(seat, reply)
            if rejected is not None:
                refusal = s.refusal(rejected)
                if not isinstance(refusal, Stop):
                    raise refusal
                self._leave_or_end(match, refusal.fault)
                continue
            if self.boards:
                self.emit("board", seat, match.render())
            if s.follows:
                s.after_play(match)

    def _stray(self, match: Match) -> bool:
        """Before a round is sent: the lines the seats wrote since their last replies, which no
        reply was due for (else the next round would take one for a reply).  Each such seat leaves
        the game (out of turn); True if one did."""
        assert self.sel is not None
        for fd, _ in self.sel.poll(0):
            if fd in self.fds:
                self.read_ready(fd)
        found = False
        for other in list(self.live):
            proc = other.proc
            if not other.lines or proc is None or not proc.out_buf:
                continue
            try:
                extra = self._pop(other, awaited=False)
                if extra is None:
                    continue
                fault = Fault(other.index, Verdict.OUT_OF_TURN,
                              say("wrote {line} when no reply was due", line=repr(_short(extra))))
            except Stop as stop:
                fault = stop.fault
            self._leave_or_end(match, fault)
            found = True
        return found

    def _collect(self, waiting: dict[int, tuple[int, int, Late]], got: dict[int, tuple[Any, int]],
                 faults: dict[int, Fault]) -> None:
        """Wait for the replies of the seats in ``waiting`` (seat -> sent at, allowed ns, late
        verdict), all at once over the one selector: each reply into ``got`` with the nanoseconds it
        took, each fault (its own, or a line another seat wrote when no reply was due) into ``faults``."""
        sel = self.sel
        assert sel is not None  # seats that were sent their prompts have processes
        clock_ns = time.perf_counter_ns
        freeze_at = clock_ns() + int(FREEZE_AFTER * 1e9) if self.idle else None
        freezes = not self.info.pondering
        # A seat that already left is not waited for: the pass below reads and times live seats only,
        # and would wait for it without end, spinning (as it once did for seats ruled out of turn
        # while kothkit check's bot, asked in turn, was asked first).
        live = {s.index for s in self.live}
        for i in [i for i in waiting if i not in live]:
            del waiting[i]
        while True:
            pending = False
            for other in self.live:
                i, proc = other.index, other.proc
                if proc is None or i in faults:
                    continue
                try:
                    if i in waiting:
                        while proc.out_buf:
                            line = self._pop(other)
                            if line is None:
                                break
                            done, reply = other.take_line(line)
                            if done:
                                got[i] = (reply, clock_ns() - waiting.pop(i)[0])
                                other.asked_at = None
                                if freezes and other.jail is not None and other.jail.freezer_group is not None:
                                    self.idle.add(i)
                                break
                        if i in waiting:
                            if proc.eof:
                                raise Stop(self._death(other))
                            if clock_ns() > waiting[i][0] + waiting[i][1]:
                                raise Stop(Fault(i, *waiting[i][2]))
                    elif other.lines and proc.out_buf:
                        extra = self._pop(other, awaited=False)
                        if extra is not None:
                            raise Stop(Fault(i, Verdict.OUT_OF_TURN,
                                             say("wrote {line} when no reply was due", line=repr(_short(extra)))))
                except Stop as stop:
                    if stop.fault.seat == i and not stop.host_ok:
                        other.forget()  # a function host still busy, dead or confused: never reused
                    faults.setdefault(stop.fault.seat, stop.fault)
                    waiting.pop(stop.fault.seat, None)
                    continue
                if proc.pending:
                    pending = not proc.flush() or pending
            if not waiting:
                return
            now = clock_ns()
            wait = max(0, min(t + allowed for t, allowed, _ in waiting.values()) - now) / 1e9
            if pending:
                wait = min(wait, 0.002)
            if freeze_at is not None:
                if now >= freeze_at:
                    self.freeze_idle()
                    freeze_at = None
                else:
                    wait = min(wait, (freeze_at - now) / 1e9)
            for fd, _ in sel.poll(wait):
                if fd in self.fds:
                    self.read_ready(fd)

    def guard(self, seat: int) -> None:
        """Wait until ``seat`` replied at least ``Limits.guard`` ago (at most the guard itself)."""
        wait = self.replied_ns[seat] + int(self.limits.guard * 1e9) - time.perf_counter_ns()
        if wait > 0:
            time.sleep(wait / 1e9)

    def is_aside(self, line: str) -> bool:
        """Whether ``line`` is a diagnostic (aside) line of the game's."""
        if self.prefix and line.startswith(self.prefix):
            return True
        return bool(self.folded) and line[:32].lower().startswith(self.folded)

    def time_allowed(self, s: Seat, step: Prompt) -> tuple[float, Verdict, str]:
        """Seconds ``s`` has for ``step`` (tolerance not included), and the verdict if it takes longer."""
        if step.clock == Clock.START:  # start-up: its own allowance, outside the game's budget
            limit = self.limits.start_time
            return limit, Verdict.TIMEOUT, no_reply_within(limit)
        limit = self.limits.first_time if step.clock == Clock.FIRST else self.limits.move_time
        kind, why = Verdict.TIMEOUT, no_reply_within(limit)
        if self.limits.game_time is not None:
            left = self.limits.game_time - s.used
            if left < limit:
                limit = max(left, 0.0)
                kind = Verdict.TIME_BUDGET
                why = used_up(self.limits.game_time)
        return limit, kind, why

    def freeze_idle(self) -> None:
        """Freeze the seats that replied and wait (a game without pondering)."""
        for i in self.idle:
            jail = self.seats[i].jail
            assert jail is not None  # only a seat in a freezable jail is idle
            jail.freeze()
        self.idle.clear()

    # -- waiting and reading, for every seat with a process -------------------------
    def wait_line(self, s: Seat, deadline: float, late_verdict: Verdict, late_why: str) -> str:
        """The awaited seat's next reply line (by perf_counter ``deadline``); faults (its own or
        another seat's: a line written when no reply was due) end the game."""
        proc, sel, seats = s.proc, self.sel, self.seats
        assert proc is not None and sel is not None  # a seat with a process: the game has a selector
        clock = time.perf_counter
        freeze_at = clock() + FREEZE_AFTER if self.idle else None
        while True:
            if proc.out_buf:
                line = self._pop(s)
                if line is not None:
                    return line
            # One pass over the seats: another's line is out of turn; what a pipe did not take is written.
            pending = False
            for other in self.live:
                oproc = other.proc
                if oproc is None:
                    continue
                # (a seat whose Round prompt is out, while this one is asked in turn, is awaited: its
                # line is its reply, read when the round's replies are collected)
                if other is not s and other.lines and oproc.out_buf and other.asked_at is None:
                    try:
                        extra = self._pop(other, awaited=False)
                        if extra is not None:
                            raise Stop(Fault(other.index, Verdict.OUT_OF_TURN,
                                             say("wrote {line} when no reply was due", line=repr(_short(extra)))))
                    except Stop as stop:
                        if len(seats) == 2 or self.match is None:
                            raise
                        # Another seat's fault while this one thinks: it leaves, the wait goes on.
                        self._leave_or_end(self.match, stop.fault)
                        break
                if oproc.pending:
                    pending = not oproc.flush() or pending
            if proc.eof:
                raise Stop(self._death(s))
            now = clock()
            left = deadline - now
            if left <= 0:
                raise Stop(Fault(s.index, late_verdict, late_why))
            wait = min(left, 0.002) if pending else left
            if freeze_at is not None:
                if now >= freeze_at:
                    self.freeze_idle()
                    freeze_at = None
                elif freeze_at - now < wait:
                    wait = freeze_at - now
            for fd, _ in sel.poll(wait):
                self.read_ready(fd)

    def read_ready(self, fd: int) -> None:
        """Read what the selector says ``fd`` (a bot's stdout or stderr) has."""
        seat, which = self.fds[fd]
        proc = seat.proc
        assert proc is not None  # only a seat's process's pipes are watched
        if which == "out":
            proc.read_stdout(fd)
            if proc.eof:
                self._unregister(fd)
        else:
            size = len(proc.err_log)
            proc.read_stderr()
            if len(proc.err_log) != size:
                seat.err_marks.append((len(proc.err_log), len(self.moves) + self._over))
            if proc.err_eof:
                self._unregister(fd)

    def watch(self, fd: int, seat: Seat, which: str) -> None:
        """Watch ``seat``'s stdout (``which`` = "out") or stderr ("err") pipe."""
        assert self.sel is not None  # a game with a process has a selector
        self.sel.register(fd, select.EPOLLIN)
        self.fds[fd] = (seat, which)

    def _unregister(self, fd: int) -> None:
        assert self.sel is not None  # it watched fd
        self.sel.unregister(fd)
        del self.fds[fd]

    def _pop(self, s: Seat, awaited: bool = True) -> str | None:
        """Next non-aside stdout line of ``s``; oversized or undecodable lines are faults."""
        proc = s.proc
        assert proc is not None  # lines come from a seat's process
        while True:
            try:
                line = proc.pop_line()
            except LineTooLong as e:
                kind = Verdict.OUT_OF_TURN if not awaited else Verdict.INVALID_REPLY
                raise Stop(Fault(s.index, kind, str(e))) from None
            except UnicodeDecodeError as e:
                kind = Verdict.OUT_OF_TURN if not awaited else Verdict.INVALID_REPLY
                raise Stop(Fault(s.index, kind,
                                 say("reply is not UTF-8 ({problem} at byte {at})",
                                     problem=e.reason, at=e.start))) from None
            if line is None:
                return None
            if self.has_asides and s.lines and self.is_aside(line):
                self.keep_aside(s, line)
                continue
            return line

    def keep_aside(self, s: Seat, line: str) -> None:
        """Keep a diagnostic (aside) line of ``s`` for its log, within the caps."""
        self.emit("aside", s.index, line)
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

    def _death(self, s: Seat) -> Fault:
        proc = s.proc
        assert proc is not None  # a seat's process ended
        # The reason is part of the game's result: "exited with code 3" and "closed its output" must
        # not depend on how soon a loaded machine reaps a process that closed its output on the way
        # out (0.25 s was not enough under load).  A bot that closes it and lives on costs this once.
        proc.wait_exit(2.0)
        code = proc.poll()
        for _ in range(16):  # what the bot (and its jail's init) wrote last, bounded
            before = len(proc.err_log) + proc.err_dropped
            proc.read_stderr()
            if proc.err_eof or len(proc.err_log) + proc.err_dropped == before:
                break
        if s.jail is not None and s.jail.oom_killed():
            return Fault(s.index, Verdict.MEMORY,
                         say("killed for using more than {limit} MiB of memory", limit=self.limits.memory_mb))
        what = describe_exit(code) if code is not None else say("closed its output")
        text = proc.stderr_text()
        tail = [l for l in text.splitlines() if l.strip()]
        full = [l for l in tail[-3:] if l.startswith(DISK_FULL)]
        if full:  # the jail's init says so (kothkit.procs.contain.DISK_FULL)
            disk = full[-1][len(DISK_FULL):]
            parts = _DISK_FULL_SAID.fullmatch(disk)
            if parts is None:
                return Fault(s.index, Verdict.DISK, say("{what} with its {disk} (disk_mb)", what=what, disk=disk))
            return Fault(s.index, Verdict.DISK, say("{what} with its {folder} full ({limit} MiB) (disk_mb)", what=what,
                                                     folder=parts.group(1), limit=parts.group(2)))
        if s.jail is not None and s.jail.process_cap_hit():
            what = say("{what}, over its process cap ({limit} tasks, processes)", what=what,
                       limit=self.limits.processes or DEFAULT_PROCESSES)
        said = error_line(text, 120)
        if said is not None:
            what += f"{STDERR_MARK}{said!r}"
        s.forget()
        return Fault(s.index, Verdict.CRASH, what)

    # -- the end -----------------------------------------------------------------
    def _final(self, match: Match, outcome: Outcome) -> None:
        self._over = 1
        for s in self.live:
            if s.lines and s.jail is not None:
                s.jail.thaw()  # the game is over: to read its end message and leave within the grace
        for m in match.final(outcome):
            if m.seat in self.gone:
                continue  # it left the game: its process is gone
            if self.limits.guard > 0:
                self.guard(m.seat)
            self.seats[m.seat].notify(match, m.payload, "final")

    def _stop_all(self, ended: bool = True) -> None:
        if self.no_processes:
            if self._own_hosts:
                self.hosts.close()
            return
        for s in self.live:
            s.end_input(ended)
        end = time.monotonic() + (self.limits.grace if ended else 0.0)
        fault = self._fault
        if ended and fault is not None and fault.verdict in (Verdict.TIMEOUT, Verdict.TIME_BUDGET):
            self._await_late(self.seats[fault.seat], end)
        # Seats that talk in lines first: their lines are read to the end (asides kept, the rest
        # dropped) before a host's owed acknowledgement is read, which must not find one waiting.
        exits = [NO_EXIT] * len(self.seats)
        # Each bot's memory peak, read from its cgroup before the jail is torn down (a seat that
        # left the game: as it left).
        gone = self.gone
        self.peaks = [gone[s.index][1] if s.index in gone else _peak_mib(s) for s in self.seats]
        for s in sorted(self.live, key=lambda s: not s.lines):
            exits[s.index] = s.stop(end, ended)
        for i, (exit_, _) in gone.items():
            exits[i] = exit_
        self.exits = exits
        if self.sel is not None:
            self.sel.close()
        if self._own_hosts:
            self.hosts.close()

    def _await_late(self, s: Seat, end: float) -> None:
        """Keep the reply of ``s``, which timed out, if it comes within the grace period (with its
        time from the prompt), so that a timeout can be seen for what it was."""
        proc, sel = s.proc, self.sel
        if s.asked_at is None or not s.lines or proc is None or proc.proc is None or sel is None:
            return
        try:
            while True:
                line = self._pop(s) if proc.out_buf else None
                if line is not None:
                    ms = round((time.perf_counter() - s.asked_at) * 1000, 3)
                    self._late_reply = [s.index, line, ms]
                    return
                left = end - time.monotonic()
                if left <= 0 or proc.eof:
                    return
                for fd, _ in sel.poll(left):
                    if fd in self.fds:
                        self.read_ready(fd)
        except Stop:
            return  # an oversized or undecodable late line: nothing to keep

    def _logs(self) -> dict[str, Any]:
        logs: dict[str, Any] = {}
        marks: dict[str, dict[str, Any]] = {}
        moves = len(self.moves) + 1  # after the game
        for s in self.seats:
            parts = []
            err, tags = s.output(moves)
            if err:
                parts.append(err)
                # Lines read without a mark (after the game) and the note of bytes dropped.
                tags += [moves] * (len(err.split("\n")) - len(tags))
            if s.detail:
                parts.append(s.detail)
                tags += [moves] * len(s.detail.split("\n"))
            if s.index in self.gone:  # its verdict's reason, which the record's own reason is not
                f = self.faults[s.index]
                parts.append(f"[kothkit: left the game: {f.verdict}: {f.reason}]")
                tags.append(moves)
            stderr_lines = len(tags)
            if s.aside:
                parts.append("\n".join(s.aside))
                tags += s.aside_moves
            if s.aside_dropped:
                label = " / ".join(([self.prefix] if self.prefix else []) + list(self.info.aside_prefixes))
                parts.append(f"[... {s.aside_dropped} bytes of {label} output dropped over the cap]")
                tags.append(moves)
            if parts:
                logs[s.spec.name] = "\n".join(parts)
                marks[s.spec.name] = {"moves": tags, "stderr": stderr_lines}
        if marks:
            logs[R.LOG_MOVES] = marks
        if self._late_reply is not None:
            logs[R.LATE_REPLY] = self._late_reply
        if self.left:
            logs[R.LEFT] = self.left
        return logs


def step_clock(prompts: list[Prompt], seat: int) -> str:
    """The clock of ``seat``'s prompt among ``prompts``."""
    return next(p.clock for p in prompts if p.seat == seat)


def _peak_mib(s: Seat) -> int | None:
    """The memory peak of ``s``'s jail in MiB, rounded up; None without a memory cgroup."""
    jail = getattr(s, "jail", None)
    if jail is None:
        return None
    peak = jail.memory_peak()
    return None if peak is None else -(-peak // (1 << 20))


def play_game(task: GameTask, *, cpu: int | tuple[int, ...] | None = None, on_event: EventFn | None = None,
              hosts: HostPool | None = None, info: GameInfo | None = None, boards: bool = False,
              people: dict[int, PersonFn] | None = None) -> GameRecord:
    """Play ``task`` to its end and return its record; never leaves a process behind.

    ``people``: seats whose replies come from ``f(match, prompt)`` instead of a bot (a person at the
    terminal, or a recorded person's replies), with no time limit."""
    return Referee(task, info or get_game(task.game), cpu=cpu, on_event=on_event, hosts=hosts, boards=boards,
                   people=people).run()
