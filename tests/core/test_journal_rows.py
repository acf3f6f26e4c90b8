"""One shape per stage (issue 37 item 4): the journal's reads are named rows, and a game stored and
a game read back make one GameSummary (kothkit.serve.views.GameSummary.of), with a real game
written to and read from a real journal."""

from __future__ import annotations

from pathlib import Path

from kothkit.bots.folders import load_bots
from kothkit.playing.referee import play_game
from kothkit.playing.schedule import Schedule
from kothkit.plugins import get_game
from kothkit.serve.views import GameSummary
from kothkit.store.journal import Journal, Outline, Summary, row_of

C4 = Path(__file__).resolve().parents[2] / "plugins" / "connect4_hidden" / "bots"


def test_a_stored_game_reads_back_as_named_rows_and_one_summary(tmp_path):
    info = get_game("connect4_hidden")
    bots = load_bots([C4 / "constant_player", C4 / "random_player"]).bots
    task = next(iter(Schedule(game=info.name, bots=tuple(bots), seed=5, rounds=1, limits=info.limits,
                              rules=dict(info.rules), trusted=True)))
    record = play_game(task)
    row = row_of(record)
    with Journal(tmp_path / "j.sqlite") as j:
        j.add_rows([row])
        [summary] = j.summaries([record.id])
        [outline] = j.outlines([record.id])
    assert type(summary) is Summary and type(outline) is Outline
    assert (summary.id, summary.idx, summary.players, summary.winner, summary.fault, summary.verdict,
            summary.reason, summary.finished_at) == (row.id, row.idx, row.players, row.winner, row.fault,
                                                     row.verdict, row.reason, row.finished_at)
    assert (outline.id, outline.seed, outline.moves) == (row.id, row.seed, row.moves)
    # The host's two ways to a game's summary (a game it stored, a game it found) give one answer.
    assert GameSummary.of(row) == GameSummary.of(summary)
    s = GameSummary.of(summary, index=7)
    assert (s.id, s.index, s.bots, s.winner, s.offender) == (record.id, 7, record.players, record.winner,
                                                            record.offender)
