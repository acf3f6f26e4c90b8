"""Registers the gomoku_swap2 game with kothkit (entry point group ``kothkit``)."""

from pathlib import Path

from kothkit import hookimpl
from kothkit.game import GameInfo, Setup
from kothkit.limits import Limits
from kothkit.scoring import Scoring

from kothkit_gomoku_swap2.match import Swap2Match


def bot_args(setup: Setup, seat: int, bot_seed: int) -> list[str]:
    # The seed's judge: argv[1] is the opponent's name, argv[2] the bot's seed.
    return [setup.players[1 - seat], str(bot_seed)]


INFO = GameInfo(
    name="gomoku_swap2",
    summary="Gomoku on 15x15 with the Swap2 opening (Code Golf KoTH, 2018); five or more in a row wins",
    match=Swap2Match,
    # The seed only advises "below 500 ms"; the default is generous, hosts set --move-time.
    limits=Limits(move_time=5.0, grace=0.5),
    scoring=Scoring(unit="game", win=2, draw=1, loss=0, tiebreak=("submitted", "name")),
    bots=Path(__file__).parent / "bots",
    # The pages' translations of its summary, reasons and boards' titles (kothkit.messages).
    catalogs=Path(__file__).parent / "locale",
    bot_args=bot_args,
    # "EXIT TIE" ends a drawn game: a bot named TIE would make every draw read as its win.
    reserved_names=frozenset({"TIE"}),
    exporters={"psq": "kothkit_gomoku_swap2.views:psq", "sgf": "kothkit_gomoku_swap2.views:sgf"},
)


@hookimpl
def kothkit_games():
    return [INFO]
