"""A worker that is not the host's like is named and gets no work (issue 29, item 6, for
``kothkit serve --cluster`` as ``run --cluster``): a real scheduler with a plain worker and one
whose kothkit says another version; the host names the odd one in its log before any game, keeps
it out of the workers its work is pinned to, and plays a folder challenge's games through."""

from __future__ import annotations

import shutil

import pytest

from kothkit.serve.host import Host
from tests.serve.test_host import folder_challenge, settled, until

pytest.importorskip("distributed")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")]


def test_a_worker_of_another_kothkit_is_named_and_gets_no_work(tmp_path, capfd):
    from tests.core.test_cluster import OTHER_VERSION, dask_cluster

    (tmp_path / "dask").mkdir()
    with dask_cluster(tmp_path / "dask", ["plain", "other-kothkit"]) as (address, _, (plain, other)):
        koth = folder_challenge(tmp_path, {"alpha": 0, "beta": 2, "gamma": 5})
        host = Host([koth], tmp_path / "state", cluster=address)
        try:
            host.start()
            until(host, "koth", lambda: settled(host, "koth") and len(host.games("koth")) == 3 * 2, timeout=180)
            assert list(host.workers()) == [plain]
        finally:
            host.stop()
    err = capfd.readouterr().err
    named = err.find(f"worker {other} runs kothkit {OTHER_VERSION}, the judge")
    assert named >= 0 and "worker left idle" in err, err
    assert f"worker {plain} joined" in err, err


def test_workers_lacking_a_served_languages_compiler_are_refused_before_any_build(tmp_path, capfd):
    """A challenge offers a language whose compiler no worker has: the host refuses to start on
    that cluster, naming the worker and the program, rather than failing each student's build."""
    from kothkit.playing.cluster import ClusterError
    from tests.core.test_cluster import dask_cluster
    from tests.serve.test_host import submissions_challenge

    (tmp_path / "dask").mkdir()
    course = submissions_challenge(tmp_path, extra='\n[serve.languages.rare]\nlabel = "Rare"\nfile = "brain.rr"\n'
                                                    'build = ["kothkit-no-such-cc", "brain.rr"]\ncommand = ["./brain"]\n')
    with dask_cluster(tmp_path / "dask", 1) as (address, _, (worker,)):
        host = Host([course], tmp_path / "state", cluster=address)
        try:
            with pytest.raises(ClusterError, match="no worker"):
                host.start()
        finally:
            host.stop()
    err = capfd.readouterr().err
    assert f"worker {worker} lacks kothkit-no-such-cc" in err, err
