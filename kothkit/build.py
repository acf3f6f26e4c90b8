"""The build step: compile a bot once before a tournament, cached by its content hash.

A bot.toml may give ``build`` (e.g. ``["gcc", "-O2", "-o", "brain", "brain.c"]``).
It runs in the bot's folder; success is stamped in ``.kothkit-build/stamp`` with
the hash of the bot's sources, so the next run skips it until a source changes.
A failed build returns a :class:`BotError` carrying the compiler's output, and
that bot sits out.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from kothkit.bots import BotError, BotSpec, read_small

BUILD_TIMEOUT = 300.0
STAMP = Path(".kothkit-build") / "stamp"


def _stamp_hash(spec: BotSpec) -> str | None:
    # The bot may have planted anything here (a symlink to a device, a FIFO): read only a small regular file.
    try:
        return read_small(spec.path / STAMP, None, 1024).strip()
    except (OSError, BotError):
        return None


def _write_stamp(spec: BotSpec) -> None:
    """Write the stamp without following a symlink the bot planted (the judge may be root)."""
    d = spec.path / STAMP.parent
    try:
        os.mkdir(d)
    except FileExistsError:
        pass
    dfd = os.open(d, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        fd = os.open(STAMP.name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_NONBLOCK
                     | os.O_CLOEXEC, 0o644, dir_fd=dfd)
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                os.write(fd, (spec.hash + "\n").encode())
        finally:
            os.close(fd)
    finally:
        os.close(dfd)


def is_built(spec: BotSpec) -> bool:
    if _stamp_hash(spec) != spec.hash:
        return False
    # A stamp without its output (a copied folder, a cleaned checkout) is no build.
    cmd = spec.command[0] if spec.command else ""
    return not ("/" in cmd and not Path(cmd).is_absolute()) or (spec.path / cmd).exists()


def build(spec: BotSpec, timeout: float = BUILD_TIMEOUT) -> tuple[bool, BotError | None]:
    """Build ``spec`` if needed: (built_now, error)."""
    if not spec.build or is_built(spec):
        return False, None
    where = spec.origin or spec.path
    try:
        done = subprocess.run(list(spec.build), cwd=spec.path, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, errors="replace", timeout=timeout, start_new_session=True)
    except FileNotFoundError:
        return False, BotError(where, f"build command not found: {spec.build[0]!r}")
    except subprocess.TimeoutExpired:
        return False, BotError(where, f"build took longer than {timeout:g} s")
    if done.returncode != 0:
        output = (done.stdout + done.stderr).strip()
        return False, BotError(where, f"build failed ({' '.join(spec.build)} exited with {done.returncode}):\n{output}")
    try:
        _write_stamp(spec)
    except OSError as e:
        return False, BotError(where, f"cannot write {STAMP} after the build: {e.strerror}")
    return True, None
