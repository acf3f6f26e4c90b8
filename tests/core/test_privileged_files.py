"""Nothing privileged leaves a jail (issue 42): a build and a stateful bot that plant a setuid-root
shell, a file created set-uid, a set-gid folder and world-writable files leave none of them on the
host, nothing in their folder is root's, and the filter refuses AF_VSOCK and io_uring.

The bots are tests/bots/hostile_privileged/; each reports what the jail let it do.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from kothkit.bots.build import build
from kothkit.bots.folders import load_bots
from kothkit.procs import defuse
from kothkit.procs.contain import capabilities
from kothkit.testing.procs import processes_touching

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "bots" / "hostile_privileged"
GREEDY = ROOT / "plugins" / "gomoku_swap2" / "bots" / "greedy"
CAPS = capabilities()
needs_jail = pytest.mark.skipif(not CAPS.namespaces, reason=f"no PID namespace here: {CAPS.why}")


def privileged(folder: Path) -> list[str]:
    """Every entry of ``folder`` (itself included) that carries a set-id bit or world-write, or is
    root's; symbolic links are not followed."""
    found = []
    for path in [folder, *folder.rglob("*")]:
        st = path.lstat()
        if stat.S_ISLNK(st.st_mode):
            continue
        if st.st_mode & (stat.S_ISUID | stat.S_ISGID | stat.S_IWOTH):
            found.append(f"{path.relative_to(folder)}: mode {stat.filemode(st.st_mode)}")
        if st.st_uid == 0 or st.st_gid == 0:
            found.append(f"{path.relative_to(folder)}: owner {st.st_uid}:{st.st_gid}")
    return found


def report(text: str) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)


def check_report(said: dict[str, str]) -> None:
    """What the filter refuses where it is in force: set-id bits as they are made, AF_VSOCK, io_uring;
    what it lets through (world-write) is undone afterwards."""
    assert said["copy dash"] == "done" and said["chmod 666 ww"] == "done", said
    if CAPS.seccomp:
        for what in ("chmod 4755 rootsh", "create 4755", "mkdir 2755", "vsock", "io_uring"):
            assert said[what] == "EPERM", (what, said)


def test_the_copies_of_the_planting_code_are_the_same():
    assert (HOSTILE / "build_setuid" / "plant.py").read_text() == (HOSTILE / "plants_setuid" / "plant.py").read_text()


def test_defuse_strips_set_id_bits_and_world_write_and_roots_ownership(tmp_path):
    """The pass after a jail, on what a bot could have left (planted here by the test itself): a
    link to a set-uid file outside is not followed, a FIFO is done too."""
    folder = tmp_path / "bot"
    (folder / "sub").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.write_text("not the bot's")
    outside.chmod(0o4755)
    for name, mode in (("rootsh", 0o4755), ("sub/setgid", 0o2755), ("ww", 0o666), ("plain", 0o644)):
        (folder / name).write_text("x")
        (folder / name).chmod(mode)
    (folder / "sgdir").mkdir()
    (folder / "sgdir").chmod(0o2777)
    os.mkfifo(folder / "fifo", 0o666)
    (folder / "fifo").chmod(0o4666)
    (folder / "link").symlink_to(outside)
    defuse.defuse(folder)
    assert privileged(folder) == []
    assert stat.S_IMODE((folder / "plain").stat().st_mode) == 0o644
    assert stat.S_IMODE((folder / "sgdir").stat().st_mode) == 0o775
    assert stat.S_IMODE(outside.stat().st_mode) == 0o4755  # the link's target is not the bot's
    if os.geteuid() == 0:
        assert outside.stat().st_uid == 0
        assert (folder / "plain").stat().st_uid == defuse.OWNER


@needs_jail
def test_a_build_that_plants_a_setuid_shell_leaves_nothing_privileged(tmp_path):
    """``cp /bin/dash rootsh; chmod 4755 rootsh`` and the rest, in a jailed build: refused as it is
    made where the filter is in force, stripped afterwards in any case; what the build made is an
    unprivileged user's."""
    folder = tmp_path / "build_setuid"
    shutil.copytree(HOSTILE / "build_setuid", folder)
    spec = load_bots([folder]).bots[0]
    built, error = build(spec)
    assert built and error is None, error
    check_report(report((folder / "build.log").read_text()))
    assert privileged(folder) == []
    assert (folder / "rootsh").is_file() and (folder / "bot.py").is_file()
    assert processes_touching(folder) == []


@needs_jail
def test_a_stateful_bot_that_plants_a_setuid_shell_leaves_nothing_privileged(cli, tmp_path):
    """The same at run time, by a stateful bot in its folder, in a real run: it plays its games (the
    refusals are not faults of the judge), and afterwards nothing in its folder is privileged."""
    bots = tmp_path / "bots"
    shutil.copytree(HOSTILE / "plants_setuid", bots / "plants_setuid")
    shutil.copytree(HOSTILE / "build_setuid", bots / "build_setuid")
    r = cli("run", "gomoku_swap2", "--bots", bots, "--seed", "2", "--jobs", "1", "--move-time", "5",
            "--db", tmp_path / "j.sqlite", "--json", tmp_path / "out.json", "-q", check=True, timeout=300)
    assert "bot left out" not in r.stderr, r.stderr
    games = json.loads((tmp_path / "out.json").read_text())["games"]
    assert len(games) == 2 and all(g["fault"] is None for g in games), games
    from kothkit.store.journal import Journal

    with Journal(tmp_path / "j.sqlite") as j:
        logs = [g.logs["plants_setuid"] for g in j.all()]
    assert len(logs) == 2
    check_report(report(logs[0]))
    for name in ("plants_setuid", "build_setuid"):
        assert privileged(bots / name) == [], name
    assert processes_touching(bots) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="only a root judge changes owners")
def test_own_gives_a_root_owned_folder_to_the_unprivileged_owner(tmp_path):
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "f").write_text("x")
    os.chown(folder / "f", 1234, 0)
    defuse.own(folder)
    assert (folder.stat().st_uid, folder.stat().st_gid) == (defuse.OWNER, defuse.OWNER)
    assert ((folder / "f").stat().st_uid, (folder / "f").stat().st_gid) == (1234, defuse.OWNER)


def test_defuse_never_follows_a_link_swapped_in_for_an_entry_it_stats(tmp_path, monkeypatch):
    """A bot still running (a kept host whose freeze is asynchronous or failed) swaps a FIFO it made
    0777 for a link to a file outside between defuse's stat and its chmod: the file outside keeps
    its mode (a root judge would otherwise make any file of the machine group-writable)."""
    folder = tmp_path / "bot"
    folder.mkdir()
    outside = tmp_path / "outside"
    outside.write_text("not the bot's")
    outside.chmod(0o600)
    os.mkfifo(folder / "fifo")
    (folder / "fifo").chmod(0o777)
    real_stat = os.stat

    def racing_stat(path, *args, **kwargs):
        st = real_stat(path, *args, **kwargs)
        if path == "fifo" and kwargs.get("dir_fd") is not None:
            os.unlink(folder / "fifo")
            (folder / "fifo").symlink_to(outside)
        return st

    monkeypatch.setattr(os, "stat", racing_stat)
    defuse.defuse(folder)
    monkeypatch.undo()
    assert stat.S_IMODE(outside.stat().st_mode) == 0o600


def test_defuse_strips_a_set_id_bit_from_a_file_nobody_may_read(tmp_path):
    """A file made set-uid but unreadable (mode 4000): no read needed to take the bit off."""
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "f").write_text("x")
    (folder / "f").chmod(0o4000)
    (folder / "d").mkdir()
    (folder / "d").chmod(0o2000)
    defuse.defuse(folder)
    (folder / "d").chmod(0o755)
    assert privileged(folder) == []


@needs_jail
def test_a_stateful_function_host_discarded_mid_game_leaves_nothing_world_writable(cli, tmp_path):
    """A function host is defused between games; one that dies in the middle of one (its host
    discarded, never rested) is defused as its jail ends."""
    bots = tmp_path / "bots"
    shutil.copytree(HOSTILE / "ww_then_dies", bots / "ww_then_dies")
    shutil.copytree(ROOT / "plugins" / "connect4_hidden" / "bots" / "constant_player", bots / "constant_player")
    cli("run", "connect4_hidden", "--bots", bots, "--seed", "2", "--jobs", "1", "--rounds", "1", "--move-time", "5",
        "--db", tmp_path / "j.sqlite", "--json", tmp_path / "out.json", "-q", check=True, timeout=300)
    games = json.loads((tmp_path / "out.json").read_text())["games"]
    assert games and all(g["fault"] == "ww_then_dies" for g in games), games
    assert (bots / "ww_then_dies" / "left.txt").exists()
    assert privileged(bots / "ww_then_dies") == []
    assert processes_touching(bots) == []
