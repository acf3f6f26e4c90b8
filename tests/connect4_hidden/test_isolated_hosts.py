"""Isolated function bots' hosts in real tournaments: a stateful bot's writable folder, and a bot
that imports its game's plugin, with kothkit installed editable (this checkout's venv) and not
(a throw-away venv with kothkit installed from a copy of this checkout)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kothkit.results.archive import log_lines
from kothkit.store.journal import Journal

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "bots" / "connect4"
CONSTANT = ROOT / "plugins" / "connect4_hidden" / "bots" / "constant_player"


def tournament(tmp: Path, *bots: Path | str, python: str | Path = sys.executable, env: dict | None = None,
               extra: tuple[str, ...] = ()) -> list:
    """The records of an isolated connect4_hidden tournament of ``bots`` (one round, one job)."""
    db = tmp / "j.sqlite"
    args = [str(python), "-m", "kothkit", "run", "connect4_hidden", "--rounds", "1", "--seed", "2", "--jobs", "1",
            "--db", str(db), "-q", *extra]
    for b in bots:
        args += ["--bots", str(b)]
    proc = subprocess.run(args, cwd=tmp, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL,
                          env=env)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    with Journal(db) as j:
        return list(j.all("connect4_hidden"))


def texts(recs: list, bot: str) -> list[str]:
    return [line.text for r in recs if bot in r.players for line in log_lines(r, bot)]


@pytest.mark.parametrize("stateful", [True, False])
def test_a_stateful_isolated_function_bot_writes_its_folder_and_another_cannot(tmp_path, stateful):
    bot = tmp_path / "keeper"
    shutil.copytree(BOTS / "keeper", bot)
    if not stateful:
        (bot / "bot.toml").write_text('name = "keeper"\nentry = "bot.py:keeper"\n')
    recs = tournament(tmp_path, bot, CONSTANT)
    played = sum("keeper" in r.players for r in recs)
    assert played == 2 and not any(r.verdict for r in recs), [(r.players, r.reason) for r in recs]
    if stateful:
        # One host served both games: the count went on in its folder, and is there after.
        assert (bot / "games.txt").read_text() == "2"
        assert sorted(t for t in texts(recs, "keeper") if t.startswith("keeper:")) == ["keeper: game 1",
                                                                                      "keeper: game 2"]
    else:
        assert not (bot / "games.txt").exists()
        said = texts(recs, "keeper")
        assert said.count("keeper: cannot write its folder: OSError 30") == 2, said  # EROFS


def test_a_stateful_function_bots_folder_over_disk_mb_loses_before_its_game(tmp_path):
    bot = tmp_path / "keeper"
    shutil.copytree(BOTS / "keeper", bot)
    (bot / "hoard.bin").write_bytes(b"x" * (2 << 20))
    recs = tournament(tmp_path, bot, CONSTANT, extra=("--disk-mb", "1"))
    assert [(r.offender, r.verdict, r.reason) for r in recs] == [
        ("keeper", "disk", "disk: its folder holds more than disk_mb (1 MiB)")] * 2
    assert not (bot / "games.txt").exists()


def plugin_file(recs: list) -> str:
    said = [t for t in texts(recs, "plugin_user") if t.startswith("plugin_user: rules from ")]
    assert said, [(r.players, r.reason, r.logs) for r in recs]
    assert not any(r.verdict for r in recs), [(r.players, r.reason) for r in recs]
    return said[0].removeprefix("plugin_user: rules from ")


def test_an_isolated_bot_imports_its_game_plugin_from_an_editable_install(tmp_path):
    import kothkit_connect4_hidden

    source = Path(kothkit_connect4_hidden.__file__).resolve()
    if ROOT / "plugins" not in source.parents:
        pytest.skip(f"kothkit is not installed editable here (its plugin is {source})")
    recs = tournament(tmp_path, f"{BOTS / 'plugin_user.py'}:plugin_user", CONSTANT)
    assert Path(plugin_file(recs)) == ROOT / "plugins" / "connect4_hidden" / "rules.py"


@pytest.mark.slow
def test_an_isolated_bot_imports_its_game_plugin_from_a_regular_install(tmp_path, pip_no_compile):
    from kothkit.testing.sandbox import SandboxError, shared

    try:
        box = shared(ROOT)  # kothkit installed from a copy of this checkout, not editable
    except (SandboxError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"no venv with kothkit installed could be made here (offline?): {str(e)[:300]}")
    recs = tournament(tmp_path, f"{BOTS / 'plugin_user.py'}:plugin_user", CONSTANT, python=box.python, env=box.env())
    found = Path(plugin_file(recs))
    assert box.root in found.parents and "site-packages" in found.parts, found
