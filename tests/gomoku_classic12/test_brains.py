"""The bundled brains on their own: built by the core's build step, driven over a real pipe.

These pin what a brain must do whatever the judge: answer OK, answer TURN with
a free cell, stop at END, and stay legal on the "empty" opening, where the
four centre stones a brain assumes were never there.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kothkit.bots.folders import load_bots
from kothkit.bots.build import build

BUNDLED = Path(__file__).resolve().parents[2] / "plugins" / "gomoku_classic12" / "bots"
CENTRE = {(5, 5), (6, 6), (5, 6), (6, 5)}
BRAINS = ("template", "threat", "pywindow")


@pytest.fixture(scope="module")
def specs():
    loaded = load_bots([BUNDLED])
    assert loaded.errors == ()
    found = {b.name: b for b in loaded.bots}
    for b in found.values():
        _, err = build(b)
        assert err is None, err
    return found


def talk(spec, lines: list[str]) -> list[str]:
    """Send ``lines`` to a fresh process of the brain; its stdout lines once it exits (it must, after END)."""
    done = subprocess.run(list(spec.command), cwd=spec.path, input="".join(l + "\n" for l in lines),
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return [l for l in done.stdout.splitlines() if not l.startswith("DEBUG")]


def cell(line: str) -> tuple[int, int]:
    r, c = map(int, line.split())
    return r, c


@pytest.mark.parametrize("name", BRAINS)
def test_a_short_game_as_black_and_as_white(specs, name):
    out = talk(specs[name], ["START 1", "TURN", "PLACE 0 0", "TURN", "END 0"])
    assert out[0] == "OK" and len(out) == 3
    first, second = cell(out[1]), cell(out[2])
    assert first != second and not {first, second} & (CENTRE | {(0, 0)})
    assert all(0 <= v < 12 for v in (*first, *second))

    out = talk(specs[name], ["START 2", "PLACE 4 4", "TURN", "END 2"])
    assert out[0] == "OK" and cell(out[1]) not in CENTRE | {(4, 4)}


@pytest.mark.parametrize("name", BRAINS)
def test_blocks_a_four(specs, name):
    # A position given as PLACE lines (a brain just records them): black has four on row 0.
    out = talk(specs[name], ["START 2", "PLACE 0 1", "PLACE 0 2", "PLACE 0 3", "PLACE 0 4", "TURN", "END 2"])
    assert out[0] == "OK" and cell(out[1]) in {(0, 0), (0, 5)}


@pytest.mark.parametrize("name", BRAINS)
def test_plays_an_assumed_centre_cell_when_nothing_else_is_free(specs, name):
    # The "empty" opening: every other cell fills up while the centre four stay empty.
    places = [f"PLACE {r} {c}" for r in range(12) for c in range(12) if (r, c) not in CENTRE]
    out = talk(specs[name], ["START 2", *places, "TURN", "END 0"])
    assert out[0] == "OK" and cell(out[1]) in CENTRE


@pytest.mark.parametrize("name", BRAINS)
def test_stops_at_an_end_that_comes_before_any_move(specs, name):
    # END can come at any moment, e.g. when the opponent failed its START.
    assert talk(specs[name], ["START 1", "END 1"]) == ["OK"]
