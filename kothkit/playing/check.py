"""What ``kothkit check GAME BOT`` does: put one bot through scripted situations and explain each fault.

The bot plays real games through the core's referee (the same time limits,
fault rules and process handling as a tournament), in three kinds of runs:

1. the game's own scenarios (``kothkit_scenarios`` hook, see
   :mod:`kothkit.scenarios`), where the other seats follow a script;
2. an exploration, for each seat the bot can take, of every kind of reply the
   opponent can give at its first prompts, the opponent resigning afterwards
   (so the bot also gets the end-of-game message), plus one whole game per
   seat against a seeded random opponent;
3. games against the game's bundled bots, one per seat.

A game of a range of seats (lowbid: 3 to 10) is checked at its fewest seats, the bot in every
seat, and at its most, the bot in the first and the last seat (a bot that sizes its tables for
three players fails there); each run's title says at how many seats it played.  The game's own
scenarios are scripted for its fewest seats and played there only.

In scripted runs the opponent answers at once, so a bot that writes more
than it should would have its extra line taken as its next reply; instead,
after each of the bot's first replies the check waits a moment (``quiet``)
and any line the bot writes meanwhile is an out-of-turn fault, as it would be
in a tournament while the opponent thinks.

All of it is seats (:mod:`kothkit.playing.seats`) the referee plays like any
other: the scripted opponent is a seat, and the bot under check is its usual
kind of seat with the check's listening mixed in (:class:`_Listening`).

Each fault is explained in plain words: what the bot was sent, what it
answered, what the rule is, and the usual cause (an unflushed buffer, a
banner line at start-up, a reply to a notice...).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import attrs

from kothkit.bots.folders import BotKind, BotSpec, load_bots
from kothkit.game import Clock, GameInfo, Match, Outcome, Prompt, Rejected, Setup, Verdict
from kothkit.limits import Limits
from kothkit.playing.referee import EventFn, Referee
from kothkit.playing.seats import (
    EndGame,
    Fault,
    FunctionSeat,
    HostSeat,
    Late,
    ProgramSeat,
    Seat,
    Stop,
    seat_class,
)
from kothkit.scenarios import Scenario, shapes
from kothkit.store.records import GameRecord, GameTask

if TYPE_CHECKING:
    from kothkit.hookspecs import BotLoader

#: How long the check listens for extra output after each of the bot's first replies (seconds).
QUIET = 0.1
#: ... for this many replies of each run.
QUIET_REPLIES = 4
#: Opponent prompts whose kinds of reply are explored, and runs per seat at most.
DEPTH = 3
MAX_BRANCHES = 8
#: A first reply slower than this share of the time allowed is worth a warning.
SLOW_SHARE = 0.5
TRANSCRIPT_LINES = 10

FAULT, WARNING, ERROR = "fault", "warning", "error"


class CheckError(Exception):
    """The check cannot run at all (unknown game, bot that does not load or build)."""


class ScenarioBroken(Exception):
    """The game rejected a scripted reply: the scenario (or the game) is wrong, not the bot."""


@attrs.frozen
class Finding:
    #: "fault" (would lose a tournament game), "warning" (allowed, but risky) or
    #: "error" (the scenario itself is broken; tell the game's author).
    severity: str
    #: What went wrong, in plain words.
    text: str
    #: The verdict kind for faults (crash, timeout, invalid-reply, ...).
    kind: str | None = None
    #: The same for the same mistake in different runs (the verdict and its reason, without the prompt).
    key: str | None = None


@attrs.frozen
class Run:
    """One game of the check."""

    title: str
    description: str
    seat: int
    #: Replies the bot gave (accepted or not).
    replies: int
    first_ms: float | None
    findings: tuple[Finding, ...]
    #: The last lines exchanged with the bot (sent, received, asides, stderr).
    transcript: tuple[str, ...]
    #: Prompts the bot was sent (0: the game ended before its turn; None: not known), and how the game ended.
    asked: int | None = None
    ended: str = ""
    #: Seats at the table (0: not known, the game's rules did not make a match).
    seats: int = 0

    @property
    def never_asked(self) -> bool:
        """The game ended before the bot was asked for anything: the run says nothing of it."""
        return self.asked == 0 and self.replies == 0

    @property
    def ok(self) -> bool:
        return not any(f.severity in (FAULT, ERROR) for f in self.findings)


@attrs.frozen
class Report:
    game: str
    bot: str
    runs: tuple[Run, ...]

    @property
    def faults(self) -> list[tuple[Run, Finding]]:
        return [(r, f) for r in self.runs for f in r.findings if f.severity == FAULT]

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.runs)


_RESIGN = object()
#: The reason of the fault that ends the bot's quiet time (caught: no fault of the bot's).
_QUIET = "(quiet time over)"


def _text(value: Any, limit: int = 100) -> str:
    try:
        text = value if isinstance(value, str) else repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Opponent:
    """Plays every seat but the bot's: script, then branch kinds, then random or resign."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.rng = random.Random(f"kothkit.check:{scenario.seed}:{scenario.seat}")
        self.asked = 0
        #: For each prompt after the script that ``branch`` steers: how many kinds of reply there were.
        self.kinds: list[int] = []
        #: The reply given where there was a choice of kinds: (prompt number, reply text).
        self.taken: list[tuple[int, str]] = []

    def __call__(self, match: Match, prompt: Prompt) -> Any:
        sc = self.scenario
        i = self.asked
        self.asked += 1
        if i < len(sc.script):
            return sc.script[i]
        legal = match.legal_replies()
        groups = shapes(legal)
        k = i - len(sc.script)
        if k < len(sc.branch):
            self.kinds.append(len(groups))
            pick = min(sc.branch[k], len(groups) - 1)
            reply = self.rng.choice(groups[pick])
            if len(groups) > 1:
                self.taken.append((i, _text(reply)))
            return reply
        if sc.then == "resign":
            return _RESIGN
        return self.rng.choice(legal)


@attrs.define(eq=False)
class _Script(Seat):
    """A seat the check plays itself (see :class:`_Opponent`): untimed, nothing to start or stop."""

    timed = False
    opponent: _Opponent | None = None
    game: CheckGame | None = None

    def ask(self, match: Match, step: Prompt, allowed_ns: int, late: Late) -> tuple[Any, int]:
        assert self.opponent is not None and self.game is not None  # made with both (CheckGame.run)
        reply = self.opponent(match, step)
        if reply is _RESIGN:
            raise EndGame(self.game.resign(match, step.seat))
        return reply, 0

    def show_reply(self, reply: Any, ms: float) -> None:
        self.ref.emit("opponent", self.index, _text(reply))

    def refusal(self, rejected: Rejected) -> Exception:
        return ScenarioBroken(f"the game rejected the scripted reply {_text(self.ref.moves[-1].reply)!r} of seat "
                              f"{self.index}: {rejected.verdict}: {rejected.reason}")


# To mypy the mixin is the seat it is mixed into (its methods call the seat's); at run time a bare
# mixin, so that each kind's own methods come between it and Seat.
if TYPE_CHECKING:
    _SeatMixin = Seat
else:
    _SeatMixin = object


class _Listening(_SeatMixin):
    """The bot under check, of any seat kind (mixed into it): it also listens for a moment
    (``quiet``) after each of its first replies, where a line is out of turn; after a timeout,
    it waits as long again for the reply (a slow bot, or a buffered one?); and it keeps what
    its process did at exit."""

    # Its one field, ``check``, is a slot of each kind's class (_LISTENING): a slot here would clash
    # with the seat's own slots.
    __slots__ = ("check",) if TYPE_CHECKING else ()
    follows = True
    keep_exit = True
    check: CheckGame

    def start(self) -> None:
        super().start()
        if self.check.scenario is not None:
            self.start_verdict = Verdict.CRASH  # the check's own word for a bot that does not start

    def ask(self, match: Match, step: Prompt, allowed_ns: int, late: Late) -> tuple[Any, int]:
        check = self.check
        check.last_clock = step.clock
        sent = time.perf_counter()
        try:
            reply, ns = super().ask(match, step, allowed_ns, late)
            if ns > allowed_ns:
                raise Stop(Fault(self.index, *late))
        except Stop as stop:
            if stop.fault.seat == self.index and stop.fault.verdict == Verdict.TIMEOUT:
                self._wait_late(sent, self.ref.time_allowed(self, step)[0])
            raise
        return reply, ns

    def _wait_late(self, sent: float, allowed: float) -> None:
        """After a timeout, wait as long again (1 to 10 s) for the reply, the bot's input still open.

        A bot that flushes but is slow answers now; a bot whose reply sits in its output
        buffer does not (it waits for its next line), and its reply only comes out when it
        exits at the end of its input (see ProgramSeat.keep_exit): that tells the two apart.
        """
        if not self.lines or self.proc is None:
            return
        try:
            line = self.ref.wait_line(self, time.perf_counter() + min(max(allowed, 1.0), 10.0), Verdict.TIMEOUT, "late")
        except Stop:
            return  # nothing came (or the bot died meanwhile)
        check = self.check
        check.slow = (line, (time.perf_counter() - sent) * 1000)
        self.ref.emit("late", self.index, line, round(check.slow[1], 1))

    def after_play(self, match: Match) -> None:
        check = self.check
        check.bot_replies += 1
        if check.scenario is None:
            return
        over = isinstance(match.next(), Outcome)
        if not over and check.bot_replies <= check.quiet_replies:
            self._listen()
        limit = check.scenario.bot_replies
        if not over and limit is not None and check.bot_replies >= limit:
            raise EndGame(check.resign(match, next(s for s in range(len(self.ref.seats)) if s != self.index)))

    def _listen(self) -> None:
        """Any line the bot writes in the next ``quiet`` seconds is out of turn."""
        quiet = self.check.quiet
        if not self.lines or self.proc is None or quiet <= 0:
            return
        try:
            line = self.ref.wait_line(self, time.perf_counter() + quiet, Verdict.TIMEOUT, _QUIET)
        except Stop as stop:
            if stop.fault.verdict == Verdict.TIMEOUT and stop.fault.reason == _QUIET and stop.fault.seat == self.index:
                return
            raise
        self.ref.emit("extra", self.index, line)
        raise Stop(Fault(self.index, Verdict.OUT_OF_TURN, f"wrote {_text(line)!r} when no reply was due"))


#: The bot under check, for each kind of seat it can take.
_LISTENING: dict[type[Seat], type[_Listening]] = {
    kind: type(f"Listening{kind.__name__}", (_Listening, kind), {"__slots__": ("check",)})
    for kind in (ProgramSeat, HostSeat, FunctionSeat)}


@attrs.define
class CheckGame:
    """One game of the check: the bot in seat ``me``, every other seat scripted by ``scenario``
    (or, without one, real bots), on the core's referee with public seats."""

    task: GameTask
    info: GameInfo
    me: int
    scenario: Scenario | None = None
    on_event: EventFn | None = None
    quiet: float = QUIET
    quiet_replies: int = QUIET_REPLIES
    opponent: _Opponent | None = None
    bot_replies: int = 0
    #: After the final message: whether the bot exited within the grace period, and its exit code.
    exited: bool | None = None
    exit_code: int | None = None
    #: Bytes the bot wrote without a newline when it was stopped.
    partial: bytes = b""
    #: Bytes that came out only when the bot exited (after the end of input).
    late: bytes = b""
    #: The clock of the last prompt sent to the bot ("first" or "move").
    last_clock: str = "move"
    #: A reply that came after the bot's time ran out, while its input was still open:
    #: (the line, ms after the prompt).  A slow bot, not a buffered one.
    slow: tuple[str, float] | None = None
    ref: Referee | None = None

    def resign(self, match: Match, seat: int) -> Outcome:
        """``seat`` (scripted) resigns: the game ends, and the bot gets the end message as the winner."""
        assert self.ref is not None  # set before the game starts
        self.ref.emit("resign", seat, "resigns")
        # Not a fault: the check borrows forfeit (which a game may override) to end the game the
        # way the game scores a seat that stops, under the check's own word.
        return match.forfeit(seat, cast(Verdict, "resign"), "the opponent resigned (kothkit check)")

    def run(self) -> GameRecord:
        task, me = self.task, self.me
        spec = task.players[me]
        bot = _LISTENING[seat_class(spec, task.trusted)](me, spec)
        bot.check = self
        seats: dict[int, Seat] = {me: bot}
        if self.scenario is not None:
            self.opponent = _Opponent(self.scenario)
            for i, other in enumerate(task.players):
                if i != me:
                    seats[i] = _Script(i, other, opponent=self.opponent, game=self)
        ref = self.ref = Referee(task, self.info, on_event=self.on_event, seats=seats)
        try:
            return ref.run()
        finally:
            if ref.exits:
                out = ref.exits[me]
                self.exited, self.exit_code, self.partial, self.late = out.exited, out.code, out.partial, out.late


# -- explaining --------------------------------------------------------------------
_FLUSH = ("flush after every line you write (Python: print(..., flush=True); C: fflush(stdout); "
          "C++: std::cout << std::endl; Java: System.out.flush(); JavaScript: one process.stdout.write per line)")


class _Transcript:
    """The lines exchanged with the bot, as the report shows them."""

    def __init__(self, me: int, name: str, aside: str | None) -> None:
        self.me, self.name, self.aside = me, name, aside
        self.lines: list[str] = []
        self.sent: list[str] = []  # every line sent to the bot, in order
        self.prompts: list[str] = []  # lines the bot had to answer
        self.notices: list[str] = []  # lines the bot had to read but not answer, before the end
        self.replies: list[tuple[str, float | None]] = []
        self.stderr: list[str] = []
        self.extra: str | None = None
        #: The bot left the game (its verdict): the other seats' play after it says nothing of it.
        self.left = False

    def __call__(self, kind: str, seat: int, text: str, ms: float | None = None) -> None:
        mine = seat == self.me
        if kind in ("send", "notice", "final") and mine:
            self.sent.append(text)
            if kind == "send":
                self.prompts.append(text)
            elif kind == "notice":
                self.notices.append(text)
            tag = {"send": "", "notice": " (notice, no reply)", "final": " (end of game, no reply)"}[kind]
            self.lines.append(f"judge -> {self.name}: {text}{tag}")
        elif kind == "reply" and mine:
            self.replies.append((text, ms))
            self.lines.append(f"{self.name} -> judge: {text}" + (f"   ({ms:.0f} ms)" if ms is not None else ""))
        elif kind in ("reply", "opponent") and not mine and not self.left:
            self.lines.append(f"opponent (seat {seat}) plays: {text}")
        elif kind == "resign":
            self.lines.append(f"opponent (seat {seat}) resigns")
        elif kind == "aside" and mine:
            self.lines.append(f"{self.name} [{self.aside}]: {text}")
        elif kind == "stderr" and mine:
            self.stderr.append(text)
            self.lines.append(f"{self.name} [stderr]: {text}")
        elif kind == "late" and mine:
            self.lines.append(f"{self.name} -> judge: {text}   ({ms:.0f} ms: too late)")
        elif kind == "extra" and mine:
            self.extra = text
            self.lines.append(f"{self.name} -> judge: {text}   <- not expected")
        elif kind == "verdict" and mine:
            self.left = True
            self.lines.append(f"VERDICT: {text}")


def _quote(text: str) -> str:
    return repr(text if len(text) <= 90 else text[:87] + "...")


def explain(kind: str, reason: str, t: _Transcript, limits: Limits, first_clock: bool,
            partial: bytes = b"", function_bot: bool = False, late: bytes = b"",
            slow: tuple[str, float] | None = None) -> str:
    """A fault in plain words, for a bot author.

    ``late`` is what the bot wrote only as it exited (a buffered reply); ``slow`` the reply
    that came after the time ran out while the bot still ran, and when (a slow bot)."""
    prompt = t.prompts[-1] if t.prompts else None
    asked = f" to {_quote(prompt)}" if prompt else ""
    reply = t.replies[-1][0] if t.replies else None
    if kind == Verdict.CRASH:
        if not t.replies and not t.prompts:
            return f"Your bot could not be started or stopped at once: {reason}."
        text = f"Your bot stopped while the judge was waiting for its reply{asked}: {reason}."
        if t.stderr:
            text += " The end of its stderr is in the transcript below."
        return text
    if kind == Verdict.TIMEOUT:
        limit = limits.first_time if first_clock else limits.move_time
        if function_bot:
            return f"Your function did not return within {limit:g} s{asked}."
        if slow is not None:
            text = (f"Your bot answered {_quote(slow[0])}{asked} after {slow[1]:,.0f} ms, but {limit:g} s is allowed "
                    f"(plus {limits.tolerance:g} s of tolerance): it is too slow, its output is not stuck. ")
            if first_clock:
                return text + "This is a first reply: answer first and load big tables afterwards (or faster)."
            return text + ("Think less per move and keep a margin: a tournament machine may be busier than yours"
                           + (f", and the game allows {limits.game_time:g} s of thinking in all." if limits.game_time
                              else "."))
        if partial.strip():
            return (f"Your bot wrote {_quote(partial.decode('utf-8', 'replace'))} but no end of line "
                    f"within {limit:g} s{asked}: end every reply with a newline, and " + _FLUSH + ".")
        first_line = late.decode("utf-8", "replace").strip().splitlines()[:1]
        if first_line:
            return (f"No reply within {limit:g} s{asked}, although your bot did write {_quote(first_line[0])}: "
                    "the judge only got it when the bot exited, so it was stuck in an output buffer. "
                    + _FLUSH[0].upper() + _FLUSH[1:] + ".")
        text = f"No reply within {limit:g} s{asked}."
        if first_clock:
            text += (f" This is a first reply, allowed {limit:g} s: a slow start? Answer first and load big tables "
                     "afterwards (or faster).")
        return text + " If your bot did answer, its output is probably stuck in a buffer: " + _FLUSH + "."
    if kind == Verdict.TIME_BUDGET:
        return f"Your bot {reason}: it must spend less time thinking over a whole game."
    if kind == Verdict.MEMORY:
        return f"Your bot was {reason}."
    if kind == Verdict.OUT_OF_TURN:
        text = (f"Your bot wrote {_quote(t.extra)} when no reply was due." if t.extra is not None
                else f"Your bot {reason}.")
        if reply is not None and prompt is not None:
            text += f" It had already answered {_quote(prompt)} with {_quote(reply)}."
        text += " Write exactly one line for each prompt"
        if t.notices:
            text += f", and nothing in answer to lines that need no reply (such as {_quote(t.notices[-1])})"
        return text + "; send diagnostics to stderr" + (f" or start them with {t.aside!r}" if t.aside else "") + "."
    if kind == Verdict.INVALID_REPLY and function_bot:
        called = _quote(prompt) if prompt else "its first prompt"
        text = f"Your function returned something the game cannot use, when called with {called}: {reason}."
        if "(reply, state)" in reason:
            text += " A function bot returns a pair: its reply and the state it wants back on its next call."
        return text
    if kind == Verdict.INVALID_REPLY:
        what = f"your bot's reply {_quote(reply)}" if reply is not None else "your bot's reply"
        text = f"The game could not read {what}{asked}: {reason}."
        if len(t.replies) == 1 and not function_bot:
            text += " (Is it printing something else before its first answer, such as a greeting or a prompt?)"
        return text
    if kind == Verdict.ILLEGAL_MOVE:
        what = f"{_quote(reply)}" if reply is not None else "the reply"
        return f"Your bot's reply {what}{asked} breaks the rules: {reason}."
    return f"{kind}: {reason}"


def _findings_of(record: GameRecord, ref: CheckGame, t: _Transcript, me: int, spec: BotSpec,
                 limits: Limits) -> list[Finding]:
    out: list[Finding] = []
    # At a table the bot's fault is its own (the game went on without it, another seat may have
    # faulted first, and the record's reason is the game's end): the referee's ruling on its seat.
    own = ref.ref.faults.get(me) if ref.ref is not None and len(record.players) > 2 else None
    if own is not None or record.offender == record.players[me]:
        verdict, reason = ((str(own.verdict), own.reason) if own is not None
                           else (record.verdict or "", _reason(record.reason, record.verdict)))
        first_clock = ref.last_clock == Clock.FIRST
        text = explain(verdict, reason, t, limits, first_clock, ref.partial, spec.kind == BotKind.FUNCTION, ref.late,
                       ref.slow)
        out.append(Finding(FAULT, text, verdict, f"{verdict}: {reason}"))
        return out
    if record.offender is not None:
        who = "the opponent" if len(record.players) == 2 else "the bot of another seat,"
        out.append(Finding(WARNING, f"{who} {record.offender} lost by a fault "
                                    f"({record.verdict}: {record.reason}); that is not your bot's doing"))
    if t.replies and t.replies[0][1] is not None:
        allowed = (limits.first_time if limits.first_reply_time is not None else limits.move_time) * 1000
        ms = t.replies[0][1]
        if ms > SLOW_SHARE * allowed:
            out.append(Finding(WARNING, f"slow start: the first reply took {ms:.0f} ms of the {allowed:.0f} ms "
                                        "allowed; on a busy tournament machine it may time out"))
    if spec.kind != BotKind.FUNCTION and ref.exited is not None:
        if not ref.exited:
            out.append(Finding(WARNING, f"your bot was still running {limits.grace:g} s after the end of the game "
                                        "(the end message and end of input); it was killed. "
                                        "Exit when the game is over."))
        elif ref.exit_code not in (0, None):
            from kothkit.procs.pipes import describe_exit

            tail = f"; last stderr line: {_quote(t.stderr[-1])}" if t.stderr else ""
            out.append(Finding(WARNING, f"after the end of the game your bot {describe_exit(ref.exit_code)}{tail}. "
                                        "Does it understand the end message?"))
    return out


def _reason(reason: str, verdict: str | None) -> str:
    prefix = f"{verdict}: "
    return reason[len(prefix):] if verdict and reason.startswith(prefix) else reason


# -- running -------------------------------------------------------------------------
def _dummy(name: str) -> BotSpec:
    return BotSpec(name=name, path=Path.cwd(), command=("kothkit-check-script",))


def _run(info: GameInfo, spec: BotSpec, me: int, players: Sequence[BotSpec], seed: int, limits: Limits,
         rules: dict[str, Any], scenario: Scenario | None, title: str, description: str,
         quiet: float) -> tuple[Run, CheckGame | None]:
    t = _Transcript(me, spec.name, info.aside_prefix)
    merged = {**info.rules, **rules}
    try:
        # The game's own code, with the scenario's rules: a rejection is the game author's to fix.
        info.match(Setup(players=tuple(p.name for p in players), seed=seed, rules=merged))
    except Exception as e:
        text = (f"the game rejects the rules {dict(rules)!r} of this scenario: {type(e).__name__}: {e}; "
                "tell the game's author")
        return Run(title, description, me, 0, None, (Finding(ERROR, text),), ()), None
    task = GameTask(id=f"check-{me}-{seed}", game=info.name, players=tuple(players), seed=seed, limits=limits,
                    rules=merged)
    ref = CheckGame(task, info, me=me, scenario=scenario, on_event=t, quiet=quiet)
    try:
        record = ref.run()
    except ScenarioBroken as e:
        return Run(title, description, me, len(t.replies), None, (Finding(ERROR, f"{e}; tell the game's author"),),
                   tuple(t.lines[-TRANSCRIPT_LINES:]), seats=len(players)), ref
    findings = _findings_of(record, ref, t, me, spec, limits)
    first = t.replies[0][1] if t.replies else None
    return Run(title, description, me, len(t.replies), first, tuple(findings), tuple(t.lines[-TRANSCRIPT_LINES:]),
               asked=len(t.prompts), ended=record.reason, seats=len(players)), ref


def _players(info: GameInfo, spec: BotSpec, me: int, n: int | None = None) -> list[BotSpec]:
    """The bot in seat ``me`` of a table of ``n`` (the game's fewest seats), scripted seats around it."""
    name = "opponent" if spec.name != "opponent" else "opponent2"
    return [spec if i == me else _dummy(name if info.two_seats else f"{name}{i}")
            for i in range(n or info.seat_range[0])]


def _tables(info: GameInfo) -> list[tuple[int, list[int]]]:
    """The tables the check seats the bot at: (seats, the bot's seats there).  Every seat of the
    fewest; at a game's most seats, when it seats more, the first and the last."""
    low, high = info.seat_range
    return [(low, list(range(low)))] + ([(high, [0, high - 1])] if high > low else [])


def game_scenarios(info: GameInfo) -> list[Scenario]:
    """The scenarios ``info`` gives (:attr:`GameInfo.scenarios`, or a plugin's deprecated hook)."""
    from kothkit.plugins import scenarios_of

    return scenarios_of(info)


def _seat_name(info: GameInfo, seat: int, n: int) -> str:
    """A two-seat game's "seat 0 (opens)"; a table's "seat 2 of 10"."""
    if info.two_seats:
        return f"seat {seat}" + (" (opens)" if seat == 0 else "")
    return f"seat {seat} of {n}"


def _explore(info: GameInfo, spec: BotSpec, me: int, limits: Limits, seed: int, quiet: float,
             depth: int, limit: int, n: int | None = None) -> list[Run]:
    """Every combination of reply kinds the opponent can give at its first ``depth`` prompts (up to
    ``limit`` runs), at a table of ``n`` (the game's fewest seats)."""
    n = n or info.seat_range[0]
    seat = _seat_name(info, me, n)
    runs: list[Run] = []
    queue: list[tuple[int, ...]] = [()]
    while queue and len(runs) < limit:
        path = queue.pop(0)
        branch = path + (0,) * (depth - len(path))
        # At a table the other seats' prompts come many a round (and before the bot's): they play on
        # and resign once the bot has given ``depth`` replies, rather than after their own ``depth``.
        sc = (Scenario(name="explore", seat=me, branch=branch, then="resign", seed=seed) if info.two_seats else
              Scenario(name="explore", seat=me, branch=branch, then="random", bot_replies=depth, seed=seed))
        run, ref = _run(info, spec, me, _players(info, spec, me, n), seed, limits, {}, sc, "", "", quiet)
        if ref is None:  # the game's default rules do not make a match: reported once, nothing to explore
            runs.append(attrs.evolve(run, title=f"as {seat}: the opening"))
            break
        opponent = ref.opponent
        assert opponent is not None  # a game with a scenario has its opponent
        taken = opponent.taken
        answers = "the opponent answers " if info.two_seats else "the other seats answer "
        title = f"as {seat}: " + (answers + ", then ".join(_quote(s) for _, s in taken) if taken else "the opening")
        desc = (f"You play {seat}; the opponent answers its first {depth} prompts with moves of its choice and "
                "then resigns, so you also get the end-of-game message." if info.two_seats else
                f"You play {seat}; the other seats answer their first {depth} prompts with moves of their choice, "
                f"then random ones, and one of them resigns once you have given {depth} replies, which ends the game, "
                "so you also get the end-of-game message.")
        runs.append(attrs.evolve(run, title=title, description=desc))
        for i in range(len(path), len(opponent.kinds)):
            for j in range(1, opponent.kinds[i]):
                queue.append(branch[:i] + (j,))
    return runs


def check_bot(game: str | GameInfo, bot: str | Path | BotSpec, *, seed: int = 1, quick: bool = False,
              limits: Limits | None = None, against: Iterable[BotSpec] | None = None,
              quiet: float = QUIET, scenarios: Iterable[Scenario] | None = None,
              on_run: Callable[[Run], None] | None = None) -> Report:
    """Run ``bot`` through ``game``'s scenarios, an exploration of the opening, and games against bundled bots.

    ``quick`` skips the whole games (random opponent and bundled bots); every
    scenario and every opening branch is still tried.
    ``against`` replaces the bundled bots as opponents; ``scenarios`` replaces
    the game's own (from the ``kothkit_scenarios`` hook).  ``on_run`` is called
    with each finished run (for live output).  Raises :class:`CheckError` when
    the game is unknown or the bot does not load or build.
    """
    from kothkit.playing.tournament import build_bots
    from kothkit.plugins import PluginError, get_game, plugin_manager

    try:
        info = game if isinstance(game, GameInfo) else get_game(game)
    except PluginError as e:
        raise CheckError(str(e)) from None
    limits = limits or info.limits
    spec = bot if isinstance(bot, BotSpec) else _load(str(bot), plugin_manager())
    if not info.takes(spec):
        raise CheckError(f"{info.name} does not take Python function bots")
    built, errors = build_bots([spec])
    if errors:
        raise CheckError(str(errors[0]))
    spec = built[0]
    runs: list[Run] = []

    def add(run: Run) -> None:
        runs.append(run)
        if on_run is not None:
            on_run(run)

    for sc in (game_scenarios(info) if scenarios is None else list(scenarios)):
        # (a table game's scenario says where it seats the bot: its script is for the fewest seats)
        title = sc.name if info.two_seats else f"{sc.name} (as {_seat_name(info, sc.seat, info.seat_range[0])})"
        run, _ = _run(info, spec, sc.seat, _players(info, spec, sc.seat), sc.seed, limits, dict(sc.rules), sc,
                      title, sc.description, quiet)
        add(run)
    tables = _tables(info)
    for n, mine in tables:
        for me in mine:
            for run in _explore(info, spec, me, limits, seed, quiet, DEPTH, MAX_BRANCHES, n):
                add(run)
    if quick:
        return Report(info.name, spec.name, tuple(runs))
    for n, mine in tables:
        for me in mine:
            sc = Scenario(name="whole game", seat=me, then="random", seed=seed + 1)
            run, _ = _run(info, spec, me, _players(info, spec, me, n), seed + 1, limits, {}, sc,
                          f"as {_seat_name(info, me, n)}: a whole game against "
                          + ("a random player" if info.two_seats else "random players"),
                          "A complete game against an opponent that plays random legal moves, up to the end message."
                          if info.two_seats else
                          "A complete game against other seats that play random legal moves, up to the end message.",
                          quiet)
            add(run)
    opponents = list(against) if against is not None else _bundled(info, spec)
    if opponents:
        for n, mine in tables:
            for me in mine:
                other = opponents[me % len(opponents)]
                if other.name == spec.name:
                    other = attrs.evolve(other, name=f"{other.name}-bundled")
                players = [spec if i == me else other for i in range(n)]
                if n > 2:  # (every other seat the same bot, each under a name of its own)
                    players = [p if i == me else attrs.evolve(p, name=f"{p.name}#{i}") for i, p in enumerate(players)]
                run, _ = _run(info, spec, me, players, seed + 2 + me, limits, {}, None,
                              f"as {_seat_name(info, me, n)}: a game against the bundled bot {other.name}"
                              + ("" if info.two_seats else " in every other seat"),
                              f"A real game against {other.name}, with the game's time limits.", quiet)
                add(run)
    return Report(info.name, spec.name, tuple(runs))


def _load(entry: str, pm: Any) -> BotSpec:
    loaders: list[BotLoader] = []
    for group in pm.hook.kothkit_bot_loaders():
        loaders.extend(group)
    loaded = load_bots([entry], loaders)
    if loaded.errors:
        raise CheckError(str(loaded.errors[0]))
    if not loaded.bots:
        raise CheckError(f"no bot found at {entry}")
    if len(loaded.bots) > 1:
        raise CheckError(f"{entry} holds {len(loaded.bots)} bots; give one bot folder")
    return loaded.bots[0]


def _bundled(info: GameInfo, spec: BotSpec) -> list[BotSpec]:
    if info.bots is None:
        return []
    from kothkit.playing.tournament import build_bots

    loaded = load_bots([info.bots])
    candidates = [b for b in loaded.bots if info.takes(b)]
    built, _ = build_bots(candidates)
    others = [b for b in built if b.hash != spec.hash] or built
    return others[:2]


__all__ = ["CheckError", "CheckGame", "Finding", "Report", "Run", "check_bot", "explain", "game_scenarios"]
