"""Fixtures for the gomoku_swap2 tests: the game's info, and a tiny pipe driver for bundled bots.

The driver plays the pure Match between real bot processes over real pipes,
following the referee's loop, so the plugin and its bots are tested apart from
the core's referee (tests through the real CLI use the shared ``cli`` fixture
of tests/conftest.py).  It is a test helper, not a judge: one deadline per
reply, no resource limits, no verdicts beyond the game's own.
"""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import time
from pathlib import Path

import attrs
import pytest

from kothkit.bots.folders import BotSpec, load_folder
from kothkit.game import Outcome, Rejected, Setup
from kothkit.plugins import get_game

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "plugins" / "gomoku_swap2" / "bots"
TEST_BOTS = ROOT / "tests" / "bots" / "swap2"
#: Longest any driven game may take before the test gives up on it.
GAME_DEADLINE = 120.0


@attrs.frozen
class Played:
    outcome: Outcome
    #: (seat, line) for every line sent to a bot and every reply, in order (seat -1: nothing).
    sent: tuple[tuple[int, str], ...]
    replies: tuple[tuple[int, str], ...]
    rejected: Rejected | None
    match: object
    #: Each bot's exit status, or None if it had to be killed after the game.
    returncodes: tuple[int | None, ...]


class LineReader:
    """Reads newline-ended lines from a pipe with a deadline, keeping what follows for later."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buf = b""
        os.set_blocking(fd, False)

    def readline(self, timeout: float) -> bytes | None:
        end = time.monotonic() + timeout
        sel = selectors.DefaultSelector()
        sel.register(self.fd, selectors.EVENT_READ)
        try:
            while b"\n" not in self.buf:
                left = end - time.monotonic()
                if left <= 0 or not sel.select(left):
                    return None
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    return None
                self.buf += chunk
        finally:
            sel.close()
        line, _, self.buf = self.buf.partition(b"\n")
        return line


def prepared(bot_dir: Path, tmp_path: Path) -> BotSpec:
    """A copy of the bot folder in ``tmp_path``, built if it has a build step, loaded."""
    dest = tmp_path / bot_dir.name
    if not dest.exists():
        shutil.copytree(bot_dir, dest)
        spec = load_folder(dest)
        if spec.build:
            subprocess.run(list(spec.build), cwd=dest, check=True, timeout=120, capture_output=True)
    return load_folder(dest)


def play_pipes(specs: list[BotSpec], seed: int, move_time: float = 10.0, names=None) -> Played:
    info = get_game("gomoku_swap2")
    names = tuple(names or (s.name for s in specs))
    setup = Setup(players=names, seed=seed, rules=dict(info.rules))
    match = info.match(setup)
    procs = []
    for seat, spec in enumerate(specs):
        argv = list(spec.command) + info.bot_args(setup, seat, seed * 2 + seat)
        procs.append(subprocess.Popen(argv, cwd=spec.path, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, start_new_session=True))
    readers = [LineReader(p.stdout.fileno()) for p in procs]
    sent, replies = [], []
    rejected = None
    started = time.monotonic()

    def send(seat, payload):
        line = match.encode(payload)
        sent.append((seat, line))
        try:
            procs[seat].stdin.write(line.encode() + b"\n")
            procs[seat].stdin.flush()
        except BrokenPipeError:
            pass

    try:
        while True:
            step = match.next()
            if isinstance(step, Outcome):
                outcome = step
                break
            assert time.monotonic() - started < GAME_DEADLINE, "game took too long"
            for m in step.notices:
                send(m.seat, m.payload)
            send(step.seat, step.payload)
            raw = readers[step.seat].readline(move_time)
            if raw is None:
                outcome = match.forfeit(step.seat, "timeout", "no reply")
                rejected = Rejected("timeout", "no reply")
                break
            reply = raw.decode("utf-8", errors="replace")
            replies.append((step.seat, reply))
            r = match.play(step.seat, reply)
            if r is not None:
                rejected = r
                outcome = match.forfeit(step.seat, r.verdict, r.reason)
                break
        for m in match.final(outcome):
            send(m.seat, m.payload)
        for p in procs:
            try:
                p.stdin.close()
            except OSError:
                pass
    finally:
        codes = []
        for p in procs:
            try:
                codes.append(p.wait(timeout=2))
            except subprocess.TimeoutExpired:
                codes.append(None)
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=5)
            p.stdout.close()
    return Played(outcome, tuple(sent), tuple(replies), rejected, match, tuple(codes))


@pytest.fixture
def swap2():
    return get_game("gomoku_swap2")


@pytest.fixture
def pipes():
    return play_pipes


@pytest.fixture
def bot(tmp_path):
    """bot("threat") or bot(Path(...)): a ready-to-run copy of a bundled or test bot."""

    def make(name_or_path) -> BotSpec:
        p = Path(name_or_path)
        if not p.is_absolute():
            p = BUNDLED / name_or_path if (BUNDLED / name_or_path).is_dir() else TEST_BOTS / name_or_path
        return prepared(p, tmp_path)

    return make
