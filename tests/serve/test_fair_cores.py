"""Fair cores by default (issue 36 item 2): a served game that allows pondering gets a core per seat
unless the host chose ``--jobs``; the host says at start, and on the admin page, what each
challenge's games (and the Play page's bots) get of the CPU."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from kothkit.procs.contain import fair_cpu
from kothkit.procs.cores import default_jobs

ROOT = Path(__file__).resolve().parents[2]


def challenge(tmp_path: Path) -> Path:
    """The course's 12x12 challenge (its game allows pondering), without its bundled brains' builds."""
    return Path(shutil.copytree(ROOT / "challenges" / "course12", tmp_path / "course12"))


def test_default_jobs_give_each_seat_a_core_in_a_game_that_allows_pondering():
    assert [default_jobs(True, cores=n) for n in (1, 2, 3, 4, 8)] == [1, 1, 1, 2, 4]
    assert [default_jobs(False, cores=n) for n in (1, 2, 4)] == [1, 2, 4]
    assert default_jobs(True, pin_cpu=False, cores=4) == 4  # nothing pinned: no core to give


def test_serve_gives_a_core_per_seat_by_default_and_says_so(hosts, tmp_path, capsys):
    n = len(os.sched_getaffinity(0))
    host = hosts([challenge(tmp_path)], tmp_path / "state", None)
    assert host.jobs == default_jobs(True, cores=n - int(host.play_core))
    host.start()
    said = capsys.readouterr().err
    line = fair_cpu(True, host.jobs)[1]
    assert f"kothkit host: cpu: course12: {line}" in said
    assert "kothkit host: cpu: Play: the Play page's bots" in said
    assert host.work()["cpu"]["course12"] == line
    if n >= 2:
        assert line == "the game allows pondering: each bot of a game has a core of its own"


def test_a_host_that_chose_too_many_jobs_says_its_seats_share_a_core(hosts, tmp_path, capsys):
    n = len(os.sched_getaffinity(0))
    host = hosts([challenge(tmp_path)], tmp_path / "state", n)  # --jobs N: a core per game, not per seat
    host.start()
    line = host.work()["cpu"]["course12"]
    assert "leave a game's two bots one core to share" in line, line
    assert f"kothkit host: cpu: course12: {line}" in capsys.readouterr().err


def test_serve_says_whether_its_state_is_on_a_nosuid_mount(hosts, tmp_path, capsys):
    from kothkit.procs.defuse import nosuid

    host = hosts([challenge(tmp_path)], tmp_path / "state", 1)
    host.start()
    said = capsys.readouterr().err
    expected = "is on a nosuid, nodev mount" if nosuid(tmp_path / "state") else "is NOT on a nosuid, nodev mount"
    assert f"kothkit host: files: {tmp_path / 'state'} {expected}" in said


def test_serve_says_a_quota_on_the_play_pages_bots_only_where_there_is_one(hosts, tmp_path, capsys, monkeypatch):
    """Without a writable cgroup v1 cpu hierarchy (a v2-only machine; here KOTHKIT_NO_CGROUP=1)
    thread_cpu_quota makes no group: the host must not say its Play bots are under a quota."""
    from kothkit.procs.contain import cpu_quota_base, thread_cpu_quota

    monkeypatch.setenv("KOTHKIT_NO_CGROUP", "1")
    assert cpu_quota_base() is None and thread_cpu_quota(0.5) is None
    host = hosts([challenge(tmp_path)], tmp_path / "state", None)
    host.start()
    play = [line for line in capsys.readouterr().err.splitlines() if "kothkit host: cpu: Play:" in line]
    assert len(play) == 1 and "with no CPU quota" in play[0] and "under a CPU quota" not in play[0], play
