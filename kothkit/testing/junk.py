"""Malformed replies: what the conformance kit throws at ``Match.play`` to prove it never raises.

Three tiers, because not every game can receive every kind of value:

* :data:`JUNK_TEXT` -- lines a program bot could write (every game gets them);
* :data:`JUNK_VALUES` -- plain Python values a function bot could return
  through the isolated function host (JSON: None, numbers, lists, dicts);
* :func:`hostile_values` -- objects only an in-process (``--trusted``)
  function bot could return, whose ``repr``, ``==`` or ``__index__`` raise.

None of these is a sensible move in any game, so a game should reject each
with a :class:`kothkit.game.Rejected`; the kit also accepts a reply the game
itself lists in ``legal_replies()`` (an ``int`` column is a move in Connect-4).
"""

from __future__ import annotations

from typing import Any

JUNK_TEXT: tuple[str, ...] = (
    "",
    " ",
    "\t \t",
    "\n",
    "\r",
    "\x00",
    "\ufffd\ufffd",  # what undecodable bytes become after decoding with replacement
    "garbage",
    "None",
    "null",
    "[]",
    "{}",
    "()",
    "(",
    ")(",
    "(((((((((((((((((((((",
    "-",
    "+",
    "--1",
    "0x10",
    "1e3",
    "1_000",
    "3.5",
    "nan",
    "inf",
    "-99999999999999999999999999999999",
    "9" * 5000,  # longer than int()'s 4300-digit limit
    "1 " * 2000,
    "x" * 65536,  # the core's default max_line
    "é",
    "日本語",
    "🤖",
    "\u0663",  # ARABIC-INDIC DIGIT THREE: int() accepts it, a strict parser should not
    "\uff17 \uff17",  # FULLWIDTH DIGIT SEVEN, twice
    "\u202e7 7",  # right-to-left override
    "DEBUG not an aside here",
    "EXIT",
    "\\n",
    "'; DROP TABLE games; --",
)

JUNK_VALUES: tuple[Any, ...] = (
    None,
    True,
    False,
    -1,
    10**100,
    -(2**63),
    3.5,
    float("nan"),
    float("inf"),
    b"bytes",
    [],
    [[]],
    [1, [2, [3]]],
    [None, None],
    {},
    {"move": 1},
    (),
    ((),),
    [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],
    "",
)


class _Hostile:
    """An object a buggy or malicious in-process bot could return: everything about it raises."""

    def __init__(self, what: str) -> None:
        self._what = what

    def __repr__(self) -> str:
        raise RuntimeError(f"{self._what}: repr refused")

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        raise RuntimeError(f"{self._what}: == refused")

    __hash__ = None  # type: ignore[assignment]

    def __index__(self) -> int:
        raise RuntimeError(f"{self._what}: __index__ refused")

    def __int__(self) -> int:
        raise RuntimeError(f"{self._what}: int() refused")

    def __len__(self) -> int:
        raise RuntimeError(f"{self._what}: len() refused")

    def __iter__(self):
        raise RuntimeError(f"{self._what}: iteration refused")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise RuntimeError(f"{self._what}: attribute {name!r} refused")


class _WeirdInt(int):
    """An int subclass that lies: a trusted bot may return numpy-like scalars or stranger things."""

    def __index__(self) -> int:
        raise RuntimeError("weird int: __index__ refused")

    def __repr__(self) -> str:
        raise RuntimeError("weird int: repr refused")


class _WeirdStr(str):
    def strip(self, *args: Any) -> str:
        raise RuntimeError("weird str: strip refused")

    def __repr__(self) -> str:
        raise RuntimeError("weird str: repr refused")


def hostile_values() -> tuple[Any, ...]:
    """Fresh hostile objects (for games whose function bots may run in the judge's process)."""
    return (_Hostile("hostile object"), _WeirdInt(-5), _WeirdStr("junk"), object(), type, print)


def describe(reply: Any, limit: int = 60) -> str:
    """A short, printable description of a junk reply (never raises)."""
    try:
        text = repr(reply)
    except Exception:
        text = f"<{type(reply).__name__} whose repr raises>"
    return text if len(text) <= limit else text[: limit - 3] + "..."
