"""One ranking everywhere: the host's Scoreboard, ``kothkit report`` on the host's journal and
``kothkit run`` on the same challenge number the same tie the same way (issue 37's probes 1 and 4):
real hosts, real bots (Python, run contained as the host runs strangers' code), real journals."""

from __future__ import annotations

import json
import time
from pathlib import Path

from kothkit.serve.host import Host

#: A connect4 brain: one column a prompt (a full column is a pass, never illegal).
PLAYER = "import sys\nfor i, _ in enumerate(sys.stdin):\n    print((i + 3) % 7, flush=True)\n"
#: A bot that leaves at once: it loses each game it is asked to move in first, so two of them
#: beat each other once each and are level on everything but their names and dates.
QUITTER = "import sys\nsys.exit(0)\n"


def bot(where: Path, name: str, code: str, submitted: str | None = None) -> None:
    d = where / name
    d.mkdir(parents=True)
    (d / "bot.py").write_text(code)
    (d / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "bot.py"]\n'
                                + (f'submitted = "{submitted}"\n' if submitted else ""))


def until_counted(host: Host, name: str, games: int, timeout: float = 120.0) -> None:
    end, version = time.monotonic() + timeout, -1
    while True:
        info = host.challenge(name)
        if len(host.games(name)) == games and info.queued == 0 and info.playing == 0:
            return
        left = end - time.monotonic()
        assert left > 0, f"timed out: {info}"
        version = host.wait(name, version, min(left, 2.0))


def scoreboard_of(ch: Path, game: str, games: int, state: Path, hosts) -> list:
    """The Scoreboard of folder challenge ``ch`` of ``game`` (one round, seed 3) served until its
    ``games`` games are counted; the host stopped."""
    (ch / "kothkit.toml").write_text(f'game = "{game}"\nbots = ["bots"]\nrounds = 1\nseed = 3\n')
    host = hosts([ch], state, jobs=2)
    host.start()
    until_counted(host, ch.name, games)
    board = host.standings(ch.name)
    host.stop()
    return board


def report_ranks(cli, journal: Path) -> list[tuple[str, int]]:
    """(bot, rank) of ``kothkit report --markdown`` on ``journal``, in its order."""
    out = cli("report", journal, "--markdown", "--private", check=True).stdout
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in out.splitlines()
            if line.startswith("| ") and not line.startswith("| #")]
    return [(r[1], int(r[0])) for r in rows]


def test_a_tie_is_ranked_alike_by_the_scoreboard_report_and_run(tmp_path, hosts, cli):
    """connect4 breaks ties by name: two bots level on points and wins rank 2 and 3 everywhere (the
    Scoreboard gave them 2 and 2)."""
    ch = tmp_path / "koth"
    bot(ch / "bots", "gamma", PLAYER)
    bot(ch / "bots", "beta", QUITTER)
    bot(ch / "bots", "alpha", QUITTER)
    board = scoreboard_of(ch, "connect4_hidden", 6, tmp_path / "state", hosts)
    alpha, beta = (next(s for s in board if s.bot == b) for b in ("alpha", "beta"))
    assert (alpha.points, alpha.wins) == (beta.points, beta.wins)  # a tie, level on all but the name
    scoreboard = [(s.bot, s.rank) for s in board]
    assert scoreboard == [("gamma", 1), ("alpha", 2), ("beta", 3)]

    journal = ch / "kothkit.sqlite"
    assert report_ranks(cli, journal) == scoreboard
    doc = cli.run_json("run", ch, "--db", journal, "-q")
    assert (doc["played"], doc["reused"]) == (0, 6)  # run counts the host's own games
    assert [(s["bot"], s["rank"]) for s in doc["standings"]] == scoreboard


def test_a_folder_challenges_tie_goes_by_submitted_everywhere(tmp_path, hosts, cli):
    """Swap2 breaks ties by bot.toml's ``submitted``: the Scoreboard, ``run`` and ``report`` on the
    host's journal all put the earlier-submitted bot first (``report`` ordered them by name: the
    host's runs left the dates out), and the Scoreboard goes by bot.toml's date, not the folder's time."""
    ch = tmp_path / "swap"
    bot(ch / "bots", "zulu", QUITTER, submitted="2018-08-20")
    bot(ch / "bots", "alpha", QUITTER, submitted="2018-08-26")
    board = scoreboard_of(ch, "gomoku_swap2", 2, tmp_path / "state", hosts)
    assert board[0].points == board[1].points
    scoreboard = [(s.bot, s.rank) for s in board]
    assert scoreboard == [("zulu", 1), ("alpha", 2)]

    journal = ch / "kothkit.sqlite"
    [run] = [json.loads(b) for (b,) in _runs(journal)]
    assert {b["name"]: b.get("submitted") for b in run} == {"zulu": "2018-08-20", "alpha": "2018-08-26"}
    assert report_ranks(cli, journal) == scoreboard
    doc = cli.run_json("run", ch, "--db", journal, "-q")
    assert (doc["played"], doc["reused"]) == (0, 2)
    assert [(s["bot"], s["rank"]) for s in doc["standings"]] == scoreboard


def _runs(journal: Path) -> list[tuple[str]]:
    import sqlite3

    with sqlite3.connect(journal) as db:
        return db.execute("SELECT bots FROM runs").fetchall()
