"""Registers the gomoku_classic12 game with kothkit (entry point group ``kothkit``).

The defaults are the course judge's: 2 s per move, 1 s for START -> OK, 90 s
of a brain's own time per game, 350 MB of memory; a match is all games of one
pair, and winning more of them is worth 3 points (a drawn match 1).
"""

from pathlib import Path

from kothkit import hookimpl
from kothkit.game import GameInfo
from kothkit.limits import Limits
from kothkit.scoring import Scoring

from .match import ClassicMatch

INFO = GameInfo(
    name="gomoku_classic12",
    summary="The course's 12x12 Gomoku (five or more wins), persistent C/C++ brains over START/PLACE/TURN/END",
    match=ClassicMatch,
    limits=Limits(move_time=2.0, first_reply_time=1.0, game_time=90.0, memory_mb=350, grace=0.5),
    scoring=Scoring(unit="match", win=3, draw=1, loss=0, tiebreak=("wins", "name")),
    bots=Path(__file__).parent / "bots",
    # The pages' translations of its summary, reasons and boards' titles (kothkit.messages).
    catalogs=Path(__file__).parent / "locale",
    bot_args=None,
    function_bots=False,
    seats=2,
    aside_prefix="DEBUG",
    pondering=True,  # the course's rules bind each brain to a core of its own and let it think on
    exporters={"psq": "kothkit_gomoku_classic12.views:psq", "sgf": "kothkit_gomoku_classic12.views:sgf"},
)


@hookimpl
def kothkit_games():
    return [INFO]
