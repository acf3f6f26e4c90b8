"""The journal: an SQLite database holding every finished game, committed atomically.

Each game is stored with its full record (seats, bots' content hashes, seed,
every reply with its measured time, verdict, outcome, logs) as soon as it
ends: a game of program bots in its own transaction, games of function bots
(microseconds each) a batch per transaction.  Killing the judge at any moment
loses only the games in flight.  Standings are counted from what is stored
here.  WAL mode lets a reader (a leaderboard, ``kothkit verify``) look while a
tournament writes.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any, NamedTuple

from kothkit.procs import fastjson
from kothkit.store.records import GameRecord, GameResult, Move

#: The journal's format (SQLite's user_version): readers refuse a journal of a later version.
JOURNAL_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    idx INTEGER NOT NULL,
    players TEXT NOT NULL,
    hashes TEXT NOT NULL,
    seed INTEGER NOT NULL,
    winner TEXT,
    reason TEXT NOT NULL,
    fault TEXT,
    verdict TEXT,
    moves TEXT NOT NULL,
    logs TEXT NOT NULL,
    seconds REAL NOT NULL,
    finished_at REAL NOT NULL,
    memory TEXT,
    seat_places TEXT,
    seat_points TEXT,
    seat_verdicts TEXT
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL,
    seed INTEGER NOT NULL,
    settings TEXT NOT NULL,
    bots TEXT NOT NULL,
    started_at REAL NOT NULL,
    finished_at REAL,
    played INTEGER,
    reused INTEGER,
    rounds INTEGER
);
CREATE TABLE IF NOT EXISTS kept (
    folder TEXT PRIMARY KEY,
    record TEXT NOT NULL
);
"""
#: Columns added to the runs table since its first version: an older journal gets them, empty,
#: when it is opened (``bots`` holds, since then too, where each bot was loaded from).
RUNS_ADDED = {"rounds": "INTEGER", "kind": "TEXT"}
#: Columns added to the games table since its first version (nullable: an older journal gets them
#: empty when it is opened).  ``memory``: JSON, each seat's memory peak in MiB (GameRecord.memory);
#: ``seat_places``, ``seat_points``, ``seat_verdicts``: JSON, every seat's result and verdict in a game
#: of more than two seats (GameRecord's; NULL in a two-seat game's row, whose winner says all).
GAMES_ADDED = {"memory": "TEXT", "seat_places": "TEXT", "seat_points": "TEXT", "seat_verdicts": "TEXT"}
#: The added columns that hold every seat's result.
SEAT_COLUMNS = ("seat_places", "seat_points", "seat_verdicts")
#: The games table's columns in GameRow's order (rows are inserted by name: an older journal's
#: table has the added columns last, as a new one has).
GAME_COLUMNS = ("id", "game", "idx", "players", "hashes", "seed", "winner", "reason", "fault", "verdict", "moves",
                "logs", "seconds", "finished_at", "memory", *SEAT_COLUMNS)
_INSERT = (f"INSERT OR REPLACE INTO games ({', '.join(GAME_COLUMNS)}) "
           f"VALUES ({', '.join('?' * len(GAME_COLUMNS))})")


def _row_to_record(row: sqlite3.Row) -> GameRecord:
    return GameRecord(
        id=row["id"], game=row["game"], index=row["idx"], players=tuple(json.loads(row["players"])),
        hashes=tuple(json.loads(row["hashes"])), seed=row["seed"], winner=row["winner"], reason=row["reason"],
        offender=row["fault"], verdict=row["verdict"],
        moves=tuple(Move(seat=m[0], reply=m[1], ms=m[2]) for m in json.loads(row["moves"])),
        logs=json.loads(row["logs"]), seconds=row["seconds"], memory=memory_of(row), **seats_of(row),
    )


def seats_of(row: sqlite3.Row) -> dict[str, Any]:
    """A games row's every seat's result as GameRecord's keywords (``seat_places``, ``seat_points``,
    ``seat_verdicts``): None each in a two-seat game's row, and in a journal from before they were kept."""
    return {"seat_places": _seat_values(_column(row, "seat_places"), int),
            "seat_points": _seat_values(_column(row, "seat_points"), float),
            "seat_verdicts": _seat_values(_column(row, "seat_verdicts"), str)}


def _column(row: sqlite3.Row, name: str) -> str | None:
    """A games row's added column (None in a journal opened read-only from before it was added)."""
    try:
        value: str | None = row[name]
        return value
    except (IndexError, KeyError):
        return None


def _json_list(text: str | None) -> list[Any] | None:
    """A JSON list column's value; None for NULL, or for anything but a list."""
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, list) else None


def _seat_values(text: str | None, kind: type) -> tuple[object, ...] | None:
    """A seat column's JSON list, each value of ``kind`` or null (ints read as floats for points);
    None for NULL or anything else."""
    value = _json_list(text)
    if value is None:
        return None
    out: list[object] = []
    for v in value:
        if v is None and kind is str:
            out.append(None)
        elif kind is float and type(v) in (int, float):
            out.append(float(v))
        elif type(v) is kind:
            out.append(v)
        else:
            return None
    return tuple(out)


def memory_of(row: sqlite3.Row) -> tuple[int | None, ...] | None:
    """A games row's memory peaks (None in a journal from before they were kept, or unreadable)."""
    value = _json_list(_column(row, "memory"))
    if value is None or not all(v is None or type(v) is int for v in value):
        return None
    return tuple(value)


def _jsonable(value: object) -> object:
    t = type(value)
    if t is int or t is str or value is None or t is float or t is bool:
        return value
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)


_dumps = fastjson.dumps
#: JSON of the players and hashes tuples seen lately: a tournament has few seatings, and
#: each is encoded for every game.
_NAMES_JSON: dict[tuple[str, ...], str] = {}


def _names_json(names: tuple[str, ...]) -> str:
    text = _NAMES_JSON.get(names)
    if text is None:
        if len(_NAMES_JSON) >= 4096:
            _NAMES_JSON.clear()
        text = _NAMES_JSON[names] = _dumps(names)
    return text


class GameRow(NamedTuple):
    """One row of the games table: its fields are the table's columns, in order (the schema's
    names: ``idx`` is a record's ``index``, ``fault`` its ``offender``).  Made by :func:`row_of`."""

    id: str
    game: str
    idx: int
    #: JSON lists of the names and of the content hashes, seat by seat.
    players: str
    hashes: str
    seed: int
    winner: str | None
    reason: str
    fault: str | None
    verdict: str | None
    #: JSON: [[seat, reply, ms], ...].
    moves: str
    #: JSON: a record's ``logs``.
    logs: str
    seconds: float
    finished_at: float
    #: JSON: each seat's memory peak in MiB, or None.
    memory: str | None = None
    #: JSON: every seat's place, points and verdict (a game of more than two seats), or None.
    seat_places: str | None = None
    seat_points: str | None = None
    seat_verdicts: str | None = None

    def __reduce__(self) -> tuple[Callable[..., GameRow], tuple[type[GameRow], tuple[object, ...]]]:
        # Rows cross from workers to the judge by the thousand: pickled as a plain tuple of the
        # values (a named tuple's own way takes twice as long), made a GameRow again on arrival.
        return (_new_tuple, (GameRow, tuple(self)))


_new_tuple = tuple.__new__


class Outline(NamedTuple):
    """What a results document shows of a stored game (:meth:`Journal.outlines`), columns as stored
    (players and moves JSON), without the logs and hashes."""

    id: str
    idx: int
    players: str
    seed: int
    winner: str | None
    reason: str
    fault: str | None
    verdict: str | None
    moves: str
    #: JSON: every seat's place, points and verdict (a game of more than two seats), or None.
    seat_places: str | None = None
    seat_points: str | None = None
    seat_verdicts: str | None = None


class Summary(NamedTuple):
    """What a scoreboard keeps of a stored game (:meth:`Journal.summaries`); its fields are named as
    :class:`GameRow`'s, so that either makes a ``kothkit.serve.views.GameSummary``."""

    id: str
    idx: int
    players: str
    winner: str | None
    verdict: str | None
    fault: str | None
    reason: str
    finished_at: float
    #: JSON: every seat's place, points and verdict (a game of more than two seats), or None.
    seat_places: str | None = None
    seat_points: str | None = None
    seat_verdicts: str | None = None


#: JSON of moves seen lately, by the move: a tournament's moves repeat (a seat, a column, a few
#: distinct milliseconds), and encoding each anew costs more than the game of function bots that
#: made them.  Only moves of an int seat, an int reply and a
#: positive finite float are kept: for those, equal tuples are written alike (not so for a bool
#: reply equal to 1, -0.0 equal to 0.0, or a NaN found by its identity).
_MOVE_JSON: dict[Move, str] = {}


def _moves_json(moves: Sequence[Move]) -> str:
    """``fastjson.dumps(moves)``, from :data:`_MOVE_JSON` where it can."""
    get = _MOVE_JSON.get
    parts: list[str] = []
    add = parts.append
    for m in moves:
        text = get(m)
        if text is None or type(m[1]) is not int or type(m[0]) is not int or type(m[2]) is not float:
            seat, reply, ms = m
            if type(seat) is int and type(reply) is int and type(ms) is float and 0.0 < ms < 1e15:
                if len(_MOVE_JSON) >= 65536:
                    _MOVE_JSON.clear()
                text = _MOVE_JSON[m] = f"[{seat}, {reply}, {ms!r}]"
            else:
                return _dumps(moves)
        add(text)
    return "[" + ", ".join(parts) + "]"


def row_of(r: GameRecord, finished_at: float | None = None) -> GameRow:
    """The journal row of record ``r``.

    Workers turn their records into rows (the JSON work happens where the game
    was played), so that the judge process only has to insert them.
    """
    try:
        # Moves are tuples, which JSON writes as [seat, reply, ms]: one C call for all of them.
        moves = _moves_json(r.moves)
    except (TypeError, ValueError, RecursionError):  # a reply JSON cannot carry (only program bots' lines are kept raw)
        moves = _dumps([[m.seat, _jsonable(m.reply), m.ms] for m in r.moves])
    # In the columns' order, without the keyword handling of GameRow's __new__ (a row a game).
    return _new_tuple(GameRow, (
        r.id, r.game, r.index, _names_json(r.players), _names_json(r.hashes), r.seed, r.winner, r.reason,
        r.offender, r.verdict, moves, _dumps(dict(r.logs)) if r.logs else "{}", r.seconds,
        time.time() if finished_at is None else finished_at, None if r.memory is None else _dumps(r.memory),
        None if r.seat_places is None else _dumps(r.seat_places),
        None if r.seat_points is None else _dumps(r.seat_points),
        None if r.seat_verdicts is None else _dumps(r.seat_verdicts)))


def result_of(row: GameRow, seatings: dict[str, tuple[str, ...]] | None = None) -> GameResult:
    """The :class:`GameResult` of a row made by :func:`row_of`; ``seatings`` caches the parsed
    players (a tournament's games have few distinct seatings)."""
    players = None if seatings is None else seatings.get(row.players)
    if players is None:
        players = tuple(json.loads(row.players))
        if seatings is not None:
            seatings[row.players] = players
    if row.seat_places is None:
        return GameResult(id=row.id, players=players, winner=row.winner, reason=row.reason, offender=row.fault,
                          verdict=row.verdict, place=row.idx)
    return GameResult(id=row.id, players=players, winner=row.winner, reason=row.reason, offender=row.fault,
                      verdict=row.verdict, place=row.idx,
                      seat_places=_seat_values(row.seat_places, int),  # type: ignore[arg-type]
                      seat_points=_seat_values(row.seat_points, float))  # type: ignore[arg-type]


def stored_count(path: str | Path) -> int:
    """How many games the journal at ``path`` holds, read without writing to it (a judge may be
    writing it right now); 0 if there is no readable journal yet."""
    try:
        with closing(sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True, timeout=30)) as db:
            count: int = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            return count
    except sqlite3.Error:
        return 0


#: Seconds between checkpoints of the write-ahead log while games are being added.
#: SQLite's automatic checkpoint (every 1,000 pages, inside a commit, waiting for
#: two fsyncs) costs as much as storing many fast games; one a second costs little.
#: Committed games are durable in the log either way.
CHECKPOINT_EVERY = 1.0
#: Bytes the write-ahead log may reach before a checkpoint that empties it (a TRUNCATE one, which
#: holds the next commit back for as long as it takes).  The passive checkpoints alone rarely
#: empty it while games keep coming: a long connect4 run grew it to 837 MB in 20 s.
#: ``KOTHKIT_WAL_LIMIT_MB`` sets another (tests use a small one).
WAL_LIMIT = int(float(os.environ.get("KOTHKIT_WAL_LIMIT_MB") or 32) * 1024 * 1024)
#: Seconds between looks at the log's size.
WAL_LOOK_EVERY = 0.1


class _Checkpointer:
    """Checkpoints a journal's write-ahead log in a thread of its own, on a connection of its own.

    A checkpoint copies the log into the database file and syncs it: tens of
    milliseconds that the judge's thread, which hands games to the workers, must
    not spend waiting, or the workers run out of games to play.
    SQLite leaves the interpreter lock while it works, so this costs the
    judge's thread nothing.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._wake = threading.Event()
        # An Event, not a bool: the loop reads it again after waiting (close() sets it meanwhile).
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kothkit-journal-checkpoint", daemon=True)
        self._thread.start()

    def request(self) -> None:
        self._wake.set()

    def _run(self) -> None:
        # A short busy timeout: a reader holding an old snapshot (a leaderboard) must not hold
        # the judge's commits back for long; the log is emptied at a later look instead.
        db = sqlite3.connect(str(self._path), timeout=2, isolation_level=None)
        wal = Path(f"{self._path}-wal")
        try:
            while not self._stopping.is_set():
                woken = self._wake.wait(timeout=WAL_LOOK_EVERY)
                if self._stopping.is_set():
                    break
                if woken:
                    self._wake.clear()
                try:
                    size = wal.stat().st_size
                except OSError:
                    size = 0
                try:
                    if size > WAL_LIMIT:
                        # Copies every frame, waits for the writer's commit in progress, and then
                        # empties the log: a passive checkpoint never catches up with a writer that
                        # keeps appending, so the log would only grow.
                        db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
                    elif woken:
                        # PASSIVE never waits for readers or writers; what it cannot copy now, a later one does.
                        db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error:
                    pass  # the next one, or the journal's close, copies it
        finally:
            db.close()

    def close(self, timeout: float = 60.0) -> None:
        self._stopping.set()
        self._wake.set()
        self._thread.join(timeout)


def _kept_key(folder: str) -> str | bytes:
    """A kept record's key as SQLite takes it: the path as text, or for a path whose names are not
    UTF-8 (Python holds their bytes as lone surrogates, which SQLite's text refuses) its bytes."""
    try:
        folder.encode("utf-8")
    except UnicodeEncodeError:
        return folder.encode("utf-8", "surrogateescape")
    return folder


class JournalError(Exception):
    """The file is not a journal kothkit can use (not SQLite, truncated, another program's database)."""


#: Each table of a journal and its columns, as SCHEMA makes them.
_COLUMNS = {"games": [f for f in GameRow._fields if f not in GAMES_ADDED],
            "runs": ["id", "game", "seed", "settings", "bots", "started_at", "finished_at", "played", "reused"]}


def _check_file(db: sqlite3.Connection, path: Path) -> None:
    """JournalError if ``db`` (at ``path``) is cut short: its header counts more pages than the
    file holds (SQLite would only notice when it reads the missing pages, mid-run).  A file that
    is not an SQLite database fails here too, on the first read.

    Read through SQLite, never by opening the file: closing any other descriptor of it would
    drop the locks this process's connections hold on it (POSIX record locks).
    """
    try:
        size = path.stat().st_size
        wal = Path(f"{path}-wal").stat().st_size if Path(f"{path}-wal").exists() else 0
    except OSError:
        return
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    page = db.execute("PRAGMA page_size").fetchone()[0]
    # With a write-ahead log, the database may reach past its file until the log is copied in.
    if wal == 0 and size < pages * page:
        raise JournalError(f"{path}: the journal is truncated ({size} bytes; its header says {pages * page})")


def _check_schema(db: sqlite3.Connection, path: Path) -> None:
    """JournalError unless ``db`` is empty or has a journal's tables (read only: nothing is changed)."""
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    tables.discard("sqlite_sequence")
    if not tables:
        return
    for table, columns in _COLUMNS.items():
        found = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
        # The columns added since (RUNS_ADDED, GAMES_ADDED) come after these, and are added when it is opened.
        if found[:len(columns)] != columns or not set(found[len(columns):]) <= set(RUNS_ADDED) | set(GAMES_ADDED):
            raise JournalError(f"{path}: not a kothkit journal (its tables: {', '.join(sorted(tables))})")


def check(path: str | Path) -> None:
    """JournalError if the file at ``path`` exists and is not a journal kothkit can use; reads only."""
    path = Path(path)
    if not path.is_file() or path.stat().st_size == 0:
        return
    try:
        # immutable: reads the file alone, and makes no -wal or -shm file beside it.
        with closing(sqlite3.connect(f"file:{path.resolve()}?mode=ro&immutable=1", uri=True, timeout=30)) as db:
            _check_file(db, path)
            _check_schema(db, path)
    except sqlite3.DatabaseError as e:
        raise JournalError(f"{path}: not a usable kothkit journal ({e})") from None


#: The columns of :meth:`Journal.summaries`.
SUMMARY_COLUMNS = ", ".join(Summary._fields[:8])


def _seat_select(db: sqlite3.Connection) -> str:
    """What :meth:`Journal.results` selects for the seat places and points: the columns, or NULLs
    in a journal read (read-only) from before they were added."""
    try:
        have = {row[1] for row in db.execute("PRAGMA table_info(games)")}
    except sqlite3.DatabaseError:
        have = set()
    return "seat_places, seat_points" if "seat_places" in have else "NULL, NULL"


class Journal:
    def __init__(self, path: str | Path, readonly: bool = False):
        """``readonly``: a reader beside the journal's writer (another thread's or process's), which
        never writes: the reads below work, the writes fail."""
        self.path = Path(path)
        self._checkpointer: _Checkpointer | None = None
        if readonly:
            self.db = sqlite3.connect(f"file:{self.path.resolve()}?mode=ro", uri=True, timeout=30,
                                      isolation_level=None, check_same_thread=False)
            self.db.row_factory = sqlite3.Row
            self._seat_select = _seat_select(self.db)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None)
        try:
            # (The page count is checked by check(), before a run: this connection sees the log's
            # pages too, which a judge killed mid-checkpoint leaves past the end of the file.)
            _check_schema(self.db, self.path)
        except sqlite3.DatabaseError as e:
            self.db.close()
            raise JournalError(f"{self.path}: not a usable kothkit journal ({e})") from None
        except JournalError:
            self.db.close()
            raise
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        have = {row["name"] for row in self.db.execute("PRAGMA table_info(runs)")}
        for column, kind in RUNS_ADDED.items():
            if column not in have:
                self.db.execute(f"ALTER TABLE runs ADD COLUMN {column} {kind}")
        have = {row["name"] for row in self.db.execute("PRAGMA table_info(games)")}
        for column, kind in GAMES_ADDED.items():
            if column not in have:
                self.db.execute(f"ALTER TABLE games ADD COLUMN {column} {kind}")
        self._seat_select = _seat_select(self.db)
        if self.db.execute("PRAGMA user_version").fetchone()[0] == 0:
            self.db.execute(f"PRAGMA user_version={JOURNAL_VERSION}")
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        # When the log starts over, its file is cut back to this size (else it keeps its peak size).
        self.db.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
        # Game ids are hashes, so each batch of games lands all over the id index: with
        # SQLite's default 2 MB page cache, a journal of 100,000 games reads its index back
        # from the disk cache for every batch.  64 MB holds the index of about a million.
        self.db.execute("PRAGMA cache_size=-65536")
        self._checkpointed = time.monotonic()
        # (the checkpointer is started by the first add_rows)

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.close()
            self._checkpointer = None
        self.db.close()  # the last connection to close checkpoints what is left

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- games -----------------------------------------------------------------
    def add_rows(self, rows: list[GameRow]) -> None:
        """Store finished games, as rows made by :func:`row_of`, in one transaction (all or nothing)."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany(_INSERT, rows)
        if self._checkpointer is None:  # from the first games on: it also watches the log's size
            self._checkpointer = _Checkpointer(self.path)
        now = time.monotonic()
        if now - self._checkpointed >= CHECKPOINT_EVERY:
            self._checkpointed = now
            self._checkpointer.request()
        self._bound_log()

    def _bound_log(self) -> None:
        """Empty the write-ahead log here, holding the next games back, when it has grown to twice
        its limit: the checkpointer's thread is behind (a loaded machine gives it no turn), and the
        log would otherwise grow by a batch a commit.  So the log never passes twice its limit by
        more than one commit's pages, however fast games come and however slow the thread is."""
        try:
            size = os.stat(f"{self.path}-wal").st_size
        except OSError:
            return
        if size > 2 * WAL_LIMIT:
            try:
                self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            except sqlite3.Error:
                pass  # busy with the checkpointer's own: the log is being emptied

    def get(self, ids: list[str]) -> Iterator[GameRecord]:
        """Stored records of ``ids`` (missing ones skipped), in the order of ``ids``."""
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            q = f"SELECT * FROM games WHERE id IN ({','.join('?' * len(chunk))})"
            by_id = {r["id"]: r for r in self.db.execute(q, chunk)}
            for gid in chunk:
                if gid in by_id:
                    yield _row_to_record(by_id[gid])

    def outlines(self, ids: list[str]) -> Iterator[Outline]:
        """The :class:`Outline` of the stored games among ``ids``, in the order of ``ids``: what a
        results document shows of a game, without the records' logs and hashes, nor their Move tuples."""
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            q = (f"SELECT {', '.join(Outline._fields[:9])}, {self._seat_select}, "
                 f"{'seat_verdicts' if self._seat_select[0] == 's' else 'NULL'} "
                 f"FROM games WHERE id IN ({','.join('?' * len(chunk))})")
            by_id = {r[0]: r for r in self.db.execute(q, chunk)}
            for gid in chunk:
                row = by_id.get(gid)
                if row is not None:
                    yield _new_tuple(Outline, row)

    def results(self, ids: list[str]) -> Iterator[GameResult]:
        """The results (no moves, no logs) of the stored games among ``ids``, in no particular order."""
        seats: dict[str, tuple[str, ...]] = {}  # a tournament's games have few distinct seatings
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            q = (f"SELECT id, players, winner, reason, fault, verdict, {self._seat_select} FROM games"
                 f" WHERE id IN ({','.join('?' * len(chunk))})")
            for gid, players, winner, reason, fault, verdict, places, points in self.db.execute(q, chunk):
                names = seats.get(players)
                if names is None:
                    names = seats[players] = tuple(json.loads(players))
                if places is None:
                    yield GameResult(id=gid, players=names, winner=winner, reason=reason, offender=fault,
                                     verdict=verdict)
                else:
                    yield GameResult(id=gid, players=names, winner=winner, reason=reason, offender=fault,
                                     verdict=verdict, seat_places=_seat_values(places, int),  # type: ignore[arg-type]
                                     seat_points=_seat_values(points, float))  # type: ignore[arg-type]

    def summaries(self, ids: Sequence[str]) -> Iterator[Summary]:
        """The :class:`Summary` of the stored games among ``ids``, in no particular order: what a
        scoreboard keeps of a game."""
        for i in range(0, len(ids), 500):
            chunk = list(ids[i : i + 500])
            q = (f"SELECT {SUMMARY_COLUMNS}, {self._seat_select}, "
                 f"{'seat_verdicts' if self._seat_select[0] == 's' else 'NULL'} "
                 f"FROM games WHERE id IN ({','.join('?' * len(chunk))})")
            yield from (_new_tuple(Summary, r) for r in self.db.execute(q, chunk))

    def memory_peaks(self, ids: Sequence[str]) -> dict[str, int]:
        """Each bot's highest memory peak (MiB) over the stored games among ``ids``; a bot with none
        known (no memory cgroup, games from before peaks were kept) is left out."""
        peaks: dict[str, int] = {}
        for i in range(0, len(ids), 500):
            chunk = list(ids[i : i + 500])
            q = f"SELECT players, memory FROM games WHERE memory IS NOT NULL AND id IN ({','.join('?' * len(chunk))})"
            for players, memory in self.db.execute(q, chunk):
                for bot, mib in zip(_json_list(players) or (), _json_list(memory) or ()):
                    if type(mib) is int and isinstance(bot, str) and mib > peaks.get(bot, -1):
                        peaks[bot] = mib
        return peaks

    def all(self, game: str | None = None) -> Iterator[GameRecord]:
        q = "SELECT * FROM games" + (" WHERE game = ?" if game else "") + " ORDER BY idx, id"
        for row in self.db.execute(q, (game,) if game else ()):
            yield _row_to_record(row)

    def empty(self) -> bool:
        """True if the journal holds no game (without counting them all)."""
        return self.db.execute("SELECT 1 FROM games LIMIT 1").fetchone() is None

    def count(self) -> int:
        count: int = self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        return count

    def delete(self, ids: list[str]) -> None:
        """Remove the games ``ids``, in one transaction."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany("DELETE FROM games WHERE id = ?", [(i,) for i in ids])

    # -- runs ------------------------------------------------------------------
    def start_run(self, game: str, seed: int, settings: Mapping[str, object], bots: Sequence[Mapping[str, object]],
                  rounds: int | None = None, kind: str | None = None) -> int:
        """Record a run: its settings, and its bots as {name, hash, where} (where they were loaded from);
        ``kind`` "match" for a match or gauntlet, whose games stand apart from a tournament's standings."""
        with self.db:
            cur = self.db.execute(
                "INSERT INTO runs (game, seed, settings, bots, started_at, rounds, kind) VALUES (?,?,?,?,?,?,?)",
                (game, seed, json.dumps(settings, sort_keys=True), json.dumps(bots), time.time(), rounds, kind),
            )
        assert cur.lastrowid is not None  # set by the INSERT
        return cur.lastrowid

    def finish_run(self, run_id: int, played: int, reused: int) -> None:
        with self.db:
            self.db.execute("UPDATE runs SET finished_at=?, played=?, reused=? WHERE id=?",
                            (time.time(), played, reused, run_id))

    def last_run(self, game: str) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.db.execute("SELECT * FROM runs WHERE game=? ORDER BY id DESC LIMIT 1",
                                                  (game,)).fetchone()
        return row

    # -- what stateful bots were given (kothkit.bots.kept) ---------------------------
    def kept(self, folder: str) -> str | None:
        """The record kept of a stateful bot's folder (its key: where a run loaded it from), or None."""
        try:
            row = self.db.execute("SELECT record FROM kept WHERE folder=?", (_kept_key(folder),)).fetchone()
        except sqlite3.OperationalError:  # a journal of before the table, opened read-only
            return None
        return None if row is None else str(row[0])

    def keep(self, records: Mapping[str, str]) -> None:
        """Keep these records of stateful bots' folders (by key), in one transaction."""
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO kept (folder, record) VALUES (?, ?)",
                                [(_kept_key(k), v) for k, v in records.items()])

    def runs(self) -> list[dict[str, Any]]:
        """Every run, oldest first, ``bots`` and ``settings`` decoded."""
        found = []
        for row in self.db.execute("SELECT * FROM runs ORDER BY id"):
            r = dict(row)
            r["bots"], r["settings"] = json.loads(r["bots"]), json.loads(r["settings"])
            found.append(r)
        return found
