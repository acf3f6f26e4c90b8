"""Games played on a Dask distributed cluster (``kothkit run --cluster ADDRESS`` or ``local:N``).

The judge stays where it is started: it builds the schedule, hands batches of games to the
cluster through :func:`kothkit.playing.tournament.dispatch` (a :class:`ClusterExecutor` is the
executor, :mod:`kothkit.playing.executor`, the local pool's counterpart: play a batch, get a
future of its journal rows) and stores every game in its journal as the rows come back.  The
host (``kothkit serve --cluster``) plays and builds on the same executor.  Resume, incremental
re-runs, ``verify`` and determinism are therefore those of ``--jobs``: a game's id and outcome
do not depend on where it ran.

A worker plays a batch with :func:`kothkit.playing.executor.play_batch`, the function the local
pool's workers run: same referee, limits and containment.  What travels to a worker is the
batch's :class:`~kothkit.store.records.GameTask` list (game name, seeds, limits, rules, and each
bot's spec: its name, command, *path* and content hash); what comes back is journal rows.
Bots travel by content hash: before any game, every worker hashes each bot's folder at that
path and must find the judge's hash (a worker on this machine, or one that sees the same
folders through a shared file system at the same paths).  A worker that finds no such path is
sent the bot as a tar (:func:`receive`: unpacked once per machine under :func:`shipped_root`
by hash, checked, built there) and plays that copy.  A worker with other content at the path,
another kothkit version, or without the game's plugin (or with other code for it), is named in
a :class:`ClusterError`; one that joins later and fails the same check is named in the log and
left idle.

Differences from ``--jobs``, and why:

* ``--trusted`` function bots are played isolated: a Dask worker runs tasks in a thread, where
  an in-process bot that overruns could not be interrupted (see :mod:`kothkit.bots.overtime`).
  A deterministic bot plays the same games either way.
* Stateful bots play only when every worker runs on the judge's machine (same kernel boot id,
  e.g. ``local:N``): their state is files in their folder, which workers on other machines would
  each keep apart.  There :func:`~kothkit.playing.tournament.dispatch` gives a stateful bot its games one
  batch at a time in schedule order, as with ``--jobs``; elsewhere the run refuses them, saying so.
* Cores are claimed by the workers, not the judge: a worker's first batch claims a free core of
  its machine (:mod:`kothkit.procs.cores`), two for a game that allows pondering (one per seat), and
  it plays, with its bots, there from then on (start one single-threaded worker per core, or
  per two cores for such a game).  Where no core is free, it shares the one the fewest other
  workers of its machine play on (:func:`_claim`).
* A worker that dies mid-batch: the scheduler gives its batches to another worker (Dask's
  retries); only the result that comes back is stored, once (rows are also stored by game id
  with ``INSERT OR REPLACE``, so a game can never be in the journal twice).  A batch that kills
  workers again and again (Dask's ``allowed-failures``) is played once more with its bots
  isolated, as when a local worker dies.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from kothkit.bots.folders import BotKind, BotSpec
from kothkit.game import GameInfo

#: Prefix of a local cluster's address: ``local:N`` starts N single-threaded worker processes.
LOCAL = "local:"
#: Seconds to reach a scheduler, and for workers to show up.
CONNECT_TIMEOUT = 30.0


#: Batches on a cluster grow towards this many seconds of play (see kothkit.playing.tournament.dispatch):
#: a batch's round trip through a scheduler costs far more than through the local pool.
BATCH_SECONDS = 0.5

#: Dask settings of a local cluster (``local:N``; docs/tournaments.md gives them for ``dask scheduler``
#: and ``dask worker``).
LOCAL_SETTINGS = {
    # Batches go to workers at once, each queued behind the one it plays (as in the local pool),
    # instead of waiting at the scheduler for a worker to ask.
    "distributed.scheduler.worker-saturation": "inf",
    # Background work that game players do not need and that takes CPU time from their games: with
    # batches already queued on every worker, stealing only moves them about; a sampling profiler in
    # each worker; an event-loop watchdog and monitors ticking often in every process.
    "distributed.scheduler.work-stealing": False,
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.admin.system-monitor.gil.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
}

#: This worker's claimed core (kothkit.procs.cores.Claim), once its first batch asked for pinning.
_CLAIM = None


def play(tasks, rows: bool = False, pondering: bool | None = None) -> tuple[list, float]:
    """What a worker runs for a batch: :func:`kothkit.playing.executor.play_batch`, on this worker's
    own core when the games' limits pin (claimed at the first batch, held while the worker lives;
    two, one a seat, for a game that allows pondering).  Returns its results and the seconds it
    took to play them."""
    from kothkit.playing import executor

    global _CLAIM
    cpu = None
    if tasks and tasks[0].limits.pin_cpu:
        if _CLAIM is None:
            from kothkit.plugins import get_game

            # A game that allows pondering: each seat's bot gets a core of its own, as with --jobs.
            _CLAIM = _claim(2 if get_game(tasks[0].game).pondering else 1)
        cores = tuple(_CLAIM.cores)
        cpu = executor.slot_for(tasks, cores if len(cores) > 1 else cores[0], pondering)
        # Dask runs tasks in an executor thread: pin that thread (its bots inherit the core).
        if cpu is not None:
            executor.pin_self(cpu[0] if isinstance(cpu, tuple) else cpu)
    started = time.perf_counter()
    out = executor.play_batch([_here(t) for t in tasks], cpu=cpu, rows=rows)
    return out, time.perf_counter() - started


def _claim(n: int):
    """Claim ``n`` cores of this machine for this worker's life (:func:`kothkit.procs.cores.claim`); where
    some must be shared (every core held by a judge or a worker), share those that the fewest other
    workers of this machine play on.

    A judge's jobs are spread by one claim, but workers claim one at a time: a worker that found no
    free core would pick one at random, as likely as not one where another worker already plays
    (two workers' bots on one core, losing time to each other, while the other core serves only a
    judge).  So each worker holds a slot file (``worker-K.lock`` beside the cores' locks) naming its
    cores, and the workers of a machine claim in turn.
    """
    import fcntl
    import os

    from kothkit.procs.cores import claim, lock_dir

    folder = lock_dir()
    if folder is None:
        return claim(n)
    with open(folder / "workers.lock", "a") as turn:
        fcntl.flock(turn, fcntl.LOCK_EX)  # released when closed, below
        slot = None
        for k in range(1024):
            fd = os.open(folder / f"worker-{k}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # a live worker's slot
                os.close(fd)
                continue
            slot = (fd, folder / f"worker-{k}.lock")
            break
        got = claim(n)
        if slot is None:
            return got
        if len(got.held) < n:
            used = _cores_of_workers(folder, slot[1])
            order = {c: i for i, c in enumerate(got.cores)}  # the claim's own (per-process) order
            others = sorted((c for c in os.sched_getaffinity(0) if c not in got.held),
                            key=lambda c: (used.get(c, 0), order.get(c, len(order))))
            ring = got.held + others
            got.cores = [ring[i % len(ring)] for i in range(n)]
        os.ftruncate(slot[0], 0)
        os.pwrite(slot[0], ",".join(map(str, got.cores)).encode(), 0)
        got._fds.append(slot[0])  # held while this worker lives (its claim is never released)
        return got


def _cores_of_workers(folder: Path, mine: Path) -> dict[int, int]:
    """How many live workers of this machine (those holding a slot file other than ``mine``) play
    on each core."""
    import fcntl
    import os

    used: dict[int, int] = {}
    for f in folder.glob("worker-*.lock"):
        if f == mine:
            continue
        try:
            fd = os.open(f, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                continue  # nobody holds it: the slot of a worker gone
            except OSError:
                text = os.pread(fd, 256, 0).decode("ascii", "replace")
        finally:
            os.close(fd)
        for c in text.split(","):
            if c.strip().isdigit():
                used[int(c)] = used.get(int(c), 0) + 1
    return used


#: Where this worker finds a bot, by content hash: None at the judge's path, else the copy it was
#: sent (see :func:`receive`; looked up on disk too, for a worker restarted since).
_WHERE: dict[str, Path | None] = {}


def _place(b: BotSpec) -> Path | None:
    """Where this worker plays ``b``: None at the judge's path, else the copy it was sent (once
    :func:`receive` finished it: another worker of this machine may be unpacking or building it
    right now).  A copy found on disk (sent to this machine before) is hashed again first, and
    dropped if it is not ``b`` (then sent again)."""
    if b.hash not in _WHERE:
        if Path(b.path).exists():
            _WHERE[b.hash] = None
            return None
        root = private_root()
        sent = root / b.hash / Path(b.path).name
        if not (_ready(b.hash).exists() and sent.exists()):
            return None
        if _bot_hash(_moved(b, sent)) != b.hash:
            import fcntl
            import shutil

            with open(root / f"{b.hash}.lock", "a") as lock:  # (as receive: one worker of a machine at a time)
                fcntl.flock(lock, fcntl.LOCK_EX)
                if _ready(b.hash).exists() and _bot_hash(_moved(b, sent)) != b.hash:
                    _ready(b.hash).unlink()
                    shutil.rmtree(root / b.hash, ignore_errors=True)
            return None
        _WHERE[b.hash] = sent
    return _WHERE[b.hash]


def _ready(bot_hash: str) -> Path:
    """The mark :func:`receive` leaves once a sent bot is unpacked, checked and built here."""
    return shipped_root() / f"{bot_hash}.ready"


def shipped_root() -> Path:
    """Where a worker keeps the bots it was sent, by content hash (one folder per user; see
    :func:`private_root`)."""
    import os
    import tempfile

    return Path(tempfile.gettempdir()) / f"kothkit-shipped-{os.getuid()}"


def private_root() -> Path:
    """:func:`shipped_root`, made if missing, and checked: a folder (not a link) of this worker's
    user alone.  One that another user owns (made before this worker, to read or swap the bots it
    is sent) is a :class:`ClusterError` naming it; one that others could enter is emptied and made
    0700 again (what they could have put there is not played)."""
    import os
    import shutil
    import stat

    root = shipped_root()
    for _ in range(2):
        try:
            os.mkdir(root, 0o700)
        except FileExistsError:
            pass
        st = os.lstat(root)
        if not stat.S_ISDIR(st.st_mode):
            raise ClusterError(f"{root} is not a folder (a link or a file put there): remove it, or give the worker "
                               f"a TMPDIR of its own")
        if st.st_uid != os.getuid():
            raise ClusterError(f"{root} belongs to user {st.st_uid}, not to this worker's ({os.getuid()}): remove "
                               f"it, or give the worker a TMPDIR of its own")
        if not st.st_mode & 0o077:
            return root
        shutil.rmtree(root)
    raise ClusterError(f"{root}: cannot make it this worker's user's alone")


def _moved(b: BotSpec, where: Path) -> BotSpec:
    import attrs

    entry = b.entry
    if b.kind == BotKind.FUNCTION and entry:
        entry = f"{where}:{entry.rpartition(':')[2]}"
    return attrs.evolve(b, path=where, entry=entry)


def _here(task):
    """``task`` with the bots this worker was sent at their place here."""
    import attrs

    players = tuple(_moved(b, where) if (where := _place(b)) is not None else b for b in task.players)
    return attrs.evolve(task, players=players) if players != task.players else task


def _pack(b: BotSpec) -> bytes:
    """``b``'s folder (or a function bot's file) as a gzipped tar, its state and build output left out."""
    import fnmatch
    import io
    import tarfile

    from kothkit.bots.folders import HASH_IGNORE

    def keep(info):
        parts = Path(info.name).parts[1:]
        return None if any(fnmatch.fnmatch(p, pat) for p in parts for pat in HASH_IGNORE) else info

    path = Path(b.path)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(path, arcname=path.name, recursive=True, filter=keep)
    return buf.getvalue()


def receive(b: BotSpec, packed: bytes) -> str | None:
    """On a worker: unpack ``b`` sent by the judge under :func:`shipped_root` by its hash (once per
    machine), check its hash, build it there, and play it from there from now on.  Why not, or None."""
    import fcntl
    import io
    import shutil
    import tarfile

    root = private_root()
    home = root / b.hash
    where = home / Path(b.path).name
    moved = _moved(b, where)
    # The whole of it under the machine's lock for this bot, and marked ready last: the other
    # workers of this machine play it only once it is built (:func:`_place`).
    with open(root / f"{b.hash}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _ready(b.hash).exists():
            shutil.rmtree(home, ignore_errors=True)
            home.mkdir()
            with tarfile.open(fileobj=io.BytesIO(packed), mode="r:gz") as tar:
                unpack(tar, home)
            if _bot_hash(moved) != b.hash:
                return "the copy sent has other content"
            failed = _build_here(moved) if b.build else None
            if failed:
                return failed
            _ready(b.hash).touch()
    _WHERE[b.hash] = where
    return None


def unpack(tar, dest: Path) -> None:
    """Unpack ``tar`` (a bot sent by the judge) into ``dest`` as tarfile's ``data`` filter does: no
    member outside ``dest`` (absolute, ``..``, a link leading out), no device or pipe, no set-id bits
    or write for others, nothing owned by anyone but this worker's user.  Python before 3.11.4 (3.11.2
    of Debian 12, say) has no filters: the same rules are kept here then."""
    import os
    import tarfile

    if hasattr(tarfile, "data_filter"):
        tar.extractall(dest, filter="data")
        return
    top = os.path.realpath(dest)

    def inside(path: str) -> bool:
        return os.path.commonpath([top, os.path.realpath(path)]) == top

    # The checks are made before anything is written, so realpath sees none of the tar's own links:
    # a path that goes through one of them (``a/l`` a link to ``../..``, then ``l2`` to ``a/l/..``
    # and a file ``l2/evil``) would be judged by its letters and land outside.  So no path may go
    # through a link of the tar, nor write onto one (a packed folder never does either).
    links: set[str] = set()

    def through_link(path: str) -> bool:
        at = ""
        for part in Path(path).parts[:-1]:
            at = os.path.normpath(os.path.join(at, part))
            if at in links:
                return True
        return False

    members = []
    for m in tar.getmembers():
        where = os.path.join(dest, m.name)
        bad = (os.path.isabs(m.name) or ".." in Path(m.name).parts or not inside(where)
               or not (m.isreg() or m.isdir() or m.issym() or m.islnk())
               or through_link(m.name) or os.path.normpath(m.name) in links)
        if m.issym():
            target = os.path.join(os.path.dirname(m.name), m.linkname)
            bad = bad or os.path.isabs(m.linkname) or not inside(os.path.join(dest, target)) or through_link(target)
            links.add(os.path.normpath(m.name))
        elif m.islnk():
            bad = (bad or os.path.isabs(m.linkname) or not inside(os.path.join(dest, m.linkname))
                   or through_link(m.linkname))
        if bad:
            raise ClusterError(f"the copy sent holds {m.name!r}, which would land outside its folder or is no "
                               f"file, folder or link within it")
        if m.isreg() or m.isdir():
            m.mode = (m.mode & 0o755) | (0o700 if m.isdir() else 0o600)
        m.uid, m.gid, m.uname, m.gname = os.getuid(), os.getgid(), "", ""
        members.append(m)
    tar.extractall(dest, members=members)


class ClusterError(RuntimeError):
    """The cluster cannot play this tournament (no workers, a worker that lacks what it needs)."""


def machine() -> str:
    """This machine's identity while it runs: the kernel's boot id (else the host name)."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        import socket

        return socket.gethostname()


def _bot_hash(b: BotSpec) -> str:
    """``b``'s content hash computed from its path here (as :mod:`kothkit.bots.folders` does on load)."""
    from kothkit.bots.folders import BUILD_SOURCE_GLOBS, content_hash

    path = Path(b.path)
    if not path.exists():
        return "missing"
    if path.is_file():
        return content_hash(path)
    return content_hash(path, b.sources or (BUILD_SOURCE_GLOBS if b.build else None))


def _build_here(b: BotSpec) -> str | None:
    """Build ``b`` on this machine unless it is built (its build cached by content hash, as on the
    judge's); one worker of a machine builds while the others wait.  Why it failed, or None."""
    import fcntl

    from kothkit.bots.build import build

    # In the worker's own folder: a lock in the shared TMPDIR, another user could hold for good.
    lock = private_root() / f"build-{b.hash[:32]}.lock"
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            _, err = build(b)
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
    return None if err is None else str(err).splitlines()[0]


def probe(game: str, bots: Sequence[BotSpec], hashes: dict[str, str] | None = None,
          tools: Sequence[str] = ()) -> dict:
    """What this process (a worker) has for ``game`` and ``bots``: kothkit's version, the game's
    code (see :func:`kothkit.plugins.game_code`) or why it cannot load, each bot's content hash as
    found at its path, and which of ``tools`` (compilers, interpreters) a jailed build or bot finds.
    A bot found as the judge has it (``hashes``: the judge's) that has a build step is built here
    if it is not (``builds``: the failures)."""
    import shutil

    import kothkit
    from kothkit.procs.contain import SYSTEM_PATH, jail_gaps

    out: dict = {"kothkit": kothkit.__version__, "code": None, "error": None, "bots": {}, "builds": {},
                 "machine": machine(), "jail": jail_gaps(),
                 # A jailed build starts from SYSTEM_PATH alone: the worker's own PATH does not count.
                 "missing": sorted(t for t in tools if shutil.which(t, path=SYSTEM_PATH) is None)}
    try:
        from kothkit.plugins import game_code, get_game

        out["code"] = game_code(get_game(game))
    except Exception as e:  # a missing or broken plugin: reported by the judge, naming this worker
        out["error"] = f"{type(e).__name__}: {e}"
    for b in bots:
        try:
            out["bots"][b.name] = _bot_hash(b)
            if b.build and hashes is not None and out["bots"][b.name] == hashes.get(b.name):
                failed = _build_here(b)
                if failed:
                    out["builds"][b.name] = failed
        except Exception as e:
            out["bots"][b.name] = f"unreadable ({type(e).__name__}: {e})"
    return out


def _problems(worker: str, seen: dict, version: str, code: dict, want: dict[str, str],
              jail: bool = False) -> list[str]:
    found = []
    if jail and seen.get("jail"):  # (a host taking submissions: see kothkit.procs.contain.jail_gaps)
        found.append(f"worker {worker} cannot jail strangers' code as promised: {'; '.join(seen['jail'])}")
    if seen.get("kothkit") != version:
        found.append(f"worker {worker} runs kothkit {seen.get('kothkit')}, the judge {version}")
    if seen.get("missing"):
        # A submission built there would fail for want of a compiler: the author's loss, not theirs.
        found.append(f"worker {worker} lacks {', '.join(seen['missing'])} (the challenges' languages need them)")
    if seen.get("error"):
        found.append(f"worker {worker} cannot load the game: {seen['error']}")
    elif seen.get("code") != code:
        found.append(f"worker {worker} has other code for the game's plugin "
                     f"({(seen.get('code') or {}).get('plugin')}; the judge: {code.get('plugin')})")
    for name, h in want.items():
        there = seen.get("bots", {}).get(name)
        if there != h:
            what = "no such path" if there == "missing" else there if str(there).startswith("unreadable") else \
                "other content"
            found.append(f"worker {worker} does not have bot {name} as the judge does ({what})")
    for name, why in seen.get("builds", {}).items():
        found.append(f"worker {worker} could not build bot {name}: {why}")
    return found


# -- who may talk to the cluster: Dask's TLS, with certificates of the cluster's own ------------------

#: The files ``kothkit cluster certs DIR`` makes: the cluster's authority (its key signs the others),
#: and a certificate and key for each role.  Dask's TLS asks every end of every connection for a
#: certificate the authority signed: the scheduler, each worker, and the host or judge (a client).
CA, CA_KEY = "ca.pem", "ca-key.pem"
ROLES = ("scheduler", "worker", "host")
#: Days the certificates made by :func:`make_certs` are valid.
CERT_DAYS = 825


def _key_pem(key) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _certificates(days: int = CERT_DAYS) -> dict[str, tuple[bytes, bytes | None]]:
    """A new authority and a certificate signed by it for each of :data:`ROLES`: by name (``ca`` and
    the roles), (certificate PEM, key PEM)."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"kothkit cluster {uuid.uuid4().hex[:12]}")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=days))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                       crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    out: dict[str, tuple[bytes, bytes | None]] = {"ca": (ca.public_bytes(serialization.Encoding.PEM), _key_pem(ca_key))}
    for role in ROLES:
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"kothkit {role}")]))
                .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(minutes=5))
                .not_valid_after(now + datetime.timedelta(days=days))
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                # Every Dask process both listens and connects.
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                      ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
                .add_extension(x509.SubjectAlternativeName([x509.DNSName(f"kothkit-{role}")]), critical=False)
                .sign(ca_key, hashes.SHA256()))
        out[role] = (cert.public_bytes(serialization.Encoding.PEM), _key_pem(key))
    return out


def make_certs(folder: Path, days: int = CERT_DAYS) -> list[Path]:
    """Make a cluster's certificates in ``folder`` (made 0700; refused if it holds any of them
    already): :data:`CA` and its key, and ``ROLE.pem`` and ``ROLE-key.pem`` for each of :data:`ROLES`,
    keys 0600.  The files written."""
    import os

    folder = Path(folder)
    names = [CA, CA_KEY] + [f for r in ROLES for f in (f"{r}.pem", f"{r}-key.pem")]
    there = [n for n in names if (folder / n).exists()]
    if there:
        raise ClusterError(f"{folder}: holds certificates already ({', '.join(there)}): give an empty folder")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    made = _certificates(days)
    written = []
    for name, (cert, key) in made.items():
        stem = "ca" if name == "ca" else name
        for path, data, mode in ((folder / f"{stem}.pem", cert, 0o644), (folder / f"{stem}-key.pem", key, 0o600)):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            with os.fdopen(fd, "wb") as f:
                f.write(data or b"")
            written.append(path)
    return written


def use_certs(folder: Path, role: str = "host") -> None:
    """Connect to clusters with the certificates in ``folder`` (as :func:`make_certs` names them:
    :data:`CA`, ``ROLE.pem``, ``ROLE-key.pem``), set in Dask's configuration for this process.  A
    :class:`ClusterError` names a missing file, or a key that others can read."""
    import dask

    folder = Path(folder)
    files = {"ca": folder / CA, "cert": folder / f"{role}.pem", "key": folder / f"{role}-key.pem"}
    for path in files.values():
        if not path.is_file():
            raise ClusterError(f"{path}: no such file (the cluster's certificates: `kothkit cluster certs DIR` makes "
                               f"them; see docs/hosting.md)")
    if files["key"].stat().st_mode & 0o077:
        raise ClusterError(f"{files['key']}: others can read this key: chmod 600 it")
    dask.config.set({"distributed.comm.require-encryption": True,
                     "distributed.comm.tls.ca-file": str(files["ca"].resolve()),
                     "distributed.comm.tls.client.cert": str(files["cert"].resolve()),
                     "distributed.comm.tls.client.key": str(files["key"].resolve())})


def _security(address: str):
    """The Dask security of a connection to ``address``: TLS with the certificates of Dask's
    configuration (set by :func:`use_certs`, or Dask's own settings), else a :class:`ClusterError`."""
    from distributed.security import Security

    if not address.startswith("tls://"):
        raise ClusterError(f"--cluster {address}: a cluster is reached over TLS only (tls://HOST:PORT, with the "
                           f"cluster's certificates: --cluster-certs DIR; see docs/hosting.md), or local:N")
    security = Security(require_encryption=True)
    if not (getattr(security, "tls_ca_file", None) and getattr(security, "tls_client_cert", None)):
        raise ClusterError(f"--cluster {address}: no certificates for the cluster: --cluster-certs DIR (made by "
                           f"`kothkit cluster certs DIR`; see docs/hosting.md)")
    return security


def _no_http(dask_scheduler=None, dask_worker=None) -> None:
    """Stop a scheduler's or worker's HTTP server (run in its event loop): kothkit reads nothing from
    it, and it would tell anyone who asks about the cluster's work (Dask starts one even with its
    dashboard off)."""
    server = dask_scheduler if dask_scheduler is not None else dask_worker
    http = getattr(server, "http_server", None)
    if http is not None:
        http.stop()


#: Dask settings of every cluster kothkit starts: no routes in the HTTP servers Dask starts anyway
#: (they are then stopped, :func:`_no_http`).
NO_HTTP: dict[str, list[str]] = {"distributed.scheduler.http.routes": [], "distributed.worker.http.routes": []}


class ClusterPool:
    """A connection to a Dask cluster (a scheduler at a ``tls://`` address, or a ``local:N`` cluster
    started here): :class:`ClusterExecutor` hands it its work.

    Every connection is Dask's TLS, both ends showing a certificate the cluster's authority signed:
    a local cluster makes its own (kept in memory, passed to its worker processes alone), a remote one
    uses those of Dask's configuration (:func:`use_certs`).  Anyone without them, on this machine or
    another, can neither use the scheduler nor join as a worker.  The scheduler's and workers' HTTP
    servers are stopped."""

    def __init__(self, address: str, *, timeout: float = CONNECT_TIMEOUT):
        try:
            from distributed import Client, LocalCluster
            from distributed.security import Security
        except ImportError as e:
            raise ClusterError("--cluster needs Dask distributed: pip install 'kothkit[cluster]'") from e
        self.address = address
        self.cluster = None
        self._futures: dict[str, object] = {}
        self._lock = threading.Lock()
        try:
            import dask

            if address.startswith(LOCAL):
                try:
                    n = int(address[len(LOCAL):])
                except ValueError:
                    raise ClusterError(f"--cluster {address} is not local:N (N a number of workers)") from None
                if n < 1:
                    raise ClusterError(f"--cluster {address}: a local cluster needs at least one worker")
                try:
                    security = Security.temporary()
                except ImportError as e:
                    raise ClusterError(f"--cluster {address}: the cluster's certificates need the cryptography "
                                       f"package: pip install 'kothkit[cluster]'") from e
                with dask.config.set({**LOCAL_SETTINGS, **NO_HTTP}):
                    self.cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                                host="127.0.0.1", protocol="tls://", security=security,
                                                dashboard_address=None, worker_dashboard_address=None,
                                                silence_logs=logging.ERROR)
                self.client = Client(self.cluster, timeout=timeout, security=security)
            else:
                self.client = Client(address, timeout=timeout, security=_security(address))
            self.client.wait_for_workers(1, timeout=timeout)
            self.client.run_on_scheduler(_no_http)
            self.quiet()
        except ClusterError:
            self.close()
            raise
        except (OSError, TimeoutError, ValueError) as e:
            self.close()
            raise ClusterError(f"cannot use the Dask cluster at {address}: {e}") from None

    def __enter__(self) -> ClusterPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def quiet(self, workers: list[str] | None = None) -> None:
        """Stop the HTTP servers of ``workers`` (None: all of them)."""
        self.client.run(_no_http, workers=workers, on_error="ignore")

    @property
    def workers(self) -> list[str]:
        return sorted(self.client.scheduler_info(n_workers=-1)["workers"]) if hasattr(self, "client") else []

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            try:
                client.close(timeout=10)
            except Exception:
                pass
        if self.cluster is not None:
            try:
                self.cluster.close(timeout=10)
            except Exception:
                pass
            self.cluster = None


def connect(address: str, info: GameInfo, bots: Sequence[BotSpec], code: dict | None = None,
            note: Callable[[str], None] | None = None) -> ClusterExecutor:
    """A checked :class:`ClusterExecutor` on ``address`` for a tournament of ``info`` between ``bots``
    (close it when done): :class:`ClusterError` names each worker that cannot play it, and why.
    ``note(text)`` hears of the workers that join or leave later."""
    return ClusterExecutor(address, [info], bots=bots, codes=None if code is None else {info.name: code},
                           note=note, strict=True)


# -- on a worker: the host's games and builds, with the bots sent ---------------------------------

#: Seconds between two looks at the cluster's workers (who joined, who left), and between two
#: lines of the host's log saying what each plays.
WORKERS_EVERY = 1.0
REPORT_EVERY = 60.0


def _ensure(b: BotSpec, packed: bytes | None) -> None:
    """On a worker: have ``b`` here (at its path, or a copy sent before), else unpack and build
    the copy sent (``packed``); a bot that cannot be had here fails the task, naming the bot."""
    if _place(b) is not None or Path(b.path).exists():
        return
    if packed is None:
        raise ClusterError(f"bot {b.name} is not on this worker ({machine()}) and was not sent")
    why = receive(b, packed)
    if why is not None:
        raise ClusterError(f"bot {b.name} sent to this worker: {why}")


def play_sent(tasks, packs: dict, rows: bool, pondering: bool | None) -> tuple[list, float]:
    """What a worker runs for a batch of games: their bots had here (at their paths, or sent by
    content hash where its folders are not: ``packs``, by hash), then :func:`play`."""
    for b in {b.hash: b for t in tasks for b in t.players}.values():
        _ensure(b, packs.get(b.hash))
    return play(tasks, rows=rows, pondering=pondering)


class _Relay:
    """A worker's match of a person's game that tells the judge each reply it plays (``tell``), so
    that the judge's copy of the match stands where the worker's does (see :func:`play_person_sent`)."""

    def __init__(self, match, tell: Callable[[list], None]) -> None:
        self._match, self._tell = match, tell

    def play(self, seat: int, reply):
        import pickle

        self._tell(["play", seat, pickle.dumps(reply)])
        return self._match.play(seat, reply)

    def __getattr__(self, name: str):
        return getattr(self._match, name)


#: Seconds a worker waits for the person's reply beyond the judge's own wait (the judge abandons
#: the game first, and says so).
PERSON_SLACK = 60.0


def play_person_sent(task, packs: dict, seat: int, asks: str, tells: str, idle: float | None):
    """What a worker runs for a game of a person (the Play page of ``kothkit serve --cluster``):
    the bot had here (:func:`_ensure`), then the game played here with the person's seat answered
    by the judge, through two Dask queues: ``tells`` carries the referee's events, each reply the
    match plays, and each question to the person; ``asks`` the person's replies.  The task leaves
    its worker's thread while it waits on the person (``secede``: the worker plays other games),
    its bot as much nicer than the worker as the host's Play bots are."""
    import os
    import pickle
    from typing import cast

    import attrs
    from distributed import Queue, get_client, secede

    from kothkit.game import Match
    from kothkit.playing.play import Abandoned
    from kothkit.playing.referee import play_game
    from kothkit.plugins import get_game

    for b in task.players:
        if b.kind != BotKind.HUMAN:
            _ensure(b, packs.get(b.hash))
            failed = _build_here(b) if b.build and _place(b) is None else None  # (at its path: built?)
            if failed:
                raise ClusterError(f"bot {b.name} did not build on this worker: {failed}")
    secede()
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + PERSON_NICE))
    except (OSError, AttributeError):
        pass
    client = get_client()
    to_judge, from_judge = Queue(tells, client=client), Queue(asks, client=client)
    info = get_game(task.game)
    relayed = attrs.evolve(info, match=lambda setup: cast(Match, _Relay(info.match(setup), to_judge.put)))

    def person(match, prompt):
        to_judge.put(["ask"])
        try:
            said = from_judge.get(timeout=None if idle is None else idle + PERSON_SLACK)
        except TimeoutError:
            raise Abandoned() from None
        if said[0] != "reply":
            raise Abandoned()
        return pickle.loads(said[1])

    def event(kind: str, who: int, text: str, ms: float | None) -> None:
        to_judge.put(["event", kind, who, text, ms])

    return play_game(_here(task), info=relayed, on_event=event, boards=True, people={seat: person})


#: The niceness a Play page's bot gets on a worker above the worker's (as kothkit.serve.playsite.NICE).
PERSON_NICE = 10


def build_bot(build, folder: str, timeout: float, memory_mb: int | None, processes: int | None, spec_hash: str,
              packed: bytes) -> tuple[bool, str, float]:
    """What a worker runs for one of the host's builds: ``build`` (the host's, which travels by its
    name: :func:`kothkit.playing.executor.build`, contained, within the challenge's build limits), at the
    folder's path where this worker sees the host's files, else in a copy of it sent by content
    hash (built there, for this machine's games)."""
    return build(_folder_here(folder, spec_hash, packed), timeout, memory_mb, processes)


def _folder_here(folder: str, spec_hash: str, packed: bytes) -> str:
    """``folder`` where this worker sees the host's files, else the copy of it sent (``packed``),
    unpacked once per machine under :func:`shipped_root` by the pack's hash."""
    import fcntl
    import io
    import shutil
    import tarfile

    if Path(folder).exists():
        return folder
    root = private_root()
    home = root / f"build-{spec_hash}"
    where = home / Path(folder).name
    with open(root / f"build-{spec_hash}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not where.exists():
            shutil.rmtree(home, ignore_errors=True)
            home.mkdir()
            with tarfile.open(fileobj=io.BytesIO(packed), mode="r:gz") as tar:
                unpack(tar, home)
    return str(where)


def run_built(fn, build, folder: str, spec_hash: str, packed: bytes, *args):
    """``fn(folder, *args)`` on a worker, the folder built here first (a brain's check before the
    ladder, kothkit.serve.validation: the folder as :func:`build_bot` left it)."""
    here = _folder_here(folder, spec_hash, packed)
    if here != folder:
        build(here, 60.0)  # (built already by build_bot on this machine: a no-op, else its build)
    return fn(here, *args)


def _pack_folder(folder: Path) -> bytes:
    """A bot folder as a gzipped tar (its state and build output left out), as :func:`_pack`."""
    from kothkit.bots.folders import BotSpec as Spec

    return _pack(Spec(name=folder.name, path=folder, command=("x",)))


# -- on the judge: a worker's results bound to the work it was sent -------------------------------

def unbound(task, item, info: GameInfo | None, rows: bool) -> str | None:
    """Why ``item`` (a journal row with ``rows``, else a record), sent back by a worker for ``task``,
    is not that game's result, or None.

    It must be the game sent (its id, game, place, players, their content hashes and seed), and its
    outcome must be the one its moves give: the moves are played again into a fresh match of the
    game (a pure state machine, as :func:`kothkit.results.archive.transcript` re-plays a journal's
    records), every reply in turn from the seat the game asked, a reply the game refuses only last
    and then the refused bot's loss, an ended game's outcome as the game gives it.  A game that
    stopped on a fault the moves cannot show (a crash, a timeout) is the worker's word as to
    which bot, but scored as the game scores that bot's fault."""
    from kothkit.game import Outcome, Round, Setup, Verdict
    from kothkit.store.records import GameRecord, Move

    try:
        if rows:
            import json

            # Every seat's result and the note of when seats left: a game of more seats is checked by them.
            seated: dict[str, Any] = {k: None if getattr(item, k) is None else tuple(json.loads(getattr(item, k)))
                                      for k in ("seat_places", "seat_points", "seat_verdicts")}
            r = GameRecord(id=item.id, game=item.game, index=item.idx, players=tuple(json.loads(item.players)),
                           hashes=tuple(json.loads(item.hashes)), seed=item.seed, winner=item.winner,
                           reason=item.reason, offender=item.fault, verdict=item.verdict,
                           moves=tuple(Move(int(m[0]), m[1], float(m[2])) for m in json.loads(item.moves)),
                           logs=json.loads(item.logs) if seated["seat_places"] is not None else {}, **seated)
        else:
            r = item
        names = tuple(b.name for b in task.players)
        sent = (task.id, task.game, task.index, names, tuple(b.hash for b in task.players), task.seed)
        if (r.id, r.game, r.index, tuple(r.players), tuple(r.hashes), r.seed) != sent:
            return (f"sent back a game it was not sent (game {str(r.id)[:12]} for game {task.id[:12]}, "
                    f"#{task.index} {' vs '.join(names)})")
    except (AttributeError, TypeError, ValueError, IndexError, RecursionError):
        return f"sent back something else than game {task.id[:12]}'s result"
    if info is None:  # (a game the executor was not made with: its rules all the same, never trust)
        from kothkit.plugins import get_game

        try:
            info = get_game(task.game)
        except Exception:  # noqa: BLE001 - no such game here: nothing to re-play the record with
            return f"sent back game {task.id[:12]} of {task.game!r}, a game the judge cannot re-play"
    game = f"game {task.id[:12]} (#{task.index} {' vs '.join(names)})"
    try:
        rules = {**info.rules, **task.rules} if task.rules else info.rules
        match = info.match(Setup(players=names, seed=task.seed, rules=rules))
        if len(names) != 2:
            return _seated_replay(match, r, names, game, info.scoring.forfeit)
        want: Outcome | None = None
        fault: tuple[str | None, str | None] = (None, None)
        for i, m in enumerate(r.moves):
            step = match.next()
            if isinstance(step, Round):
                return f"sent back {game} with a round of moves in a game of two seats"
            if isinstance(step, Outcome):
                return f"sent back {game} with {len(r.moves)} replies; the game ended after {i}"
            if step.seat != m.seat:
                return f"sent back {game} with move {i + 1} by seat {m.seat}; the game asked seat {step.seat}"
            rejected = match.play(m.seat, m.reply)
            if rejected is not None:
                if i != len(r.moves) - 1:
                    return f"sent back {game} going on after move {i + 1}, which the game refuses"
                want = match.forfeit(m.seat, rejected.verdict, rejected.reason)
                fault = (names[m.seat], str(rejected.verdict))
                break
        if want is None:
            end = match.next()
            if isinstance(end, Outcome):
                want = end
            else:
                # A fault the moves cannot show: a bot's, scored as the game scores it.
                if r.offender not in names or r.verdict not in set(Verdict) - {Verdict.ILLEGAL_MOVE}:
                    return (f"sent back {game} with an outcome its moves do not give ({r.winner or 'a draw'}: "
                            f"{r.reason})")
                seat = names.index(r.offender)
                head = f"{r.verdict}: "
                want = match.forfeit(seat, Verdict(r.verdict), r.reason[len(head):] if r.reason.startswith(head)
                                     else r.reason)
                fault = (r.offender, r.verdict)
        winner = None if want.winner is None else names[want.winner]
        if (r.winner, r.reason, r.offender, r.verdict) != (winner, want.reason, *fault):
            return f"sent back {game} with an outcome its moves do not give ({r.winner or 'a draw'}: {r.reason})"
    except Exception as e:  # noqa: BLE001 - a record its own game cannot re-play is not taken on trust
        return f"sent back {game}, which the game cannot re-play ({type(e).__name__}: {e})"
    return None


def _seated_replay(match: Any, r: Any, names: tuple[str, ...], game: str, forfeit: float) -> str | None:
    """:func:`unbound`'s check of a game of more than two seats: its moves re-played, each seat that
    left leaving where the record says (records.LEFT), a refused reply only from a seat that left by
    that verdict, and every seat's place and points as the re-play gives them."""
    from kothkit.game import Outcome, Round, Verdict
    from kothkit.store.records import left_at, seat_results

    left = left_at(r.logs)
    verdicts = r.seat_verdicts or ()
    gone: set[int] = set()

    def leave(at: int) -> None:
        for seat in left.get(at, ()):
            if not 0 <= seat < len(names) or seat >= len(verdicts) or verdicts[seat] is None:
                raise ValueError(f"seat {seat} left without a verdict")
            gone.add(seat)
            match.leave(seat, Verdict(verdicts[seat]), "left the game")

    for i, m in enumerate(r.moves):
        leave(i)
        step = match.next()
        if isinstance(step, Outcome):
            return f"sent back {game} with {len(r.moves)} replies; the game ended after {i}"
        asked = step.seats if isinstance(step, Round) else (step.seat,)
        if m.seat not in asked:
            return f"sent back {game} with move {i + 1} by seat {m.seat}; the game asked seats {list(asked)}"
        rejected = match.play(m.seat, m.reply)
        if rejected is not None and (m.seat not in left.get(i + 1, ())
                                     or str(rejected.verdict) != verdicts[m.seat]):
            return f"sent back {game} going on after move {i + 1}, which the game refuses"
    leave(len(r.moves))
    end = match.next()
    if not isinstance(end, Outcome):
        return f"sent back {game} unfinished after {len(r.moves)} replies"
    places, points = seat_results(end.places_of(len(names)), end.points, gone, forfeit)
    if (r.seat_places, r.seat_points) != (places, points):
        return f"sent back {game} with places or points its moves do not give"
    return None


class ClusterExecutor:
    """Games and builds on the workers of a Dask cluster: the :class:`kothkit.playing.executor.Executor`
    of ``run --cluster`` and ``serve --cluster``, as :class:`~kothkit.playing.executor.LocalExecutor`
    is on this machine.

    Each worker is checked before it gets work: its kothkit version and each game's code, and
    the tournament's ``bots`` (their content at their paths; a bot a worker lacks is sent there by
    content hash and built, :func:`receive`).  ``strict`` (``run``): a worker present at the start
    that fails the check is a :class:`ClusterError` naming it, before any game.  Workers that join
    later (and with ``strict`` false, all of them) are checked when they first show up; one that
    fails is named in the log (``note``) and by :meth:`refused`, and left idle.  Only checked
    workers get work.

    With ``build`` (the host), what a game or build needs travels with it: a bot's folder is packed
    once by content hash and sent with each of its games (a brain's sources: kilobytes, rather
    than kept on one worker, whose loss would lose it), and a worker that does not see the host's
    folder unpacks and builds its copy (:func:`_ensure`).  A worker lost mid-game: the scheduler
    plays the game elsewhere (Dask's retries); once it has killed workers too often it fails with
    ``BrokenProcessPool``, and the caller plays it again.  A game is stored once, by its id,
    whoever played it.
    """

    batch_seconds = BATCH_SECONDS

    def __init__(self, address: str, games: Sequence[GameInfo], *, bots: Sequence[BotSpec] = (),
                 codes: dict[str, dict] | None = None, build=None, note=None, strict: bool = False,
                 tools: Sequence[str] = (), jail: bool = False) -> None:
        """``jail``: a worker whose jail lacks what strangers' code needs is refused;
        ``codes``: each game's code by name (default: :func:`kothkit.plugins.game_code`);
        ``build(folder, timeout, memory_mb, processes)``: how a worker builds a bot
        (:func:`kothkit.playing.executor.build`); ``tools``: the programs every worker must have
        (the compilers and interpreters of the host's languages)."""
        from kothkit.plugins import game_code

        self._build = build
        self._jail = jail
        self._tools = tuple(sorted(set(tools)))
        self.pool = ClusterPool(address)
        self.address = address
        self._games = list(games)
        self._codes = {info.name: (codes or {}).get(info.name) or game_code(info) for info in self._games}
        self._infos = {info.name: info for info in self._games}
        self._bots = list(bots)
        # The hash a bot was loaded with: its games' ids hold it, so a worker must play that content
        # (a bot loader of a plugin must hash as kothkit.bots.folders.content_hash does for --cluster).
        self._want = {b.name: b.hash or _bot_hash(b) for b in self._bots}
        self._note = note or (lambda text: None)
        # Reentrant: checking a worker that joined (under the lock) packs the bots it lacks.
        self._lock = threading.RLock()
        self._packs: dict[str, bytes] = {}
        self._checked: set[str] = set()
        #: The workers that failed the check, and why (for the log and the admin page).
        self._refused: dict[str, str] = {}
        self._seen_at = 0.0
        self._reported = time.monotonic()
        self._closed = False
        #: Key -> the Dask future, and what the task plays or builds (for the log and the admin page).
        self._futures: dict[str, object] = {}
        self._doing: dict[str, str] = {}
        #: Key -> the checked workers it may run on, and its future as the caller holds it.
        self._pinned: dict[str, tuple[frozenset[str], cf.Future]] = {}
        #: Dask futures of work failed by _orphans, to cancel (see capacity).
        self._cancel: list[object] = []
        #: Never grows: the scheduler itself replaces a lost worker's tasks.
        self.generation = 0
        try:
            if strict:
                self._check_all()
            else:
                self._look(force=True)
        except BaseException:
            self.pool.close()
            raise
        if not self._checked:
            self.pool.close()
            raise ClusterError(f"no worker of the Dask cluster at {address} can play the challenges")

    def __enter__(self) -> ClusterExecutor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- workers ---------------------------------------------------------------------------------
    def _check(self, workers: list[str] | None) -> dict[str, list[str]]:
        """Check ``workers`` (None: all): what each lacks, by worker."""
        import kothkit

        problems: dict[str, list[str]] = {}
        for info in self._games:
            try:
                seen = self.pool.client.run(probe, info.name, self._bots, self._want, self._tools, workers=workers,
                                            on_error="return")
            except (OSError, TimeoutError) as e:
                raise ClusterError(f"the workers of {self.address} did not answer: {e}") from None
            for w, why in self._ship(seen).items():
                problems.setdefault(w, []).extend(why)
            for w, got in sorted(seen.items()):
                found = problems.setdefault(w, [])
                if got is None or isinstance(got, BaseException):
                    found.append(f"worker {w} failed the check: {type(got).__name__}: {got}")
                else:
                    found += _problems(w, got, kothkit.__version__, self._codes[info.name], self._want,
                                       self._jail)
            stateful = sorted(b.name for b in self._bots if b.stateful)
            away = sorted(w for w, got in seen.items() if isinstance(got, dict) and got.get("machine") != machine())
            if stateful and away:
                for w in away:
                    problems[w].append(_away(stateful, [w]))
        return problems

    def _check_all(self) -> None:
        """Check every worker there now; a :class:`ClusterError` naming those that fail."""
        problems = self._check(None)
        if not problems:
            raise ClusterError(f"the Dask cluster at {self.address} has no workers")
        found = [p for w in sorted(problems) for p in problems[w] if not p.startswith("stateful bots")]
        stateful = sorted(b.name for b in self._bots if b.stateful)
        away = sorted(w for w, why in problems.items() if any(p.startswith("stateful bots") for p in why))
        if away and not found:
            found.append(_away(stateful, away))
        if found:
            shown = found[:10] + ([f"... and {len(found) - 10} more"] if len(found) > 10 else [])
            raise ClusterError("the cluster cannot play this tournament:\n  " + "\n  ".join(shown))
        self._checked = set(problems)

    def _ship(self, seen: dict) -> dict[str, list[str]]:
        """Send each bot a worker lacks (no such path there) as a tar; what went wrong, by worker."""
        problems: dict[str, list[str]] = {}
        for b in self._bots:
            lacking = sorted(w for w, got in seen.items()
                             if isinstance(got, dict) and got.get("bots", {}).get(b.name) == "missing")
            if not lacking:
                continue
            if b.stateful:
                for w in lacking:
                    problems.setdefault(w, []).append(f"worker {w} lacks stateful bot {b.name}, whose state "
                                                      f"cannot travel")
                continue
            got = self.pool.client.run(receive, b, self._pack_of(b), workers=lacking, on_error="return")
            for w, why in sorted(got.items()):
                if why is not None:
                    problems.setdefault(w, []).append(f"worker {w} could not take bot {b.name} sent there: {why}")
                else:
                    seen[w]["bots"][b.name] = self._want[b.name]
        return problems

    def _look(self, force: bool = False) -> None:
        """Check the workers that joined since the last look (at most every WORKERS_EVERY s)."""
        now = time.monotonic()
        if not force and now - self._seen_at < WORKERS_EVERY:
            return
        self._seen_at = now
        workers = set(self.pool.workers)
        new = sorted(workers - self._checked - self._refused.keys())
        gone = self._checked - workers
        if gone:
            self._note(f"cluster: workers left: {', '.join(sorted(gone))}")
            self._checked -= gone
            self._orphans()
        for w in self._refused.keys() - workers:
            del self._refused[w]
        if not new:
            return
        self.pool.quiet(new)  # (their HTTP servers: see _no_http)
        problems = self._check(new)
        for w in new:
            if problems.get(w):
                self._refused[w] = "; ".join(problems[w])
                self._note("cluster: worker left idle: " + self._refused[w])  # (each problem names the worker)
            elif w in problems:
                self._checked.add(w)
                self._note(f"cluster: worker {w} joined")

    def _orphans(self) -> None:
        """Fail the work pinned to workers that all left (BrokenProcessPool: the caller plays it
        again): Dask would keep it waiting for those very addresses, and a worker restarted comes
        back under another."""
        for key, (workers, out) in list(self._pinned.items()):
            if workers & self._checked:
                continue
            del self._pinned[key]
            self._doing.pop(key, None)
            fut = self._futures.pop(key, None)
            if fut is not None:  # (cancelled by capacity(), out of the lock: a cancel waits for the scheduler)
                self._cancel.append(fut)
            if not out.done():
                out.set_exception(BrokenProcessPool("the workers it was given left the cluster"))

    def capacity(self) -> int:
        """Work to keep in flight: one per checked worker (each plays one batch at a time)."""
        with self._lock:
            if not self._closed:
                try:
                    self._look()
                except (OSError, TimeoutError, ClusterError) as e:
                    self._note(f"cluster: cannot reach the scheduler: {e}")
            n = max(1, len(self._checked))
            cancel, self._cancel = self._cancel, []
            report = not self._closed and self._build is not None and time.monotonic() - self._reported >= REPORT_EVERY
            if report:
                self._reported = time.monotonic()
        for fut in cancel:
            try:
                fut.cancel()  # type: ignore[attr-defined]
            except Exception as e:  # noqa: BLE001 - a scheduler gone: the task goes with it
                self._note(f"cluster: cannot cancel a task of a worker that left: {e}")
        if report:
            doing = self.workers()
            self._note(f"cluster: {len(doing)} workers: " + "; ".join(
                f"{w} {', '.join(what) if what else 'idle'}" for w, what in doing.items()))
        return n

    def workers(self) -> dict[str, list[str]]:
        """Each checked worker and what it plays or builds now."""
        try:
            processing = self.pool.client.processing()
        except Exception:  # noqa: BLE001 - a cluster going away has nothing to show
            return {}
        with self._lock:
            doing = dict(self._doing)
            return {w: [doing[k] for k in processing.get(w, ()) if k in doing] for w in sorted(self._checked)}

    def refused(self) -> dict[str, str]:
        """The workers that failed the check (left idle while they stay), and why."""
        with self._lock:
            return dict(self._refused)

    # -- work ------------------------------------------------------------------------------------
    def _pack_of(self, b: BotSpec) -> bytes:
        """``b``'s packed folder (packed once, by content hash)."""
        with self._lock:
            packed = self._packs.get(b.hash)
        if packed is None:
            packed = _pack(b)
            with self._lock:
                self._packs[b.hash] = packed
        return packed

    def _submit(self, fn, what: str, *args, check: Callable[[object], str | None] | None = None) -> cf.Future:
        """``fn(*args)`` on a checked worker; ``check(result)``: why the result cannot be taken (its
        worker is then refused, and the future fails with BrokenProcessPool: the caller plays the work
        again elsewhere), or None."""
        out: cf.Future = cf.Future()
        key = f"kothkit-{fn.__name__}-{uuid.uuid4().hex}"
        with self._lock:
            if self._closed:
                raise RuntimeError("the cluster executor is closed")
            workers = sorted(self._checked)
            if not workers:
                # (Dask takes an empty list as no restriction: the work could go to a refused worker.)
                out.set_exception(BrokenProcessPool("no checked worker in the cluster now"))
                return out
            self._doing[key] = what
        fut = self.pool.client.submit(fn, *args, key=key, pure=False, workers=workers, allow_other_workers=False)
        with self._lock:
            self._futures[key] = fut
            self._pinned[key] = (frozenset(workers), out)

        def done(f) -> None:
            with self._lock:
                self._doing.pop(key, None)
                self._futures.pop(key, None)
                self._pinned.pop(key, None)
            if out.done() or not out.set_running_or_notify_cancel():
                return  # (failed already, its workers gone: see _orphans)
            try:
                result = f.result()
                why = check(result) if check is not None else None
                if why is not None:
                    worker = self._refuse(f, why)
                    out.set_exception(BrokenProcessPool(f"worker {worker} {why}"))
                else:
                    out.set_result(result)
            except BaseException as e:
                from distributed import KilledWorker

                # Workers died with it more often than the scheduler allows: the caller plays it
                # again (with its bots isolated, as for a local worker that died).
                out.set_exception(BrokenProcessPool(str(e)) if isinstance(e, KilledWorker) else e)

        fut.add_done_callback(done)
        return out

    def play(self, tasks, rows: bool = True, pondering: bool | None = None) -> cf.Future:
        """A future of ``tasks`` played on a worker: (rows or records, seconds played).  Trusted
        function bots play isolated: a Dask worker runs tasks in a thread, where an in-process
        bot that overran could not be interrupted."""
        tasks = [t.isolated() for t in tasks]
        packs = {}
        if self._build is not None:
            packs = {b.hash: self._pack_of(b) for t in tasks for b in t.players}
        what = " vs ".join(b.name for b in tasks[0].players) if tasks else "nothing"
        what += f" (+{len(tasks) - 1})" if len(tasks) > 1 else ""
        return self._submit(play_sent, what, tasks, packs, rows, pondering,
                            check=lambda result: self._unbound(tasks, result, rows))

    def _unbound(self, tasks, result, rows: bool) -> str | None:
        """Why a worker's ``result`` for ``tasks`` is not theirs (:func:`unbound`), or None."""
        try:
            out, _seconds = result
            got = list(out)
        except (TypeError, ValueError):
            return "sent back something else than games"
        if len(got) != len(tasks):
            # (A worker stops short only when it is interrupted itself, going away: a worker that
            # dropped the games it would lose is dealt with alike.)
            return f"sent back {len(got)} games for the {len(tasks)} it was sent"
        for task, item in zip(tasks, got):
            info = self._infos.get(task.game)
            why = unbound(task, item, info, rows)
            if why is not None:
                return why
        return None

    def _refuse(self, fut, why: str) -> str:
        """Leave the worker that delivered ``fut`` idle from now on, for ``why``: its name."""
        try:
            holders = self.pool.client.who_has(fut).get(fut.key, ())
        except Exception:  # noqa: BLE001 - a scheduler gone: the work fails all the same
            holders = ()
        with self._lock:
            for w in holders:
                self._checked.discard(w)
                self._refused[w] = f"worker {w} {why}"
        name = ", ".join(holders) or "(unknown)"
        self._note(f"cluster: worker left idle: worker {name} {why}")
        return name

    def play_person(self, task, seat: int, person, on_event=None, idle: float | None = None):
        """Play ``task``, a game of a person (the Play page's), on a worker, its seat ``seat``
        answered here by ``person(match, prompt)`` (:class:`kothkit.playing.playweb.WebSeat`), the
        referee's events handed to ``on_event`` as they come: the host runs no submitted code.  Its
        record, checked as any game's (:func:`unbound`).  Waits for the game (``person`` raising
        :class:`kothkit.playing.play.Abandoned` ends it on the worker too).

        The judge keeps a copy of the match, played with each reply the worker's plays (a game is a
        pure state machine), for ``person`` to read and answer."""
        import pickle

        from distributed import Queue

        from kothkit.game import Prompt, Setup
        from kothkit.playing.play import Abandoned

        info = self._infos.get(task.game)
        if info is None:
            from kothkit.plugins import get_game

            info = get_game(task.game)
        names = tuple(b.name for b in task.players)
        rules = {**info.rules, **task.rules} if task.rules else info.rules
        copy = info.match(Setup(players=names, seed=task.seed, rules=rules))
        key = uuid.uuid4().hex
        asks = Queue(f"kothkit-person-{key}-asks", client=self.pool.client)
        tells = Queue(f"kothkit-person-{key}-tells", client=self.pool.client)
        packs = {b.hash: self._pack_of(b) for b in task.players if b.kind != BotKind.HUMAN}
        # (Named by its bot only in the host's log: the person's seat holds their login.)
        what = "a person vs " + " vs ".join(b.name for b in task.players if b.kind != BotKind.HUMAN)
        fut = self._submit(play_person_sent, what, task, packs, seat, asks.name, tells.name, idle,
                           check=lambda record: unbound(task, record, info, rows=False))

        def handle(said: list) -> None:
            if said[0] == "event" and on_event is not None:
                on_event(*said[1:5])
            elif said[0] == "play":
                copy.next()
                copy.play(said[1], pickle.loads(said[2]))
            elif said[0] == "ask":
                prompt = copy.next()
                if not isinstance(prompt, Prompt) or prompt.seat != seat:
                    raise ClusterError(f"the worker asked the person out of turn in game {task.id[:12]}")
                try:
                    reply = person(copy, prompt)
                except Abandoned:
                    asks.put(["abandon"])
                    raise
                asks.put(["reply", pickle.dumps(reply)])

        try:
            while True:
                try:
                    said = tells.get(timeout=0.5)
                except TimeoutError:
                    if not fut.done():
                        continue
                    for said in tells.get(batch=True):  # what came after the last look
                        handle(said)
                    break
                handle(said)
            return fut.result()
        except BaseException:
            fut.cancel()
            try:
                asks.put(["abandon"])  # (the worker's game ends at once, its bot killed)
            except Exception:  # noqa: BLE001 - a cluster gone: the game went with it
                pass
            raise
        finally:
            for q in (asks, tells):
                try:
                    q.close()
                except Exception:  # noqa: BLE001 - a cluster gone takes its queues with it
                    pass

    def build(self, folder: str, timeout: float, memory_mb: int | None = None,
              processes: int | None = None) -> cf.Future:
        """A future of the build of ``folder`` on a worker, within the challenge's limits: (ok,
        output, seconds)."""
        import hashlib

        packed = _pack_folder(Path(folder))
        return self._submit(build_bot, f"build {Path(folder).parent.name}/{Path(folder).name}", self._build,
                            folder, timeout, memory_mb, processes, hashlib.sha256(packed).hexdigest()[:32], packed)

    def run_in(self, folder: str, fn, *args) -> cf.Future:
        """A future of ``fn(folder, *args)`` on a worker, with the folder (built) there: a brain's
        check before the ladder."""
        import hashlib

        packed = _pack_folder(Path(folder))
        return self._submit(run_built, f"check {Path(folder).parent.name}/{Path(folder).name}", fn, self._build,
                            folder, hashlib.sha256(packed).hexdigest()[:32], packed, *args)

    def restart(self) -> None:
        """Nothing to do: the scheduler replaces a lost worker's tasks itself."""

    def interrupt(self) -> None:
        """Ctrl-C: the batches on the workers are dropped (see :meth:`cancel`)."""

    def cancel(self) -> None:
        """Cancel the work still queued or running (the cluster itself stays up: :meth:`close`)."""
        with self._lock:
            pending = list(self._futures.values())
            self._futures.clear()
        if pending:
            try:
                self.pool.client.cancel(pending)
            except Exception:  # noqa: BLE001 - a cluster already gone has nothing left to cancel
                pass

    def close(self, timeout: float | None = None) -> None:
        with self._lock:
            self._closed = True
            self._packs.clear()
        self.cancel()
        self.pool.close()


def _away(stateful: list[str], away: list[str]) -> str:
    return (f"stateful bots ({', '.join(stateful)}) keep their state in their folder, so all their games must "
            f"run on one machine, and workers {', '.join(away[:5])} run on another than the judge's: run them "
            f"with --jobs, or with workers on this machine")
