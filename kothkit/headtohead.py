"""``kothkit match`` and ``kothkit gauntlet``: one bot against another, or against a field, in game pairs.

A game pair is two games with the same seed slot, each bot opening one; the
statistics count pairs (pentanomial: the first bot's 0, ½, 1, 1½ or 2 points
of a pair), as fastchess and fishtest do.  Pairs are numbered in schedule
order (pair k is games 2k and 2k + 1; in a gauntlet pair k is against the
field's ``k % n``-th bot) and counted in that order, whatever order they finish
in: the numbers, and where an SPRT stops, are the same at any ``--jobs``.
Games are played through the tournament's dispatcher and stored in the
journal like a round robin's (the same game ids, so ``kothkit verify`` checks
them); run again, a match reuses its games and resumes where it stopped.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Optional

import attrs
import typer

from kothkit.bots import BotSpec, load_bots
from kothkit.cli import _game, _loaders, app, err, fail, load_and_build, out
from kothkit.game import GameInfo
from kothkit.journal import Journal, result_of
from kothkit.limits import Limits
from kothkit.ratings import SPRT, MatchStats, Pentanomial, SPRTError, match_stats
from kothkit.records import GameTask
from kothkit.schedule import game_key, id_maker, settings_of
from kothkit.seeding import derive, fresh_seed

#: Games a match (or a gauntlet, per opponent) plays without --games and without an SPRT.
DEFAULT_GAMES = 100
#: Pairs looked up in the journal at a time.
CHUNK = 32
#: Most games of function bots per batch under an SPRT (tens of milliseconds of play).
SPRT_BATCH = 32


@attrs.define
class Tally:
    """One opponent's games as the new bot sees them."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    penta: Pentanomial = attrs.field(factory=Pentanomial)

    def stats(self) -> MatchStats:
        return match_stats(self.penta, self.wins, self.losses, self.draws)


@attrs.define
class HeadToHead:
    """The running count of a match or gauntlet, pair by pair in schedule order."""

    new: str
    opponents: list[str]
    sprt: SPRT | None = None
    tallies: dict[str, Tally] = attrs.field(init=False)
    overall: Tally = attrs.field(init=False, factory=Tally)
    #: Pair number -> the new bot's score in its games 0 and 1 (None until finished).
    _waiting: dict[int, list] = attrs.field(init=False, factory=dict)
    #: Pairs counted so far (the next to count is this one).
    counted: int = 0
    llr: float = 0.0
    #: "H1", "H0" or None.
    decision: str | None = None
    #: Games finished but not counted: after the SPRT's decision, or of a pair left incomplete.
    extra: int = 0

    def __attrs_post_init__(self) -> None:
        self.tallies = {o: Tally() for o in self.opponents}

    @property
    def decided(self) -> bool:
        return self.decision is not None

    def add(self, index: int, winner: str | None) -> bool:
        """Game ``index`` of the schedule ended with ``winner``; True if that completed pairs to count."""
        p, g = divmod(index, 2)
        score = 0.5 if winner is None else 1.0 if winner == self.new else 0.0
        slot = self._waiting.setdefault(p, [None, None])
        slot[g] = score
        moved = False
        while not self.decided:
            slot = self._waiting.get(self.counted)
            if slot is None or None in slot:
                break
            del self._waiting[self.counted]
            self._count(self.opponents[self.counted % len(self.opponents)], slot)
            self.counted += 1
            moved = True
        return moved

    def _count(self, opponent: str, scores: list[float]) -> None:
        for t in (self.tallies[opponent], self.overall):
            for s in scores:
                if s == 1:
                    t.wins += 1
                elif s == 0:
                    t.losses += 1
                else:
                    t.draws += 1
            t.penta = t.penta.add(sum(scores))
        if self.sprt is not None:
            self.llr = self.sprt.llr(self.overall.penta)
            self.decision = self.sprt.decision(self.llr)

    def finish(self) -> None:
        self.extra = sum(1 for slot in self._waiting.values() for s in slot if s is not None)


def pair_tasks(info: GameInfo, new: BotSpec, opponents: Sequence[BotSpec], seed: int, limits: Limits, rules: dict,
               trusted: bool, pairs: int | None) -> Iterator[tuple[GameTask, GameTask]]:
    """The schedule: pair k against ``opponents[k % n]``, its seed slot that of a round robin's game
    ``2 * (k // n)`` between the two bots (both games of the pair share it); ``pairs`` caps it."""
    settings = settings_of(limits, rules)
    key = game_key(info.name, settings)
    n = len(opponents)
    plans = []
    for opp in opponents:
        a, b = sorted((new.name, opp.name))
        seats = ((new, opp), (opp, new))
        plans.append((a, b, seats, [id_maker(key, s, (a, b)) for s in seats]))
    for k in itertools.count() if pairs is None else range(pairs):
        a, b, seats, ids = plans[k % n]
        slot = 2 * (k // n)
        game_seed = derive(seed, "game", a, b, slot)
        yield tuple(GameTask(ids[g](f"{slot}\x1f{seed}"), info.name, seats[g], game_seed, limits, rules, 2 * k + g,
                             trusted) for g in (0, 1))


def play(info: GameInfo, new: BotSpec, opponents: Sequence[BotSpec], *, seed: int, journal: Path, jobs: int,
         limits: Limits, rules: dict, trusted: bool, pairs: int | None, sprt: SPRT | None,
         on_pair: Callable[[HeadToHead], None] | None = None,
         on_notice: Callable[[str], None] | None = None) -> tuple[HeadToHead, int, int]:
    """Play (or reuse from ``journal``) the pairs until ``pairs`` are done or the SPRT decides.

    Returns the count, and how many games were played and reused.
    """
    from kothkit.tournament import FAST_BATCH, dispatch

    h2h = HeadToHead(new.name, [o.name for o in opponents], sprt)
    played = reused = 0
    bots = [new, *opponents]
    with Journal(journal) as j:
        run_id = j.start_run(info.name, seed, settings_of(limits, rules),
                             [{"name": b.name, "hash": b.hash} for b in bots])
        seatings: dict[str, tuple[str, ...]] = {}

        def note(moved: bool) -> None:
            if moved and on_pair is not None:
                on_pair(h2h)

        def unplayed() -> Iterator[GameTask]:
            nonlocal reused
            schedule = pair_tasks(info, new, opponents, seed, limits, rules, trusted, pairs)
            while not h2h.decided:
                chunk = [t for pair in itertools.islice(schedule, CHUNK) for t in pair]
                if not chunk:
                    return
                index = {t.id: t.index for t in chunk}
                found = {r.id: r for r in j.results(list(index))}
                for t in chunk:  # in schedule order, so that the count moves on as it would have
                    r = found.get(t.id)
                    if r is not None:
                        reused += 1
                        note(h2h.add(t.index, r.winner))
                for t in chunk:
                    if h2h.decided:
                        return
                    if t.id not in found:
                        yield t

        def store(rows: list[tuple]) -> None:
            nonlocal played
            j.add_rows(rows)
            played += len(rows)
            for row in rows:
                note(h2h.add(row[2], result_of(row, seatings).winner))

        # Under an SPRT, small batches: games already handed out when it decides are played for nothing.
        batch = (FAST_BATCH if sprt is None else SPRT_BATCH) if all(b.kind == "function" for b in bots) else 1
        dispatch(unplayed(), jobs=jobs, pin_cpu=limits.pin_cpu, stateful={b.name for b in bots if b.stateful},
                 batch=batch, on_done=lambda tasks, rows: store(rows), rows=True, on_notice=on_notice,
                 stop=lambda: h2h.decided)
        j.finish_run(run_id, played, reused)
    h2h.finish()
    return h2h, played, reused


# -- printing -----------------------------------------------------------------------------


def _f(x: float | None, fmt: str = ".2f") -> str:
    return "n/a" if x is None else format(x + 0.0, fmt)  # + 0.0: no "-0.00"


def block(title: str, s: MatchStats, draws: bool, sprt: SPRT | None = None, llr: float | None = None) -> str:
    """The fastchess report of ``s``."""
    lines = [f"Results of {title}:",
             f"Elo: {_f(s.elo)} +/- {_f(s.elo_error)}, nElo: {_f(s.nelo)} +/- {_f(s.nelo_error)}"]
    los = f"LOS: {_f(None if s.los is None else 100 * s.los)} %"
    lines.append(f"{los}, DrawRatio: {_f(None if s.draw_ratio is None else 100 * s.draw_ratio)} %" if draws else los)
    pct = f" ({100 * s.points / s.games:.2f} %)" if s.games else ""
    lines.append(f"Games: {s.games}, Wins: {s.wins}, Losses: {s.losses}"
                 + (f", Draws: {s.draws}" if draws else "") + f", Points: {s.points:.1f}{pct}")
    lines.append(f"Ptnml(0-2): [{', '.join(map(str, s.penta.counts))}]")
    if sprt is not None and llr is not None:
        lines.append(f"LLR: {llr:.2f} ({sprt.lower:.2f}, {sprt.upper:.2f}) [{sprt.elo0:.2f}, {sprt.elo1:.2f}] "
                     f"({sprt.model})")
    rule = "-" * 50
    return "\n".join([rule, *lines, rule])


def _resolve(info: GameInfo, arg: str) -> BotSpec:
    """A bot named on the command line: a bot folder, file.py:function, or a bundled bot's name."""
    file = arg.rpartition(":")[0] if ":" in arg and arg.rpartition(":")[0].endswith(".py") else arg
    if os.sep in arg or file.endswith(".py") or Path(file).exists():
        if not Path(file).exists():
            fail(f"unknown bot {arg!r}: no such file or folder")
        specs, _ = load_and_build([arg], info)
        if not specs:
            fail(f"cannot load the bot {arg!r} (see above)")
        return specs[0]
    loaded = load_bots([str(info.bots)], _loaders()) if info.bots else None
    found = [b for b in loaded.bots if b.name == arg] if loaded else []
    if not found:
        names = ", ".join(sorted(b.name for b in loaded.bots)) if loaded and loaded.bots else "none"
        fail(f"unknown bot {arg!r}: not a bot folder, not file.py:function, and not a bundled bot of "
             f"{info.name} (bundled: {names})")
    folder = found[0].path if found[0].path.is_dir() else found[0].path.parent
    specs, _ = load_and_build([str(folder)], info)
    if not specs:
        fail(f"cannot load the bot {arg!r} (see above)")
    return specs[0]


def _sprt(text: str | None, model: str) -> SPRT | None:
    if text is None:
        return None
    try:
        return SPRT.parse(text, model)
    except SPRTError as e:
        fail(f"--sprt: {e}")


def _setup(game: str, sprt_text: str | None, model: str, games: int | None, move_time, game_time, memory_mb):
    info = _game(game)
    if info.seats != 2:
        fail(f"{game} seats {info.seats} players a game; head-to-head statistics need two-seat games")
    if model not in ("normalized", "logistic"):
        fail(f"--sprt-model: 'normalized' or 'logistic', got {model!r}")
    sprt = _sprt(sprt_text, model)
    if games is not None and games < 2:
        fail(f"--games: at least 2 (one game pair), got {games}")
    try:
        limits = info.limits.replace(move_time=move_time, game_time=game_time, memory_mb=memory_mb)
    except (TypeError, ValueError) as e:
        fail(f"bad limit: {e}")
    return info, sprt, limits


def _seed(name: str, journal: Path, seed: int | None, new_seed: bool) -> tuple[int, str]:
    if seed is not None:
        return seed, ""
    if not new_seed and journal.exists():
        with Journal(journal) as j:
            last = j.last_run(name)
        if last is not None:
            return last["seed"], " (the journal's last seed; --new-seed for a fresh one)"
    return fresh_seed(), " (drawn)"


def _run(info: GameInfo, new: BotSpec, opponents: list[BotSpec], *, sprt, games_cap, seed, seed_note, journal,
         jobs, limits, trusted, quiet, json_path, per_opponent_cap: bool) -> None:
    from kothkit.tournament import WorkerLost

    if games_cap is None and sprt is None:
        games_cap = DEFAULT_GAMES
    pairs = None if games_cap is None else (games_cap // 2) * (len(opponents) if per_opponent_cap else 1)
    vs = opponents[0].name if len(opponents) == 1 else f"the field ({len(opponents)} bots)"
    out.print(f"{info.name}: {new.name} vs {vs}, seed {seed}{seed_note}, jobs {jobs}, journal {journal}", markup=False)
    cap = "no cap: until the SPRT decides (--games N caps it)" if pairs is None else f"at most {2 * pairs} games"
    out.print(f"game pairs, each bot opening one game of a pair; {cap}"
              + (f"; SPRT [{sprt.elo0:g}, {sprt.elo1:g}] {sprt.model}, alpha {sprt.alpha:g}, beta {sprt.beta:g}"
                 if sprt else ""), markup=False)
    if not info.draws:
        out.print(f"note: {info.name} has no draws: the draw ratio is left out", markup=False)
    last = [0.0]

    def show(h: HeadToHead) -> None:
        now = time.monotonic()
        if quiet or (now - last[0] < 1.0 and not h.decided):
            return
        last[0] = now
        out.print(block(f"{new.name} vs {vs}", h.overall.stats(), info.draws, sprt, h.llr if sprt else None),
                  markup=False, highlight=False)

    try:
        h2h, played, reused = play(info, new, opponents, seed=seed, journal=journal, jobs=jobs, limits=limits,
                                   rules=dict(info.rules), trusted=trusted, pairs=pairs, sprt=sprt, on_pair=show,
                                   on_notice=lambda text: out.print(f"  {text}", markup=False))
    except KeyboardInterrupt:
        err.print(f"interrupted: finished games are in {journal}; run again to resume")
        raise typer.Exit(130)
    except WorkerLost as e:
        err.print(f"error: {e}; finished games are in {journal}", markup=False)
        raise typer.Exit(1)
    if len(opponents) > 1:
        for o in opponents:
            out.print(block(f"{new.name} vs {o.name}", h2h.tallies[o.name].stats(), info.draws), markup=False,
                      highlight=False)
    out.print(block(f"{new.name} vs {vs}", h2h.overall.stats(), info.draws, sprt, h2h.llr if sprt else None),
              markup=False, highlight=False)
    counted = 2 * h2h.counted
    if sprt is not None:
        if h2h.decision == "H1":
            verdict = (f"SPRT: H1 accepted (LLR {h2h.llr:.2f} >= {sprt.upper:.2f}): {new.name} is stronger by "
                       f"{sprt.elo1:g} {sprt.model} Elo or more, after {counted} games")
        elif h2h.decision == "H0":
            verdict = (f"SPRT: H0 accepted (LLR {h2h.llr:.2f} <= {sprt.lower:.2f}): {new.name} is not stronger by "
                       f"{sprt.elo1:g} {sprt.model} Elo; after {counted} games")
        else:
            verdict = f"SPRT: no decision after {counted} games (LLR {h2h.llr:.2f}); the --games cap was reached"
        out.print(verdict, markup=False)
    extra = f"; {h2h.extra} more finished past the decision, kept in the journal, not counted" if h2h.extra else ""
    out.print(f"games: {played} played, {reused} reused, {counted} counted{extra}", markup=False)
    if json_path is not None:
        doc = {"game": info.name, "seed": seed, "bot": new.name, "journal": str(journal), "played": played,
               "reused": reused, "counted": counted, "past_decision": h2h.extra,
               "opponents": {o: t.stats().to_json() for o, t in h2h.tallies.items()},
               "overall": h2h.overall.stats().to_json(),
               "sprt": None if sprt is None else {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha,
                                                  "beta": sprt.beta, "model": sprt.model, "llr": h2h.llr,
                                                  "lower": sprt.lower, "upper": sprt.upper,
                                                  "decision": h2h.decision}}
        if not info.draws:
            for s in (*doc["opponents"].values(), doc["overall"]):
                s.pop("draw_ratio")
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(doc, indent=1, default=lambda x: None if isinstance(x, float) and
                                        not math.isfinite(x) else x))
        out.print(f"results written to {json_path}", markup=False)


_SPRT_HELP = ("elo0,elo1[,alpha,beta]: stop as soon as the log-likelihood ratio of H1 (Elo = elo1) against H0 "
              "(Elo = elo0) crosses a bound; alpha and beta default to 0.05.")


@app.command()
def match(
    game: Annotated[str, typer.Argument(help="The game name.")],
    bot_a: Annotated[str, typer.Argument(help="The bot under test: a bundled bot's name, a bot folder or file.py:function.")],
    bot_b: Annotated[Optional[str], typer.Argument(help="Its opponent, named the same ways.")] = None,
    sprt: Annotated[Optional[str], typer.Option("--sprt", help=_SPRT_HELP)] = None,
    sprt_model: Annotated[str, typer.Option("--sprt-model", help="Elo of the SPRT bounds: normalized (default) or logistic.")] = "normalized",
    games: Annotated[Optional[int], typer.Option(help=f"At most this many games (whole pairs). Default: {DEFAULT_GAMES}, or no cap with --sprt.")] = None,
    seed: Annotated[Optional[int], typer.Option(help="Match seed (default: the journal's last seed for this game, else a fresh one, printed).")] = None,
    new_seed: Annotated[bool, typer.Option("--new-seed", help="Draw a fresh seed even if the journal has one.")] = False,
    jobs: Annotated[Optional[int], typer.Option(help="Games played at once (default: the number of cores).")] = None,
    move_time: Annotated[Optional[float], typer.Option(help="Seconds allowed for one reply.")] = None,
    game_time: Annotated[Optional[float], typer.Option(help="Seconds of own thinking time per bot and game.")] = None,
    memory_mb: Annotated[Optional[int], typer.Option(help="Memory cap per bot, in MiB.")] = None,
    trusted: Annotated[bool, typer.Option("--trusted", help="Call Python function bots in the judge's processes (fast, no isolation).")] = False,
    db: Annotated[Optional[Path], typer.Option("--db", help="The SQLite journal (default: .kothkit/GAME.sqlite).")] = None,
    json_path: Annotated[Optional[Path], typer.Option("--json", help="Write the statistics here.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the final report.")] = False,
) -> None:
    """Play BOT_A against BOT_B in game pairs and print Elo, nElo, LOS and the pentanomial as it goes."""
    if bot_b is None:
        fail("a match needs two bots: kothkit match GAME BOT_A BOT_B")
    info, test, limits = _setup(game, sprt, sprt_model, games, move_time, game_time, memory_mb)
    a, b = _resolve(info, bot_a), _resolve(info, bot_b)
    if a.name == b.name:  # the same bot twice, or two versions under one name: tell them apart
        a, b = attrs.evolve(a, name=f"{a.name}#1"), attrs.evolve(b, name=f"{b.name}#2")
    journal = db or Path(".kothkit") / f"{info.name}.sqlite"
    s, note = _seed(info.name, journal, seed, new_seed)
    _run(info, a, [b], sprt=test, games_cap=games, seed=s, seed_note=note, journal=journal,
         jobs=jobs or os.cpu_count() or 1, limits=limits, trusted=trusted, quiet=quiet, json_path=json_path,
         per_opponent_cap=False)


@app.command()
def gauntlet(
    game: Annotated[str, typer.Argument(help="The game name.")],
    new: Annotated[str, typer.Argument(help="The bot under test: a bundled bot's name, a bot folder or file.py:function.")],
    bots: Annotated[Optional[list[str]], typer.Option("--bots", help="The field: a folder of bot folders, one bot folder, or file.py:function; repeatable. Default: the game's bundled bots.")] = None,
    sprt: Annotated[Optional[str], typer.Option("--sprt", help=_SPRT_HELP + " Tested on all games together.")] = None,
    sprt_model: Annotated[str, typer.Option("--sprt-model", help="Elo of the SPRT bounds: normalized (default) or logistic.")] = "normalized",
    games: Annotated[Optional[int], typer.Option(help=f"At most this many games against each opponent (whole pairs). Default: {DEFAULT_GAMES}, or no cap with --sprt.")] = None,
    seed: Annotated[Optional[int], typer.Option(help="Seed (default: the journal's last seed for this game, else a fresh one, printed).")] = None,
    new_seed: Annotated[bool, typer.Option("--new-seed", help="Draw a fresh seed even if the journal has one.")] = False,
    jobs: Annotated[Optional[int], typer.Option(help="Games played at once (default: the number of cores).")] = None,
    move_time: Annotated[Optional[float], typer.Option(help="Seconds allowed for one reply.")] = None,
    game_time: Annotated[Optional[float], typer.Option(help="Seconds of own thinking time per bot and game.")] = None,
    memory_mb: Annotated[Optional[int], typer.Option(help="Memory cap per bot, in MiB.")] = None,
    trusted: Annotated[bool, typer.Option("--trusted", help="Call Python function bots in the judge's processes (fast, no isolation).")] = False,
    db: Annotated[Optional[Path], typer.Option("--db", help="The SQLite journal (default: .kothkit/GAME.sqlite).")] = None,
    json_path: Annotated[Optional[Path], typer.Option("--json", help="Write the statistics here.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the final report.")] = False,
) -> None:
    """Play NEW against each bot of the field in game pairs: the match statistics per opponent and overall."""
    info, test, limits = _setup(game, sprt, sprt_model, games, move_time, game_time, memory_mb)
    me = _resolve(info, new)
    entries = [str(b) for b in bots] if bots else ([str(info.bots)] if info.bots else [])
    field, _ = load_and_build(entries, info) if entries else ([], [])
    field = [b for b in field if not (b.name == me.name and b.hash == me.hash)]  # not against itself
    if any(b.name == me.name for b in field):  # another version under the same name
        me = attrs.evolve(me, name=f"{me.name}#new")
    if not field:
        fail(f"a gauntlet needs at least two bots: {me.name} and a field of at least one other; the field is empty")
    journal = db or Path(".kothkit") / f"{info.name}.sqlite"
    s, note = _seed(info.name, journal, seed, new_seed)
    _run(info, me, field, sprt=test, games_cap=games, seed=s, seed_note=note, journal=journal,
         jobs=jobs or os.cpu_count() or 1, limits=limits, trusted=trusted, quiet=quiet, json_path=json_path,
         per_opponent_cap=True)
