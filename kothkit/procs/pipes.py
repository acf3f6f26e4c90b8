"""Program bots as processes: spawn, line I/O with caps, stderr capture, kill and reap.

Every bot runs in its own session (process group); its stdin is written
without blocking the judge and its stdout and stderr are read in chunks by the
referee's selector loop, so a bot that floods, stalls or never reads cannot
stall a game or grow the judge's memory past the caps.  Diagnostic (aside)
lines, such as classic12's ``DEBUG ...``, are recognised as they stream in:
one longer than its cap is cut there and the rest of it is discarded as it
arrives, so it is never held whole and never counts against ``max_line``.
The leader is reaped only after its whole group was killed, so a PID can never
be reused between our kill and our wait.
"""

from __future__ import annotations

import errno
import os
import re
import select
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs

from kothkit.messages import say

CHUNK = 1 << 16


class LineTooLong(Exception):
    """The bot wrote more than ``max_line`` bytes without a newline."""


def capped_text(kept: bytes | bytearray, dropped: int, what: str = "stderr") -> str:
    """A kept log as text, with a note of how many bytes were dropped over its cap."""
    text = kept.decode("utf-8", "replace")
    if dropped:
        text += f"\n[... {dropped} more bytes of {what} dropped]"
    return text


@attrs.define(eq=False)
class LineProcess:
    """One running program with line-buffered, capped, non-blocking pipes."""

    argv: Sequence[str]
    cwd: Path
    max_line: int = 1 << 16
    stderr_cap: int = 32 * 1024
    env: dict[str, str] | None = None
    preexec: Callable[[], None] | None = None
    #: File descriptors the program inherits (a prepared jail root's, see kothkit.procs.contain.Jail.pass_fds).
    pass_fds: tuple[int, ...] = ()
    proc: subprocess.Popen[bytes] | None = None
    out_buf: bytearray = attrs.field(factory=bytearray)
    err_log: bytearray = attrs.field(factory=bytearray)
    err_dropped: int = 0
    pending: bytearray = attrs.field(factory=bytearray)
    eof: bool = False
    err_eof: bool = False
    broken: bool = False  # stdin closed by the bot (EPIPE)
    returncode: int | None = None
    #: The leader was reaped having exited by itself, not killed by a signal (see Jail.kill_all).
    exited: bool = False
    #: called with each complete stderr line (for bots whose stderr is shown live)
    on_stderr: Callable[[str], None] | None = None
    #: stdout lines that start with these bytes are diagnostics (asides): never longer than
    #: ``aside_line_cap`` bytes here, whatever the bot wrote, and exempt from ``max_line``
    aside_prefix: bytes | None = None
    #: and lines that start with these lower-case bytes whatever their case
    aside_folded: tuple[bytes, ...] = ()
    #: CR, LF and CR LF all end a line, and empty lines are skipped (Piskvork's engines); else a
    #: line ends at LF (a CR before it dropped)
    any_line_end: bool = False
    aside_line_cap: int = 16 * 1024
    #: bytes of over-long aside lines discarded as they streamed in
    aside_cut: int = 0
    _err_partial: bytearray = attrs.field(factory=bytearray)
    _cutting: bool = False  # discarding the rest of an over-long aside line, up to its newline

    def start(self) -> None:
        proc = self.proc = subprocess.Popen(
            list(self.argv),
            cwd=str(self.cwd),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            close_fds=True,
            start_new_session=True,
            env=self.env,
            preexec_fn=self.preexec,
            pass_fds=self.pass_fds,
        )
        for f in (proc.stdin, proc.stdout, proc.stderr):
            assert f is not None  # all three are pipes
            os.set_blocking(f.fileno(), False)

    def _started(self) -> subprocess.Popen[bytes]:
        """The process: every method but :meth:`start` is for after it."""
        if self.proc is None:
            raise RuntimeError(f"{self.argv[0]!r} is not started")
        return self.proc

    @property
    def pid(self) -> int:
        return self._started().pid

    @property
    def stdout_fd(self) -> int:
        out = self._started().stdout
        assert out is not None  # a pipe (start)
        return out.fileno()

    @property
    def stderr_fd(self) -> int:
        err = self._started().stderr
        assert err is not None  # a pipe (start)
        return err.fileno()

    @property
    def stdin_fd(self) -> int | None:
        stdin = self._started().stdin
        return None if stdin is None or stdin.closed else stdin.fileno()

    # -- writing -------------------------------------------------------------
    def send(self, line: str) -> None:
        """Queue ``line`` plus newline and write as much as the pipe takes now."""
        stdin = self._started().stdin
        if self.broken or stdin is None or stdin.closed:
            return
        data = line.encode("utf-8", "replace") + b"\n"
        if not self.pending:
            # Once a move: one write, which the pipe takes whole unless the bot stopped reading.
            try:
                n = os.write(stdin.fileno(), data)
            except BlockingIOError:
                n = 0
            except OSError:  # EPIPE: the bot closed its stdin
                self.broken = True
                return
            if n == len(data):
                return
            data = data[n:]
        self.pending += data
        self.flush()

    def flush(self) -> bool:
        """Write pending bytes without blocking; True when nothing is left."""
        while self.pending and not self.broken:
            fd = self.stdin_fd
            if fd is None:  # closed: nothing more reaches the bot
                self.pending.clear()
                return True
            try:
                n = os.write(fd, self.pending)
            except BlockingIOError:
                return False
            except (BrokenPipeError, OSError):
                self.broken = True
                self.pending.clear()
                return True
            del self.pending[:n]
        return not self.pending

    def close_stdin(self) -> None:
        stdin = self._started().stdin
        if stdin is not None and not stdin.closed:
            try:
                self.flush()
                stdin.close()
            except OSError:
                pass

    # -- reading -------------------------------------------------------------
    def read_stdout(self, fd: int | None = None) -> None:
        """Read what stdout has (``fd``: its descriptor, when the caller has it at hand)."""
        try:
            data = os.read(self.stdout_fd if fd is None else fd, CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.eof = True
            return
        if self._cutting:
            i = data.find(b"\n")
            if i < 0:
                self.aside_cut += len(data)
                return
            self.aside_cut += i
            self._cutting = False
            data = data[i + 1:]
        self.out_buf += data
        if self.aside_prefix is not None or self.aside_folded:
            self._cut_aside()

    def _cut_aside(self) -> None:
        """Cut the unfinished last line of ``out_buf`` at ``aside_line_cap`` if it is an aside:
        it ends there (a newline is put in), and the rest of it is discarded as it comes."""
        buf = self.out_buf
        start = buf.rfind(b"\n") + 1
        over = len(buf) - start - self.aside_line_cap
        if over > 0 and self._aside(buf, start):
            del buf[start + self.aside_line_cap:]
            buf += b"\n"
            self.aside_cut += over
            self._cutting = True

    def _aside(self, buf: bytearray, start: int) -> bool:
        """Whether the line at ``start`` of ``buf`` is an aside."""
        if self.aside_prefix is not None and buf.startswith(self.aside_prefix, start):
            return True
        return bool(self.aside_folded) and bytes(buf[start:start + 32]).lower().startswith(self.aside_folded)

    def read_stderr(self) -> None:
        try:
            data = os.read(self.stderr_fd, CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.err_eof = True
            return
        room = self.stderr_cap - len(self.err_log)
        if room > 0:
            self.err_log += data[:room]
        self.err_dropped += max(0, len(data) - max(room, 0))
        if self.on_stderr is not None:
            self._err_partial += data
            *lines, rest = self._err_partial.split(b"\n")
            self._err_partial = bytearray(rest[-4096:])
            for l in lines:
                self.on_stderr(l.decode("utf-8", "replace"))

    def pop_line(self) -> str | None:
        """The next complete stdout line (without newline), or None; raises LineTooLong.

        An aside line is never too long (see ``_cut_aside``) and never undecodable: the
        caller keeps at most ``aside_line_cap`` bytes of it, and a diagnostic never loses a game.
        """
        buf = self.out_buf
        if self.any_line_end:
            ends = 0
            while ends < len(buf) and buf[ends] in b"\r\n":  # an empty line, or the LF of a CR LF
                ends += 1
            if ends:
                del buf[:ends]
            lf, cr = buf.find(b"\n"), buf.find(b"\r")
            i = lf if cr < 0 else cr if lf < 0 else min(lf, cr)
        else:
            i = buf.find(b"\n")
        aside = self._aside(buf, 0)
        if i < 0:
            if len(buf) > self.max_line and not aside:
                raise LineTooLong(say("line longer than {limit} bytes: {start}...", limit=self.max_line,
                                           start=repr(bytes(buf[:60]))))
            return None
        if i > self.max_line and not aside:
            raise LineTooLong(say("line longer than {limit} bytes: {start}...", limit=self.max_line,
                                       start=repr(bytes(buf[:60]))))
        raw = buf[:i]
        del buf[: i + 1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if aside:
            return raw.decode("utf-8", "replace")
        return raw.decode("utf-8")  # UnicodeDecodeError is the caller's invalid reply

    # -- ending --------------------------------------------------------------
    def poll(self) -> int | None:
        """The leader's exit code once it exited (it stays unreaped until ``kill``)."""
        if self.returncode is None and self.proc is not None:
            self.returncode = _peek_exit(self.pid)
        return self.returncode

    def wait_exit(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for the leader to exit (without reaping it)."""
        if _peek_exit(self.pid) is not None:
            return True
        if timeout <= 0:
            return False
        try:
            fd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):  # pragma: no cover - kernels before 5.3
            end = time.monotonic() + timeout
            while _peek_exit(self.pid) is None:
                if time.monotonic() >= end:
                    return False
                time.sleep(0.002)
            return True
        try:
            # A pidfd becomes readable when the process exits: no polling, no sleep granularity.
            ready, _, _ = select.select([fd], [], [], timeout)
        finally:
            os.close(fd)
        return bool(ready) or _peek_exit(self.pid) is not None

    def kill(self) -> None:
        """Kill the whole process group, then reap the leader; close our pipe ends."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # leader unreaped => pgid not reusable
        except ProcessLookupError:
            pass
        except PermissionError:
            pass
        try:
            _, status = os.waitpid(self.proc.pid, 0)
            self.returncode = os.waitstatus_to_exitcode(status)
            self.exited = os.WIFEXITED(status)
        except ChildProcessError:
            pass
        self.proc.returncode = self.returncode if self.returncode is not None else -9
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass

    def drain_stderr(self, reads: int = 64) -> None:
        """Read what stderr holds now (at most ``reads`` chunks), without waiting."""
        if self.proc is None or self.proc.stderr is None or self.proc.stderr.closed:
            return
        for _ in range(reads):
            before = len(self.err_log) + self.err_dropped
            self.read_stderr()
            if self.err_eof or len(self.err_log) + self.err_dropped == before:
                break

    def take_stderr(self, what: str = "stderr") -> str:
        """The stderr kept so far, as text; the log starts over (a function host's next game)."""
        text = capped_text(self.err_log, self.err_dropped, what)
        self.err_log = bytearray()
        self.err_dropped = 0
        return text

    def stderr_text(self) -> str:
        return capped_text(self.err_log, self.err_dropped)


def _peek_exit(pid: int) -> int | None:
    """Exit code of an exited, unreaped child (waitid with WNOWAIT), or None while it runs."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return -1
    except OSError as e:  # pragma: no cover
        if e.errno == errno.ECHILD:
            return -1
        raise
    if info is None:
        return None
    if info.si_code == os.CLD_EXITED:
        return info.si_status
    return -info.si_status


def describe_exit(code: int | None) -> str:
    if code is None:
        return say("still running")
    if code < 0:
        try:
            return say("killed by {signal}", signal=signal.Signals(-code).name)
        except ValueError:
            return say("killed by signal {number}", number=-code)
    return say("exited with code {code}", code=code)


#: Lines that say what went wrong, in the usual runtimes' words: ``ValueError: x``, ``Error: x``
#: (node), ``panic: x`` (Go), ``thread 'main' panicked at`` (Rust), ``Exception in thread``
#: (Java), ``terminate called after`` (C++), ``Assertion ... failed`` (C), ``error: x``.
_ERROR_LINE = re.compile(
    r"^\s*([\w.$]*(Error|Exception|Exit|Interrupt)\b.*|panic\b.*|.*\bpanicked\b.*|Exception in thread.*"
    r"|terminate called.*|.*\bAssertion\b.*\bfailed.*|.*\b(error|fatal|FATAL|ERROR)\b:.*|.*Segmentation fault.*)$")


def error_line(text: str, limit: int = 160) -> str | None:
    """The line of ``text`` (a bot's stderr, a traceback) that says what went wrong: the first
    that looks like an error, else the last non-blank one; a line ending in ':' takes the next
    one with it (Rust's ``panicked at src/main.rs:2:5:`` / ``boom``), as does C++'s ``terminate
    called``.  None for blank text."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    if not lines:
        return None
    i = next((k for k, l in enumerate(lines) if _ERROR_LINE.match(l) and not l.startswith("Traceback")),
             len(lines) - 1)
    line = lines[i]
    if (line.endswith(":") or line.startswith("terminate called")) and i + 1 < len(lines):
        line += " " + lines[i + 1]
    return line if len(line) <= limit else line[: limit - 3] + "..."
