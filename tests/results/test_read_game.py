"""archive.read_game: one game of a journal read alone (the host's logs and replay pages) gives the
same record, time, settings and transcript as the whole journal read by open_journal."""

from __future__ import annotations

import pytest

from kothkit.results.archive import ArchiveError, open_journal, read_game, transcript
from kothkit.results.gametext import game_text, log_text


def test_one_game_reads_as_in_the_whole_journal(classic12):
    archive = open_journal(classic12)
    assert archive.records
    for r in archive.records:
        one = read_game(classic12, r.id)
        assert one.records == (r,) and one.finished == {r.id: archive.finished[r.id]}
        assert one.settings(r) == archive.settings(r) != (None, None)
        t = transcript(one, r)
        assert t == transcript(archive, r)
        assert f"id {r.id}" in game_text(t) and "outcome:" in game_text(t)
        for bot in r.players:
            assert log_text(t, bot).startswith(f"# {r.game} game #{r.index}")
    assert read_game(classic12, "0" * 32) is None


def test_a_missing_or_foreign_file_is_named(tmp_path):
    with pytest.raises(ArchiveError, match="no such journal"):
        read_game(tmp_path / "none.sqlite", "x")
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not a database at all" * 100)
    with pytest.raises(ArchiveError, match=str(bad)):
        read_game(bad, "x")
