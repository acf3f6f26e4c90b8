"""The journal's records of stateful bots' folders (:mod:`kothkit.bots.kept`), read and kept up to date.

A run (:func:`kothkit.playing.tournament.run_tournament`) gives each stateful bot its identity
from the journal's record before its first game, and records how the bot left its folder after
each batch of its games; ``kothkit verify`` reads the records only.  A record's key is where
the run loaded the bot from (relative to the journal's folder when inside it, as the runs table
records it), so a challenge folder moved whole keeps its records.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from kothkit.bots.folders import BotError, BotSpec, journal_entry
from kothkit.bots.kept import Cache, Record, identify, keeps_files, manifest
from kothkit.store.journal import Journal


def identities(j: Journal, jpath: Path, bots: Sequence[BotSpec]) -> tuple[list[BotSpec], dict[str, Record]]:
    """``bots`` with each stateful bot's identity from ``j``'s records, and their records from now on
    (by key; kept by the caller, if it plays)."""
    out: list[BotSpec] = []
    records: dict[str, Record] = {}
    for b in bots:
        if not keeps_files(b):
            out.append(b)
            continue
        key = journal_entry(b, jpath)
        try:
            b, records[key] = identify(b, Record.loads(j.kept(key)))
        except (BotError, OSError):
            pass  # changed under us since it was loaded: its content hash stands
        out.append(b)
    return out, records


class Keeper:
    """A run's records of its stateful bots, kept in its journal: at the start, and after each batch."""

    def __init__(self, j: Journal, jpath: Path, bots: Sequence[BotSpec]) -> None:
        self.kept = Records(j, jpath)
        self.bots = self.kept.identify(bots, (), {})
        self.specs = {b.name: b for b in self.bots}
        #: The names of the bots that keep files.
        self.keys = {b.name for b in self.bots if keeps_files(b)}

    def played(self, names: Iterable[str]) -> None:
        """The bots ``names`` finished games: record how those that keep files left their folders."""
        if not self.keys:
            return
        self.kept.played(self.specs[n] for n in sorted(set(names) & self.keys))


class Records:
    """The records of a host's challenge (``kothkit serve``: its folder bots are loaded again every few
    seconds, while their games play): each stateful bot under the identity its record gives it,
    and its record brought up to date after each of its games.  Owned by the host's dispatcher
    thread, which owns the journal."""

    def __init__(self, j: Journal, jpath: Path) -> None:
        self.j, self.jpath = j, jpath
        self.records: dict[str, Record] = {}
        self.caches: dict[str, Cache] = {}

    def _record(self, key: str) -> Record | None:
        if key not in self.records:
            found = Record.loads(self.j.kept(key))
            if found is None:
                return None
            self.records[key] = found
        return self.records[key]

    def identify(self, bots: Sequence[BotSpec], busy: Iterable[str], current: dict[str, BotSpec]) -> list[BotSpec]:
        """``bots`` as loaded, each stateful one under its identity.  One in a game (``busy``) is what
        it was (``current``): what it writes while it plays is its own, recorded once the game is stored."""
        busy = set(busy)
        out: list[BotSpec] = []
        for b in bots:
            now = current.get(b.name)
            if not keeps_files(b):
                out.append(b)
            elif b.name in busy and now is not None and now.path == b.path:
                out.append(now)
            else:
                key = journal_entry(b, self.jpath)
                try:
                    b, record = identify(b, self._record(key), manifest(b, self.caches.setdefault(key, {})))
                except (BotError, OSError):
                    out.append(b)  # changed under us since it was loaded: its content hash stands
                    continue
                if record != self.records.get(key):
                    self.records[key] = record
                    self.j.keep({key: record.dumps()})
                out.append(b)
        return out

    def played(self, bots: Iterable[BotSpec]) -> None:
        """``bots`` finished a game: record how those that keep files left their folders."""
        changed = {}
        for b in bots:
            if not keeps_files(b):
                continue
            key = journal_entry(b, self.jpath)
            record = self._record(key)
            if record is None:
                continue
            try:
                left = manifest(b, self.caches.setdefault(key, {}))
            except (BotError, OSError):
                continue
            if left != record.left:
                self.records[key] = Record(given=record.given, left=left, identity=record.identity)
                changed[key] = self.records[key].dumps()
        if changed:
            self.j.keep(changed)
