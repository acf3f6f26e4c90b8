"""The challenges README's ``kothkit serve`` command serves (``challenges/``): their files load,
one of each kind; and what ``kothkit serve`` refuses before it listens (a missing folder, a wrong
challenge file, a port in use), each with a clear error."""

from __future__ import annotations

import socket

from kothkit.serve.host import Host
from tests.serve.webserver import ROOT, challenge, kothkit


def test_bundled_challenges_load(tmp_path):
    host = Host([ROOT / "challenges" / "course12", ROOT / "challenges" / "swap2"], tmp_path, 1)
    got = {c.name: (c.kind, c.game) for c in host.challenges()}
    assert got == {"course12": ("submissions", "gomoku_classic12"), "swap2": ("folder", "gomoku_swap2")}
    course = host.challenge("course12")
    assert [lang.id for lang in course.languages] == ["c11", "cpp17"] and course.max_bytes == 1_000_000


def test_serve_refuses_what_it_cannot_serve(tmp_path):
    r = kothkit("serve", "nowhere", "--state", "s", "--port", "0", cwd=tmp_path, timeout=60)
    assert r.returncode == 1 and "nowhere: not a challenge folder" in r.stderr
    bad = challenge(tmp_path / "bad")
    (bad / "kothkit.toml").write_text((bad / "kothkit.toml").read_text() + "per_week = 3\n")
    r = kothkit("serve", bad, "--state", "s", "--port", "0", cwd=tmp_path, timeout=60)
    assert r.returncode == 1 and "kothkit.toml:" in r.stderr and "per_week" in r.stderr, r.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = kothkit("serve", challenge(tmp_path / "ok"), "--state", "s", "--port", port, cwd=tmp_path, timeout=60)
    assert r.returncode == 1 and f"cannot listen on 127.0.0.1:{port}" in r.stderr, r.stderr
