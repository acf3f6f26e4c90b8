"""A game as anyone may read it: its bots renamed, and other bots' output cut out.

A game's record holds what its bots wrote (stderr, DEBUG lines) and a verdict's reason may quote
a bot's stderr.  Those are the bot's author's: a page for others (``kothkit serve``'s pages, a
report a TA publishes) shows a record made by :func:`private_record`, in which each bot has the
name the page gives it and only the logs the reader may read are left; the moves are
everyone's.  :func:`private_transcript` re-plays such a record, so that the boards and the
messages of the re-played game name the bots the same way.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import attrs

from kothkit.results.archive import Archive, Transcript, transcript
from kothkit.store.records import LOG_MOVES, GameRecord, split_reason


def neutral(reason: str) -> str:
    """A verdict's reason without the bot's own words (what everyone may read)."""
    return split_reason(reason)[0]


def private_record(r: GameRecord, rename: Mapping[str, str], logs_of: Collection[str] | None) -> GameRecord:
    """``r`` renamed (``rename``: bot -> its name here) and holding only what a visitor who may read
    the logs of ``logs_of`` (None: every bot's) may see: other bots' stderr and DEBUG lines are
    gone, and the verdict's reason quotes the offender's stderr only if its log is readable."""
    keep = None if logs_of is None else set(logs_of)
    logs: dict[str, Any] = {}
    for k, v in r.logs.items():
        if k == LOG_MOVES and isinstance(v, dict):
            logs[k] = {rename.get(b, b): m for b, m in v.items() if keep is None or b in keep}
        elif " " in k:  # the core's other notes (a late reply: a move, not a log)
            logs[k] = v
        elif keep is None or k in keep:
            logs[rename.get(k, k)] = v
    reason = r.reason
    if keep is not None and r.offender not in keep:
        reason = neutral(reason)
    return attrs.evolve(r, players=tuple(rename.get(p, p) for p in r.players),
                        winner=None if r.winner is None else rename.get(r.winner, r.winner),
                        offender=None if r.offender is None else rename.get(r.offender, r.offender),
                        reason=reason, logs=logs)


@attrs.frozen
class _AsStored:
    """An archive as :func:`kothkit.results.archive.transcript` reads it, for a renamed record: the
    run that played a game is found by its bots' real names."""

    archive: Any
    record: GameRecord

    @property
    def finished(self) -> Mapping[str, float]:
        finished: Mapping[str, float] = self.archive.finished
        return finished

    def settings(self, r: GameRecord) -> Any:
        return self.archive.settings(self.record)


def private_transcript(archive: Archive, r: GameRecord, info: Any, rename: Mapping[str, str],
                       logs_of: Collection[str] | None, pictures: bool) -> Transcript:
    """The game re-played for a visitor from :func:`private_record`'s record: its boards, pictures
    and messages name the bots as the page does, and a game that tells its bots the outcome tells
    them the neutral reason.  ``info``: the game (True: found by its name)."""
    stored: Any = _AsStored(archive, r)
    return transcript(stored, private_record(r, rename, logs_of), info=info, pictures=pictures)
