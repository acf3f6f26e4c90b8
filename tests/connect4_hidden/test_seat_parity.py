"""Parity of the referee's seats: the same tasks, played through every kind of seat (a program, a
function bot in its isolated host, a function bot in this process, a person's replies) and with and
without someone watching (on_event and boards), end the same way move for move.

The players are real: the bundled deducer (a deterministic blindfold bot), a leftmost-column bot and
a bot that plays an illegal column on its fourth move, each once as a Python function and once as a
program bot that reads the same prompts as JSON lines and calls the same function.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import attrs
import pytest

from kothkit.bots.folders import load_bots
from kothkit.bots.functions import FunctionBot
from kothkit.playing.referee import play_game
from kothkit.plugins import get_game
from kothkit.store.records import GameTask

ROOT = Path(__file__).resolve().parents[2]
DEDUCER = ROOT / "plugins" / "connect4_hidden" / "bots" / "deducer" / "bot.py"

SIMPLE = '''
def leftmost(view, turn, state):
    top = view[-1]
    return next(j for j in range(7) if top[j] == 0), state


def wild(view, turn, state):
    # Column 7 does not exist: an illegal move on its fourth reply.
    return (7 if turn >= 6 else (turn * 3) % 7), state
'''

# A program bot that answers each JSON prompt line with what FUNC returns.
PROGRAM = '''
import json, sys
from {module} import {func} as play

state = None
for line in sys.stdin:
    prompt = json.loads(line)
    reply, state = play(prompt["view"], prompt["turn"], state)
    print(reply, flush=True)
'''

BOTS = {"deducer": ("deducer.py", "deducer"), "leftmost": ("simple.py", "leftmost"), "wild": ("simple.py", "wild")}
PAIRS = [("deducer", "leftmost"), ("leftmost", "deducer"), ("deducer", "wild"), ("wild", "leftmost")]
KINDS = ["program", "host", "function", "person"]


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    """For each bot: a folder holding its function's file and a program bot around it."""
    out = {}
    base = tmp_path_factory.mktemp("parity")
    for name, (file, func) in BOTS.items():
        folder = base / name
        folder.mkdir()
        if file == "deducer.py":
            shutil.copy(DEDUCER, folder / file)
        else:
            (folder / file).write_text(SIMPLE)
        (folder / "program.py").write_text(PROGRAM.format(module=file[:-3], func=func))
        out[name] = folder
    return out


def _specs(folders, kind, pair):
    if kind == "program":
        found = []
        for name in pair:
            folder = folders[name]
            (folder / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "program.py"]\n')
            found += load_bots([str(folder)]).bots
            (folder / "bot.toml").unlink()
        return found
    return load_bots([f"{folders[n] / BOTS[n][0]}:{BOTS[n][1]}" for n in pair]).bots


def _play(folders, kind, pair, seed, watched, budget):
    info = get_game("connect4_hidden")
    players = tuple(_specs(folders, kind, pair))
    assert [b.name for b in players] == list(pair) or kind != "program"
    limits = attrs.evolve(info.limits, game_time=30.0) if budget else info.limits
    task = GameTask(id=f"parity-{kind}-{seed}", game=info.name, players=players, seed=seed, limits=limits,
                    trusted=kind in ("function", "person"))
    people = None
    if kind == "person":
        bots = [FunctionBot(spec) for spec in players]
        for bot in bots:
            bot.new_game(0)
        people = {i: (lambda match, prompt, bot=bot: bot.call(prompt.payload)) for i, bot in enumerate(bots)}
    events: list[str] = []
    on_event = (lambda kind_, seat, text, ms: events.append(kind_)) if watched else None
    rec = play_game(task, info=info, on_event=on_event, boards=watched, people=people)
    if watched:
        assert events.count("reply") == len(rec.moves) and events.count("board") >= len(rec.moves) - 1
    seat_of = {b.name: i for i, b in enumerate(players)}
    return (rec.winner and seat_of[rec.winner], rec.reason, rec.offender and seat_of[rec.offender], rec.verdict,
            [(m.seat, str(m.reply)) for m in rec.moves])


@pytest.mark.parametrize("pair", PAIRS, ids="-".join)
def test_every_seat_kind_and_observer_setting_plays_the_same_game(folders, pair):
    results = {}
    for kind in KINDS:
        for watched in (False, True):
            # A game time budget takes the loop's other branch (each move's allowance computed).
            results[kind, watched] = _play(folders, kind, pair, seed=3, watched=watched, budget=watched)
    first = results["function", False]
    assert len(first[4]) >= 7, first  # a real game, not a start-up failure
    for key, result in results.items():
        assert result == first, (key, result, first)
    if "wild" in pair:
        assert first[3] == "illegal-move" and first[2] == pair.index("wild")
