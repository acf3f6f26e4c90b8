"""``kothkit match`` and ``kothkit gauntlet`` treat answers that keep files in their folder as ``run``
does (the journal's ``kept`` records, :mod:`kothkit.playing.keeping`): an answer is the code its
author gave, not the diary it wrote while playing, so the same command again reuses every game, a
match cut short by Ctrl-C resumes without playing its stored games again, and ``kothkit verify``
finds the answers (where the match loaded them from) under the identities the match gave them.
The answers are test_kept_files' Swap2 answers that keep a diary beside their code."""

from __future__ import annotations

from kothkit.store.journal import stored_count
from tests.core.test_kept_files import answer, ctrl_c


def test_a_match_and_a_gauntlet_reuse_the_games_of_answers_that_wrote_their_folders(cli, tmp_path):
    bots = tmp_path / "answers"
    answer(bots / "diary", "diary", 0)
    answer(bots / "tally", "tally", 100, toml=True)
    db = tmp_path / "journal.sqlite"
    match = ("match", "gomoku_swap2", bots / "diary", bots / "tally", "--games", "4", "--seed", "5", "--jobs", "2",
             "--move-time", "5", "--db", db)

    first = cli(*match, timeout=300, check=True)
    assert "games: 4 played, 0 reused, 4 counted" in first.stdout
    assert (bots / "diary" / "diary.txt").read_text().startswith("4 games")  # it wrote its folder
    again = cli(*match, timeout=300, check=True)
    assert "games: 0 played, 4 reused, 4 counted" in again.stdout
    final = lambda text: text.rsplit("Results of", 1)[1].split("games:")[0]  # noqa: E731 - the last report
    assert final(again.stdout) == final(first.stdout)

    # Run from another folder, with no --bots: verify finds the answers where the match loaded them.
    r = cli("verify", db, timeout=300, cwd=bots)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "4 identical, 0 differ, 0 not verifiable" in r.stdout

    gauntlet = ("gauntlet", "gomoku_swap2", bots / "tally", "--bots", bots, "--games", "2", "--seed", "5",
                "--move-time", "5", "--db", tmp_path / "gauntlet.sqlite")  # (the match's journal holds its games)
    assert "games: 2 played, 0 reused, 2 counted" in cli(*gauntlet, timeout=300, check=True).stdout
    assert "games: 0 played, 2 reused, 2 counted" in cli(*gauntlet, timeout=300, check=True).stdout


def test_a_match_cut_short_by_ctrl_c_resumes_without_replaying_what_it_kept(cli, tmp_path):
    # Slow answers (0.2 s a move, each noted in their folder): Ctrl-C finds a game in play whose
    # answers have written their folders since their last game stored.
    bots = tmp_path / "answers"
    for name, start in (("diary", 0), ("ledger", 40)):
        answer(bots / name, name, start)
        (bots / name / "state").mkdir()
        (bots / name / "state" / "delay").write_text("0.2")
    db = tmp_path / "journal.sqlite"
    args = ["match", "gomoku_swap2", str(bots / "diary"), str(bots / "ledger"), "--games", "8", "--seed", "5",
            "--jobs", "1", "--move-time", "5", "--db", str(db), "-q"]
    assert "run again to resume" in ctrl_c(args, db, tmp_path)
    kept = stored_count(db)
    assert 1 <= kept < 8
    for name in ("diary", "ledger"):
        (bots / name / "state" / "delay").unlink()
    resumed = cli(*args, timeout=300, check=True)
    assert f"games: {8 - kept} played, {kept} reused, 8 counted" in resumed.stdout
