"""A live scoreboard: standings kept up to date one game at a time.

:class:`kothkit.scoring.Tally` counts results and works the standings out when
asked, in time that grows with the games (some 40,000 for 200 course bots).  The
host's Scoreboard is asked for after every game, so :class:`Board` keeps each
bot's wins, draws, losses and points as games come (for match scoring, each
pair's games too, re-scoring only that pair's match), and a ranking is a sort of
the bots by the Tally's own key (:func:`kothkit.scoring.rank_key`).  It counts exactly
as the Tally does (``tests/serve/test_scoreboard.py`` checks this on random results).
"""

from __future__ import annotations

from collections.abc import Mapping

from kothkit.scoring import Scoring, Standing, rank_key


class Board:
    def __init__(self, scoring: Scoring, bots: list[str]) -> None:
        self.scoring = scoring
        self.bots = list(bots)
        self._known = set(bots)
        zero = lambda: dict.fromkeys(self.bots, 0)  # noqa: E731
        self.wins, self.draws, self.losses = zero(), zero(), zero()
        self.points: dict[str, float] = dict.fromkeys(self.bots, 0.0)
        #: Matches won, drawn, lost per bot (match scoring).
        self.matches: dict[str, list[int]] = {b: [0, 0, 0] for b in self.bots}
        #: Per unordered pair (sorted): [games won by the first, by the second].
        self._pairs: dict[tuple[str, ...], list[int]] = {}
        #: (bot, opponent) -> (wins, draws, losses) of bot against opponent.
        self.cells: dict[tuple[str, str], tuple[int, int, int]] = {}

    def add(self, players: tuple[str, ...], winner: str | None) -> None:
        """One more game (one naming a bot not on the board is ignored, as the Tally does)."""
        if not self._known.issuperset(players):
            return
        s = self.scoring
        self._count(players, winner, +1)
        if len(players) == 2:
            a, b = players
            for me, other in ((a, b), (b, a)):
                w, d, lost = self.cells.get((me, other), (0, 0, 0))
                # Tuples, replaced (never changed in place): a copy of the dict is a snapshot.
                self.cells[(me, other)] = ((w, d + 1, lost) if winner is None else (w + 1, d, lost) if winner == me
                                           else (w, d, lost + 1))
        if s.unit == "match":
            pair = tuple(sorted(players))
            counts = self._pairs.get(pair)
            if counts is not None:
                self._score_match(pair, counts, -1)
            else:
                counts = self._pairs[pair] = [0] * len(pair)
            if winner is not None:
                counts[pair.index(winner)] += 1
            self._score_match(pair, counts, +1)

    def add_bot(self, bot: str) -> None:
        """A bot joins (with no games yet)."""
        if bot in self._known:
            return
        self.bots.append(bot)
        self._known.add(bot)
        self.wins[bot] = self.draws[bot] = self.losses[bot] = 0
        self.points[bot] = 0.0
        self.matches[bot] = [0, 0, 0]

    def remove_bot(self, bot: str) -> None:
        """A bot leaves; its games must have been removed first (:meth:`remove`)."""
        if bot not in self._known:
            return
        self.bots.remove(bot)
        self._known.discard(bot)
        for table in (self.wins, self.draws, self.losses, self.points, self.matches):
            del table[bot]

    def remove(self, players: tuple[str, ...], winner: str | None) -> None:
        """Take back one game given to :meth:`add` (a bot's games, when the bot changes or leaves)."""
        if not self._known.issuperset(players):
            return
        s = self.scoring
        self._count(players, winner, -1)
        if len(players) == 2:
            a, b = players
            for me, other in ((a, b), (b, a)):
                w, d, lost = self.cells[(me, other)]
                cell = (w, d - 1, lost) if winner is None else (w - 1, d, lost) if winner == me else (w, d, lost - 1)
                if cell == (0, 0, 0):
                    del self.cells[(me, other)]
                else:
                    self.cells[(me, other)] = cell
        if s.unit == "match":
            pair = tuple(sorted(players))
            counts = self._pairs[pair]
            self._score_match(pair, counts, -1)
            if winner is not None:
                counts[pair.index(winner)] -= 1
            if (pair[0], pair[-1]) in self.cells:  # games of the pair are left: their match counts
                self._score_match(pair, counts, +1)
            else:
                del self._pairs[pair]

    def _count(self, players: tuple[str, ...], winner: str | None, sign: int) -> None:
        """Each player's win, draw or loss of one game, and its points where games score, added
        (``sign`` 1) or taken back (-1)."""
        s = self.scoring
        for p in players:
            table = self.draws if winner is None else self.wins if p == winner else self.losses
            table[p] += sign
            if s.unit == "game":
                self.points[p] += sign * (s.draw if winner is None else s.win if p == winner else s.loss)

    def _score_match(self, pair: tuple[str, ...], counts: list[int], sign: int) -> None:
        """Add (``sign`` 1) or take back (-1) the match of ``pair`` as ``counts`` stand."""
        s = self.scoring
        a, b = pair[0], pair[-1]
        if counts[0] == counts[-1]:
            for p in (a, b):
                self.points[p] += sign * s.draw
                self.matches[p][1] += sign
        else:
            w, lost = (a, b) if counts[0] > counts[-1] else (b, a)
            self.points[w] += sign * s.win
            self.points[lost] += sign * s.loss
            self.matches[w][0] += sign
            self.matches[lost][2] += sign

    def games(self, bot: str) -> int:
        """Games counted of ``bot`` (0 for a bot not on the board)."""
        return self.wins.get(bot, 0) + self.draws.get(bot, 0) + self.losses.get(bot, 0)

    def standings(self, submitted: Mapping[str, str | None] | None = None) -> list[Standing]:
        """The bots ranked as :meth:`kothkit.scoring.Tally.standings` ranks them."""
        s = self.scoring
        rows = []
        for n in self.bots:
            w, d, lost = self.wins[n], self.draws[n], self.losses[n]
            p = self.points[n]
            if s.mean:
                p = p / (w + d + lost) if w + d + lost else 0.0
            if s.unit == "match":
                mw, md, ml = self.matches[n]
                rows.append(Standing(bot=n, points=p, wins=w, draws=d, losses=lost, match_wins=mw, match_draws=md,
                                     match_losses=ml))
            else:
                rows.append(Standing(bot=n, points=p, wins=w, draws=d, losses=lost))
        return sorted(rows, key=rank_key(s, submitted))
