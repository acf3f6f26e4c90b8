"""`kothkit new-game NAME`: the package it writes works before anyone edits it.

Fast tests check the files and run the conformance kit on the generated game
in this process, and that its summary and `check` scenarios follow its rules.
Slow ones: kothkit (non-editable, from this repository) and the generated
package installed with pip into a throw-away virtual environment, where
`kothkit games` lists it, `kothkit run` plays it and `kothkit check` uses its
scenarios; and a plugin author's first minutes for real: a fresh venv with
nothing but kothkit and its dependencies, `kothkit new-game`, and the steps it
prints, run exactly as printed (they install the test dependencies the
package declares, and its tests pass without a warning).
"""

from __future__ import annotations

import json
import os
import py_compile
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import pytest

from kothkit.bots.folders import load_bots
from kothkit.cli.scaffold import new_game
from kothkit.testing import Kit, check_bot
from kothkit.testing.sandbox import Sandbox, install_kothkit, shared

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
    "src/kothkit_tic_tac/views.py",
    "tests/test_game.py",
]


def test_new_game_writes_a_complete_package(cli, tmp_path):
    pkg = tmp_path / "pkg"
    done = cli("new-game", "tic_tac", "--dir", pkg, check=True)
    assert "wrote 15 files" in done.stdout and "kothkit run tic_tac" in done.stdout
    assert sorted(p.relative_to(pkg).as_posix() for p in pkg.rglob("*") if p.is_file()) == FILES
    for f in pkg.rglob("*"):
        if f.is_file():
            assert "{{" not in f.read_text(), f"unfilled placeholder in {f}"
            if f.suffix == ".py":
                py_compile.compile(str(f), cfile=str(tmp_path / "compiled.pyc"), doraise=True)
    project = tomllib.loads((pkg / "pyproject.toml").read_text())
    assert project["project"]["name"] == "kothkit-tic-tac"
    assert project["project"]["entry-points"]["kothkit"] == {"tic_tac": "kothkit_tic_tac.plugin"}
    assert project["project"]["optional-dependencies"]["test"] == ["kothkit[kit]"]
    kit = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["kit"]
    assert {req.split(">")[0] for req in kit} == {"pytest", "hypothesis"}  # what kothkit.testing imports
    loaded = load_bots([pkg / "src" / "kothkit_tic_tac" / "bots"])
    assert not loaded.errors
    assert sorted((b.name, b.kind) for b in loaded.bots) == [("perfect", "process"), ("random", "function")]


TABLE_FILES = [
    ".gitignore",
    "README.md",
    "pyproject.toml",
    "src/kothkit_guess/__init__.py",
    "src/kothkit_guess/bots/random/bot.py",
    "src/kothkit_guess/bots/random/bot.toml",
    "src/kothkit_guess/bots/reasoner/bot.py",
    "src/kothkit_guess/bots/reasoner/bot.toml",
    "src/kothkit_guess/codec.py",
    "src/kothkit_guess/match.py",
    "src/kothkit_guess/plugin.py",
    "src/kothkit_guess/rules.py",
    "src/kothkit_guess/validate.py",
    "src/kothkit_guess/views.py",
    "tests/test_game.py",
]


def test_new_game_players_writes_a_table_game_of_rounds_and_points(cli, tmp_path, monkeypatch):
    """`--players 3-8`: a game for a table of 3 to 8 bots moving at once (a Round each round), scored
    by points, whose bundled bots load and which the conformance kit passes at every number of seats."""
    pkg = tmp_path / "guess"
    done = cli("new-game", "guess", "--dir", pkg, "--players", "3-8", check=True)
    assert "wrote 15 files" in done.stdout and "kothkit run guess" in done.stdout
    assert sorted(p.relative_to(pkg).as_posix() for p in pkg.rglob("*") if p.is_file()) == TABLE_FILES
    for f in pkg.rglob("*"):
        if f.is_file():
            assert "{{" not in f.read_text(), f"unfilled placeholder in {f}"
    # The packaging is the two-player template's, shared.
    new_game("guess", tmp_path / "two")
    assert (pkg / "pyproject.toml").read_text() == (tmp_path / "two" / "pyproject.toml").read_text()
    monkeypatch.syspath_prepend(str(pkg / "src"))
    from kothkit_guess.plugin import INFO

    assert INFO.seat_range == (3, 8) and INFO.scoring.counts == "points" and INFO.scoring.mean
    assert "--players 3-8" in (pkg / "README.md").read_text()
    loaded = load_bots([INFO.bots])
    assert not loaded.errors
    assert sorted((b.name, b.kind) for b in loaded.bots) == [("random", "function"), ("reasoner", "process")]
    assert Kit(INFO, seeds=range(6)).run() == []
    assert Kit(INFO, seeds=range(2), rules={"rounds": 1, "highest": 2}).run() == []


@pytest.mark.parametrize("players", ["1", "2-8", "3-65", "8-3", "three", "3-", ""])
def test_a_wrong_number_of_players_is_refused(cli, tmp_path, players):
    done = cli("new-game", "guess", "--dir", tmp_path / "x", "--players", players)
    assert done.returncode == 1 and "error: --players" in done.stderr
    assert not (tmp_path / "x").exists()


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

    assert [s.description for s in INFO.scenarios] == [
        "You move first from a pile of 21: answer TAKE 21 3 with 1, 2 or 3.",
        "Only 2 sticks are left after the opponent's move: do not take 3.",
        "The rules allow taking up to 5 sticks: read the limit from the prompt.",
    ]
    assert Kit(INFO).run(bundled_bots=True) == []
    assert Kit(INFO, rules={"sticks": 40, "take": 6, "spread": 20}).run() == []
    for bot in ("perfect", "random"):
        report = check_bot(INFO, INFO.bots / bot, quick=True)
        assert report.ok, [f.text for r in report.runs for f in r.findings]


def test_the_summary_and_the_check_scenarios_follow_the_rules(tmp_path, monkeypatch):
    """Other defaults in rules.py: the summary and the scenarios' texts say so, and the perfect bot passes them."""
    pkg = tmp_path / "nim_five"
    new_game("nim_five", pkg)
    rules = pkg / "src" / "kothkit_nim_five" / "rules.py"
    text = rules.read_text()
    assert "STICKS = 21" in text and "TAKE = 3" in text
    rules.write_text(text.replace("STICKS = 21", "STICKS = 26").replace("TAKE = 3", "TAKE = 5"))
    monkeypatch.syspath_prepend(str(pkg / "src"))
    from kothkit_nim_five import plugin

    assert plugin.INFO.summary.startswith("Nim Five: take 1 to 5 sticks, whoever takes the last one wins")
    scenarios = list(plugin.INFO.scenarios)
    assert {s.name: s.description for s in scenarios} == {
        "first move": "You move first from a pile of 26: answer TAKE 26 5 with 1 to 5.",
        "a small pile": "Only 4 sticks are left after the opponent's move: do not take 5.",
        "another limit": "The rules allow taking up to 7 sticks: read the limit from the prompt.",
    }
    report = check_bot(plugin.INFO, plugin.INFO.bots / "perfect", quick=True, scenarios=scenarios)
    assert report.ok, [f.text for r in report.runs for f in r.findings]
    assert [(r.title, r.description) for r in report.runs[:3]] == [(s.name, s.description) for s in scenarios]
    assert all(r.replies >= 1 for r in report.runs[:3])


@pytest.mark.slow
def test_installed_with_pip_it_is_listed_played_and_checked(pip_no_compile):
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


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:  # another file system
        shutil.copy2(src, dst)


def requirements_view(view: Path) -> list[str]:
    """``view``: a site folder of the distributions kothkit's pyproject.toml requires (no extra),
    and theirs, as this environment has them installed (hard links where it can: real files, which
    a bot's jail shows as it shows any site folder, where a symbolic link would point out of it);
    their names.  A venv that has this folder on its path has kothkit's dependencies and nothing
    else, without a download: what a user's ``pip install kothkit`` would give it, less the
    resolution and the unpacking."""
    import importlib.metadata as md

    from packaging.requirements import Requirement

    roots = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    todo, names = [Requirement(r) for r in roots], set()
    view.mkdir(parents=True)
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        dist = md.distribution(req.name)
        name = dist.metadata["Name"].lower().replace("_", "-")
        if name in names:
            continue
        assert str(dist.version) in req.specifier or not req.specifier, f"{name} {dist.version} is not {req}"
        names.add(name)
        todo += [Requirement(r) for r in dist.requires or ()]
        assert dist.files is not None, f"{name} has no RECORD: its files cannot be found"
        site_dir = Path(dist.locate_file(""))
        for top in {f.parts[0] for f in dist.files if f.parts[0] != ".." and not f.name.endswith(".pth")}:
            src, dst = site_dir / top, view / top
            if dst.exists() or not src.exists():
                continue
            if src.is_dir():
                shutil.copytree(src, dst, symlinks=True, copy_function=_link_or_copy,
                                ignore=shutil.ignore_patterns("__pycache__"))
            else:
                _link_or_copy(str(src), str(dst))
    return sorted(names)


@pytest.mark.slow
def test_its_printed_steps_pass_in_a_fresh_venv_with_only_kothkit(pip_no_compile):
    """A plugin author's first minutes: kothkit alone in a new venv, `kothkit new-game`, then its steps as printed.

    kothkit is installed from this tree, non-editable; its dependencies are this environment's own
    copies of exactly what its pyproject.toml requires (transitively, no extra: :func:`requirements_view`)
    rather than downloaded and unpacked again (numpy and scipy alone took 45 s of a loaded 2-core
    machine).  So it proves that kothkit's declared dependencies are enough for `new-game`, a run and
    the kit, and that the steps install what the package's tests need (pytest and hypothesis: absent
    before).  That pip resolves kothkit's own requirements from an index is what every fresh
    `pip install -e '.[test]'` (CI's, README's) does."""
    work = Path(tempfile.mkdtemp(prefix="kothkit-fresh-", dir=Sandbox.base_dir()))
    try:
        box = Sandbox.create(work / "venv", inherit=False, build_tools=False)
        deps = work / "deps" / "site-packages"  # a site folder by its name: the jail shows it to function hosts
        names = requirements_view(deps)
        assert {"numpy", "scipy", "typer", "pluggy"} <= set(names) and "pytest" not in names, names
        purelib = Path(box.py("-c", "import sysconfig; print(sysconfig.get_path('purelib'))").stdout.strip())
        (purelib / "kothkit_dependencies.pth").write_text(f"{deps}\n")
        install_kothkit(box, ROOT)  # without --deps: they are there
        probe = "import importlib.util as u; print(u.find_spec('pytest'), u.find_spec('hypothesis'))"
        assert box.py("-c", probe).stdout.split() == ["None", "None"]  # so the steps must install them
        box.py("-m", "pip", "check")  # kothkit's requirements are met by what it sees

        printed = box.kothkit("new-game", "fresh_game", cwd=work).stdout
        steps = [line.strip() for line in printed.split("next:\n", 1)[1].split("\nthen ", 1)[0].splitlines()]
        assert steps == ["cd fresh_game", "pip install -e '.[test]'", "kothkit run fresh_game", "python -m pytest"]
        done = box.run("sh", "-c", " && ".join(steps), cwd=work, timeout=900, check=False)
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-3000:]
        summary = done.stdout.strip().splitlines()[-1]
        assert " passed" in summary and "failed" not in summary and "error" not in summary, done.stdout[-4000:]
        assert "warning" not in summary, done.stdout[-4000:]  # the kit's own fixtures raise no deprecation
        assert "perfect" in done.stdout and "random" in done.stdout  # `kothkit run`'s standings
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.parametrize("players", [(2, 2), (3, 8)], ids=["two", "table"])
def test_the_generated_package_passes_its_own_tests_without_a_warning(tmp_path, players):
    """The package's own tests (the conformance kit, the bot check) pass as written, with no
    DeprecationWarning: the template uses the contract of today, not the old broadcast hooks.  The
    package is made visible as pip would (a dist-info with its entry point on the path), without pip.
    Both shapes: the two-player board game and the table game of `--players 3-8`."""
    import os
    import subprocess
    import sys

    pkg = tmp_path / "own_nim"
    new_game("own_nim", pkg, players)
    site = tmp_path / "site"
    info = site / "kothkit_own_nim-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kothkit-own-nim\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[kothkit]\nown_nim = kothkit_own_nim.plugin\n")
    # (the outer run's PYTEST_ADDOPTS, CI's --durations say, would change the inner run's last line)
    env = {**{k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"},
           "PYTHONPATH": os.pathsep.join([str(pkg / "src"), str(site)]), "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W",
                           "error::DeprecationWarning", "tests"], cwd=pkg, env=env, capture_output=True,
                          text=True, timeout=600)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in summary and "warning" not in summary, summary


def test_what_new_game_points_to_is_there_for_a_pip_user(cli, tmp_path):
    """The steps `new-game` prints, and the package it writes, point only to what a pip user has: the
    package's own README and kothkit's installed modules, never a file of kothkit's source tree."""
    pkg = tmp_path / "pkg"
    done = cli("new-game", "tic_tac", "--dir", pkg, check=True)
    assert "docs/plugins.md" not in done.stdout
    assert f"(see {pkg}/README.md; the game interface, installed with kothkit: python -m pydoc kothkit.game)" \
        in " ".join(done.stdout.split())
    assert (pkg / "README.md").is_file()
    for f in pkg.rglob("*"):
        if f.is_file():
            assert "docs/plugins.md" not in f.read_text(), f
    # Each module the README names documents itself, with what a game author needs.
    readme = (pkg / "README.md").read_text()
    for module, needs in (("kothkit.game", "class Match"), ("kothkit.limits", "class Limits"),
                          ("kothkit.scoring", "class Scoring"), ("kothkit.testing", "conformance_tests")):
        assert f"python -m pydoc {module}" in " ".join(readme.split())
        shown = subprocess.run([sys.executable, "-m", "pydoc", module], capture_output=True, text=True, timeout=120,
                               cwd=tmp_path, stdin=subprocess.DEVNULL, env={**os.environ, "PAGER": "cat"})
        assert shown.returncode == 0 and needs in shown.stdout, (module, shown.stderr)
