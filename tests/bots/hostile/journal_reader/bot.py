"""journal_reader: looks for the judge's journal (and its -wal file, which holds the games being
played) and for home folders, then plays legally (no verdict).

In the hostile suite, the judge runs in a folder beside the bots' folder, with its journal
there: ../../journal_reader/journal.sqlite from this bot's folder.  It also tries the judge's
working folder as the environment names it (PWD), /proc/1/cwd and /root.  It writes what it
found to its stderr, kept in the game's log.

A hostile test bot for kothkit's containment tests (gomoku_swap2); it misbehaves on purpose.
"""

import os
import re
import sys


def legal(line):
    """A legal reply to any Swap2 prompt: a fixed opening, "B" to the choices, the first empty cell."""
    tag, _, rest = line.partition(" ")
    if tag == "A":
        return "(0,0) (2,0) (1,0)"
    if tag in ("B", "C"):
        return "B"
    taken = {(int(x), int(y)) for x, y in re.findall(r"\(\((\d+),(\d+)\)", rest)}
    x, y = next((x, y) for y in range(15) for x in range(15) if (x, y) not in taken)
    return f"({x},{y})"


def reply(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def look(path):
    try:
        with open(path, "rb") as f:
            return f"READ {len(f.read(1 << 20))} bytes"
    except OSError as e:
        return f"hidden ({e.strerror})"


here = os.getcwd()
journal = os.path.join(here, "..", "..", "journal_reader", "journal.sqlite")
report = [f"journal: {look(journal)}", f"wal: {look(journal + '-wal')}",
          f"pwd: {look(os.path.join(os.environ.get('PWD', '/nowhere'), 'journal.sqlite'))}"]
try:
    report.append("proc1cwd: " + " ".join(os.listdir("/proc/1/cwd")))
except OSError as e:
    report.append(f"proc1cwd: hidden ({e.strerror})")
try:
    report.append("root: " + " ".join(sorted(os.listdir("/root"))))
except OSError as e:
    report.append(f"root: hidden ({e.strerror})")
try:
    report.append("parent: " + " ".join(sorted(os.listdir(".."))))
except OSError as e:
    report.append(f"parent: hidden ({e.strerror})")
sys.stderr.write("\n".join(report) + "\n")
sys.stderr.flush()

for raw in iter(sys.stdin.readline, ""):
    line = raw.strip()
    if line.startswith("EXIT"):
        break
    reply(legal(line))
