"""The plugin manager: the core's defaults first, then every ``kothkit`` entry point."""

from __future__ import annotations

import importlib
from functools import cache

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


def build_plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager("kothkit")
    pm.add_hookspecs(hookspecs)
    for name in DEFAULT_PLUGINS:
        pm.register(importlib.import_module(name), name=name)
    pm.load_setuptools_entrypoints("kothkit")
    return pm


@cache
def plugin_manager() -> pluggy.PluginManager:
    return build_plugin_manager()


def _source(pm: pluggy.PluginManager, plugin: object) -> str:
    for p, dist in pm.list_plugin_distinfo():
        if p is plugin:
            return f"{dist.project_name} {dist.version} ({getattr(plugin, '__name__', plugin)})"
    return f"registered in code ({getattr(plugin, '__name__', plugin)})"


def installed_games(pm: pluggy.PluginManager | None = None) -> dict[str, InstalledGame]:
    """Every installed game by name; two plugins claiming one name is an error naming both."""
    pm = pm or plugin_manager()
    found: dict[str, InstalledGame] = {}
    for impl in pm.hook.kothkit_games.get_hookimpls():
        result = impl.function()
        infos = [result] if isinstance(result, GameInfo) else list(result or ())
        for info in infos:
            if not isinstance(info, GameInfo):
                raise PluginError(f"plugin {impl.plugin_name!r}: kothkit_games returned {info!r}, not a GameInfo")
            src = _source(pm, impl.plugin)
            if info.name in found:
                raise PluginError(f"game {info.name!r} is provided twice: by {found[info.name].source} and by {src}")
            found[info.name] = InstalledGame(info=info, source=src)
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
