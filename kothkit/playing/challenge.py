"""Challenge files: a folder with a ``kothkit.toml`` naming the game, bots, limits and seed.

``kothkit run PATH`` runs it; command-line flags override it.  Every wrong
key or value is reported with the file and line.  Example::

    game = "gomoku_classic12"
    bots = ["bots"]            # folders (relative to this file) of bot folders, or bot folders
    seed = 2024
    games_per_pair = 2         # even; or: rounds = 1 (two games a round)
    jobs = 2
    journal = "kothkit.sqlite" # default: kothkit.sqlite beside this file
    trusted = false            # function bots in-process
    openings = "openings.txt"  # a game that takes openings (gomocup): its book, relative to this file
    openings_order = "random"  # "sequential" (the default) or "random" (shuffled by the seed)

    [limits]                   # any field of kothkit.limits.Limits
    move_time = 2.0
    memory_mb = 350

    [rules]                    # the game's own settings
    opening = "center4"

    [scoring]                  # how results count, over the game's (kothkit.scoring.Scoring)
    counts = "placing"         # "outcome", "points", "placing" or "wins"
    by_place = [10, 6, 4]

    [env]                      # environment variables every bot gets (docs/tournaments.md)
    GAME_DATA = "/data"

    [serve]                    # how `kothkit serve` hosts it: read and checked by kothkit.serve.settings
    kind = "submissions"
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from kothkit.limits import LIMIT_KEYS, Limits, env_pairs

FILE = "kothkit.toml"
#: Seeds are stored as SQLite integers (signed 64-bit).
MAX_SEED = (1 << 63) - 1
MAX_ROUNDS = 1 << 31
MAX_JOBS = 1024
TOP_KEYS = {"game", "bots", "seed", "rounds", "games_per_pair", "jobs", "journal", "trusted", "limits", "rules",
            "serve", "env", "scoring", "openings", "openings_order"}
#: How a run takes a book's openings (kothkit.playing.openings.ORDERS).
OPENINGS_ORDERS = ("sequential", "random")
#: The keys of ``[scoring]``: any field of :class:`kothkit.scoring.Scoring` but ``forfeit`` (a
#: leaver's points are part of each game's record, so they stay the game's).
SCORING_KEYS = ("counts", "by_place", "mean", "win", "draw", "loss", "unit", "tiebreak")


class ChallengeError(Exception):
    pass


@attrs.frozen
class Challenge:
    path: Path  # the kothkit.toml
    game: str
    bots: tuple[Path, ...]
    seed: int | None = None
    rounds: int | None = None
    jobs: int | None = None
    journal: Path | None = None
    trusted: bool = False
    limits: dict[str, Any] = attrs.field(factory=dict)
    rules: dict[str, Any] = attrs.field(factory=dict)
    #: ``[scoring]``: fields of :class:`kothkit.scoring.Scoring` over the game's (checked).
    scoring: dict[str, Any] = attrs.field(factory=dict)
    #: ``openings``: the book of openings (relative to the file; loaded and checked against the
    #: game by kothkit.playing.openings.of_challenge), and ``openings_order``.
    openings: Path | None = None
    openings_order: str | None = None

    @property
    def folder(self) -> Path:
        return self.path.parent


def _line(text: str, key: str, table: str | None = None) -> int | None:
    start = 0
    if table:
        m = re.search(rf"^\s*\[{re.escape(table)}\]\s*$", text, re.M)
        if not m:
            return None
        start = m.end()
    m = re.compile(rf"^\s*{re.escape(key)}\s*=", re.M).search(text, start)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _env_ok(name: str, value: Any) -> bool:
    try:
        env_pairs({name: value}, "")
        return True
    except ValueError:
        return False


def load(path: str | Path) -> Challenge:
    p = Path(path)
    if p.is_dir():
        p = p / FILE
    if not p.is_file():
        raise ChallengeError(f"{p}: no such challenge file")
    text = p.read_text(encoding="utf-8", errors="replace")

    def err(msg: str, key: str | None = None, table: str | None = None) -> ChallengeError:
        line = _line(text, key, table) if key else None
        return ChallengeError(f"{p}:{line}: {msg}" if line else f"{p}: {msg}")

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        raise ChallengeError(f"{p}:{m.group(1) if m else '?'}: invalid TOML: {e}") from None
    for k in data:
        if k not in TOP_KEYS:
            raise err(f"unknown key {k!r} (known: {', '.join(sorted(TOP_KEYS))})", k)
    if not isinstance(data.get("game"), str):
        raise err("missing or non-string key 'game' (the game to play, see `kothkit games`)", "game")
    bots = data.get("bots", ["bots"])
    if isinstance(bots, str):
        bots = [bots]
    if not (isinstance(bots, list) and all(isinstance(b, str) for b in bots)):
        raise err("bots must be a list of folder paths", "bots")

    def intkey(k: str, minimum: int, maximum: int) -> int | None:
        v = data.get(k)
        if v is None:
            return None
        if not isinstance(v, int) or isinstance(v, bool) or not minimum <= v <= maximum:
            raise err(f"{k} must be an integer from {minimum} to {maximum}, got {v!r}", k)
        return v

    seed = intkey("seed", 0, MAX_SEED)
    rounds = intkey("rounds", 1, MAX_ROUNDS)
    gpp = intkey("games_per_pair", 2, 2 * MAX_ROUNDS)
    if gpp is not None:
        if gpp % 2:
            raise err(f"games_per_pair must be even (each bot opens half), got {gpp}", "games_per_pair")
        if rounds is not None:
            raise err("give rounds or games_per_pair, not both", "games_per_pair")
        rounds = gpp // 2
    limits = data.get("limits", {})
    if not isinstance(limits, dict):
        raise err("[limits] must be a table", "limits")
    fields = {f.name: f for f in attrs.fields(Limits)}
    for k, v in limits.items():
        if k == "env":
            raise err("env is a table of its own: [env] NAME = \"value\"", k, "limits")
        if k not in LIMIT_KEYS:
            raise err(f"unknown limit {k!r} (known: {', '.join(n for n in LIMIT_KEYS if n != 'env')})", k, "limits")
        try:
            attrs.evolve(Limits(), **{k: v})
        except (TypeError, ValueError) as e:
            raise err(f"bad value for {k}: {e}", k, "limits") from None
        if v is not None and isinstance(v, bool) != (fields[k].type in ("bool", bool)):
            raise err(f"bad value for {k}: {v!r}", k, "limits")
    if "env" in data:  # carried to the bots with the limits (Limits.env)
        given = data["env"]
        try:
            limits = {**limits, "env": env_pairs(given, "[env]")}
        except ValueError as e:
            bad = next((k for k in given if not _env_ok(k, given[k])), None) if isinstance(given, dict) else None
            raise (err(str(e), bad, "env") if bad is not None else err(str(e), "env")) from None
    rules = data.get("rules", {})
    if not isinstance(rules, dict):
        raise err("[rules] must be a table", "rules")
    scoring = _scoring(data.get("scoring", {}), err)
    trusted = data.get("trusted", False)
    if not isinstance(trusted, bool):
        raise err("trusted must be true or false", "trusted")
    journal = data.get("journal")
    book = data.get("openings")
    if book is not None and not (isinstance(book, str) and book.strip()):
        raise err("openings must be the path of a file of openings (relative to this file)", "openings")
    order = data.get("openings_order")
    if order is not None and order not in OPENINGS_ORDERS:
        raise err(f"openings_order must be one of {', '.join(map(repr, OPENINGS_ORDERS))}, got {order!r}",
                  "openings_order")
    if order is not None and book is None:
        raise err("openings_order without openings (the file of openings it orders)", "openings_order")
    return Challenge(
        path=p, game=data["game"], bots=tuple((p.parent / b) for b in bots), seed=seed, rounds=rounds,
        jobs=intkey("jobs", 1, MAX_JOBS), journal=(p.parent / journal) if journal else None, trusted=trusted,
        limits=limits, rules=rules, scoring=scoring, openings=(p.parent / book) if book else None,
        openings_order=order,
    )


def _scoring(given: Any, err: Callable[..., ChallengeError]) -> dict[str, Any]:
    """The ``[scoring]`` table checked: known keys, each value as :class:`kothkit.scoring.Scoring`
    takes it (numbers as numbers, ``mean`` true or false, names from its lists)."""
    from kothkit.scoring import TIEBREAKS, Counts, Scoring, Unit

    if not isinstance(given, dict):
        raise err("[scoring] must be a table", "scoring")
    for k, v in given.items():
        if k not in SCORING_KEYS:
            why = " (a leaver's points are the game's)" if k == "forfeit" else ""
            raise err(f"unknown [scoring] key {k!r}{why} (known: {', '.join(SCORING_KEYS)})", k, "scoring")
        number = isinstance(v, int | float) and not isinstance(v, bool)
        if k in ("win", "draw", "loss"):
            ok, want = number, "a number"
        elif k == "mean":
            ok, want = isinstance(v, bool), "true or false"
        elif k == "counts":
            ok, want = v in [c.value for c in Counts], f"one of {', '.join(repr(c.value) for c in Counts)}"
        elif k == "unit":
            ok, want = v in [u.value for u in Unit], f"one of {', '.join(repr(u.value) for u in Unit)}"
        elif k == "by_place":
            ok = isinstance(v, list) and all(isinstance(x, int | float) and not isinstance(x, bool) for x in v)
            want = "a list of numbers (points for first, second, ... place)"
        else:
            ok = isinstance(v, list) and all(isinstance(x, str) and x in TIEBREAKS for x in v)
            want = f"a list of {', '.join(repr(t) for t in TIEBREAKS)}"
        if not ok:
            raise err(f"bad [scoring] value {k} = {v!r}: must be {want}", k, "scoring")
    try:
        Scoring(**given)
    except (TypeError, ValueError) as e:
        raise err(f"bad [scoring]: {e}", "scoring") from None
    return dict(given)


def rules_place(ch: Challenge, key: str | None = None) -> str:
    """``FILE:LINE`` of ``key`` in the challenge's [rules] table (without ``key``: of the table)."""
    text = ch.path.read_text(encoding="utf-8", errors="replace")
    if key is None:
        m = re.search(r"^\s*\[rules\]\s*$", text, re.M)
        line = text.count("\n", 0, m.start()) + 1 if m else None
    else:
        line = _line(text, key, "rules")
    return f"{ch.path}:{line}" if line else str(ch.path)


def place(ch: Challenge, key: str) -> str:
    """``FILE:LINE`` of the top-level key ``key`` of the challenge's file (``FILE`` if not found)."""
    text = ch.path.read_text(encoding="utf-8", errors="replace")
    # (a top-level key comes before the first table)
    first = re.search(r"^\s*\[", text, re.M)
    line = _line(text[:first.start()] if first else text, key)
    return f"{ch.path}:{line}" if line else str(ch.path)


def check_rule_values(ch: Challenge, check: Callable[[dict[str, Any]], object]) -> None:
    """The challenge's [rules] values checked by ``check`` (the game's ``check_rules``), each alone
    first, so that a bad value is reported at its own line; then together (a setting that only
    another one makes wrong is reported at the [rules] table)."""
    for k, v in ch.rules.items():
        try:
            check({k: v})
        except (ValueError, TypeError, KeyError) as e:
            raise ChallengeError(f"{rules_place(ch, k)}: bad [rules] value {k} = {v!r}: {e}") from None
    try:
        check(dict(ch.rules))
    except (ValueError, TypeError, KeyError) as e:
        raise ChallengeError(f"{rules_place(ch)}: bad [rules] values: {e}") from None


def check_rules(ch: Challenge, known: dict[str, Any]) -> None:
    """Reject [rules] keys the game does not have."""
    for k in ch.rules:
        if k not in known:
            raise ChallengeError(f"{rules_place(ch, k)}: unknown rule {k!r} for {ch.game} "
                                 f"(known: {', '.join(known) or 'none'})")
