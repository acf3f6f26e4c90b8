"""``kothkit debug`` of a challenge that names openings starts its game from one, as ``run``'s game
of that round does: the first of the book by default, ``--opening N`` the N-th, ``--openings`` and
``--openings-order`` as run's.  Real engines (the probe), the whole transcript read."""

from __future__ import annotations

import re

from tests.gomocup.test_challenge_openings import booked


def challenge(arena) -> str:
    """A challenge folder ``c`` of the engines alpha and beta, its book beside its file (BOOK)."""
    arena.engine("alpha")
    arena.engine("beta", "crlf")
    top = booked(arena)
    (arena.root / "c" / "kothkit.toml").write_text(
        f'game = "gomocup"\nbots = ["../bots"]\nseed = 3\n{top}[limits]\nmove_time = 5.0\n[rules]\nsize = 15\n')
    return str(arena.root / "c")


def board_sent(out: str) -> list[str]:
    """The stones of the first BOARD the judge sent (Piskvork: x,y,who), in order."""
    lines = out.splitlines()
    at = next(i for i, l in enumerate(lines) if re.fullmatch(r"judge -> \w+: BOARD", l))
    stones = []
    for l in lines[at + 1:]:
        m = re.fullmatch(r"judge -> \w+: (\d+,\d+),\d", l)
        if m is None:
            break
        stones.append(m.group(1))
    return stones


def test_debug_starts_from_the_challenge_s_opening(arena):
    c = challenge(arena)
    bots = arena.root / "bots"
    out = arena.kothkit("debug", c, str(bots / "alpha"), "--against", str(bots / "beta"), "--no-boards",
                        ok=False).stdout
    assert re.search(r"openings: 2 \(.*book.txt, sequential\)\n", out), out
    assert "opening 1: 7,7 8,8 6,6" in out
    assert board_sent(out) == ["7,7", "8,8", "6,6"]  # its first mover sees the opening's stones
    assert "result: " in out

    # The second opening (round 2 of run's), from the other seat too; the book's order over the file's.
    out = arena.kothkit("debug", c, str(bots / "alpha"), "--against", str(bots / "beta"), "--no-boards",
                        "--opening", "2", "--second", ok=False).stdout
    assert "opening 2: 7,7 7,8 9,9" in out and board_sent(out) == ["7,7", "7,8", "9,9"]
    out = arena.kothkit("debug", c, str(bots / "alpha"), "--against", str(bots / "beta"), "--no-boards",
                        "--openings-order", "random", "--seed", "5", ok=False).stdout
    assert re.search(r"openings: 2 \(.*book.txt, random\)", out)
    assert re.search(r"opening 1: (7,7 8,8 6,6|7,7 7,8 9,9)\n", out)

    # --openings none: the empty board; --opening then has nothing to choose from.
    out = arena.kothkit("debug", c, str(bots / "alpha"), "--against", str(bots / "beta"), "--no-boards",
                        "--openings", "none", ok=False).stdout
    assert not re.search(r"^openings?\b", out, re.M) and "judge -> alpha: BEGIN" in out, out
    bad = arena.kothkit("debug", c, str(bots / "alpha"), "--openings", "none", "--opening", "2", ok=False)
    assert bad.returncode != 0 and "--opening 2: this game has no openings here" in bad.stderr
