"""Lowest unique bid, the game itself: its rules settings and who wins a round.

Every seat in play bids a whole number from 1 to ``max_bid`` at once; the seat whose bid nobody
else made, and is the lowest such, takes the round's point.  When every bid is shared, nobody
scores.  Plain data and pure functions: the match keeps the state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from kothkit.game import Rule, integer

#: The defaults a challenge file may change under [rules].
ROUNDS = 10
MAX_BID = 10
#: Seats at one game's table: fewest and most.
SEATS = (3, 10)

RULES = {
    "rounds": Rule(ROUNDS, integer(1, 1000), "rounds in a game: each round every seat bids once"),
    "max_bid": Rule(MAX_BID, integer(1, 1000), "the highest bid allowed (bids are 1 to max_bid)"),
}

#: A seat's bid in a round it made none (it was out of the game): 0, below every real bid.
NO_BID = 0


def round_winner(bids: Sequence[int]) -> int | None:
    """The seat of the lowest bid nobody else made, or None when every bid is shared (or none was
    made).  ``bids`` in seat order; :data:`NO_BID` for a seat that did not bid."""
    counts = Counter(b for b in bids if b != NO_BID)
    unique = [b for b, n in counts.items() if n == 1]
    if not unique:
        return None
    return list(bids).index(min(unique))
