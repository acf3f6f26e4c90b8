"""Registers the mnk game with kothkit, with the scripted situations ``kothkit check`` puts bots in."""

from __future__ import annotations

from pathlib import Path

from kothkit import hookimpl
from kothkit.game import GameInfo, Setup
from kothkit.limits import Limits
from kothkit.scoring import Scoring
from kothkit.scenarios import Scenario

from kothkit_mnk.match import MnkMatch
from kothkit_mnk.rules import DEFAULT_RULES


def bot_args(setup: Setup, seat: int, bot_seed: int) -> list[str]:
    # A program bot's only argument is its own seed, for reproducible random play.
    return [str(bot_seed)]


INFO = GameInfo(
    name="mnk",
    summary="The m,n,k-game: k in a row on an m x n board (default 3,3,3: tic-tac-toe)",
    match=MnkMatch,
    limits=Limits(move_time=1.0, grace=0.2),
    rules=dict(DEFAULT_RULES),
    scoring=Scoring(unit="game", win=1, draw=0.5, loss=0),
    bots=Path(__file__).parent / "bots",
    bot_args=bot_args,
    scenarios=[
        Scenario("X opens", "You play X on an empty board: answer TURN with ROW COL.", seat=0, bot_replies=1),
        Scenario("O answers a corner", "You play O after X took the top left corner.", seat=1, script=("0 0",),
                 bot_replies=1),
        Scenario("a full game on 4x4, 3 in a row", "Other rules: a 4x4 board where three in a row wins.",
                 seat=1, rules={"m": 4, "n": 4, "k": 3}),
    ],
)


@hookimpl
def kothkit_games():
    return [INFO]

