"""The plugin manager: the core's defaults first, then every ``kothkit`` entry point;
and :func:`game_code`, what of a game's code goes into its games' ids."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import pluggy

from kothkit import hookspecs
from kothkit.game import Exporter, GameInfo

if TYPE_CHECKING:
    from kothkit.scenarios import Scenario

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


def _source(dist: str | None, plugin: object) -> str:
    return f"{dist or 'registered in code'} ({getattr(plugin, '__name__', plugin)})"


def installed_games(pm: pluggy.PluginManager | None = None) -> dict[str, InstalledGame]:
    """Every installed game by name; two plugins claiming one name is an error naming both."""
    pm = pm or plugin_manager()
    found: dict[str, InstalledGame] = {}
    # Each distribution's name and version read once (reading them costs a metadata file each time).
    dists = {id(p): f"{d.project_name} {d.version}" for p, d in pm.list_plugin_distinfo()}
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


# -- what a game offers beyond its Match: read from its registration --------------------------------
def legacy_answer(hook: str, **kwargs: Any) -> Any:
    """The first answer that is not None of a plugin's deprecated broadcast hook (``kothkit_picture``,
    ``kothkit_human``), in pluggy's order (the last registered plugin first); None if none answers.
    pluggy warns when such a plugin is registered (the hook's ``warn_on_impl``)."""
    return getattr(plugin_manager().hook, hook)(**kwargs)


def _resolve(game: str, fmt: str, exporter: Exporter | str) -> Exporter:
    """An exporter given by its ``"module:function"`` name, imported."""
    if not isinstance(exporter, str):
        return exporter
    module, _, name = exporter.partition(":")
    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError) as e:
        raise PluginError(f"game {game!r}: exporter {fmt!r} names {exporter!r}, which cannot be imported: {e}") from e
    if not callable(found):
        raise PluginError(f"game {game!r}: exporter {fmt!r} names {exporter!r}, which is not a function")
    result: Exporter = found
    return result


def exporters_of(info: GameInfo) -> dict[str, Exporter]:
    """``info``'s export formats: those its :attr:`GameInfo.exporters` name, then what plugins'
    deprecated ``kothkit_exporters`` hooks give for it.  PluginError naming the plugin or name
    that fails."""
    found = {str(k): _resolve(info.name, str(k), v) for k, v in info.exporters.items()}
    for impl in plugin_manager().hook.kothkit_exporters.get_hookimpls():
        try:
            extra = impl.function(*[{"game": info}[a] for a in impl.argnames])
        except Exception as e:  # noqa: BLE001 - a plugin's error, named
            raise PluginError(f"{info.name}: the kothkit_exporters hook of {impl.plugin_name} raised "
                              f"{type(e).__name__}: {e}") from e
        if extra is not None and not isinstance(extra, dict):
            raise PluginError(f"{info.name}: the kothkit_exporters hook of {impl.plugin_name} returned "
                              f"{extra!r:.80}, not a dict of exporters")
        found.update({str(k): v for k, v in (extra or {}).items() if callable(v)})
    return found


def scenarios_of(info: GameInfo) -> list[Scenario]:
    """The scenarios ``kothkit check`` plays for ``info``: its :attr:`GameInfo.scenarios`, then what
    plugins' deprecated ``kothkit_scenarios`` hooks give for it."""
    from kothkit.scenarios import Scenario  # only kothkit check needs it: other commands start without

    found = [s for s in info.scenarios if isinstance(s, Scenario)]
    for result in plugin_manager().hook.kothkit_scenarios(game=info):
        if isinstance(result, Scenario):
            found.append(result)
        elif result:
            found.extend(s for s in result if isinstance(s, Scenario))
    return found


def get_game(name: str, pm: pluggy.PluginManager | None = None) -> GameInfo:
    # Workers look a game up for every task: the default set is computed once per process.
    games = installed_games(pm) if pm is not None else _default_games()
    if name not in games:
        known = ", ".join(games) or "none"
        raise PluginError(f"no game named {name!r} is installed (installed: {known})")
    return games[name].info


#: The modules beside a game's match module that decide its outcomes unless it names its own
#: (:attr:`GameInfo.outcome_modules`).
OUTCOME_MODULES = ("rules", "codec", "match")
#: The match's methods for people, which the core never calls to play a game: what they import
#: when called (a game's ``views.py``) is not read as outcome code.
FOR_PEOPLE = frozenset({"picture", "human"})


def _spec(name: str) -> Any:
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None


def _imported(module: str) -> set[str]:
    """The modules of ``module``'s own top-level package that its source imports (by name: it is
    read, not run), less those imported inside a ``picture`` or ``human`` function (FOR_PEOPLE)."""
    import ast  # here, not at the top: every command imports this module, few hash a game's code

    spec = _spec(module)
    if spec is None or not (spec.origin or "").endswith(".py"):
        return set()
    try:
        tree = ast.parse(Path(spec.origin).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return set()
    top = module.partition(".")[0]
    package = module if spec.submodule_search_locations else module.rpartition(".")[0]
    found = set()
    nodes: list[ast.AST] = [tree]
    while nodes:
        node = nodes.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in FOR_PEOPLE:
            continue  # a picture's or a person's module, imported when called (FOR_PEOPLE)
        nodes.extend(ast.iter_child_nodes(node))
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            try:
                base = importlib.util.resolve_name(base, package or None) if node.level else base
            except (ImportError, ValueError):
                continue
            names = [base] + [f"{base}.{a.name}" for a in node.names if a.name != "*"]
        for name in names:
            if name.partition(".")[0] == top and name != top and _spec(name) is not None:
                found.add(name)
    return found


def outcome_modules(info: GameInfo) -> list[str]:
    """The modules whose code decides ``info``'s outcomes: its match's module, with the modules the
    game names (:attr:`GameInfo.outcome_modules`), or else the match's package's ``rules``,
    ``codec`` and ``match`` modules that exist and every module of the package that these
    import (directly or through one another: a rule's helpers count, a picture's module does not
    unless the rules import it)."""
    home = getattr(info.match, "__module__", None) or ""
    package = home.rpartition(".")[0]
    found = {home} - {""}
    if info.outcome_modules:
        for name in info.outcome_modules:
            try:
                found.add(importlib.util.resolve_name(name, package or None))
            except (ImportError, ValueError):
                raise PluginError(f"game {info.name!r}: outcome module {name!r} is not a module name") from None
    else:
        found |= {f"{package}.{n}" for n in OUTCOME_MODULES if package and _spec(f"{package}.{n}") is not None}
        todo = sorted(found)
        while todo:
            for m in _imported(todo.pop()) - found:
                found.add(m)
                todo.append(m)
    return sorted(m for m in found if m != "kothkit" and not m.startswith("kothkit."))  # the core is not a game's


def _code_files(module: str, skip: Path | None) -> dict[str, Path]:
    """The .py files of ``module`` (all of a package's, less ``skip``, the game's bundled bots: they
    have content hashes of their own, and caches), by a name that is the same on every machine."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return {}
    roots = [Path(d) for d in spec.submodule_search_locations or ()]
    if not roots:
        return {module: Path(spec.origin)} if spec.origin and spec.origin.endswith(".py") else {}
    files = {}
    for root in roots:
        for folder, dirs, names in os.walk(root):
            here = Path(folder)
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith(".")
                             and (skip is None or (here / d).resolve() != skip))
            for n in names:
                if n.endswith(".py"):
                    files[f"{module}/{(here / n).relative_to(root).as_posix()}"] = here / n
    return files


def game_code(info: GameInfo) -> dict[str, str | None]:
    """What of a game's code decides its outcomes, for its games' ids: the plugin's distribution
    and version, and a hash of its outcome modules (:func:`outcome_modules`) and of the source of
    its ``bot_args`` (what a program bot is told).  So an edited rule in a working tree (an
    editable install), like a new version, changes every id of the game and its games are played
    again; an edited picture, exporter or README changes none.
    """
    try:
        found = _default_games().get(info.name)
    except PluginError:
        found = None
    ours = found if found is not None and found.info is info else None
    skip = Path(info.bots).resolve() if info.bots else None
    files: dict[str, Path] = {}
    for m in outcome_modules(info):
        files.update(_code_files(m, skip))
    h = hashlib.sha256()
    for name, f in sorted(files.items()):
        h.update(name.encode() + b"\0")
        try:
            h.update(f.read_bytes())
        except OSError:
            pass
        h.update(b"\0")
    if info.bot_args is not None:
        import inspect

        try:
            source = inspect.getsource(info.bot_args)
        except (OSError, TypeError):
            source = getattr(info.bot_args, "__qualname__", type(info.bot_args).__qualname__)
        h.update(b"bot_args\0" + source.encode() + b"\0")
    return {"plugin": ours.dist if ours else None, "code": h.hexdigest()}
