"""Openings in matches, as fastchess plays them: each game pair starts from one opening, once from
each seat; from a file (one a line, or a .psq), in order or shuffled by the seed, or drawn from the
seed; and a match whose pairs repeat says so."""

from __future__ import annotations

import json
import re

import pytest


def psq_stones(arena, db, game_id) -> list[tuple[int, int]]:
    text = arena.kothkit("export", str(db), game_id[:12], "-f", "psq", "-o", "-").stdout
    return [tuple(int(v) - 1 for v in l.split(",")[:2]) for l in text.splitlines() if re.fullmatch(r"\d+,\d+,\d+", l)]


def match(arena, *args, name="m", ok=True):
    db = arena.root / f"{name}.sqlite"
    proc = arena.kothkit("match", "gomocup", str(arena.root / "bots" / "alpha"), str(arena.root / "bots" / "beta"),
                         "--db", str(db), "--json", str(arena.root / f"{name}.json"), "--seed", "4", *args, ok=ok)
    return proc, db


def records(db):
    from kothkit.store.journal import Journal

    with Journal(db) as j:
        return sorted(j.all(), key=lambda r: r.index)


def test_openings_from_a_file_are_played_from_both_seats_pair_by_pair(arena):
    arena.engine("alpha")
    arena.engine("beta", "crlf")
    book = arena.root / "openings.txt"
    book.write_text("# x,y x,y ...: black, white, black\n7,7 8,8 6,6\n\n7,7 7,8 9,9\n6,7 7,7 8,9\n")
    proc, db = match(arena, "--games", "8", "--openings", str(book))
    assert "openings: 3 (" in proc.stdout and "each played from both seats" in proc.stdout
    openings = [[(7, 7), (8, 8), (6, 6)], [(7, 7), (7, 8), (9, 9)], [(6, 7), (7, 7), (8, 9)]]
    rs = records(db)
    assert len(rs) == 8
    for r in rs:
        pair, game = divmod(r.index, 2)
        assert psq_stones(arena, db, r.id)[:3] == openings[pair % 3]
        assert r.players == (("alpha", "beta") if game == 0 else ("beta", "alpha"))
    doc = json.loads((arena.root / "m.json").read_text())
    assert sum(doc["overall"]["pentanomial"]) == 4  # counted in pairs
    # the fourth pair plays the first opening again, and the engines are deterministic
    assert "warning: 1 of the 4 game pairs played repeat an earlier pair move for move" in proc.stdout


def test_a_random_order_is_the_seed_s_and_a_psq_is_one_opening(arena):
    arena.engine("alpha")
    arena.engine("beta")
    book = arena.root / "o.txt"
    book.write_text("".join(f"{x},7 {x},8\n" for x in range(3, 11)))
    _, one = match(arena, "--games", "16", "--openings", str(book), "--openings-order", "random", name="r1")
    _, two = match(arena, "--games", "16", "--openings", str(book), "--openings-order", "random", "--jobs", "1",
                   name="r2")
    first = [psq_stones(arena, one, r.id)[0] for r in records(one) if r.index % 2 == 0]
    assert first != sorted(first) and sorted(first) == [(x, 7) for x in range(3, 11)]  # each once, shuffled
    assert [r.id for r in records(one)] == [r.id for r in records(two)]
    psq = arena.root / "one.psq"
    psq.write_text("Piskvorky 15x15, 11:11, 0\n8,8,0\n9,9,0\n10,8,0\nalpha\nbeta\n")
    _, db = match(arena, "--games", "2", "--openings", str(psq), name="p")
    assert all(psq_stones(arena, db, r.id)[:3] == [(7, 7), (8, 8), (9, 7)] for r in records(db))


def test_without_a_file_each_pair_gets_an_opening_drawn_from_the_seed(arena):
    arena.engine("alpha")
    arena.engine("beta")
    proc, db = match(arena, "--games", "12")
    assert "openings: one a pair (drawn from the seed)" in proc.stdout
    rs = records(db)
    starts = [tuple(psq_stones(arena, db, r.id)[:3]) for r in rs]
    assert all(starts[2 * k] == starts[2 * k + 1] for k in range(6))  # both games of a pair
    assert len(set(starts)) == 6 and "repeat" not in proc.stdout
    _, again = match(arena, "--games", "12", "--jobs", "1", name="again")
    assert [r.result_key() for r in records(again)] == [r.result_key() for r in rs]
    # replays find each game's opening from the run: verify plays them again from the same position
    assert "verified 12 games: 12 identical, 0 differ" in arena.kothkit("verify", str(db), "--bots", str(arena.root / "bots")).stdout


def test_pairs_that_repeat_are_warned_of(arena):
    arena.engine("alpha")
    arena.engine("beta")
    proc, _ = match(arena, "--games", "6", "--openings", "none")
    assert ("warning: 2 of the 3 game pairs played repeat an earlier pair move for move (deterministic bots: such "
            "pairs count the same games again): give --openings FILE") in proc.stdout


@pytest.mark.parametrize(("text", "said"), [
    ("7,7 8,8\n7,7 7,7\n", "line 2: rules setting position: 7,7 is given twice"),
    ("7,7 8,8\n\n30,1\n", "line 3: rules setting position: 30,1 is off the 15x15 board"),
    ("# nothing\n", "no openings in it"),
])
def test_a_bad_file_of_openings_is_refused_naming_its_line(arena, text, said):
    arena.engine("alpha")
    arena.engine("beta")
    book = arena.root / "bad.txt"
    book.write_text(text)
    proc, db = match(arena, "--games", "2", "--openings", str(book), ok=False)
    assert proc.returncode != 0 and f"--openings: {book}" in proc.stderr and said in proc.stderr
    assert not db.exists() or not records(db)


def test_a_tournament_plays_round_r_of_each_pair_from_the_r_th_opening(arena):
    arena.engine("alpha")
    arena.engine("beta")
    arena.engine("gamma", "crlf")
    book = arena.root / "book.txt"
    book.write_text("7,7 8,8 6,6\n7,7 7,8 9,9\n")
    proc = arena.run("--openings", str(book), "--rounds", "2")
    assert "openings: 2 (" in proc.stdout
    db = arena.root / "c" / "j.sqlite"
    rs = records(db)
    assert len(rs) == 12
    openings = [[(7, 7), (8, 8), (6, 6)], [(7, 7), (7, 8), (9, 9)]]
    by_pair: dict = {}
    for r in rs:
        by_pair.setdefault(tuple(sorted(r.players)), []).append(psq_stones(arena, db, r.id)[:3])
    for starts in by_pair.values():  # each pair: two games from each opening, both seats
        assert sorted(starts) == sorted(openings * 2)
    assert "12 identical, 0 differ" in arena.kothkit("verify", str(db), "--bots", str(arena.root / "bots")).stdout
