"""Hostile bot folders: what a stranger can put in a folder, a name or a meta line never reaches a game.

Each case is a bot folder next to two good bots in one real ``kothkit run``.
The folders are made here, not kept in tests/bots/, because git cannot hold
what they are made of (a FIFO, a 2 GiB file, folders 3,000 deep, a symlink to
/dev/zero).  Every hostile folder must give one clear ``bot left out:`` line
naming its file, before any game; the good bots play; the judge's peak memory
stays under 200 MiB; no process and no cgroup is left.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kothkit.bots.folders import MAX_DEPTH, MAX_FILES, load_bots
from kothkit.testing.procs import cgroups_made_by, processes_touching

JUDGE_RSS_MB = 200

PLAYER = '''
import re, sys
for raw in iter(sys.stdin.readline, ""):
    tag, _, rest = raw.strip().partition(" ")
    if tag == "EXIT":
        break
    if tag == "A":
        out = "(0,0) (2,0) (1,0)"
    elif tag in ("B", "C"):
        out = "B"
    else:
        taken = {(int(x), int(y)) for x, y in re.findall(r"\\(\\((\\d+),(\\d+)\\)", rest)}
        out = "(%d,%d)" % next((x, y) for y in range(15) for x in range(15) if (x, y) not in taken)
    sys.stdout.write(out + "\\n")
    sys.stdout.flush()
'''


def good(folder: Path, name: str, extra: str = "") -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(PLAYER)
    (folder / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "-S", "bot.py"]\n{extra}')
    return folder


def nest(folder: Path, depth: int) -> None:
    """``depth`` folders one inside the other, made through directory fds (the path is longer than PATH_MAX)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        nxt = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = nxt
    os.close(fd)


def unnest(folder: Path) -> None:
    """Remove what :func:`nest` made, without recursion (shutil.rmtree recurses)."""
    fds = [os.open(folder, os.O_RDONLY | os.O_DIRECTORY)]
    while True:
        try:
            fds.append(os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
        except FileNotFoundError:
            break
    os.close(fds.pop())  # the deepest, empty
    while fds:
        fd = fds.pop()
        os.rmdir("d", dir_fd=fd)
        os.close(fd)


def make_hostile(bots: Path) -> dict[str, tuple[str, str]]:
    """Make the hostile folders in ``bots``: folder name -> (the file its "bot left out" line
    names, relative to its folder ("" for the folder), text the line must hold)."""
    cases: dict[str, tuple[str, str]] = {}

    d = good(bots / "devzero", "devzero")
    (d / "data.bin").symlink_to("/dev/zero")
    cases["devzero"] = ("data.bin", "symlink leads out of the bot's folder")

    d = good(bots / "fifo", "fifo")
    os.mkfifo(d / "pipe.txt")
    cases["fifo"] = ("pipe.txt", "is a FIFO")

    d = good(bots / "outlink", "outlink")
    (d / "passwd.txt").symlink_to("/etc/passwd")
    cases["outlink"] = ("passwd.txt", "symlink leads out of the bot's folder")

    d = good(bots / "tomlzero", "tomlzero")
    (d / "bot.toml").unlink()
    (d / "bot.toml").symlink_to("/dev/zero")
    cases["tomlzero"] = ("bot.toml", "symlink leads out of the bot's folder")

    d = good(bots / "huge", "huge")
    with open(d / "big.txt", "wb") as f:
        f.truncate(2 << 30)  # sparse: 2 GiB to read, nothing on disk
    cases["huge"] = ("big.txt", "larger than 512 MiB")

    d = good(bots / "many", "many")
    for i in range(MAX_FILES + 1):
        (d / f"f{i}.txt").touch()
    cases["many"] = ("", f"more than {MAX_FILES} files")

    d = good(bots / "deep", "deep")
    nest(d, 1200)  # os.walk's recursion gave up at about 1000
    cases["deep"] = ("d/" * MAX_DEPTH + "d", f"nested more than {MAX_DEPTH} deep")

    d = good(bots / "longname", "x")
    (d / "bot.toml").write_text('name = "' + "n" * (1 << 20) + '"\ncommand = ["python3", "bot.py"]\n')
    cases["longname"] = ("bot.toml", "is larger than 64 KiB")

    d = good(bots / "mbname", "x")
    (d / "bot.toml").write_text('name = "' + "n" * 60_000 + '"\ncommand = ["python3", "bot.py"]\n')
    cases["mbname"] = ("bot.toml:1", "name must be 1-64 letters")

    d = good(bots / "nulname", "x")
    (d / "bot.toml").write_text('name = "a\\u0000b"\ncommand = ["python3", "bot.py"]\n')
    cases["nulname"] = ("bot.toml:1", r"got 'a\x00b'")

    d = good(bots / "escname", "x")
    (d / "bot.toml").write_text('name = "\\u001b[2J\\u001b[31mred"\ncommand = ["python3", "bot.py"]\n')
    cases["escname"] = ("bot.toml:1", r"got '\x1b[2J\x1b[31mred'")

    d = good(bots / "nulcmd", "nulcmd")
    (d / "bot.toml").write_text('command = ["python3", "bot.py", "a\\u0000b"]\n')
    cases["nulcmd"] = ("bot.toml:1", "command contains a NUL character")

    d = bots / "metaline"
    d.mkdir()
    (d / "bot.py").write_text(PLAYER)
    (d / "meta").write_text("metaline\npython3\nbot.py " + "a" * 60_000 + "\n0\n")
    cases["metaline"] = ("meta:3", "line 3 (the arguments) is longer than 4096 characters")

    d = bots / "metanul"
    d.mkdir()
    (d / "bot.py").write_text(PLAYER)
    (d / "meta").write_text("metanul\npython3\nbot.py \0\n0\n")
    cases["metanul"] = ("meta:2", "the command contains a NUL character")

    good(bots / "twin_a", "twin")
    good(bots / "twin_b", "twin")
    cases["twin_b"] = ("bot.toml", f"is already taken by the bot in {bots / 'twin_a'}")
    return cases


@pytest.mark.slow
def test_hostile_folders_are_refused_before_any_game(tmp_path):
    bots = tmp_path / "bots"
    cases = make_hostile(bots)
    good(bots / "plain1", "plain1")
    good(bots / "plain2", "plain2")
    judge = ("import atexit, runpy, sys\n"
             "out = sys.argv.pop(1)\n"
             "atexit.register(lambda: open(out, 'w').write(next(l.split()[1] for l in open('/proc/self/status')"
             " if l.startswith('VmHWM:'))))\n"
             "sys.argv[0] = 'kothkit'\n"
             "runpy.run_module('kothkit', run_name='__main__', alter_sys=True)\n")
    t0 = time.monotonic()
    try:
        p = subprocess.Popen([sys.executable, "-c", judge, str(tmp_path / "rss"), "run", "gomoku_swap2",
                              "--bots", str(bots), "--seed", "1", "--jobs", "1", "--move-time", "5",
                              "--db", str(tmp_path / "j.sqlite"), "--json", str(tmp_path / "out.json"), "-q"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                             cwd=tmp_path, env={**os.environ, "COLUMNS": "400"})
        stdout, stderr = p.communicate(timeout=120)
        r = subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr)
        left = processes_touching(bots)
    finally:
        unnest(bots / "deep")
    assert r.returncode == 0, r.stdout + r.stderr
    assert time.monotonic() - t0 < 100
    refused = [l for l in r.stderr.splitlines() if l.startswith("bot left out: ")]
    assert "\x1b" not in r.stdout + r.stderr and "\0" not in r.stdout + r.stderr
    for folder, (file, text) in cases.items():
        where = f"bot left out: {bots / folder / file if file else bots / folder}"
        mine = [l for l in refused if l.startswith(where + ":")]
        assert len(mine) == 1, (folder, refused)
        assert text in mine[0], (folder, mine[0])
        assert len(mine[0]) < 400, mine[0]
    assert len(refused) == len(cases)
    doc = json.loads((tmp_path / "out.json").read_text())
    assert {b["bot"] for b in doc["standings"]} == {"plain1", "plain2", "twin"}
    assert doc["played"] == 6
    assert int((tmp_path / "rss").read_text()) / 1024 < JUDGE_RSS_MB
    assert left == []
    assert cgroups_made_by({p.pid}) == [], "a cgroup was left"


def test_hash_streams_and_skips_ignored_state(tmp_path):
    """A stateful bot's 2 GiB file in state/ is never read (state/ is not part of the hash)."""
    d = good(tmp_path / "keeper", "keeper", "stateful = true\n")
    (d / "state").mkdir()
    with open(d / "state" / "big.bin", "wb") as f:
        f.truncate(2 << 30)
    os.mkfifo(d / "state" / "pipe")
    loaded = load_bots([d])
    assert not loaded.errors and loaded.bots[0].name == "keeper"


def test_symlink_inside_the_folder_is_fine(tmp_path):
    d = good(tmp_path / "linker", "linker")
    (d / "lib").mkdir()
    (d / "lib" / "a.txt").write_text("a")
    (d / "alias.txt").symlink_to("lib/a.txt")
    h1 = load_bots([d]).bots[0].hash
    (d / "lib" / "a.txt").write_text("b")
    assert load_bots([d]).bots[0].hash != h1  # the target's content still counts, through its own path
