"""What ``kothkit run`` prints around the standings: faults, progress, bots left out, notices, help.

Real ``kothkit`` subprocesses (so output is a pipe, not a terminal) with small test bots:
connect4 function bots, which play in milliseconds, and a node bot that throws.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
C4 = ROOT / "tests" / "bots" / "connect4"


def _games(doc: dict) -> dict[str, dict]:
    return {g["id"]: g for g in doc["games"]}


def test_faults_name_their_game_whether_played_now_or_reused(cli, tmp_path):
    args = ("run", "connect4_hidden", "--bots", f"{C4}/raiser.py:raiser", "--bots", "constant_player",
            "--rounds", "2", "--seed", "5", "--jobs", "1", "--db", tmp_path / "j.sqlite")
    first = cli(*args, "--json", tmp_path / "a.json", check=True)
    doc = json.loads((tmp_path / "a.json").read_text())
    faulty = sorted((g["index"], g["id"]) for g in doc["games"] if g["fault"])
    assert len(faulty) == 4  # raiser raises on turn 4 of every game
    for out, tag, how in ((first.stdout, "", "4 played now"), (None, "  (reused)", "4 reused from the journal")):
        if out is None:  # the same tournament again: every game is reused, and its faults still listed
            out = cli(*args, check=True).stdout
        assert f"faults: 4 games lost by a fault ({how})" in out
        lines = [l for l in out.splitlines() if re.match(r"  #\d+ ", l)]
        # One line a fault, in schedule order, with the game's index and the start of its id.
        assert [l.split()[:2] for l in lines] == [[f"#{i}", gid[:8]] for i, gid in faulty]
        for l in lines:
            assert re.search(r"raiser lost to constant_player: crash: raised ValueError: raiser gives up on turn [45] "
                             r"\(raiser\.py, line 6, in raiser\)" + re.escape(tag) + "$", l), l
    assert "games: 0 played, 4 reused, 4 in all" in out


def test_many_faults_are_counted_per_bot_beyond_the_first_twenty(cli, tmp_path):
    out = cli("run", "connect4_hidden", "--bots", f"{C4}/raiser.py:raiser", "--bots", "constant_player",
              "--rounds", "12", "--seed", "5", "--db", tmp_path / "j.sqlite", check=True).stdout
    assert "faults: 24 games lost by a fault (24 played now)" in out
    assert len([l for l in out.splitlines() if re.match(r"  #\d+ ", l)]) == 20
    assert "  ... and 4 more; in all: raiser 24 crash" in out


def test_a_run_into_a_pipe_prints_plain_progress_lines(cli, tmp_path):
    # sleeper never answers in the game phase: each game waits out the 1 s move time.
    args = ("run", "gomoku_swap2", "--bots", ROOT / "tests" / "bots" / "swap2" / "sleeper", "--bots", "greedy",
            "--rounds", "2", "--seed", "1", "--jobs", "1", "--move-time", "1", "--db", tmp_path / "j.sqlite")
    done = cli(*args, "--progress-every", "0.5", check=True)
    lines = [l for l in done.stdout.splitlines() if l.startswith("progress: ")]
    # On a timer, also while no game has finished yet (each takes over a second, at --jobs 1 played
    # by the judge's own thread).
    assert re.fullmatch(r"progress: 0/4 games, 0:00:0\d elapsed", lines[0]), done.stdout
    assert any(re.fullmatch(r"progress: [123]/4 games, 0:00:0\d elapsed, [\d.]+ games/s, about 0:00:\d\d left, "
                            r"[123] faults?", l) for l in lines), done.stdout
    done_at = [int(l.split()[1].split("/")[0]) for l in lines]
    assert done_at == sorted(done_at)
    # --quiet: none.
    quiet = cli(*args, "--new-seed", "--progress-every", "0", "-q", check=True)
    assert "progress:" not in quiet.stdout


def test_bundled_bots_by_name_and_a_bot_left_out_in_the_summary(cli, tmp_path):
    done = cli("run", "connect4_hidden", "--bots", "deducer", "--bots", "constant_player", "--bots", "nobody",
               "--bots", f"{tmp_path}/missing.py:player", "--rounds", "1", "--seed", "1",
               "--db", tmp_path / "j.sqlite", check=True)
    assert "│ deducer" in done.stdout and "│ constant_player" in done.stdout
    tail = done.stdout[done.stdout.index("games: 2 played"):]
    assert "left out: 2 bots that did not load or build (details above):" in tail
    assert "  nobody: no such bot folder, file.py:function, or bundled bot of connect4_hidden (bundled: " in tail
    assert "missing.py:player: no such file" in tail


def test_more_jobs_than_cores_is_noticed(cli, tmp_path):
    cores = len(os.sched_getaffinity(0))
    done = cli("run", "connect4_hidden", "--bots", "deducer", "--bots", "constant_player", "--rounds", "1",
               "--seed", "1", "--jobs", str(cores + 1), "--db", tmp_path / "j.sqlite", check=True)
    assert f"jobs {cores + 1} on {cores} cores: games share cores" in done.stdout


def test_a_crash_quotes_the_line_that_says_what_went_wrong(cli, tmp_path):
    # node writes the error 13 lines above its last line, "Node.js v20...".
    doc = cli.run_json("run", "gomoku_swap2", "--bots", ROOT / "tests" / "bots" / "swap2" / "node_thrower",
                       "--bots", "scout", "--rounds", "1", "--seed", "1", "--jobs", "1")
    reasons = {g["reason"] for g in doc["games"] if g["fault"] == "node_thrower"}
    assert len(reasons) == 2
    for r in reasons:
        assert re.fullmatch(r"crash: exited with code 1; stderr: 'Error: node_thrower cannot read \"[AB]\"'", r), r


def test_version_and_plain_help(cli):
    import kothkit

    assert cli("--version", check=True).stdout.strip() == f"kothkit {kothkit.__version__}"
    for command in ("run", "debug", "check", "verify", "new-game"):
        text = cli(command, "--help", check=True).stdout
        assert not re.search(r"<(bool|int|float|str|path|list\[\w+\])>", text), text
    run = cli("run", "--help", check=True).stdout
    for option, metavar in (("--seed", "N"), ("--move-time", "S"), ("--memory-mb", "MB"), ("--db", "PATH"),
                            ("--bots", "BOT")):
        assert re.search(rf"{option}\s+{metavar}\s", run), (option, run)
    assert re.search(r"--trusted\s+Call", run)  # a flag takes no value: no metavar
    # Arguments in the usage lines as click writes them: required in capitals, optional in brackets.
    assert re.search(r"Usage: .*kothkit run \[OPTIONS\] TARGET\s", run), run
    assert re.search(r"Usage: .*kothkit show \[OPTIONS\] TARGET \[GAME\]\s", cli("show", "--help", check=True).stdout)


def test_a_table_into_a_pipe_keeps_whole_names_and_headings(cli, tmp_path):
    # No COLUMNS: output into a pipe has no width to fit, so the table is as wide as its content.
    name = "a_bot_whose_name_is_longer_than_any_terminal_would_leave_room_for_in_the_table"
    (tmp_path / "long.py").write_text(f"def {name}(view, turn, state):\n    return 0, state\n")
    done = cli("run", "connect4_hidden", "--bots", f"{tmp_path}/long.py:{name}", "--bots", "deducer", "--rounds", "1",
               "--seed", "1", "--db", tmp_path / "j.sqlite", "-q", check=True, env={"COLUMNS": ""})
    assert "…" not in done.stdout, done.stdout
    rows = [l for l in done.stdout.splitlines() if l.startswith("│")]
    assert any(f"│ {name} " in l for l in rows), done.stdout
    head = next(l for l in done.stdout.splitlines() if "bot" in l and l.startswith("┃"))
    assert [c.strip() for c in head.strip("┃").split("┃")][:7] == ["#", "bot", "score", "wins", "draws", "losses",
                                                                   "games"]
