"""The build step: runs once, cached by the hash of the sources; a failed build leaves the bot out."""

from pathlib import Path

from kothkit.bots.folders import load_bots
from kothkit.bots.build import build, is_built

ROOT = Path(__file__).resolve().parents[2]
C_OK = "#include <stdio.h>\nint main(void){puts(\"hi\");return 0;}\n"


def folder(tmp_path: Path, source: str) -> Path:
    f = tmp_path / "cbot"
    f.mkdir(exist_ok=True)
    (f / "bot.toml").write_text('name = "cbot"\nbuild = ["gcc", "-O2", "-o", "brain", "brain.c"]\ncommand = ["./brain"]\n')
    (f / "brain.c").write_text(source)
    return f


def test_build_is_cached_until_a_source_changes(tmp_path):
    f = folder(tmp_path, C_OK)
    spec = load_bots([f]).bots[0]
    assert build(spec) == (True, None) and (f / "brain").is_file() and is_built(spec)
    mtime = (f / "brain").stat().st_mtime_ns
    again = load_bots([f]).bots[0]  # the binary now exists: the hash must not change
    assert again.hash == spec.hash
    assert build(again) == (False, None)
    assert (f / "brain").stat().st_mtime_ns == mtime
    (f / "brain.c").write_text(C_OK.replace("hi", "ho"))
    changed = load_bots([f]).bots[0]
    assert not is_built(changed) and build(changed) == (True, None)


def test_failed_build_reports_compiler_output(tmp_path):
    spec = load_bots([folder(tmp_path, "int main(void){ return nope; }\n")]).bots[0]
    built, err = build(spec)
    assert not built and "build failed" in str(err) and "nope" in str(err) and "bot.toml" in str(err)


def test_failed_build_sits_out_of_a_run(cli, tmp_path):
    bots = tmp_path / "bots"
    bots.mkdir()
    folder(bots, "int main(void){ return nope; }\n")
    r = cli("run", "gomoku_swap2", "--bots", bots, "--bots", ROOT / "plugins/gomoku_swap2/bots", "--seed", "1",
            "--jobs", "1", "--db", tmp_path / "j.sqlite", timeout=180)
    assert r.returncode == 0, r.stderr
    assert "bot left out" in r.stderr and "nope" in r.stderr
    standings, _, summary = r.stdout.partition("left out: 1 bot that did not load or build")
    assert "cbot" not in standings  # it sat out, and the final summary says so
    assert "cbot/bot.toml: build failed (gcc -O2 -o brain brain.c exited with 1):" in summary


HOSTILE_BUILDS = ROOT / "tests" / "bots" / "hostile_builds"
GREEDY = ROOT / "plugins" / "gomoku_swap2" / "bots" / "greedy"
#: Runs the judge and writes its own peak RSS to the file named by argv[1] (as in test_hostile).
JUDGE = """
import atexit, runpy, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(next(l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM:"))))
sys.argv[0] = "kothkit"
runpy.run_module("kothkit", run_name="__main__", alter_sys=True)
"""


def test_hostile_builds_are_jailed_timed_and_capped(tmp_path):
    """A build that never ends (and leaves a setsid child), one that prints 50 MB, one that tries to
    write outside its folder: in a real run with --build-time 3, the first two sit out with a clear
    line, nothing they started is left, the judge stays small; the third's writes stay in its folder,
    and it plays (as does greedy, built by gcc in the jail)."""
    import json
    import os
    import shutil
    import subprocess
    import sys
    import time

    from kothkit.procs.contain import capabilities
    from kothkit.testing.procs import processes_touching

    bots = tmp_path / "bots"
    shutil.copytree(HOSTILE_BUILDS, bots)
    shutil.copytree(GREEDY, bots / "greedy", ignore=shutil.ignore_patterns(".kothkit-build", "bot"))
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-c", JUDGE, str(tmp_path / "rss"), "run", "gomoku_swap2", "--bots", str(bots),
                        "--seed", "1", "--jobs", "1", "--build-time", "3", "--db", str(tmp_path / "j.sqlite"),
                        "--json", str(tmp_path / "out.json"), "-q"],
                       capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL, cwd=tmp_path,
                       env={**os.environ, "COLUMNS": "200"})
    took = time.monotonic() - t0
    assert r.returncode == 0, r.stdout + r.stderr
    left = [l for l in r.stderr.splitlines() if l.startswith("bot left out: ")]
    hang = [l for l in left if "build_hang" in l]
    assert len(hang) == 1 and "build took longer than 3 s (killed, with all it started)" in hang[0]
    flood = r.stderr[r.stderr.index("build_flood/bot.toml"):]
    assert "build failed" in flood and "exited with 3" in flood and "more bytes of build output dropped" in flood
    assert "\x1b" not in r.stderr and len(r.stderr) < 100_000
    assert len(left) == 2, left
    doc = json.loads((tmp_path / "out.json").read_text())
    assert {s["bot"] for s in doc["standings"]} == {"build_escape", "greedy"}
    assert all(g["fault"] is None for g in doc["games"])
    assert processes_touching(bots) == []
    assert int((tmp_path / "rss").read_text()) / 1024 < 200
    assert took < 90
    log = (bots / "build_escape" / "build.log").read_text()
    assert not (tmp_path / "escaped-by-build.txt").exists()
    assert not Path("/var/tmp/escaped-by-build.txt").exists()
    if capabilities().files:
        assert "../escaped-by-build.txt: denied" in log and "/var/tmp/escaped-by-build.txt: denied" in log
    if capabilities().minimal:
        assert "/root/escaped-by-build.txt: denied" in log
