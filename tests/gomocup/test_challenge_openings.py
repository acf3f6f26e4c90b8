"""A challenge file's openings (``openings = "FILE"``, ``openings_order``): ``run``, ``match``,
``gauntlet``, ``verify`` and ``show`` play and replay them, ``--openings`` overrides them, a bad key or book is
refused naming its file and line, and ``kothkit serve`` plays the same games as ``run`` (the same
ids, the same opening stones).  Real engines (the probe, over the Piskvork protocol), real journals."""

from __future__ import annotations

import json
import re
import sqlite3
import time

import pytest

from kothkit.playing.openings import KEY
from tests.gomocup.test_openings import psq_stones, records

BOOK = "7,7 8,8 6,6\n7,7 7,8 9,9\n"
OPENINGS = [[(7, 7), (8, 8), (6, 6)], [(7, 7), (7, 8), (9, 9)]]


def booked(arena, name: str = "c") -> str:
    """A challenge folder ``name`` with the book beside its file; its top-level keys naming it."""
    (arena.root / name).mkdir()
    (arena.root / name / "book.txt").write_text(BOOK)
    return 'openings = "book.txt"\n'


def starts(arena, db) -> dict:
    """Each pair's games' first three stones."""
    by_pair: dict = {}
    for r in records(db):
        by_pair.setdefault(tuple(sorted(r.players)), []).append(psq_stones(arena, db, r.id)[:3])
    return by_pair


def test_run_match_gauntlet_verify_and_show_play_the_challenge_s_openings_and_the_option_overrides_them(arena):
    arena.engine("alpha")
    arena.engine("beta", "crlf")
    top = booked(arena)
    proc = arena.run("--rounds", "2", top=top)
    assert re.search(r"openings: 2 \(.*book.txt, sequential\), each played from both seats", proc.stdout)
    db = arena.root / "c" / "j.sqlite"
    [games] = starts(arena, db).values()
    assert sorted(games) == sorted(OPENINGS * 2)  # round r from the r-th opening, both seats
    assert "4 identical, 0 differ" in arena.kothkit("verify", str(db), "--bots", str(arena.root / "bots")).stdout
    first = records(db)[0]
    shown = arena.kothkit("show", str(db), first.id[:12]).stdout
    assert "stones: 3" in shown, shown  # the board before the first move: the opening

    # A match of the challenge: its book, not openings drawn from the seed.
    m = arena.root / "m.sqlite"
    proc = arena.kothkit("match", str(arena.root / "c"), str(arena.root / "bots" / "alpha"),
                         str(arena.root / "bots" / "beta"), "--games", "2", "--db", str(m))
    assert re.search(r"openings: 2 \(.*book.txt, sequential\)", proc.stdout)
    assert [s for g in starts(arena, m).values() for s in g] == [OPENINGS[0]] * 2
    gdb = arena.root / "g.sqlite"
    proc = arena.kothkit("gauntlet", str(arena.root / "c"), str(arena.root / "bots" / "alpha"), "--games", "2",
                         "--db", str(gdb))
    assert re.search(r"openings: 2 \(.*book.txt, sequential\)", proc.stdout)
    assert [s for g in starts(arena, gdb).values() for s in g] == [OPENINGS[0]] * 2

    # --openings none: from the empty board (other games: none of the book's reused).
    proc = arena.run("--rounds", "1", "--openings", "none", "--db", str(arena.root / "none.sqlite"), top=top)
    assert "openings:" not in proc.stdout
    with sqlite3.connect(arena.root / "none.sqlite") as con:
        [(settings,)] = con.execute("SELECT settings FROM runs").fetchall()
    assert KEY not in json.loads(settings)["rules"]
    # --openings FILE and --openings-order over the file's.
    other = arena.root / "other.txt"
    other.write_text("9,9 10,10 8,10\n")
    proc = arena.run("--rounds", "1", "--openings", str(other), "--db", str(arena.root / "o.sqlite"), top=top)
    assert re.search(r"openings: 1 \(.*other.txt, sequential\)", proc.stdout)
    proc = arena.run("--rounds", "1", "--openings-order", "random", "--db", str(arena.root / "r.sqlite"), top=top)
    assert re.search(r"openings: 2 \(.*book.txt, random\)", proc.stdout)


@pytest.mark.parametrize("game, top, book, said", [
    ("gomoku_classic12", 'openings = "book.txt"\n', BOOK,
     r"kothkit.toml:2: openings: gomoku_classic12 takes no openings"),
    ("gomocup", 'openings = "nothere.txt"\n', BOOK, r"kothkit.toml:2: openings: .*nothere.txt: cannot read it"),
    ("gomocup", 'openings = "book.txt"\n', "7,7 8,8\n7,7 7,7\n", r"kothkit.toml:2: openings: .*book.txt, line 2: "),
    ("gomocup", 'openings = "book.txt"\nopenings_order = "shuffled"\n', BOOK,
     r"kothkit.toml:3: openings_order must be one of 'sequential', 'random', got 'shuffled'"),
    ("gomocup", 'openings_order = "random"\n', BOOK, r"kothkit.toml:2: openings_order without openings"),
    ("gomocup", "openings = 3\n", BOOK, r"kothkit.toml:2: openings must be the path of a file"),
])
def test_a_bad_openings_key_or_book_is_refused_naming_the_file_and_line(arena, game, top, book, said):
    (arena.root / "c").mkdir()
    (arena.root / "c" / "book.txt").write_text(book)
    (arena.root / "c" / "kothkit.toml").write_text(f'game = "{game}"\n{top}[rules]\n')
    for command in (["run", str(arena.root / "c")], ["match", str(arena.root / "c"), "a", "b"]):
        proc = arena.kothkit(*command, "--db", str(arena.root / "j.sqlite"), ok=False)
        assert proc.returncode != 0 and re.search(said, proc.stderr), proc.stderr
        assert "Traceback" not in proc.stderr
    assert not (arena.root / "j.sqlite").exists()
    from kothkit.serve.host import Host
    from kothkit.serve.settings import SettingsError

    with pytest.raises(SettingsError, match=said):  # and the host refuses to start with it
        Host([arena.root / "c"], arena.root / "state")


def test_serve_plays_the_challenge_s_openings_as_run_does(arena, tmp_path):
    """The host's games are run's (a run after it reuses every one), each from its round's opening,
    and its run's settings hold the book (verify replays them)."""
    from kothkit.serve.host import Host

    arena.engine("alpha")
    arena.engine("beta", "crlf")
    top = booked(arena)
    ch = arena.root / "c"
    (ch / "kothkit.toml").write_text(f'game = "gomocup"\nbots = ["../bots"]\nseed = 3\njournal = "j.sqlite"\n'
                                     f'games_per_pair = 4\n{top}[serve]\nkind = "folder"\n')
    host = Host([ch], tmp_path / "state", jobs=2)
    try:
        host.start()
        end, version = time.monotonic() + 120, -1
        while True:
            info = host.challenge("c")
            if info.queued == 0 and info.playing == 0 and len(host.games("c")) == 4:
                break
            assert time.monotonic() < end, f"timed out: {info}"
            version = host.wait("c", version, 2.0)
        # Its game pages re-play each game from its opening (the board before the first move).
        from kothkit.results.archive import transcript
        from kothkit.results.gametext import game_text

        for g in host.games("c"):
            archive, record, game_info = host.stored_game("c", g.id)
            shown = game_text(transcript(archive, record, info=game_info))
            assert "stones: 3" in shown and "stones: 1 " not in shown, shown
    finally:
        host.stop()
    db = ch / "j.sqlite"
    [games] = starts(arena, db).values()
    assert sorted(games) == sorted(OPENINGS * 2)
    doc = arena.root / "run.json"
    arena.kothkit("run", str(ch), "-q", "--json", str(doc))
    ran = json.loads(doc.read_text())
    assert (ran["played"], ran["reused"]) == (0, 4)
    assert "4 identical, 0 differ" in arena.kothkit("verify", str(db), "--bots", str(arena.root / "bots")).stdout
