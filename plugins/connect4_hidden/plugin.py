"""Registers the connect4_hidden game with kothkit (entry point group ``kothkit``)."""

from pathlib import Path

from kothkit import hookimpl
from kothkit.game import GameInfo
from kothkit.limits import Limits
from kothkit.scoring import Scoring

from kothkit_connect4_hidden.match import Connect4Match
from kothkit_connect4_hidden.table import seed_table

INFO = GameInfo(
    name="connect4_hidden",
    summary="Blindfold Connect-4: the opponent's stones are hidden in every other row; Python function bots",
    match=Connect4Match,
    # The seed asks bots to think about 1 s per turn.
    limits=Limits(move_time=1.0, grace=0.1),
    # The seed's scoring: +1/0/-1 per game, a bot's score is its mean.
    scoring=Scoring(unit="game", win=1, draw=0, loss=-1, mean=True, tiebreak=("name",)),
    bots=Path(__file__).parent / "bots",
    # The pages' translations of its summary, reasons and boards' titles (kothkit.messages).
    catalogs=Path(__file__).parent / "locale",
    function_bots=True,
    # The seed plays 10,000 rounds and prints its own table.
    rounds=10000,
    report=seed_table,
)


@hookimpl
def kothkit_games():
    return [INFO]
