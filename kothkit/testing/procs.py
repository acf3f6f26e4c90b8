"""Leftover-process checks for tests: after a game, nothing a bot started may still run."""

from __future__ import annotations

import os
from pathlib import Path

#: The tests' time limits are multiplied by this (``KOTHKIT_TEST_SCALE``, default 1): tests/vm runs
#: them in an emulated VM, many times slower than a real machine.
TIME_SCALE = max(1.0, float(os.environ.get("KOTHKIT_TEST_SCALE") or 1))


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


def descendants(pid: int) -> set[int]:
    """The PIDs of every live process descended from ``pid`` (from /proc's parent links)."""
    kids: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for k in kids.get(todo.pop(), []):
            if k not in found:
                found.add(k)
                todo.append(k)
    return found


def cgroups_made_by(pids: set[int]) -> list[str]:
    """The bots' cgroups still there that one of ``pids`` made (named kothkit-nsNS-PID-START-RANDOM,
    see kothkit.procs.contain)."""
    from kothkit.procs.contain import capabilities

    caps = capabilities()
    wanted = {str(p) for p in pids}
    found = []
    for d in {d for d in (caps.cgroup_dir, caps.pids_dir, caps.freezer_dir) if d is not None}:
        for g in d.glob("kothkit-*"):
            parts = g.name.split("-")
            if len(parts) == 5 and parts[2] in wanted:
                found.append(str(g))
    return found
