"""``kothkit report``'s leaderboard gives each bot's highest memory peak over its games (the journal's
``memory`` column, kept where a bot's memory cgroup measures it), in ``--markdown`` and on the site's
index, and so does ``kothkit run``'s table on the terminal; a journal that kept no peak (a machine
without memory cgroups, or from before they were kept) has no such column."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing

from tests.results.conftest import kothkit
from tests.results.test_report import markdown_table


def peaks_of(db) -> dict[str, int]:
    """Each bot's highest peak, read straight from the journal's rows."""
    peaks: dict[str, int] = {}
    with closing(sqlite3.connect(db)) as con:
        for players, memory in con.execute("SELECT players, memory FROM games"):
            for bot, mib in zip(json.loads(players), json.loads(memory) if memory else ()):
                if mib is not None:
                    peaks[bot] = max(peaks.get(bot, 0), mib)
    return peaks


def test_the_leaderboard_gives_each_bots_highest_memory_peak(classic12, tmp_path):
    db = tmp_path / "j.sqlite"
    shutil.copy(classic12, db)
    kept = peaks_of(db)
    rows = markdown_table(kothkit("report", db, "--markdown", cwd=tmp_path).stdout)
    if kept:  # (this machine's bots ran in memory cgroups)
        assert {r["bot"]: r["memory peak"] for r in rows} == {b: f"{kept[b]} MiB" for b in kept}
    else:
        assert all("memory peak" not in r for r in rows)
    # Peaks as a host with memory cgroups keeps them: steady's grow game by game, tardy's are 17 in
    # seat 1 and 3 in seat 0, the others' never measured (None in their seats).
    with closing(sqlite3.connect(db)) as con, con:
        games = list(con.execute("SELECT id, players FROM games ORDER BY idx"))
        for n, (gid, players) in enumerate(games):
            seats = json.loads(players)
            mem = [{"steady": 20 + n, "tardy": 17 if i == 1 else 3}.get(bot) for i, bot in enumerate(seats)]
            con.execute("UPDATE games SET memory = ? WHERE id = ?", (json.dumps(mem), gid))
    want = peaks_of(db)
    assert set(want) == {"steady", "tardy"}
    text = kothkit("report", db, "--markdown", cwd=tmp_path).stdout
    rows = markdown_table(text)
    assert {r["bot"]: r["memory peak"] for r in rows} == {
        "steady": f"{want['steady']} MiB", "tardy": f"{want['tardy']} MiB", "malformed": "-", "out_of_turn": "-"}
    # The site's leaderboard has the column too.
    kothkit("report", db, "--out", tmp_path / "site", "--no-pages", cwd=tmp_path)
    index = (tmp_path / "site" / "index.html").read_text()
    assert "<th>memory peak</th>" in index and f"{want['steady']} MiB" in index


def test_runs_table_gives_each_bots_highest_memory_peak(classic12, tmp_path):
    db = tmp_path / "j.sqlite"
    shutil.copy(classic12, db)
    with closing(sqlite3.connect(db)) as con, con:
        for n, (gid, players) in enumerate(list(con.execute("SELECT id, players FROM games ORDER BY idx"))):
            mem = [{"steady": 30 + n, "tardy": 5}.get(bot) for bot in json.loads(players)]
            con.execute("UPDATE games SET memory = ? WHERE id = ?", (json.dumps(mem), gid))
    want = peaks_of(db)
    # The same tournament again: every game is reused from the journal, peaks and all.
    done = kothkit("run", "gomoku_classic12", "--bots", classic12.parent / "bots", "--seed", "5", "--move-time", "0.3",
                   "--db", db, "-q", cwd=tmp_path)
    lines = done.stdout.splitlines()
    head = next(line for line in lines if line.startswith("┃") and "bot" in line)
    assert [c.strip() for c in head.strip("┃").split("┃")][-1] == "memory peak", done.stdout
    last = {c[1]: c[-1] for line in lines if line.startswith("│")
            for c in [[x.strip() for x in line.strip("│").split("│")]]}
    assert last == {"steady": f"{want['steady']} MiB", "tardy": f"{want['tardy']} MiB", "malformed": "-",
                    "out_of_turn": "-"}, done.stdout
