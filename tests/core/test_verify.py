"""``kothkit verify``: re-plays a journal's games and reports every game that differs.

Journals come from real ``kothkit run`` tournaments; tampering is done with
SQLite on the journal file, as anyone holding a published journal could.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SWAP2 = ROOT / "plugins" / "gomoku_swap2" / "bots"


def tournament(cli, tmp_path: Path, game: str, *extra) -> Path:
    db = tmp_path / f"{game}.sqlite"
    cli("run", game, "--seed", "31", "--jobs", "2", "--rounds", "1", "--db", db, *extra, timeout=300, check=True)
    return db


@pytest.mark.parametrize("game", ["gomoku_swap2", "gomoku_classic12", "connect4_hidden"])
def test_an_untouched_journal_verifies(cli, tmp_path, game):
    db = tournament(cli, tmp_path, game)
    with sqlite3.connect(db) as c:
        n = c.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    r = cli("verify", db, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"verified {n} games: {n} identical, 0 differ, 0 not verifiable" in r.stdout
    assert "DIFFERS" not in r.stdout


@pytest.fixture
def swap2_journal(cli, tmp_path):
    bots = tmp_path / "bots"
    shutil.copytree(SWAP2, bots, ignore=shutil.ignore_patterns(".kothkit-build", "__pycache__"))
    return bots, tournament(cli, tmp_path, "gomoku_swap2", "--bots", bots)


def test_tampered_rows_are_listed(cli, swap2_journal):
    bots, db = swap2_journal
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT id, players, winner, moves FROM games ORDER BY idx").fetchall()
        (a, players, winner, _), (b, _, _, moves), (d, *_) = rows[:3]
        loser = next(p for p in json.loads(players) if p != winner)
        c.execute("UPDATE games SET winner = ? WHERE id = ?", (loser, a))  # a forged result
        m = json.loads(moves)
        m[3][1] = "(14,14)"  # a forged move
        c.execute("UPDATE games SET moves = ? WHERE id = ?", (json.dumps(m), b))
        c.execute("UPDATE games SET seed = seed + 1 WHERE id = ?", (d,))  # a different game passed off as this one
    r = cli("verify", db, "--bots", bots, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = [l for l in r.stdout.splitlines() if l.startswith("DIFFERS")]
    assert len(lines) == 3
    assert any(a[:16] in l and f"journal: winner {loser}" in l for l in lines)
    assert any(b[:16] in l and "move 4 differs" in l and "(14,14)" in l for l in lines)
    assert any(d[:16] in l and "matches no run" in l for l in lines)
    assert "verified 6 games: 3 identical, 3 differ, 0 not verifiable" in r.stdout


def test_a_changed_or_missing_bot_is_reported(cli, swap2_journal):
    bots, db = swap2_journal
    with open(bots / "threat" / "bot.py", "a") as f:
        f.write("\n# changed after the tournament\n")
    r = cli("verify", db, "--bots", bots, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "UNVERIFIED  bot threat changed since the tournament" in r.stdout
    assert "4 games cannot be verified" in r.stdout
    assert "verified 6 games: 2 identical, 0 differ, 4 not verifiable" in r.stdout

    shutil.rmtree(bots / "threat")
    r = cli("verify", db, "--bots", bots, timeout=300)
    assert r.returncode == 1
    assert f"UNVERIFIED  bot threat not found in {bots}: 4 games cannot be verified" in r.stdout


def test_verify_refuses_a_missing_journal_or_a_file_that_is_not_one(cli, tmp_path):
    r = cli("verify", tmp_path / "nothing.sqlite")
    assert r.returncode == 1
    assert "no such journal, challenge folder or game" in r.stderr
    (tmp_path / "notes.txt").write_text("not a database\n")
    r = cli("verify", tmp_path / "notes.txt")
    assert r.returncode == 1
    assert "notes.txt: not a usable kothkit journal" in r.stderr


def test_a_journal_from_before_bot_places_and_rounds_were_recorded_verifies(cli, swap2_journal):
    bots, db = swap2_journal
    with sqlite3.connect(db) as c:
        c.execute("ALTER TABLE runs DROP COLUMN rounds")
        for column in ("memory", "seat_places", "seat_points", "seat_verdicts"):  # nor every seat's result
            c.execute(f"ALTER TABLE games DROP COLUMN {column}")
        for rid, listed in c.execute("SELECT id, bots FROM runs").fetchall():
            old = [{"name": b["name"], "hash": b["hash"]} for b in json.loads(listed)]
            c.execute("UPDATE runs SET bots = ? WHERE id = ?", (json.dumps(old), rid))
    r = cli("verify", db, "--bots", bots, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "verified 6 games: 6 identical, 0 differ, 0 not verifiable" in r.stdout


def challenge(tmp_path: Path) -> Path:
    """A challenge folder with bots of its own (not named like any bundled bot)."""
    ch = tmp_path / "ch"
    for bundled, name in (("threat", "realbrain"), ("greedy", "plodder")):
        shutil.copytree(SWAP2 / bundled, ch / "bots" / name, ignore=shutil.ignore_patterns(".kothkit-build", "__pycache__"))
        toml = ch / "bots" / name / "bot.toml"
        toml.write_text(toml.read_text().replace(f'name = "{bundled}"', f'name = "{name}"'))
    (ch / "kothkit.toml").write_text('game = "gomoku_swap2"\nbots = ["bots"]\nseed = 5\nrounds = 1\njobs = 2\n')
    return ch


def test_a_challenge_verifies_by_folder_and_journal_and_after_a_resubmission(cli, tmp_path):
    ch = challenge(tmp_path)
    cli("run", ch, "--quiet", timeout=300, check=True)
    clean = "verified 2 games: 2 identical, 0 differ, 0 not verifiable"
    for target in ([ch], [ch / "kothkit.sqlite"], ["gomoku_swap2", "--db", ch / "kothkit.sqlite"]):
        r = cli("verify", *target, timeout=300)
        assert r.returncode == 0, (target, r.stdout + r.stderr)
        assert clean in r.stdout and "superseded" not in r.stdout

    # Published: the folder moved elsewhere; the journal says where its bots were, relative to it.
    published = tmp_path / "published"
    shutil.move(ch, published)
    r = cli("verify", published / "kothkit.sqlite", timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    ch = published

    # A bot resubmitted, not yet re-run: its games can no longer be verified, and verify says why.
    with open(ch / "bots" / "realbrain" / "bot.py", "a") as f:
        f.write("\n# resubmitted: same play, a new content hash\n")
    r = cli("verify", ch, timeout=300)
    assert r.returncode == 1
    assert "UNVERIFIED  bot realbrain changed since the tournament (hash " in r.stdout
    assert "2 games cannot be verified" in r.stdout and "not found" not in r.stdout

    # Re-run: the standings' games verify; the superseded ones are left out, listed with --all.
    cli("run", ch, "--quiet", timeout=300, check=True)
    r = cli("verify", ch, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert clean in r.stdout
    assert "2 superseded games (of earlier runs, no longer in the standings) were not verified" in r.stdout
    r = cli("verify", ch, "--all", timeout=300)
    assert r.returncode == 1
    assert "UNVERIFIED  bot realbrain changed since the tournament" in r.stdout
    assert "verified 4 games: 2 identical, 0 differ, 2 not verifiable" in r.stdout

    r = cli("prune", ch, check=True)
    assert f"pruned 2 superseded games from {ch / 'kothkit.sqlite'}; 2 games kept" in r.stdout
    r = cli("verify", ch, "--all", timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert clean in r.stdout and "superseded" not in r.stdout
