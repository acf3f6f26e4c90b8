"""A third-party game plugin: tests/thirdparty/mnk, a distribution of its own (kothkit-mnk).

Fast: the conformance kit on it, loaded from its source.  Slow: installed with
pip into a fresh virtual environment (kothkit itself installed there from
this repository), it is listed by `kothkit games`, played by `kothkit run`,
its scenarios reach `kothkit check`, and its own tests pass -- with no change
to the core.  Also: docs/plugins.md shows its code exactly as it is.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from kothkit.testing import Kit
from kothkit.testing.sandbox import COPY_IGNORE, shared

ROOT = Path(__file__).resolve().parents[2]
MNK = ROOT / "tests" / "thirdparty" / "mnk"


@pytest.fixture
def mnk_info(monkeypatch):
    monkeypatch.syspath_prepend(str(MNK / "src"))
    from kothkit_mnk.plugin import INFO

    return INFO


def test_mnk_passes_the_kit(mnk_info):
    assert Kit(mnk_info).run(bundled_bots=True) == []
    assert Kit(mnk_info, rules={"m": 6, "n": 7, "k": 4, "opening": 5}).run() == []


def test_bad_rules_are_named(mnk_info):
    from kothkit.game import Setup

    with pytest.raises(ValueError, match="k=5 does not fit on a 3x3 board"):
        mnk_info.match(Setup(players=("a", "b"), seed=1, rules={"k": 5}))


@pytest.mark.slow
def test_installed_in_a_fresh_environment_it_is_listed_played_checked_and_tested(pip_no_compile):
    box = shared(ROOT)
    work = box.root.parent
    pkg = work / "mnk"
    shutil.copytree(MNK, pkg, ignore=COPY_IGNORE)
    box.install(pkg)

    listed = box.kothkit("games").stdout
    assert re.search(r"^mnk  The m,n,k-game: .* \[kothkit-mnk 1\.0\.0 \(kothkit_mnk\.plugin\)\]$", listed, re.M), listed
    assert "gomoku_swap2" in listed  # the bundled games are still there

    box.kothkit("run", "mnk", "--seed", "11", "--rounds", "2", "--json", work / "mnk.json", "--db",
                work / "mnk.sqlite", "--quiet", cwd=work)
    doc = json.loads((work / "mnk.json").read_text())
    assert doc["game"] == "mnk" and doc["played"] == 4 and doc["errors"] == []
    assert sorted(s["bot"] for s in doc["standings"]) == ["blocker", "random"]
    assert all(g["fault"] is None and g["moves"] for g in doc["games"])

    bots = Path(box.py("-c", "from kothkit_mnk.plugin import INFO; print(INFO.bots)").stdout.strip())
    checked = box.kothkit("check", "mnk", bots / "blocker").stdout
    for scenario in ("X opens", "O answers a corner", "a full game on 4x4, 3 in a row"):
        assert f"ok    {scenario}" in checked, checked
    assert "blocker passed all" in checked

    tests = box.py("-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=pkg, check=False)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    assert " passed" in tests.stdout and "failed" not in tests.stdout


def test_the_docs_show_the_mnk_plugin_as_it_is():
    """Every file docs/plugins.md shows in full is the file in tests/thirdparty/mnk, byte for byte."""
    doc = (ROOT / "docs" / "plugins.md").read_text()
    shown = re.findall(r"<!-- file: (\S+) -->\n```[a-z]*\n(.*?)```\n", doc, re.S)
    assert {path for path, _ in shown} >= {"src/kothkit_mnk/rules.py", "src/kothkit_mnk/codec.py",
                                           "src/kothkit_mnk/match.py", "src/kothkit_mnk/plugin.py",
                                           "pyproject.toml"}
    for path, text in shown:
        assert text == (MNK / path).read_text(), f"docs/plugins.md shows an outdated {path}"
