"""The plugin manager: the core's defaults first, then every ``kothkit`` entry point;
and :func:`game_code`, what of a game's code goes into its games' ids.

The entry points are read from the distributions' ``entry_points.txt`` files on ``sys.path``
(:func:`_entry_points`) rather than through :mod:`importlib.metadata`, whose import (it brings
the ``email`` package, to read ``METADATA`` files) and reading of every distribution's metadata
took a tenth of ``kothkit games``; where the import system holds what that reader does not know
(a zip file on ``sys.path``, a finder of distributions of its own), pluggy's own loader does it.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import os
import re
import sys
from functools import cache, reduce
from pathlib import Path
from typing import Any

import attrs
import pluggy

from kothkit import hookspecs
from kothkit.game import GameInfo

#: The core's own hook implementations, registered before any entry point.
DEFAULT_PLUGINS = ("kothkit.defaults",)


class PluginError(Exception):
    """A plugin is broken or clashes with another (message names both)."""


@attrs.frozen
class InstalledGame:
    info: GameInfo
    #: Where it comes from: "<distribution> <version> (<module>)".
    source: str
    #: "<distribution> <version>", or None for a plugin registered in code.
    dist: str | None = None
    #: The module that registered it.
    module: str | None = None


class PluginManager(pluggy.PluginManager):
    """pluggy's manager, which also knows the distribution (its ``*.dist-info`` folder) of each
    plugin it loaded from an entry point (pluggy's own loader keeps them in ``list_plugin_distinfo``)."""

    def __init__(self, project_name: str) -> None:
        super().__init__(project_name)
        self.dist_folders: dict[int, Path] = {}


#: An entry point's value: ``module.path`` or ``module.path:attr.path``, perhaps ``[extras]``
#: (importlib.metadata.EntryPoint.pattern).
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")


def _entry_points(group: str) -> list[tuple[str, str, Path]] | None:
    """The entry points of ``group`` as (name, value, distribution folder), in the order
    :func:`importlib.metadata.distributions` finds them (``sys.path`` order, then each folder's
    listing order, ``*.dist-info`` and ``*.egg-info`` grouped by project name); every one, also
    those of a distribution that another earlier on ``sys.path`` shadows, as pluggy's loader
    sees them.  None where that reader would search elsewhere too: a finder other than
    :class:`importlib.machinery.PathFinder` that finds distributions, or a ``sys.path`` entry
    that is a file (a zip) or an ``.egg``; or where a file is not as the reader expects it."""
    for finder in sys.meta_path:
        if getattr(finder, "find_distributions", None) is not None and finder is not importlib.machinery.PathFinder:
            return None
    found = []
    for entry in sys.path:
        root = entry or "."
        if os.path.isfile(root) or os.path.basename(root).lower().endswith(".egg"):
            return None
        try:
            children = os.listdir(root)
        except OSError:
            continue
        by_name: dict[str, list[str]] = {}
        for child in children:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")):
                # importlib.metadata's Prepared.normalize of the name part.
                name = re.sub(r"[-_.]+", "-", low.rpartition(".")[0].partition("-")[0]).replace("-", "_")
                by_name.setdefault(name, []).append(child)
        for children_of_name in by_name.values():
            for child in children_of_name:
                folder = Path(root, child)
                try:
                    text = (folder / "entry_points.txt").read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                section = None
                for line in map(str.strip, text.splitlines()):
                    if not line or line.startswith("#"):
                        continue
                    if line.startswith("[") and line.endswith("]"):
                        section = line.strip("[]")
                    elif section is not None:
                        if "=" not in line:
                            return None  # importlib.metadata raises here: let it say so
                        if section == group:
                            name, value = map(str.strip, line.split("=", 1))
                            found.append((name, value, folder))
    return found


def _load(value: str) -> object:
    """What an entry point's value names: its module, or an attribute in it (EntryPoint.load)."""
    match = _VALUE.match(value)
    if match is None:
        raise PluginError(f"entry point {value!r} does not name a module")
    module = importlib.import_module(match.group("module"))
    return reduce(getattr, filter(None, (match.group("attr") or "").split(".")), module)


def _load_entry_points(pm: PluginManager, group: str) -> None:
    """pluggy's ``load_setuptools_entrypoints``: each entry point's object registered under the
    entry point's name, unless a plugin of that name is registered (or blocked) already."""
    found = _entry_points(group)
    if found is None:
        pm.load_setuptools_entrypoints(group)
        return
    for name, value, folder in found:
        if pm.has_plugin(name) or pm.is_blocked(name):
            continue
        plugin = _load(value)
        pm.register(plugin, name=name)
        pm.dist_folders[id(plugin)] = folder


@cache
def _dist_name(folder: Path) -> str:
    """"<name> <version>" from a distribution's METADATA (or PKG-INFO): what pluggy's
    ``DistFacade`` gives as ``project_name`` and ``version``, read without the email package
    (the first header of each name, its value as email's compat32 policy reads it)."""
    text = ""
    for file in ("METADATA", "PKG-INFO"):
        try:
            text = (folder / file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if text:
            break
    headers: list[list[str]] = []  # [lower-case name, the first line's value, continued lines...]
    for line in text.splitlines(keepends=True):
        if line[:1] in (" ", "\t"):
            if headers:
                headers[-1].append(line)
            continue
        key, colon, value = line.partition(":")
        if not colon or not key or not all("!" <= c <= "~" for c in key):
            break  # the blank line after the headers (or what email takes for the body)
        headers.append([key.lower(), value.lstrip(" \t")])

    def first(name: str) -> str | None:
        return next(("".join(h[1:]).rstrip("\r\n") for h in headers if h[0] == name), None)

    return f"{first('name')} {first('version')}"


def build_plugin_manager() -> pluggy.PluginManager:
    pm = PluginManager("kothkit")
    pm.add_hookspecs(hookspecs)
    for name in DEFAULT_PLUGINS:
        pm.register(importlib.import_module(name), name=name)
    _load_entry_points(pm, "kothkit")
    return pm


@cache
def plugin_manager() -> pluggy.PluginManager:
    return build_plugin_manager()


def _source(dist: str | None, plugin: object) -> str:
    return f"{dist or 'registered in code'} ({getattr(plugin, '__name__', plugin)})"


def _dist_names(pm: pluggy.PluginManager) -> dict[int, str]:
    """'<distribution> <version>' of each plugin loaded from an entry point, by the plugin's id."""
    # Each distribution's name and version read once (reading them costs a metadata file each time).
    names = {id(p): f"{d.project_name} {d.version}" for p, d in pm.list_plugin_distinfo()}
    for plugin, folder in getattr(pm, "dist_folders", {}).items():
        names[plugin] = _dist_name(folder)
    return names


def installed_games(pm: pluggy.PluginManager | None = None) -> dict[str, InstalledGame]:
    """Every installed game by name; two plugins claiming one name is an error naming both."""
    pm = pm or plugin_manager()
    found: dict[str, InstalledGame] = {}
    dists = _dist_names(pm)
    for impl in pm.hook.kothkit_games.get_hookimpls():
        result: Any = impl.function()  # a plugin's: every item is checked below
        infos = [result] if isinstance(result, GameInfo) else list(result or ())
        for info in infos:
            if not isinstance(info, GameInfo):
                raise PluginError(f"plugin {impl.plugin_name!r}: kothkit_games returned {info!r}, not a GameInfo")
            dist = dists.get(id(impl.plugin))
            src = _source(dist, impl.plugin)
            if info.name in found:
                raise PluginError(f"game {info.name!r} is provided twice: by {found[info.name].source} and by {src}")
            found[info.name] = InstalledGame(info=info, source=src, dist=dist,
                                             module=getattr(impl.plugin, "__name__", None))
    return dict(sorted(found.items()))


@cache
def _default_games() -> dict[str, InstalledGame]:
    return installed_games(plugin_manager())


def get_game(name: str, pm: pluggy.PluginManager | None = None) -> GameInfo:
    # Workers look a game up for every task: the default set is computed once per process.
    games = installed_games(pm) if pm is not None else _default_games()
    if name not in games:
        known = ", ".join(games) or "none"
        raise PluginError(f"no game named {name!r} is installed (installed: {known})")
    return games[name].info


def _code_files(module: str, skip: Path | None) -> dict[str, Path]:
    """The .py files of ``module``'s top-level package (or the module's own file), by a name that
    is the same on every machine, less ``skip`` (the game's bundled bots: they have content
    hashes of their own) and caches."""
    top = sys.modules.get(module.split(".")[0])
    if top is None or top.__name__ == "kothkit":  # the core is not a game's code
        return {}
    roots = [Path(d) for d in getattr(top, "__path__", ())]
    if not roots:
        file = getattr(top, "__file__", None)
        return {top.__name__: Path(file)} if file else {}
    files = {}
    for root in roots:
        for folder, dirs, names in os.walk(root):
            here = Path(folder)
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith(".")
                             and (skip is None or (here / d).resolve() != skip))
            for n in names:
                if n.endswith(".py"):
                    files[f"{top.__name__}/{(here / n).relative_to(root).as_posix()}"] = here / n
    return files


def game_code(info: GameInfo) -> dict[str, str | None]:
    """What of a game's code decides its outcomes, for its games' ids: the plugin's distribution
    and version, and a hash of the Python files of the package(s) that register the game and
    define its match (less its bundled bots).  So an edited working tree (an editable install),
    like a new version, changes every id of the game, and its games are played again.
    """
    try:
        found = _default_games().get(info.name)
    except PluginError:
        found = None
    ours = found if found is not None and found.info is info else None
    modules = {getattr(info.match, "__module__", None) or "", (ours.module if ours else None) or ""} - {""}
    skip = Path(info.bots).resolve() if info.bots else None
    files: dict[str, Path] = {}
    for m in sorted(modules):
        files.update(_code_files(m, skip))
    h = hashlib.sha256()
    for name, f in sorted(files.items()):
        h.update(name.encode() + b"\0")
        try:
            h.update(f.read_bytes())
        except OSError:
            pass
        h.update(b"\0")
    return {"plugin": ours.dist if ours else None, "code": h.hexdigest()}
