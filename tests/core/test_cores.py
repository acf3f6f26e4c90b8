"""Core claims: real lock files, real processes holding them, real judges side by side."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from kothkit.procs.cores import CORES_DIR_ENV, claim, lock_dir

ROOT = Path(__file__).resolve().parents[2]
CORES = sorted(os.sched_getaffinity(0))
two_cores = pytest.mark.skipif(len(CORES) < 2, reason="needs two cores")

HOLDER = "import sys; from kothkit.procs.cores import CORES_DIR_ENV, claim, lock_dir; c = claim(1); print(c.cores[0], flush=True); sys.stdin.read()"


def test_jobs_beyond_the_cores_go_round_them_claimed_first():
    with claim(len(CORES) + 2) as c:
        first_round = c.cores[: len(CORES)]
        assert sorted(first_round) == CORES and first_round[: len(c.held)] == c.held
        assert c.cores[len(CORES):] == first_round[:2]


@two_cores
def test_a_second_claim_takes_another_core_and_a_released_one_is_free_again():
    with claim(1) as first:
        with claim(1) as second:
            assert first.cores != second.cores and first.held and second.held
        again = claim(1)
        assert again.cores == second.cores  # released: free again
        again.release()


@two_cores
def test_a_core_another_judge_holds_is_avoided_until_that_judge_dies():
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        theirs = int(holder.stdout.readline())
        with claim(1) as mine:
            assert mine.cores != [theirs]
        # A job for every core: theirs is shared, ours come first.
        with claim(len(CORES)) as every:
            assert theirs not in every.held and every.cores[: len(every.held)] == every.held
    finally:
        holder.kill()  # killed, not closed: the kernel drops its lock all the same
        holder.wait(timeout=10)
    with claim(len(CORES)) as after:
        assert theirs in after.held


@two_cores
@pytest.mark.slow
def test_judges_side_by_side_play_on_different_cores(tmp_path):
    # Two tournaments at --jobs 1 at the same time: each claims a core of its own, so their
    # bots do not share one (the pinned bot's column tells which core it ran on).
    bot = str(ROOT / "tests" / "bots" / "connect4" / "pinned.py:pinned_slowly")
    other = str(ROOT / "plugins" / "connect4_hidden" / "bots" / "constant_player")
    judges = []
    for i in range(2):
        out = tmp_path / f"j{i}"
        out.mkdir()
        cmd = [sys.executable, "-m", "kothkit", "run", "connect4_hidden", "--bots", bot, "--bots", other,
               "--rounds", "2", "--seed", "1", "--jobs", "1", "--trusted", "-q",
               "--json", str(out / "r.json"), "--db", str(out / "j.sqlite")]
        judges.append((out, subprocess.Popen(cmd, cwd=out, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                             stderr=subprocess.STDOUT, text=True)))
        time.sleep(0.5)  # the first is playing when the second starts
    used = []
    for out, p in judges:
        stdout, _ = p.communicate(timeout=120)
        assert p.returncode == 0, stdout
        games = json.loads((out / "r.json").read_text())["games"]
        columns = {m for g in games for m in g["moves"][g["players"].index("pinned_slowly")::2]}
        assert len(columns) == 1 and columns <= {c % 6 for c in CORES}, columns
        used.append(columns.pop())
    assert used[0] != used[1]


@two_cores
def test_a_run_says_which_cores_it_shares_with_another_judge(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        theirs = int(holder.stdout.readline())
        p = subprocess.run([sys.executable, "-m", "kothkit", "run", "connect4_hidden", "--rounds", "1", "--seed", "1",
                            "--jobs", str(len(CORES)), "--trusted", "-q", "--db", str(tmp_path / "j.sqlite")],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert p.returncode == 0, p.stdout + p.stderr
        assert f"another judge also plays on cores [{theirs}]" in p.stdout, p.stdout
    finally:
        holder.kill()
        holder.wait(timeout=10)
    alone = subprocess.run([sys.executable, "-m", "kothkit", "run", "connect4_hidden", "--rounds", "1", "--seed", "1",
                            "--jobs", str(len(CORES)), "--trusted", "-q", "--db", str(tmp_path / "k.sqlite")],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert alone.returncode == 0 and "another judge" not in alone.stdout, alone.stdout


@pytest.mark.parametrize("chosen", [False, True], ids=["default", "KOTHKIT_CORES_DIR"])
def test_a_lock_folder_others_can_write_is_not_trusted(tmp_path, monkeypatch, chosen):
    # Anyone could hold (or delete) locks there: claims fall back to the first cores.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = tmp_path / ("chosen" if chosen else f"kothkit-cores-{os.getuid()}")
    if chosen:
        monkeypatch.setenv(CORES_DIR_ENV, str(folder))
    else:
        monkeypatch.delenv(CORES_DIR_ENV, raising=False)
    folder.mkdir()
    folder.chmod(0o777)
    with claim(1) as c:
        assert c.cores == c.held == CORES[:1]
    assert not list(folder.iterdir())  # no lock file was made there


def test_the_lock_folder_is_the_one_kothkit_cores_dir_names(tmp_path, monkeypatch):
    folder = tmp_path / "a" / "b"
    monkeypatch.setenv(CORES_DIR_ENV, str(folder))
    assert lock_dir() == folder
    with claim(1) as c:
        assert [p.name for p in folder.iterdir()] == [f"{c.held[0]}.lock"]
    monkeypatch.delenv(CORES_DIR_ENV, raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert lock_dir() == tmp_path / f"kothkit-cores-{os.getuid()}"


def _held(folder: Path, core: int) -> bool:
    """Whether another process holds ``core``'s lock in ``folder`` (a probe that takes a free lock
    lets it go at once)."""
    try:
        fd = os.open(folder / f"{core}.lock", os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


@pytest.mark.slow
def test_the_core_tests_pass_beside_a_judge_that_holds_every_core(tmp_path):
    # A real judge holds every core in the folder the machine's judges share (here a temporary
    # folder of this test's, standing for the machine's /tmp), playing slowly; this file's tests
    # run beside it, as a suite does on a machine where a `kothkit serve` is up, and pass: each
    # test claims cores in a folder of its own (tests/conftest.py).
    machine = tmp_path / "tmp"
    machine.mkdir()
    env = {k: v for k, v in os.environ.items() if k != CORES_DIR_ENV}
    env["TMPDIR"] = str(machine)
    bot = str(ROOT / "tests" / "bots" / "connect4" / "pinned.py:pinned_slowly")
    other = str(ROOT / "plugins" / "connect4_hidden" / "bots" / "constant_player")
    judge = subprocess.Popen(
        [sys.executable, "-m", "kothkit", "run", "connect4_hidden", "--bots", bot, "--bots", other,
         "--rounds", "100000", "--seed", "1", "--jobs", str(len(CORES)), "--trusted", "-q",
         "--db", str(tmp_path / "held.sqlite")],
        cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    try:
        folder = machine / f"kothkit-cores-{os.getuid()}"
        deadline = time.monotonic() + 60
        while not all(_held(folder, c) for c in CORES):
            assert judge.poll() is None and time.monotonic() < deadline, "the judge never held every core"
            time.sleep(0.1)
        inner = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "not beside_a_judge",
             str(Path(__file__))], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
            stdin=subprocess.DEVNULL)
        assert inner.returncode == 0, inner.stdout[-4000:] + inner.stderr[-2000:]
        assert judge.poll() is None and all(_held(folder, c) for c in CORES)  # it held them throughout
    finally:
        os.killpg(judge.pid, signal.SIGKILL)
        judge.wait(timeout=30)
