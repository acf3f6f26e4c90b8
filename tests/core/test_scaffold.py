"""`kothkit new-game NAME`: the package it writes works before anyone edits it.

Fast tests check the files and run the conformance kit on the generated game
in this process; the slow one installs kothkit (non-editable, from this
repository) and the generated package with pip into a fresh virtual
environment, where `kothkit games` lists it, `kothkit run` plays it, `kothkit
check` uses its scenarios, and its own tests pass.
"""

from __future__ import annotations

import json
import py_compile
import tomllib
from pathlib import Path

import pytest

from kothkit.bots import load_bots
from kothkit.scaffold import new_game
from kothkit.testing import Kit, check_bot
from kothkit.testing.sandbox import shared

ROOT = Path(__file__).resolve().parents[2]
FILES = [
    ".gitignore",
    "README.md",
    "pyproject.toml",
    "src/kothkit_tic_tac/__init__.py",
    "src/kothkit_tic_tac/bots/perfect/bot.py",
    "src/kothkit_tic_tac/bots/perfect/bot.toml",
    "src/kothkit_tic_tac/bots/random/bot.py",
    "src/kothkit_tic_tac/bots/random/bot.toml",
    "src/kothkit_tic_tac/codec.py",
    "src/kothkit_tic_tac/match.py",
    "src/kothkit_tic_tac/plugin.py",
    "src/kothkit_tic_tac/rules.py",
    "src/kothkit_tic_tac/validate.py",
    "tests/test_game.py",
]


def test_new_game_writes_a_complete_package(cli, tmp_path):
    pkg = tmp_path / "pkg"
    done = cli("new-game", "tic_tac", "--dir", pkg, check=True)
    assert "wrote 14 files" in done.stdout and "kothkit run tic_tac" in done.stdout
    assert sorted(p.relative_to(pkg).as_posix() for p in pkg.rglob("*") if p.is_file()) == FILES
    for f in pkg.rglob("*"):
        if f.is_file():
            assert "{{" not in f.read_text(), f"unfilled placeholder in {f}"
            if f.suffix == ".py":
                py_compile.compile(str(f), cfile=str(tmp_path / "compiled.pyc"), doraise=True)
    project = tomllib.loads((pkg / "pyproject.toml").read_text())
    assert project["project"]["name"] == "kothkit-tic-tac"
    assert project["project"]["entry-points"]["kothkit"] == {"tic_tac": "kothkit_tic_tac.plugin"}
    loaded = load_bots([pkg / "src" / "kothkit_tic_tac" / "bots"])
    assert not loaded.errors
    assert sorted((b.name, b.kind) for b in loaded.bots) == [("perfect", "process"), ("random", "function")]


@pytest.mark.parametrize("name", ["TicTac", "1game", "tic-tac", "tic__tac", "game_", "class", ""])
def test_bad_names_are_refused(cli, tmp_path, name):
    done = cli("new-game", name, "--dir", tmp_path / "x")
    assert done.returncode == 1
    assert "error:" in done.stderr
    assert not (tmp_path / "x").exists()


def test_an_existing_folder_is_never_overwritten(cli, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    done = cli("new-game", "nim", "--dir", tmp_path / "mine")
    assert done.returncode == 1
    assert "already exists and is not an empty folder" in done.stderr
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]


def test_the_default_folder_is_the_name(cli, tmp_path):
    cli("new-game", "nim", check=True)
    assert (tmp_path / "nim" / "src" / "kothkit_nim" / "plugin.py").is_file()


def test_the_generated_game_passes_the_kit_and_its_bots_pass_the_check(tmp_path, monkeypatch):
    new_game("fresh_nim", tmp_path / "fresh_nim")
    monkeypatch.syspath_prepend(str(tmp_path / "fresh_nim" / "src"))
    from kothkit_fresh_nim.plugin import INFO

    assert Kit(INFO).run(bundled_bots=True) == []
    assert Kit(INFO, rules={"sticks": 40, "take": 6, "spread": 20}).run() == []
    for bot in ("perfect", "random"):
        report = check_bot(INFO, INFO.bots / bot, quick=True)
        assert report.ok, [f.text for r in report.runs for f in r.findings]


@pytest.mark.slow
def test_installed_with_pip_it_is_listed_played_checked_and_its_tests_pass():
    box = shared(ROOT)
    work = box.root.parent
    pkg = work / "scaffolded_game"
    # The installed kothkit writes the package: the templates are part of a non-editable install.
    box.kothkit("new-game", "scaffolded_game", "--dir", pkg)
    box.install(pkg)

    listed = box.kothkit("games").stdout
    assert "scaffolded_game  Scaffolded Game: take 1 to 3 sticks" in listed
    assert "[kothkit-scaffolded-game 0.1.0 (kothkit_scaffolded_game.plugin)]" in listed

    box.kothkit("run", "scaffolded_game", "--seed", "5", "--json", work / "sg.json", "--db", work / "sg.sqlite",
                "--quiet", cwd=work)
    doc = json.loads((work / "sg.json").read_text())
    assert doc["played"] == 2 and doc["errors"] == []
    assert sorted(s["bot"] for s in doc["standings"]) == ["perfect", "random"]
    assert all(g["fault"] is None for g in doc["games"])

    bots = Path(box.py("-c", "from kothkit_scaffolded_game.plugin import INFO; print(INFO.bots)").stdout.strip())
    checked = box.kothkit("check", "scaffolded_game", bots / "perfect", "--quick").stdout
    assert "ok    first move" in checked and "ok    a small pile" in checked  # the plugin's own scenarios
    assert "perfect passed all" in checked

    tests = box.py("-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=pkg, check=False)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    assert " passed" in tests.stdout and "failed" not in tests.stdout
