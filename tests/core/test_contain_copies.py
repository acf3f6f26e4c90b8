"""A bot's folder copied for its jail where it cannot be id-mapped (kothkit.procs.copies): the bot runs
as the unprivileged uid over a copy owned by it, a stateful bot's kept files come back to its folder,
and nothing it plants there (a link, a set-id bit, a FIFO) is followed, kept or left as root's.

This machine's file systems take an id-mapping, so the copies are forced here (KOTHKIT_JAIL_COPY=1);
in the VM of tests/vm/ a folder on tmpfs (Linux 6.1) takes them by itself (tests/vm/test_v2.py)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kothkit.limits import Limits
from kothkit.procs import copies, probe
from kothkit.procs.contain import Jail, capabilities
from kothkit.testing.procs import TIME_SCALE, processes_touching
from tests.core.test_containment import make_bot, wait_gone

CAPS = capabilities()
pytestmark = pytest.mark.skipif(
    not (CAPS.minimal and CAPS.user is not None and not CAPS.userns),
    reason="bots do not run as a uid of their own here (a judge that is not root, or no C init): no copies")

#: A stateful bot's two starts: it reads what it was given, keeps a file, and swaps the link it was
#: given for a folder (as root, a copy back through that link would write outside its folder).
FIRST = """
echo "uid $(id -u) owner $(stat -c %u .)"
echo "given $(cat given.txt)"
echo "mode $(stat -c %a suid)"
[ -e pipe ] && echo "pipe here" || echo "no pipe"
echo "link $(readlink out)"
echo kept > kept.txt
ln -s /etc planted
"""
SECOND = """
echo "kept $(cat kept.txt)"
rm out && mkdir out && echo pwned > out/victim && echo swapped
"""


def run(jail: Jail, folder: Path, script: str) -> str:
    argv = jail.wrap(["/bin/sh", "-c", script], folder)
    assert jail.copied is not None and jail.copied[1] == folder.resolve()
    done = subprocess.run(argv, cwd=folder, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60 * TIME_SCALE, pass_fds=jail.pass_fds)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("reuse", [False, True], ids=["root-per-game", "prepared-root"])
def test_a_stateful_bot_keeps_its_files_over_a_copy_and_plants_nothing(tmp_path, monkeypatch, reuse):
    monkeypatch.setenv("KOTHKIT_JAIL_COPY", "1")
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = tmp_path / "bots" / "keeper"
    folder.mkdir(parents=True)
    (folder / "given.txt").write_text("secret of its own\n")
    (folder / "given.txt").chmod(0o600)  # root's, readable by root alone: its copy is the bot's
    (folder / "suid").write_text("#!/bin/sh\n")
    (folder / "suid").chmod(0o4755)
    os.mkfifo(folder / "pipe")
    (folder / "out").symlink_to(outside)
    jail = Jail(Limits(), writable=True, reuse_root=reuse)
    jail.setup()
    try:
        out = run(jail, folder, FIRST)
        assert not (folder / "kept.txt").exists()  # it wrote its copy, not its folder
    finally:
        jail.teardown()
    assert f"uid {probe.BOT_UID} owner {probe.BOT_UID}" in out, out
    assert "given secret of its own" in out
    assert "mode 755" in out and "no pipe" in out  # no set-id bit, no FIFO in its copy
    assert f"link {outside}" in out  # a link is copied as a link
    assert (folder / "kept.txt").read_text() == "kept\n"
    assert (folder / "kept.txt").stat().st_uid == folder.stat().st_uid  # its folder's owner's, as it wrote it
    assert os.readlink(folder / "planted") == "/etc" and (folder / "planted").is_symlink()
    assert stat.S_IMODE((folder / "suid").stat().st_mode) == 0o755
    assert not (folder / "pipe").exists()

    jail = Jail(Limits(), writable=True, reuse_root=reuse)
    jail.setup()
    try:
        out = run(jail, folder, SECOND)
    finally:
        jail.teardown()
    assert "kept kept" in out and "swapped" in out, out
    assert (folder / "out").is_dir() and not (folder / "out").is_symlink()
    assert (folder / "out" / "victim").read_text() == "pwned\n"
    assert list(outside.iterdir()) == []  # nothing went through the link it was given


def test_a_read_only_bot_is_copied_once_and_cannot_write(tmp_path, monkeypatch):
    monkeypatch.setenv("KOTHKIT_JAIL_COPY", "1")
    folder = tmp_path / "bots" / "reader"
    folder.mkdir(parents=True)
    (folder / "data").write_text("v1\n")
    made = []
    for _ in range(2):
        jail = Jail(Limits())
        jail.setup()
        try:
            out = run(jail, folder, "cat data; id -u; touch new 2>/dev/null && echo wrote || echo refused")
            made.append(jail.copied)
        finally:
            jail.teardown()
        assert out.split() == ["v1", str(probe.BOT_UID), "refused"]
    assert made[0] == made[1]  # one copy for both starts
    assert not (folder / "new").exists()


def test_copies_stop_at_their_caps_and_never_follow_a_link(tmp_path):
    src, dst = tmp_path / "src", tmp_path / "dst"
    deep = src / "/".join(["d"] * (copies.MAX_DEPTH + 2))
    deep.mkdir(parents=True)
    dst.mkdir()
    with pytest.raises(OSError, match="nested more than"):
        copies.mirror(src, dst, (os.getuid(), os.getgid()))
    (tmp_path / "target").mkdir()
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "target")
    with pytest.raises(OSError):  # the top folder itself is opened without following a link
        copies.mirror(link, dst, (os.getuid(), os.getgid()))


def test_a_sparse_file_stays_sparse_and_the_bytes_are_capped(tmp_path, monkeypatch):
    """A bot's sparse file costs no more disk in its folder than in its copy (a copy back that
    filled the holes would let a bot's 16 KiB of disk become gigabytes in the judge's state)."""
    src, dst = tmp_path / "src", tmp_path / "dst"
    src.mkdir()
    dst.mkdir()
    with open(src / "sparse", "wb") as f:
        f.truncate(1 << 30)
        f.seek(1 << 29)
        f.write(b"data")
    copies.mirror(src, dst, (os.getuid(), os.getgid()))
    copied = (dst / "sparse").stat()
    assert copied.st_size == 1 << 30 and copied.st_blocks * 512 < 1 << 20
    with open(dst / "sparse", "rb") as f:
        f.seek(1 << 29)
        assert f.read(4) == b"data"
    monkeypatch.setattr(copies, "MAX_BYTES", 1000)
    (src / "big").write_bytes(b"x" * 5000)
    with pytest.raises(OSError, match="more than"):
        copies.mirror(src, dst, (os.getuid(), os.getgid()))


def test_a_tournament_over_copies_says_so(cli, tmp_path):
    """``kothkit run`` with the copies: its containment line says so, and a stateful bot's kept
    file is in its folder after the run."""
    bots = tmp_path / "bots"
    make_bot(bots, "keeper", stateful=True, after="""
    open("games.txt", "a").write("x")
    """)
    make_bot(bots, "plain")
    out = tmp_path / "out.json"
    scratch = tmp_path / "scratch"  # the judge's TMPDIR: its copies there, gone when it is
    scratch.mkdir()
    r = cli("run", "gomoku_swap2", "--bots", bots, "--seed", "2", "--jobs", "1", "--move-time", str(5 * TIME_SCALE),
            "--db", tmp_path / "j.sqlite", "--json", out, env={"KOTHKIT_JAIL_COPY": "1", "TMPDIR": str(scratch)},
            check=True)
    line = next(l for l in r.stdout.splitlines() if l.startswith("containment: "))
    assert f"bots run as uid {probe.BOT_UID} over a copy of their folder (it cannot be id-mapped here)" in line
    assert "JAIL INCOMPLETE" not in r.stderr
    doc = json.loads(out.read_text())
    assert doc["played"] == 2 and all(g["fault"] is None for g in doc["games"]), doc["games"]
    assert (bots / "keeper" / "games.txt").read_text() == "xx"
    assert processes_touching(bots) == []
    assert list(scratch.glob(f"{copies.HOME_PREFIX}*")) == []


def test_a_killed_judges_copies_are_swept(tmp_path):
    start = """
import os, sys, time
from pathlib import Path
from kothkit.procs import copies
os.environ["KOTHKIT_JAIL_COPY"] = "1"
folder = Path(sys.argv[1])
c = copies.copy_for(folder, False, (65534, 65534))
print(c, flush=True)
time.sleep(600)
"""
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "f").write_text("x")
    judge = subprocess.Popen([sys.executable, "-c", start, str(folder)], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "TMPDIR": str(tmp_path)})
    try:
        made = Path(judge.stdout.readline().strip())
    finally:
        judge.kill()
        judge.wait(30)
    assert (made / "f").read_text() == "x" and made.parent.parent == tmp_path
    p = subprocess.run([sys.executable, "-c", "from kothkit.procs import copies; copies.sweep_copies()"],
                       env={**os.environ, "TMPDIR": str(tmp_path)}, timeout=60, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert not made.parent.exists()


def test_a_build_over_a_copy_leaves_its_program_in_the_folder(tmp_path, monkeypatch):
    """A build writes its folder as a stateful bot does: over a copy, its outputs come back."""
    from kothkit.bots.build import build, is_built
    from kothkit.bots.folders import load_bots
    from tests.core.test_build import C_OK, folder

    monkeypatch.setenv("KOTHKIT_JAIL_COPY", "1")
    spec = load_bots([folder(tmp_path, C_OK)]).bots[0]
    assert build(spec) == (True, None)
    brain = spec.path / "brain"
    assert brain.is_file() and is_built(spec)
    assert subprocess.run([str(brain)], capture_output=True, text=True, timeout=30).stdout == "hi\n"


#: A stateful function bot (connect4_hidden) that adds a line to a file of its folder at each game's
#: first call, then takes a while, so that its judge is killed between two of its games.
COUNTER = """
import time


def counter(view, turn, state):
    if state is None:
        with open("games.txt", "a") as f:
            f.write("game\\n")
        time.sleep(0.2)
    return turn % 7, 0
"""


def test_a_stateful_function_bots_files_come_back_after_each_game(tmp_path):
    """An isolated function bot's host serves all its games, over one copy of its folder: what each
    game wrote is copied back as the game ends, not only when the host does, so a judge killed by
    SIGKILL after some games leaves the folder holding what every stored game wrote."""
    from kothkit.store.journal import Journal
    from tests.connect4_hidden.test_isolated_hosts import CONSTANT

    bot = tmp_path / "counter"
    bot.mkdir()
    (bot / "bot.py").write_text(COUNTER)
    (bot / "bot.toml").write_text('name = "counter"\nentry = "bot.py:counter"\nstateful = true\n')
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    db = tmp_path / "j.sqlite"
    judge = subprocess.Popen(
        [sys.executable, "-m", "kothkit", "run", "connect4_hidden", "--bots", str(bot), "--bots", str(CONSTANT),
         "--rounds", "5", "--seed", "2", "--jobs", "1", "--db", str(db), "-q"],
        cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, "KOTHKIT_JAIL_COPY": "1", "TMPDIR": str(scratch)})

    def stored() -> int:
        if not db.exists():
            return 0
        with Journal(db) as j:
            return len(list(j.all("connect4_hidden")))

    try:
        deadline = time.monotonic() + 120 * TIME_SCALE
        while stored() < 2:
            assert judge.poll() is None, judge.stderr.read() if judge.stderr else ""
            assert time.monotonic() < deadline, "no two games stored"
            time.sleep(0.05)
        judge.kill()  # between its games (of ten): the host never ends by itself
    finally:
        judge.kill()
        judge.wait(30)
        if judge.stderr:
            judge.stderr.close()
    assert wait_gone(bot) == []
    played = stored()
    assert 2 <= played < 10
    # Each stored game's line is there; one more if the judge died between a game's end and its store.
    assert (bot / "games.txt").read_text().count("game\n") in (played, played + 1)


def test_a_file_rewritten_within_a_clock_tick_is_copied_again(tmp_path):
    """A file's time is the kernel's coarse clock: a bot's counter rewritten ("1", then "2") within
    one tick keeps its size and time, and is copied all the same while it is fresh."""
    src, dst = tmp_path / "src", tmp_path / "dst"
    src.mkdir()
    dst.mkdir()
    (src / "games.txt").write_text("1")
    copies.mirror(src, dst, (os.getuid(), os.getgid()))
    then = (src / "games.txt").stat()
    (src / "games.txt").write_text("2")
    os.utime(src / "games.txt", ns=(then.st_atime_ns, then.st_mtime_ns))  # (as within the same tick)
    copies.mirror(src, dst, (os.getuid(), os.getgid()))
    assert (dst / "games.txt").read_text() == "2"


def test_a_stateful_function_bot_played_by_two_workers_keeps_every_game(tmp_path):
    """With two workers, a stateful function bot's games go to either worker's host, each over a copy
    of its own: each brings its copy up to date before a game and copies it back after, and neither
    copies an older state back when it ends, so its counter counts every game."""
    from tests.connect4_hidden.test_isolated_hosts import BOTS, CONSTANT

    bot = tmp_path / "keeper"
    shutil.copytree(BOTS / "keeper", bot)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    field = CONSTANT.parent
    out = tmp_path / "out.json"
    done = subprocess.run(
        [sys.executable, "-m", "kothkit", "run", "connect4_hidden", "--bots", str(bot), "--bots", str(CONSTANT),
         "--bots", str(field / "random_player"), "--bots", str(field / "better_constant_player"), "--rounds", "2",
         "--seed", "2", "--jobs", "2", "--db", str(tmp_path / "j.sqlite"), "-q", "--json", str(out)],
        cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=240 * TIME_SCALE,
        env={**os.environ, "KOTHKIT_JAIL_COPY": "1", "TMPDIR": str(scratch)})
    assert done.returncode == 0, done.stdout + done.stderr
    games = json.loads(out.read_text())["games"]
    played = sum("keeper" in g["players"] for g in games)
    assert played == 12 and all(g["fault"] is None for g in games)
    assert (bot / "games.txt").read_text() == str(played)


def test_function_bots_folders_are_probed_not_their_files(tmp_path):
    """``run``'s containment line probes a function bot's folder, not its file, and the probe takes a
    file for its folder: a file takes no id-mapping, and its probe failing would put its whole file
    system's bots over copies."""
    from tests.connect4_hidden.test_isolated_hosts import BOTS, CONSTANT

    if probe.folder_copied(tmp_path):
        pytest.skip("this machine's scratch takes no id-mapping: its bots run over copies anyway")
    bot = tmp_path / "keeper"
    shutil.copytree(BOTS / "keeper", bot)
    env = {k: v for k, v in os.environ.items() if k != "KOTHKIT_JAIL_COPY"}
    done = subprocess.run(
        [sys.executable, "-m", "kothkit", "run", "connect4_hidden", "--bots", str(bot), "--bots", str(CONSTANT),
         "--rounds", "1", "--seed", "2", "--jobs", "1", "--db", str(tmp_path / "j.sqlite"), "-q"],
        cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=240 * TIME_SCALE, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(l for l in done.stdout.splitlines() if l.startswith("containment: "))
    assert f"bots run as uid {probe.BOT_UID}," in line and "over a copy" not in line, line
    assert (bot / "games.txt").read_text() == "2"
    # The probe itself takes a file for its folder (a fresh process: its answers are kept per file system).
    asked = subprocess.run(
        [sys.executable, "-c", "import sys; from pathlib import Path; from kothkit.procs import probe;"
         "print(probe.folder_copied(Path(sys.argv[1])))", str(next(bot.glob("*.py")))],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60 * TIME_SCALE, env=env)
    assert asked.stdout.split() == ["False"], asked.stdout + asked.stderr
