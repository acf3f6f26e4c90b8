"""Fail closed: a host that cannot jail strangers' code as promised refuses to take it, naming why.

The missing cgroup is made real with ``KOTHKIT_NO_CGROUP=1`` (the judge then uses no cgroup at all,
as on a machine without a writable one); the jail's other parts are this machine's.  The same
refusal on a real cgroup v2 host without delegation is tried in the VM (tests/vm/)."""

from __future__ import annotations

import pytest

from kothkit.procs.contain import capabilities, jail_gaps
from tests.serve.webserver import Server, challenge, client, kothkit, roster, user

NAME = "jailed"
MISSING = "a memory cap by cgroup (disabled by KOTHKIT_NO_CGROUP=1)"


@pytest.fixture
def no_cgroup(monkeypatch):
    monkeypatch.setenv("KOTHKIT_NO_CGROUP", "1")


def test_serve_refuses_submissions_without_a_full_jail(tmp_path, no_cgroup):
    ch = challenge(tmp_path / NAME)
    r = kothkit("serve", ch, "--state", tmp_path / "state", "--port", "0", cwd=tmp_path, timeout=90)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "cannot jail it as promised" in r.stderr
    assert MISSING in r.stderr and "a process cap (disabled by KOTHKIT_NO_CGROUP=1" in r.stderr
    assert "unset KOTHKIT_NO_CGROUP" in r.stderr and "--allow-weak-jail" in r.stderr
    assert "serving" not in r.stdout


def test_serve_of_host_bots_alone_needs_no_refusal(tmp_path, no_cgroup):
    """Only strangers' code is refused: the host's own bots (a "folder" challenge) are played as by kothkit run."""
    ch = challenge(tmp_path / NAME, kind="folder")
    (ch / "bots").mkdir()
    server = Server([ch], tmp_path / "state", tmp_path, timeout=90)
    try:
        assert "JAIL INCOMPLETE" not in server.text
    finally:
        server.stop()


def test_allow_weak_jail_starts_and_says_so_on_every_admin_page(tmp_path, no_cgroup):
    ch = challenge(tmp_path / NAME)
    state = tmp_path / "state"
    roster(state, tmp_path, ["root", "ann"])
    assert kothkit("users", "admin", "root", "--state", state, cwd=tmp_path).returncode == 0
    server = Server([ch], state, tmp_path, args=("--allow-weak-jail",))
    try:
        assert "JAIL INCOMPLETE" in server.text and MISSING in server.text
        with user(server, "root", "Root") as root:
            for path in ("/admin", f"/admin/c/{NAME}"):
                page = root.get(path)
                assert page.status_code == 200, path
                assert 'id="jail-gaps"' in page.text and MISSING in page.text, path
            assert 'id="jail-gaps"' not in root.get(f"/c/{NAME}/").text  # (the admins' to know)
        with user(server, "ann", "Ann") as ann, client(server) as anon:
            assert 'id="jail-gaps"' not in ann.get("/").text
            assert 'id="jail-gaps"' not in anon.get(f"/c/{NAME}/").text
    finally:
        assert server.stop() == 0


def test_run_goes_on_and_says_what_is_missing(cli, tmp_path):
    from tests.core.test_containment import make_bot

    bots = tmp_path / "bots"
    make_bot(bots, "one")
    make_bot(bots, "two")
    r = cli("run", "gomoku_swap2", "--bots", bots, "--seed", "1", "--jobs", "1", "--db", tmp_path / "j.sqlite",
            env={"KOTHKIT_NO_CGROUP": "1"}, check=True)
    line = next(l for l in r.stderr.splitlines() if l.startswith("JAIL INCOMPLETE"))
    assert MISSING in line and "a process cap" in line
    r = cli("run", "gomoku_swap2", "--bots", bots, "--seed", "1", "--jobs", "1", "--db", tmp_path / "k.sqlite",
            check=True)
    assert ("JAIL INCOMPLETE" in r.stderr) == bool(jail_gaps())


def test_the_gaps_name_each_missing_part_and_how_to_get_it():
    caps = capabilities()
    full = jail_gaps(caps=caps)
    import attrs

    bare = attrs.evolve(caps, cgroup_dir=None, cgroup_version=None, pids_dir=None, pids_version=None,
                        namespaces=False, files=False, network=False, user=None, why="disabled by X",
                        cgroup_why="the judge's group /x is not writable")
    gaps = jail_gaps(caps=bare)
    assert [g.split(" (")[0] for g in gaps] == ["file confinement", "a memory cap by cgroup", "a process cap",
                                                "no network", "an unprivileged uid"]
    assert all("Delegate=yes" in g for g in gaps[1:3])
    assert "kernel.apparmor_restrict_unprivileged_userns" in gaps[0]
    assert len(gaps) > len(full)


def test_serve_on_a_cluster_refuses_workers_without_a_full_jail(tmp_path, no_cgroup):
    """With --cluster the games run on the workers: each one's jail is checked as it joins (here
    local ones, started with the judge's environment: no cgroup), and none passes."""
    pytest.importorskip("distributed")
    ch = challenge(tmp_path / NAME)
    r = kothkit("serve", ch, "--state", tmp_path / "state", "--port", "0", "--cluster", "local:1", cwd=tmp_path,
                timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "cannot jail strangers' code as promised" in r.stderr and MISSING in r.stderr, r.stderr


def test_a_cluster_without_the_jail_check_takes_the_same_workers(tmp_path, no_cgroup):
    """The check is the host's for strangers' code: a cluster asked no jail (kothkit run --cluster,
    --allow-weak-jail) uses the same workers."""
    pytest.importorskip("distributed")
    from kothkit.playing.cluster import ClusterError, ClusterExecutor
    from kothkit.playing.executor import build
    from kothkit.plugins import get_game

    with ClusterExecutor("local:1", [get_game("connect4_hidden")], build=build) as cluster:
        assert len(cluster.workers()) == 1
    with pytest.raises(ClusterError, match="no worker of the Dask cluster at local:1 can play"):
        ClusterExecutor("local:1", [get_game("connect4_hidden")], build=build, jail=True)
