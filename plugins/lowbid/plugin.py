"""Registers the lowbid game with kothkit (entry point group ``kothkit``)."""

from pathlib import Path

from kothkit import hookimpl
from kothkit.game import GameInfo, Setup
from kothkit.limits import Limits
from kothkit.scenarios import Scenario
from kothkit.scoring import Scoring

from kothkit_lowbid.match import LowBidMatch
from kothkit_lowbid.rules import SEATS


def bot_args(setup: Setup, seat: int, bot_seed: int) -> list[str]:
    # argv[1]: the bot's seed, for all its randomness (so that a tournament replays exactly).
    return [str(bot_seed)]


INFO = GameInfo(
    name="lowbid",
    summary="Lowest unique bid: 3 to 10 bots bid at once each round; the lowest bid nobody else made scores",
    match=LowBidMatch,
    seats=SEATS,
    # A bid is a small decision: a second is plenty, and a round costs its slowest reply.
    limits=Limits(move_time=1.0, grace=0.2),
    # A bot's score is its mean points (rounds won) per game, shown with its error.
    scoring=Scoring(unit="game", counts="points", mean=True),
    bots=Path(__file__).parent / "bots",
    bot_args=bot_args,
    function_bots=True,
    draws=True,
    # What `kothkit check` puts a bot in (at a table of three, the other seats scripted).
    scenarios=[
        Scenario("first bid", "Round 1 at a table of three, you in seat 1: answer BID 1 10 10 1 0 0 0 with one "
                 "bid from 1 to 10.", seat=1, bot_replies=1),
        Scenario("last round's bids", "Round 2, after seats 1 and 2 both bid 1: the prompt shows every seat's bid "
                 "of round 1 (yours first); answer with one bid.", seat=0, script=("1", "1"), bot_replies=2),
        Scenario("another max bid", "The rules allow bids from 1 to 3 only: read MAX_BID from the prompt.", seat=2,
                 rules={"max_bid": 3, "rounds": 3}),
    ],
)


@hookimpl
def kothkit_games():
    return [INFO]
