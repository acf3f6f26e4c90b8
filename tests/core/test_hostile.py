"""The hostile-bot suite: each bot in tests/bots/hostile/ misbehaves in one way, in a real tournament.

Every hostile bot plays a real ``kothkit run`` tournament (its two games, one
as opener) against the bundled ``greedy`` bot.  For each we check the verdict
lands on the right bot with the right kind, that the judge did not hang, that
no process the bot started is left afterwards (a /proc scan for any process
whose working directory or command line points into the bots' folders, and no
cgroup of the judge left behind), and that the judge's own peak memory stays
bounded while bots flood it.  The tournaments run a few at a time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kothkit.bots.folders import load_folder
from kothkit.bots.build import build
from kothkit.procs.contain import capabilities
from kothkit.store.journal import Journal
from kothkit.testing.procs import TIME_SCALE, processes_touching

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "bots" / "hostile"
GREEDY = ROOT / "plugins" / "gomoku_swap2" / "bots" / "greedy"
MOVE_TIME = 1.0 * TIME_SCALE
#: flood_stderr writes its 256 MiB before its first reply: time enough even on a loaded machine.
FLOOD_MOVE_TIME = 8.0 * TIME_SCALE
MEMORY_MB = 256
#: The judge's peak resident memory, whatever the bots do (about 45 MiB here; flood_stderr sends it
#: 256 MiB, flood_stdout sends until it is killed).
JUDGE_RSS_MB = 100
PARALLEL = 4 if TIME_SCALE == 1 else 2

#: bot -> (verdict kind or None for a game with no fault, text the reason must contain)
EXPECTED = {
    "hang_first": ("timeout", "no reply within"),
    "hang_later": ("timeout", "no reply within"),
    "slow_start": ("timeout", "no reply within"),
    "crash_start": ("crash", "exited with code 3"),
    "crash_signal": ("crash", "killed by SIGSEGV"),
    "exits_after_move": ("crash", "exited with code 0"),
    "closes_stdout": ("crash", "closed its output"),
    "garbage": ("invalid-reply", "cannot read"),
    "bad_utf8": ("invalid-reply", "not UTF-8"),
    "flood_stdout": ("invalid-reply", "line longer than"),
    "illegal": ("illegal-move", ""),
    "out_of_range": ("illegal-move", "off the board"),
    "answers_twice": ("out-of-turn", "when no reply was due"),
    "memory_hog": ("memory", f"more than {MEMORY_MB} MiB"),
    "flood_stderr": (None, ""),
    "loud_stderr": (None, ""),
    "child": (None, ""),
    "setsid_grandchild": (None, ""),
    "ignores_sigterm": (None, ""),
    "write_parent": (None, ""),
    "handle_escape": (None, ""),
    "journal_reader": (None, ""),
    "starver": (None, ""),
    "fills_tmp": ("disk", "with its /tmp full (16 MiB) (disk_mb)"),
    "fills_folder": ("disk", "its folder holds more than disk_mb (16 MiB)"),
}
#: Extra options of a bot's tournament.
OPTIONS = {"fills_tmp": ["--disk-mb", "16"], "fills_folder": ["--disk-mb", "16"]}

#: Runs the judge and writes its own peak RSS (not its children's) to the file named by argv[1].
#: VmHWM, not ru_maxrss: ru_maxrss survives exec, so it would report the (large) pytest process
#: the judge was forked from.
JUDGE = """
import atexit, runpy, sys
out = sys.argv.pop(1)
def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return line.split()[1]
atexit.register(lambda: open(out, "w").write(peak()))
sys.argv[0] = "kothkit"
runpy.run_module("kothkit", run_name="__main__", alter_sys=True)
"""


def leftover_cgroups(pids: list[int]) -> list[str]:
    caps = capabilities()
    left = []
    for d in {caps.cgroup_dir, caps.pids_dir, caps.freezer_dir} - {None}:
        # Named kothkit-nsNS-PID-START-RANDOM after the process that made them (kothkit.procs.contain).
        left += [str(g) for g in d.glob("kothkit-*") if len(g.name.split("-")) == 5
                 and g.name.split("-")[2] in {str(pid) for pid in pids}]
    return left


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    """Copies of the hostile bots and of greedy (built once), and every tournament's results."""
    tmp = tmp_path_factory.mktemp("hostile")
    bots = tmp / "hostile"
    shutil.copytree(HOSTILE, bots, ignore=shutil.ignore_patterns("__pycache__"))
    good = tmp / "good" / "greedy"
    shutil.copytree(GREEDY, good, ignore=shutil.ignore_patterns(".kothkit-build", "bot"))
    env = {**os.environ, "COLUMNS": "200"}
    results: dict[str, dict] = {}
    pending = sorted(EXPECTED)
    running: list[tuple[str, subprocess.Popen, float]] = []
    judge_pids = []
    built, error = build(load_folder(good))  # once, before the tournaments run side by side
    assert built and error is None
    while pending or running:
        while pending and len(running) < PARALLEL:
            name = pending.pop(0)
            out = tmp / name
            out.mkdir()
            move_time = FLOOD_MOVE_TIME if name in ("flood_stderr", "loud_stderr") else MOVE_TIME
            cmd = [sys.executable, "-c", JUDGE, str(out / "rss"), "run", "gomoku_swap2",
                   "--bots", str(bots / name), "--bots", str(good), "--seed", "7", "--jobs", "1",
                   "--move-time", str(move_time), "--memory-mb", str(MEMORY_MB),
                   "--db", str(out / "journal.sqlite"), "--json", str(out / "result.json"), "-q",
                   *OPTIONS.get(name, [])]
            with open(out / "stdout", "w") as log:
                p = subprocess.Popen(cmd, cwd=out, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env=env)
            judge_pids.append(p.pid)
            running.append((name, p, time.monotonic()))
        time.sleep(0.05)
        for item in list(running):
            name, p, t0 = item
            code = p.poll()
            if code is None and time.monotonic() - t0 > 120 * TIME_SCALE:
                p.kill()
                code = p.wait()
                results[name] = {"hung": True}
            if code is not None:
                running.remove(item)
                out = tmp / name
                rss = out / "rss"
                if name not in results:
                    results[name] = {"code": code, "stdout": (out / "stdout").read_text(),
                                     "doc": json.loads((out / "result.json").read_text()) if code == 0 else None,
                                     "rss_mb": int(rss.read_text()) / 1024 if rss.exists() else None,
                                     "journal": out / "journal.sqlite"}
    # Right after the last judge exits: nothing any bot started may be alive.
    left = processes_touching(bots, good.parent)
    return {"tmp": tmp, "bots": bots, "results": results, "left": left, "cgroups": leftover_cgroups(judge_pids)}


def test_suite_has_the_bots_the_issue_lists():
    names = {p.name for p in HOSTILE.iterdir() if (p / "bot.toml").is_file()}
    assert names == set(EXPECTED)
    assert len(names) >= 15


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hostile_bot_gets_its_verdict(arena, name):
    res = arena["results"][name]
    assert not res.get("hung"), f"the judge hung on {name}"
    assert res["code"] == 0, res["stdout"]
    kind, reason = EXPECTED[name]
    if name == "memory_hog" and capabilities().cgroup_dir is None:
        kind, reason = "crash", ""  # RLIMIT_DATA: the allocation fails and the bot dies of it
    games = res["doc"]["games"]
    assert len(games) == 2
    assert {g["players"][0] for g in games} == {name, "greedy"}  # it opened one game and answered one
    if name == "fills_folder":  # its folder is measured before each game: the first one is fair
        first, games = sorted(games, key=lambda g: g["index"])[0], sorted(games, key=lambda g: g["index"])[1:]
        assert first["fault"] is None and first["reason"] == "five in a row", first
    for g in games:
        said = (g["index"], g["fault"], g["verdict"], g["reason"])
        if kind is None:
            assert g["fault"] is None and g["verdict"] is None, said
            assert g["reason"] == "five in a row", said
        else:
            assert g["fault"] == name and g["verdict"] == kind, said
            assert g["winner"] == "greedy", said
            assert reason in g["reason"], said


@pytest.mark.slow
def test_no_process_is_left_behind(arena):
    assert arena["left"] == []
    assert arena["cgroups"] == []


@pytest.mark.slow
def test_judge_memory_stays_bounded(arena):
    peaks = {n: r["rss_mb"] for n, r in arena["results"].items() if r.get("rss_mb") is not None}
    assert len(peaks) == len(EXPECTED)
    assert max(peaks.values()) < JUDGE_RSS_MB, peaks


@pytest.mark.slow
def test_stderr_flood_is_capped_in_the_journal(arena):
    with Journal(arena["results"]["flood_stderr"]["journal"]) as j:
        records = list(j.all())
    assert len(records) == 2
    for r in records:
        log = r.logs["flood_stderr"]
        assert len(log.encode()) < 64 * 1024
        assert "more bytes of stderr dropped" in log


@pytest.mark.slow
def test_live_stderr_is_capped_and_escaped_on_the_terminal(arena):
    """loud_stderr (stderr = true) writes 16 MiB with terminal escapes per game: the judge shows
    its log's cap of it, escaped, and says the rest is not shown."""
    out = arena["results"]["loud_stderr"]["stdout"]
    assert len(out.encode()) < 200 * 1024
    assert "\x1b" not in out
    assert "[loud_stderr] \\x1b[2J\\x1b[31mLOUD" in out
    assert out.count("[loud_stderr] ... more stderr not shown") == 2  # once a game


@pytest.mark.slow
def test_bot_writes_only_its_own_folder(arena):
    caps = capabilities()
    bots = arena["bots"]
    assert (bots / "write_parent" / "own-file.txt").read_text() == "escaped"
    with Journal(arena["results"]["write_parent"]["journal"]) as j:
        logs = [r.logs["write_parent"] for r in j.all()]
    if not caps.files:
        pytest.skip(f"files are not confined on this machine: {caps.why}")
    assert not (bots / "escaped.txt").exists()
    for log in logs:
        assert "own: written" in log
        assert "parent: denied (" in log  # read-only, or not the bot's to write
        assert "siblings: write_parent\n" in log  # the other hostile bots' folders are hidden


def _logs(arena, name):
    with Journal(arena["results"][name]["journal"]) as j:
        return [r.logs[name] for r in j.all()]


@pytest.mark.slow
def test_escape_by_file_handle_is_refused(arena):
    """open_by_handle_at let a root bot open any file of the disk, whatever its mounts show: the
    call is refused, by the seccomp filter (EPERM for name_to_handle_at already) or, without one,
    for want of CAP_DAC_READ_SEARCH."""
    caps = capabilities()
    if not caps.namespaces:
        pytest.skip(f"no jail here: {caps.why}")
    for log in _logs(arena, "handle_escape"):
        assert "ESCAPED" not in log
        assert "open_by_handle_at: EPERM" in log
        if caps.seccomp:
            for call in ("name_to_handle_at", "mount", "unshare", "ptrace"):
                assert f"{call}: EPERM" in log, log
        else:
            assert not caps.no_caps or "mount: EPERM" in log


@pytest.mark.slow
def test_journal_and_home_folders_are_invisible(arena):
    caps = capabilities()
    if not caps.minimal:
        pytest.skip("no minimal root here (" + (caps.why or f"the {caps.helper} init makes the machine read-only") + ")")
    assert arena["results"]["journal_reader"]["journal"].exists()
    for log in _logs(arena, "journal_reader"):
        for what in ("journal", "wal", "pwd", "proc1cwd"):
            assert f"{what}: hidden" in log, log
        # /root shows only what the bot's interpreter needs (pyenv's prefix, when Python lives there)
        root = next(l for l in log.splitlines() if l.startswith("root: "))
        assert root in ("root: hidden (No such file or directory)", "root: ", "root: .pyenv"), root
        assert "parent: journal_reader\n" in log  # the other bots' folders are not there


#: Plays like the others, but thinks 0.3 s of its own CPU time on its moves 17 to 19: by then the
#: starver has 16 children spinning, which would leave it a seventeenth of its core.
THINKER = """
import re, sys, time
moves = 0
for raw in iter(sys.stdin.readline, ""):
    tag, _, rest = raw.strip().partition(" ")
    if tag == "EXIT":
        break
    moves += 1
    if 17 <= moves <= 19:
        end = time.process_time() + THINK
        while time.process_time() < end:
            pass
    if tag == "A":
        out = "(0,0) (2,0) (1,0)"
    elif tag in ("B", "C"):
        out = "B"
    else:
        taken = {(int(x), int(y)) for x, y in re.findall(r"\\(\\((\\d+),(\\d+)\\)", rest)}
        out = "(%d,%d)" % next((x, y) for y in range(15) for x in range(15) if (x, y) not in taken)
    sys.stdout.write(out + "\\n")
    sys.stdout.flush()
"""


@pytest.mark.slow
def test_starving_child_does_not_cost_its_opponent_a_game(cli, tmp_path):
    """The starver leaves children spinning after each reply; its opponent needs 0.3 s of CPU on
    a few moves, with 3 s a move.  Frozen while it waits, the starver takes none of it; not
    frozen (no cgroups: the control), its children make the opponent lose on time."""
    caps = capabilities()
    if caps.freezer_version is None:
        pytest.skip("no writable freezer cgroup here: a waiting bot is not frozen")
    bots = tmp_path / "bots"
    shutil.copytree(HOSTILE / "starver", bots / "starver")
    (bots / "thinker").mkdir()
    # (at KOTHKIT_TEST_SCALE, in the VM of tests/vm/: its thinking and the move time scaled alike)
    (bots / "thinker" / "bot.py").write_text(THINKER.replace("THINK", str(0.3 * TIME_SCALE)))
    (bots / "thinker" / "bot.toml").write_text('command = ["python3", "-S", "bot.py"]\n')
    jobs = str(len(caps.cores))
    args = ["run", "gomoku_swap2", "--bots", bots, "--seed", "3", "--jobs", jobs, "--move-time", str(3 * TIME_SCALE),
            "-q"]
    fair = cli(*args, "--db", tmp_path / "a.sqlite", "--json", tmp_path / "a.json", check=True,
               timeout=300 * TIME_SCALE)
    assert "cpu: a waiting bot is frozen" in fair.stdout
    games = json.loads((tmp_path / "a.json").read_text())["games"]
    assert len(games) == 2 and all(g["fault"] is None for g in games), [(g["fault"], g["reason"]) for g in games]
    unfair = cli(*args, "--db", tmp_path / "b.sqlite", "--json", tmp_path / "b.json", check=True,
                 timeout=300 * TIME_SCALE, env={"KOTHKIT_NO_CGROUP": "1"})
    assert "cpu: a waiting bot is NOT frozen" in unfair.stdout
    games = json.loads((tmp_path / "b.json").read_text())["games"]
    assert [(g["fault"], g["verdict"]) for g in games] == [("thinker", "timeout")] * 2, games
    assert processes_touching(bots) == []


@pytest.mark.slow
def test_run_output_says_what_containment_is_in_force(arena):
    line = next(l for l in arena["results"]["garbage"]["stdout"].splitlines() if l.startswith("containment: "))
    assert line == f"containment: {capabilities().summary()}"
