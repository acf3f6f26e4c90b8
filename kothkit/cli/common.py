"""What the command modules share: the typer app with plain metavars, the consoles, ``fail``, and the
loading of games and bots the way every command takes them."""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from typer.core import TyperGroup

import kothkit
from kothkit.bots.folders import BotError, BotSpec, load_bots, printable
from kothkit.playing import challenge as challenges
from kothkit.plugins import PluginError, get_game, plugin_manager

if TYPE_CHECKING:
    from kothkit.playing.settings import Game


def _plain(param, ctx):
    """Give ``param`` a metavar of plain words where it has none: newer typer releases write
    each option's Python type (``<bool>``, ``<list[str]>``) into the help."""
    if param is None or getattr(param, "metavar", None) is not None:
        return param
    if getattr(param, "param_type_name", "") == "argument":
        # The argument's name already says what it is: no type column beside it.
        param.display_type_rich = lambda ctx: None
        # The usage line as click writes it, TARGET or [GAME] (this typer writes ``{target}``).
        usage = (param.name or "arg").upper() + ("..." if param.nargs != 1 else "")
        usage = usage if param.required else f"[{usage}]"
        param.get_usage_pieces = lambda ctx, usage=usage: [usage]
    elif getattr(param, "is_flag", False):
        param.metavar = ""
    elif param.name in _METAVARS or (param.name or "").endswith("_time"):
        param.metavar = _METAVARS.get(param.name, "S")
    elif hasattr(param, "display_type"):  # typer's own parameter classes, which print <type>
        kind = param.display_type(ctx).strip("<>").removeprefix("list[").removesuffix("]")
        param.metavar = {"int": "N", "float": "X", "str": "TEXT", "path": "PATH"}.get(kind, kind.upper())
    return param


#: Metavars by option name where the type alone says too little (options ending in _time: S).
_METAVARS = {"bots": "BOT", "against": "BOT", "memory_mb": "MB", "disk_mb": "MB", "cluster": "ADDRESS", "cluster_certs": "DIR", "listen": "S", "progress_every": "S"}


class PlainGroup(TyperGroup):
    """The command group: every command's options get plain metavars (see :func:`_plain`)."""

    def get_params(self, ctx):
        _absent_is_false(self.get_help_option(ctx))
        return [_plain(param, ctx) for param in super().get_params(ctx)]

    def get_command(self, ctx, name):
        cmd = super().get_command(ctx, name)
        if cmd is not None and cmd not in _PLAIN:
            for param in cmd.params:
                _plain(param, ctx)
            _plain(_absent_is_false(cmd.get_help_option(ctx)), ctx)
            _PLAIN.add(cmd)
        return cmd


def _absent_is_false(option):
    """``--help`` with the default a flag has when it is not given: False.  typer leaves it None,
    and converts each value that is not a bool with pydantic, which it imports for that alone: a
    command without options (``games``), and any ``--help``, then never import it."""
    if option is not None and option.default is None:
        option.default = False
    return option


#: The commands whose parameters have their plain metavars.
_PLAIN: weakref.WeakSet[Any] = weakref.WeakSet()


T = TypeVar("T")

app = typer.Typer(cls=PlainGroup, help="kothkit: King-of-the-Hill bot tournaments.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)
# emoji=False: ":x:" in a bot's name or a path is text, not an emoji.
out = Console(highlight=False, soft_wrap=True, emoji=False)
err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)  # an error is one line, in a log too


def _show_version(value: bool) -> None:
    if value:
        out.print(f"kothkit {kothkit.__version__}", markup=False)
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", callback=_show_version, is_eager=True,
                                          help="Print kothkit's version and exit.")] = False,
) -> None:
    """kothkit: King-of-the-Hill bot tournaments."""


def print_table(table) -> None:
    """A rich table on stdout.  On a terminal it fits the terminal; where output is not a terminal (a
    log, a pipe, CI) there is no width to fit, and the table is as wide as its content (whole names
    and headings, never cut to "th…")."""
    if out.is_terminal:
        out.print(table)
        return
    need = out.measure(table, options=out.options.update(width=10**5)).maximum
    Console(file=out.file, width=max(need, out.width), highlight=False, emoji=False).print(table)


def fail(message: str) -> NoReturn:
    err.print("[red]error:[/red] ", markup=True, highlight=False, end="")
    err.print(message, markup=False, highlight=False)
    raise typer.Exit(1)


def refuse_seats(info: Any, command: str, why: str = "plays games of two seats only, so far") -> None:
    """Refuse, by name and with exit code 2, a game whose seats are not exactly two for a command that
    cannot play it (yet): such a game is never played with two seats instead."""
    if not info.two_seats:
        err.print("[red]error:[/red] ", markup=True, highlight=False, end="")
        err.print(f"{info.name} seats {info.seats_said()} players a game; `kothkit {command}` {why}",
                  markup=False, highlight=False)
        raise typer.Exit(2)


def settled(resolve: Callable[[], T]) -> T:
    """What ``resolve`` returns; a :class:`~kothkit.playing.settings.SettingsError` it raises is printed
    and ends the command."""
    from kothkit.playing.settings import SettingsError

    try:
        return resolve()
    except SettingsError as e:
        fail(str(e))


def game_info(name: str):
    try:
        return get_game(name)
    except PluginError as e:
        fail(str(e))


#: The help of every command's ``--rules``.
RULES_HELP = ("A rules setting of the game, KEY=VALUE (VALUE as in TOML: 3, true, \"text\", or bare text); "
              "repeatable; over the challenge's [rules].")


def _rule(text: str) -> tuple[str, Any]:
    import tomllib

    key, eq, value = text.partition("=")
    key = key.strip()
    if not eq or not key:
        fail(f"--rules: KEY=VALUE, got {text!r}")
    try:
        return key, tomllib.loads(f"v = {value.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        return key, value.strip()  # bare text


def is_challenge(target: str) -> bool:
    """Whether ``target`` names a challenge (a folder with a kothkit.toml, or the file) rather than a game."""
    return os.sep in target or target.endswith(".toml") or Path(target, challenges.FILE).is_file()


def game_target(target: str, rules: list[str] | None = None) -> Game:
    """The game of ``target`` (a game's name, or a challenge folder or its kothkit.toml) as a run plays
    it (:func:`kothkit.playing.settings.game_of`): its registration, the challenge's [rules] and
    ``rules`` (``--rules KEY=VALUE``) over the game's, each checked by the game (an error names the
    file and line, or the option), the challenge's [limits], and the challenge, or None."""
    from kothkit.playing.settings import SettingsError, game_of

    ch = None
    if is_challenge(target):
        try:
            ch = challenges.load(target)
        except challenges.ChallengeError as e:
            fail(str(e))
    info = game_info(ch.game if ch else target)
    try:
        return game_of(info, ch, dict(_rule(r) for r in rules or ()))
    except SettingsError as e:
        fail(str(e))


def bot_loaders():
    loaders = []
    for group in plugin_manager().hook.kothkit_bot_loaders():
        loaders.extend(group)
    return loaders


def bundled_entries(entries: list[str], info) -> tuple[list[str], list[BotError]]:
    """``entries`` with each name of one of the game's bundled bots replaced by its folder, so that
    ``--bots threat`` works as ``debug --against threat`` does; a path that exists comes first.
    An entry that is neither a path nor a bundled bot's name is an error naming the bundled bots."""
    resolved: list[str] = []
    errors: list[BotError] = []
    bundled: dict[str, Path] | None = None
    for e in entries:
        if Path(e).exists() or os.sep in e or ":" in e or info.bots is None:
            resolved.append(e)
            continue
        if bundled is None:
            loaded = load_bots([info.bots], bot_loaders())
            bundled = {b.name: (b.origin.parent if b.origin else b.path) for b in loaded.bots}
            for b in loaded.bots:
                folder = bundled[b.name]
                bundled.setdefault(folder.name, folder)
        if e in bundled:
            resolved.append(str(bundled[e]))
        else:
            names = ", ".join(sorted(set(bundled))) or "none"
            errors.append(BotError(e, f"no such bot folder, file.py:function, or bundled bot of {info.name} "
                                      f"(bundled: {names})"))
    return resolved, errors


def load_and_build(entries: list[str], info, build_time: float | None = None) -> tuple[list[BotSpec], list[BotError]]:
    """Load bots from ``entries`` (paths, or the names of the game's bundled bots), build those
    with a build step; report what sits out."""
    from kothkit.playing.tournament import build_bots

    entries, unknown = bundled_entries([str(e) for e in entries], info)
    loaded = load_bots(entries, bot_loaders())
    errors = unknown + list(loaded.errors)
    bots = []
    for b in loaded.bots:
        if not info.takes(b):
            errors.append(BotError(b.origin or b.path, f"{info.name} does not take Python function bots"))
        elif b.name in info.reserved_names:
            errors.append(BotError(b.origin or b.path, f"the name {b.name!r} is reserved: {info.name}'s protocol uses it"))
        else:
            bots.append(b)
    built, build_errors = build_bots(bots, on_build=lambda b: err.print(f"building {b.name}: {printable(' '.join(b.build or ()))[:200]}",
                                                                      markup=False, highlight=False),
                                     timeout=build_time)
    errors += build_errors
    for e in errors:
        err.print("[yellow]bot left out:[/yellow] ", markup=True, end="")
        err.print(str(e), markup=False, highlight=False)
    return built, errors


def resolve_bot(info, arg: str, ch=None) -> BotSpec:
    """A bot named on the command line: a bot folder, file.py:function, or the name of one of the
    challenge's bots (``ch``) or of the game's bundled bots."""
    file = arg.rpartition(":")[0] if ":" in arg and arg.rpartition(":")[0].endswith(".py") else arg
    if os.sep in arg or file.endswith(".py") or Path(file).exists():
        if not Path(file).exists():
            fail(f"unknown bot {arg!r}: no such file or folder")
        specs, _ = load_and_build([arg], info)
        if not specs:
            fail(f"cannot load the bot {arg!r} (see above)")
        return specs[0]
    places = [*(str(b) for b in ch.bots if b.exists()), *([str(info.bots)] if info.bots else [])] if ch else (
        [str(info.bots)] if info.bots else [])
    loaded = load_bots(places, bot_loaders()) if places else None
    found = [b for b in loaded.bots if b.name == arg] if loaded else []
    if not found:
        names = ", ".join(sorted({b.name for b in loaded.bots})) if loaded and loaded.bots else "none"
        fail(f"unknown bot {arg!r}: not a bot folder, not file.py:function, and not a bot of "
             f"{ch.path if ch else info.name} (its bots: {names})" if ch else
             f"unknown bot {arg!r}: not a bot folder, not file.py:function, and not a bundled bot of "
             f"{info.name} (bundled: {names})")
    folder = found[0].path if found[0].path.is_dir() else found[0].path.parent
    specs, _ = load_and_build([str(folder)], info)
    if not specs:
        fail(f"cannot load the bot {arg!r} (see above)")
    return specs[0]
