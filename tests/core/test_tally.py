"""kothkit.scoring.Tally, the one scoring of ``kothkit run``, reports and the host's Scoreboard:
counted game by game (and taken back a game or a bot at a time) it ranks as the rules say, worked
out afresh from all the games, under every scoring shape the core knows; and ranks are numbered
from the game's own tie-breaks (kothkit.scoring.ranked)."""

from __future__ import annotations

from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from kothkit.scoring import Scoring, Standing, Tally, ranked

BOTS = ["a", "b", "c", "d"]
SCORINGS = [Scoring(), Scoring(unit="match", win=3, draw=1, loss=0, tiebreak=("wins", "name")),
            Scoring(win=1, draw=0, loss=-1, mean=True), Scoring(unit="match", tiebreak=("submitted", "name")),
            Scoring(tiebreak=("wins",))]

games = st.lists(st.tuples(st.sampled_from(BOTS + ["gone"]), st.sampled_from(BOTS), st.integers(0, 2)), max_size=40)


def afresh(scoring: Scoring, bots: list[str], played: list[tuple[str, str, str | None]],
           submitted: dict[str, str]) -> list[Standing]:
    """The standings as the rules say, from all the games at once (games naming another bot left out)."""
    wins: dict[str, int] = defaultdict(int)
    draws: dict[str, int] = defaultdict(int)
    losses: dict[str, int] = defaultdict(int)
    points: dict[str, float] = defaultdict(float)
    pairs: dict[tuple[str, str], dict[str | None, int]] = defaultdict(lambda: defaultdict(int))
    for a, b, winner in played:
        if a not in bots or b not in bots:
            continue
        for p in (a, b):
            (draws if winner is None else wins if p == winner else losses)[p] += 1
            if scoring.unit == "game":
                points[p] += scoring.draw if winner is None else scoring.win if p == winner else scoring.loss
        pairs[tuple(sorted((a, b)))][winner] += 1  # type: ignore[index]
    record = {b: [0, 0, 0] for b in bots}
    if scoring.unit == "match":
        for (a, b), won in pairs.items():
            if won[a] == won[b]:
                for p in (a, b):
                    points[p] += scoring.draw
                    record[p][1] += 1
            else:
                w, lost = (a, b) if won[a] > won[b] else (b, a)
                points[w] += scoring.win
                points[lost] += scoring.loss
                record[w][0] += 1
                record[lost][2] += 1
    rows = []
    for b in bots:
        n = wins[b] + draws[b] + losses[b]
        pts = (points[b] / n if n else 0.0) if scoring.mean else points[b]
        extra = {}
        if scoring.unit == "match":
            extra = dict(match_wins=record[b][0], match_draws=record[b][1], match_losses=record[b][2])
        rows.append(Standing(bot=b, points=pts, wins=wins[b], draws=draws[b], losses=losses[b], **extra))
    return ranked(scoring, rows, submitted)


@settings(max_examples=150, deadline=None)
@given(games=games, which=st.integers(0, len(SCORINGS) - 1))
def test_the_tally_ranks_as_the_rules_say_after_every_game(games, which):
    scoring = SCORINGS[which]
    submitted = {"b": "2024-01-02", "c": "2024-01-01"}
    tally = Tally(scoring, BOTS)
    played = []
    for a, b, outcome in games:
        if a == b:
            continue
        winner = (a, b, None)[outcome]
        played.append((a, b, winner))
        tally.add((a, b), winner)
        assert tally.standings(submitted) == afresh(scoring, BOTS, played, submitted)


def test_cells_count_each_side():
    tally = Tally(Scoring(), ["a", "b"])
    tally.add(("a", "b"), "a")
    tally.add(("b", "a"), None)
    assert tally.cells[("a", "b")] == (1, 1, 0) and tally.cells[("b", "a")] == (0, 1, 1)
    assert tally.games("a") == 2


def test_ranks_come_from_the_games_own_tie_breaks():
    """Level on points: a game whose tie-breaks end with the name ranks every bot apart (2 and 3,
    as connect4's does); one whose last tie-break is the wins shares the rank of bots level on
    those too, and skips the next."""
    rows = [Standing("x", 1.0, 1, 0, 1), Standing("b", 1.0, 1, 0, 1), Standing("a", 2.0, 2, 0, 0),
            Standing("c", 0.0, 0, 0, 2)]
    assert [(s.bot, s.rank) for s in ranked(Scoring(tiebreak=("name",)), rows)] == [
        ("a", 1), ("b", 2), ("x", 3), ("c", 4)]
    assert [(s.bot, s.rank) for s in ranked(Scoring(tiebreak=("wins",)), rows)] == [
        ("a", 1), ("b", 2), ("x", 2), ("c", 4)]
    # "submitted": the earlier date first, a bot without one after, and only the dates tell apart.
    dated = ranked(Scoring(tiebreak=("submitted",)), rows, {"x": "2024-01-01"})
    assert [(s.bot, s.rank) for s in dated] == [("a", 1), ("x", 2), ("b", 3), ("c", 4)]


@settings(max_examples=150, deadline=None)
@given(games=games, which=st.integers(0, len(SCORINGS) - 1), leaving=st.sampled_from(BOTS),
       data=st.data())
def test_games_and_bots_taken_back_leave_the_tally_as_if_never_added(games, which, leaving, data):
    """The host takes a replaced or removed bot's games back (Tally.remove, remove_bot) and adds a
    new bot (add_bot): the tally is then the one of the games left, under every scoring shape."""
    scoring = SCORINGS[which]
    played = [(a, b, (a, b, None)[outcome]) for a, b, outcome in games if a != b]
    tally = Tally(scoring, BOTS)
    for a, b, winner in played:
        tally.add((a, b), winner)
    back = data.draw(st.sets(st.integers(0, max(0, len(played) - 1)))) if played else set()
    back |= {i for i, (a, b, _) in enumerate(played) if leaving in (a, b)}
    for i in sorted(back):
        tally.remove(played[i][:2], played[i][2])
    tally.remove_bot(leaving)
    tally.add_bot("new")
    tally.add(("new", BOTS[0] if leaving != BOTS[0] else BOTS[1]), "new")
    left = [g for i, g in enumerate(played) if i not in back]
    kept = [b for b in BOTS if b != leaving] + ["new"]
    fresh = Tally(scoring, kept)
    for a, b, winner in left:
        fresh.add((a, b), winner)
    fresh.add(("new", BOTS[0] if leaving != BOTS[0] else BOTS[1]), "new")
    new = ("new", BOTS[0] if leaving != BOTS[0] else BOTS[1], "new")
    assert tally.standings() == fresh.standings() == afresh(scoring, kept, [*left, new], {})
    assert tally.cells == fresh.cells
    assert {b: tally.games(b) for b in kept} == {b: fresh.games(b) for b in kept}
