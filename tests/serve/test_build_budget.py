"""A daily build-time budget per author by default (issue 42): a challenge that says nothing gets
BUILD_SECONDS_PER_DAY, which the submission store enforces (tests/serve/test_host.py)."""

from __future__ import annotations

from pathlib import Path

from kothkit.serve.settings import BUILD_SECONDS_PER_DAY
from kothkit.serve.settings import load as load_settings


def test_a_challenge_without_a_budget_gets_the_default(tmp_path: Path):
    (tmp_path / "kothkit.toml").write_text('game = "gomoku_classic12"\n\n[serve]\nkind = "submissions"\n')
    assert load_settings(tmp_path / "kothkit.toml").build_seconds_per_day == BUILD_SECONDS_PER_DAY == 600
    (tmp_path / "kothkit.toml").write_text('game = "gomoku_classic12"\n\n[serve]\nkind = "submissions"\n'
                                           'build_seconds_per_day = 30\n')
    assert load_settings(tmp_path / "kothkit.toml").build_seconds_per_day == 30
