"""``kothkit run --cluster``: a real ``dask scheduler`` and ``dask worker`` processes on 127.0.0.1.

A tournament on two workers gives the same games and standings as ``--jobs 2``; a worker
killed with SIGKILL mid-tournament loses no game and stores none twice, whether the scheduler
plays its batches elsewhere or fails them (``KilledWorker``) and the judge plays them again; a
worker that cannot load the game's plugin, or runs another kothkit, is named in a clear error
before any game; stateful bots keep their order on workers of this machine and are refused,
saying why, when a worker runs on another (another kernel boot id, in a private mount namespace).

Issue 42's attacks on a cluster: a stranger's client or worker (plain, TLS without a certificate,
another authority's) gets nothing from a local cluster or ``serve --cluster local:1``; no process of
a cluster answers HTTP; a worker forging results is left idle and its games are played elsewhere;
the shipped bots' folder is the worker's user's alone and its copies are hashed again; workers on
Python 3.11.2 unpack what they are sent; the Play page's bot plays on a worker.  Every cluster here
is reached over TLS, with certificates made for the module (:func:`certs`)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import sysconfig
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

import attrs
import pytest

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
DASK = Path(sys.executable).parent / "dask"
SWAP2 = ROOT / "plugins" / "gomoku_swap2" / "bots"
STARTUP = 60.0


#: Dask's settings that name the certificates this process reaches a cluster with.
TLS_SETTINGS = ("distributed.comm.require-encryption", "distributed.comm.tls.ca-file",
                "distributed.comm.tls.client.cert", "distributed.comm.tls.client.key")


@contextlib.contextmanager
def using_certs(folder: Path):
    """This process reaches clusters with the certificates in ``folder`` (made there if missing),
    and so do the commands it runs (KOTHKIT_CLUSTER_CERTS), until the end."""
    import dask

    from kothkit.playing.cluster import make_certs, use_certs

    if not (folder / "ca.pem").exists():
        make_certs(folder)
    with pytest.MonkeyPatch.context() as mp, dask.config.set({k: dask.config.get(k) for k in TLS_SETTINGS}):
        mp.setenv("KOTHKIT_CLUSTER_CERTS", str(folder))
        use_certs(folder)
        yield folder


@pytest.fixture(scope="module", autouse=True)
def certs(tmp_path_factory):
    """The module's clusters' certificates (kothkit cluster certs), made once."""
    with using_certs(tmp_path_factory.mktemp("certs") / "certs") as folder:
        yield folder


def _tls(role: str) -> list[str]:
    """The TLS options of a ``dask scheduler`` or ``dask worker`` with the certificates this process
    uses (:func:`using_certs`)."""
    import dask

    folder = Path(dask.config.get("distributed.comm.tls.ca-file")).parent
    return ["--tls-ca-file", str(folder / "ca.pem"), "--tls-cert", str(folder / f"{role}.pem"),
            "--tls-key", str(folder / f"{role}-key.pem")]


def _scheduler_address(file: Path, proc: subprocess.Popen, log: Path) -> str:
    """The address a scheduler started on port 0 wrote to its ``--scheduler-file`` (no port picked
    here and bound later: another process on a busy machine could take it in between)."""
    end = time.monotonic() + STARTUP
    while True:
        try:
            return json.loads(file.read_text())["address"]
        except (FileNotFoundError, ValueError, KeyError):
            pass
        assert proc.poll() is None, f"the scheduler ended: see {log}"
        assert time.monotonic() < end, f"the scheduler wrote no address within {STARTUP} s: see {log}"
        time.sleep(0.1)


def _addresses(client, names: Sequence[str]) -> dict[str, str]:
    """The address of each worker named in ``names`` that has joined."""
    joined = {w["name"]: a for a, w in client.scheduler_info(n_workers=-1)["workers"].items()}
    return {n: joined[n] for n in names if n in joined}


def _wait_workers(address: str, names: Sequence[str], procs: Sequence[subprocess.Popen], log: Path) -> list[str]:
    """The addresses of the workers named ``names`` (each listening on a port of its own choosing),
    once all have joined."""
    from distributed import Client

    with Client(address, timeout=STARTUP) as client:
        end = time.monotonic() + STARTUP
        while len(found := _addresses(client, names)) < len(names):
            assert all(p.poll() is None for p in procs), f"a worker ended: see {log}"
            assert time.monotonic() < end, f"workers did not join within {STARTUP} s: see {log}"
            time.sleep(0.1)
    return [found[n] for n in names]


#: How a test's worker differs from a plain ``dask worker`` (see :func:`dask_cluster`).
KINDS = ("plain", "no-plugin", "other-kothkit", "elsewhere")
#: The version the "other-kothkit" worker's copy of kothkit says it is.
OTHER_VERSION = "0.0.0+other"


def _worker_cmd(tmp: Path, kind: str, hide: Path | None) -> tuple[list[str], dict]:
    """The command line (less the scheduler's address and options) and environment of a worker of ``kind``."""
    assert kind in KINDS, kind
    env = dict(os.environ)
    cmd = [str(DASK), "worker"]
    mounts = []
    if kind == "no-plugin":
        # Without the site folder's .pth files the editable install's plugin packages cannot be
        # imported, while their entry points are still listed.
        env["PYTHONPATH"] = os.pathsep.join([sysconfig.get_paths()["purelib"], str(ROOT)])
        cmd = [sys.executable, "-S", "-m", "distributed.cli.dask_worker"]
    elif kind == "other-kothkit":
        # A copy of kothkit that says it is another version, found before the installed one.
        other = tmp / "other-kothkit"
        if not other.exists():
            shutil.copytree(ROOT / "kothkit", other / "kothkit", ignore=shutil.ignore_patterns("__pycache__"))
            init = other / "kothkit" / "__init__.py"
            text = init.read_text()
            assert '__version__ = "' in text
            init.write_text(re.sub(r'__version__ = "[^"]*"', f'__version__ = "{OTHER_VERSION}"', text))
        env["PYTHONPATH"] = str(other)
    elif kind == "elsewhere":
        # Another kernel boot id, as a worker on another machine sees (a shared file system's
        # folders at the same paths).
        boot = tmp / "other-boot-id"
        boot.write_text(f"{uuid.uuid4()}\n")
        mounts.append(f"mount --bind {shlex.quote(str(boot))} /proc/sys/kernel/random/boot_id")
    if hide is not None:
        mounts.append(f"mount -t tmpfs none {shlex.quote(str(hide))}")
    if mounts:
        cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c", " && ".join(mounts) + ' && exec "$@"',
               "sh", *cmd]
    return cmd, env


@contextlib.contextmanager
def dask_cluster(tmp: Path, workers: int | Sequence[str] = 2, hide: Path | None = None,
                 scheduler_env: dict[str, str] | None = None):
    """A scheduler and single-threaded workers (``workers``: how many plain ones, or each one's kind
    from :data:`KINDS`), started here, killed and reaped at the end.  Yields (address, worker
    processes, worker addresses).  ``hide``: the workers see an empty folder there (a private mount
    namespace: as on another machine).  ``scheduler_env``: settings for the scheduler."""
    import dask

    if not dask.config.get("distributed.comm.tls.ca-file", None):  # (a module without the certs fixture)
        with using_certs(tmp / "certs"):
            with dask_cluster(tmp, workers, hide, scheduler_env) as got:
                yield got
        return
    kinds = ["plain"] * workers if isinstance(workers, int) else list(workers)
    procs: list[subprocess.Popen] = []
    log = open(tmp / "dask.log", "ab")
    file = tmp / f"scheduler-{uuid.uuid4().hex}.json"
    try:
        procs.append(subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0",
                                       "--scheduler-file", str(file), "--no-dashboard", *_tls("scheduler")],
                                      stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                                      env={**os.environ, **(scheduler_env or {})}))
        address = _scheduler_address(file, procs[0], tmp / "dask.log")
        started, names = [], []
        for kind in kinds:
            proc, name = _start_worker(tmp, address, kind, hide, log)
            procs.append(proc)
            started.append(proc)
            names.append(name)
        yield address, started, _wait_workers(address, names, started, tmp / "dask.log")
    finally:
        for p in reversed(procs):
            p.kill()
        for p in procs:
            p.wait(timeout=30)
        log.close()


def _start_worker(tmp: Path, address: str, kind: str, hide: Path | None, log) -> tuple[subprocess.Popen, str]:
    """A single-threaded worker of ``kind`` (see :data:`KINDS`) for the scheduler at ``address``:
    its process and its name (unique; the scheduler knows its address once it has joined)."""
    cmd, env = _worker_cmd(tmp, kind, hide)
    name = f"{kind}-{uuid.uuid4().hex[:8]}"
    proc = subprocess.Popen([*cmd, address, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--name", name,
                             "--host", "127.0.0.1", "--worker-port", "0", *_tls("worker")],
                            stdout=log, stderr=log, env=env, stdin=subprocess.DEVNULL)
    return proc, name


@contextlib.contextmanager
def late_worker(tmp: Path, address: str, kind: str = "plain", hide: Path | None = None):
    """One more worker of ``kind`` joining the running cluster at ``address`` (started here,
    killed and reaped at the end): yields its address once the scheduler has it."""
    from distributed import Client

    with open(tmp / "dask-late.log", "ab") as log:
        proc, name = _start_worker(tmp, address, kind, hide, log)
        try:
            with Client(address, timeout=STARTUP) as client:
                end = time.monotonic() + STARTUP
                while name not in (found := _addresses(client, [name])):
                    assert proc.poll() is None, f"the {kind} worker ended: see {tmp / 'dask-late.log'}"
                    assert time.monotonic() < end, f"the {kind} worker did not join within {STARTUP} s"
                    time.sleep(0.1)
            yield found[name]
        finally:
            proc.kill()
            proc.wait(timeout=30)


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
    with dask_cluster(tmp_path_factory.mktemp("dask")) as (address, _, _):
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
@pytest.mark.parametrize("allowed_failures", [None, 0], ids=["dask-replays", "killed-worker"])
def test_a_worker_killed_mid_tournament_loses_nothing_and_stores_nothing_twice(tmp_path, allowed_failures):
    """None: Dask's default (3 deaths a batch), the scheduler gives the dead worker's batches to the
    other worker.  0: the first death fails its batches with KilledWorker, and the judge plays them
    again itself (as for a local worker that died)."""
    db = tmp_path / "j.sqlite"
    env = {} if allowed_failures is None else {"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": str(allowed_failures)}
    with dask_cluster(tmp_path, scheduler_env=env) as (address, workers, _):
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
            if not (stored and run.poll() is None):
                out = run.communicate(timeout=60)[0] if run.poll() is not None else ""
                raise AssertionError(f"the tournament ended before a worker could be killed ({stored} games "
                                     f"stored):\n{out}")
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
    # Who played the lost batches again: the judge says so when it did.
    replayed = "a worker died: " in out and "games in flight are played again" in out
    assert replayed == (allowed_failures == 0), out


def test_workers_without_the_plugin_or_with_another_kothkit_are_named_before_any_game(cli, tmp_path):
    import kothkit

    with dask_cluster(tmp_path, workers=["no-plugin", "other-kothkit"]) as (address, _, (no_plugin, other)):
        proc = cli("run", "connect4_hidden", "--rounds", "1", "--seed", "1", "--cluster", address,
                   "--db", tmp_path / "j.sqlite", timeout=120)
    assert proc.returncode == 1
    assert f"worker {no_plugin} cannot load the game" in proc.stderr, proc.stderr
    assert "kothkit_connect4_hidden" in proc.stderr
    assert f"worker {other} runs kothkit {OTHER_VERSION}, the judge {kothkit.__version__}" in proc.stderr, proc.stderr
    assert f"worker {no_plugin} runs kothkit" not in proc.stderr
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


#: Tests whose workers see another machine (a folder hidden, another boot id): a private mount namespace.
needs_mount_namespace = pytest.mark.skipif(
    os.geteuid() != 0 or subprocess.run(["unshare", "--mount", "true"], capture_output=True).returncode,
    reason="needs a private mount namespace (root and unshare) to show workers another machine")


@needs_mount_namespace
def test_stateful_bots_are_refused_plainly_when_a_worker_runs_on_another_machine(cli, tmp_path):
    bots = _arena(tmp_path)
    # The worker sees the bots' folder (as through a shared file system) but another kernel boot id.
    with dask_cluster(tmp_path, workers=["plain", "elsewhere"]) as (address, _, (_, away)):
        proc = cli("run", "gomoku_swap2", "--bots", bots, "--seed", "1", "--rounds", "1", "--cluster", address,
                   "--db", tmp_path / "j.sqlite", timeout=120)
    assert proc.returncode == 1
    assert ("stateful bots (diary) keep their state in their folder, so all their games must run on one "
            f"machine, and workers {away} run on another than the judge's") in proc.stderr, proc.stderr
    assert not (tmp_path / "j.sqlite").exists() or not _games(tmp_path / "j.sqlite")
    assert not (bots / "diary" / "state" / "diary.txt").exists()


def test_workers_check_each_bots_content_and_build_what_is_not_built(cluster, tmp_path):
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
    with pytest.raises(ClusterError, match=r"worker tls://127\.0\.0\.1:\d+ does not have bot two as the judge "
                                           r"does \(other content\)"):
        connect(cluster, info, bots).close()


@needs_mount_namespace
def test_a_bot_a_worker_lacks_is_sent_there_by_hash_and_plays_the_same(tmp_path):
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
    with dask_cluster(tmp_path, hide=tmp_path / "here") as (address, _, _), connect(address, info, bots) as pool:
        remote = run_tournament(info, bots, seed=5, journal=tmp_path / "remote.sqlite", rounds=3, cluster=pool)
    assert remote.played == local.played == 6
    assert [(s.bot, s.wins, s.losses) for s in remote.standings] == [(s.bot, s.wins, s.losses) for s in local.standings]
    assert _games(tmp_path / "remote.sqlite") == _games(tmp_path / "local.sqlite")
    assert all((shipped_root() / b.hash / Path(b.path).name).exists() for b in bots)


#: A process that claims cores as a worker does (``kothkit.playing.cluster._claim``), prints them, and holds
#: them until its stdin closes; argv[1]: how many.
WORKER_CLAIM = ("import sys; from kothkit.playing.cluster import _claim; c = _claim(int(sys.argv[1])); "
                "print(','.join(map(str, c.cores)), flush=True); sys.stdin.read()")
#: A judge holding every core of the machine (kothkit.procs.cores.claim).
JUDGE_CLAIM = ("import os, sys; from kothkit.procs.cores import claim; c = claim(len(os.sched_getaffinity(0))); "
               "print(c.held, flush=True); sys.stdin.read()")


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores")
@pytest.mark.parametrize("judge", [False, True], ids=["free-cores", "a-judge-holds-every-core"])
def test_workers_of_a_machine_play_on_different_cores_even_when_they_must_share(tmp_path, judge):
    """Workers claim one at a time; one that finds every core held (here by another judge) shares
    a core no other worker plays on, as a judge's own jobs would, not one picked at random."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}  # a lock folder of this test's own
    cores = len(os.sched_getaffinity(0))
    procs = []
    try:
        if judge:
            procs.append(subprocess.Popen([sys.executable, "-c", JUDGE_CLAIM], env=env, stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, text=True))
            assert procs[0].stdout.readline().strip() == str(sorted(os.sched_getaffinity(0)))
        got = []
        for _ in range(cores):
            procs.append(subprocess.Popen([sys.executable, "-c", WORKER_CLAIM, "1"], env=env, stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, text=True))
            got.append(procs[-1].stdout.readline().strip())  # claimed: the next one claims after it
        assert sorted(map(int, got)) == sorted(os.sched_getaffinity(0)), got
        # A worker gone frees its slot: the next one takes the core it had.
        gone = procs.pop()
        gone.kill()
        gone.wait(timeout=10)
        procs.append(subprocess.Popen([sys.executable, "-c", WORKER_CLAIM, "1"], env=env, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True))
        assert procs[-1].stdout.readline().strip() == got[-1]
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait(timeout=10)


def test_a_sent_bot_is_played_here_only_once_it_is_unpacked_checked_and_built(tmp_path, monkeypatch):
    """Two workers of one machine share the copies they were sent: while one unpacks and builds a
    bot, the other must not start it (it would find no program yet: a crash that is nobody's)."""
    import pickle
    import tempfile

    from kothkit.bots.folders import load_bots
    from kothkit.playing.cluster import _pack, receive, shipped_root

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    shutil.copytree(ROOT / "benchmarks" / "bots" / "instant", tmp_path / "judge" / "instant",
                    ignore=shutil.ignore_patterns(".kothkit-build", "bot"))
    (b,) = load_bots([tmp_path / "judge" / "instant"]).bots
    packed = _pack(b)
    (tmp_path / "judge").rename(tmp_path / "elsewhere")  # this "worker" does not see the judge's folder
    spec = tmp_path / "spec.pickle"
    spec.write_bytes(pickle.dumps(b))

    def place_in_a_fresh_worker() -> str:
        done = subprocess.run([sys.executable, "-c", "import pickle, sys; from kothkit.playing.cluster import _place; "
                               "print(_place(pickle.load(open(sys.argv[1], 'rb'))))", str(spec)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    # Another worker has unpacked the copy and not built it yet.
    sent = shipped_root() / b.hash / Path(b.path).name
    shutil.copytree(tmp_path / "elsewhere" / "instant", sent)
    assert place_in_a_fresh_worker() == "None"
    assert receive(b, packed) is None
    assert (sent / "bot").exists()
    assert place_in_a_fresh_worker() == str(sent)


@needs_mount_namespace
def test_workers_that_join_a_running_tournament_are_checked_before_any_batch(tmp_path):
    """A worker with another kothkit that joins is named and left idle; one that joins without the
    bots' folder is sent them, checked, and plays the same games."""
    import kothkit
    from kothkit.bots.folders import load_bots
    from kothkit.playing.cluster import connect
    from kothkit.playing.tournament import run_tournament
    from kothkit.plugins import get_game

    here = tmp_path / "here"
    for name in ("random_player", "deducer"):
        shutil.copytree(ROOT / "plugins" / "connect4_hidden" / "bots" / name, here / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    bots = load_bots([here / "random_player", here / "deducer"]).bots
    info = get_game("connect4_hidden")
    local = run_tournament(info, bots, seed=5, journal=tmp_path / "local.sqlite", jobs=1, rounds=3)
    notes: list[str] = []
    with dask_cluster(tmp_path, 1) as (address, _, (first,)), connect(address, info, bots, note=notes.append) as ex, \
            late_worker(tmp_path, address, "other-kothkit") as other, \
            late_worker(tmp_path, address, "plain", hide=here) as away:
        end = time.monotonic() + STARTUP
        while ex.capacity() < 2 or other not in ex.refused():  # (each look at most every second)
            assert time.monotonic() < end, notes
            time.sleep(0.2)
        assert f"worker {other} runs kothkit {OTHER_VERSION}, the judge {kothkit.__version__}" in ex.refused()[other]
        assert any(n.startswith("cluster: worker left idle: ") and other in n for n in notes) and f"cluster: worker {away} joined" in notes
        assert sorted(ex.workers()) == sorted([first, away])
        remote = run_tournament(info, bots, seed=5, journal=tmp_path / "remote.sqlite", rounds=3, cluster=ex)
    assert remote.played == local.played == 6
    assert _games(tmp_path / "remote.sqlite") == _games(tmp_path / "local.sqlite")


def test_work_whose_worker_left_fails_to_be_played_again_and_a_new_worker_takes_the_next(tmp_path):
    """A worker killed mid-build (a restarted worker comes back under another address): the build
    pinned to it fails with BrokenProcessPool (the caller plays it again) rather than waiting for
    that address for good; a worker that joins is checked and builds the next one."""
    from concurrent.futures.process import BrokenProcessPool

    from kothkit.playing.cluster import ClusterExecutor
    from kothkit.playing.executor import build
    from kothkit.plugins import get_game

    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "bot.toml").write_text('name = "slow"\ncommand = ["true"]\nbuild = ["sleep", "60"]\n')
    quick = tmp_path / "quick"
    quick.mkdir()
    (quick / "bot.toml").write_text('name = "quick"\ncommand = ["true"]\nbuild = ["true"]\n')
    (tmp_path / "dask").mkdir()
    with dask_cluster(tmp_path / "dask", 1) as (address, (proc,), (first,)):
        with ClusterExecutor(address, [get_game("connect4_hidden")], build=build) as cluster:
            building = cluster.build(str(slow), 120.0)
            end = time.monotonic() + 30
            while first not in cluster.workers() or not cluster.workers()[first]:
                assert time.monotonic() < end, "the build never started"
                time.sleep(0.1)
            proc.kill()
            proc.wait(timeout=30)
            end = time.monotonic() + 30
            while not building.done():
                assert time.monotonic() < end, "the build pinned to a worker that left still waits"
                cluster.capacity()
                time.sleep(0.2)
            assert isinstance(building.exception(), BrokenProcessPool)
            with late_worker(tmp_path / "dask", address) as second:
                end = time.monotonic() + 30
                while second not in cluster.workers():
                    assert time.monotonic() < end, "the new worker was never checked"
                    cluster.capacity()
                    time.sleep(0.2)
                assert cluster.build(str(quick), 60.0).result(timeout=60)[0] is True


# -- who may use the cluster (issue 42): TLS only, certificates of the cluster's own ---------------

#: What a stranger on the machine tries against a cluster's scheduler (argv: its address, a file
#: the function would write): a plain client, a TLS client without certificates, and one with
#: certificates of another authority each ask the scheduler to run a function.
ATTACK = """
import json, sys
from distributed import Client
from distributed.security import Security
address, mark = sys.argv[1], sys.argv[2]

def f(mark=mark):
    open(mark, "w").write("ran")
    return "ran"

out = {}
for name, a, security in (("tcp", address.replace("tls://", "tcp://"), None), ("tls", address, None),
                          ("another-authority", address, Security.temporary())):
    try:
        with Client(a, timeout=3, security=security) as c:
            out[name] = c.run_on_scheduler(f)
    except Exception as e:
        out[name] = type(e).__name__
print(json.dumps(out))
"""


def _stranger_env() -> dict:
    """An environment without the module's certificates (nor any Dask setting)."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("DASK_", "KOTHKIT_CLUSTER"))}


@pytest.fixture(scope="module")
def local_pool():
    from kothkit.playing.cluster import ClusterPool

    with ClusterPool("local:1") as pool:
        yield pool


def test_a_local_cluster_refuses_clients_and_workers_without_its_certificates(local_pool, tmp_path):
    """The attack: ``Client("tcp://127.0.0.1:PORT").run_on_scheduler(f)`` ran ``f`` inside the host,
    and a worker anyone started joined and was sent every bot."""
    import json

    from kothkit.playing.cluster import make_certs

    address = local_pool.client.scheduler.address
    assert address.startswith("tls://127.0.0.1:")
    before = local_pool.workers
    mark = tmp_path / "ran"
    other = tmp_path / "other-certs"
    make_certs(other)
    log = open(tmp_path / "rogue.log", "ab")
    rogues = [subprocess.Popen([str(DASK), "worker", a, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                "--host", "127.0.0.1", "--death-timeout", "5", *tls],
                               stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=_stranger_env())
              for a, tls in ((address.replace("tls://", "tcp://"), []), (address, []),
                             (address, ["--tls-ca-file", str(other / "ca.pem"), "--tls-cert", str(other / "worker.pem"),
                                        "--tls-key", str(other / "worker-key.pem")]))]
    try:
        attack = subprocess.run([sys.executable, "-c", ATTACK, address, str(mark)], capture_output=True, text=True,
                                timeout=120, env=_stranger_env(), stdin=subprocess.DEVNULL)
        assert attack.returncode == 0, attack.stderr[-3000:]
        tried = json.loads(attack.stdout.splitlines()[-1])
        assert set(tried) == {"tcp", "tls", "another-authority"} and "ran" not in tried.values(), tried
        assert not mark.exists()
        end = time.monotonic() + 60
        while any(p.poll() is None for p in rogues):
            assert local_pool.workers == before, "a worker without the cluster's certificate joined"
            assert time.monotonic() < end, "the rogue workers neither joined nor gave up"
            time.sleep(0.2)
        assert local_pool.workers == before
    finally:
        for p in rogues:
            p.kill()
        for p in rogues:
            p.wait(timeout=30)
        log.close()
    # The cluster's own still works.
    assert local_pool.client.submit(sum, [1, 2], pure=False).result(timeout=60) == 3


def test_no_process_of_a_local_cluster_answers_http(local_pool):
    """Dask starts an HTTP server in its scheduler and each worker (status, metrics, task names) even
    with the dashboard off: kothkit stops them."""
    import psutil

    pids = {os.getpid(), *local_pool.client.run(os.getpid).values()}
    ports = sorted({c.laddr.port for c in psutil.net_connections("tcp")
                    if c.status == psutil.CONN_LISTEN and c.pid in pids})
    assert len(ports) >= 2  # the scheduler's and the worker's TLS ports at least
    for port in ports:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.settimeout(5)
            s.sendall(b"GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            try:
                answer = s.recv(64)
            except (TimeoutError, ConnectionError):
                answer = b""
        assert not answer.startswith(b"HTTP/"), (port, answer)


def test_a_cluster_is_reached_over_tls_with_its_certificates_only(cli, tmp_path):
    from kothkit.playing.cluster import ClusterError, make_certs, use_certs

    plain = cli("run", "connect4_hidden", "--rounds", "1", "--cluster", "tcp://127.0.0.1:1", "--db",
                tmp_path / "j.sqlite", timeout=60)
    assert plain.returncode == 1 and "a cluster is reached over TLS only (tls://HOST:PORT" in plain.stderr, plain.stderr
    made = cli("cluster", "certs", tmp_path / "certs", timeout=60)
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "certs").stat().st_mode & 0o777 == 0o700
    assert all((tmp_path / "certs" / f"{r}-key.pem").stat().st_mode & 0o777 == 0o600
               for r in ("ca", "scheduler", "worker", "host"))
    with pytest.raises(ClusterError, match="holds certificates already"):
        make_certs(tmp_path / "certs")
    with pytest.raises(ClusterError, match=re.escape(f"{tmp_path / 'none' / 'ca.pem'}: no such file")):
        use_certs(tmp_path / "none")
    (tmp_path / "certs" / "host-key.pem").chmod(0o644)
    with pytest.raises(ClusterError, match="others can read this key"):
        use_certs(tmp_path / "certs")


# -- a worker's results are the games it was sent ------------------------------------------------

#: Turns a worker (one with the cluster's certificates: a machine taken over) into a liar: each row
#: of the games it plays is changed as FORGE_KIND says.  RESTORE undoes it.
FORGE = """
import kothkit.playing.cluster as c
real = getattr(c, "_honest_play", c.play)
c._honest_play = real

def forged(tasks, rows=False, pondering=None):
    out, took = real(tasks, rows=rows, pondering=pondering)
    import json
    changed = []
    for r in out:
        players = json.loads(r.players)
        if KIND == "drops-a-game":
            continue
        if KIND == "another-game":
            r = r._replace(id="0" * len(r.id))
        else:  # the loser (or seat 0 of a draw) wins, its moves as they were
            r = r._replace(winner=next(p for p in players if p != r.winner) if r.winner else players[0], fault=None,
                           verdict=None)
        changed.append(r)
    return changed, took

c.play = forged
"""
RESTORE = """
import kothkit.playing.cluster as c
c.play = getattr(c, "_honest_play", c.play)
"""


@pytest.mark.parametrize("kind", ["another-game", "a-win-its-moves-do-not-give", "drops-a-game"])
def test_a_worker_that_forges_results_is_left_idle_and_its_games_are_played_elsewhere(cluster, tmp_path, kind):
    from distributed import Client

    from kothkit.bots.folders import load_bots
    from kothkit.playing.cluster import connect
    from kothkit.playing.tournament import run_tournament
    from kothkit.plugins import get_game

    bots_dir = ROOT / "plugins" / "connect4_hidden" / "bots"
    bots = load_bots([bots_dir / "random_player", bots_dir / "deducer"]).bots
    info = get_game("connect4_hidden")
    local = run_tournament(info, bots, seed=7, journal=tmp_path / "local.sqlite", jobs=1, rounds=6)
    with Client(cluster, timeout=STARTUP) as client:
        liar = sorted(client.scheduler_info(n_workers=-1)["workers"])[0]
        client.run(exec, f"KIND = {kind!r}\n" + FORGE, {}, workers=[liar])
        try:
            notes: list[str] = []
            with connect(cluster, info, bots, note=notes.append) as ex:
                remote = run_tournament(info, bots, seed=7, journal=tmp_path / "remote.sqlite", rounds=6, cluster=ex)
                refused = ex.refused()
        finally:
            client.run(exec, RESTORE, {}, workers=[liar])
    assert list(refused) == [liar], (refused, notes)
    assert f"worker {liar} sent back " in refused[liar]
    what = {"another-game": "a game it was not sent", "a-win-its-moves-do-not-give": "an outcome its moves do not give",
            "drops-a-game": "games for the"}[kind]
    assert what in refused[liar], refused[liar]
    assert any(n.startswith(f"cluster: worker left idle: worker {liar} sent back") for n in notes), notes
    # Every game stored is the honest one, each once.
    assert remote.played == local.played == 12
    assert _games(tmp_path / "remote.sqlite") == _games(tmp_path / "local.sqlite")


# -- the bots a worker is sent: its own folder, hashed again, unpacked safely on any Python 3.11 ---

def _instant(tmp_path: Path, monkeypatch) -> tuple:
    """A worker's view with a TMPDIR of this test's (``tmp``), and the ``instant`` bot as the judge
    packs it, its folder gone from here (as on another machine): (bot, packed, tmp)."""
    import tempfile

    import kothkit.playing.cluster as cluster_mod
    from kothkit.bots.folders import load_bots
    from kothkit.playing.cluster import _pack

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.setattr(cluster_mod, "_WHERE", {})
    shutil.copytree(ROOT / "benchmarks" / "bots" / "instant", tmp_path / "judge" / "instant",
                    ignore=shutil.ignore_patterns(".kothkit-build", "bot"))
    (b,) = load_bots([tmp_path / "judge" / "instant"]).bots
    packed = _pack(b)
    shutil.rmtree(tmp_path / "judge")
    return b, packed, tmp


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a folder another user owns")
def test_a_shipped_bots_folder_another_user_owns_is_refused(tmp_path, monkeypatch):
    """The attack: another local user made ``$TMPDIR/kothkit-shipped-UID`` first, to read or swap
    every bot the worker is sent."""
    from kothkit.playing.cluster import ClusterError, _ensure, shipped_root

    b, packed, _ = _instant(tmp_path, monkeypatch)
    root = shipped_root()
    root.mkdir(mode=0o777)
    os.chown(root, 65534, 65534)
    with pytest.raises(ClusterError, match=rf"{re.escape(str(root))} belongs to user 65534, not to this worker's"):
        _ensure(b, packed)
    assert list(root.iterdir()) == []
    root.rmdir()
    # A link put there (to a folder of the other user's) is refused too.
    (tmp_path / "theirs").mkdir()
    root.symlink_to(tmp_path / "theirs")
    with pytest.raises(ClusterError, match="is not a folder"):
        _ensure(b, packed)
    assert list((tmp_path / "theirs").iterdir()) == []


def test_a_shipped_bots_folder_others_could_enter_is_emptied_and_a_swapped_copy_is_not_played(tmp_path, monkeypatch):
    import kothkit.playing.cluster as cluster_mod
    from kothkit.playing.cluster import _ensure, _place, _ready, shipped_root

    import fcntl
    import threading

    b, packed, tmp = _instant(tmp_path, monkeypatch)
    root = shipped_root()
    root.mkdir()
    root.chmod(0o777)
    # Another user holds a build lock by the name a worker once used in the shared TMPDIR: no matter.
    held = open(tmp / f"kothkit-build-{b.hash[:32]}.lock", "a")
    fcntl.flock(held, fcntl.LOCK_EX)
    (root / b.hash).mkdir()
    (root / f"{b.hash}.ready").touch()  # planted: a "copy" that is not the bot
    (root / b.hash / "instant").mkdir()
    first = threading.Thread(target=_ensure, args=(b, packed), daemon=True)
    first.start()
    first.join(120)
    held.close()
    assert not first.is_alive(), "the worker waited for a lock another user holds"
    assert root.stat().st_mode & 0o777 == 0o700
    sent = root / b.hash / "instant"
    assert _place(b) == sent and (sent / "bot").exists()
    # The copy changed on disk after it was made (a worker restarted since finds it): hashed again,
    # dropped, and sent again.
    with open(sent / "bot.c", "a") as f:
        f.write("\n/* changed */\n")
    monkeypatch.setattr(cluster_mod, "_WHERE", {})
    assert _place(b) is None
    assert not _ready(b.hash).exists() and not sent.exists()
    _ensure(b, packed)
    assert _place(b) == sent and "changed" not in (sent / "bot.c").read_text()


def _python_3_11_2(monkeypatch) -> None:
    """tarfile as Python 3.11.2 has it: no extraction filters (they came in 3.11.4)."""
    import tarfile

    monkeypatch.delattr(tarfile, "data_filter")
    real = tarfile.TarFile.extractall

    def extractall(self, path=".", members=None, *, numeric_owner=False, **kw):
        if kw:
            raise TypeError(f"extractall() got an unexpected keyword argument {next(iter(kw))!r}")
        return real(self, path, members, numeric_owner=numeric_owner)

    monkeypatch.setattr(tarfile.TarFile, "extractall", extractall)


def test_a_worker_on_python_3_11_2_unpacks_and_plays_the_bots_it_is_sent(tmp_path, monkeypatch):
    """The attack's finding: such workers failed every shipped game (``extractall(filter=)``)."""
    from kothkit.playing.cluster import _ensure, _place

    _python_3_11_2(monkeypatch)
    b, packed, _ = _instant(tmp_path, monkeypatch)
    _ensure(b, packed)
    assert (_place(b) / "bot").exists()


@pytest.mark.parametrize("member", ["../escape", "/abs", "link-out", "hard-out", "device", "chain"])
def test_unpacking_without_filters_keeps_the_data_filters_rules(tmp_path, monkeypatch, member):
    import io
    import tarfile

    from kothkit.playing.cluster import ClusterError, unpack

    _python_3_11_2(monkeypatch)

    def tar_of(*infos: tuple) -> tarfile.TarFile:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            for info, data in infos:
                tar.addfile(info, io.BytesIO(data) if data is not None else None)
        buf.seek(0)
        return tarfile.open(fileobj=buf)

    def entry(name: str, data: bytes | None = b"x", **kw) -> tuple:
        info = tarfile.TarInfo(name)
        info.size = len(data) if data is not None else 0
        for k, v in kw.items():
            setattr(info, k, v)
        return info, data

    dest = tmp_path / "dest"
    dest.mkdir()
    # What a bot may hold: its files (set-id bits and others' write dropped, owned here), links inside.
    with tar_of(entry("bot/run", mode=0o6777, uid=0, gid=0), entry("bot/sub/", None, type=tarfile.DIRTYPE, mode=0o777),
                entry("bot/ln", None, type=tarfile.SYMTYPE, linkname="run"),
                entry("bot/ln2", None, type=tarfile.SYMTYPE, linkname="ln")) as tar:
        unpack(tar, dest)
    st = (dest / "bot" / "run").stat()
    assert (st.st_mode & 0o7777, st.st_uid) == (0o755, os.getuid())
    assert (dest / "bot" / "sub").stat().st_mode & 0o7777 == 0o755 and (dest / "bot" / "ln2").read_text() == "x"
    bad = {"../escape": entry("../escape"), "/abs": entry(str(tmp_path / "abs")),
           "link-out": entry("bot/out", None, type=tarfile.SYMTYPE, linkname="../../outside"),
           "hard-out": entry("bot/hard", None, type=tarfile.LNKTYPE, linkname="../outside"),
           "device": entry("bot/dev", None, type=tarfile.CHRTYPE, devmajor=1, devminor=3)}.get(member)
    # Links that each look inside by their letters, but lead out once the first is on disk.
    chain = [entry("bot/a/", None, type=tarfile.DIRTYPE, mode=0o755),
             entry("bot/a/l", None, type=tarfile.SYMTYPE, linkname="../.."),
             entry("bot/l2", None, type=tarfile.SYMTYPE, linkname="a/l/.."), entry("bot/l2/escape")]
    with tar_of(*(chain if member == "chain" else [bad])) as tar, \
            pytest.raises(ClusterError, match="would land outside its folder"):
        unpack(tar, tmp_path / "dest2")
    assert not (tmp_path / "escape").exists() and not (tmp_path / "abs").exists()
    assert not (tmp_path / "dest2").exists() or list((tmp_path / "dest2").rglob("*")) == []


# -- the Play page's games under --cluster: their bots play on a worker ---------------------------

def test_a_persons_game_is_played_on_a_worker_the_person_answered_here(cluster, tmp_path):
    """``serve --cluster`` runs no submitted code itself: a Play page's bot plays on a worker, the
    person's seat answered by the host through the cluster (here a scripted person playing as the
    bundled deducer would)."""
    import importlib.util

    from kothkit.bots.folders import BotKind, BotSpec, load_bots
    from kothkit.human import HUMAN_HASH
    from kothkit.playing.cluster import connect
    from kothkit.playing.play import new_game
    from kothkit.plugins import get_game

    bots_dir = ROOT / "plugins" / "connect4_hidden" / "bots"
    (bot,) = load_bots([bots_dir / "random_player"]).bots
    spec = importlib.util.spec_from_file_location("kothkit_test_deducer", bots_dir / "deducer" / "bot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    info = get_game("connect4_hidden")
    me = BotSpec(name="someone+you", path=Path("."), kind=BotKind.HUMAN, hash=HUMAN_HASH)
    task, _run, _seed = new_game(tmp_path / "play.sqlite", info, (me, bot), info.limits, dict(info.rules))
    asked, events, seen = [], [], []
    with connect(cluster, info, [bot]) as ex:

        def person(match, prompt):
            asked.append(prompt.payload)
            seen.append({w: list(what) for w, what in ex.workers().items()})
            return module.deducer(*prompt.payload, {})[0]

        record = ex.play_person(task, 0, person, lambda *e: events.append(e), idle=60)
    assert record.id == task.id and record.players == ("someone+you", "random_player") and record.offender is None
    assert asked and len([m for m in record.moves if m.seat == 0]) == len(asked)
    assert any(e[0] == "reply" and e[1] == 1 for e in events), events
    # While the person thought, the game was a worker's.
    assert all(any("a person vs random_player" in what for what in now.values()) for now in seen), seen


def _brains_and_ancestors() -> dict[int, set[int]]:
    """Each bot process (a ``brain``) under this process, with the pids of its ancestors."""
    parents = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                text = open(f"/proc/{d}/stat").read()
            except OSError:
                continue
            parents[int(d)] = int(text[text.rindex(")") + 2:].split()[1])
    found = {}
    for pid in parents:
        try:
            if b"brain" not in open(f"/proc/{pid}/cmdline", "rb").read():
                continue
        except OSError:
            continue
        chain, p = set(), parents.get(pid)
        while p and p not in chain:
            chain.add(p)
            p = parents.get(p)
        if os.getpid() in chain:
            found[pid] = chain
    return found


def test_the_play_pages_bot_plays_on_a_worker_under_cluster(cluster, tmp_path):
    """The finding: with ``--cluster`` the host still ran the Play page's bot itself."""
    from distributed import Client

    from kothkit.playing.cluster import ClusterExecutor
    from kothkit.playing.executor import build
    from kothkit.plugins import get_game
    from kothkit.serve.playsite import Opponent, PlayRoom
    from tests.serve.test_play_site import _wait_state

    info = get_game("gomoku_classic12")
    room = PlayRoom(tmp_path, idle=3.0)
    threat = Opponent(key="bundled:threat", label="threat", spec=next(b for b in room.bundled(info) if b.name == "threat"))
    with Client(cluster, timeout=STARTUP) as client, ClusterExecutor(cluster, [info], build=build) as ex:
        workers = set(client.run(os.getpid).values())
        try:
            g = room.start("g12", info, info.limits, dict(info.rules), "ann", threat, 1, "/r/{id}", remote=ex)
            st = _wait_state(g, "waiting")  # the bot opened, on a worker: the person's turn
            assert st["picture"] and "threat" in " ".join(st["log"]), st
            bots = _brains_and_ancestors()
            assert bots and all(chain & workers for chain in bots.values()), (bots, workers)
            # Nobody moves: abandoned after its idle time, nothing stored, the worker's bot reaped.
            st = _wait_state(g, "abandoned", 60)
            g.thread.join(30)
            assert not g.thread.is_alive() and room.played("g12", "ann") == []
            end = time.monotonic() + 30
            while set(bots) & set(_brains_and_ancestors()):
                assert time.monotonic() < end, "the worker's bot outlived its abandoned game"
                time.sleep(0.2)
        finally:
            room.close()


def test_serve_with_a_local_cluster_refuses_a_client_without_its_certificate(tmp_path):
    """The review's attack on ``kothkit serve --cluster local:N`` as it ran it: a stranger's client
    on every port the server listens on but its web site's, asking each to run a function."""
    import json

    import psutil

    from tests.serve.webserver import Server, challenge

    server = Server([challenge(tmp_path / "course")], tmp_path / "state", tmp_path, args=("--cluster", "local:1"))
    try:
        web = int(server.url.rsplit(":", 1)[1])
        ports = sorted({c.laddr.port for c in psutil.Process(server.proc.pid).net_connections("tcp")
                        if c.status == psutil.CONN_LISTEN} - {web})
        assert ports, server.text  # the scheduler's and the workers' nannies' (all TLS)
        attacks = [subprocess.Popen([sys.executable, "-c", ATTACK, f"tls://127.0.0.1:{port}", str(tmp_path / f"ran-{port}")],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_stranger_env(),
                                    stdin=subprocess.DEVNULL) for port in ports]
        for port, attack in zip(ports, attacks):
            out, errors = attack.communicate(timeout=120)
            assert attack.returncode == 0, errors[-3000:]
            tried = json.loads(out.splitlines()[-1])
            assert "ran" not in tried.values() and not (tmp_path / f"ran-{port}").exists(), (port, tried)
    finally:
        assert server.stop() == 0, server.text


def test_a_result_for_a_game_the_executor_was_not_made_with_is_still_replayed():
    """unbound without the game's info (a task of a game the executor did not list) re-plays the
    record with the installed game all the same: an outcome its moves do not give is refused."""
    from kothkit.bots.folders import load_bots
    from kothkit.limits import Limits
    from kothkit.playing.cluster import unbound
    from kothkit.store.records import GameRecord, GameTask

    bots_dir = ROOT / "plugins" / "connect4_hidden" / "bots"
    a, b = load_bots([bots_dir / "random_player", bots_dir / "deducer"]).bots
    task = GameTask(id="forged-1", game="connect4_hidden", players=(a, b), seed=5, limits=Limits())
    forged = GameRecord(id="forged-1", game="connect4_hidden", index=0, players=(a.name, b.name),
                        hashes=(a.hash, b.hash), seed=5, winner=a.name, reason="four in a row")
    assert "an outcome its moves do not give" in (unbound(task, forged, None, rows=False) or "")
    other = GameTask(id="forged-2", game="no_such_game", players=(a, b), seed=5, limits=Limits())
    assert "cannot re-play" in (unbound(other, attrs.evolve(forged, id="forged-2", game="no_such_game"), None,
                                        rows=False) or "")
