"""`kothkit match` and `kothkit gauntlet`: head-to-head statistics printed as the games come in."""
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional, TypeVar

import attrs
import typer

from kothkit.bots.folders import BotSpec
from kothkit.cli.common import (
    RULES_HELP,
    app,
    err,
    fail,
    game_target,
    load_and_build,
    out,
    refuse_seats,
    resolve_bot,
    settled,
)
from kothkit.game import GameInfo
from kothkit.playing.challenge import Challenge
from kothkit.playing.headtohead import DEFAULT_GAMES, HeadToHead, play
from kothkit.playing.openings import Openings, OpeningsError, chosen
from kothkit.playing.settings import Options, Settings, resolve
from kothkit.store.ratings import (
    SPRT,
    MatchStats,
    SPRTError,
)


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


def _sprt(text: str | None, model: str) -> SPRT | None:
    if text is None:
        return None
    try:
        return SPRT.parse(text, model)
    except SPRTError as e:
        fail(f"--sprt: {e}")


def _setup(game: str, sprt_text: str | None, model: str, games: int | None, rules: list[str] | None,
           given: Options, command: str = "match", openings_given: bool = False):
    """The game (with the challenge's rules and limits), the SPRT, the challenge and the settings."""
    settled(given.check)
    played = game_target(game, rules)
    info, ch = played.info, played.challenge
    if command == "match" or sprt_text is not None or openings_given:
        refuse_seats(info, command + (" --sprt" if command != "match" and sprt_text is not None else
                                      " --openings" if command != "match" and openings_given else ""),
                     "plays games of two seats only: its statistics (SPRT) and openings are of game pairs")
    if model not in ("normalized", "logistic"):
        fail(f"--sprt-model: 'normalized' or 'logistic', got {model!r}")
    sprt = _sprt(sprt_text, model)
    if games is not None and games < 2:
        fail(f"--games: at least 2 (one game pair), got {games}")
    return info, sprt, ch, settled(lambda: resolve(played, given))


def _book(info: GameInfo, ch: Challenge | None, s: Settings, openings: str | None,
          order: str | None) -> Openings | None:
    """The match's openings: ``--openings``, else the challenge file's, else (gomocup) one drawn a pair."""
    try:
        return chosen(info, dict(s.rules), ch, openings, order, drawn_default=True)
    except OpeningsError as e:
        fail(str(e))


def _run(info: GameInfo, new: BotSpec, opponents: list[BotSpec], s: Settings, *, sprt, games_cap, quiet, json_path,
         per_opponent_cap: bool, book: Openings | None = None) -> None:
    """Play the match or gauntlet in game pairs, its statistics printed as they come, then the report."""

    if games_cap is None and sprt is None:
        games_cap = DEFAULT_GAMES
    pairs = None if games_cap is None else (games_cap // 2) * (len(opponents) if per_opponent_cap else 1)
    vs = opponents[0].name if len(opponents) == 1 else f"the field ({len(opponents)} bots)"
    _print_plan(info, new.name, vs, s, sprt, pairs)
    if book is not None and not quiet:
        out.print(f"openings: {len(book.texts) if book.texts else 'one a pair'} ({book.source}"
                  f"{', ' + book.order if book.texts else ''}), each played from both seats", markup=False)
    last = [0.0]

    def show(h: HeadToHead) -> None:  # at most once a second, and when the SPRT decides
        now = time.monotonic()
        if quiet or (now - last[0] < 1.0 and not h.decided):
            return
        last[0] = now
        out.print(block(f"{new.name} vs {vs}", h.overall.stats(), info.draws, sprt, h.llr if sprt else None),
                  markup=False, highlight=False)

    h2h, played, reused = _playing(s, lambda: play(
        info, new, opponents, seed=s.seed.value, journal=s.journal, jobs=s.jobs, limits=s.limits,
        rules=dict(s.rules), trusted=s.trusted, pairs=pairs, sprt=sprt, on_pair=show,
        on_notice=lambda text: out.print(f"  {text}", markup=False), openings=book))
    _print_report(info, new.name, vs, opponents, h2h, sprt, played, reused)
    if json_path is not None:
        _write_json(json_path, info, new.name, s, h2h, sprt, played, reused)


T = TypeVar("T")


def _playing(s: Settings, go: Callable[[], T]) -> T:
    """``go()``, the games of a match or gauntlet; interrupted, or a worker lost, the command ends
    saying that the finished games are in the journal."""
    from kothkit.playing.dispatcher import WorkerLost

    try:
        return go()
    except KeyboardInterrupt:
        err.print(f"interrupted: finished games are in {s.journal}; run again to resume")
        raise typer.Exit(130) from None
    except WorkerLost as e:
        err.print(f"error: {e}; finished games are in {s.journal}", markup=False)
        raise typer.Exit(1) from None


def _run_tables(info: GameInfo, new: BotSpec, field: list[BotSpec], s: Settings, *, games_cap: int | None,
                quiet: bool, json_path: Path | None) -> None:
    """A gauntlet of a game of more than two seats: NEW at tables of the field, in every seat in turn;
    its mean score per game with its standard error, and how often it placed above each opponent."""
    import kothkit
    from kothkit.playing.headtohead import play_tables

    try:
        k = info.table_size(len(field) + 1)
    except ValueError as e:
        fail(f"a gauntlet of {info.name}: {e} (the candidate and its field)")
    # About --games games against each opponent: each table seats k - 1 of them.
    per = games_cap if games_cap is not None else DEFAULT_GAMES
    games = math.ceil(per * len(field) / (k - 1))
    out.print(f"{info.name}: {new.name} at tables of {k} with the field ({len(field)} bots), seed {s.seed.value}"
              f"{s.seed.note()}, jobs {s.jobs}, journal {s.journal}", markup=False)
    out.print(f"{games} games, {new.name} in every seat in turn; scored by {s.game.scoring.counts}", markup=False)
    result, played, reused = _playing(s, lambda: play_tables(
        info, new, field, seed=s.seed.value, journal=s.journal, jobs=s.jobs, limits=s.limits, rules=dict(s.rules),
        trusted=s.trusted, games=games, on_notice=lambda text: out.print(f"  {text}", markup=False),
        scoring=s.game.scoring))
    mean, error = result.mean_error
    said = "-" if error is None else f"{error:.3g}"
    out.print(f"{new.name}: {mean:.4g} ± {said} per game over {len(result.scores)} games "
              f"({played} played, {reused} reused)", markup=False)
    for name, (above, level, below) in sorted(result.against.items()):
        out.print(f"  vs {name}: placed above {above}, level {level}, below {below}", markup=False)
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps({
            "kothkit": kothkit.__version__, "game": info.name, "seed": s.seed.value, "new": new.name,
            "games": len(result.scores), "played": played, "reused": reused, "mean": mean, "error": error,
            "against": {n: {"above": a, "level": lv, "below": b} for n, (a, lv, b) in sorted(result.against.items())},
        }, indent=1) + "\n")
        out.print(f"results written to {json_path}", markup=False)


def _print_plan(info: GameInfo, name: str, vs: str, s: Settings, sprt: SPRT | None, pairs: int | None) -> None:
    out.print(f"{info.name}: {name} vs {vs}, seed {s.seed.value}{s.seed.note()}, jobs {s.jobs}, journal {s.journal}",
              markup=False)
    cap = "no cap: until the SPRT decides (--games N caps it)" if pairs is None else f"at most {2 * pairs} games"
    out.print(f"game pairs, each bot opening one game of a pair; {cap}"
              + (f"; SPRT [{sprt.elo0:g}, {sprt.elo1:g}] {sprt.model}, alpha {sprt.alpha:g}, beta {sprt.beta:g}"
                 if sprt else ""), markup=False)
    if not info.draws:
        out.print(f"note: {info.name} has no draws: the draw ratio is left out", markup=False)


def conclusion(sprt: SPRT, decision: str, name: str, vs: str) -> str:
    """What an SPRT's decision says, for any bounds: H1 accepted, the Elo is above elo0; H0 accepted,
    below elo1 (each with the test's error rates), in words that fit the bound's sign."""
    unit = f"{sprt.model} Elo"
    if decision == "H1":
        x = sprt.elo0
        said = (f"stronger than {vs} by more than {x:g} {unit}" if x > 0 else f"stronger than {vs}" if x == 0
                else f"not weaker than {vs} by {-x:g} {unit} or more")
        return f"{name} is {said} (its Elo is more likely {sprt.elo1:g} than {sprt.elo0:g})"
    x = sprt.elo1
    said = (f"not stronger than {vs} by {x:g} {unit} or more" if x > 0 else f"not stronger than {vs}" if x == 0
            else f"weaker than {vs} by more than {-x:g} {unit}")
    return f"{name} is {said} (its Elo is more likely {sprt.elo0:g} than {sprt.elo1:g})"


def _print_report(info: GameInfo, name: str, vs: str, opponents: list[BotSpec], h2h: HeadToHead, sprt: SPRT | None,
                  played: int, reused: int) -> None:
    """The statistics against each opponent (a gauntlet) and overall, the SPRT's verdict, the counts."""
    if len(opponents) > 1:
        for o in opponents:
            out.print(block(f"{name} vs {o.name}", h2h.tallies[o.name].stats(), info.draws), markup=False,
                      highlight=False)
    out.print(block(f"{name} vs {vs}", h2h.overall.stats(), info.draws, sprt, h2h.llr if sprt else None),
              markup=False, highlight=False)
    counted = 2 * h2h.counted
    if sprt is not None:
        if h2h.decision == "H1":
            verdict = (f"SPRT: H1 accepted (LLR {h2h.llr:.2f} >= {sprt.upper:.2f}): "
                       f"{conclusion(sprt, 'H1', name, vs)}, after {counted} games")
        elif h2h.decision == "H0":
            verdict = (f"SPRT: H0 accepted (LLR {h2h.llr:.2f} <= {sprt.lower:.2f}): "
                       f"{conclusion(sprt, 'H0', name, vs)}, after {counted} games")
        else:
            verdict = f"SPRT: no decision after {counted} games (LLR {h2h.llr:.2f}); the --games cap was reached"
        out.print(verdict, markup=False)
    extra = f"; {h2h.extra} more finished past the decision, kept in the journal, not counted" if h2h.extra else ""
    out.print(f"games: {played} played, {reused} reused, {counted} counted{extra}", markup=False)


def _write_json(path: Path, info: GameInfo, name: str, s: Settings, h2h: HeadToHead, sprt: SPRT | None, played: int,
                reused: int) -> None:
    """The statistics as JSON (a statistic that cannot be computed is null)."""
    doc: dict[str, Any] = {
        "game": info.name, "seed": s.seed.value, "bot": name, "journal": str(s.journal), "played": played,
        "reused": reused, "counted": 2 * h2h.counted, "past_decision": h2h.extra,
        "opponents": {o: t.stats().to_json() for o, t in h2h.tallies.items()},
        "overall": h2h.overall.stats().to_json(),
        "sprt": None if sprt is None else {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha,
                                           "beta": sprt.beta, "model": sprt.model, "llr": h2h.llr,
                                           "lower": sprt.lower, "upper": sprt.upper, "decision": h2h.decision}}
    if not info.draws:
        for stats in (*doc["opponents"].values(), doc["overall"]):
            stats.pop("draw_ratio")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, default=lambda x: None if isinstance(x, float) and
                               not math.isfinite(x) else x))
    out.print(f"results written to {path}", markup=False)


_SPRT_HELP = ("elo0,elo1[,alpha,beta]: stop as soon as the log-likelihood ratio of H1 (Elo = elo1) against H0 "
              "(Elo = elo0) crosses a bound; alpha and beta default to 0.05.")


# The options match and gauntlet share, declared once.
GameArg = Annotated[str, typer.Argument(help="The game name, or a challenge folder (its game, rules and limits; its journal).")]
SprtModel = Annotated[str, typer.Option("--sprt-model", help="Elo of the SPRT bounds: normalized (default) or logistic.")]
NewSeed = Annotated[bool, typer.Option("--new-seed", help="Draw a fresh seed even if the challenge file or the journal has one.")]
Jobs = Annotated[Optional[int], typer.Option(help="Games played at once (default: the number of cores, half of them for a game that allows pondering: a core per seat).")]
MoveTime = Annotated[Optional[float], typer.Option(help="Seconds allowed for one reply.")]
GameTime = Annotated[Optional[float], typer.Option(help="Seconds of own thinking time per bot and game.")]
MemoryMb = Annotated[Optional[int], typer.Option(help="Memory cap per bot, in MiB.")]
Trusted = Annotated[bool, typer.Option("--trusted", help="Call Python function bots in the judge's processes (fast, no isolation).")]
Db = Annotated[Optional[Path], typer.Option("--db", help="The SQLite journal (default: .kothkit/GAME.sqlite).")]
JsonPath = Annotated[Optional[Path], typer.Option("--json", help="Write the statistics here.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="Only the final report.")]
Rules = Annotated[Optional[list[str]], typer.Option("--rules", help=RULES_HELP)]
OpeningsFile = Annotated[Optional[str], typer.Option("--openings", help="Openings, each played from both seats in a game pair: a file of one opening a line in the game's own format (gomocup: x,y x,y ...), or a Piskvork .psq; 'none': no openings. Default: the challenge file's openings, else, for a game that draws openings from the seed (gomocup), one a pair.")]
OpeningsOrder = Annotated[Optional[str], typer.Option("--openings-order", help="sequential (the file's order) or random (shuffled by the seed). Default: the challenge file's openings_order, else sequential.")]


@app.command()
def match(
    game: GameArg,
    bot_a: Annotated[str, typer.Argument(help="The bot under test: a bundled bot's name, a bot folder or file.py:function.")],
    bot_b: Annotated[Optional[str], typer.Argument(help="Its opponent, named the same ways.")] = None,
    sprt: Annotated[Optional[str], typer.Option("--sprt", help=_SPRT_HELP)] = None,
    sprt_model: SprtModel = "normalized",
    games: Annotated[Optional[int], typer.Option(help=f"At most this many games (whole pairs). Default: {DEFAULT_GAMES}, or no cap with --sprt.")] = None,
    seed: Annotated[Optional[int], typer.Option(help="Match seed (default: the challenge file's seed, else the journal's last seed for this game, else a fresh one, printed).")] = None,
    new_seed: NewSeed = False,
    jobs: Jobs = None,
    move_time: MoveTime = None,
    game_time: GameTime = None,
    memory_mb: MemoryMb = None,
    trusted: Trusted = False,
    db: Db = None,
    json_path: JsonPath = None,
    quiet: Quiet = False,
    rules: Rules = None,
    openings: OpeningsFile = None,
    openings_order: OpeningsOrder = None,
) -> None:
    """Play BOT_A against BOT_B in game pairs and print Elo, nElo, LOS and the pentanomial as it goes."""
    if bot_b is None:
        fail("a match needs two bots: kothkit match GAME BOT_A BOT_B")
    given = Options(seed=seed, new_seed=new_seed, jobs=jobs, trusted=trusted, db=db,
                    limits={"move_time": move_time, "game_time": game_time, "memory_mb": memory_mb})
    info, test, ch, s = _setup(game, sprt, sprt_model, games, rules, given)
    book = _book(info, ch, s, openings, openings_order)
    a, b = resolve_bot(info, bot_a, ch), resolve_bot(info, bot_b, ch)
    if a.name == b.name:  # the same bot twice, or two versions under one name: tell them apart
        a, b = attrs.evolve(a, name=f"{a.name}#1"), attrs.evolve(b, name=f"{b.name}#2")
    _run(info, a, [b], s, sprt=test, games_cap=games, quiet=quiet, json_path=json_path, per_opponent_cap=False,
         book=book)


@app.command()
def gauntlet(
    game: GameArg,
    new: Annotated[str, typer.Argument(help="The bot under test: a bundled bot's name, a bot folder or file.py:function.")],
    bots: Annotated[Optional[list[str]], typer.Option("--bots", help="The field: a folder of bot folders, one bot folder, or file.py:function; repeatable. Default: the game's bundled bots.")] = None,
    sprt: Annotated[Optional[str], typer.Option("--sprt", help=_SPRT_HELP + " Tested on all games together.")] = None,
    sprt_model: SprtModel = "normalized",
    games: Annotated[Optional[int], typer.Option(help=f"At most this many games against each opponent (whole pairs). Default: {DEFAULT_GAMES}, or no cap with --sprt.")] = None,
    seed: Annotated[Optional[int], typer.Option(help="Seed (default: the challenge file's seed, else the journal's last seed for this game, else a fresh one, printed).")] = None,
    new_seed: NewSeed = False,
    jobs: Jobs = None,
    move_time: MoveTime = None,
    game_time: GameTime = None,
    memory_mb: MemoryMb = None,
    trusted: Trusted = False,
    db: Db = None,
    json_path: JsonPath = None,
    quiet: Quiet = False,
    rules: Rules = None,
    openings: OpeningsFile = None,
    openings_order: OpeningsOrder = None,
) -> None:
    """Play NEW against each bot of the field in game pairs: the match statistics per opponent and overall."""
    given = Options(seed=seed, new_seed=new_seed, jobs=jobs, trusted=trusted, db=db,
                    limits={"move_time": move_time, "game_time": game_time, "memory_mb": memory_mb})
    info, test, ch, s = _setup(game, sprt, sprt_model, games, rules, given, "gauntlet", openings is not None)
    book = _book(info, ch, s, openings, openings_order) if info.two_seats else None
    me = resolve_bot(info, new, ch)
    entries = ([str(b) for b in bots] if bots else [str(b) for b in ch.bots] if ch is not None else
               [str(info.bots)] if info.bots else [])
    field, _ = load_and_build(entries, info) if entries else ([], [])
    field = [b for b in field if not (b.name == me.name and b.hash == me.hash)]  # not against itself
    if any(b.name == me.name for b in field):  # another version under the same name
        me = attrs.evolve(me, name=f"{me.name}#new")
    if not field:
        fail(f"a gauntlet needs at least two bots: {me.name} and a field of at least one other; the field is empty")
    if not info.two_seats:
        _run_tables(info, me, field, s, games_cap=games, quiet=quiet, json_path=json_path)
        return
    _run(info, me, field, s, sprt=test, games_cap=games, quiet=quiet, json_path=json_path, per_opponent_cap=True,
         book=book)
