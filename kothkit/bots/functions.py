"""Python function bots: load ``path/file.py:function`` and call it the way a game's prompts say.

A function bot is called as ``f(*payload, state)`` and returns ``(reply,
new_state)``; ``state`` is None at the start of each game and whatever the bot
returned last time after that.  :class:`FunctionBot` runs one such function in
the current process; :mod:`kothkit.bots.funchost` wraps it in a worker process so a
bot cannot see the judge's memory or bring the judge down.

Each bot's file is loaded as a module of its own (a unique module name, so two
bots -- even two copies of one file -- never share globals).  Bots get a
seeded random source: if the module's global ``random`` is the ``random``
module, it is replaced in that module by a per-bot :class:`BotRandom`, and
functions imported with ``from random import randrange`` at module level are
re-bound to it, so ``random.randrange(...)`` in bot code is reproducible and
isolated from other bots.  ``new_game(seed)`` reseeds it.  (``random`` imported
inside a function, or by a helper module, is the process-wide one.)

What a bot prints goes to its log.  In a worker process (:mod:`kothkit.bots.funchost`)
that is the worker's stderr.  In this process, while :func:`capture_output` is
in force, ``sys.stdout`` and ``sys.stderr`` are :class:`BotOutput` streams
that find the bot whose code is writing on the caller's stack and keep the
text in that bot's :attr:`FunctionBot.out` (up to ``out_cap`` bytes), noting for each write
the replies its game had recorded (:attr:`FunctionBot.moves`, the referee's list), so that a
line is filed at the move it was printed in; anything else written meanwhile goes to the
stream they stand in for.  The streams are
swapped once per batch of games (or game), not per call, and a bot that
prints nothing costs nothing more.  A bot that raises gets a one-line
verdict; its traceback is the error's ``detail``, for the game's log.

Nothing here knows any game.
"""

from __future__ import annotations

import importlib.util
import io
import itertools
import json
import operator as _operator
import random as _random_module
import re
import sys
import traceback
import weakref
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, TextIO

from kothkit.bots.overtime import Overtime
from kothkit.game import Verdict
from kothkit.messages import say

_MODULE_NUMBERS = itertools.count(1)
_TRACE_LINES = 12
_TRACE_CHARS = 2000


class FunctionBotError(Exception):
    """A function bot failed: ``verdict`` is CRASH (raised, or failed to load) or INVALID_REPLY.

    ``message`` is one line (the verdict's reason); ``detail``, if any, is the traceback,
    for the game's log.
    """

    def __init__(self, verdict: Verdict, message: str, detail: str | None = None) -> None:
        super().__init__(f"{verdict}: {message}")
        self.verdict = verdict
        self.message = message
        self.detail = detail


class BotRandom(_random_module.Random):
    """A bot's own ``random.Random`` that also stands in for the ``random`` module.

    Module-level functions (``random.randrange``, ``random.choice``...) are its
    methods; the module's other public names (``random.Random``,
    ``random.SystemRandom``, constants) are class attributes.  (Not a
    ``__getattr__`` fallback: that would slow down every method lookup.)
    """

    def __init__(self, x: Any = None) -> None:
        super().__init__(x)
        # Bound once: ``random.randrange(...)`` then finds the method in the
        # instance dict, faster than the module-level function it replaces.
        for name in _PUBLIC_METHODS:
            setattr(self, name, getattr(self, name))

    def reseed(self, seed: int) -> None:
        """``self.seed(seed)`` for an int, without the type dispatch of Random.seed (once per game)."""
        if type(seed) is int and _BASE_SEED is not None:
            _BASE_SEED(self, seed)  # what Random.seed does for an int, then:
            self.gauss_next = None
        else:
            self.seed(seed)


for _name in dir(_random_module):
    if not _name.startswith("_") and not hasattr(BotRandom, _name):
        _value = getattr(_random_module, _name)
        setattr(BotRandom, _name, staticmethod(_value) if callable(_value) and not isinstance(_value, type) else _value)
del _name, _value
# The C generator's seed(), which Random.seed calls for an int: the seed of the class Random extends.
_BASE_SEED = next((vars(c)["seed"] for c in _random_module.Random.__mro__[1:] if "seed" in vars(c)), None)
_PUBLIC_METHODS = tuple(n for n in dir(_random_module.Random)
                        if not n.startswith("_") and callable(getattr(_random_module.Random, n))
                        and not isinstance(getattr(_random_module.Random, n), type))


def _bot_frames(exc: BaseException) -> TracebackType | None:
    """``exc``'s traceback without the frames of this module and of importlib."""
    tb = exc.__traceback__
    while tb is not None and (tb.tb_frame.f_code.co_filename == __file__
                              or tb.tb_frame.f_code.co_filename.startswith("<frozen importlib")):
        tb = tb.tb_next
    return tb


def _tail(exc: BaseException) -> str:
    """The last lines of ``exc``'s traceback, without the frames of this module."""
    lines = "".join(traceback.format_exception(type(exc), exc, _bot_frames(exc))).rstrip().splitlines()
    text = "\n".join(lines[-_TRACE_LINES:])
    return text if len(text) <= _TRACE_CHARS else "..." + text[-_TRACE_CHARS:]


def _one_line(exc: BaseException) -> str:
    """``exc`` in one line: its type and message, and where it was raised (file, line, function)."""
    try:
        what = "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()[-1]
    except Exception:
        what = type(exc).__name__
    what = _MODULE.sub("", what)
    if len(what) > 200:
        what = what[:197] + "..."
    frames = traceback.extract_tb(_bot_frames(exc)) if exc.__traceback__ is not None else []
    if isinstance(exc, SyntaxError) and exc.lineno:
        what += f" ({Path(exc.filename or '?').name}, line {exc.lineno})"
    elif frames:
        last = frames[-1]
        what += f" ({Path(last.filename).name}, line {last.lineno}, in {last.name})"
    return what


def _failure(verdict: Verdict, text: str, exc: BaseException) -> FunctionBotError:
    """The error for a bot that raised ``exc``: one line (``text``, a message whose ``{error}``
    is the exception's line), the traceback as its detail."""
    return FunctionBotError(verdict, text.replace("{error}", _one_line(exc)), detail=_tail(exc))


def split_entry(entry: str) -> tuple[Path, str]:
    """``"path/file.py:function"`` -> (path, function name); ValueError if malformed."""
    file, sep, func = entry.rpartition(":")
    if not sep or not file.endswith(".py") or not func.isidentifier():
        raise ValueError(f"a function bot is 'path/to/file.py:function', got {entry!r}")
    return Path(file), func


def load_function(entry: str) -> tuple[Any, Any]:
    """Load ``entry`` as a fresh module; returns (module, function).  Failures raise FunctionBotError("crash")."""
    try:
        path, name = split_entry(entry)
    except ValueError as e:
        raise FunctionBotError(Verdict.CRASH, str(e)) from None
    path = path.resolve()
    if not path.is_file():
        raise FunctionBotError(Verdict.CRASH, f"no such file: {path}")
    modname = f"kothkit_funcbot_{next(_MODULE_NUMBERS)}_{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}"
    spec = importlib.util.spec_from_file_location(modname, path)
    if spec is None or spec.loader is None:
        raise FunctionBotError(Verdict.CRASH, f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    # Helper modules next to the bot can be imported; appended, so a bot's
    # random.py or json.py never shadows the standard library.
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.append(folder)
    # Registered while it runs: dataclasses, pickle and typing look modules up by name.
    sys.modules[modname] = module
    try:
        spec.loader.exec_module(module)
    except (KeyboardInterrupt, Overtime):
        sys.modules.pop(modname, None)
        raise
    except BaseException as e:  # SyntaxError, ImportError, SystemExit at import...
        sys.modules.pop(modname, None)
        raise _failure(Verdict.CRASH, say("cannot load {file}: {error}", file=path.name, error="{error}"), e) from None
    func = getattr(module, name, None)
    if func is None:
        raise FunctionBotError(Verdict.CRASH, f"{path} defines no function {name!r}")
    if not callable(func):
        raise FunctionBotError(Verdict.CRASH, f"{path}: {name!r} is a {type(func).__name__}, not a function")
    return module, func


def install_random(module: Any, rng: _random_module.Random) -> bool:
    """Point ``module``'s uses of the shared random source at ``rng``; True if there were any."""
    ns = vars(module)
    shared = getattr(_random_module.random, "__self__", None)  # the instance behind random's functions
    found = False
    for key, value in list(ns.items()):
        if value is _random_module:
            ns[key] = rng
            found = True
        elif shared is not None and getattr(value, "__self__", None) is shared:
            method = getattr(rng, getattr(value, "__name__", ""), None)
            if method is not None:
                ns[key] = method
                found = True
    return found


class FunctionBot:
    """One function bot in this process.

    ``bot`` is a :class:`kothkit.bots.folders.BotSpec` of kind "function" or an entry
    string ``"path/file.py:function"``.  Loading failures raise
    :class:`FunctionBotError` with verdict CRASH.
    """

    def __init__(self, bot: Any, name: str | None = None) -> None:
        entry = bot if isinstance(bot, str) else getattr(bot, "entry", None)
        if not entry:
            raise FunctionBotError(Verdict.CRASH, f"not a function bot: {bot!r}")
        self.entry = entry
        #: What the bot printed (while output is captured), up to ``out_cap`` bytes; see take_output.
        self.out = bytearray()
        self.out_dropped = 0
        self.out_cap = 32 * 1024
        #: The replies of the game being played (the referee's list, set by its seat), or None.
        self.moves: list[Any] | None = None
        #: (size of ``out`` after a write, replies recorded then): see take_marks.
        self.marks: list[tuple[int, int]] = []
        self.module, self.func = load_function(entry)  # prints while loading are kept too
        _BY_MODULE[self.module.__name__] = self
        self.name = name or getattr(bot, "name", None) or split_entry(entry)[1]
        self.random = BotRandom(0)
        self.uses_random = install_random(self.module, self.random)
        self.state: Any = None

    def new_game(self, seed: int) -> None:
        """Forget the last game's state and reseed the bot's random source."""
        self.state = None
        if self.uses_random:
            self.random.reseed(seed)

    def call(self, payload: Any) -> Any:
        """Call ``f(*payload, state)``; keep the new state and return the reply."""
        try:
            # Two-argument prompts (view, turn...) are the common case: a plain call is faster than f(*args).
            if len(payload) == 2:
                a, b = payload
                result = self.func(a, b, self.state)
            else:
                result = self.func(*payload, self.state)
        except (KeyboardInterrupt, Overtime):
            raise
        except BaseException as e:  # SystemExit too: a bot must not end the judge
            raise _failure(Verdict.CRASH, say("raised {error}"), e) from None
        # What a bot returns is read as untrusted too: a list subclass whose __len__ raises, a
        # dict whose items() exits... is an invalid reply, never an exception out of the judge.
        try:
            if type(result) is tuple and len(result) == 2:
                reply, self.state = result
            # The seed's controller unpacks ``move, state = f(...)``: a list of two passes too.
            elif isinstance(result, (tuple, list)) and len(result) == 2:
                reply, self.state = result
            else:
                raise FunctionBotError(Verdict.INVALID_REPLY,
                                       say("expected (reply, state), got {value}", value=short_repr(result)))
            if type(reply) is int:  # the usual reply, tested first
                return reply
            return portable_reply(reply)
        except (FunctionBotError, KeyboardInterrupt, Overtime):
            raise
        except BaseException as e:
            raise FunctionBotError(Verdict.INVALID_REPLY,
                                   say("reading the returned value raised {error}", error=short_repr(e))) from None

    def keep(self, text: str) -> None:
        """Keep ``text``, printed by the bot, in its log (up to ``out_cap`` bytes; the rest is counted)."""
        WRITES[0] += 1
        data = text.encode("utf-8", "replace")
        room = self.out_cap - len(self.out)
        if room > 0:
            self.out += data[:room]
            moves = self.moves
            if moves is not None:
                # One mark a move at most: consecutive writes of one call extend the last.
                marks, now = self.marks, len(moves)
                if marks and marks[-1][1] == now:
                    marks[-1] = (len(self.out), now)
                else:
                    marks.append((len(self.out), now))
        self.out_dropped += len(data) - max(0, min(room, len(data)))

    def take_output(self) -> str:
        """What the bot printed since the last call, as text; the log starts over."""
        text = self.out.decode("utf-8", "replace")
        if self.out_dropped:  # as kothkit.procs.pipes.capped_text says it (not imported: a host starts faster)
            text += f"\n[... {self.out_dropped} more bytes of output dropped]"
        self.out = bytearray()
        self.out_dropped = 0
        return text

    def take_marks(self) -> list[tuple[int, int]]:
        """The marks of the output not taken yet: (its size after a write, the replies recorded
        then), as a program bot's stderr reads are marked; the list starts over."""
        marks, self.marks = self.marks, []
        return marks


#: How many times any bot's output was kept: a referee collects logs only from games where this grew.
WRITES = [0]
#: Bots by the name of their module: output written from a bot's own thread is found by its module.
_BY_MODULE: weakref.WeakValueDictionary[str, FunctionBot] = weakref.WeakValueDictionary()
#: Frames of these methods have the bot they run for as ``self``: a print from the bot's helper
#: modules, or from its module while it loads, is found by them.
_BOT_METHODS = (FunctionBot.call.__code__, FunctionBot.__init__.__code__)


def _printing_bot() -> FunctionBot | None:
    """The function bot whose code called the stream's write (found on the stack), or None."""
    try:
        f: FrameType | None = sys._getframe(2)
    except ValueError:  # write() called with nothing above it
        return None
    methods = _BOT_METHODS
    while f is not None:
        bot = _BY_MODULE.get(f.f_globals.get("__name__", ""))
        if bot is not None:
            return bot
        if f.f_code in methods:
            bot = f.f_locals.get("self")
            if isinstance(bot, FunctionBot):
                return bot
        f = f.f_back
    return None


class BotOutput(io.TextIOBase):
    """Stands in for ``sys.stdout`` or ``sys.stderr`` while function bots run in this process:
    what a bot writes goes to its own log, anything else to ``passthrough``."""

    def __init__(self, passthrough: TextIO) -> None:
        super().__init__()
        self.passthrough = passthrough

    @property  # an attribute in TextIOBase's stubs, a read-only property in io's C classes too
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    @property
    def buffer(self) -> _BotBinaryOutput:
        return _BotBinaryOutput(self)

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        bot = _printing_bot()
        if bot is None:
            return self.passthrough.write(text)
        bot.keep(text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


class _BotBinaryOutput(io.RawIOBase):
    """``sys.stdout.buffer`` of a :class:`BotOutput`: bytes, decoded with replacement characters."""

    def __init__(self, text: BotOutput) -> None:
        super().__init__()
        self.text = text

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        data = bytes(data)
        self.text.write(data.decode("utf-8", "replace"))
        return len(data)


_CAPTURE: list[Any] = [None, None, None, None]  # the streams last stood in for, and their stand-ins


def capture_output() -> tuple[TextIO, TextIO] | None:
    """Put :class:`BotOutput` streams in place of ``sys.stdout`` and ``sys.stderr``; returns
    what they replaced, for :func:`release_output`, or None if they are in place already."""
    out, err = sys.stdout, sys.stderr
    if type(out) is BotOutput:
        return None
    cache = _CAPTURE
    if cache[0] is not out or cache[1] is not err:
        cache[:] = [out, err, BotOutput(out), BotOutput(err)]
    sys.stdout, sys.stderr = cache[2], cache[3]
    return out, err


def release_output(saved: tuple[TextIO, TextIO] | None) -> None:
    """Undo :func:`capture_output`."""
    if saved is not None:
        sys.stdout, sys.stderr = saved


def portable_reply(reply: Any) -> Any:
    """``reply`` as the isolated worker sends it: a JSON value (tuples become lists, numpy ints ints).

    Called on every function bot's reply in this process too, so that a
    trusted bot and an isolated one give the game the very same value, and
    records hold plain data.  A reply JSON cannot carry is an invalid reply.
    """
    t = type(reply)
    if t is int or t is str or reply is None or t is float or t is bool:
        return reply
    try:
        return json.loads(json.dumps(reply))
    except (TypeError, ValueError, RecursionError):
        pass
    if not isinstance(reply, bool):
        try:
            return int.__index__(_operator.index(reply))
        except Exception:
            pass
    raise FunctionBotError(Verdict.INVALID_REPLY,
                           say("the reply {value} is not plain data (a number, text, list...)",
                               value=short_repr(reply)))


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_MODULE = re.compile(r"kothkit_funcbot_\d+_")


def short_repr(x: Any, n: int = 80) -> str:
    """``repr(x)`` cut to ``n`` characters; never raises, whatever a bot returned.

    Memory addresses and the per-bot module numbers are left out: a verdict's
    text must be the same in every run and whichever way the bot is hosted.
    """
    try:
        s = repr(x)
    except (KeyboardInterrupt, Overtime):
        raise
    except BaseException:  # SystemExit from a bot's __repr__ too
        s = f"<{type(x).__qualname__} object>"
    s = _MODULE.sub("", _ADDRESS.sub("", s))
    return s if len(s) <= n else s[: n - 3] + "..."
