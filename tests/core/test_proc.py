"""kothkit.procs.pipes: a bot's stdout lines over a real pipe, with the line cap and diagnostic (aside) lines.

Each test runs a real process (a Python one-liner) and drives the LineProcess as the referee
does: wait until stdout is readable, read a chunk, take the complete lines.
"""

from __future__ import annotations

import select
import sys
from pathlib import Path

import pytest

from kothkit.procs.pipes import CHUNK, LineProcess, LineTooLong

CAP = 16 * 1024


def drive(code: str, tmp: Path, **options) -> tuple[list[str], int, LineProcess]:
    """Run ``python -c code``; its stdout lines, the most bytes ever held for them, and the process."""
    p = LineProcess(argv=[sys.executable, "-c", code], cwd=tmp, **options)
    p.start()
    lines, most = [], 0
    try:
        while not p.eof:
            ready, _, _ = select.select([p.stdout_fd], [], [], 30)
            assert ready, "the process wrote nothing for 30 s"
            p.read_stdout()
            most = max(most, len(p.out_buf))
            while (line := p.pop_line()) is not None:
                lines.append(line)
    finally:
        p.kill()
    return lines, most, p


def test_a_10_mb_aside_line_is_cut_as_it_streams_and_never_held_whole(tmp_path):
    code = ("import sys; w = sys.stdout.buffer.write\n"
            "w(b'0 0\\nDEBUG ' + b'0123456789' * 1_000_000 + b'\\nOK\\nDEBUG short\\n')")
    lines, most, p = drive(code, tmp_path, aside_prefix=b"DEBUG", aside_line_cap=CAP)
    assert lines == ["0 0", ("DEBUG " + "0123456789" * 2000)[:CAP], "OK", "DEBUG short"]
    # Everything past the cap was discarded as it came: counted, never buffered.
    assert p.aside_cut == 6 + 10_000_000 - CAP
    assert most <= CAP + CHUNK


def test_an_aside_line_is_exempt_from_the_line_cap_and_from_utf8(tmp_path):
    # max_line smaller than the aside cap: a reply that long is a fault, a diagnostic is not.
    code = "import sys; sys.stdout.buffer.write(b'DEBUG \\xff\\xfe ' + b'y' * 3000 + b'\\n1 2\\n')"
    lines, _, p = drive(code, tmp_path, max_line=1000, aside_prefix=b"DEBUG", aside_line_cap=CAP)
    assert lines == ["DEBUG \ufffd\ufffd " + "y" * 3000, "1 2"] and p.aside_cut == 0


@pytest.mark.parametrize("prefix", [None, b"DEBUG"])
def test_any_other_line_longer_than_the_cap_is_too_long(tmp_path, prefix):
    code = "import sys; sys.stdout.write('x' * 100_000 + '\\n')"
    with pytest.raises(LineTooLong, match="line longer than 65536 bytes"):
        drive(code, tmp_path, aside_prefix=prefix, aside_line_cap=CAP)
