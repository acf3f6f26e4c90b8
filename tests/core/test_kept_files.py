"""Answers that keep files in their own folder (the Swap2 seed allows it; its ``meta`` answers are
stateful): a bot is the code its author gave, not what it wrote while playing.

An answers folder written to seed 002's rules: ``meta`` answers in Python that keep a diary beside
their code (a file, and a sub-folder they make), and a ``bot.toml`` answer that keeps its own in
``state/``.  Each step is a real ``kothkit run`` on one journal: an unchanged rerun plays nothing,
a changed answer replays exactly its games, and ``kothkit verify`` never writes an answer's
real folder.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from kothkit.store.journal import stored_count

#: A Swap2 answer that keeps a diary of its games in its folder; its play does not depend on it.
DIARY = textwrap.dedent('''\
    import os, re, sys, time
    opponent, seed = sys.argv[1], int(sys.argv[2])
    # Keeps files beside its code, as the seed allows: a diary, and a folder of notes.
    games = int(open("diary.txt").read().split()[0]) if os.path.exists("diary.txt") else 0
    with open("diary.txt", "w") as f:
        f.write(f"{games + 1} games, the last against {opponent}\\n")
    os.makedirs("notes", exist_ok=True)
    with open(os.path.join("notes", opponent + ".txt"), "a") as f:
        f.write(f"seed {seed}\\n")
    START = START_CELL
    # (How slow to play: a test's setting, in state/, which is no part of the answer's code.)
    DELAY = float(open("state/delay").read()) if os.path.exists("state/delay") else 0.0
    for raw in iter(sys.stdin.readline, ""):
        line = raw.strip()
        tag, _, rest = line.partition(" ")
        if tag == "EXIT":
            break
        if tag == "A":
            print("(7,7) (9,9) (8,8)", flush=True)
        elif tag in ("B", "C"):
            print("B", flush=True)
        else:
            taken = {(int(x), int(y)) for x, y in re.findall(r"\\(\\((\\d+),(\\d+)\\)", rest)}
            cells = [(x, y) for y in range(15) for x in range(15)]
            x, y = next(c for c in cells[START:] + cells[:START] if c not in taken)
            with open(os.path.join("notes", opponent + ".txt"), "a") as f:
                f.write(f"{x},{y}\\n")
            time.sleep(DELAY)
            print(f"({x},{y})", flush=True)
    ''')


def answer(folder: Path, name: str, start: int, toml: bool = False) -> None:
    folder.mkdir(parents=True)
    code = DIARY.replace("START_CELL", str(start))
    if toml:  # keeps its diary in state/, which is never part of a bot's identity
        code = code.replace('"diary.txt"', '"state/diary.txt"').replace(
            "import os, re, sys, time\n", "import os, re, sys, time\nos.makedirs('state', exist_ok=True)\n")
        (folder / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "{name}.py"]\nstateful = true\n')
    else:
        (folder / "meta").write_text(f"{name}\npython3\n{name}.py\n0\n")
    (folder / f"{name}.py").write_text(code)


def answers(root: Path) -> Path:
    bots = root / "answers"
    answer(bots / "diary", "diary", 0)
    answer(bots / "ledger", "ledger", 40)
    answer(bots / "tally", "tally", 100, toml=True)
    return bots


def run(cli, bots: Path, db: Path, out: Path, *extra: str) -> tuple[dict, str]:
    r = cli("run", "gomoku_swap2", "--bots", bots, "--jobs", "2", "--move-time", "5", "--db", db, "--json", out,
            *extra, timeout=300, check=True)
    return json.loads(out.read_text()), r.stdout


def ctrl_c(args: list[str], db: Path, cwd: Path) -> str:
    """``kothkit ARGS`` (storing its games in ``db``), given Ctrl-C a second into its game after the
    first one stored (as a terminal gives it: to the whole process group); its stderr.  It must
    end as interrupted (130)."""
    judge = subprocess.Popen([sys.executable, "-m", "kothkit", *args], cwd=cwd, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        until = time.monotonic() + 120
        while not (db.exists() and stored_count(db) >= 1):
            assert time.monotonic() < until and judge.poll() is None, "no games stored"
            time.sleep(0.1)
        time.sleep(1.0)  # into the next game
        os.killpg(judge.pid, signal.SIGINT)
        out, err = judge.communicate(timeout=60)
    finally:
        if judge.poll() is None:
            os.killpg(judge.pid, signal.SIGKILL)
            judge.wait()
    assert judge.returncode == 130, (out, err)
    return err


def test_answers_that_keep_files_are_not_replayed_for_what_they_wrote(cli, tmp_path):
    bots = answers(tmp_path)
    db, out = tmp_path / "journal.sqlite", tmp_path / "out.json"

    first, text = run(cli, bots, db, out, "--seed", "5")
    assert (first["played"], first["reused"]) == (6, 0)
    assert not [g for g in first["games"] if g["verdict"]]  # the answers play by the rules
    assert (bots / "diary" / "diary.txt").read_text().startswith("4 games")  # it wrote its folder
    assert (bots / "diary" / "notes").is_dir()

    again, text = run(cli, bots, db, out)
    assert "games: 0 played, 6 reused, 6 in all" in text
    assert again["standings"] == first["standings"] and again["games"] == first["games"]
    assert (bots / "diary" / "diary.txt").read_text().startswith("4 games")  # nothing played: not started

    # The author of ledger changes its code: exactly ledger's games are played again.
    code = bots / "ledger" / "ledger.py"
    code.write_text(code.read_text().replace("START = 40", "START = 41"))
    changed, text = run(cli, bots, db, out)
    assert "games: 4 played, 2 reused, 6 in all" in text
    before = {g["id"] for g in first["games"]}
    for g in changed["games"]:
        assert (g["id"] in before) == ("ledger" not in g["players"])
    assert (bots / "diary" / "diary.txt").read_text().startswith("6 games")

    # And so again: what ledger (and diary) wrote in those games is theirs.
    assert "games: 0 played, 6 reused, 6 in all" in run(cli, bots, db, out)[1]

    # The author of diary resets its diary: the code is what it was, nothing is played again;
    # a file the author adds is new code: diary's games are played again.
    (bots / "diary" / "diary.txt").unlink()
    assert "games: 0 played, 6 reused, 6 in all" in run(cli, bots, db, out)[1]
    (bots / "diary" / "opening.txt").write_text("(7,7)\n")
    assert "games: 4 played, 2 reused, 6 in all" in run(cli, bots, db, out)[1]
    assert "games: 0 played, 6 reused, 6 in all" in run(cli, bots, db, out)[1]

    # The journal's games verify: the answers are found under the identities their runs gave them.
    r = cli("verify", db, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "6 identical, 0 differ, 0 not verifiable" in r.stdout


def test_verify_never_writes_a_stateful_answers_real_folder(cli, tmp_path):
    bots = answers(tmp_path)
    db, out = tmp_path / "journal.sqlite", tmp_path / "out.json"
    run(cli, bots, db, out, "--seed", "5")
    kept = {p: p.read_bytes() for b in ("diary", "ledger", "tally") for p in sorted((bots / b).rglob("*"))
            if p.is_file()}
    assert (bots / "tally" / "state" / "diary.txt").read_text().startswith("4 games")

    r = cli("verify", db, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "6 identical, 0 differ, 0 not verifiable" in r.stdout
    assert "replays start from a copy" in r.stderr
    after = {p: p.read_bytes() for b in ("diary", "ledger", "tally") for p in sorted((bots / b).rglob("*"))
             if p.is_file()}
    assert after == kept  # the replays wrote copies, not the answers' folders
    assert not list(tmp_path.glob(".kothkit-verify-*"))  # and the copies are gone


def test_a_run_cut_short_by_ctrl_c_resumes_without_replaying_what_it_kept(cli, tmp_path):
    # Slow answers (0.2 s a move, each noted in their folder): Ctrl-C finds a game in play that does not
    # finish in the judge's wind-down, whose answers have written their folders since their last game.
    bots = answers(tmp_path)
    for b in ("diary", "ledger", "tally"):
        (bots / b / "state").mkdir(exist_ok=True)
        (bots / b / "state" / "delay").write_text("0.2")
    db = tmp_path / "journal.sqlite"
    ctrl_c(["run", "gomoku_swap2", "--bots", str(bots), "--rounds", "3", "--seed", "5", "--jobs", "2", "--move-time",
            "5", "--db", str(db), "-q"], db, tmp_path)
    kept = stored_count(db)
    assert 1 <= kept < 18
    for b in ("diary", "ledger", "tally"):
        (bots / b / "state" / "delay").unlink()
    resumed, text = run(cli, bots, db, tmp_path / "out.json", "--rounds", "3")
    assert (resumed["played"], resumed["reused"]) == (18 - kept, kept), text
