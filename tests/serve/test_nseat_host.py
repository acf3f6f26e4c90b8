"""The host plays a challenge of a game of more than two seats (lowbid, the bundled lowest unique bid)
as tables: real bot folders (a Python program, a C program built by the jail, a Python function),
real games, real SQLite.  A bot added, replaced and dropped changes the tables; the Scoreboard
counts the game's points (mean ± error) and rates by openskill; the crosstable says how often a bot
placed above another; each game keeps every seat's place, points and verdict."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import NamedTuple

import pytest

from kothkit.store.ratings import rate_tables

from tests.serve.test_host import settled, until
from tests.serve.webserver import kothkit

ROOT = Path(__file__).resolve().parents[2]
LOWBID = ROOT / "plugins" / "lowbid" / "bots"

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

CRASHER = """import sys
n = 0
for line in sys.stdin:
    if line.startswith("BID "):
        n += 1
        if n == 2:
            sys.stderr.write("crasher-secret-stderr\\n")
            sys.exit(3)
        print(2, flush=True)
    elif line.startswith("END"):
        break
"""


def python_bot(where: Path, name: str, source: str) -> Path:
    d = where / name
    d.mkdir(parents=True)
    (d / "bot.py").write_text(source)
    (d / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "bot.py"]\n')
    return d


def lowbid_challenge(root: Path, bots: tuple[str, ...] = ("one", "tracker", "dodger")) -> Path:
    d = root / "lowbid"
    for b in bots:
        shutil.copytree(LOWBID / b, d / "bots" / b, ignore=shutil.ignore_patterns("__pycache__"))
    (d / "kothkit.toml").write_text('game = "lowbid"\nbots = ["bots"]\nrounds = 1\nseed = 7\n'
                                    '[rules]\nrounds = 3\nmax_bid = 5\n[serve]\nkind = "folder"\n')
    return d


def seat_rows(journal: Path) -> list[tuple]:
    with sqlite3.connect(journal) as db:
        return list(db.execute("SELECT players, seat_places, seat_points, seat_verdicts FROM games"))


def rated_as_by_a_full_recompute(host) -> None:
    """The Scoreboard's ratings (kept game by game, kothkit.store.ratings.TableRater) are those of
    every counted game rated again in schedule order, to the last bit."""
    table = {s.bot: (s.skill, s.skill_error) for s in host.standings("lowbid")}
    games = sorted(host.games("lowbid"), key=lambda g: (g.index, g.id))
    full = {r.bot: (r.mu, r.sigma) for r in rate_tables(Seated(g.bots, g.winner, g.seat_places, g.seat_points)
                                                         for g in games)}
    assert table == {bot: full[bot] for bot in table} and set(table) <= set(full), (table, full)


class Seated(NamedTuple):
    players: tuple[str, ...]
    winner: str | None
    seat_places: tuple[int, ...] | None
    seat_points: tuple[float, ...] | None


def test_a_folder_challenge_of_tables_is_played_changed_and_scored(tmp_path, hosts):
    ch = lowbid_challenge(tmp_path)
    host = hosts([ch], tmp_path / "state", jobs=2)
    host.start()
    # Three bots: every table seats all three, once in each seat (3 games).
    until(host, "lowbid", lambda: len(host.games("lowbid")) == 3 and settled(host, "lowbid"), timeout=120)
    table = host.standings("lowbid")
    assert sorted(s.bot for s in table) == ["dodger", "one", "tracker"]
    assert all(s.games == 3 and not s.provisional for s in table)
    for g in host.games("lowbid"):
        assert len(g.bots) == 3 and g.seat_places is not None and g.seat_points is not None and g.seat_verdicts == (None,) * 3
    # Points count: the standings' points are the games' own (lowbid scores by mean points).
    got = {s.bot: s.points for s in table}
    want: dict[str, float] = {}
    for g in host.games("lowbid"):
        for bot, _place, points, _verdict in g.seat_rows():
            want[bot] = want.get(bot, 0.0) + points
    assert got == pytest.approx({b: p / 3 for b, p in want.items()})
    assert all(s.skill is not None and s.skill_error is not None and s.error is not None for s in table)
    rated_as_by_a_full_recompute(host)
    cross = host.crosstable("lowbid")
    assert cross.placings and all(cross.cell(a, b) is not None for a in got for b in got if a != b)
    above, level, below = cross.counts[("one", "tracker")]
    assert above + level + below == 3 and (above, below) == cross.counts[("tracker", "one")][::2][::-1]

    # A fourth bot: tables of four (4 games, each bot in 4); the old tables are gone from the board.
    python_bot(ch / "bots", "crasher", CRASHER)
    until(host, "lowbid", lambda: {s.bot: s.games for s in host.standings("lowbid")} ==
          {"crasher": 4, "dodger": 4, "one": 4, "tracker": 4} and settled(host, "lowbid"), timeout=120)
    games = host.games("lowbid")
    assert len(games) == 4 and all(len(g.bots) == 4 for g in games)
    for g in games:  # the crasher leaves alone, last with no points; the others finish
        rows = {bot: (place, points, verdict) for bot, place, points, verdict in g.seat_rows()}
        assert rows["crasher"] == (4, 0.0, "crash"), rows
        assert all(v is None and p < 4 for b, (p, _pts, v) in rows.items() if b != "crasher")
        assert g.offender == "crasher" and g.verdict == "crash"
    rated_as_by_a_full_recompute(host)

    # Replaced (same name, new code): its tables again; dropped: back to tables of three.
    shutil.rmtree(ch / "bots" / "crasher")
    python_bot(ch / "bots", "crasher", CRASHER.replace("n == 2", "n == 99"))
    until(host, "lowbid", lambda: all(g.verdict is None for g in host.games("lowbid"))
          and len(host.games("lowbid")) == 4 and settled(host, "lowbid"), timeout=120)
    rated_as_by_a_full_recompute(host)
    shutil.rmtree(ch / "bots" / "crasher")
    until(host, "lowbid", lambda: len(host.games("lowbid")) == 3 and settled(host, "lowbid"), timeout=120)
    rated_as_by_a_full_recompute(host)
    # The ratings were kept: new games rated on top of them as they came, all again when games went.
    rater = host._get("lowbid").rater
    assert rater.on_top >= 1 and rater.from_kept + rater.restarts >= 2, rater
    # The first three tables were found again in the journal, not played again.
    assert len(seat_rows(ch / "kothkit.sqlite")) == 3 + 4 + 4
    # The report counts the current tables only (a table of the earlier field of four is superseded).
    host.stop()
    done = kothkit("report", ch / "kothkit.sqlite", "--markdown", cwd=tmp_path)
    assert done.returncode == 0 and "3 games played by 3 bots" in done.stdout, done.stdout + done.stderr


def test_the_check_before_the_ladder_of_a_table_game_is_refused_by_name(tmp_path):
    from kothkit.serve.host import Host, SettingsError

    ch = lowbid_challenge(tmp_path, bots=("one",))
    (ch / "kothkit.toml").write_text((ch / "kothkit.toml").read_text().replace('kind = "folder"\n',
                                                                               'kind = "submissions"\ncheck = true\n'))
    with pytest.raises(SettingsError, match="check = true: lowbid seats 3-10 players a game; the check before"):
        Host([ch], tmp_path / "state", 1)
