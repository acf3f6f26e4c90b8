"""JSON encoding for hot paths: ``json.dumps`` without its per-call set-up.

``json.dumps`` builds a new encoder on every call that passes options (and
wraps the C encoder in Python calls even when it does not); for the small
values the judge encodes thousands of times a second -- a function bot's
arguments, a journal row's moves -- that set-up costs more than the
encoding.  These encoders are built once.  Output is exactly ``json.dumps``'s
with the same separators; values JSON cannot carry raise ``TypeError``, and,
as there is no circular-reference check, a cyclic value raises
``RecursionError``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def _encoder(item_sep: str, key_sep: str) -> Callable[[Any], str]:
    try:
        # CPython's C encoder: private, so not in the type stubs.
        from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - not CPython's C accelerator
        c_make_encoder = None
    if c_make_encoder is None:  # pragma: no cover
        return lambda value: json.dumps(value, separators=(item_sep, key_sep))
    encode = c_make_encoder(None, json.JSONEncoder().default, encode_basestring_ascii, None, key_sep, item_sep,
                            False, False, True)
    join = "".join
    return lambda value: join(encode(value, 0))


#: ``json.dumps(value)``.
dumps = _encoder(", ", ": ")
#: ``json.dumps(value, separators=(",", ":"))``.
dumps_compact = _encoder(",", ":")
