"""A stateful bot's record (kothkit.bots.kept) of a folder whose names are not UTF-8: a stranger's
folder may hold any bytes in a file's name or a link's target, and its identity must still be
worked out (it raised UnicodeEncodeError in the host's scan, at every scan)."""

from __future__ import annotations

import os

from kothkit.bots.kept import Record, identify, manifest
from kothkit.botspec import BotSpec

ODD = os.fsdecode(b"\xff\xfe")  # (no UTF-8: a lone surrogate in Python's str)


def test_a_link_to_a_name_that_is_not_utf8(tmp_path):
    folder = tmp_path / "keeper"
    folder.mkdir()
    (folder / "bot.py").write_text("print('move')\n")
    (folder / ODD).write_text("book\n")
    os.symlink(ODD, folder / "book")
    b = BotSpec(name="keeper", path=folder, command=("python3", "bot.py"), stateful=True, hash="1" * 64)
    _b, record = identify(b, None)
    assert record.given["book"] == "link:" + ODD
    # It plays, and keeps a diary; then its author changes its code.
    (folder / "diary.txt").write_text("1 game\n")
    record = Record(given=record.given, left=manifest(b), identity=record.identity)
    (folder / "bot.py").write_text("print('better move')\n")
    changed, after = identify(b, Record.loads(record.dumps()))
    assert changed.hash not in (b.hash, record.identity)
    assert after.given["book"] == "link:" + ODD and "diary.txt" not in after.given
    assert Record.loads(after.dumps()) == after


def test_a_folder_whose_name_is_not_utf8(tmp_path):
    from kothkit.playing.keeping import Records, identities
    from kothkit.store.journal import Journal

    folder = tmp_path / "bots" / ODD
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text("print('move')\n")
    b = BotSpec(name="keeper", path=folder, command=("python3", "bot.py"), stateful=True, hash="1" * 64)
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        records = Records(j, path)
        assert records.identify([b], (), {}) == [b]
        (folder / "diary.txt").write_text("1 game\n")
        records.played([b])
    with Journal(path, readonly=True) as j:
        [again], kept = identities(j, path, [b])
        assert again.hash == b.hash and "diary.txt" in next(iter(kept.values())).left
