"""``kothkit verify``'s copy of a stateful bot's folder (kothkit.playing.verify.replay_copy): what a
stranger's bot left in its folder (its ``state/`` is its own to fill) must not crash or stall the
copy, nor lead a replay back to the real folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kothkit.bots.folders import MAX_DEPTH
from kothkit.botspec import BotError, BotSpec
from kothkit.playing import verify


def _bot(folder: Path) -> BotSpec:
    folder.mkdir(exist_ok=True)
    (folder / "bot.py").write_text("print('hi')\n")
    os.chmod(folder / "bot.py", 0o755)
    return BotSpec(name="keeper", path=folder, command=("./bot.py",), stateful=True, hash="0" * 64)


def test_copy_keeps_files_modes_and_inner_links(tmp_path):
    b = _bot(tmp_path / "keeper")
    (b.path / "state" / "notes").mkdir(parents=True)
    (b.path / "state" / "notes" / "a.txt").write_text("diary\n")
    os.symlink("notes/a.txt", b.path / "state" / "relative")
    copy = verify.replay_copy(b, tmp_path / "scratch")
    assert copy.path != b.path
    assert (copy.path / "bot.py").read_text() == "print('hi')\n"
    assert os.stat(copy.path / "bot.py").st_mode & 0o777 == 0o755
    assert (copy.path / "state" / "relative").read_text() == "diary\n"
    assert os.readlink(copy.path / "state" / "relative") == "notes/a.txt"


def test_an_absolute_link_into_the_folder_leads_into_the_copy_not_back(tmp_path):
    b = _bot(tmp_path / "keeper")
    (b.path / "state").mkdir()
    (b.path / "state" / "book").write_text("real\n")
    # A link by its absolute path: copied as it is, a replay would write the real folder through it.
    os.symlink(b.path / "state" / "book", b.path / "state" / "book-link")
    os.symlink(tmp_path / "elsewhere", b.path / "state" / "out")  # leads out of the folder
    copy = verify.replay_copy(b, tmp_path / "scratch")
    (copy.path / "state" / "book-link").write_text("written by a replay\n")
    assert (b.path / "state" / "book").read_text() == "real\n"
    assert (copy.path / "state" / "book").read_text() == "written by a replay\n"
    assert not os.path.lexists(copy.path / "state" / "out")


def test_a_fifo_is_left_out(tmp_path):
    b = _bot(tmp_path / "keeper")
    (b.path / "state").mkdir()
    os.mkfifo(b.path / "state" / "pipe")
    copy = verify.replay_copy(b, tmp_path / "scratch")
    assert not os.path.lexists(copy.path / "state" / "pipe")
    assert (copy.path / "bot.py").exists()


def test_a_deep_tree_is_a_clear_error_not_a_crash(tmp_path):
    b = _bot(tmp_path / "keeper")
    d = b.path / "state"
    for _ in range(MAX_DEPTH + 8):  # (shutil.copytree recursed: a few hundred more were a RecursionError)
        d = d / "d"
    d.mkdir(parents=True)
    with pytest.raises(BotError, match="nested more than"):
        verify.replay_copy(b, tmp_path / "scratch")


def test_a_folder_larger_than_the_cap_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(verify, "COPY_BYTES", 1000)
    b = _bot(tmp_path / "keeper")
    (b.path / "state").mkdir()
    with open(b.path / "state" / "big", "wb") as f:
        f.truncate(5000)  # (sparse: a bot's huge file)
    with pytest.raises(BotError, match="larger than"):
        verify.replay_copy(b, tmp_path / "scratch")
