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
