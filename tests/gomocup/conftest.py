"""The gomocup tests' engine: tests/bots/gomocup/pbrain-probe.c, built once a session, put in bot
folders as a Gomocup engine comes (its binary and a three-line bot.toml), and challenge folders
around them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kothkit.store.journal import Journal

ROOT = Path(__file__).resolve().parents[2]
PROBE = ROOT / "tests" / "bots" / "gomocup" / "pbrain-probe.c"


@pytest.fixture(scope="session")
def probe_binary(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("probe") / "pbrain-probe"
    subprocess.run(["gcc", "-O2", "-o", str(out), str(PROBE)], check=True, timeout=120)
    return out


class Arena:
    """Engines as folders, and challenges that play them, in one test's folder."""

    def __init__(self, root: Path, binary: Path):
        self.root, self.binary = root, binary

    def engine(self, name: str, *args: str, group: str = "bots") -> Path:
        folder = self.root / group / name
        folder.mkdir(parents=True)
        shutil.copy2(self.binary, folder / "pbrain-probe")
        argv = ", ".join(f'"{a}"' for a in ("./pbrain-probe", *args))
        (folder / "bot.toml").write_text(f'name = "{name}"\ncommand = [{argv}]\n')
        return folder

    def run(self, *args: str, limits: str = "", rules: str = "", group: str = "bots", ok: bool = True,
            name: str = "c", top: str = "") -> subprocess.CompletedProcess:
        """``kothkit run`` of a challenge ``name`` of the engines of ``group`` (``top``: more of
        its top-level keys)."""
        challenge = self.root / name
        challenge.mkdir(exist_ok=True)
        (challenge / "kothkit.toml").write_text(
            f'game = "gomocup"\nbots = ["../{group}"]\nseed = 3\njournal = "j.sqlite"\n{top}'
            f"[limits]\n{limits}\n[rules]\n{rules}\n")
        proc = subprocess.run([sys.executable, "-m", "kothkit", "run", str(challenge), "-q", *args], cwd=self.root,
                              capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
                              env={**os.environ, "COLUMNS": "200"})
        if ok:
            assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc

    def records(self, name: str = "c") -> list:
        with Journal(self.root / name / "j.sqlite") as j:
            return sorted(j.all(), key=lambda r: r.index)

    def kothkit(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, "-m", "kothkit", *args], cwd=self.root, capture_output=True,
                              text=True, timeout=300, stdin=subprocess.DEVNULL, env={**os.environ, "COLUMNS": "200"})
        if ok:
            assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc


@pytest.fixture
def arena(tmp_path, probe_binary) -> Arena:
    return Arena(tmp_path, probe_binary)
