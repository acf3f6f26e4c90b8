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
import stat
import sys
import tomllib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from kothkit.botspec import BotError as BotError
from kothkit.botspec import BotKind as BotKind
from kothkit.botspec import BotSpec as BotSpec
from kothkit.botspec import printable as printable
from kothkit.limits import env_pairs

if TYPE_CHECKING:
    from kothkit.hookspecs import BotLoader

#: Files and folders never part of a bot's content hash (build output, state, caches).
HASH_IGNORE = (".kothkit-build", ".kothkit-private", "state", "__pycache__", "*.pyc", "*.log", ".git", "node_modules")
#: What counts as source in a bot with a build step when bot.toml gives no ``sources``
#: (so the build's own outputs never change the hash).
BUILD_SOURCE_GLOBS = ("bot.toml", "meta", "Makefile", "*.c", "*.h", "*.cc", "*.cpp", "*.cxx", "*.hpp", "*.rs",
                      "*.go", "*.java", "*.hs", "*.py", "*.js", "*.ts", "*.sh", "*.toml", "*.txt", "*.json")
BOT_TOML_KEYS = {"name", "command", "stderr", "submitted", "build", "sources", "stateful", "entry", "language", "env",
                 "author", "url"}
#: The languages guessed from a bot's command or build (its interpreter or compiler, else its
#: program's file name's ending), for a leaderboard's "language" column.
LANGUAGES = {"python": "Python", "python3": "Python", "pypy3": "Python", "node": "JavaScript", "nodejs": "JavaScript",
             "deno": "JavaScript", "java": "Java", "ruby": "Ruby", "perl": "Perl", "php": "PHP", "lua": "Lua",
             "bash": "Bash", "sh": "sh", "Rscript": "R", "julia": "Julia", "gcc": "C", "cc": "C", "clang": "C",
             "g++": "C++", "c++": "C++", "clang++": "C++", "rustc": "Rust", "cargo": "Rust", "go": "Go",
             "ghc": "Haskell", "stack": "Haskell", "cabal": "Haskell", "runghc": "Haskell", "javac": "Java",
             "kotlinc": "Kotlin", "scala": "Scala", "dotnet": "C#", "mcs": "C#", "fpc": "Pascal",
             "gfortran": "Fortran", "nim": "Nim", "zig": "Zig", "ocaml": "OCaml", "ocamlfind": "OCaml"}
EXTENSIONS = {".py": "Python", ".js": "JavaScript", ".mjs": "JavaScript", ".ts": "TypeScript", ".rb": "Ruby",
              ".pl": "Perl", ".php": "PHP", ".lua": "Lua", ".sh": "Bash", ".hs": "Haskell", ".c": "C",
              ".cpp": "C++", ".cc": "C++", ".cxx": "C++", ".rs": "Rust", ".go": "Go", ".java": "Java",
              ".jl": "Julia", ".R": "R", ".kt": "Kotlin", ".cs": "C#", ".nim": "Nim", ".ml": "OCaml"}

# What the judge reads of a bot's folder, before any game, is bounded: bots are code from
# strangers, and a stateful bot writes its own folder.  Over a cap, the bot sits out.
#: Files and folders walked in a bot's folder (ignored folders such as state/ are not walked).
MAX_FILES = 10_000
#: Bytes hashed in a bot's folder (its sources; build output and state/ are not hashed).
MAX_BYTES = 512 << 20
#: Folders nested deeper than this in a bot's folder.
MAX_DEPTH = 64
#: Size of a bot.toml or meta file.
MAX_DESCRIPTION = 64 * 1024
#: A meta line, and a command's total length (argv is passed to exec).
MAX_LINE = 4096
MAX_COMMAND = 64 * 1024
#: A bot's name: 1-64 letters, digits and ``_ . + -`` (it is printed, stored and shown on web pages).
NAME = re.compile(r"[\w.+-]{1,64}")


def shown(text: str, n: int = 60) -> str:
    """A stranger's string for a message: escaped, quoted, and cut to ``n`` characters."""
    cut = text if len(text) <= n else text[:n]
    more = "" if len(text) <= n else f"... ({len(text)} characters)"
    return repr(cut) + more


def _ignored(rel: str) -> bool:
    parts = rel.split("/")
    return any(fnmatch.fnmatch(p, pat) for p in parts for pat in HASH_IGNORE)


def _kind(mode: int) -> str:
    return ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _check_link(path: str, root: str) -> None:
    """A symlink in a bot's folder may only lead to a file or folder inside it (never followed
    when hashing; the bot itself follows it in its jail, where the outside is not there)."""
    target = os.path.realpath(path)
    if not _inside(target, root):
        raise BotError(path, f"symlink leads out of the bot's folder (to {shown(target, 200)}); "
                             "a bot folder holds only its own files")
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # dangling or a loop: nothing to read
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise BotError(path, f"symlink leads to {_kind(mode)}; a bot folder holds only regular files")


def open_regular(path: Path, root: Path | None = None) -> int:
    """A read-only fd of ``path``, a regular file (a symlink to one only inside ``root``):
    never a FIFO (opened non-blocking, checked after opening), a device or a socket."""
    st = os.lstat(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
    if stat.S_ISLNK(st.st_mode):
        if root is None:
            raise BotError(path, "is a symlink")
        _check_link(str(path), os.path.realpath(root))
    else:
        flags |= os.O_NOFOLLOW
        if not stat.S_ISREG(st.st_mode):
            raise BotError(path, f"is {_kind(st.st_mode)}, not a regular file")
    fd = os.open(path, flags)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):  # swapped between lstat and open
        os.close(fd)
        raise BotError(path, f"is {_kind(mode)}, not a regular file")
    return fd


def read_small(path: Path, root: Path | None = None, cap: int = MAX_DESCRIPTION) -> str:
    """The text of a small regular file (bot.toml, meta, a build stamp); longer than ``cap``: BotError."""
    fd = open_regular(path, root)
    try:
        data = os.read(fd, cap + 1)
    finally:
        os.close(fd)
    if len(data) > cap:
        raise BotError(path, f"is larger than {cap // 1024} KiB")
    return data.decode("utf-8", errors="replace")


def _hash_file(update: Callable[[bytes], object], path: str, root: Path | None, budget: int) -> int:
    """Feed ``path`` to a hash's ``update`` in chunks (never whole); the bytes read, at most ``budget``."""
    fd = open_regular(Path(path), root)
    n = 0
    try:
        while chunk := os.read(fd, 1 << 20):
            n += len(chunk)
            if n > budget:
                raise BotError(path, f"the bot's sources are larger than {MAX_BYTES >> 20} MiB")
            update(chunk)
    finally:
        os.close(fd)
    return n


def _source_files(folder: Path, sources: Iterable[str] | None) -> list[tuple[str, str, bool]]:
    """(relative path, path, is a symlink) of the files that make the hash, walked without
    recursion (a folder nested thousands deep is refused, not a RecursionError)."""
    root = os.path.realpath(folder)
    files: list[tuple[str, str, bool]] = []
    seen = 0
    stack = [(str(folder), "", 0)]
    while stack:
        d, rel, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise BotError(d, f"folders nested more than {MAX_DEPTH} deep in a bot's folder")
        try:
            it = os.scandir(d)
        except OSError:
            continue
        with it:
            for e in it:
                seen += 1
                if seen > MAX_FILES:
                    raise BotError(folder, f"holds more than {MAX_FILES} files and folders")
                r = rel + e.name
                if _ignored(e.name):
                    continue
                if e.is_symlink():
                    _check_link(e.path, root)
                    kind = "link"
                elif e.is_dir(follow_symlinks=False):
                    stack.append((e.path, r + "/", depth + 1))
                    continue
                else:
                    mode = e.stat(follow_symlinks=False).st_mode
                    if not stat.S_ISREG(mode):
                        raise BotError(e.path, f"is {_kind(mode)}; a bot folder holds only regular files")
                    kind = "file"
                if sources is not None and not any(fnmatch.fnmatch(r, g) for g in sources):
                    continue
                files.append((r, e.path, kind == "link"))
    return files


def stats_below(folder: Path, most: int, skip: Iterable[str] = ()) -> Iterator[os.stat_result]:
    """The ``lstat`` of each entry below ``folder``, depth first, ``most`` of them at the most: links
    are never followed, an entry that cannot be read is passed over, and one whose name matches a
    pattern of ``skip`` is left out (a folder's contents with it)."""
    return (st for _path, st in entries_below(folder, most, skip))


def entries_below(folder: Path, most: int, skip: Iterable[str] = ()) -> Iterator[tuple[str, os.stat_result]]:
    """(path, ``lstat``) of each entry below ``folder``, as :func:`stats_below` gives their stats
    (walked without recursion: a tree nested thousands deep is no RecursionError)."""
    patterns, stack, given = tuple(skip), [str(folder)], 0
    while stack:
        try:
            it = os.scandir(stack.pop())
        except OSError:
            continue
        with it:
            for e in it:
                if patterns and any(fnmatch.fnmatch(e.name, p) for p in patterns):
                    continue
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISDIR(st.st_mode):
                    stack.append(e.path)
                yield e.path, st
                given += 1
                if given >= most:
                    return


def folder_bytes(folder: Path, limit: int) -> int:
    """Disk space the files of ``folder`` take (all of them, state/ too), counted up to just past
    ``limit`` bytes; a folder with more than ten times MAX_FILES entries counts as over it."""
    total, most = 0, 10 * MAX_FILES
    for n, st in enumerate(stats_below(folder, most + 1), 1):
        if n > most:
            return limit + 1
        total += st.st_blocks * 512
        if total > limit:
            break
    return total


def content_hash(folder: Path, sources: Iterable[str] | None = None) -> str:
    """sha256 over the relative paths and bytes of a bot's source files, in sorted order.

    Streamed: a bot's folder is never read whole.  Only regular files are read; a symlink
    counts by where it points (inside the folder, else the bot is refused), never followed."""
    h = hashlib.sha256()
    if not folder.is_dir():
        _hash_file(h.update, str(folder), None, MAX_BYTES)
        return h.hexdigest()
    budget = MAX_BYTES
    for rel, path, link in sorted(_source_files(folder, sources)):
        h.update(rel.encode("utf-8", "surrogateescape") + b"\0")
        if link:
            h.update(b"symlink:" + os.fsencode(os.readlink(path)))
        else:
            try:
                budget -= _hash_file(h.update, path, folder, budget)
            except OSError:
                pass
        h.update(b"\0")
    return h.hexdigest()


def guess_language(*argvs: Iterable[str] | None) -> str | None:
    """A bot's language from its command and build: the first interpreter or compiler known
    (:data:`LANGUAGES`), else the first file name with a known ending; None if neither."""
    words = [w for argv in argvs for w in (argv or ())]
    for w in words:
        found = LANGUAGES.get(os.path.basename(w))
        if found is None and re.fullmatch(r"python3(\.\d+)?", os.path.basename(w)):
            found = "Python"
        if found:
            return found
    for w in words:
        found = EXTENSIONS.get(os.path.splitext(w)[1])
        if found:
            return found
    return None


def _text(data: dict[str, Any], key: str, path: Path, text: str, cap: int = 200) -> str | None:
    """A short text of bot.toml (``author``, ``language``): printable, at most ``cap`` characters."""
    if key not in data:
        return None
    value = data[key]
    if not isinstance(value, str) or not value.strip():
        raise BotError(path, f"{key} must be a non-empty string, got {shown(repr(value))}", _toml_line(text, key))
    return printable(value.strip())[:cap]


def _url(data: dict[str, Any], path: Path, text: str) -> str | None:
    """bot.toml's ``url``: an http(s) address (it becomes a link on leaderboards)."""
    url = _text(data, "url", path, text, cap=2000)
    if url is not None and (not re.fullmatch(r"https?://[^\s<>\"'`]+", url)):
        raise BotError(path, f"url must be an http:// or https:// address, got {shown(url)}", _toml_line(text, "url"))
    return url


def _toml_line(text: str, key: str) -> int | None:
    m = re.search(rf"^\s*{re.escape(key)}\s*=", text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _command_exists(cmd: str, folder: Path, build: bool) -> bool:
    if "/" in cmd:
        # A relative path may be the output of the build step, which has not run yet.
        return build or (folder / cmd).exists() or Path(cmd).exists()
    return shutil.which(cmd) is not None


def _check_argv(parts: Iterable[str], where: Path, line: int | None, key: str) -> None:
    """An argv that exec can take: no NUL, not too long (checked here, not found at the first game)."""
    if any("\0" in p for p in parts):
        raise BotError(where, f"{key} contains a NUL character", line)
    if sum(len(p.encode("utf-8", "surrogateescape")) + 1 for p in parts) > MAX_COMMAND:
        raise BotError(where, f"{key} is longer than {MAX_COMMAND // 1024} KiB", line)


def _split_command(value: object, where: Path, line: int | None, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            parts = shlex.split(value)
        except ValueError as e:
            raise BotError(where, f"{key}: {e}", line) from None
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        parts = list(value)
    else:
        raise BotError(where, f"{key} must be a list of strings or a string, got {shown(repr(value))}", line)
    if not parts:
        raise BotError(where, f"{key} is empty", line)
    _check_argv(parts, where, line, key)
    return tuple(parts)


def check_name(name: object, where: Path, line: int | None = None, what: str = "name") -> str:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise BotError(where, f"{what} must be 1-64 letters, digits, '_', '.', '+' or '-', "
                              f"got {shown(name) if isinstance(name, str) else shown(repr(name))}", line)
    return name


def _resolve_python(parts: tuple[str, ...]) -> tuple[str, ...]:
    # "python"/"python3" means the interpreter running kothkit: it always exists and is the one tested.
    if parts and parts[0] in ("python", "python3"):
        return (sys.executable, *parts[1:])
    return parts


def load_bot_toml(path: Path) -> BotSpec:
    folder = path.parent
    text = read_small(path, folder)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        raise BotError(path, f"invalid TOML: {e}", int(m.group(1)) if m else None) from None
    unknown = sorted(set(data) - BOT_TOML_KEYS)
    if unknown:
        raise BotError(path, f"unknown key {shown(unknown[0])} (known: {', '.join(sorted(BOT_TOML_KEYS))})",
                       _toml_line(text, unknown[0]))
    if "name" in data:
        name = check_name(data["name"], path, _toml_line(text, "name"))
    else:
        name = check_name(folder.name, path, None, "the folder's name (the bot's name when bot.toml gives none)")
    build = None
    if "build" in data:
        build = _resolve_python(_split_command(data["build"], path, _toml_line(text, "build"), "build"))
    entry = data.get("entry")
    sources = data.get("sources")
    if sources is not None and not (isinstance(sources, list) and all(isinstance(s, str) for s in sources)):
        raise BotError(path, "sources must be a list of glob strings", _toml_line(text, "sources"))
    submitted = data.get("submitted")
    if submitted is not None:
        submitted = printable(str(submitted))[:64]
    for key in ("stderr", "stateful"):
        if key in data and not isinstance(data[key], bool):
            raise BotError(path, f"{key} must be true or false, got {shown(repr(data[key]))}", _toml_line(text, key))
    env: tuple[tuple[str, str], ...] = ()
    if "env" in data:
        try:
            env = env_pairs(data["env"], "env")
        except ValueError as e:
            raise BotError(path, shown(str(e), 200), _toml_line(text, "env")) from None
    common = dict(
        env=env,
        name=name,
        stderr=data.get("stderr", False),
        submitted=submitted,
        stateful=data.get("stateful", False),
        origin=path,
        author=_text(data, "author", path, text),
        url=_url(data, path, text),
    )
    language = _text(data, "language", path, text, cap=60)
    if entry is not None:
        if "command" in data:
            raise BotError(path, "give either command (a program) or entry (a Python function), not both",
                           _toml_line(text, "entry"))
        file, func = _parse_entry(str(entry), path, _toml_line(text, "entry"), folder)
        return BotSpec(path=file, kind=BotKind.FUNCTION, entry=f"{file}:{func}", hash=content_hash(file),
                       language=language or "Python", **common)
    if "command" not in data:
        raise BotError(path, "missing key 'command' (a list such as [\"python3\", \"bot.py\"])")
    command = _resolve_python(_split_command(data["command"], path, _toml_line(text, "command"), "command"))
    if not _command_exists(command[0], folder, build is not None):
        raise BotError(path, f"command not found: {shown(command[0])}", _toml_line(text, "command"))
    return BotSpec(
        path=folder,
        command=command,
        build=build,
        sources=tuple(sources) if sources else None,
        hash=content_hash(folder, sources or (BUILD_SOURCE_GLOBS if build else None)),
        language=language or guess_language(build, command),
        **common,
    )


def load_meta(path: Path) -> BotSpec:
    """The Swap2 judge's legacy format: name, command, arguments, stderr flag (0/1), one per line."""
    folder = path.parent
    lines = read_small(path, folder).splitlines()
    labels = ("name", "command", "arguments", "stderr flag (0 or 1)")
    if len(lines) < 4:
        raise BotError(path, f"missing line {len(lines) + 1}: the {labels[len(lines)]} (meta has 4 lines: name, "
                             f"command, arguments, stderr flag)", len(lines) + 1)
    for i, l in enumerate(lines[:4]):
        if len(l) > MAX_LINE:
            raise BotError(path, f"line {i + 1} (the {labels[i]}) is longer than {MAX_LINE} characters", i + 1)
    name, cmd, args, flag = (l.strip() for l in lines[:4])
    check_name(name, path, 1, "line 1: the name")
    if not cmd:
        raise BotError(path, "line 2: the command is empty", 2)
    if flag not in ("0", "1"):
        raise BotError(path, f"line 4: the stderr flag must be 0 or 1, got {shown(flag)}", 4)
    try:
        argv = shlex.split(cmd) + shlex.split(args)
    except ValueError as e:
        raise BotError(path, f"bad quoting: {e}", 3) from None
    if not argv:
        raise BotError(path, "line 2: the command is empty", 2)
    _check_argv(argv, path, 2, "the command")
    argv = list(_resolve_python(tuple(argv)))
    if not _command_exists(argv[0], folder, False):
        raise BotError(path, f"line 2: command not found: {shown(argv[0])}", 2)
    # The legacy judge lets bots keep files in their folder between games.
    return BotSpec(name=name, path=folder, command=tuple(argv), stderr=flag == "1", stateful=True,
                   hash=content_hash(folder), origin=path, language=guess_language(shlex.split(cmd), shlex.split(args)))


def _parse_entry(ref: str, where: Path, line: int | None, base: Path) -> tuple[Path, str]:
    file, sep, func = ref.rpartition(":")
    if not sep or not file.endswith(".py") or not func.isidentifier():
        raise BotError(where, f"a function bot is 'path/to/file.py:function', got {shown(ref)}", line)
    p = (base / file).resolve()
    if where.name == "bot.toml" and not _inside(str(p), os.path.realpath(base)):
        raise BotError(where, f"entry leads out of the bot's folder: {shown(str(p), 200)}", line)
    if not p.is_file():
        raise BotError(where, f"no such file: {p}", line)
    return p, func


def load_function_ref(ref: str) -> BotSpec:
    file, func = _parse_entry(ref, Path(ref), None, Path.cwd())
    return BotSpec(name=func, path=file, kind=BotKind.FUNCTION, entry=f"{file}:{func}", hash=content_hash(file),
                   origin=file, language="Python")


def entry_of(b: BotSpec) -> str:
    """What :func:`load_bots` takes to load ``b`` again: its folder, or its ``file.py:function``."""
    if b.origin is not None and b.origin.name in ("bot.toml", "meta"):
        return str(b.origin.parent)
    if b.kind == BotKind.FUNCTION and b.entry:
        return b.entry
    return str(b.origin or b.path)


def journal_entry(b: BotSpec, journal: Path) -> str:
    """Where ``b`` was loaded from, as a journal's run records it for ``kothkit verify``: its
    :func:`entry_of`, relative to the journal's folder when inside it (so that a challenge folder
    can be moved or published whole), else absolute."""
    entry = entry_of(b)
    path, sep, func = entry.rpartition(":") if b.kind == BotKind.FUNCTION and ".py:" in entry else (entry, "", "")
    full = Path(path).resolve()
    try:
        path = full.relative_to(journal.resolve().parent).as_posix()
    except ValueError:
        path = str(full)
    return f"{path}{sep}{func}"


def is_bot_folder(p: Path) -> bool:
    # lexists: a bot.toml that is a symlink to a device is a bot refused by name, not no bot
    return os.path.lexists(p / "bot.toml") or os.path.lexists(p / "meta")


def load_folder(p: Path) -> BotSpec:
    if os.path.lexists(p / "bot.toml"):
        return load_bot_toml(p / "bot.toml")
    if os.path.lexists(p / "meta"):
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


def load_bots(entries: Iterable[str | Path], loaders: Iterable[BotLoader] | None = None) -> Loaded:
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
            first = seen[b.name]
            errors.append(BotError(b.origin or b.path, f"bot name {b.name!r} is already taken by the bot in "
                                                       f"{printable(str(first.path))}; this one, in "
                                                       f"{printable(str(b.path))}, sits out"))
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
        return (b.path.parent if b.kind == BotKind.FUNCTION else b.path).resolve()

    homes = [home(b) for b in bots]
    out = []
    for i, b in enumerate(bots):
        mine = homes[i]
        shared = any(j != i and (h == mine or mine in h.parents or h in mine.parents) for j, h in enumerate(homes))
        if b.kind == BotKind.FUNCTION and shared:
            safe = re.sub(r"[^A-Za-z0-9_.-]", "_", b.name).lstrip(".")[:40]
            tag = hashlib.sha256(b.name.encode()).hexdigest()[:8]
            b = attrs.evolve(b, workdir=mine / PRIVATE / f"{safe}-{tag}")
        out.append(b)
    return out
