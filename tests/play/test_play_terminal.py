"""``kothkit play`` in a real terminal (a pseudo-terminal): a person plays a whole game of each
bundled game against a bundled bot, mistyping once and trying an illegal move once (explained,
asked again, never a loss); the game is stored, listed by ``kothkit show`` and re-played by
``kothkit verify``."""

from __future__ import annotations

import itertools
import json
import re
import sqlite3
from contextlib import closing

import pytest

from tests.play.screen import Screen

ASK = r"(?P<ask>[^\n]*)\n> |result: (?P<result>[^\n]*)"


def play_out(screen: Screen, answer) -> str:
    """Answer every question until the game ends; the result line."""
    for _ in range(400):
        m = screen.expect(ASK)
        if m.group("result") is not None:
            return m.group("result")
        screen.type(answer(m.group("ask")))
    raise AssertionError("the game did not end after 400 questions")


def stored(screen: Screen) -> str:
    game_id = screen.expect(r"stored as game ([0-9a-f]+) in").group(1)
    assert screen.wait() == 0, screen.text[-2000:]
    return game_id


def check_journal(cli, db, games: int) -> None:
    verified = cli("verify", db, timeout=180)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert f"verified {games} game{'' if games == 1 else 's'}: {games} identical, 0 differ" in verified.stdout
    shown = cli("show", db)
    assert shown.returncode == 0, shown.stderr
    assert "you" in shown.stdout
    exported = cli("export", db, "--format", "html", "--out", "pages")
    assert exported.returncode == 0, exported.stderr
    pages = list((cli.tmp / "pages").glob("*.html"))
    assert len(pages) == games and all("you" in p.read_text() for p in pages)


def test_swap2_against_threat(cli, tmp_path):
    cells = itertools.chain(["hello", "99,99", "7,7"], (f"{x},{y}" for y in range(15) for x in range(15)))
    asked = []

    def answer(ask: str) -> str:
        asked.append(ask)
        if "place three" in ask:
            return "7,7 8,8 7,8"
        if "choose" in ask:
            return "b"
        return next(cells)

    s = Screen(["play", "gomoku_swap2", "--against", "threat", "--seed", "5", "--db", "p.sqlite"], tmp_path)
    try:
        result = play_out(s, answer)
        stored(s)
    finally:
        s.close()
    assert "place three" in asked[0]
    assert "cannot read 'hello'" in s.text and "type one empty cell x,y" in s.text
    assert "not allowed: (99,99) is off the board" in s.text
    assert "not allowed: (7,7) is already taken" in s.text
    assert re.search(r"threat (wins|played)", s.text) and result
    check_journal(cli, "p.sqlite", 1)


def test_classic12_second_seat_against_threat(cli, tmp_path):
    cells = itertools.chain(["hello", "5 5", "12 0"], (f"{r} {c}" for r in range(12) for c in range(12)))
    s = Screen(["play", "gomoku_classic12", "--against", "threat", "--seat", "1", "--seed", "2", "--db", "p.sqlite"],
               tmp_path)
    try:
        s.expect(r"threat played \d+ \d+")  # the bot opens: its move comes before the first question
        play_out(s, lambda ask: next(cells))
        stored(s)
    finally:
        s.close()
    assert "cannot read 'hello'" in s.text
    assert "played OK" not in s.text  # the START -> OK handshake is no move
    assert "not allowed: (5, 5) is occupied" in s.text
    assert "not allowed: (12, 0) is off the 12x12 board" in s.text
    with closing(sqlite3.connect(tmp_path / "p.sqlite")) as c:
        players, winner = c.execute("SELECT players, winner FROM games").fetchone()
    assert json.loads(players) == ["threat", "you"] and winner in ("threat", "you", None)
    check_journal(cli, "p.sqlite", 1)


def test_connect4_sees_only_its_view_twice_in_one_journal(cli, tmp_path):
    for game in range(2):
        columns = itertools.chain(["x", "7"] if game == 0 else [], itertools.cycle(range(7)))
        s = Screen(["play", "connect4_hidden", "--against", "deducer", "--seat", "1", "--seed", "4", "--db",
                    "p.sqlite"], tmp_path)
        try:
            play_out(s, lambda ask: str(next(columns)))
            stored(s)
        finally:
            s.close()
        assert f"game {game} of seed 4" in s.text
        # The bot's moves are not shown (a bot would not see them): only that it moved.
        assert re.search(r"deducer moved \(", s.text) and "deducer played" not in s.text
        assert "# a taped row: there you see only your own stones" in s.text
    check_journal(cli, "p.sqlite", 2)


def test_verify_replays_the_bot_against_the_recorded_person(cli, tmp_path):
    """A person's replies come from the record, the bot's are played again: a bot reply or an
    outcome changed in the journal is found."""
    columns = itertools.cycle(range(7))
    s = Screen(["play", "connect4_hidden", "--against", "better_constant_player", "--seed", "8", "--db", "p.sqlite"],
               tmp_path)
    try:
        play_out(s, lambda ask: str(next(columns)))
        stored(s)
    finally:
        s.close()
    check_journal(cli, "p.sqlite", 1)
    with closing(sqlite3.connect(tmp_path / "p.sqlite")) as c, c:
        moves = json.loads(c.execute("SELECT moves FROM games").fetchone()[0])
        bot = next(i for i, m in enumerate(moves) if m[0] == 1)
        moves[bot][1] = (moves[bot][1] + 1) % 7
        c.execute("UPDATE games SET moves = ?", (json.dumps(moves),))
    r = cli("verify", "p.sqlite", timeout=120)
    assert r.returncode == 1 and f"move {bot + 1} differs" in r.stdout, r.stdout + r.stderr


def test_typed_quit_stores_nothing(cli, tmp_path):
    s = Screen(["play", "connect4_hidden", "--db", "p.sqlite"], tmp_path)  # the first bundled bot
    try:
        s.expect("against better_constant_player")
        s.expect(ASK)
        s.type("quit")
        s.expect("you left the game: nothing stored")
        assert s.wait() == 0
    finally:
        s.close()
    with closing(sqlite3.connect(tmp_path / "p.sqlite")) as c:
        assert c.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0


@pytest.mark.parametrize("args, says", [
    (["gomoku_swap2", "--seat", "2"], "--seat: 0 to 1"),
    (["gomoku_swap2", "--against", "nobody"], "unknown bot 'nobody'"),
    (["gomoku_swap2", "--name", "a b"], "--name: 1-64 letters"),
])
def test_bad_arguments(cli, args, says):
    r = cli("play", *args, "--db", "p.sqlite")
    assert r.returncode == 1 and says in r.stderr
