"""The build step: runs once, cached by the hash of the sources; a failed build leaves the bot out."""

from pathlib import Path

from kothkit.bots import load_bots
from kothkit.build import build, is_built

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
