"""The conformance kit: every check a game plugin must pass before it hosts a tournament.

``Kit(game)`` takes an installed game's name or a :class:`kothkit.game.GameInfo`.
Each ``check_*`` method raises :class:`ConformanceError` with a message that
names the seed and the step; :meth:`Kit.run` runs them all and returns the
failures.  :func:`kothkit.testing.conformance_tests` turns a kit into pytest
tests.  What is checked, and the optional hooks a game can offer to get more
checks (``Match.reveals`` for hidden information, ``Match.decode`` for codec
round trips), is written down in docs/plugins.md.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from kothkit.game import (
    GameInfo,
    Match,
    Outcome,
    Prompt,
    Rejected,
    Round,
    Verdict,
)
from kothkit.testing.junk import JUNK_TEXT, JUNK_VALUES, describe, hostile_values
from kothkit.testing.playout import (
    MAX_STEPS,
    ConformanceError,
    Playout,
    Where,
    check_messages,
    check_outcome,
    copy_match,
    current,
    legal_of,
    new_match,
    next_step,
    one_line,
    play_checked,
    playout,
    short,
)

#: Seeds used when none are given.
DEFAULT_SEEDS = 10
KINDS = (Verdict.INVALID_REPLY, Verdict.ILLEGAL_MOVE)
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")

#: reveals(match, seat, payload, hidden) -> truthy (what leaks) when payload discloses hidden.
Reveals = Callable[[Match, int, Any, Any], Any]
#: decode(match, line) -> payload: the inverse of Match.encode.
Decode = Callable[[Match, str], Any]


def _resolve(game: str | GameInfo) -> GameInfo:
    if isinstance(game, GameInfo):
        return game
    from kothkit.plugins import get_game

    return get_game(game)


def _offers(match: Match, name: str) -> bool:
    """Whether ``match`` implements the optional method ``name`` (not just inherits a default from Match)."""
    method = getattr(type(match), name, None)
    return callable(method) and method is not getattr(Match, name, None)


def _has_items(hidden: Any) -> bool:
    if hidden is None:
        return False
    try:
        return len(hidden) > 0
    except TypeError:
        return bool(hidden)


def _replay(info: GameInfo, seed: int, rules: Mapping[str, Any] | None, p: Playout, where: Where) -> Match:
    """A new match of ``seed`` that has been given the replies of playout ``p``.  A game that is not
    deterministic may end before they are all played: a ConformanceError that says so (not the
    AttributeError of asking an Outcome for its seat)."""
    match = new_match(info, seed, rules)
    for i, r in enumerate(p.replies):
        step = current(match.next())
        if isinstance(step, Outcome):
            where.step = i
            raise where.fail(f"not deterministic: a new match given the same replies ended here with "
                             f"{short(step)}; the first one took {len(p.replies)} replies")
        match.play(current(step).seat, r)
    return match


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


def _scribble(value: Any) -> bool:
    """Overwrite every mutable container inside ``value`` in place; True if there was one."""
    changed = False
    if isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, (list, dict, set, bytearray)):
                _scribble(v)
            value[i] = -7 if not isinstance(v, (list, dict)) else v
        value.append(-7)
        changed = True
    elif isinstance(value, dict):
        for k in list(value):
            if isinstance(value[k], (list, dict)):
                _scribble(value[k])
            else:
                value[k] = -7
        value["kothkit-scribble"] = -7
        changed = True
    elif isinstance(value, set):
        value.clear()
        changed = True
    elif isinstance(value, bytearray):
        value[:] = b"\x07" * len(value)
        changed = True
    elif isinstance(value, tuple):
        for v in value:
            changed = _scribble(v) or changed
    return changed


class Kit:
    """The conformance checks for one game.

    :param game: an installed game's name, or its GameInfo.
    :param seeds: the seeds of the random playouts (default: 0..9).
    :param rules: rules settings merged over the game's defaults.
    :param max_steps: a game with more prompts than this fails "every game ends".
    :param reveals: ``f(match, seat, payload, hidden)``: what of ``hidden`` the
        payload discloses (falsy: nothing).  Default: the match's own
        ``reveals(seat, payload, hidden)`` method, if it has one.
    :param decode: ``f(match, line) -> payload``, the inverse of ``encode``.
        Default: the match's own ``decode(line)`` method, if it has one.
    :param fuzz_examples: Hypothesis examples for :meth:`check_fuzz`.
    """

    def __init__(self, game: str | GameInfo, *, seeds: Iterable[int] | None = None,
                 rules: Mapping[str, Any] | None = None, max_steps: int = MAX_STEPS,
                 reveals: Reveals | None = None, decode: Decode | None = None, fuzz_examples: int = 60) -> None:
        self.info = _resolve(game)
        self.seeds = list(seeds) if seeds is not None else list(range(DEFAULT_SEEDS))
        self.rules = dict(rules or {})
        self.max_steps = max_steps
        self.reveals = reveals
        self.decode = decode
        self.fuzz_examples = fuzz_examples
        self._playouts: dict[int, Playout] = {}

    @property
    def name(self) -> str:
        return self.info.name

    # -- shared --------------------------------------------------------------------
    def playout(self, seed: int, **kw: Any) -> Playout:
        """The random playout of ``seed`` (cached when played without a visitor)."""
        if kw:
            return playout(self.info, seed, rules=self.rules, max_steps=self.max_steps, **kw)
        if seed not in self._playouts:
            self._playouts[seed] = playout(self.info, seed, rules=self.rules, max_steps=self.max_steps)
        return self._playouts[seed]

    def _few(self, n: int) -> list[int]:
        return self.seeds[:n] if len(self.seeds) > n else list(self.seeds)

    def _sample_steps(self, total: int, n: int = 5) -> set[int]:
        """A few step indices spread over a game of ``total`` prompts: the first ones, the middle, the last."""
        if total <= n:
            return set(range(total))
        picks = {0, 1, total // 2, total - 1}
        k = 2
        while len(picks) < n:
            picks.add(total * k // (n + 1))
            k += 1
        return picks

    # -- the checks --------------------------------------------------------------
    def check_info(self) -> None:
        """The GameInfo is usable: a name, a summary, valid seats, and bundled bots that load."""
        info = self.info
        where = f"{info.name!r}"
        if not isinstance(info.name, str) or not NAME.match(info.name):
            raise ConformanceError(f"game name {info.name!r} must be one word of letters, digits, '_', '.', '-'")
        if not isinstance(info.summary, str) or not info.summary.strip():
            raise ConformanceError(f"{where}: GameInfo.summary is empty (kothkit games prints it)")
        try:
            low, high = info.seat_range
        except Exception as e:
            raise ConformanceError(f"{where}: GameInfo.seats must be a positive int or (fewest, most), "
                                   f"got {info.seats!r}") from e
        if not (type(low) is int and type(high) is int and 1 <= low <= high):
            raise ConformanceError(f"{where}: GameInfo.seats must be a positive int or (fewest, most), "
                                   f"got {info.seats!r}")
        if info.aside_prefix is not None and (not isinstance(info.aside_prefix, str) or not info.aside_prefix):
            raise ConformanceError(f"{where}: GameInfo.aside_prefix must be None or a non-empty str")
        if type(info.rounds) is not int or info.rounds < 1:
            raise ConformanceError(f"{where}: GameInfo.rounds must be a positive int, got {info.rounds!r}")
        if info.bots is not None:
            from kothkit.bots.folders import load_bots

            if not info.bots.is_dir():
                raise ConformanceError(f"{where}: GameInfo.bots is {info.bots}, which is not a folder")
            loaded = load_bots([info.bots])
            if loaded.errors:
                raise ConformanceError(f"{where}: bundled bots do not load: " + "; ".join(map(str, loaded.errors)))
            if not loaded.bots:
                raise ConformanceError(f"{where}: {info.bots} holds no bots")
            for b in loaded.bots:
                if not info.takes(b):
                    raise ConformanceError(f"{where}: bundled bot {b.name} is a function bot, but "
                                           "GameInfo.function_bots is False")
        try:
            new_match(info, 0, self.rules)
        except Exception as e:
            raise ConformanceError(f"{where}: creating a match with the default rules raised "
                                   f"{type(e).__name__}: {e}") from e

    def check_playouts(self) -> None:
        """Random games from every seed end, accept every reply legal_replies() offers, and end well.

        On the way: prompts are well formed, ``next()`` is idempotent, every line
        is one line, the outcome names a seat or a draw with a reason, ``next()``
        keeps returning the outcome, ``legal_replies()`` is then empty, and
        ``final()`` addresses real seats.
        """
        for seed in self.seeds:
            p = self.playout(seed)
            where = Where(self.name, seed)
            where.step = len(p.steps)
            self._check_end(seed, p, where)
        # Isolated function bots' replies arrive after a JSON round trip: tuples become lists.
        if self.info.function_bots:
            for seed in self._few(3):
                self.playout(seed, json_replies=True)

    def _check_end(self, seed: int, p: Playout, where: Where) -> None:
        match = _replay(self.info, seed, self.rules, p, where)
        again = match.next()
        if not _same(again, p.outcome):
            raise where.fail(f"after the game ended with {p.outcome!r}, next() on a replay returned {short(again)}")
        try:
            left = match.legal_replies()
        except Exception as e:
            raise where.fail(f"legal_replies() after the game ended raised {type(e).__name__}: {e}") from e
        if left != []:
            shown = repr(left) if len(repr(left)) <= 80 else repr(left)[:77] + "..."
            raise where.fail(f"legal_replies() after the game ended returned {shown}; it must be [] "
                             "(no seat has a move left)")

    def check_other_legal_replies(self, per_step: int = 12) -> None:
        """Not just the reply the random player picked: other offered replies are accepted too."""
        import random

        for seed in self._few(3):
            rng = random.Random(f"kothkit.testing.other:{seed}")
            picks = self._sample_steps(len(self.playout(seed).steps))

            def visit(match: Match, prompt: Prompt, legal: list, where: Where) -> None:
                if where.step not in picks:
                    return
                for reply in rng.sample(legal, min(per_step, len(legal))):
                    play_checked(copy_match(match, where), prompt.seat, reply, where)

            self.playout(seed, visit=visit)

    def check_determinism(self) -> None:
        """The same seed and the same replies give the same game: prompts, legal replies, outcome, finals.

        Checked within this process and in a fresh Python process with another
        hash seed (set and dict-of-str orders differ there), which is how a
        tournament's worker processes and a later re-run see the game.
        """
        for seed in self._few(5):
            first = self.playout(seed)
            again = self.playout(seed, replies=first.replies)
            self._compare(first, again, "replaying the same replies")
            fresh = playout(self.info, seed, rules=self.rules, max_steps=self.max_steps)
            self._compare(first, fresh, "a second random playout with the same seed")
        self._check_other_process()

    def _compare(self, a: Playout, b: Playout, what: str) -> None:
        for i, (x, y) in enumerate(zip(a.steps, b.steps)):
            if ((x.seat, x.line, x.notices, x.choices) != (y.seat, y.line, y.notices, y.choices)
                    or not _same(x.reply, y.reply)):
                raise ConformanceError(f"{self.name}, seed {a.seed}, step {i}: not deterministic: {what} gave "
                                       "a different game: "
                                       f"first seat {x.seat} got {short(x.line)} ({x.choices} legal replies), "
                                       f"then seat {y.seat} got {short(y.line)} ({y.choices} legal replies)")
        if len(a.steps) != len(b.steps) or not _same(a.outcome, b.outcome) or a.finals != b.finals:
            raise ConformanceError(f"{self.name}, seed {a.seed}: not deterministic: {what} gave a different end: "
                                   f"{len(a.steps)} steps, {a.outcome!r}, {a.finals!r} vs "
                                   f"{len(b.steps)} steps, {b.outcome!r}, {b.finals!r}")

    def digest(self, seeds: Iterable[int]) -> dict[int, str]:
        """A fingerprint of each seed's random playout (prompts, legal replies, replies, end)."""
        out = {}
        for seed in seeds:
            p = self.playout(seed)
            h = hashlib.sha256()
            for s in p.steps:
                h.update(repr((s.seat, s.line, s.notices, s.choices, s.reply)).encode("utf-8", "replace"))
            h.update(repr((p.outcome, p.finals)).encode("utf-8", "replace"))
            out[seed] = h.hexdigest()
        return out

    def _reference(self) -> str | None:
        """How another process finds this game: its installed name, or the module attribute holding its GameInfo."""
        from kothkit.plugins import PluginError, installed_games

        try:
            installed = installed_games()
        except PluginError:
            installed = {}
        if self.info.name in installed and installed[self.info.name].info == self.info:
            return f"name:{self.info.name}"
        package = getattr(self.info.match, "__module__", "").partition(".")[0]
        for name, module in sorted(sys.modules.items()):
            if module is None or name.partition(".")[0] != package:
                continue
            for attr, value in sorted(vars(module).items()):
                if value is self.info:
                    return f"ref:{name}:{attr}"
        return None

    def _check_other_process(self) -> None:
        ref = self._reference()
        try:
            rules = json.dumps(self.rules)
        except (TypeError, ValueError):
            return
        if ref is None:
            return
        seeds = self._few(3)
        mine = self.digest(seeds)
        code = ("import json,sys; from kothkit.testing.kit import _digest_main; "
                "print(json.dumps(_digest_main(sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3]), "
                "int(sys.argv[4]))))")
        env = {**os.environ, "PYTHONHASHSEED": "12345" if os.environ.get("PYTHONHASHSEED") != "12345" else "54321",
               "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        done = subprocess.run([sys.executable, "-c", code, ref, rules, json.dumps(seeds), str(self.max_steps)],
                              capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            raise ConformanceError(f"{self.name}: replaying in a fresh Python process failed:\n{done.stderr[-2000:]}")
        theirs = {int(k): v for k, v in json.loads(done.stdout.strip().splitlines()[-1]).items()}
        for seed in seeds:
            if theirs[seed] != mine[seed]:
                raise ConformanceError(
                    f"{self.name}, seed {seed}: not deterministic: the same seed gives a different game in "
                    "another Python process "
                    "(different PYTHONHASHSEED): does the game iterate over a set, or use hash() or id()? "
                    "Sort before iterating, and derive randomness from Setup.seed only")

    def check_malformed_replies(self) -> None:
        """Junk replies are rejected with a kind and a reason, at several points of several games; nothing raises."""
        junk: list[Any] = list(JUNK_TEXT)
        if self.info.function_bots:
            junk += list(JUNK_VALUES) + list(hostile_values())
        for seed in self._few(3):
            picks = self._sample_steps(len(self.playout(seed).steps))

            def visit(match: Match, prompt: Prompt, legal: list, where: Where) -> None:
                if where.step not in picks:
                    return
                for reply in junk:
                    self._judge_junk(copy_match(match, where), prompt, legal, reply, where)

            self.playout(seed, visit=visit)

    def _judge_junk(self, match: Match, prompt: Prompt, legal: list, reply: Any, where: Where,
                    seat: int | None = None) -> Rejected | None:
        seat = prompt.seat if seat is None else seat
        label = f"play({seat}, {describe(reply)})"
        try:
            result = match.play(seat, reply)
        except Exception as e:
            raise where.fail(f"{label} raised {type(e).__name__}: {e} (play() must return a Rejected for bad "
                             "input, never raise)") from e
        if result is None:
            if any((type(reply) is bool) == (type(x) is bool) and _same(reply, x) for x in legal):
                return None
            if seat != prompt.seat:
                raise where.fail(f"{label} was accepted although seat {prompt.seat} is the one prompted")
            raise where.fail(f"{label} was accepted as a move; it is not among legal_replies()")
        if not isinstance(result, Rejected):
            raise where.fail(f"{label} returned {short(result)}, not None or a Rejected")
        if result.verdict not in KINDS:
            raise where.fail(f"{label} was rejected with kind {result.verdict!r}; a game uses {KINDS[0].value!r} "
                             f"(cannot be parsed) or {KINDS[1].value!r} (against the rules)")
        if not isinstance(result.reason, str) or not result.reason.strip():
            raise where.fail(f"{label} was rejected without a reason; say what was wrong, in plain words")
        return result

    def check_forfeit(self) -> None:
        """forfeit(seat, ...) at any point: the seat at fault does not win, and final() still works."""
        for seed in self._few(2):
            picks = self._sample_steps(len(self.playout(seed).steps), 3)

            def visit(match: Match, prompt: Prompt, legal: list, where: Where) -> None:
                if where.step not in picks:
                    return
                seats = len(match.setup.players)
                for seat in range(seats):
                    m = copy_match(match, where)
                    try:
                        outcome = m.forfeit(seat, Verdict.CRASH, "kothkit conformance kit: a forfeit")
                    except Exception as e:
                        raise where.fail(f"forfeit({seat}, ...) raised {type(e).__name__}: {e}") from e
                    if not isinstance(outcome, Outcome):
                        raise where.fail(f"forfeit({seat}, ...) returned {short(outcome)}, not an Outcome")
                    check_outcome(outcome, seats, where, f"forfeit({seat}, ...)")
                    if outcome.winner == seat:
                        raise where.fail(f"forfeit({seat}, ...) names seat {seat}, the one at fault, as the winner")
                    if seats == 2 and outcome.winner != 1 - seat:
                        raise where.fail(f"forfeit({seat}, ...) in a two-seat game must make seat {1 - seat} "
                                         f"the winner, got {outcome.winner!r}")
                    try:
                        finals = m.final(outcome)
                    except Exception as e:
                        raise where.fail(f"final() after forfeit({seat}, ...) raised {type(e).__name__}: {e}") from e
                    check_messages(m, finals, seats, f"final() after forfeit({seat}, ...)", where)

            self.playout(seed, visit=visit)

    def check_leave(self) -> None:
        """A game of more than two seats goes on without a seat that faults: at a few steps of a few
        games, ``leave(seat, ...)`` for each seat in play either ends the game (the outcome ``next()``
        then gives, the seat not its winner) or puts the seat out (``Match.out``): it is never
        prompted again, and the game still ends well."""
        if self.info.seat_range[1] <= 2:
            return
        for seed in self._few(3):
            picks = self._sample_steps(len(self.playout(seed).steps), 3)

            def visit(match: Match, prompt: Prompt, legal: list, where: Where) -> None:
                if where.step not in picks or len(match.setup.players) <= 2:
                    return
                for seat in sorted(set(range(len(match.setup.players))) - set(match.out)):
                    self._leave(copy_match(match, where), seat, where)

            self.playout(seed, visit=visit)

    def _leave(self, match: Match, seat: int, where: Where) -> None:
        import random

        seats, label = len(match.setup.players), f"leave({seat}, ...)"
        try:
            ended = match.leave(seat, Verdict.CRASH, "kothkit conformance kit: a seat that faults")
        except Exception as e:
            raise where.fail(f"{label} raised {type(e).__name__}: {e}") from e
        if ended is not None and not isinstance(ended, Outcome):
            raise where.fail(f"{label} returned {short(ended)}, not None (the game goes on) or an Outcome")
        if ended is None and seat not in match.out:
            raise where.fail(f"{label} returned None (the game goes on without the seat), but the seat is not in "
                             "Match.out: call super().leave(...), which puts it there")
        rng = random.Random(f"kothkit.testing.leave:{where.seed}:{where.step}:{seat}")
        for _ in range(self.max_steps):
            step = next_step(match, self.info, where)
            if isinstance(step, Outcome):
                break
            if ended is not None:
                raise where.fail(f"{label} ended the game with {short(ended)}, but next() then gave {short(step)}")
            if seat in (p.seat for p in (step.prompts if isinstance(step, Round) else (step,))):
                raise where.fail(f"seat {seat} is out of the game ({label} returned None), but it is prompted again")
            play_checked(match, current(step).seat, rng.choice(legal_of(match, where)), where,
                         f" (after seat {seat} left)")
        else:
            raise where.fail(f"after {label} the game did not end within {self.max_steps} prompts")
        check_outcome(step, seats, where, f"the outcome after {label}")
        if ended is not None and not _same(ended, step):
            raise where.fail(f"{label} returned {short(ended)}, but next() then gave {short(step)}")
        if step.winner == seat:
            raise where.fail(f"after {label}, the outcome names seat {seat}, which left by a fault, as the winner")
        try:
            finals = match.final(step)
        except Exception as e:
            raise where.fail(f"final() after {label} raised {type(e).__name__}: {e}") from e
        check_messages(match, finals, seats, f"final() after {label}", where)

    def check_hidden_information(self) -> None:
        """No payload sent to a seat discloses what ``hidden_from(seat)`` says it must not see (in a
        Round: none of the round's prompts, which all went out at its start)."""
        reveals = self._reveals()
        for seed in self.seeds:
            def visit(match: Match, prompt: Prompt, legal: list, where: Where) -> None:
                now = match.next()
                prompts = now.prompts if isinstance(now, Round) else (prompt,)
                for seat in range(len(match.setup.players)):
                    try:
                        hidden = match.hidden_from(seat)
                    except Exception as e:
                        raise where.fail(f"hidden_from({seat}) raised {type(e).__name__}: {e}") from e
                    if not _has_items(hidden):
                        continue
                    if reveals is None:
                        raise where.fail(
                            f"hidden_from({seat}) returns {short(hidden)}, but there is no way to check that "
                            f"seat {seat}'s "
                            "prompts keep it hidden: give the Match a reveals(seat, payload, hidden) method "
                            "(see docs/plugins.md, 'Hidden information') or pass reveals= to the kit")
                    sent = [("notice", m.payload) for p in prompts for m in p.notices if m.seat == seat]
                    sent += [("prompt", p.payload) for p in prompts if p.seat == seat]
                    for what, payload in sent:
                        try:
                            leak = reveals(match, seat, payload, hidden)
                        except Exception as e:
                            raise where.fail(f"reveals({seat}, ...) raised {type(e).__name__}: {e}") from e
                        if leak:
                            raise where.fail(f"the {what} sent to seat {seat} reveals "
                                             f"{short(leak if leak is not True else hidden)}, "
                                             f"which hidden_from({seat}) says it must not see")

            self.playout(seed, visit=visit)

    def _reveals(self) -> Reveals | None:
        if self.reveals is not None:
            return self.reveals
        probe = new_match(self.info, 0, self.rules)
        if _offers(probe, "reveals"):
            return lambda match, seat, payload, hidden: match.reveals(seat, payload, hidden)
        return None

    def check_codec(self) -> None:
        """Where the game can decode its own lines (``Match.decode``), decode(encode(p)) == p for every line sent."""
        decode = self.decode
        probe = new_match(self.info, 0, self.rules)
        if decode is None and _offers(probe, "decode"):
            decode = lambda match, line: match.decode(line)  # noqa: E731
        if decode is None:
            return
        for seed in self._few(5):
            def visit(match: Match, prompt: Prompt, legal: list, where: Where) -> None:
                payloads = [("prompt", prompt.payload)] + [("notice", m.payload) for m in prompt.notices]
                for what, payload in payloads:
                    self._round_trip(decode, match, payload, what, where)

            p = self.playout(seed, visit=visit)
            where = Where(self.name, seed)
            match = _replay(self.info, seed, self.rules, p, where)
            where.step = len(p.steps)
            for m in match.final(p.outcome):
                self._round_trip(decode, match, m.payload, "final message", where)

    def _round_trip(self, decode: Decode, match: Match, payload: Any, what: str, where: Where) -> None:
        line = one_line(match, payload, what, where)
        try:
            back = decode(match, line)
        except Exception as e:
            raise where.fail(f"decode({short(line)}) raised {type(e).__name__}: {e}") from e
        if not _same(back, payload):
            raise where.fail(f"the {what} does not survive a round trip: encode gives {short(line)}, "
                             f"decode gives {short(back)}, not {short(payload)}")

    def check_payload_isolation(self) -> None:
        """A function bot that scribbles on the arguments it was given cannot change the game."""
        if not self.info.function_bots:
            return
        for seed in self._few(3):
            p = self.playout(seed)
            clean = new_match(self.info, seed, self.rules)
            dirty = new_match(self.info, seed, self.rules)
            where = Where(self.name, seed)
            for i, s in enumerate(p.steps):
                where.step = i
                a, b = clean.next(), dirty.next()
                if (isinstance(a, Outcome) or isinstance(b, Outcome)
                        or [clean.encode(x.payload) for x in (a.prompts if isinstance(a, Round) else (a,))]
                        != [dirty.encode(x.payload) for x in (b.prompts if isinstance(b, Round) else (b,))]):
                    raise where.fail("after a bot changed the lists it was given (as a function bot may), the game "
                                     "changed: copy the views you put in a prompt, or build them anew each turn")
                for x in b.prompts if isinstance(b, Round) else (b,):
                    _scribble(x.payload)
                clean.play(current(a).seat, s.reply)
                dirty.play(current(b).seat, s.reply)
            if not _same(clean.next(), dirty.next()):
                raise where.fail("after a bot changed the lists it was given, the game ended differently")

    def check_render(self) -> None:
        """Match.render, if the game has it, draws any position as text."""
        if not self.info.renders:
            return
        for seed in self._few(2):
            picks = self._sample_steps(len(self.playout(seed).steps))

            def visit(match: Match, prompt: Prompt, legal: list, where: Where) -> None:
                if where.step in picks:
                    self._render(match, where)

            p = self.playout(seed, visit=visit)
            where = Where(self.name, seed)
            match = _replay(self.info, seed, self.rules, p, where)
            where.step = len(p.steps)
            self._render(match, where)

    def _render(self, match: Match, where: Where) -> None:
        try:
            text = match.render()
        except Exception as e:
            raise where.fail(f"render() raised {type(e).__name__}: {e}") from e
        if not isinstance(text, str):
            raise where.fail(f"render() returned {type(text).__name__}, not str")

    # -- the optional hooks: pictures, play by a person, exporters ----------------------------
    def _unchanged(self, match: Match, hook: str, call: Callable[[], Any], where: Where) -> Any:
        """``call()`` (a hook given ``match``), failing on an exception or on a match it changed."""
        before = (match.next(), match.legal_replies())
        try:
            found = call()
        except ConformanceError:
            raise
        except Exception as e:
            raise where.fail(f"{hook} raised {type(e).__name__}: {e}") from e
        after = (match.next(), match.legal_replies())
        if not (_same(before[0], after[0]) and _same(before[1], after[1])):
            raise where.fail(f"{hook} changed the match (it must only read it)")
        return found

    def check_pictures(self) -> None:
        """The game's picture (``Match.picture``), if it has one, draws every position of several games
        (before the first reply to the end) without raising, as a Grid the page can draw, an Svg or
        a list of them, and leaves the match as it was."""
        from kothkit.picture import PictureError, picture_of

        def draw(match: Match, where: Where) -> None:
            def call() -> Any:
                try:
                    return picture_of(self.info, match)
                except PictureError as e:
                    raise where.fail(str(e)) from None
            own = type(match).picture is not Match.picture
            self._unchanged(match, f"{type(match).__name__}.picture()" if own else "the kothkit_picture hook",
                            call, where)

        for seed in self._few(3):
            p = self.playout(seed, visit=lambda match, prompt, legal, where: draw(match, where))
            where = Where(self.name, seed)
            match = _replay(self.info, seed, self.rules, p, where)
            where.step = len(p.steps)
            draw(match, where)

    def check_play_by_a_person(self) -> None:
        """The game's play by a person (``Match.human``), if it offers it, gives a Turn at every prompt of several
        games: a board and a question as text, a handshake's ``auto`` reply the game accepts, a
        ``parse`` that reads typing slips as a Mistake (never another exception), a picture the page
        can draw and a ``cell`` text for each of its cells; and it leaves the match as it was."""
        from kothkit.human import Mistake, Turn, judge
        from kothkit.picture import Grid, PictureError, panels_of
        from kothkit.plugins import legacy_answer

        own = getattr(self.info.match, "human", Match.human) is not Match.human
        hook = f"{getattr(self.info.match, '__name__', 'the match')}.human()" if own else "the kothkit_human hook"

        def turn_at(match: Match, prompt: Prompt) -> Any:
            if own:
                return match.human(prompt)
            return legacy_answer("kothkit_human", game=self.info, match=match, prompt=prompt)

        slips = ("", "?", "zzz", "-1", "99 99", "1,2,3,4,5,6,7,8,9", "x" * 300)
        offered: list[bool] = []
        picks: set[int] = set()

        def ask(match: Match, prompt: Prompt, where: Where) -> None:
            turn = self._unchanged(match, hook, lambda: turn_at(match, prompt), where)
            if turn is None:
                if offered and offered[-1]:
                    raise where.fail(f"{hook} gave no Turn here, after Turns at earlier prompts: "
                                     "`kothkit play` would stop mid-game")
                offered.append(False)
                return
            if offered and not offered[-1]:
                raise where.fail(f"{hook} gave a Turn here, after None at an earlier prompt")
            offered.append(True)
            if not isinstance(turn, Turn):
                raise where.fail(f"{hook} returned {short(turn)}, not a kothkit.people.Turn")
            if turn.auto is not None:
                rejected = judge(match, prompt.seat, turn.auto)
                if rejected is not None:
                    raise where.fail(f"{hook}'s auto reply {short(turn.auto)} is rejected: "
                                     f"{rejected.reason}")
                return
            if not isinstance(turn.board, str) or not isinstance(turn.asks, str) or not turn.asks.strip():
                raise where.fail(f"{hook}'s Turn needs its board and what to type (asks) as text")
            if not callable(turn.parse):
                raise where.fail(f"{hook}'s Turn has no parse(text) to read the person's entry")
            try:
                panels = panels_of(turn.picture) or []
            except PictureError as e:
                raise where.fail(f"{hook}'s Turn.picture {e}") from None
            if where.step not in picks:
                return
            cell, grid = turn.cell, next((p for p in panels if isinstance(p, Grid)), None)
            if cell is not None and grid is not None:
                def cells() -> None:
                    for r, row in enumerate(grid.rows):
                        for c in range(len(row)):
                            text = cell(r, c)
                            if not isinstance(text, str):
                                raise where.fail(f"{hook}'s Turn.cell({r}, {c}) returned "
                                                 f"{short(text)}, not the text it types")
                self._unchanged(match, f"{hook}'s Turn.cell", cells, where)
            for slip in slips:
                try:
                    turn.parse(slip)
                except Mistake:
                    pass
                except Exception as e:
                    raise where.fail(f"{hook}'s parse({short(slip)}) raised {type(e).__name__}: "
                                     f"{e}; a typing slip must raise kothkit.human.Mistake, saying what is "
                                     "wrong") from e

        for seed in self._few(3):
            offered.clear()
            picks = self._sample_steps(len(self.playout(seed).steps))
            self.playout(seed, visit=lambda match, prompt, legal, where: ask(match, prompt, where))

    def check_exporters(self) -> None:
        """Every export format the game gives (``GameInfo.exporters``, or a plugin's deprecated
        ``kothkit_exporters`` hook), and the core's json and html (its replay page, with the game's
        pictures), writes several finished games as text without raising."""
        from kothkit.formats import Unwritable
        from kothkit.plugins import PluginError, exporters_of
        from kothkit.results.export import html_page, json_document

        formats: dict[str, Any] = {"json": json_document, "html": html_page}
        try:
            formats.update(exporters_of(self.info))
        except PluginError as e:
            raise ConformanceError(f"{self.name}: {e}") from e
        for seed in self._few(3):
            t = _transcript(self.info, seed, self.rules, self.playout(seed))
            where = f"{self.name}, seed {seed} (the game of check_playouts)"
            if t.problem:
                raise ConformanceError(f"{where}: re-playing it as `kothkit export` does failed: {t.problem}")
            for name, exporter in sorted(formats.items()):
                try:
                    text = exporter(t)
                except Unwritable:
                    continue  # a game the format cannot hold, refused as such (kothkit export says why)
                except Exception as e:
                    raise ConformanceError(f"{where}: the {name} exporter raised {type(e).__name__}: {e}") from e
                if not isinstance(text, str):
                    raise ConformanceError(f"{where}: the {name} exporter returned {type(text).__name__}, "
                                           "not the file's text")
                if name == "html" and t.picture_problem:
                    raise ConformanceError(f"{where}: its replay page has no picture: {t.picture_problem}")

    def check_fuzz(self) -> None:
        """Hypothesis: any text (and, for function bots, any JSON-like value) at any point of any game.

        ``play`` never raises and returns None or a Rejected with a valid kind
        and a reason; a reply it accepts is one of ``legal_replies()`` or leaves
        the game in a state whose next step is still well formed.
        """
        from hypothesis import HealthCheck, given, settings

        from kothkit.testing.strategies import positions, replies

        info = self.info

        @settings(max_examples=self.fuzz_examples, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(at=positions(self), reply=replies(function_bots=info.function_bots))
        def prop(at: tuple[Match, Prompt, list, Where], reply: Any) -> None:
            match, prompt, legal, where = at
            try:
                result = match.play(prompt.seat, reply)
            except Exception as e:
                raise where.fail(f"play({prompt.seat}, {describe(reply)}) raised {type(e).__name__}: {e}") from e
            if result is None:
                where.step += 1
                step = next_step(match, info, where)
                if not isinstance(step, Outcome):
                    one_line(match, current(step).payload, "prompt", where)
                return
            if not isinstance(result, Rejected) or result.verdict not in KINDS or not str(result.reason).strip():
                raise where.fail(f"play({prompt.seat}, {describe(reply)}) returned {short(result)}: "
                                 f"expected None or Rejected({KINDS[0].value!r} or {KINDS[1].value!r}, a reason)")

        prop()

    def check_bundled_bots(self, games: int = 2) -> None:
        """Bundled bots (two, or tables at a game's fewest and most seats, turn about) play ``games``
        real games (at least one at each number of seats) through the referee without a fault."""
        from kothkit.bots.folders import load_bots
        from kothkit.playing.referee import play_game
        from kothkit.playing.schedule import game_id, settings_of
        from kothkit.playing.tournament import build_bots
        from kothkit.store.records import GameTask

        if self.info.bots is None:
            return
        loaded = load_bots([self.info.bots])
        specs, errors = build_bots(list(loaded.bots))
        if errors:
            raise ConformanceError(f"{self.name}: bundled bots do not build: " + "; ".join(map(str, errors)))
        if not specs:
            return
        import attrs

        # A table at the game's fewest seats and one at its most (two for a board game), a bot
        # again under another name where there are too few; each game turns the seats round by one.
        low, high = self.info.seat_range
        counts = (low,) if low == high else (low, high)
        rules = {**self.info.rules, **self.rules}
        for k in range(max(games, len(counts))):
            n = counts[k % len(counts)]
            table = [specs[i] if i < len(specs) else attrs.evolve(specs[i % len(specs)],
                                                                   name=f"{specs[i % len(specs)].name}-{i + 1}")
                     for i in range(n)]
            seats = tuple(table[k % n:] + table[:k % n])
            task = GameTask(id=game_id(self.name, settings_of(self.info.limits, rules), seats, ("kit", k)),
                            game=self.name, players=seats, seed=1000 + k, limits=self.info.limits, rules=rules)
            record = play_game(task, info=self.info)
            if record.verdict is not None:
                at = "" if n == 2 else f" at a table of {n}"
                raise ConformanceError(f"{self.name}: bundled bot {record.offender} lost a game to a fault "
                                       f"({record.reason}) playing {' vs '.join(record.players)} (seat 0 first){at}")

    #: Every check, in the order :meth:`run` runs them (cheap first).
    CHECKS = ("check_info", "check_playouts", "check_other_legal_replies", "check_determinism",
              "check_malformed_replies", "check_forfeit", "check_leave", "check_hidden_information", "check_codec",
              "check_payload_isolation", "check_render", "check_pictures", "check_play_by_a_person",
              "check_exporters", "check_fuzz")

    def run(self, checks: Iterable[str] | None = None, bundled_bots: bool = False) -> list[tuple[str, str]]:
        """Run the checks; returns (check, message) for each that failed."""
        failures = []
        names = list(checks or self.CHECKS) + (["check_bundled_bots"] if bundled_bots else [])
        for name in names:
            try:
                getattr(self, name)()
            except ConformanceError as e:
                failures.append((name, str(e)))
        return failures


def _digest_main(ref: str, rules: dict, seeds: list[int], max_steps: int) -> dict[int, str]:
    """Entry point of the fresh process in :meth:`Kit.check_determinism`."""
    import importlib

    kind, _, rest = ref.partition(":")
    if kind == "name":
        info: Any = rest
    else:
        module, _, attr = rest.rpartition(":")
        info = getattr(importlib.import_module(module), attr)
    return Kit(info, rules=rules, max_steps=max_steps).digest(seeds)


def _transcript(info: GameInfo, seed: int, rules: Mapping[str, Any], p: Playout) -> Any:
    """Playout ``p`` as ``kothkit export`` re-plays a journal's game (its record, the kit's rules),
    with the game's pictures drawn: what exporters and the replay page are given."""
    import attrs

    from kothkit.results.archive import Archive, transcript
    from kothkit.store.records import GameRecord, Move
    from kothkit.testing.playout import players_for

    @attrs.define
    class KitArchive(Archive):
        """One game, played under the kit's rules (a journal finds them in its runs)."""

        rules: dict[str, Any] = attrs.field(factory=dict)

        def settings(self, r: GameRecord) -> tuple[dict | None, int | None]:
            return {"limits": None, "rules": self.rules}, 1

    players = players_for(info, seed)
    winner = p.outcome.winner
    record = GameRecord(id=hashlib.sha256(f"kothkit-kit:{info.name}:{seed}".encode()).hexdigest()[:32],
                        game=info.name, index=seed, players=players, hashes=("kit",) * len(players), seed=seed,
                        winner=None if winner is None else players[winner], reason=p.outcome.reason,
                        moves=tuple(Move(s.seat, s.reply, 0.0) for s in p.steps))
    archive = KitArchive(path=Path(f"<the kit's {info.name} games>"), records=(record,), finished={}, runs=(),
                         rules={**info.rules, **rules})
    return transcript(archive, record, info=info, pictures=True)
