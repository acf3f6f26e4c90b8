"""The referee with more than two seats (issue 38), real processes over real pipes: a seat that
faults leaves the game alone (its verdict against it, its process stopped at once) and the others
play to the end; a Round's prompts go out together and its replies are collected together, each
within its own clock, from program bots and from function bots in their hosts alike."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from nseat_game import INFO, function, program  # noqa: E402

from kothkit.playing.referee import play_game  # noqa: E402
from kothkit.store.journal import Journal, result_of, row_of  # noqa: E402
from kothkit.store.records import GameTask  # noqa: E402


def _task(players, trusted=False, **limits):
    import attrs

    return GameTask(id="t", game=INFO.name, players=tuple(players), seed=7,
                    limits=attrs.evolve(INFO.limits, **limits), trusted=trusted)


def test_a_bot_that_crashes_in_round_3_of_8_seats_loses_alone(tmp_path):
    players = [program(f"p{i}") for i in range(8)]
    players[2] = program("crasher", "crash3")
    players[6] = function("host_fn")
    rec = play_game(_task(players), info=INFO)
    assert rec.seat_verdicts == (None, None, "crash", None, None, None, None, None)
    assert (rec.offender, rec.verdict) == ("crasher", "crash")
    assert rec.reason == "4 rounds"  # the game went on to its end
    # The seven others played all four rounds (rounds 1, 2, 3, 4 are worth 2, 1, 2, 1).
    for seat in (0, 1, 3, 4, 5, 6, 7):
        assert sum(1 for m in rec.moves if m.seat == seat) == 4
        assert rec.seat_points[seat] == 6.0 and rec.seat_places[seat] == 1
    assert rec.seat_places[2] == 8 and rec.seat_points[2] == 0.0
    assert sum(1 for m in rec.moves if m.seat == 2) == 2  # rounds 1 and 2, then it died
    assert rec.winner is None
    assert "left the game: crash" in rec.logs["crasher"]
    # Every seat's result and verdict go to the journal and come back.
    with Journal(tmp_path / "j.db") as j:
        j.add_rows([row_of(rec)])
        back = next(j.get(["t"]))
        assert (back.seat_places, back.seat_points, back.seat_verdicts) == (
            rec.seat_places, rec.seat_points, rec.seat_verdicts)
        assert back.result_key() == rec.result_key()
        result = next(j.results(["t"]))
        assert result.seat_places == rec.seat_places and result.seat_points == rec.seat_points
        from kothkit.serve.views import GameSummary

        summary = GameSummary.of(next(j.summaries(["t"])))
        assert (summary.seat_places, summary.seat_points) == (rec.seat_places, rec.seat_points)
    assert result_of(row_of(rec)).seat_points == rec.seat_points


def test_a_line_written_out_of_turn_is_never_taken_for_the_next_rounds_reply():
    # The chatter writes a second line with its reply to round 2: before round 3 is sent, that line
    # is its fault (the first of the game's two), not its reply to round 3.
    players = [program("a"), program("chatter", "chatter2"), program("crasher", "crash3"), program("d")]
    rec = play_game(_task(players), info=INFO)
    assert rec.seat_verdicts == (None, "out-of-turn", "crash", None)
    assert (rec.offender, rec.verdict) == ("chatter", "out-of-turn")
    assert rec.seat_places == (1, 3, 3, 1) and rec.reason == "4 rounds"


@pytest.mark.parametrize("sleeper", ["program", "function"])
def test_a_seat_that_sleeps_past_its_clock_costs_the_round_its_own_timeout(sleeper):
    # Seven bots that think 0.4 s every round, each saying on its stderr as soon as it has its
    # prompt.  A Round's prompts all go out before any of its bots' output is read: no seat waits
    # for another's reply, or for the sleeper's timeout, to be asked.  (How much faster that is
    # than asking in turn: benchmarks/bench_rounds.py.)
    players = [program(f"p{i}", "slow") for i in range(5)] + [function(f"f{i}", "slow") for i in range(2)]
    players.insert(3, program("sleeper", "sleep2") if sleeper == "program" else function("sleeper", "sleeper"))
    events: list[tuple[str, int, str]] = []
    rec = play_game(_task(players), info=INFO, on_event=lambda kind, seat, text, ms: events.append((kind, seat, text)))
    assert rec.seat_verdicts == (None, None, None, "timeout", None, None, None, None)
    assert rec.reason == "4 rounds" and rec.seat_places[3] == 8
    assert all(sum(1 for m in rec.moves if m.seat == s) == 4 for s in range(8) if s != 3)
    for r in range(1, 5):
        asked = [i for i, (kind, _, text) in enumerate(events) if kind == "send" and re.search(rf"\b{r}\b", text)]
        got = [i for i, (kind, _, text) in enumerate(events) if kind == "stderr" and text.strip() == f"got ROUND {r}"]
        seats = {events[i][1] for i in asked}
        assert seats == set(range(8)) - ({3} if r > 2 else set()), (r, events)
        assert len(got) == 7 and max(asked) < min(got), (r, events)  # every prompt out before a bot's word is read


def test_trusted_function_seats_play_rounds_in_turn_and_leave_alone():
    players = [function(f"f{i}") for i in range(3)] + [function("sleeper", "sleeper")]
    rec = play_game(_task(players, trusted=True, move_time=0.3), info=INFO)
    assert rec.seat_verdicts == (None, None, None, "timeout")
    assert rec.seat_points == (6.0, 6.0, 6.0, 0.0) and rec.seat_places == (1, 1, 1, 4)


def test_fewer_than_two_left_ends_the_game():
    players = [program("a", "crash3"), program("b", "crash3"), program("c")]
    rec = play_game(_task(players), info=INFO)
    assert rec.seat_verdicts[:2] == ("crash", "crash") and rec.seat_verdicts[2] is None
    assert rec.winner == "c" and rec.seat_places == (2, 2, 1)


def test_function_hosts_kept_across_games_answer_rounds_after_their_acknowledgement():
    # A kept host is sent its new game without waiting (its acknowledgement owed): in a Round the
    # acknowledgement is read first, then the call's answer.
    from kothkit.playing.seats import HostPool

    pool = HostPool()
    try:
        players = [function("f0"), function("f1"), program("p")]
        for _ in range(2):
            rec = play_game(_task(players), info=INFO, hosts=pool)
            assert rec.seat_verdicts == (None, None, None) and rec.seat_points == (6.0, 6.0, 6.0)
    finally:
        pool.close()



def test_the_cluster_takes_a_game_of_more_seats_only_as_its_moves_give_it():
    # A worker's row is checked by re-playing its moves, seats leaving where they left.
    from kothkit.playing.cluster import unbound

    players = [program("a"), program("crasher", "crash3"), program("c"), program("bad", "bad2")]
    task = _task(players)
    row = row_of(play_game(task, info=INFO))
    assert unbound(task, row, INFO, rows=True) is None
    forged = row._replace(seat_places=row.seat_places.replace("3", "1"))
    assert "places or points its moves do not give" in unbound(task, forged, INFO, rows=True)
