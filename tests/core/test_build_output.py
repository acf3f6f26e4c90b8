"""A build's output is capped and held to one core (issue 42): a 58-byte source whose binary would
hold 200 MB fails, and what it made is removed; a build runs on one core."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kothkit.bots.build import BUILD_OUTPUT_MB, build
from kothkit.bots.folders import load_folder
from kothkit.procs.contain import capabilities
from kothkit.testing.procs import processes_touching

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "bots" / "hostile_build_caps"
CAPS = capabilities()


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_binary_bomb_fails_and_leaves_nothing_it_made(tmp_path):
    folder = Path(shutil.copytree(HOSTILE / "binary_bomb", tmp_path / "binary_bomb"))
    built, err = build(load_folder(folder), timeout=120)
    assert not built and err is not None and "build failed" in str(err), err
    assert sorted(p.name for p in folder.iterdir()) == ["bot.toml", "brain.c"]  # no binary, no object kept
    assert processes_touching(folder) == []


def test_a_build_that_writes_more_than_the_cap_fails_and_its_files_are_removed(tmp_path):
    """Files under the per-file cap, more than the cap in all: refused after the build, removed."""
    folder = tmp_path / "many"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "many"\nbuild = ["python3", "-S", "make.py"]\ncommand = ["./brain"]\n')
    (folder / "make.py").write_text(
        "import os\nos.makedirs('out', exist_ok=True)\n"
        f"for i in range({BUILD_OUTPUT_MB // 16 + 2}):\n"
        "    with open(f'out/{i}', 'wb') as f:\n"
        "        f.write(os.urandom(16 << 20))\n")
    built, err = build(load_folder(folder), timeout=120)
    assert not built and f"it made more than {BUILD_OUTPUT_MB} MiB of files (removed)" in str(err), err
    assert sorted(p.name for p in folder.iterdir()) == ["bot.toml", "make.py"]


def test_a_build_runs_on_one_core(tmp_path):
    if CAPS.cpuset_version is None:
        pytest.skip("no cpuset here: a build's affinity is not held")
    folder = tmp_path / "cores"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "cores"\nbuild = ["python3", "-S", "make.py"]\ncommand = ["./brain"]\n')
    (folder / "make.py").write_text(
        "import os, sys\n"
        "try:\n    os.sched_setaffinity(0, range(os.cpu_count()))\nexcept OSError:\n    pass\n"
        "print('cores', sorted(os.sched_getaffinity(0)))\nsys.exit(1)\n")
    built, err = build(load_folder(folder), timeout=60)
    line = next(l for l in str(err).splitlines() if l.startswith("cores "))
    assert len(eval(line[6:])) == 1, line  # noqa: S307 - the test's own output
