"""The --json document's games written from the journal's columns (kothkit.results.report.outline_json):
the same text as from the game's record, whatever its replies (numbers, strings, lists, null, NaN) and
whatever the column's separators."""

from __future__ import annotations

import json
import random

from kothkit.procs.fastjson import dumps
from kothkit.results.report import game_json, outline_json
from kothkit.store.journal import _row_to_record


def _record_text(row: tuple) -> str:
    """What the document held when it was written from records (``Journal.get``)."""
    cols = ("id", "idx", "players", "seed", "winner", "reason", "fault", "verdict", "moves")
    full = dict(zip(cols, row), hashes="[]", logs="{}", game="g", seconds=0.0)
    return json.dumps(game_json(_row_to_record(full)), default=repr)  # type: ignore[arg-type]


def test_outlines_are_written_as_records_were():
    rng = random.Random(5)
    columns = ["[]", "[[0, 1, 0.5]]", '[[0, "a, b], [", 1.5]]', "[[0, [1, 2], 0.1], [1, 3, 2e-05]]",
               "[[0, null, NaN], [1, true, Infinity]]", "[[0,1,0.5],[1,2,0.25]]", '[[0, {"x": 1}, 0.1]]',
               "[[0, -3, -0.0], [1, 12345678901234567890, 1e+300]]", '[[0, "\\u00e9", 0.001]]']
    for _ in range(300):
        columns.append(dumps([[i % 2, rng.choice([rng.randrange(7), rng.random(), None, -rng.randrange(99)]),
                               round(rng.random() / 100, rng.randrange(1, 8))] for i in range(rng.randrange(40))]))
    seatings: dict = {}
    for moves in columns:
        row = ("0123abcd", 3, '["a", "b \\"q\\""]', 7, None, 'five "in" a row', "a", "crash", moves)
        assert outline_json(row, seatings) == _record_text(row), moves
