"""Openings for matches, as fastchess and c-gomoku-cli play them: each game pair starts from one
opening, played once from each seat, so that the pentanomial and the SPRT count a pair of games
from the same position rather than copies of one game between deterministic bots.

A game takes openings if it names the rules setting an opening goes into
(``GameInfo.opening_rule``, e.g. gomocup's ``position``).  The openings come from a file
(``--openings FILE``, or a challenge file's ``openings = "FILE"``): one opening a line in the
game's own format (``#`` starts a comment line), or a Piskvork ``.psq`` file (its stones: one
opening).  Without a file, a match of a game that draws openings from a seed
(``GameInfo.random_opening``) gets a fresh one for each pair, from the match's seed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from kothkit.game import GameInfo
from kothkit.playing.challenge import OPENINGS_ORDERS, Challenge, place
from kothkit.playing.seeding import derive

ORDERS = OPENINGS_ORDERS
#: The key of a match run's rules settings that holds its openings ({"texts": [...], "order": ...}):
#: in the run's settings, so in its games' ids, and read back by replays and ``kothkit verify``,
#: which find a game's opening from it and the game's slot (:func:`game_rules`).  A game never sees it.
KEY = "kothkit:openings"
#: The most openings a file may give (and its largest size, in bytes).
MAX_OPENINGS = 100_000
MAX_BYTES = 16 << 20


class OpeningsError(ValueError):
    """A file of openings that cannot be used; the message names the file and line."""


@attrs.frozen
class Openings:
    """The openings of a match, and the order its pairs take them in."""

    texts: tuple[str, ...]
    order: str = "sequential"
    #: Where they came from, for messages ("FILE", or "drawn from the seed").
    source: str = ""

    def for_pair(self, seed: int, k: int) -> str:
        """The opening of game pair ``k``: the file's in order (again from the start once all are
        played), or in an order shuffled by ``seed``."""
        n = len(self.texts)
        if self.order == "sequential":
            return self.texts[k % n]
        turn, at = divmod(k, n)
        order = list(range(n))
        random.Random(derive(seed, "openings", turn)).shuffle(order)
        return self.texts[order[at]]


def _psq(text: str) -> str:
    """The stones of a Piskvork .psq file as ``x,y x,y ...`` (0-based)."""
    cells = [f"{int(m.group(1)) - 1},{int(m.group(2)) - 1}"
             for m in re.finditer(r"^\s*(\d{1,4}),(\d{1,4}),-?\d+\s*$", text, re.MULTILINE)]
    return " ".join(cells)


def load(path: Path, info: GameInfo, rules: Mapping[str, Any], order: str = "sequential") -> Openings:
    """The openings of the file ``path`` for ``info``'s game, each checked by the game's rules."""
    if info.opening_rule is None:
        raise OpeningsError(f"{info.name} takes no openings (its GameInfo names no opening_rule)")
    if order not in ORDERS:
        raise OpeningsError(f"--openings-order: one of {', '.join(ORDERS)}, got {order!r}")
    try:
        if path.stat().st_size > MAX_BYTES:
            raise OpeningsError(f"{path}: larger than {MAX_BYTES >> 20} MiB")
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise OpeningsError(f"{path}: cannot read it ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise OpeningsError(f"{path}: not UTF-8 text (byte {e.start})") from None
    if text.lstrip().startswith("Piskvorky"):
        lines = [(1, _psq(text))]
    else:
        lines = [(i, line.strip()) for i, line in enumerate(text.splitlines(), 1)
                 if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise OpeningsError(f"{path}: no openings in it")
    if len(lines) > MAX_OPENINGS:
        raise OpeningsError(f"{path}: more than {MAX_OPENINGS} openings")
    for i, opening in lines:
        try:
            info.check_rules({**rules, info.opening_rule: opening})
        except (ValueError, TypeError) as e:
            raise OpeningsError(f"{path}, line {i}: {e}") from None
    return Openings(tuple(o for _, o in lines), order, str(path))


def drawn(info: GameInfo, rules: Mapping[str, Any]) -> Openings | None:
    """For a game that draws openings from a seed and takes them under ``rules`` (gomocup's Swap2
    takes none): openings drawn per pair; else None."""
    if info.opening_rule is None or info.random_opening is None:
        return None
    try:
        info.check_rules({**rules, info.opening_rule: info.random_opening(0, rules)})
    except (ValueError, TypeError):
        return None
    return Openings((), "seed", "drawn from the seed")


def of_challenge(info: GameInfo, ch: Challenge | None, rules: Mapping[str, Any]) -> Openings | None:
    """The openings the challenge file ``ch`` names (``openings``, ``openings_order``), checked by
    ``info``'s game under ``rules`` (the run's); None if it names none.  An OpeningsError names the
    challenge file and its line, and the book's file and line when the book is wrong."""
    if ch is None or ch.openings is None:
        return None
    try:
        return load(ch.openings, info, rules, ch.openings_order or "sequential")
    except OpeningsError as e:
        raise OpeningsError(f"{place(ch, 'openings')}: openings: {e}") from None


def chosen(info: GameInfo, rules: Mapping[str, Any], ch: Challenge | None, path: str | None,
           order: str | None, *, drawn_default: bool) -> Openings | None:
    """The openings of a command: ``path`` (``--openings``; "none": none) in ``order``
    (``--openings-order``), else the challenge's (in ``order`` if given, else its own), else, with
    ``drawn_default`` (a match), those drawn from the seed for a game that draws them."""
    if order is not None and order not in ORDERS:
        raise OpeningsError(f"--openings-order: one of {', '.join(ORDERS)}, got {order!r}")
    if path == "none":
        return None
    if path is not None:
        try:
            return load(Path(path), info, rules, order or "sequential")
        except OpeningsError as e:
            raise OpeningsError(f"--openings: {e}") from None
    book = of_challenge(info, ch, rules)
    if book is not None:
        return book if order is None else attrs.evolve(book, order=order)
    return drawn(info, rules) if drawn_default else None


def opening_of(openings: Openings, info: GameInfo, seed: int, k: int, rules: Mapping[str, Any]) -> str:
    """Game pair ``k``'s opening (``rules``: the match's rules settings)."""
    if openings.order == "seed":
        assert info.random_opening is not None  # (drawn() made these)
        return info.random_opening(derive(seed, "opening", k), rules)
    return openings.for_pair(seed, k)


def repeats(pairs: Sequence[tuple[object, ...]]) -> int:
    """How many of ``pairs`` (each a pair's games' moves, comparable) repeat an earlier one."""
    seen: set[tuple[object, ...]] = set()
    count = 0
    for p in pairs:
        if p in seen:
            count += 1
        seen.add(p)
    return count


def as_setting(openings: Openings) -> dict[str, Any]:
    """The openings as the run's rules keep them (under :data:`KEY`)."""
    return {"texts": list(openings.texts), "order": openings.order}


def game_rules(info: GameInfo, rules: Mapping[str, Any], seed: int, slot: int | None) -> dict[str, Any]:
    """The rules a game of a run played under: ``rules`` (the run's) with its openings (if any)
    resolved to the opening of the game's pair (slot ``slot`` of the seed ``seed``)."""
    out = dict(rules)
    book = out.pop(KEY, None)
    if book is None or info.opening_rule is None or slot is None or not isinstance(book, dict):
        return out
    openings = Openings(tuple(book.get("texts") or ()), str(book.get("order")))
    out[info.opening_rule] = opening_of(openings, info, seed, slot // 2, out)
    return out
