"""A run's settings resolved in one place: what the command line gave, over the challenge file, over
the journal, over the game's defaults.

Every command that plays games (``run``, ``match``, ``gauntlet``, ``play``, ``debug``, ``check``),
``verify`` (which journal) and the host take their game's rules and limits (:func:`game_of`), seed,
journal, jobs, rounds and ``trusted`` from here, so that the order of precedence is written once.
The game's registration is never copied to carry a challenge's ``[rules]``, ``[limits]`` or
``[scoring]``: they travel beside it (:class:`Game`), so that :func:`kothkit.plugins.game_code` still knows its plugin
and ``run`` and the host give one challenge's games the same ids.

The seed's order is the one users rely on to resume: a seed given as an option, else the challenge
file's ``seed``, else the journal's last run of the game (a run again resumes it), else a fresh one;
``--new-seed`` skips the file and the journal. Errors are :class:`SettingsError` naming the option
or the file, for the command to print.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import attrs

from kothkit.limits import Limits
from kothkit.playing import challenge as challenges
from kothkit.playing.challenge import MAX_JOBS, MAX_ROUNDS, MAX_SEED, Challenge
from kothkit.procs.cores import default_jobs
from kothkit.scoring import Scoring

if TYPE_CHECKING:
    from kothkit.game import GameInfo
    from kothkit.store.journal import Journal


class SettingsError(ValueError):
    """A setting that cannot be used; the message names the option or file it came from."""


#: Where a seed came from, in the order of precedence.
Origin = Literal["option", "challenge", "journal", "fresh"]


@attrs.frozen
class Seed:
    """A run's seed and where it came from (printed beside it, so that a user sees why)."""

    value: int
    origin: Origin
    #: The challenge file or journal it was read from.
    where: Path | None = None

    def note(self, new_seed_option: bool = True) -> str:
        """The words after the seed in a command's first line: none for a seed given as an option."""
        if self.origin == "challenge":
            return f" (from {self.where})"
        if self.origin == "journal":
            return " (the journal's last seed; --new-seed for a fresh one)" if new_seed_option else \
                " (the journal's last seed)"
        return " (drawn)" if self.origin == "fresh" else ""


@attrs.frozen
class Game:
    """A game as a run plays it: its registration as the plugin made it, and beside it the rules
    (the game's defaults, the challenge's ``[rules]``, ``--rules`` over them), limits (the
    game's, the challenge's ``[limits]`` over them) and scoring (the game's, the challenge's
    ``[scoring]`` over it: how results count, never which games are played), checked."""

    info: GameInfo
    rules: Mapping[str, Any]
    limits: Limits
    challenge: Challenge | None = None
    #: How the results count: the game's :attr:`GameInfo.scoring`, with the challenge's ``[scoring]``.
    scoring: Scoring = attrs.field()

    @scoring.default
    def _game_scoring(self) -> Scoring:
        return scoring_of(self.info, self.challenge)

    def with_settings(self) -> GameInfo:
        """A copy of the registration holding these rules and limits, for code that reads them from
        it (``kothkit check``'s scenarios); never for a game's id (its plugin is then unknown)."""
        return attrs.evolve(self.info, rules=dict(self.rules), limits=self.limits)


def scoring_of(info: GameInfo, challenge: Challenge | None = None) -> Scoring:
    """How ``info``'s results count in ``challenge``: the game's scoring with the challenge's
    ``[scoring]`` over it (checked when the file was loaded)."""
    if challenge is None or not challenge.scoring:
        return info.scoring
    return attrs.evolve(info.scoring, **challenge.scoring)


def game_of(info: GameInfo, challenge: Challenge | None = None, rules: Mapping[str, Any] | None = None) -> Game:
    """``info`` with the ``challenge``'s rules and limits, and ``rules`` (``--rules``) over its rules,
    each checked by the game; a :class:`SettingsError` names the file and line, or the option."""
    given = dict(rules or {})
    for k, v in given.items():
        if k not in info.rules:
            raise SettingsError(f"--rules {k}: unknown rule {k!r} for {info.name} "
                                f"(known: {', '.join(info.rules) or 'none'})")
        try:
            info.check_rules({k: v})
        except (ValueError, TypeError, KeyError) as e:
            raise SettingsError(f"--rules {k}={v!r}: bad value: {e}") from None
    limits = info.limits
    if challenge is not None:
        try:
            challenges.check_rules(challenge, dict(info.rules))
            challenges.check_rule_values(challenge, info.check_rules)
        except challenges.ChallengeError as e:
            raise SettingsError(str(e)) from None
        try:
            limits = limits.replace(**challenge.limits)
        except (TypeError, ValueError) as e:
            raise SettingsError(f"{challenge.path}: [limits]: {e}") from None
    merged = {**(challenge.rules if challenge else {}), **given}
    try:
        info.check_rules(merged)
    except (ValueError, TypeError, KeyError) as e:
        where = challenges.rules_place(challenge) + " and --rules" if challenge and given else "the rules"
        raise SettingsError(f"{where}: {e}") from None
    return Game(info=info, rules={**info.rules, **merged}, limits=limits, challenge=challenge)


def choose_seed(game: str, *, option: int | None = None, challenge_seed: int | None = None,
                challenge_path: Path | None = None, journal: Path | Journal | None = None,
                new: bool = False) -> Seed:
    """The seed of a run of ``game``: ``option``, else the challenge file's ``challenge_seed``, else
    the journal's last run of ``game`` (a path is read only if the file exists; an open journal is
    asked as it is), else a fresh one.  ``new`` (``--new-seed``) skips the file and the journal."""
    from kothkit.playing.seeding import fresh_seed

    if option is not None:
        return Seed(option, "option")
    if not new and challenge_seed is not None:
        return Seed(challenge_seed, "challenge", challenge_path)
    if not new and journal is not None:
        last = _last_seed(game, journal)
        if last is not None:
            return Seed(last, "journal", journal if isinstance(journal, Path) else None)
    return Seed(fresh_seed(), "fresh")


def _last_seed(game: str, journal: Path | Journal) -> int | None:
    from kothkit.store.journal import Journal

    if isinstance(journal, Path):
        if not journal.exists():
            return None
        with Journal(journal) as j:
            last = j.last_run(game)
    else:
        last = journal.last_run(game)
    return None if last is None else int(last["seed"])


def journal_path(game: str, challenge: Challenge | None = None, option: Path | None = None, *,
                 suffix: str = "") -> Path:
    """The journal of a run: ``--db``, else the challenge file's ``journal``, else kothkit.sqlite in
    the challenge's folder, else .kothkit/GAME.sqlite (``suffix`` after GAME: ``play`` keeps a
    person's games apart, in GAME-play.sqlite)."""
    if option is not None:
        return option
    if challenge is not None and not suffix:
        return challenge.journal or challenge.folder / "kothkit.sqlite"
    return Path(".kothkit") / f"{game}{suffix}.sqlite"


@attrs.frozen
class Options:
    """What a command line gave; None (False) where an option was left out."""

    seed: int | None = None
    new_seed: bool = False
    jobs: int | None = None
    rounds: int | None = None
    trusted: bool = False
    db: Path | None = None
    #: Limits by their key (``move_time``, ...): the options ``--move-time`` and so on.
    limits: dict[str, Any] = attrs.field(factory=dict)

    def check(self) -> None:
        """The options' own ranges, checked before anything is loaded."""
        for flag, value, least, most in (("--seed", self.seed, 0, MAX_SEED), ("--jobs", self.jobs, 1, MAX_JOBS),
                                         ("--rounds", self.rounds, 1, MAX_ROUNDS)):
            if value is not None and not least <= value <= most:
                raise SettingsError(f"{flag} must be an integer from {least} to {most}, got {value}")


@attrs.frozen
class Cores:
    """How a run's games share the CPU: ``jobs`` games at once, ``per_job`` cores each (a core per
    seat for a game of programs that allows pondering, where the machine has two a job), on cores
    claimed and pinned with ``pin``; ``note`` says so (the ``cpu:`` line of a run's output)."""

    jobs: int
    per_job: int = 1
    pin: bool = True
    note: str = ""


def cores_of(info: GameInfo, jobs: int, pin_cpu: bool, programs: bool = True) -> Cores:
    """The CPU layout of ``jobs`` games of ``info`` at once (``programs``: some bot is a program;
    function bots' games take one core a job): the one rule ``run``, ``match``, ``gauntlet``,
    ``verify`` and the host lay their games out by."""
    from kothkit.procs.contain import fair_cpu

    per_job, note = fair_cpu(bool(info.pondering), jobs, pin_cpu)
    return Cores(jobs=jobs, per_job=per_job if programs else 1, pin=pin_cpu, note=note)


@attrs.frozen
class Settings:
    """A run's settings, resolved once into a frozen plan (see the module's docstring for the order):
    the executor is made from it (:func:`kothkit.playing.executor.executor_for`)."""

    journal: Path
    seed: Seed
    jobs: int
    rounds: int
    trusted: bool
    limits: Limits
    #: The game as played (its registration, checked rules and limits, challenge).
    game: Game
    #: How the games share the CPU (for program bots; :func:`cores_of`).
    cores: Cores
    #: The game's rules as played (:attr:`Game.rules`).
    rules: Mapping[str, Any] = attrs.field(factory=dict)


def resolve(game: Game, given: Options, *, journal_suffix: str = "") -> Settings:
    """The settings of a run of ``game`` (with its challenge's rules and limits, :func:`game_of`)
    from the options ``given``, the challenge file and the game's defaults.  The journal is checked,
    and read for its last seed when no seed is given."""
    given.check()
    challenge, limits = game.challenge, game.limits
    for key, value in given.limits.items():
        try:
            limits = limits.replace(**{key: value})
        except (TypeError, ValueError) as e:
            raise SettingsError(f"--{key.replace('_', '-')}: {e}") from None
    journal = journal_path(game.info.name, challenge, given.db, suffix=journal_suffix)
    from kothkit.store.journal import JournalError, check

    try:  # read-only: a file that is not a journal is reported, not turned into one
        check(journal)
    except JournalError as e:
        raise SettingsError(str(e)) from None
    seed = choose_seed(game.info.name, option=given.seed, challenge_seed=challenge.seed if challenge else None,
                       challenge_path=challenge.path if challenge else None, journal=journal, new=given.new_seed)
    # (else a core per seat for a game that allows pondering: kothkit.procs.cores.default_jobs)
    jobs = (given.jobs or (challenge.jobs if challenge else None)
            or default_jobs(bool(game.info.pondering), limits.pin_cpu))
    return Settings(journal=journal, seed=seed, jobs=jobs,
                    rounds=given.rounds or (challenge.rounds if challenge else None) or game.info.rounds,
                    trusted=given.trusted or bool(challenge and challenge.trusted), limits=limits,
                    rules=dict(game.rules), game=attrs.evolve(game, limits=limits),
                    cores=cores_of(game.info, jobs, limits.pin_cpu))
