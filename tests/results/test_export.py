"""``kothkit export``: Piskvork .psq read back gives the games' moves; SGF read by sgfmill; json."""

from __future__ import annotations

import json
import re

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


def test_swap2_games_export_as_psq_with_their_moves_in_placement_order(swap2, tmp_path):
    kothkit("export", swap2, "--format", "psq", "--out", tmp_path / "psq", cwd=tmp_path)
    archive = open_journal(swap2)
    files = sorted((tmp_path / "psq").glob("*.psq"))
    assert len(files) == len(archive.records) == 6
    for r in archive.records:
        (f,) = [f for f in files if r.id[:12] in f.name]
        size, moves, names = read_psq(f.read_text())
        assert size == (15, 15)
        expected = [c for m in r.moves for c in swap2_cells(m.reply if isinstance(m.reply, str) else "")]
        if r.verdict == "invalid-reply" or r.verdict == "illegal-move":
            expected = expected[: len(moves)]
        assert [(x - 1, y - 1) for x, y, _ in moves] == expected
        assert sorted(names[:2]) == sorted(r.players)
        # the opening's three stones come first, in the order placed: black, black, white
        assert [(x - 1, y - 1) for x, y, _ in moves[:3]] == swap2_cells(r.moves[0].reply)
        assert moves[0][2] == round(r.moves[0].ms)


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
    assert [(y - 1, x - 1) for x, y, _ in moves] == [(5, 5), (6, 6), (5, 6), (6, 5), *played]
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
