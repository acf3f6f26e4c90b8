"""``kothkit export``: Piskvork .psq read back gives the games' moves; SGF read by sgfmill; json."""

from __future__ import annotations

import json
import re

import pytest
from sgfmill import sgf

from kothkit.results.archive import open_journal
from tests.results.conftest import kothkit


def read_psq(text: str) -> tuple[tuple[int, int], list[tuple[int, int, int]], list[str]]:
    """(size, [(x, y, ms)], names) of a Piskvork file, read independently of kothkit's writer."""
    lines = text.splitlines()
    head = re.fullmatch(r"Piskvorky (\d+)x(\d+), \d+:\d+, \d+", lines[0])
    assert head, lines[0]
    moves, rest = [], lines[1:]
    while rest and re.fullmatch(r"\d+,\d+,\d+", rest[0]):
        x, y, ms = map(int, rest.pop(0).split(","))
        moves.append((x, y, ms))
    return (int(head.group(1)), int(head.group(2))), moves, rest


def swap2_cells(reply: str) -> list[tuple[int, int]]:
    return [(int(x), int(y)) for x, y in re.findall(r"\((\d+)\s*,\s*(\d+)\)", reply)]


def board_of_psq(moves: list[tuple[int, int, int]]) -> dict[tuple[int, int], str]:
    """The position a .psq gives as Piskvork reads it: 0-based (x, y) -> colour, alternating from black."""
    return {(x - 1, y - 1): "B" if i % 2 == 0 else "W" for i, (x, y, _ms) in enumerate(moves)}


def swap2_board(r) -> tuple[dict[tuple[int, int], str], int]:
    """The stones of a Swap2 game as its own rules placed them (0-based (x, y) -> colour), and how
    many of them the opening placed."""
    from kothkit.game import Setup
    from kothkit_gomoku_swap2.match import Swap2Match
    from kothkit_gomoku_swap2.rules import BLACK

    match = Swap2Match(Setup(players=r.players, seed=r.seed))
    opening = 0
    for m in r.moves:
        in_opening = match.phase != "game"
        if match.play(m.seat, m.reply) is not None:
            break
        if in_opening:
            opening = len(match.board.stones)
    return {(s.x, s.y): "B" if s.color == BLACK else "W" for s in match.board.stones}, opening


def test_swap2_games_export_as_psq_as_piskvork_reads_them_or_are_refused(swap2, tmp_path):
    archive = open_journal(swap2)
    written = refused = 0
    for r in archive.records:
        board, opening = swap2_board(r)
        proc = kothkit("export", swap2, r.id[:12], "--format", "psq", "--out", "-", cwd=tmp_path, check=False)
        opening_colours = sorted(board[c] for c in list(board)[:opening])
        b, w = opening_colours.count("B"), opening_colours.count("W")
        if b == w or (b == w + 1 and len(board) == opening):
            # B took white with a stone of its own (black moves next), or no move followed the opening.
            assert proc.returncode == 0, proc.stderr
            size, moves, names = read_psq(proc.stdout)
            assert size == (15, 15) and len(moves) == len(board)
            assert board_of_psq(moves) == board
            assert sorted(names[:2]) == sorted(r.players)
            written += 1
        else:
            # Black moved after an opening of more black stones than white: no .psq can hold it.
            assert proc.returncode == 1 and not proc.stdout
            assert f"game #{r.index} ({r.id[:12]}) cannot be written as psq: its stone " in proc.stderr
            assert "alternating from black (SGF and JSON hold it)" in proc.stderr
            refused += 1
    assert refused >= 1
    every = kothkit("export", swap2, "--format", "psq", "--out", tmp_path / "psq", cwd=tmp_path, check=False)
    assert every.returncode == 1 and "cannot be written as psq" in every.stderr
    assert not (tmp_path / "psq").exists()  # all or nothing: no file of a refused export


def test_psq_of_an_opening_with_two_stones_of_a_colour_in_a_row_reads_back_as_it_was():
    from kothkit.formats import Stone, Unwritable, psq

    # classic12's centre four, placed B, B, W, W, then a white move and a black one.
    stones = [Stone(5, 5, True), Stone(6, 6, True), Stone(6, 5, False), Stone(5, 6, False),
              Stone(3, 4, True, 120), Stone(8, 8, False, 80)]
    size, moves, names = read_psq(psq(12, 12, stones, "a", "b", opening=4))
    assert board_of_psq(moves) == {(s.x, s.y): "B" if s.black else "W" for s in stones}
    assert [m[2] for m in moves[4:]] == [120, 80] and names == ["a", "b"]
    # Swap2's opening then black: the fourth stone would read as white.
    with pytest.raises(Unwritable, match="2 black and 0 white"):
        psq(15, 15, stones[:2] + stones[3:4] + [Stone(1, 1, True)], "a", "b", opening=2)
    with pytest.raises(Unwritable, match="stone 4"):
        psq(15, 15, stones[:2] + stones[3:4] + [Stone(1, 1, True)], "a", "b", opening=3)


def test_swap2_sgf_is_read_by_sgfmill(swap2, tmp_path):
    kothkit("export", swap2, "-f", "sgf", "-o", tmp_path / "sgf", cwd=tmp_path)
    archive = open_journal(swap2)
    won = 0
    for r in archive.records:
        (f,) = (tmp_path / "sgf").glob(f"*{r.id[:12]}.sgf")
        game = sgf.Sgf_game.from_bytes(f.read_bytes())
        root = game.get_root()
        assert game.get_size() == 15 and root.get("GM") == 4 and root.get("FF") == 4
        assert {root.get("PB"), root.get("PW")} == set(r.players)
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", root.get("DT"))
        moves = [n.get_move() for n in game.get_main_sequence()[1:]]
        # sgfmill counts rows from the bottom; x is the column
        cells = [(col, 14 - row) for _colour, (row, col) in moves]
        expected = [c for m in r.moves for c in swap2_cells(m.reply)]
        assert cells == expected[: len(cells)] and len(cells) >= 3
        winner = root.get("RE")
        if r.winner is None:
            assert winner == "0"
        else:
            colour = "B" if root.get("PB") == r.winner else "W"
            assert winner.startswith(colour + "+")
            if r.verdict == "crash":
                assert winner == colour + "+F"
            else:
                won += 1
                assert moves[-1][0] == colour.lower()  # the winner placed the last stone
    assert won >= 1


def test_classic12_exports_the_opening_then_the_moves(classic12, tmp_path):
    archive = open_journal(classic12)
    r = next(r for r in archive.records if r.verdict == "timeout")
    text = kothkit("export", classic12, r.id[:12], "-f", "psq", "-o", "-", cwd=tmp_path).stdout
    size, moves, names = read_psq(text)
    assert size == (12, 12) and names[:2] == list(r.players)
    played = [tuple(map(int, m.reply.split())) for m in r.moves if m.reply != "OK"]
    # Piskvork reads colours alternating from black: the centre four come B, W, B, W.
    assert [(y - 1, x - 1) for x, y, _ in moves] == [(5, 5), (5, 6), (6, 6), (6, 5), *played]
    colours = board_of_psq(moves)
    assert [colours[(c, r_)] for r_, c in [(5, 5), (6, 6), (5, 6), (6, 5)]] == ["B", "B", "W", "W"]
    assert all(colours[(c, r_)] == "BW"[i % 2] for i, (r_, c) in enumerate(played))
    game = sgf.Sgf_game.from_bytes(kothkit("export", classic12, r.id[:12], "-f", "sgf", "-o", "-",
                                           cwd=tmp_path).stdout.encode())
    assert game.get_size() == 12 and game.get_root().get("RE") == ("B+T" if r.winner == r.players[0] else "W+T")


def test_json_is_one_document_per_game_with_prompts_replies_times_and_outcome(connect4, tmp_path):
    kothkit("export", connect4, "-o", tmp_path / "json", cwd=tmp_path)
    archive = open_journal(connect4)
    for r in archive.records:
        (f,) = (tmp_path / "json").glob(f"*{r.id[:12]}.json")
        doc = json.loads(f.read_text())
        assert doc["document"] == "kothkit-game" and doc["id"] == r.id and doc["players"] == list(r.players)
        assert [s["reply"] for s in doc["steps"]] == [m.reply for m in r.moves]
        assert [s["ms"] for s in doc["steps"]] == [m.ms for m in r.moves]
        assert all(s["sent"] and s["sent"][-1]["seat"] == s["seat"] for s in doc["steps"])
        assert doc["outcome"] == {"winner": r.winner, "reason": r.reason, "offender": r.offender,
                                      "verdict": r.verdict, "fault": r.offender}  # "fault": the old name
    bad = kothkit("export", connect4, "-f", "psq", "-o", tmp_path / "nothing", cwd=tmp_path, check=False)
    assert bad.returncode == 1 and "do not export as 'psq' (formats: html, json)" in bad.stderr
    assert not (tmp_path / "nothing").exists()
