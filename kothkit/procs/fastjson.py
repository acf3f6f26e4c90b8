"""JSON encoding for hot paths: ``json.dumps`` without its per-call set-up.

``json.dumps`` builds a new encoder on every call that passes options; for the small values the
judge encodes thousands of times a second (a function bot's arguments, a journal row's moves) that
set-up costs more than the encoding.  These encoders are built once, through json's public
``JSONEncoder``.  Output is exactly ``json.dumps``'s with the same separators (game ids and journal
rows hash it, so the bytes matter); values JSON cannot carry raise ``TypeError``, and, as there is
no circular-reference check, a cyclic value raises ``RecursionError``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def _encoder(item_sep: str, key_sep: str) -> Callable[[Any], str]:
    return json.JSONEncoder(check_circular=False, separators=(item_sep, key_sep)).encode


#: ``json.dumps(value)``.
dumps = _encoder(", ", ": ")
#: ``json.dumps(value, separators=(",", ":"))``.
dumps_compact = _encoder(",", ":")
