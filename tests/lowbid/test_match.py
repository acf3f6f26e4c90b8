"""lowbid as a pure state machine: rounds of simultaneous bids, their scoring, the points at the end,
seats that leave, what each seat sees, and the wire lines; driven by hand through next() and play()."""

from __future__ import annotations

import pytest

from kothkit.game import Outcome, Rejected, Round, Setup, Verdict
from kothkit.people import Svg

from kothkit_lowbid import codec
from kothkit_lowbid.match import LowBidMatch
from kothkit_lowbid.plugin import INFO
from kothkit_lowbid.rules import round_winner


def new(seats: int = 3, **rules) -> LowBidMatch:
    return LowBidMatch(Setup(players=tuple(f"bot{i}" for i in range(seats)), seed=1, rules=rules))


def bid_round(m: LowBidMatch, *bids: int | None) -> None:
    """Every seat in play bids (None: skip a seat that is out), in seat order, as the referee hands them."""
    for seat, bid in enumerate(bids):
        if bid is not None:
            assert m.play(seat, str(bid)) is None


@pytest.mark.parametrize(("bids", "winner"), [
    ((1, 1, 2), 2), ((1, 1, 1), None), ((3, 2, 5), 1), ((2, 2, 3, 3), None), ((0, 4, 0, 4, 5), 4), ((0, 0, 0), None),
])
def test_the_lowest_unique_bid_wins_the_round(bids, winner):
    assert round_winner(bids) == winner


def test_a_round_asks_every_seat_at_once_and_hides_the_bids_made():
    m = new(3)
    step = m.next()
    assert isinstance(step, Round) and step.seats == (0, 1, 2)
    assert [p.payload for p in step.prompts] == [(1, 10, 10, s, (0, 0, 0)) for s in range(3)]
    assert m.next() == step  # idempotent
    assert m.play(0, "4") is None
    after = m.next()
    assert after.seats == (1, 2) and after.prompts == step.prompts[1:]  # seat 0's bid shows nowhere
    assert m.hidden_from(1) == {(0, 4)} and m.hidden_from(0) == set()
    assert all(not m.reveals(p.seat, p.payload, m.hidden_from(p.seat)) for p in after.prompts)
    no = m.play(0, "2")  # one bid a round
    assert isinstance(no, Rejected) and no.verdict == Verdict.ILLEGAL_MOVE
    assert m.play(1, "4") is None and m.play(2, "7") is None
    assert m.points == [0, 0, 1] and m.history == [(4, 4, 7)]
    second = m.next()
    assert [p.payload for p in second.prompts] == [(2, 10, 10, s, (4, 4, 7)) for s in range(3)]
    assert codec.encode(second.prompts[1].payload) == "BID 2 10 10 1 4 4 7"


def test_reveals_finds_a_prompt_that_would_show_the_round_under_way():
    m = new(3)
    bid_round(m, 1, 2, 3)
    assert m.play(0, "5") is None
    hidden = m.hidden_from(1)
    assert m.reveals(1, (2, 10, 10, 1, (1, 2, 3)), hidden) == set()  # round 1's bids, as recorded
    assert m.reveals(1, (2, 10, 10, 1, (5, 2, 3)), hidden) == {(0, 5)}  # seat 0's bid of round 2


def test_the_game_ends_with_every_seats_points_and_places():
    m = new(4, rounds=3, max_bid=5)
    bid_round(m, 1, 1, 2, 3)   # seat 2
    bid_round(m, 2, 1, 1, 2)   # nobody
    bid_round(m, 3, 1, 2, 2)   # seat 1
    out = m.next()
    assert isinstance(out, Outcome)
    assert out.points == (0.0, 1.0, 1.0, 0.0) and out.places == (3, 1, 1, 3) and out.winner is None
    assert out.reason == "3 rounds; points 0 1 1 0"
    assert [(msg.seat, codec.encode(msg.payload)) for msg in m.final(out)] == [(s, "END 0 1 1 0") for s in range(4)]
    assert m.legal_replies() == [] and isinstance(m.play(0, "1"), Rejected)


def test_one_seat_alone_on_top_is_the_winner():
    m = new(3, rounds=1)
    bid_round(m, 1, 2, 2)
    assert m.next() == Outcome(winner=0, reason="1 rounds; points 1 0 0", points=(1.0, 0.0, 0.0), places=(1, 2, 2))


@pytest.mark.parametrize(("reply", "verdict"), [
    ("x", Verdict.INVALID_REPLY), ("", Verdict.INVALID_REPLY), ("1.5", Verdict.INVALID_REPLY),
    (True, Verdict.INVALID_REPLY), (None, Verdict.INVALID_REPLY), (2.0, Verdict.INVALID_REPLY),
    ("\u0663", Verdict.INVALID_REPLY), ("0", Verdict.ILLEGAL_MOVE), ("-3", Verdict.ILLEGAL_MOVE),
    ("11", Verdict.ILLEGAL_MOVE), (11, Verdict.ILLEGAL_MOVE), ("9" * 5000, Verdict.ILLEGAL_MOVE),
])
def test_bad_bids_are_refused_with_a_reason(reply, verdict):
    m = new(3)
    no = m.play(0, reply)
    assert isinstance(no, Rejected) and no.verdict == verdict and no.reason
    assert len(no.reason) < 120 and m.next().seats == (0, 1, 2)


@pytest.mark.parametrize("reply", [" 7 ", "+7", "007", 7])
def test_good_bids_in_any_spelling(reply):
    m = new(3)
    assert m.play(0, reply) is None and m.bids == {0: 7}


def test_a_seat_that_faults_mid_game_is_out_and_the_others_finish():
    m = new(4, rounds=4)
    bid_round(m, 1, 2, 3, 3)                     # seat 0
    bid_round(m, 2, 2, 1, 5)                     # seat 2
    # Round 3: seats 0, 1 and 3 bid; seat 2 crashes before its bid.
    assert m.play(0, "1") is None and m.play(1, "2") is None and m.play(3, "1") is None
    assert m.leave(2, Verdict.CRASH, "exited") is None
    assert m.out == {2} and m.history[-1] == (1, 2, 0, 1) and m.points == [1, 1, 1, 0]  # scored without it
    step = m.next()
    assert step.seats == (0, 1, 3) and step.prompts[0].payload[4] == (1, 2, 0, 1)
    bid_round(m, 3, 3, None, 1)                  # seat 3
    out = m.next()
    assert out.points == (1.0, 1.0, 0.0, 1.0) and out.places == (1, 1, 4, 1)
    assert [msg.seat for msg in m.final(out)] == [0, 1, 3]  # nothing to the seat that left


def test_the_game_ends_when_fewer_than_two_seats_are_left():
    m = new(3, rounds=5)
    bid_round(m, 2, 1, 1)                        # seat 0
    assert m.leave(1, Verdict.TIMEOUT, "no bid within 1 s") is None
    out = m.leave(2, Verdict.INVALID_REPLY, "expected a bid")
    assert out == m.next() and out.points == (1.0, 0.0, 0.0) and out.places == (1, 2, 2) and out.winner == 0
    assert out.reason.startswith("invalid-reply: expected a bid; points 1 0 0")


@pytest.mark.parametrize("seats", [1, 2, 11])
def test_a_table_of_another_size_is_refused(seats):
    with pytest.raises(ValueError, match=f"lowbid seats 3 to 10 players a game, not {seats}"):
        new(seats)


def test_rules_settings_are_checked_by_name():
    for bad in ({"rounds": 0}, {"max_bid": "ten"}, {"round": 3}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            LowBidMatch.check_rules(bad)
    assert INFO.seat_range == (3, 10) and INFO.table_size(12) == 10 and INFO.rules == {"rounds": 10, "max_bid": 10}


def test_the_codec_reads_back_what_it_writes():
    for payload in ((1, 10, 10, 0, (0, 0, 0)), (7, 9, 1000, 9, tuple(range(10))), codec.Final((3.0, 0.0, 2.5))):
        assert codec.decode(codec.encode(payload)) == payload
    assert codec.encode(codec.Final((3.0, 0.0, 2.5))) == "END 3 0 2.5"


def test_render_and_picture_show_the_bids_per_round():
    m = LowBidMatch(Setup(players=("<b>x</b>", "b", "c"), seed=1, rules={"rounds": 2}))
    bid_round(m, 1, 1, 2)
    text = m.render()
    assert text.splitlines()[:3] == ["round   s0  s1  s2", "1        1   1 [2]", "points   0   0   1"]
    pic = m.picture()
    assert isinstance(pic, Svg) and "&lt;b&gt;x&lt;/b&gt;" in pic.text and "<b>" not in pic.text
    assert pic.text.count("<rect") == 3
    bid_round(m, 1, 2, 2)
    assert "over: 2 rounds; points 1 0 1" in m.render() and m.picture().title == "over: 2 rounds; points 1 0 1"


def test_a_person_sees_the_prompt_and_types_a_bid():
    from kothkit.people import Mistake

    m = new(3)
    bid_round(m, 1, 2, 3)
    turn = m.human(m.next().prompts[1])
    assert "you are seat 1" in turn.board and "1 2 3" in turn.board
    assert turn.parse(" 4 ") == 4
    with pytest.raises(Mistake):
        turn.parse("lots")
