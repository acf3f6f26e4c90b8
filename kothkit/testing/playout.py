"""Random playouts: a game driven the way the referee drives it, by a seeded random player.

The player answers every prompt with one of ``Match.legal_replies()``, picked
by a generator seeded from the playout's seed, so a playout is a pure function
of (game, seed, rules).  A :class:`kothkit.game.Round` is answered one prompt at a
time in seat order, as the referee hands a round's replies to the game; a game
of a range of seats is played at each number of seats in turn, from the seed
(:func:`seats_of`).  Every step is checked on the way: the prompt is well
formed, ``next()`` is idempotent, each line the core would send is one line,
the offered reply is accepted.  A problem raises :class:`ConformanceError`
naming the seed, the step and the prompt, which is all it takes to replay it.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, overload

import attrs

from kothkit.game import Clock, GameInfo, Match, Message, Outcome, Prompt, Rejected, Round, Setup

#: Default bound on the prompts of one game: a game that has not ended by then is reported.
MAX_STEPS = 10_000
#: legal_replies() longer than this is a bug (sample it deterministically instead).
MAX_LEGAL = 1000
CLOCKS = tuple(c.value for c in Clock)


class ConformanceError(AssertionError):
    """A game broke the plugin contract; the message says where and how to replay it."""


@attrs.frozen
class Step:
    """One prompt of a playout and the reply the random player gave."""

    seat: int
    payload: Any
    #: The prompt as the line a program bot receives.
    line: str
    #: (seat, line) of each notice sent before the prompt.
    notices: tuple[tuple[int, str], ...]
    #: How many legal replies the game offered.
    choices: int
    reply: Any


@attrs.frozen
class Playout:
    game: str
    seed: int
    steps: tuple[Step, ...]
    outcome: Outcome
    #: (seat, line) of each final message.
    finals: tuple[tuple[int, str], ...]

    @property
    def replies(self) -> list[Any]:
        return [s.reply for s in self.steps]


def seats_of(info: GameInfo, seed: int = 0) -> int:
    """The seats of the kit's game of ``seed``: a game of a range of seats (3 to 10) is played at
    each number of it in turn, seed 0 at the fewest."""
    low, high = info.seat_range
    return low + seed % (high - low + 1)


def players_for(info: GameInfo, seed: int = 0) -> tuple[str, ...]:
    return tuple(f"seat{i}" for i in range(seats_of(info, seed)))


def new_match(info: GameInfo, seed: int, rules: Mapping[str, Any] | None = None) -> Match:
    merged = {**info.rules, **(rules or {})}
    return info.match(Setup(players=players_for(info, seed), seed=seed, rules=merged))


@overload
def current(step: Prompt | Round) -> Prompt: ...
@overload
def current(step: Prompt | Round | Outcome) -> Prompt | Outcome: ...
def current(step: Prompt | Round | Outcome) -> Prompt | Outcome:
    """The prompt the kit answers now: ``step`` itself, or a :class:`Round`'s prompt of the lowest
    seat (the kit plays a round's replies one by one, as the referee hands them to the match)."""
    if isinstance(step, Round):
        return min(step.prompts, key=lambda p: p.seat)
    return step


def short(value: Any, limit: int = 70) -> str:
    try:
        text = value if isinstance(value, str) else repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    text = text.replace("\n", "\\n")
    return repr(text[: limit - 3] + "...") if len(text) > limit else repr(text)


class Where:
    """Where a playout is, for error messages: ``gomoku seed 3, step 17 (seat 1, prompt '17 [...]')``."""

    def __init__(self, game: str, seed: int) -> None:
        self.game, self.seed, self.step = game, seed, 0
        self.seat: int | None = None
        self.line: str | None = None

    def __str__(self) -> str:
        text = f"{self.game}, seed {self.seed}, step {self.step}"
        if self.seat is not None:
            text += f" (seat {self.seat}, prompt {short(self.line)})"
        return text

    def fail(self, message: str) -> ConformanceError:
        return ConformanceError(f"{self}: {message}")


def one_line(match: Match, payload: Any, what: str, where: Where) -> str:
    """``match.encode(payload)``, checked to be a single line of text."""
    try:
        line = match.encode(payload)
    except Exception as e:
        raise where.fail(f"encode() of the {what} raised {type(e).__name__}: {e}") from e
    if not isinstance(line, str):
        raise where.fail(f"encode() of the {what} returned {type(line).__name__}, not str")
    if "\n" in line or "\r" in line:
        raise where.fail(f"encode() of the {what} is not one line: {short(line)} "
                         "(a newline inside ends the line early)")
    return line


def check_messages(match: Match, messages: Any, seats: int, what: str, where: Where) -> tuple[tuple[int, str], ...]:
    if not isinstance(messages, (tuple, list)):
        raise where.fail(f"{what} must be a tuple of Message, got {short(messages)}")
    out = []
    for m in messages:
        if not isinstance(m, Message):
            raise where.fail(f"{what} holds {short(m)}, not a kothkit.game.Message")
        if not (isinstance(m.seat, int) and 0 <= m.seat < seats):
            raise where.fail(f"{what} is addressed to seat {m.seat!r}; seats are 0..{seats - 1}")
        out.append((m.seat, one_line(match, m.payload, what, where)))
    return tuple(out)


def check_outcome(outcome: Outcome, seats: int, where: Where, what: str = "the outcome") -> None:
    if not (outcome.winner is None or (type(outcome.winner) is int and 0 <= outcome.winner < seats)):
        raise where.fail(f"{what} names winner {outcome.winner!r}: it must be a seat (0..{seats - 1}) "
                         "or None for a draw")
    for name in ("points", "places"):
        given = getattr(outcome, name, None)
        if given is not None and (not isinstance(given, tuple) or len(given) != seats):
            raise where.fail(f"{what} gives {name} {short(given)}: one for each of the {seats} seats, in seat order")
    if not isinstance(outcome.reason, str) or not outcome.reason.strip():
        raise where.fail(f"{what} has no reason (Outcome.reason must be a non-empty str): {outcome!r}")


def next_step(match: Match, info: GameInfo, where: Where) -> Prompt | Round | Outcome:
    """``match.next()`` called twice (it must be idempotent) and checked for shape."""
    try:
        step = match.next()
        again = match.next()
    except Exception as e:
        raise where.fail(f"next() raised {type(e).__name__}: {e}") from e
    if not isinstance(step, (Prompt, Round, Outcome)):
        raise where.fail(f"next() returned {short(step)}, not a Prompt, a Round or an Outcome")
    try:
        same = bool(step == again)
    except Exception:  # payloads that cannot be compared: compare what a bot would receive
        same = (isinstance(step, Prompt) and isinstance(again, Prompt) and step.seat == again.seat
                and match.encode(step.payload) == match.encode(again.payload))
    if not same:
        raise where.fail(f"next() is not idempotent: called twice without a reply it gave {short(step)} then "
                         f"{short(again)} (payloads must compare equal: use tuples, str or attrs records)")
    if isinstance(step, Round):
        prompts = step.prompts
        if not isinstance(prompts, tuple) or not prompts or not all(isinstance(p, Prompt) for p in prompts):
            raise where.fail(f"next() returned a Round of {short(prompts)}: it must be a non-empty tuple of Prompts")
    else:
        prompts = (step,) if isinstance(step, Prompt) else ()
    seats_here = len(match.setup.players)
    for prompt in prompts:
        if not (type(prompt.seat) is int and 0 <= prompt.seat < seats_here):
            raise where.fail(f"the prompt is addressed to seat {prompt.seat!r}; seats are 0..{seats_here - 1}")
        if getattr(match, "out", None) and prompt.seat in match.out:
            raise where.fail(f"the prompt is addressed to seat {prompt.seat}, which is out of the game (Match.out)")
        if prompt.clock not in CLOCKS:
            raise where.fail(f"Prompt.clock is {prompt.clock!r}; it must be one of {CLOCKS}")
        if info.function_bots:
            if not isinstance(prompt.payload, tuple):
                raise where.fail("function bots are called as f(*payload, state), so a prompt payload must be a tuple, "
                                 f"got {type(prompt.payload).__name__}")
            try:
                json.dumps(list(prompt.payload))
            except (TypeError, ValueError) as e:
                raise where.fail(f"the prompt payload cannot be sent to an isolated function bot as JSON: {e}") from e
    seats = [p.seat for p in prompts]
    if seats != sorted(set(seats)):
        raise where.fail(f"a Round's prompts are to seats {seats!r}: one prompt a seat, in seat order")
    return step


def legal_of(match: Match, where: Where) -> list[Any]:
    try:
        legal = match.legal_replies()
    except NotImplementedError:
        raise where.fail("Match.legal_replies() is not implemented; the kit needs it to play random games "
                         "(return the replies the prompted seat could legally give, at most a few hundred)") from None
    except Exception as e:
        raise where.fail(f"legal_replies() raised {type(e).__name__}: {e}") from e
    if not isinstance(legal, (list, tuple)):
        raise where.fail(f"legal_replies() must return a list, got {type(legal).__name__}")
    if not legal:
        raise where.fail("legal_replies() is empty although the game asks for a reply: the seat has no way to go on")
    if len(legal) > MAX_LEGAL:
        raise where.fail(f"legal_replies() returned {len(legal)} replies; keep it under {MAX_LEGAL} "
                         "(sample huge sets deterministically from the setup seed)")
    return list(legal)


def play_checked(match: Match, seat: int, reply: Any, where: Where, why: str = "") -> None:
    """Play a reply that must be accepted."""
    try:
        result = match.play(seat, reply)
    except Exception as e:
        raise where.fail(f"play({seat}, {short(reply)}) raised {type(e).__name__}: {e}") from e
    if result is not None:
        if isinstance(result, Rejected):
            raise where.fail(f"legal_replies() offered {short(reply)}{why} but play() rejected it: "
                             f"{result.verdict}: {result.reason}")
        raise where.fail(f"play() returned {short(result)}; it must return None (accepted) or a Rejected")


def _replay_step(match: Match, seat: int, reply: Any, where: Where) -> None:
    try:
        result = match.play(seat, reply)
    except Exception as e:
        raise where.fail(f"play({seat}, {short(reply)}) raised {type(e).__name__}: {e}") from e
    if result is not None:
        raise where.fail(f"not deterministic: replaying the same replies from the same seed, play() rejected "
                         f"{short(reply)}, which it accepted the first time ({getattr(result, 'reason', result)})")


def json_round_trip(value: Any) -> Any:
    """What an isolated function bot's reply looks like when it reaches the game (tuples become lists)."""
    return json.loads(json.dumps(value))


Visit = Callable[[Match, Prompt, list[Any], Where], None]


def playout(info: GameInfo, seed: int, *, rules: Mapping[str, Any] | None = None, max_steps: int = MAX_STEPS,
            visit: Visit | None = None, replies: Sequence[Any] | None = None, json_replies: bool = False) -> Playout:
    """Play one game by a seeded random player (or by ``replies``, replayed in order), checking each step.

    ``visit(match, prompt, legal, where)`` is called before each reply, with the
    match as it stands; it may copy the match but must not change it.
    ``json_replies`` plays each reply after a JSON round trip, the way an
    isolated function bot's reply arrives.
    """
    rng = random.Random(f"kothkit.testing:{info.name}:{seed}")
    where = Where(info.name, seed)
    try:
        match = new_match(info, seed, rules)
    except Exception as e:
        raise where.fail(f"creating the match raised {type(e).__name__}: {e}") from e
    steps: list[Step] = []
    seats = len(match.setup.players)
    while True:
        where.seat = where.line = None
        step = next_step(match, info, where)
        if isinstance(step, Outcome):
            break
        if len(steps) >= max_steps:
            raise where.fail(f"the game did not end within {max_steps} prompts (is there a move limit or a draw rule?)")
        prompt = current(step)
        for other in step.prompts[1:] if isinstance(step, Round) else ():  # sent with it, answered later
            one_line(match, other.payload, "prompt", where)
            check_messages(match, other.notices, seats, "Prompt.notices", where)
        line = one_line(match, prompt.payload, "prompt", where)
        where.seat, where.line = prompt.seat, line
        notices = check_messages(match, prompt.notices, seats, "Prompt.notices", where)
        legal = legal_of(match, where)
        if visit is not None:
            visit(match, prompt, legal, where)
        if replies is not None:
            if len(steps) >= len(replies):
                raise where.fail(f"not deterministic: replaying {len(replies)} replies from the same seed, the game "
                                 "asks for more than the first time")
            reply = replies[len(steps)]
        else:
            reply = rng.choice(legal)
        played = json_round_trip(reply) if json_replies else reply
        if replies is not None:
            _replay_step(match, prompt.seat, played, where)
        else:
            play_checked(match, prompt.seat, played, where, " (after a JSON round trip)" if json_replies else "")
        steps.append(Step(prompt.seat, prompt.payload, line, notices, len(legal), reply))
        where.step += 1
    check_outcome(step, seats, where)
    try:
        finals = match.final(step)
    except Exception as e:
        raise where.fail(f"final() raised {type(e).__name__}: {e}") from e
    final_lines = check_messages(match, finals, seats, "final()", where)
    if replies is not None and len(steps) != len(replies):
        raise where.fail(f"not deterministic: replaying {len(replies)} replies from the same seed, the game "
                         f"ended after {len(steps)}")
    return Playout(game=info.name, seed=seed, steps=tuple(steps), outcome=step, finals=final_lines)


def copy_match(match: Match, where: Where) -> Match:
    try:
        return copy.deepcopy(match)
    except Exception as e:
        raise where.fail(f"the kit copies matches with copy.deepcopy(), which raised {type(e).__name__}: {e}; "
                         "keep a Match made of plain data") from e
