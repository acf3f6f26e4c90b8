"""Registers the gomocup game with kothkit (entry point group ``kothkit``).

Gomocup's engines (Rapfi, AIWine, Carbon, Embryo, ...) play unchanged: the Piskvork protocol
(:mod:`kothkit_gomocup.match`), its MESSAGE and DEBUG lines taken as logs whatever their case, its
lines ended by CR, LF or CR LF.  The defaults are a Gomocup freestyle tournament's: 5 s a move,
180 s a game, 350 MB, 1 s of tolerance (Piskvork's and c-gomoku-cli's), 5 s to start up (never
charged to the game's time); pondering off (a waiting engine is frozen, as Piskvork suspends it).
"""

from pathlib import Path

from kothkit import hookimpl
from kothkit.game import GameInfo
from kothkit.limits import Limits
from kothkit.scoring import Scoring

from .match import GomocupMatch, random_opening

INFO = GameInfo(
    name="gomocup",
    summary="Gomocup's Gomoku (15x15 or 20x20; freestyle, exactly five, renju; Swap2): engines over "
            "the Piskvork protocol",
    match=GomocupMatch,
    limits=Limits(move_time=5.0, game_time=180.0, memory_mb=350, tolerance=1.0, startup_time=5.0, grace=1.0),
    scoring=Scoring(unit="game", win=1, draw=0.5, loss=0),
    bots=Path(__file__).parent / "bots",
    seats=2,
    aside_prefixes=("MESSAGE", "DEBUG"),
    any_line_end=True,
    pondering=False,
    exporters={"psq": "kothkit_gomocup.views:psq", "sgf": "kothkit_gomocup.views:sgf"},
    # kothkit match --openings FILE: each line "x,y x,y ..." (or a .psq); without one, drawn per pair.
    opening_rule="position",
    random_opening=random_opening,
)


@hookimpl
def kothkit_games():
    return [INFO]
