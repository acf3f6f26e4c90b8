"""``kothkit run`` and ``kothkit serve`` play one challenge's games under the same ids, a challenge
with its own ``[limits]`` too (issue 37's probe 3): the game's registration is never copied to carry
them, so each records the plugin and neither plays again what the other played.  A real host, real
function bots (contained, as the host runs strangers' code), the bundled connect4_course's settings."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from pathlib import Path

from kothkit.serve.host import Host

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "challenges" / "connect4_course" / "kothkit.toml"
BUNDLED = ROOT / "plugins" / "connect4_hidden" / "bots"


def course_as_a_folder(where: Path) -> Path:
    """connect4_course (its game, games per pair and [limits]) as a folder challenge of two bundled bots."""
    text = COURSE.read_text().split("[serve]")[0]
    assert "[limits]" in text
    d = where / "course"
    for b in ("random_player", "constant_player"):
        shutil.copytree(BUNDLED / b, d / "bots" / b)
    (d / "kothkit.toml").write_text('bots = ["bots"]\nseed = 3\n' + text)
    return d


def served(ch: Path, state: Path, hosts, expect: int) -> int:
    """Serve ``ch`` until nothing is queued or in play and at least ``expect`` games are counted
    (a game that left play is counted a moment later: idle alone is not the end); the games counted."""
    host: Host = hosts([ch], state, jobs=2)
    host.start()
    end, version = time.monotonic() + 120, -1
    while True:
        info = host.challenge("course")
        if info.queued == 0 and info.playing == 0 and len(host.games("course")) >= expect:
            break
        assert time.monotonic() < end, f"timed out: {info}, {len(host.games('course'))} games counted"
        version = host.wait("course", version, 2.0)
    n = len(host.games("course"))
    host.stop()
    return n


def stored(journal: Path) -> tuple[int, list[dict]]:
    with sqlite3.connect(journal) as db:
        games = db.execute("SELECT count(*) FROM games").fetchone()[0]
        runs = [json.loads(s) for (s,) in db.execute("SELECT settings FROM runs")]
    return games, runs


def test_run_then_serve_then_run_play_each_game_once(tmp_path, hosts, cli):
    ch = course_as_a_folder(tmp_path)
    journal = ch / "kothkit.sqlite"
    first = cli.run_json("run", ch, "--db", journal, "-q", "--jobs", "2")
    assert first["played"] == first["total"] == 10 and first["reused"] == 0
    # The run knows its game's plugin: a challenge's [limits] did not make the game a stranger.
    [run] = stored(journal)[1]
    assert run["game"]["plugin"] is not None, run

    assert served(ch, tmp_path / "state", hosts, 10) == 10
    assert stored(journal)[0] == 10  # the host counted run's games and played none again

    again = cli.run_json("run", ch, "--db", journal, "-q", "--jobs", "2")
    assert (again["played"], again["reused"]) == (0, 10)
    assert stored(journal)[0] == 10


def test_serve_then_run(tmp_path, hosts, cli):
    ch = course_as_a_folder(tmp_path)
    journal = ch / "kothkit.sqlite"
    assert served(ch, tmp_path / "state", hosts, 10) == 10
    doc = cli.run_json("run", ch, "--db", journal, "-q", "--jobs", "2")
    assert (doc["played"], doc["reused"]) == (0, 10)
    assert stored(journal)[0] == 10
