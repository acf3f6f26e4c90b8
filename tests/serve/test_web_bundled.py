"""The challenges README's ``kothkit serve`` command serves (``challenges/``): their files load,
one of each kind."""

from __future__ import annotations

from kothkit.serve.host import Host
from tests.serve.webserver import ROOT


def test_bundled_challenges_load(tmp_path):
    host = Host([ROOT / "challenges" / "course12", ROOT / "challenges" / "swap2"], tmp_path, 1)
    got = {c.name: (c.kind, c.game) for c in host.challenges()}
    assert got == {"course12": ("submissions", "gomoku_classic12"), "swap2": ("folder", "gomoku_swap2")}
    course = host.challenge("course12")
    assert [lang.id for lang in course.languages] == ["c11", "cpp17"] and course.max_bytes == 1_000_000
