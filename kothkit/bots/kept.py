"""A stateful bot's identity: the code its author gave, not the files it keeps in its folder.

A stateful bot (``stateful = true``, every ``meta`` bot) may write its own folder between games
(the Swap2 seed allows it).  Its content hash would then change with every game it plays, and
every run would play its games again.  So the judge keeps, outside the bot's reach (in the
journal, :meth:`kothkit.store.journal.Journal.kept`), a :class:`Record` of each stateful bot's
folder: the files as its author gave them (``given``: path -> sha256, taken before its first
game), the files as the bot left them after its last game (``left``), and the identity its games
were played under.  At the next run (:func:`identify`):

- a folder just as the bot left it keeps its identity: what the bot wrote is its own;
- a file that differs from how the bot left it was changed by someone else, the author: it
  counts as given, and the bot's identity changes (to a hash of what was given, :func:`manifest_hash`);
- a folder seen for the first time counts as given whole (its identity is its content hash,
  :func:`kothkit.bots.folders.content_hash`, as for any bot).

Files are hashed one by one (``manifest``), with the same walk, caps and ignored names
(``state/``, ``*.log``...) as the content hash.  While a run plays, a file whose size, times
and inode did not change is not read again (the bot's own writes need no proof).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable

import attrs

from kothkit.bots.folders import BUILD_SOURCE_GLOBS, MAX_BYTES, BotKind, BotSpec, _hash_file, _source_files

#: Hashes of the files of a folder: relative path -> sha256 hex (``link:TARGET`` for a symlink).
Manifest = dict[str, str]
#: What :func:`manifest` remembers of a file it read: (size, mtime_ns, ctime_ns, inode) -> its hash.
Cache = dict[str, tuple[tuple[int, int, int, int], str]]


@attrs.frozen
class Record:
    """What the judge keeps of a stateful bot's folder (see the module's docstring)."""

    given: Manifest
    left: Manifest
    identity: str

    def dumps(self) -> str:
        return json.dumps({"given": self.given, "left": self.left, "identity": self.identity}, sort_keys=True)

    @classmethod
    def loads(cls, text: str | None) -> Record | None:
        """The record in ``text``; None for none (or one this kothkit cannot read: the folder is then
        seen as for the first time)."""
        if not text:
            return None
        try:
            d = json.loads(text)
            given, left, identity = d["given"], d["left"], d["identity"]
        except (ValueError, KeyError, TypeError):
            return None
        ok = all(isinstance(m, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in m.items())
                 for m in (given, left))
        return cls(given=given, left=left, identity=identity) if ok and isinstance(identity, str) else None


def keeps_files(b: BotSpec) -> bool:
    """Whether ``b`` may write the folder its identity is hashed from (a stateful program bot's)."""
    return b.stateful and b.kind == BotKind.PROCESS and b.path.is_dir()


def _globs(b: BotSpec) -> Iterable[str] | None:
    return b.sources or (BUILD_SOURCE_GLOBS if b.build else None)


def manifest(b: BotSpec, cache: Cache | None = None) -> Manifest:
    """The hash of each file of ``b``'s folder that its content hash covers.  A BotError for a folder
    the content hash refuses too.  ``cache``: files read before, reused while unchanged."""
    out: Manifest = {}
    budget = MAX_BYTES
    for rel, path, link in _source_files(b.path, _globs(b)):
        if link:
            out[rel] = "link:" + os.readlink(path)
            continue
        try:
            st = os.lstat(path)
        except OSError:
            continue
        key = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        if cache is not None and rel in cache and cache[rel][0] == key:
            out[rel] = cache[rel][1]
            continue
        h = hashlib.sha256()
        try:
            budget -= _hash_file(h.update, path, b.path, budget)
        except OSError:
            continue
        out[rel] = h.hexdigest()
        if cache is not None:
            cache[rel] = (key, out[rel])
    return out


def manifest_hash(given: Manifest) -> str:
    h = hashlib.sha256(b"kothkit manifest 1\0")
    for rel in sorted(given):
        # (a link's target, as a name, may be any bytes: Python holds them as lone surrogates)
        h.update(rel.encode("utf-8", "surrogateescape") + b"\0" + given[rel].encode("utf-8", "surrogateescape") + b"\0")
    return h.hexdigest()


def identify(b: BotSpec, record: Record | None, now: Manifest | None = None) -> tuple[BotSpec, Record]:
    """``b`` under its identity, and the record to keep of it from now on (``now``: its folder's
    :func:`manifest`, if already taken).  For a bot that keeps no files: ``b`` itself, and a
    record of nothing."""
    if not keeps_files(b):
        return b, Record(given={}, left={}, identity=b.hash)
    now = manifest(b) if now is None else now
    if record is None:
        return b, Record(given=now, left=now, identity=b.hash)
    if now == record.left:
        return attrs.evolve(b, hash=record.identity), attrs.evolve(record, left=now)
    # A file as the bot left it counts as what was given; any other was changed by its author.
    given = {}
    for rel in sorted(set(now) | set(record.left) | set(record.given)):
        h = record.given.get(rel) if now.get(rel) == record.left.get(rel) else now.get(rel)
        if h is not None:
            given[rel] = h
    if given == record.given:
        identity = record.identity
    elif given == now:
        identity = b.hash  # nothing of what it kept is left: as a folder seen for the first time
    else:
        identity = manifest_hash(given)
    return attrs.evolve(b, hash=identity), Record(given=given, left=now, identity=identity)

