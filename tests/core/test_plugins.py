"""The plugin manager reads the ``kothkit`` entry points itself (kothkit.plugins._entry_points): it
must find what importlib.metadata finds, in the same order, with the same distribution names, and
leave the unusual cases (a zip on sys.path) to pluggy's own loader."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import zipfile
from pathlib import Path

from kothkit import plugins

ROOT = Path(__file__).resolve().parents[2]


def _theirs(group: str) -> list[tuple[str, str, str]]:
    return [(e.name, e.value, str(d._path))  # type: ignore[attr-defined]  # PathDistribution's folder
            for d in importlib.metadata.distributions() for e in d.entry_points if e.group == group]


def _dist(site: Path, folder: str, metadata: str, entry_points: str, file: str = "METADATA") -> Path:
    d = site / folder
    d.mkdir(parents=True)
    (d / file).write_text(metadata)
    (d / "entry_points.txt").write_text(entry_points)
    return d


def test_the_entry_points_and_names_are_importlib_metadatas(tmp_path, monkeypatch):
    site, shadow = tmp_path / "site", tmp_path / "shadow"
    _dist(site, "kothkit_mnk-1.0.0.dist-info", "Metadata-Version: 2.1\nName: kothkit-mnk\nVersion: 1.0.0\n\nName: body\n",
          "# a comment\n[console_scripts]\nmnk = kothkit_mnk.cli:main\n\n[kothkit]\nmnk = kothkit_mnk.plugin\n"
          "  other =  kothkit_mnk.more:PLUGIN.inner [extra]  \n")
    _dist(site, "Old.Style-2.0-py3.11.egg-info", "Metadata-Version: 1.1\nName: Old.Style\nSummary: a\n  folded line\n"
          "Version:\t2.0 \n", "[kothkit]\nold = old_style\n", file="PKG-INFO")
    _dist(site, "no_metadata-0.1.dist-info", "", "[kothkit]\nbare = bare\n")
    # The same project again later on sys.path (shadowed): pluggy's loader sees its entry points too.
    _dist(shadow, "kothkit_mnk-0.9.dist-info", "Name: kothkit-mnk\nVersion: 0.9\n", "[kothkit]\nmnk = old_mnk\n")
    monkeypatch.syspath_prepend(str(shadow))
    monkeypatch.syspath_prepend(str(site))
    for group in ("kothkit", "console_scripts", "pytest11"):
        ours = plugins._entry_points(group)
        assert ours is not None
        assert [(n, v, str(f)) for n, v, f in ours] == _theirs(group)
    # Listing order within a folder: any; each project's entry points together, the shadowed last.
    assert sorted(n for n, _, _ in (plugins._entry_points("kothkit") or ())[:4]) == ["bare", "mnk", "old", "other"]
    for d in importlib.metadata.distributions():
        folder = Path(d._path)  # type: ignore[attr-defined]
        assert plugins._dist_name(folder) == f"{d.metadata['name']} {d.version}", folder


def test_a_zip_on_sys_path_is_left_to_pluggy(tmp_path, monkeypatch):
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("zipped_plugin.py", '"""A plugin with no hooks."""\n')
        z.writestr("zipped-1.0.dist-info/METADATA", "Name: zipped\nVersion: 1.0\n")
        z.writestr("zipped-1.0.dist-info/entry_points.txt", "[kothkit]\nzipped = zipped_plugin\n")
    monkeypatch.syspath_prepend(str(archive))
    monkeypatch.delitem(sys.modules, "zipped_plugin", raising=False)
    assert plugins._entry_points("kothkit") is None
    pm = plugins.build_plugin_manager()
    assert pm.has_plugin("zipped") and pm.has_plugin("gomoku_swap2")
    assert "zipped 1.0" in plugins._dist_names(pm).values()
    assert set(plugins.installed_games(pm)) >= {"gomoku_swap2", "connect4_hidden", "gomoku_classic12"}


def test_a_broken_entry_point_fails_as_before(tmp_path):
    """A plugin that cannot be imported stops the command with its ImportError (as pluggy's loader
    did); a game from a plugin on sys.path is named with its distribution."""
    site = tmp_path / "site"
    _dist(site, "broken-1.0.dist-info", "Name: broken\nVersion: 1.0\n", "[kothkit]\nbroken = no_such_module_here\n")
    code = "from kothkit.plugins import installed_games; installed_games()"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}, cwd=tmp_path)
    assert p.returncode == 1 and "ModuleNotFoundError: No module named 'no_such_module_here'" in p.stderr
    (site / "broken-1.0.dist-info" / "entry_points.txt").write_text("[kothkit]\nmnk = kothkit_mnk.plugin\n")
    env = {"PYTHONPATH": f"{site}:{ROOT / 'tests' / 'thirdparty' / 'mnk' / 'src'}", "PATH": "/usr/bin:/bin"}
    p = subprocess.run([sys.executable, "-m", "kothkit", "games"], capture_output=True, text=True, timeout=120,
                       env=env, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "[broken 1.0 (kothkit_mnk.plugin)]" in p.stdout and "gomoku_swap2" in p.stdout
