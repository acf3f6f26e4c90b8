"""No pool worker outlives its judge: a judge killed with SIGKILL anywhere in its start-up, even
between a worker's fork and the arming of its parent-death signal, leaves no process behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _group(pgid: int) -> list[int]:
    """The live processes (not zombies) of process group ``pgid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        if fields[0] != "Z" and int(fields[2]) == pgid:
            found.append(int(entry))
    return found


def _children(pid: int) -> list[int]:
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            out += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    except OSError:
        pass
    return out


@pytest.mark.slow
def test_a_judge_killed_anywhere_in_its_start_up_leaves_no_worker(tmp_path):
    # Killed at its workers' birth (as soon as the second shows, then a little later each time: the window
    # between the fork and the arming of the signal is where a worker used to be left, waiting
    # for tasks forever with parent 1), and at points of the start-up before and after.
    lefts = []
    points = [("birth", d) for d in (0, 0, 0, 0.0005, 0.001, 0.002, 0.005)]
    points += [("start", d) for d in (0.3, 0.8)]
    for n, (when, delay) in enumerate(points):
        judge = subprocess.Popen(
            [sys.executable, "-m", "kothkit", "run", "connect4_hidden", "--rounds", "100000", "--trusted",
             "--jobs", "2", "--seed", str(n), "--db", str(tmp_path / f"{n}.sqlite"), "-q"],
            cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        try:
            if when == "birth":
                deadline = time.monotonic() + 60
                while len(_children(judge.pid)) < 2:  # both workers forked (a probe of the jail's comes alone)
                    assert judge.poll() is None and time.monotonic() < deadline, "the judge started no worker"
            if delay:
                time.sleep(delay)
            judge.send_signal(signal.SIGKILL)
            judge.wait(timeout=30)
            deadline = time.monotonic() + 10  # a worker notices at once; this is only how long to look
            while (left := _group(judge.pid)) and time.monotonic() < deadline:
                time.sleep(0.05)
            if left:
                lefts.append((when, delay, left))
        finally:
            try:
                os.killpg(judge.pid, signal.SIGKILL)  # whatever is left, so that nothing outlives the test
            except ProcessLookupError:
                pass
    assert not lefts, lefts
