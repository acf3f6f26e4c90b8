"""Leftover-process checks for tests: after a game, nothing a bot started may still run."""

from __future__ import annotations

import os
from pathlib import Path


def processes_touching(*folders: Path | str) -> list[str]:
    """Live processes whose working directory or command line points into one of ``folders``.

    Returns one line per process (pid, cwd, command) so an assertion message says what leaked.
    """
    roots = [str(f) for f in folders]
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            cwd = ""
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            cmd = ""
        if any(cwd == r or cwd.startswith(r + "/") or r in cmd for r in roots):
            found.append(f"{entry.name}: cwd={cwd} cmd={cmd[:120]}")
    return found
