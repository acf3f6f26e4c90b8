"""Bot specifications and the core's bot loaders (bot.toml, legacy ``meta``, ``file.py:function``).

A bot is a folder (or, for games that take Python function bots, a
``path/to/file.py:function`` reference).  Loading never raises past the
caller: a broken bot becomes a :class:`BotError` naming the file and line,
and that bot sits out of the tournament.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import shlex
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path

import attrs

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

#: Files and folders never part of a bot's content hash (build output, state, caches).
HASH_IGNORE = (".kothkit-build", ".kothkit-private", "state", "__pycache__", "*.pyc", "*.log", ".git", "node_modules")
#: What counts as source in a bot with a build step when bot.toml gives no ``sources``
#: (so the build's own outputs never change the hash).
BUILD_SOURCE_GLOBS = ("bot.toml", "meta", "Makefile", "*.c", "*.h", "*.cc", "*.cpp", "*.cxx", "*.hpp", "*.rs",
                      "*.go", "*.java", "*.hs", "*.py", "*.js", "*.ts", "*.sh", "*.toml", "*.txt", "*.json")
BOT_TOML_KEYS = {"name", "command", "stderr", "submitted", "build", "sources", "stateful", "entry", "language"}


class BotError(Exception):
    """A bot that cannot be loaded; ``str()`` names the file (and line) at fault."""

    def __init__(self, where: str | Path, message: str, line: int | None = None):
        self.where = str(where)
        self.line = line
        loc = f"{where}:{line}" if line else str(where)
        super().__init__(f"{loc}: {message}")


@attrs.frozen
class BotSpec:
    """A loaded bot: everything needed to run it, and nothing about any game."""

    name: str
    #: The bot's folder (its working directory), or the .py file of a function bot.
    path: Path
    #: "process" (a program over stdin/stdout) or "function" (a Python callable).
    kind: str = "process"
    #: argv for a process bot; relative to ``path`` as working directory.
    command: tuple[str, ...] = ()
    #: "file.py:function" for a function bot.
    entry: str | None = None
    #: Show the bot's stderr live (the legacy meta flag); it is always kept in the game's log.
    stderr: bool = False
    #: ISO date of first submission, for the "submitted" tie-breaker.
    submitted: str | None = None
    #: Build command run once before a tournament, cached by the content hash.
    build: tuple[str, ...] | None = None
    #: Source globs whose content makes the bot's hash (default: every file but HASH_IGNORE).
    sources: tuple[str, ...] | None = None
    #: Keeps files between games: never plays two games at once, sees games in schedule order.
    stateful: bool = False
    #: Content hash (sha256 hex) of the bot's sources.
    hash: str = ""
    #: The file the bot was described by (bot.toml, meta or the .py file).
    origin: Path | None = None
    #: An isolated function bot's folder, when not its file's folder: that one holds another
    #: bot's files too (or the same file serves two bots), so neither may write it (see
    #: :func:`private_folders`).
    workdir: Path | None = None


def _ignored(rel: str) -> bool:
    parts = rel.split("/")
    return any(fnmatch.fnmatch(p, pat) for p in parts for pat in HASH_IGNORE)


def content_hash(folder: Path, sources: Iterable[str] | None = None) -> str:
    """sha256 over the relative paths and bytes of a bot's source files, in sorted order."""
    h = hashlib.sha256()
    if folder.is_file():
        h.update(folder.read_bytes())
        return h.hexdigest()
    files = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not _ignored(d))
        for n in names:
            p = Path(root, n)
            rel = p.relative_to(folder).as_posix()
            if _ignored(rel):
                continue
            if sources is not None and not any(fnmatch.fnmatch(rel, g) for g in sources):
                continue
            files.append((rel, p))
    for rel, p in sorted(files):
        h.update(rel.encode() + b"\0")
        try:
            h.update(p.read_bytes())
        except OSError:
            pass
        h.update(b"\0")
    return h.hexdigest()


def _toml_line(text: str, key: str) -> int | None:
    m = re.search(rf"^\s*{re.escape(key)}\s*=", text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _command_exists(cmd: str, folder: Path, build: bool) -> bool:
    if "/" in cmd:
        # A relative path may be the output of the build step, which has not run yet.
        return build or (folder / cmd).exists() or Path(cmd).exists()
    return shutil.which(cmd) is not None


def _split_command(value, where: Path, line: int | None, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            parts = shlex.split(value)
        except ValueError as e:
            raise BotError(where, f"{key}: {e}", line) from None
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        parts = list(value)
    else:
        raise BotError(where, f"{key} must be a list of strings or a string, got {value!r}", line)
    if not parts:
        raise BotError(where, f"{key} is empty", line)
    return tuple(parts)


def _resolve_python(parts: tuple[str, ...]) -> tuple[str, ...]:
    # "python"/"python3" means the interpreter running kothkit: it always exists and is the one tested.
    if parts and parts[0] in ("python", "python3"):
        return (sys.executable, *parts[1:])
    return parts


def load_bot_toml(path: Path) -> BotSpec:
    folder = path.parent
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        raise BotError(path, f"invalid TOML: {e}", int(m.group(1)) if m else None) from None
    unknown = sorted(set(data) - BOT_TOML_KEYS)
    if unknown:
        raise BotError(path, f"unknown key {unknown[0]!r} (known: {', '.join(sorted(BOT_TOML_KEYS))})", _toml_line(text, unknown[0]))
    name = data.get("name", folder.name)
    if not isinstance(name, str) or not name.strip() or any(c.isspace() for c in name):
        raise BotError(path, f"name must be a non-empty string without spaces, got {name!r}", _toml_line(text, "name"))
    build = None
    if "build" in data:
        build = _split_command(data["build"], path, _toml_line(text, "build"), "build")
    entry = data.get("entry")
    sources = data.get("sources")
    if sources is not None and not (isinstance(sources, list) and all(isinstance(s, str) for s in sources)):
        raise BotError(path, "sources must be a list of glob strings", _toml_line(text, "sources"))
    submitted = data.get("submitted")
    if submitted is not None:
        submitted = str(submitted)
    for key in ("stderr", "stateful"):
        if key in data and not isinstance(data[key], bool):
            raise BotError(path, f"{key} must be true or false, got {data[key]!r}", _toml_line(text, key))
    common = dict(
        name=name,
        stderr=data.get("stderr", False),
        submitted=submitted,
        stateful=data.get("stateful", False),
        origin=path,
    )
    if entry is not None:
        if "command" in data:
            raise BotError(path, "give either command (a program) or entry (a Python function), not both", _toml_line(text, "entry"))
        file, func = _parse_entry(str(entry), path, _toml_line(text, "entry"), folder)
        return BotSpec(path=file, kind="function", entry=f"{file}:{func}", hash=content_hash(file), **common)
    if "command" not in data:
        raise BotError(path, "missing key 'command' (a list such as [\"python3\", \"bot.py\"])")
    command = _resolve_python(_split_command(data["command"], path, _toml_line(text, "command"), "command"))
    if not _command_exists(command[0], folder, build is not None):
        raise BotError(path, f"command not found: {command[0]!r}", _toml_line(text, "command"))
    return BotSpec(
        path=folder,
        command=command,
        build=build,
        sources=tuple(sources) if sources else None,
        hash=content_hash(folder, sources or (BUILD_SOURCE_GLOBS if build else None)),
        **common,
    )


def load_meta(path: Path) -> BotSpec:
    """The Swap2 judge's legacy format: name, command, arguments, stderr flag (0/1), one per line."""
    folder = path.parent
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    labels = ("name", "command", "arguments", "stderr flag (0 or 1)")
    if len(lines) < 4:
        raise BotError(path, f"missing line {len(lines) + 1}: the {labels[len(lines)]} (meta has 4 lines: name, command, arguments, stderr flag)", len(lines) + 1)
    name, cmd, args, flag = (l.strip() for l in lines[:4])
    if not name or any(c.isspace() for c in name):
        raise BotError(path, f"line 1: the name must be one word, got {name!r}", 1)
    if not cmd:
        raise BotError(path, "line 2: the command is empty", 2)
    if flag not in ("0", "1"):
        raise BotError(path, f"line 4: the stderr flag must be 0 or 1, got {flag!r}", 4)
    try:
        argv = shlex.split(cmd) + shlex.split(args)
    except ValueError as e:
        raise BotError(path, f"bad quoting: {e}", 3) from None
    argv = list(_resolve_python(tuple(argv)))
    if not _command_exists(argv[0], folder, False):
        raise BotError(path, f"line 2: command not found: {argv[0]!r}", 2)
    # The legacy judge lets bots keep files in their folder between games.
    return BotSpec(name=name, path=folder, command=tuple(argv), stderr=flag == "1", stateful=True,
                   hash=content_hash(folder), origin=path)


def _parse_entry(ref: str, where: Path, line: int | None, base: Path) -> tuple[Path, str]:
    file, sep, func = ref.rpartition(":")
    if not sep or not file.endswith(".py") or not func.isidentifier():
        raise BotError(where, f"a function bot is 'path/to/file.py:function', got {ref!r}", line)
    p = (base / file).resolve()
    if not p.is_file():
        raise BotError(where, f"no such file: {p}", line)
    return p, func


def load_function_ref(ref: str) -> BotSpec:
    file, func = _parse_entry(ref, Path(ref), None, Path.cwd())
    return BotSpec(name=func, path=file, kind="function", entry=f"{file}:{func}", hash=content_hash(file), origin=file)


def is_bot_folder(p: Path) -> bool:
    return (p / "bot.toml").is_file() or (p / "meta").is_file()


def load_folder(p: Path) -> BotSpec:
    if (p / "bot.toml").is_file():
        return load_bot_toml(p / "bot.toml")
    if (p / "meta").is_file():
        return load_meta(p / "meta")
    raise BotError(p, "not a bot folder: no bot.toml and no meta file")


@attrs.frozen
class Loaded:
    bots: tuple[BotSpec, ...]
    errors: tuple[BotError, ...]


def default_loader(entry: Path) -> list[BotSpec] | BotSpec | None:
    """The core loader: a bot folder, a folder of bot folders, or ``file.py:function``."""
    s = str(entry)
    if re.search(r"\.py:[A-Za-z_]\w*$", s):
        return load_function_ref(s)
    if entry.is_dir() and is_bot_folder(entry):
        return load_folder(entry)
    return None


def load_bots(entries: Iterable[str | Path], loaders=None) -> Loaded:
    """Load every bot named by ``entries``; errors are collected, never raised."""
    loaders = list(loaders or [default_loader])
    bots: list[BotSpec] = []
    errors: list[BotError] = []
    for raw in entries:
        entry = Path(raw)
        try:
            for loader in loaders:
                found = loader(entry)
                if found is not None:
                    bots.extend(found if isinstance(found, list) else [found])
                    break
            else:
                if entry.is_dir():
                    subs = sorted(d for d in entry.iterdir() if d.is_dir() and not d.name.startswith((".", "_")))
                    if not subs:
                        raise BotError(entry, "no bot folders inside (a bot folder has a bot.toml or a meta file)")
                    for d in subs:
                        try:
                            bots.append(load_folder(d))
                        except BotError as e:
                            errors.append(e)
                        except OSError as e:
                            errors.append(BotError(d, str(e)))
                else:
                    raise BotError(entry, "no such bot folder (nor a 'file.py:function' reference)")
        except BotError as e:
            errors.append(e)
        except OSError as e:
            errors.append(BotError(entry, str(e)))
    seen: dict[str, BotSpec] = {}
    unique = []
    for b in bots:
        if b.name in seen:
            errors.append(BotError(b.origin or b.path, f"bot name {b.name!r} is already taken by {seen[b.name].origin or seen[b.name].path}; this one sits out"))
            continue
        seen[b.name] = b
        unique.append(b)
    return Loaded(bots=tuple(private_folders(unique)), errors=tuple(errors))


#: Inside a folder that holds several bots' files: one folder per function bot, its own to write.
PRIVATE = ".kothkit-private"


def private_folders(bots: list[BotSpec]) -> list[BotSpec]:
    """``bots``, each function bot whose folder another bot also lives in given a folder of its own.

    An isolated function bot may write its folder (its working directory).  With
    ``--bots d/a.py:a --bots d/b.py:b``, that would let ``a`` rewrite ``b.py``; with
    ``d/x.py:a`` and ``d/x.py:b``, either could rewrite the other's code.  Such a bot works in
    ``d/.kothkit-private/NAME-…`` instead, and ``d`` (its files included) is read-only to it.
    """
    def home(b: BotSpec) -> Path:
        return (b.path.parent if b.kind == "function" else b.path).resolve()

    homes = [home(b) for b in bots]
    out = []
    for i, b in enumerate(bots):
        mine = homes[i]
        shared = any(j != i and (h == mine or mine in h.parents or h in mine.parents) for j, h in enumerate(homes))
        if b.kind == "function" and shared:
            safe = re.sub(r"[^A-Za-z0-9_.-]", "_", b.name).lstrip(".")[:40]
            tag = hashlib.sha256(b.name.encode()).hexdigest()[:8]
            b = attrs.evolve(b, workdir=mine / PRIVATE / f"{safe}-{tag}")
        out.append(b)
    return out
