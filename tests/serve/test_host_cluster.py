"""The host on a Dask cluster (``kothkit serve --cluster``): a real scheduler and two real workers
on this machine, which see an empty folder where the host keeps its challenges and state (a private
mount namespace, as on another machine): every build and game runs on a worker, from the bots sent
there by content hash.  The same challenges served on the host's own slots give the same standings;
a worker killed during games loses none and counts none twice.

One cluster serves the whole module (it takes seconds to start); the test that kills a worker
comes last.
"""

from __future__ import annotations

import shutil
import signal
import sqlite3
from pathlib import Path

import pytest

from kothkit.serve.host import Host
from tests.serve.test_host import brain, folder_challenge, settled, submissions_challenge, until

pytest.importorskip("distributed")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("unshare") is None,
                                                  reason="needs gcc and unshare")]


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """Where the module's hosts keep everything: an empty folder to the workers."""
    return tmp_path_factory.mktemp("hosts")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, root):
    from tests.core.test_cluster import dask_cluster

    with dask_cluster(tmp_path_factory.mktemp("dask"), 2, hide=root) as (address, workers, _):
        yield address, workers



def _rows(host: Host, name: str) -> list[tuple]:
    return [(s.bot, s.points, s.wins, s.draws, s.losses, s.games, s.provisional) for s in host.standings(name)]


def _results(journal: Path) -> dict[str, tuple]:
    """Each stored game's players, outcome and moves (their times left out), by id."""
    import json

    with sqlite3.connect(journal) as db:
        return {gid: (players, winner, reason, [m[:2] for m in json.loads(moves)])
                for gid, players, winner, reason, moves in db.execute("SELECT id, players, winner, reason, moves "
                                                                      "FROM games")}


def _serve(hosts, where: Path, **how) -> Host:
    """The two challenges (submissions: three C brains and a broken one, each checked before the
    ladder; folder: three C bots), served and played to the end."""
    where.mkdir()
    course = submissions_challenge(where)
    toml = course / "kothkit.toml"  # with the check before the ladder: run on a worker too
    toml.write_text(toml.read_text().replace('kind = "submissions"\n', 'kind = "submissions"\ncheck = true\n'))
    koth = folder_challenge(where, {"alpha": 0, "beta": 2, "gamma": 5})
    # One key for both hosts' states: the brains' names (HMACs of the logins), hence their games, alike.
    (where / "state").mkdir(mode=0o700)
    (where / "state" / "public-ids.key").write_bytes(b"a change of brains: a fixed key.")
    host = hosts([course, koth], where / "state", **how)
    host.start()
    for login, offset in (("s1", 1), ("s2", 4), ("s3", 6)):
        host.submit("course", login, "brain.c", "c11", brain(offset))
    host.submit("course", "s4", "brain.c", "c11", b"int main( { return 0; }\n")
    for name, games in (("course", 3 * 2), ("koth", 3 * 2)):
        until(host, name, lambda n=name, g=games: settled(host, n) and len(host.games(n)) == g, timeout=180)
    return host


def test_a_cluster_plays_both_kinds_of_challenge_as_the_local_slots_do(cluster, root, hosts):
    address, _ = cluster
    local = _serve(hosts, root / "local", jobs=2)
    remote = _serve(hosts, root / "remote", cluster=address)
    for name in ("course", "koth"):
        assert _rows(remote, name) == _rows(local, name)
        assert not any(row[-1] for row in _rows(remote, name))  # every row final
    assert _results(root / "remote" / "state" / "journals" / "course.sqlite") == \
        _results(root / "local" / "state" / "journals" / "course.sqlite")
    assert _results(root / "remote" / "koth" / "kothkit.sqlite") == _results(root / "local" / "koth" / "kothkit.sqlite")
    # The builds ran on the workers (which do not see the host's folders): none left a brain here,
    # and the broken one's compiler output came back from there.
    subs = {s.login: s for s in remote.submissions("course")}
    assert [subs[x].status for x in ("s1", "s2", "s3", "s4")] == ["done", "done", "done", "build-failed"]
    assert "error" in subs["s4"].build_output
    from kothkit.serve import validation

    for x in ("s1", "s2", "s3"):  # each checked before the ladder, on a worker
        check = validation.load(root / "remote" / "state", subs[x].id)
        assert check is not None and check.ok and check.games, check
    assert not list((root / "remote" / "state").rglob("brain")), "a brain was built on the host"
    assert not list((root / "remote" / "koth").rglob("bots/*/bot")), "a folder bot was built on the host"
    assert list((root / "local" / "state").rglob("brain"))  # (the local slots build here)
    workers = remote.workers()
    assert len(workers) == 2 and all(isinstance(v, list) for v in workers.values())


def test_a_worker_that_joins_later_is_checked_and_left_idle_when_it_differs(cluster, root, hosts, tmp_path):
    """Workers joining a running host: one with another kothkit is named in the log's last note
    and the admin's work queue, and gets no game; a plain one joins and plays."""
    import kothkit
    from distributed import Client

    from tests.core.test_cluster import OTHER_VERSION, late_worker

    address, _ = cluster
    where = root / "late"
    where.mkdir()
    koth = folder_challenge(where, {"alpha": 0, "beta": 2, "gamma": 5, "delta": 3})
    host = hosts([koth], where / "state", cluster=address)
    host.start()
    with late_worker(tmp_path, address, "other-kothkit", hide=root) as other, \
            late_worker(tmp_path, address, "plain", hide=root) as plain:
        refused = until(host, "koth", lambda: host.work()["refused"])
        assert list(refused) == [other]
        assert f"worker {other} runs kothkit {OTHER_VERSION}, the judge {kothkit.__version__}" in refused[other]
        until(host, "koth", lambda: plain in host.workers())
        assert other not in host.workers()
        until(host, "koth", lambda: settled(host, "koth") and len(host.games("koth")) == 4 * 3, timeout=180)
        with Client(address, timeout=30) as client:
            # Each worker's tasks, from its log of task transitions (the host's keys: kothkit-...).
            ran = client.run(lambda dask_worker: {str(entry[0]) for entry in dask_worker.state.log
                                                  if str(entry[0]).startswith("kothkit-")})
        assert not ran[other], "the refused worker was given work"
        assert any(ran[w] for w in ran if w != other)
    assert all(s.games == 2 * 3 for s in host.standings("koth"))


SLOW = ("import sys, time\nk = {offset}\nfor line in sys.stdin:\n    time.sleep(0.01)\n"
        "    print(k % 7, flush=True)\n    k += 1\n")


def test_a_worker_killed_during_games_loses_none_and_counts_none_twice(cluster, root, hosts):
    address, workers = cluster
    where = root / "killed"
    where.mkdir()
    course = where / "course"
    course.mkdir()
    (course / "kothkit.toml").write_text('game = "connect4_hidden"\nrounds = 1\nseed = 4\n[serve]\n'
                                         'kind = "submissions"\nmin_interval = 0\nper_day = 100\n')
    host = hosts([course], where / "state", cluster=address)
    host.start()
    for i in range(4):
        host.submit("course", f"p{i}", "brain.py", "python3", SLOW.format(offset=i).encode())
    total = 4 * 3  # (each pair twice a round)
    until(host, "course", lambda: len(host.games("course")) >= 2, timeout=120)
    assert len(host.games("course")) < total, "the games ended before a worker could be killed"
    workers[0].send_signal(signal.SIGKILL)
    workers[0].wait(timeout=30)
    until(host, "course", lambda: settled(host, "course") and len(host.games("course")) == total, timeout=240)
    games = host.games("course")
    assert len(games) == len({g.id for g in games}) == total
    with sqlite3.connect(where / "state" / "journals" / "course.sqlite") as db:
        assert db.execute("SELECT count(*), count(DISTINCT id) FROM games").fetchone() == (total, total)
    assert all(s.games == 2 * 3 and not s.provisional for s in host.standings("course"))


def test_serve_names_a_cluster_it_cannot_use(tmp_path):
    from tests.serve.webserver import challenge, kothkit

    ch = challenge(tmp_path / "course")
    done = kothkit("serve", ch, "--state", tmp_path / "state", "--port", "0", "--cluster", "local:two", cwd=tmp_path)
    assert done.returncode == 1
    assert "--cluster local:two" in done.stderr and "not local:N" in done.stderr, done.stderr
