"""The state's key of the public bot ids (kothkit.serve.privacy.load_key) made by many processes at
once: a host and the commands run on its state folder (``kothkit users``, a report) may all be the
first to need it.  Each gets the whole key, the same one, and none calls it damaged."""

from __future__ import annotations

import select
import subprocess
import sys
import time

from kothkit.serve.privacy import KEY_FILE

#: A process that loads the key of each folder named on its input, and says it (hex) or its error.
LOADER = """
import sys
from kothkit.serve.privacy import load_key
for line in sys.stdin:
    try:
        print(load_key(line.strip()).hex(), flush=True)
    except Exception as e:
        print("error:", e, flush=True)
"""

PROCESSES = 8
FOLDERS = 25


def _answer(p: subprocess.Popen, deadline: float) -> str:
    """The next line ``p`` says, by ``deadline`` (it says one a folder: nothing more is buffered)."""
    assert p.stdout is not None
    ready, _w, _x = select.select([p.stdout], [], [], max(0.0, deadline - time.monotonic()))
    assert ready, f"process {p.pid} said nothing in time"
    return p.stdout.readline().strip()


def test_processes_racing_to_make_the_key_all_get_the_same_one(tmp_path):
    procs = [subprocess.Popen([sys.executable, "-c", LOADER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True) for _ in range(PROCESSES)]
    try:
        for k in range(FOLDERS):
            folder = tmp_path / f"state{k}"  # fresh: not even the folder is there
            for p in procs:  # (all are waiting on their input: the line sets them off together)
                assert p.stdin is not None
                p.stdin.write(f"{folder}\n")
                p.stdin.flush()
            deadline = time.monotonic() + 60
            said = {_answer(p, deadline) for p in procs}
            key = (folder / KEY_FILE).read_bytes()
            assert said == {key.hex()}, f"{folder}: {said}"
            assert len(key) == 32 and (folder / KEY_FILE).stat().st_mode & 0o777 == 0o600
            assert [f.name for f in folder.iterdir()] == [KEY_FILE]  # (no temporary file left)
    finally:
        for p in procs:
            if p.stdin is not None:
                p.stdin.close()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            if p.stdout is not None:
                p.stdout.close()
