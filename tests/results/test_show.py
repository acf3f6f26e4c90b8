"""``kothkit show`` on the journal of a real tournament with faults of several kinds."""

from __future__ import annotations


import re
import shutil
import sqlite3

from kothkit.results.archive import open_journal
from tests.results.conftest import kothkit


def _game(journal, **where):
    for r in open_journal(journal).records:
        if all(getattr(r, k) == v for k, v in where.items()):
            return r
    raise AssertionError(f"no game with {where}")


def test_the_games_table_filters_by_bot_verdict_loser_and_round(classic12):
    d = classic12.parent
    every = kothkit("show", classic12, cwd=d).stdout
    assert every.strip().endswith(f"12 of 12 games of the current standings in {classic12}")
    for verdict in ("timeout", "invalid-reply", "out-of-turn"):
        assert verdict in every
    timeouts = kothkit("show", classic12, "--verdict", "timeout", cwd=d).stdout.splitlines()
    assert timeouts[-1].startswith("2 of 12 games")
    assert all("tardy lost: timeout" in line for line in timeouts[1:-1])
    lost = kothkit("show", classic12, "--loser", "steady", cwd=d).stdout
    assert lost.strip().splitlines()[-1].startswith("0 of 12")
    mine = kothkit("show", classic12, "--bot", "malformed", "--round", "1", cwd=d).stdout.splitlines()
    assert mine[-1].startswith("6 of 12") and all("malformed" in line for line in mine[1:-1])
    assert kothkit("show", classic12, "--round", "2", cwd=d).stdout.strip().startswith("#")


def test_a_timed_out_game_shows_its_board_times_late_reply_verdict_and_logs(classic12):
    r = _game(classic12, verdict="timeout", players=("steady", "tardy"))
    text = kothkit("show", classic12, r.id[:10], cwd=classic12.parent).stdout
    assert f"game #{r.index}  id {r.id}" in text
    assert "judge -> tardy: START 2" in text and "judge -> tardy: PLACE" in text
    # the board after each move, drawn by the game's render
    assert "X black: steady   O white: tardy   moves: 1" in text
    assert re.search(r"\d+\. steady \(\d+\.\d ms\): \d+ \d+", text)
    # the reply that came after its deadline, with its time
    late = re.search(r"(\d+)\. tardy \((\d+\.\d) ms, after its deadline: not played\): (\d+ \d+)", text)
    assert late and float(late.group(2)) > 350, text
    assert int(late.group(1)) == len(r.moves) + 1
    assert "verdict: timeout against tardy: timeout: no reply within 0.3 s" in text
    # each log line with the move it came during; the third TURN's DEBUG line during the late move
    assert f"[move {len(r.moves) + 1}] DEBUG turn 3: thinking about {late.group(3)}" in text
    assert "[end] stderr: steady: last PLACE" in text
    assert "[end] DEBUG got END" in text


def test_log_prints_one_bots_lines_only(classic12):
    r = _game(classic12, verdict="timeout", players=("steady", "tardy"))
    text = kothkit("show", classic12, str(r.index), "--log", "tardy", cwd=classic12.parent).stdout
    lines = text.splitlines()
    assert lines[0].startswith(f"# gomoku_classic12 game #{r.index}")
    body = lines[1:]
    assert body and all(re.match(r"\[(move \d+|end)\] ", line) for line in body), text
    # never the opponent's lines: nothing it was sent, nothing it replied, nothing it logged
    assert not any("steady" in line for line in body), text
    assert "[move 2] judge -> tardy: START 2" in body
    assert "[move 2] tardy -> judge" in text
    debug = [line for line in body if "DEBUG turn" in line]
    assert [int(re.match(r"\[move (\d+)\]", line).group(1)) for line in debug] == [4, 6, 8]
    stderr = [line for line in body if "stderr: tardy stderr at turn" in line]
    assert [int(re.match(r"\[move (\d+)\]", line).group(1)) for line in stderr] == [4, 6, 8]
    assert body[-1] == "[end] verdict against tardy: timeout: no reply within 0.3 s"
    # the opponent's own log, asked for, has none of tardy's lines
    other = kothkit("show", classic12, str(r.index), "--log", "steady", cwd=classic12.parent).stdout
    assert "tardy" not in "\n".join(other.splitlines()[1:])
    assert "[end] stderr: steady: last PLACE" in other


def test_an_invalid_reply_shows_the_offending_text(classic12):
    r = _game(classic12, verdict="invalid-reply", players=("tardy", "malformed"))
    text = kothkit("show", classic12, r.id[:12], cwd=classic12.parent).stdout
    bad = r.moves[-1].reply
    assert f"malformed ({r.moves[-1].ms:.1f} ms): {bad}" in text
    assert "REJECTED: expected 'X Y' (row and column)" in text
    assert f"the offending reply: {bad!r}" in text


def test_bad_game_ids_say_so_and_list_candidates(classic12, tmp_path):
    d = classic12.parent
    none = kothkit("show", classic12, "ffffffffff", cwd=d, check=False)
    assert none.returncode == 1 and "no game has index or id 'ffffffffff'" in none.stderr
    # Whether two of the run's ids share a prefix that is not also a game's index (an index wins)
    # depends on their hashes, which hash the plugin's code: a copy of the journal gets a game
    # whose id shares the first one's first 8 characters.
    journal = tmp_path / "j.sqlite"
    shutil.copy(classic12, journal)
    first = open_journal(classic12).records[0].id
    twin = first[:8] + ("0" if first[8] != "0" else "1") + first[9:]
    with sqlite3.connect(journal) as db:
        db.execute("INSERT INTO games (id, game, idx, players, hashes, seed, winner, reason, fault, verdict, moves, "
                   "logs, seconds, finished_at) SELECT ?, game, 99, players, hashes, seed, winner, reason, fault, verdict, "
                   "moves, logs, seconds, finished_at FROM games WHERE id = ?", (twin, first))
    db.close()
    ids = [r.id for r in open_journal(journal).records]
    prefix = first[:8]
    assert sum(i.startswith(prefix) for i in ids) == 2
    many = kothkit("show", journal, prefix, cwd=d, check=False)
    assert many.returncode == 1 and "games match" in many.stderr, many.stdout
    assert all(i[:12] in many.stderr for i in ids if i.startswith(prefix))


def test_bad_journals_are_one_clear_line_and_exit_1(classic12, tmp_path):
    not_db = tmp_path / "notes.sqlite"
    not_db.write_text("hello\n")
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    newer = tmp_path / "newer.sqlite"
    shutil.copy(classic12, newer)
    with sqlite3.connect(newer) as db:
        db.execute("PRAGMA user_version=99")
    corrupt = tmp_path / "corrupt.sqlite"
    shutil.copy(classic12, corrupt)
    with sqlite3.connect(corrupt) as db:
        db.execute("UPDATE games SET moves='[[0, \"x\"' WHERE idx=0")
    for path, why in ((not_db, "not a kothkit journal"), (other, "not a kothkit journal"),
                      (newer, "written by a newer kothkit"), (corrupt, "corrupt journal"),
                      (tmp_path / "missing.sqlite", "no such journal")):
        before = sorted(p.name for p in tmp_path.iterdir())
        proc = kothkit("show", path, cwd=tmp_path, check=False)
        assert proc.returncode == 1, (path, proc.stdout, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1 and str(path) in proc.stderr and why in proc.stderr, proc.stderr
        assert proc.stdout == ""
        assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_game_whose_plugin_is_missing_still_shows_its_moves_and_logs(classic12, tmp_path):
    orphan = tmp_path / "orphan.sqlite"
    shutil.copy(classic12, orphan)
    with sqlite3.connect(orphan) as db:
        db.execute("UPDATE games SET game='gomoku_retired'")
    r = _game(orphan, verdict="timeout", players=("steady", "tardy"))
    text = kothkit("show", orphan, r.id[:12], cwd=tmp_path).stdout
    assert "the game 'gomoku_retired' is not installed (its plugin is missing)" in text
    for i, m in enumerate(r.moves, 1):
        assert f"{i:>4}. {r.players[m.seat]} ({m.ms:.1f} ms): {m.reply}" in text
    assert "DEBUG turn 1" in text and "tardy stderr at turn 1" in text
    log = kothkit("show", orphan, r.id[:12], "--log", "tardy", cwd=tmp_path).stdout
    assert "DEBUG turn 2" in log and "steady" not in "\n".join(log.splitlines()[1:])


def test_show_finds_the_journal_of_a_game_name_and_a_challenge_folder(classic12, tmp_path):
    (tmp_path / ".kothkit").mkdir()
    shutil.copy(classic12, tmp_path / ".kothkit" / "gomoku_classic12.sqlite")
    assert kothkit("show", "gomoku_classic12", cwd=tmp_path).stdout.strip().endswith("12 of 12 games of the current standings in "
                                                                                     ".kothkit/gomoku_classic12.sqlite")
    ch = tmp_path / "course"
    ch.mkdir()
    (ch / "kothkit.toml").write_text('game = "gomoku_classic12"\nbots = ["bots"]\n')
    shutil.copy(classic12, ch / "kothkit.sqlite")
    assert "12 of 12 games" in kothkit("show", ch, cwd=tmp_path).stdout

