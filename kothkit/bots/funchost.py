"""The isolated function-bot worker: ``python -m kothkit.bots.funchost FILE.py:FUNC``.

One worker process hosts one function bot for as many games as its judge
likes.  The bot lives in the worker's memory only: it cannot read the judge's
board, the other bot or the hidden information, and if it crashes, loops or
exits, only the worker is lost.

Protocol (JSON lines over stdin/stdout, UTF-8).  Every request line gets
exactly one reply line, in order:

    {"op": "new", "seed": N}       ->  {"ok": null}
        A new game: the bot's state becomes null and its random source is
        reseeded with the integer N.
    {"op": "call", "args": [...]}  ->  {"ok": REPLY}
        Call ``FUNC(*args, state)``; the function returns ``(REPLY, new_state)``;
        the new state stays in the worker and is passed to the next call.
    any request that fails         ->  {"error": "TEXT", "kind": KIND[, "detail": "TRACEBACK"]}
        KIND "crash": the function raised (TEXT: the exception in one line,
        DETAIL: the end of its traceback) or the file could not be loaded
        (every request then gets this reply);
        "invalid-reply": it did not return a 2-tuple, or REPLY cannot be
        written as JSON; "protocol": the request line was not understood.
    end of input                   ->  the worker exits with status 0.

REPLY is plain JSON data: tuples become lists, integer-like objects (numpy
integers) plain integers, and a reply JSON cannot carry is an "invalid-reply"
error -- exactly the value a trusted FunctionBot hands the game.  Whatever the bot prints goes to the
worker's stderr (stdout carries only the protocol), unbuffered: it is in the
pipe before the answer of the call that printed it, so the judge can file it
under the game it belongs to.  Reading stdin gives the bot end-of-file.  The
worker's working directory is the judge's choice.
"""

from __future__ import annotations

import io
import json
import os
import sys
from typing import Any

from kothkit.bots.functions import FunctionBot, FunctionBotError, short_repr
from kothkit.procs.fastjson import dumps_compact

PROTOCOL = "protocol"
_NULL_OK = b'{"ok":null}\n'


def _encode_ok(reply: Any) -> bytes:
    # FunctionBot.call returns plain JSON data only (see funcbots.portable_reply).
    if type(reply) is int:
        return b'{"ok":%d}\n' % reply
    return dumps_compact({"ok": reply}).encode() + b"\n"


def _error(kind: str, text: str, detail: str | None = None) -> bytes:
    answer = {"error": text, "kind": kind}
    if detail:
        answer["detail"] = detail
    return json.dumps(answer, ensure_ascii=True).encode() + b"\n"


def _take_stdio() -> tuple[Any, Any]:
    """Keep stdin/stdout for the protocol; the bot's prints go to stderr, its reads get EOF."""
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull, encoding="utf-8")
    # Both unbuffered: a print is in the pipe before the answer to the call that printed it
    # (a line-buffered stream would hold a print without a newline until some later game).
    sys.stdout = sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", buffering=0, closefd=False), encoding="utf-8",
                                               errors="replace", write_through=True)
    return proto_in, proto_out


def serve(entry: str, proto_in: Any, proto_out: Any) -> int:
    """Answer requests from ``proto_in`` (bytes lines) on ``proto_out`` until end of input."""
    try:
        bot: FunctionBot | None = FunctionBot(entry)
        broken = b""
    except FunctionBotError as e:
        bot = None
        broken = _error(e.verdict, e.message, e.detail)
    readline = proto_in.readline
    raw_write = proto_out.write
    loads = json.loads

    def write(data: bytes) -> None:
        # One unbuffered write per reply line; a long one may go out in parts.
        n = raw_write(data)
        while n is not None and n < len(data):
            data = data[n:]
            n = raw_write(data)

    while True:
        line = readline()
        if not line:
            return 0
        try:
            req = loads(line)
            op = req["op"]
        except (ValueError, TypeError, KeyError, RecursionError) as e:
            write(_error(PROTOCOL, f"bad request {line[:80]!r}: {e}"))
            continue
        if bot is None:
            write(broken)
            continue
        if op == "call":
            args = req.get("args")
            if type(args) is not list:
                write(_error(PROTOCOL, f"args must be a list, got {short_repr(args)}"))
                continue
            try:
                reply = bot.call(args)
            except FunctionBotError as e:
                write(_error(e.verdict, e.message, e.detail))
                continue
            write(_encode_ok(reply))
        elif op == "new":
            seed = req.get("seed", 0)
            if type(seed) is not int:
                write(_error(PROTOCOL, f"seed must be an integer, got {short_repr(seed)}"))
                continue
            bot.new_game(seed)
            write(_NULL_OK)
        else:
            write(_error(PROTOCOL, f"unknown op {short_repr(op)}"))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m kothkit.bots.funchost FILE.py:FUNCTION", file=sys.stderr)
        return 2
    proto_in, proto_out = _take_stdio()
    try:
        return serve(args[0], proto_in, proto_out)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
