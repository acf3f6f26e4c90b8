"""Texts for people that the core and the games write (a verdict's reason, a game's outcome, a
board's title, a game's summary) as message ids with named values, so that a page can translate them.

A message's id is its English text with ``{name}`` placeholders (gettext's way: the id is the
text); :func:`say` fills them and returns the English text, which is what journals, the command
line and ``--json`` carry, byte for byte as before.  The English text holds everything a page
needs: :func:`match` finds the id and the values back in it (a journal written before ids were used
translates the same way), and the site fills the id's translation with them
(:func:`kothkit.serve.i18n.reason`).  The core's ids are extracted into the site's catalogs
from the calls of ``say``; a game's texts are translated by its own catalog (``GameInfo.catalogs``,
written by its author, the ids being its English texts with ``{name}`` placeholders).

Only pure string work here: a game plugin calls :func:`say` as it calls f-strings.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping

_FIELD = re.compile(r"\{([a-z_]+)\}")
#: Characters of a text :func:`match` looks at, at most.
MAX_TEXT = 2000


def say(msgid: str, **values: object) -> str:
    """``msgid`` (English, with ``{name}`` placeholders) filled from ``values``: the English text."""
    return _FIELD.sub(lambda m: str(values[m.group(1)]), msgid) if values else msgid


def fill(text: str, values: Mapping[str, str]) -> str:
    """A message's (translated) text with its ``{name}`` placeholders filled; an unknown one kept."""
    return _FIELD.sub(lambda m: values.get(m.group(1), m.group(0)), text)


@functools.lru_cache(maxsize=4096)
def _pattern(msgid: str) -> re.Pattern[str]:
    out, seen, at = [], set(), 0
    for m in _FIELD.finditer(msgid):
        out.append(re.escape(msgid[at:m.start()]))
        name = m.group(1)
        out.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        at = m.end()
    out.append(re.escape(msgid[at:]))
    return re.compile("".join(out), re.S)


def ordered(msgids: Iterable[str]) -> tuple[str, ...]:
    """Message ids with placeholders, the most specific first (the most fixed text): the order
    :func:`match` tries them in, so that ``{what} with its {limit}`` loses to a longer fit."""
    ids = {m for m in msgids if _FIELD.search(m)}
    return tuple(sorted(ids, key=lambda m: (-len(_FIELD.sub("", m)), m)))


def match(text: str, msgids: Iterable[str]) -> tuple[str, dict[str, str]] | None:
    """The message id (of ``msgids``, as :func:`ordered` gives them) that ``text`` is made of,
    and its values; None if none fits (nor for a text longer than any the core writes: a page
    never spends long on a stranger's text)."""
    if len(text) > MAX_TEXT:
        return None
    for msgid in msgids:
        found = _pattern(msgid).fullmatch(text)
        if found is not None:
            return msgid, found.groupdict()
    return None
