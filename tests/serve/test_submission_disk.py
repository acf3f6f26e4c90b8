"""What a submission's folder keeps (kothkit.serve.submissions.disk_use and the cut to its source):
a stranger's build may leave any tree in its folder, and measuring or cutting it must not crash
the host (a RecursionError in the host's build step left the submission building for good)."""

from __future__ import annotations

import os

import pytest

from kothkit.serve.submissions import _keep_only, disk_use

#: Deeper than Python's recursion limit lets os.walk and shutil.rmtree (of Python 3.11) go.
DEEP = 1200


def _deep(folder, depth: int = DEEP) -> str:
    p = str(folder / "out")
    os.mkdir(p)
    for _ in range(depth):  # (os.makedirs recurses too)
        p = os.path.join(p, "d")
        os.mkdir(p)
    with open(os.path.join(p, "big"), "wb") as f:
        f.write(b"x" * 100_000)
    return p


def _remove(top: str) -> None:
    """rm -r without recursion: the tree is removed whether or not the test passed (pytest's own
    clean-up of its temporary folders recurses, and a tree left there would break later runs)."""
    stack = [(top, False)]
    while stack:
        d, emptied = stack.pop()
        if emptied:
            os.rmdir(d)
            continue
        stack.append((d, True))
        with os.scandir(d) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    stack.append((e.path, False))
                else:
                    os.unlink(e.path)


@pytest.fixture
def folder(tmp_path):
    folder = tmp_path / "sub"
    yield folder
    if folder.exists():
        _remove(str(folder))


def test_a_deep_tree_is_measured_and_cut(folder):
    folder.mkdir()
    (folder / "main.c").write_text("int main(void) { return 0; }\n")
    (folder / "bot.toml").write_text('name = "u1"\n')
    os.symlink("/", folder / "root-link")  # (never followed)
    _deep(folder)
    total, biggest, name = disk_use(folder)
    assert biggest >= 100_000 and name.endswith("/d/big") and name.count("/") == DEEP + 1
    assert total > biggest
    _keep_only(folder, {"main.c", "bot.toml"})
    assert sorted(os.listdir(folder)) == ["bot.toml", "main.c"]
    assert disk_use(folder)[1] < 100_000


def test_the_quota_s_walk_holds_no_write_lock(tmp_path):
    """Store.add walks the author's folders (their ``keep_mb``) before its write transaction: while
    it walks, another writer of host.sqlite with no busy timeout at all (a game recorded, a login)
    writes.  A submission of the same author that came in during the walk is still counted."""
    import sqlite3
    import sys

    from kothkit.serve.errors import SubmitError
    from kothkit.serve.settings import ServeSettings
    from kothkit.serve.submissions import Store

    state = tmp_path / "state"
    settings = ServeSettings(kind="submissions", min_interval=0, keep_mb=1)
    store, beside = Store(state), Store(state)  # (beside: another process's, say)
    other = sqlite3.connect(state / "host.sqlite", timeout=0, isolation_level=None)
    try:
        first = store.add("c", settings, "s1", "a.c", "c11", b"int main(void) { return 0; }\n", now=1.0)
        built = store.folder(first) / "out"  # what its build left: 400 kB in 40 files
        built.mkdir()
        for k in range(40):
            (built / f"o{k}").write_bytes(os.urandom(10_000))
        other.execute("CREATE TABLE games (n INTEGER)")
        written: list[str] = []

        def during_walks(frame, event, _arg):
            if event != "call" or frame.f_code is not disk_use.__code__ or written:
                return
            try:  # (busy_timeout 0: a write lock held by the store fails this at once)
                other.execute("INSERT INTO games VALUES (1)")
                written.append("written")
            except sqlite3.OperationalError as e:
                written.append(str(e))
            # The same author's next brain (300 kB) comes in, through another connection, mid-walk.
            beside.add("c", settings, "s1", "b.c", "c11", os.urandom(300_000), now=2.0)

        sys.setprofile(during_walks)
        try:
            with pytest.raises(SubmitError, match="keep"):  # 400 + 300 + 400 kB > 1 MiB: refused
                store.add("c", settings, "s1", "c.c", "c11", os.urandom(400_000), now=3.0)
        finally:
            sys.setprofile(None)
        assert written == ["written"]
        assert other.execute("SELECT count(*) FROM games").fetchone() == (1,)
        assert [s.filename for s in store.list("c", "s1")] == ["b.c", "a.c"]
        assert store.kept("c", "s1") > 700_000
    finally:
        other.close()
        beside.close()
        store.close()
