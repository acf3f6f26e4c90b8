"""``kothkit run --cluster``: a real ``dask scheduler`` and ``dask worker`` processes on 127.0.0.1.

A tournament on two workers gives the same games and standings as ``--jobs 2``; a worker
killed with SIGKILL mid-tournament loses no game and stores none twice; a worker that cannot
load the game's plugin (started without the site folder's ``.pth`` files, so the editable
install's plugin packages cannot be imported while their entry points are still listed) is
named in a clear error before any game.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
DASK = Path(sys.executable).parent / "dask"
SWAP2 = ROOT / "plugins" / "gomoku_swap2" / "bots"
STARTUP = 60.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_workers(address: str, n: int) -> None:
    from distributed import Client

    with Client(address, timeout=STARTUP) as client:
        client.wait_for_workers(n, timeout=STARTUP)


@contextlib.contextmanager
def dask_cluster(tmp: Path, workers: int = 2, broken: bool = False, hide: Path | None = None):
    """A scheduler and ``workers`` single-threaded workers, started here, killed and reaped at the
    end.  Yields (address, worker processes).  ``broken``: the workers run without the site
    folder's .pth files (``python -S``), so the bundled game plugins cannot be imported.  ``hide``:
    the workers see an empty folder there (a private mount namespace: as on another machine)."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs: list[subprocess.Popen] = []
    log = open(tmp / "dask.log", "ab")
    try:
        procs.append(subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                       "--no-dashboard"], stdout=log, stderr=log, stdin=subprocess.DEVNULL))
        env = dict(os.environ)
        cmd = [str(DASK)]
        if broken:
            site = sysconfig.get_paths()["purelib"]
            env["PYTHONPATH"] = os.pathsep.join([site, str(ROOT)])
            cmd = [sys.executable, "-S", "-m", "distributed.cli.dask_worker"]
        else:
            cmd.append("worker")
        if hide is not None:
            cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c", 'mount -t tmpfs none "$0" && exec "$@"',
                   str(hide), *cmd]
        started = [subprocess.Popen([*cmd, address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                     "--host", "127.0.0.1"], stdout=log, stderr=log, env=env,
                                    stdin=subprocess.DEVNULL) for _ in range(workers)]
        procs += started
        _wait_workers(address, workers)
        yield address, started
    finally:
        for p in reversed(procs):
            p.kill()
        for p in procs:
            p.wait(timeout=30)
        log.close()


def _games(db: Path) -> list[tuple]:
    """Every stored game's outcome and moves (no timings), by id."""
    from kothkit.store.journal import Journal

    with sqlite3.connect(db) as c:
        ids = [r[0] for r in c.execute("SELECT id FROM games ORDER BY id")]
    with Journal(db) as j:
        return [r.result_key() for r in j.get(ids)]


def _standings(doc: dict) -> list:
    return [(s["bot"], s["wins"], s["draws"], s["losses"], s["games"]) for s in doc["standings"]]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with dask_cluster(tmp_path_factory.mktemp("dask")) as (address, _):
        yield address


@pytest.mark.slow
@pytest.mark.parametrize("game, extra", [
    ("connect4_hidden", ["--rounds", "2"]),
    ("gomoku_swap2", ["--bots", str(SWAP2 / "greedy"), "--bots", str(SWAP2 / "scout"), "--rounds", "1"]),
])
def test_cluster_plays_the_games_of_jobs_2(cli, cluster, game, extra):
    local = cli.run_json("run", game, *extra, "--seed", "11", "--jobs", "2", "-q", "--db", cli.tmp / "local.sqlite",
                         timeout=300)
    remote = cli.run_json("run", game, *extra, "--seed", "11", "--cluster", cluster, "-q",
                          "--db", cli.tmp / "remote.sqlite", timeout=300)
    assert remote["played"] == local["played"] == local["total"] > 0
    assert _standings(remote) == _standings(local)
    assert _games(cli.tmp / "remote.sqlite") == _games(cli.tmp / "local.sqlite")
    # Run again on the cluster: every game is reused from the journal, none played.
    again = cli.run_json("run", game, *extra, "--seed", "11", "--cluster", cluster, "-q",
                         "--db", cli.tmp / "remote.sqlite", timeout=300)
    assert (again["played"], again["reused"]) == (0, local["total"])


@pytest.mark.slow
def test_a_worker_killed_mid_tournament_loses_nothing_and_stores_nothing_twice(tmp_path):
    db = tmp_path / "j.sqlite"
    with dask_cluster(tmp_path) as (address, workers):
        run = subprocess.Popen([sys.executable, "-m", "kothkit", "run", "connect4_hidden", "--rounds", "10",
                                "--seed", "3", "--cluster", address, "-q", "--db", str(db)],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            stored = 0
            while time.monotonic() < deadline and run.poll() is None:
                if db.exists():
                    with contextlib.suppress(sqlite3.Error), sqlite3.connect(db, timeout=1) as c:
                        stored = c.execute("SELECT count(*) FROM games").fetchone()[0]
                if stored:
                    break
                time.sleep(0.02)
            assert stored and run.poll() is None, "the tournament ended before a worker could be killed"
            workers[0].send_signal(signal.SIGKILL)
            out, _ = run.communicate(timeout=300)
        finally:
            if run.poll() is None:
                run.kill()
            run.wait(timeout=30)
    assert run.returncode == 0, out
    total = 5 * 4 * 10
    # Each game stored once: the count of rows the judge stored is the schedule's size.
    assert f"games: {total} played, 0 reused, {total} in all" in out
    assert len(_games(db)) == total


def test_a_worker_without_the_plugin_is_named_before_any_game(cli, tmp_path):
    with dask_cluster(tmp_path, workers=1, broken=True) as (address, _):
        proc = cli("run", "connect4_hidden", "--rounds", "1", "--seed", "1", "--cluster", address,
                   "--db", tmp_path / "j.sqlite", timeout=120)
    assert proc.returncode == 1
    assert "cannot load the game" in proc.stderr and "worker tcp://127.0.0.1:" in proc.stderr, proc.stderr
    assert "kothkit_connect4_hidden" in proc.stderr
    assert not (tmp_path / "j.sqlite").exists() or not _games(tmp_path / "j.sqlite")


def _arena(folder: Path) -> Path:
    """The determinism test's swap2 arena: the bundled bots and ``diary``, a stateful bot whose play
    depends on how many games it has seen (so on the order it sees them)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("kothkit_test_determinism", Path(__file__).with_name(
        "test_determinism.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.arena(folder)


@pytest.mark.slow
def test_a_stateful_bot_sees_its_games_in_order_on_workers_of_this_machine(cli, cluster, tmp_path):
    runs = {}
    for how in (["--jobs", "2"], ["--cluster", cluster]):
        bots = _arena(tmp_path / how[0].strip("-"))
        doc = cli.run_json("run", "gomoku_swap2", "--bots", bots, "--seed", "2024", "--rounds", "1", "--move-time",
                           "5", *how, "-q", "--db", tmp_path / f"{how[0].strip('-')}.sqlite", timeout=300)
        runs[how[0]] = (_standings(doc), _games(tmp_path / f"{how[0].strip('-')}.sqlite"),
                        (bots / "diary" / "state" / "diary.txt").read_text())
    assert runs["--cluster"] == runs["--jobs"]
    assert len(runs["--jobs"][2].splitlines()) == 3 * 2  # the diary saw each of its games once


def test_workers_check_each_bots_content_and_build_what_is_not_built(cluster, tmp_path):
    import shutil

    from kothkit.bots.folders import load_bots
    from kothkit.playing.cluster import ClusterError, connect
    from kothkit.plugins import get_game
    from kothkit.playing.tournament import build_bots

    for name in ("one", "two"):
        shutil.copytree(ROOT / "benchmarks" / "bots" / "instant", tmp_path / name,
                        ignore=shutil.ignore_patterns(".kothkit-build", "bot"))
        toml = tmp_path / name / "bot.toml"
        toml.write_text(toml.read_text().replace('name = "instant"', f'name = "{name}"'))
    bots, errors = build_bots(load_bots([tmp_path / "one", tmp_path / "two"]).bots)
    assert not errors and (tmp_path / "one" / "bot").exists()
    info = get_game("gomoku_swap2")
    # A worker that finds a bot unbuilt (a copied folder without its build output) builds it there.
    (tmp_path / "one" / "bot").unlink()
    connect(cluster, info, bots).close()
    assert (tmp_path / "one" / "bot").exists()
    # A bot whose sources on the worker are not the judge's: named, with the worker.
    with open(tmp_path / "two" / "bot.c", "a") as f:
        f.write("\n/* edited after the judge loaded it */\n")
    with pytest.raises(ClusterError, match=r"worker tcp://127\.0\.0\.1:\d+ does not have bot two as the judge "
                                           r"does \(other content\)"):
        connect(cluster, info, bots).close()


@pytest.mark.skipif(os.geteuid() != 0 or subprocess.run(["unshare", "--mount", "true"], capture_output=True).returncode,
                    reason="needs a private mount namespace (root and unshare) to hide a folder from workers")
def test_a_bot_a_worker_lacks_is_sent_there_by_hash_and_plays_the_same(tmp_path):
    import shutil

    from kothkit.bots.folders import load_bots
    from kothkit.playing.cluster import connect, shipped_root
    from kothkit.plugins import get_game
    from kothkit.playing.tournament import run_tournament

    bots_dir = ROOT / "plugins" / "connect4_hidden" / "bots"
    for name in ("random_player", "deducer"):
        shutil.copytree(bots_dir / name, tmp_path / "here" / name, ignore=shutil.ignore_patterns("__pycache__"))
    bots = load_bots([tmp_path / "here" / "random_player", tmp_path / "here" / "deducer"]).bots
    info = get_game("connect4_hidden")
    local = run_tournament(info, bots, seed=5, journal=tmp_path / "local.sqlite", jobs=2, rounds=3)
    # Workers that see an empty folder where the judge has its bots (as on another machine): the
    # judge sends them the bots.
    with dask_cluster(tmp_path, hide=tmp_path / "here") as (address, _), connect(address, info, bots) as pool:
        remote = run_tournament(info, bots, seed=5, journal=tmp_path / "remote.sqlite", rounds=3, cluster=pool)
    assert remote.played == local.played == 6
    assert [(s.bot, s.wins, s.losses) for s in remote.standings] == [(s.bot, s.wins, s.losses) for s in local.standings]
    assert _games(tmp_path / "remote.sqlite") == _games(tmp_path / "local.sqlite")
    assert all((shipped_root() / b.hash / Path(b.path).name).exists() for b in bots)
