"""The cores a judge's jobs run on, claimed so that judges on one machine spread out.

Each job runs on one core with its bots (see :mod:`kothkit.playing.tournament`).  A judge
that simply took the first cores would pile onto core 0 beside every other judge
on the machine (several challenges hosted from one install, a test suite running
judges side by side), and their bots would lose on time to each other.  So a
judge claims its cores: one lock file per core, held with ``flock`` while its
tournament runs.  The kernel drops a lock when the last process holding it (the
judge, or a worker that inherited it) exits, however it exits, so no claim
outlives its judge.  Jobs beyond the free cores go round all the cores, claimed
ones first: sharing a core is then no worse than without claims.

The lock folder is ``$TMPDIR/kothkit-cores-UID`` unless ``KOTHKIT_CORES_DIR`` names another:
judges that should see each other's claims must share it (every judge of a machine, by default);
a test suite gives each test its own, so that no other judge on the machine decides its cores.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import attrs

#: The environment variable naming the folder of the per-core lock files.
CORES_DIR_ENV = "KOTHKIT_CORES_DIR"


def lock_dir() -> Path | None:
    """The folder of the per-core lock files (``KOTHKIT_CORES_DIR``, or one per user under the
    temporary folder), or None if it cannot be made ours."""
    chosen = os.environ.get(CORES_DIR_ENV)
    d = Path(chosen) if chosen else Path(tempfile.gettempdir()) / f"kothkit-cores-{os.getuid()}"
    try:
        d.mkdir(mode=0o700, parents=bool(chosen), exist_ok=True)
        st = d.stat()
    except OSError:
        return None
    if st.st_uid != os.getuid() or st.st_mode & 0o022:
        return None  # someone else's, or writable by others: its locks mean nothing
    return d


@attrs.define
class Claim:
    """Cores for a judge's jobs: ``cores[slot]`` is job ``slot``'s core."""

    cores: list[int]
    #: The cores this judge has to itself, as far as claims can tell: those it holds a lock on
    #: (without a lock folder nobody can claim any: the first cores, as if free).
    held: list[int]
    _fds: list[int] = attrs.field(factory=list, repr=False)

    def release(self) -> None:
        for fd in self._fds:
            os.close(fd)  # in this process; a worker's inherited copy goes with the worker
        self._fds.clear()

    def __enter__(self) -> Claim:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def claim(jobs: int) -> Claim:
    """Claim a core for each of ``jobs`` jobs among the cores this process may use: the
    cores no other judge holds first, in order; jobs beyond them go round all the cores,
    these first."""
    allowed = sorted(os.sched_getaffinity(0))
    want = min(max(1, jobs), len(allowed))
    folder = lock_dir()
    held: list[int] = []
    fds: list[int] = []
    for core in allowed if folder is not None else ():
        if len(held) == want:
            break
        assert folder is not None  # the loop runs only then
        try:
            fd = os.open(folder / f"{core}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # another judge's core
            os.close(fd)
            continue
        held.append(core)
        fds.append(fd)
    if folder is None:
        held = allowed[:want]
    # Cores held by others, in an order of this judge's own: judges that find every core
    # taken share them at random rather than all on the first.
    others = [c for c in allowed if c not in held]
    k = os.getpid() % len(others) if others else 0
    order = held + others[k:] + others[:k]
    return Claim(cores=[order[i % len(order)] for i in range(max(1, jobs))], held=held, fds=fds)


def default_jobs(pondering: bool, pin_cpu: bool = True, cores: int | None = None) -> int:
    """The games a judge plays at once when nobody chose (``--jobs``, a challenge's ``jobs``): one
    per core, or, for a game that allows pondering, one per two cores, so that each seat has a core
    of its own (a bot thinking on its opponent's time must not take that time; issue 36).  Every
    judge uses this rule (``kothkit run``, ``match``, ``verify``, ``serve``), so that a game is laid
    out the same everywhere.  ``cores``: those this process may run on (its affinity) unless given."""
    n = cores if cores is not None else len(os.sched_getaffinity(0))
    if pondering and pin_cpu and n >= 2:
        return n // 2
    return max(1, n)


#: A Play game's bot's most CPU: this share of the one core it is held to (a CPU quota, so that
#: a bot that forks spinners cannot take even that whole core from the ladder's games beside it).
PLAY_SHARE = 0.5


@contextmanager
def play_core(share: float = PLAY_SHARE) -> Iterator[tuple[int, Path | None]]:
    """For the calling thread (a Play game's, in ``kothkit serve``): a core claimed as a judge
    claims one (a core the ladder's workers do not hold where one is left), and a CPU quota of
    ``share`` of a core on every process the thread starts meanwhile
    (:func:`kothkit.procs.cgroups.thread_cpu_quota`; None where the machine has no cgroup for it).
    Yields (core, the quota's group)."""
    from kothkit.procs.cgroups import leave_cpu_quota, thread_cpu_quota

    with claim(1) as got:
        group = thread_cpu_quota(share)
        try:
            yield got.cores[0], group
        finally:
            if group is not None:
                leave_cpu_quota(group)
