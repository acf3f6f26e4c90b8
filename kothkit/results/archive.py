"""A journal read for people: opened read-only with clear errors, games found by index or id,
and each record re-played through its game into a :class:`Transcript`.

The journal stores what the bots replied, not what the judge sent them.  A game
is a pure state machine, so playing the recorded replies into a fresh match
gives back every line the judge sent, the board after each move (the game's
``Match.render()``) and its picture (the ``kothkit_picture`` hook), exactly as they
were.  ``kothkit show``, ``export``, the replay pages and ``report`` all read
games through this module; none of them writes to the journal.
"""

from __future__ import annotations

import datetime
import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any, Literal, cast

import attrs

import kothkit
from kothkit.game import Clock, GameInfo, Match, Outcome, Prompt, Round, SeatClocks, Setup, Verdict
from kothkit.limits import Limits
from kothkit.playing import challenge as challenges
from kothkit.playing import settings as run_settings
from kothkit.playing.openings import KEY as OPENINGS_KEY
from kothkit.playing.openings import game_rules
from kothkit.store.journal import JOURNAL_VERSION, memory_of, seats_of
from kothkit.store.records import LATE_REPLY, LOG_MOVES, GameRecord, Move, left_at

#: Version of the per-game JSON document (``kothkit export --format json``, embedded in replay pages).
DOCUMENT_VERSION = 1
_COLUMNS = {"id", "game", "idx", "players", "hashes", "seed", "winner", "reason", "fault", "verdict", "moves",
            "logs", "seconds", "finished_at"}


class ArchiveError(Exception):
    """A journal that cannot be read, or a game that cannot be found; the message is one line."""


def journal_path(target: str) -> Path:
    """The journal of ``target``: a journal file, a challenge folder (or its kothkit.toml), or a
    game name (``.kothkit/GAME.sqlite``, where ``kothkit run GAME`` keeps it)."""
    p = Path(target)
    if p.is_file() and not target.endswith(".toml"):
        return p
    if target.endswith(".toml") or Path(target, challenges.FILE).is_file():
        try:
            ch = challenges.load(target)
        except challenges.ChallengeError as e:
            raise ArchiveError(str(e)) from None
        return run_settings.journal_path(ch.game, ch)
    if "/" in target or target.endswith((".sqlite", ".db")):
        raise ArchiveError(f"{target}: no such journal")
    path = run_settings.journal_path(target)
    if not path.is_file():
        raise ArchiveError(f"{path}: no journal for {target!r} here (give the journal's path, a challenge "
                           "folder or the game that `kothkit run` played in this folder)")
    return path


@attrs.frozen
class Groups:
    """A journal's games by how they count."""

    #: The games of the current standings (each game's last tournament run), as ``kothkit run`` counts them.
    current: tuple[GameRecord, ...]
    #: The games of ``kothkit match`` and ``gauntlet``, kept apart from the standings.
    matches: tuple[GameRecord, ...]
    #: The games of earlier runs that no longer count (``kothkit prune`` deletes them).
    superseded: tuple[GameRecord, ...]


@attrs.define
class Archive:
    """Every game of one journal, with the runs that played them."""

    path: Path
    records: tuple[GameRecord, ...]
    #: Unix time each game was stored, by id.
    finished: dict[str, float]
    runs: tuple[dict, ...]
    _finder: Any = None
    _groups: Any = None

    def _settings(self) -> Any:
        from kothkit.playing.verify import _Settings

        if self._finder is None:
            self._finder = _Settings(list(self.runs))
        return self._finder

    def groups(self) -> Groups:
        """The games as ``kothkit run`` counts them: the current standings', the matches' and the
        superseded ones (see :func:`kothkit.playing.verify.partition`)."""
        if self._groups is None:
            from kothkit.playing.verify import partition

            current, matches, superseded = partition(self.records, list(self.runs), self._settings())
            self._groups = Groups(tuple(current), tuple(matches), tuple(superseded))
        return self._groups

    def games(self, all_games: bool = False) -> tuple[GameRecord, ...]:
        """The current standings' games (``all_games``: every game of the journal)."""
        return self.records if all_games else self.groups().current

    def find(self, key: str, all_games: bool = False) -> GameRecord:
        """The game whose index is ``key`` (digits), else whose id starts with ``key``.  An index
        names a game of the current standings, else of a match or gauntlet (with ``all_games``, else of
        a superseded run): each kind of game numbers its own, so the first kind that has it wins."""
        key = key.strip().lower()
        found: list[GameRecord] = []
        if key.isdigit():
            g = self.groups()
            for kind in (g.current, g.matches, *((g.superseded,) if all_games else ())):
                found = [r for r in kind if r.index == int(key)]
                if found:
                    break
        if not found and key:
            found = [r for r in self.records if r.id.startswith(key)]
        if len(found) == 1:
            return found[0]
        if not found:
            raise ArchiveError(f"{self.path}: no game has index or id {key!r} ({len(self.records)} games; "
                               f"`kothkit show {self.path}` lists them)")
        listed = "; ".join(f"#{r.index} {r.id[:12]} {' vs '.join(r.players)}" for r in found[:10])
        more = f" and {len(found) - 10} more" if len(found) > 10 else ""
        raise ArchiveError(f"{self.path}: {len(found)} games match {key!r}: {listed}{more}; give more of the id")

    def settings(self, r: GameRecord) -> tuple[dict | None, int | None]:
        """(settings, round) of the run that played ``r``: its limits and rules, and its round
        (1-based); (None, None) when no run of the journal reproduces the game's id."""
        finder = self._settings()
        found = finder.find_run(r)
        if found is None:
            return None, None
        slot = finder.slot(r, found)
        return found[2], None if slot is None else slot // 2 + 1


    def run_seed_slot(self, r: GameRecord) -> tuple[int, int | None]:
        """(the seed of the run that played ``r``, the game's slot in it); (0, None) if none does."""
        finder = self._settings()
        found = finder.find_run(r)
        if found is None:
            return 0, None
        return found[1], finder.slot(r, found)


def _limits_of(stored: object) -> Limits | None:
    """The limits a run stored (fields this kothkit does not know left out), or None."""
    if not isinstance(stored, dict):
        return None
    known = {f.name for f in attrs.fields(Limits)}
    try:
        return Limits(**{k: v for k, v in stored.items() if k in known})
    except (ValueError, TypeError):
        return None


def open_journal(path: Path) -> Archive:
    """Read every game of the journal at ``path``; ArchiveError (one line naming the file) when it
    is missing, not a kothkit journal, from a newer kothkit, or corrupt.  Never writes to it."""
    path = Path(path)
    if not path.is_file():
        raise ArchiveError(f"{path}: no such journal")
    try:
        with open(path, "rb") as f:
            magic = f.read(16)
    except OSError as e:
        raise ArchiveError(f"{path}: cannot read it: {e.strerror}") from None
    if magic != b"SQLite format 3\x00":
        raise ArchiveError(f"{path}: not a kothkit journal (not an SQLite database)")
    try:
        with closing(sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True, timeout=30)) as db:
            db.row_factory = sqlite3.Row
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > JOURNAL_VERSION:
                raise ArchiveError(f"{path}: written by a newer kothkit (journal version {version}; this is "
                                   f"kothkit {kothkit.__version__}, which reads version {JOURNAL_VERSION})")
            columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
            if not _COLUMNS <= columns:
                raise ArchiveError(f"{path}: not a kothkit journal (no games table with kothkit's columns)")
            check = db.execute("PRAGMA quick_check(1)").fetchone()[0]
            if check != "ok":
                raise ArchiveError(f"{path}: corrupt journal ({check})")
            records, finished = [], {}
            for row in db.execute("SELECT * FROM games ORDER BY idx, id"):
                try:
                    records.append(_record(row))
                except (ValueError, TypeError, KeyError, IndexError) as e:
                    raise ArchiveError(f"{path}: corrupt journal: game {str(row['id'])[:16]} cannot be read "
                                       f"({type(e).__name__}: {e})") from None
                finished[row["id"]] = row["finished_at"]
            try:
                runs = tuple(_run(r) for r in db.execute("SELECT * FROM runs ORDER BY id"))
            except sqlite3.OperationalError:
                runs = ()
            except (ValueError, TypeError) as e:
                raise ArchiveError(f"{path}: corrupt journal: a run cannot be read ({type(e).__name__}: {e})") from None
    except sqlite3.DatabaseError as e:
        raise ArchiveError(f"{path}: corrupt journal ({e})") from None
    return Archive(path=path, records=tuple(records), finished=finished, runs=runs)


def read_game(path: Path, game_id: str) -> Archive | None:
    """An archive of the one game ``game_id`` of the journal at ``path``, or None when it holds no
    such game: what one game's transcript needs (its settings, when it was stored), read-only and
    without reading every game (a host's journal holds tens of thousands of games, and one run
    each time its bots changed: only each distinct setting's latest run is read, without its bots).
    ArchiveError as :func:`open_journal` for a file that is not a readable journal."""
    path = Path(path)
    if not path.is_file():
        raise ArchiveError(f"{path}: no such journal")
    try:
        with closing(sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True, timeout=30)) as db:
            db.row_factory = sqlite3.Row
            row = db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                return None
            try:
                record = _record(row)
            except (ValueError, TypeError, KeyError, IndexError) as e:
                raise ArchiveError(f"{path}: corrupt journal: game {str(row['id'])[:16]} cannot be read "
                                   f"({type(e).__name__}: {e})") from None
            runs = []
            for r in db.execute("SELECT MAX(id) AS id, game, seed, settings, MAX(rounds) AS rounds FROM runs "
                                "WHERE game = ? GROUP BY game, seed, settings ORDER BY MAX(id)", (record.game,)):
                try:
                    runs.append({**dict(r), "settings": json.loads(r["settings"]), "bots": []})
                except ValueError:
                    continue
    except sqlite3.DatabaseError as e:
        raise ArchiveError(f"{path}: corrupt journal ({e})") from None
    return Archive(path=path, records=(record,), finished={record.id: row["finished_at"]}, runs=tuple(runs))


def _run(row: sqlite3.Row) -> dict:
    """A run as ``Journal.runs`` gives it: ``bots`` and ``settings`` decoded."""
    r = dict(row)
    r["bots"], r["settings"] = json.loads(r["bots"]), json.loads(r["settings"])
    if not isinstance(r["bots"], list) or not isinstance(r["settings"], dict):
        raise ValueError("bots or settings of the wrong kind")
    return r


def _record(row: sqlite3.Row) -> GameRecord:
    players = tuple(json.loads(row["players"]))
    if not all(isinstance(p, str) for p in players):
        raise ValueError("players are not names")
    moves = tuple(Move(int(m[0]), m[1], float(m[2])) for m in json.loads(row["moves"]))
    logs = json.loads(row["logs"])
    if not isinstance(logs, dict):
        raise ValueError("logs are not a mapping")
    return GameRecord(id=str(row["id"]), game=str(row["game"]), index=int(row["idx"]), players=players,
                      hashes=tuple(json.loads(row["hashes"])), seed=int(row["seed"]), winner=row["winner"],
                      reason=str(row["reason"]), offender=row["fault"], verdict=row["verdict"], moves=moves,
                      logs=logs, seconds=float(row["seconds"]), memory=memory_of(row), **seats_of(row))


# -- logs --------------------------------------------------------------------------------------
@attrs.frozen
class LogLine:
    bot: str
    #: The move the line came during (1 is the first reply), or None: after the game was over.
    move: int | None
    #: "stderr" or "aside" (a diagnostic line such as the classic12 DEBUG).
    stream: str
    text: str


def log_lines(r: GameRecord, bot: str) -> list[LogLine]:
    """``bot``'s kept log of game ``r``, line by line, each with the move it came during (journals
    written before moves were noted give every line as after the game)."""
    text = r.logs.get(bot)
    if not isinstance(text, str) or bot in (LOG_MOVES, LATE_REPLY):
        return []
    lines = text.split("\n")
    marks = r.logs.get(LOG_MOVES, {})
    mine = marks.get(bot, {}) if isinstance(marks, dict) else {}
    tags = mine.get("moves") if isinstance(mine, dict) else None
    n_err = mine.get("stderr", len(lines)) if isinstance(mine, dict) else len(lines)
    after = len(r.moves) + 1
    if not isinstance(tags, list) or len(tags) != len(lines):
        tags = [after] * len(lines)
    out = []
    for i, (line, tag) in enumerate(zip(lines, tags)):
        if i < n_err and line == "" and i == n_err - 1:
            continue  # the newline that ended the stderr
        tag = tag if isinstance(tag, int) else after
        out.append(LogLine(bot, tag + 1 if tag < after else None, "stderr" if i < n_err else "aside", line))
    return out


def late_reply(r: GameRecord) -> tuple[int, Any, float] | None:
    """(seat, reply, ms) of the reply that came after its deadline, if the record kept one."""
    late = r.logs.get(LATE_REPLY)
    if isinstance(late, list) and len(late) == 3 and isinstance(late[0], int):
        return late[0], late[1], float(late[2])
    return None


# -- re-playing a record -----------------------------------------------------------------------
@attrs.frozen
class Step:
    """One reply of a game, with what the judge sent before it and the board after it."""

    number: int
    seat: int
    #: (seat, line) of every line the judge sent since the previous reply (notices, then the prompt).
    sent: tuple[tuple[int, str], ...]
    reply: Any
    ms: float
    #: The game's reason, when it refused this reply (the game ended on it).
    rejected: str | None = None
    #: The match's ``render()`` after the reply, or None.
    board: str | None = None
    #: The game's picture after the reply (kothkit.picture panels as JSON), or None.
    picture: list | None = None


@attrs.frozen
class Transcript:
    record: GameRecord
    info: GameInfo | None
    rules: dict
    limits: dict | None
    round: int | None
    finished_at: float | None
    steps: tuple[Step, ...]
    #: The board and picture before the first reply.
    start_board: str | None = None
    start_picture: list | None = None
    #: (seat, line) of the lines sent for a reply that never came in time (the game ended on a fault).
    pending: tuple[tuple[int, str], ...] = ()
    #: (seat, line) of the messages sent once the game was over.
    final: tuple[tuple[int, str], ...] = ()
    #: Why the record could not be re-played (missing plugin, a game that disagrees), or None.
    problem: str | None = None
    #: Why the game's picture hook failed (kothkit.picture.PictureError), when pictures were asked
    #: for: the pictures stop there and the text boards stand in.
    picture_problem: str | None = None


def _encode(match: Match, payload: Any) -> str:
    try:
        return match.encode(payload)
    except Exception:  # noqa: BLE001 - a game's codec failing must not stop a transcript
        return repr(payload)


def _draw(boards: bool, match: Match, pictures) -> tuple[str | None, list | None]:
    board = picture = None
    if boards:
        try:
            board = match.render()
        except Exception as e:  # noqa: BLE001
            board = f"(render failed: {type(e).__name__}: {e})"
    if pictures is not None:
        picture = pictures(match)
    return board, picture


class _Pictures:
    """A game's pictures, drawn until its hook first fails; then ``problem`` says how and where."""

    def __init__(self, info: GameInfo) -> None:
        self.info = info
        self.problem: str | None = None
        self.move = 0

    def __call__(self, match: Match) -> list | None:
        from kothkit.picture import PictureError, picture_of

        if self.problem is not None:
            return None
        try:
            return picture_of(self.info, match)
        except PictureError as e:
            self.problem = f"{e} (at move {self.move})"
            return None


def _asked(step: Prompt | Round | Outcome, seat: int | None) -> Prompt | Outcome:
    """The prompt a re-play answers: ``step``, or in a Round ``seat``'s prompt (its lowest seat's
    when ``seat`` has none: the record and the game then disagree, which the caller says)."""
    if isinstance(step, Round):
        found = step.prompt_of(seat) if seat is not None else None
        return found or min(step.prompts, key=lambda p: p.seat)
    return step


def _leave_at(match: Match, r: GameRecord, left: dict[int, list[int]], moves: int) -> None:
    """Take the seats that left ``r``'s game after ``moves`` replies out of the re-play, as the
    referee did (``Match.leave``, with each seat's recorded verdict)."""
    verdicts = r.seat_verdicts or ()
    for seat in left.get(moves, ()):
        verdict = verdicts[seat] if 0 <= seat < len(verdicts) else None
        match.leave(seat, cast(Verdict, verdict or "fault"), "left the game")


def transcript(archive: Archive, r: GameRecord, *, info: GameInfo | None | Literal[True] = True,
               boards: bool = True, pictures: bool = False) -> Transcript:
    """Re-play ``r`` through its game (``info``: the installed game by default (True), None when missing)."""
    from kothkit.plugins import PluginError, get_game

    settings, rnd = archive.settings(r)
    if info is True:
        try:
            info = get_game(r.game)
        except PluginError:
            info = None
    fin = archive.finished.get(r.id)
    limits = settings["limits"] if settings else None
    if info is None:
        bare = tuple(Step(i + 1, m.seat, (), m.reply, m.ms) for i, m in enumerate(r.moves))
        return Transcript(r, None, dict(settings["rules"]) if settings else {}, limits, rnd, fin, bare,
                          problem=f"the game {r.game!r} is not installed (its plugin is missing): moves and "
                                  "logs only, no prompts or boards")
    rules = {**info.rules, **(settings["rules"] if settings else {})}
    if OPENINGS_KEY in rules:  # a match's openings: the game's own, from its slot
        rules = game_rules(info, rules, *archive.run_seed_slot(r))
    draw_pictures = _Pictures(info) if pictures else None
    boards = boards and info.renders
    steps: list[Step] = []
    problem = None
    start_board = start_picture = None
    final: tuple = ()
    pending: tuple = ()
    try:
        # The limits, and the seats' clock kept from the replies' times as the referee kept it, for a
        # game that tells its bots their limits and time left (gomocup's INFO lines).
        told = _limits_of(limits)
        clock = SeatClocks([0.0] * len(r.players), told.game_time if told is not None else None)
        match = info.match(Setup(players=r.players, seed=r.seed, rules=rules, limits=told, clock=clock))
        start_board, start_picture = _draw(boards, match, draw_pictures)
        # Seats that left a game of more seats by a fault leave the re-play where they left the game.
        left = left_at(r.logs)
        for i, m in enumerate(r.moves):
            _leave_at(match, r, left, i)
            step = _asked(match.next(), m.seat)
            if isinstance(step, Outcome):
                problem = f"the game ended after {i} replies, but the record has {len(r.moves)}"
                steps += [Step(k + 1, x.seat, (), x.reply, x.ms) for k, x in enumerate(r.moves[i:], i)]
                break
            sent = tuple((n.seat, _encode(match, n.payload)) for n in step.notices)
            sent += ((step.seat, _encode(match, step.payload)),)
            if step.seat != m.seat:
                problem = f"move {i + 1}: the record has seat {m.seat} replying, the game asked seat {step.seat}"
            rejected = match.play(m.seat, m.reply)
            if clock.budget is not None and step.clock != Clock.START and 0 <= m.seat < len(clock.used):
                clock.used[m.seat] += m.ms / 1000
            if draw_pictures is not None:
                draw_pictures.move = i + 1
            board, picture = _draw(boards, match, draw_pictures) if rejected is None else (None, None)
            steps.append(Step(i + 1, m.seat, sent, m.reply, m.ms, rejected.reason if rejected else None,
                              board, picture))
            if rejected is not None and not left:
                break  # (in a game of more seats, the seat left and the others went on)
        if left:
            _leave_at(match, r, left, len(r.moves))
        end = _asked(match.next(), None)
        if left and isinstance(end, Outcome):
            pass  # the game's own end, seats that left and all
        elif not isinstance(end, Outcome) and r.offender is not None and (not steps or steps[-1].rejected is None):
            pending = tuple((n.seat, _encode(match, n.payload)) for n in end.notices)
            pending += ((end.seat, _encode(match, end.payload)),)
        if r.offender is not None and r.offender in r.players:
            seat = r.players.index(r.offender)
            reason = r.reason[len(f"{r.verdict}: "):] if r.reason.startswith(f"{r.verdict}: ") else r.reason
            # A journal's verdict string, which forfeit only writes into the reason (a StrEnum is one too).
            end = match.forfeit(seat, cast(Verdict, r.verdict or "fault"), reason)
        elif not isinstance(end, Outcome):
            end = Outcome(None if r.winner is None else r.players.index(r.winner), r.reason)
        final = tuple((msg.seat, _encode(match, msg.payload)) for msg in match.final(end))
        if steps and steps[-1].rejected is None and r.offender is not None:
            # The last board shows the outcome (a fault ends the game after the last accepted reply).
            board, picture = _draw(boards, match, draw_pictures)
            steps[-1] = attrs.evolve(steps[-1], board=board, picture=picture)
    except Exception as e:  # noqa: BLE001 - a plugin that fails on its own record: say so, keep the moves
        problem = f"{r.game} could not re-play this record: {type(e).__name__}: {e}"
        done = len(steps)
        steps += [Step(k + 1, x.seat, (), x.reply, x.ms) for k, x in enumerate(r.moves[done:], done)]
    return Transcript(r, info, rules, limits, rnd, fin, tuple(steps), start_board, start_picture, pending, final,
                      problem, draw_pictures.problem if draw_pictures is not None else None)


def iso_time(t: float | None) -> str | None:
    if t is None:
        return None
    return datetime.datetime.fromtimestamp(t, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)


def document(t: Transcript) -> dict:
    """The game as one JSON document: setup, seats, every prompt and reply with its time, outcome,
    logs.  (``kothkit export --format json``; the replay page embeds it.)"""
    r = t.record
    late = late_reply(r)
    return {
        "kothkit": kothkit.__version__, "document": "kothkit-game", "version": DOCUMENT_VERSION,
        "game": r.game, "id": r.id, "index": r.index, "round": t.round, "seed": r.seed,
        "finished_at": iso_time(t.finished_at), "rules": _jsonable(t.rules), "limits": t.limits,
        "players": list(r.players), "hashes": list(r.hashes),
        "steps": [{"move": s.number, "seat": s.seat, "bot": r.players[s.seat] if s.seat < len(r.players) else None,
                   "sent": [{"seat": seat, "line": line} for seat, line in s.sent],
                   "reply": _jsonable(s.reply), "ms": s.ms, "rejected": s.rejected} for s in t.steps],
        "late_reply": None if late is None else {"seat": late[0],
                                                 "bot": r.players[late[0]] if late[0] < len(r.players) else None,
                                                 "reply": _jsonable(late[1]), "ms": late[2]},
        "pending": [{"seat": seat, "line": line} for seat, line in t.pending],
        "final": [{"seat": seat, "line": line} for seat, line in t.final],
        # "fault" is the old name of "offender", kept for old readers.
        "outcome": {"winner": r.winner, "reason": r.reason, "offender": r.offender, "verdict": r.verdict,
                    "fault": r.offender},
        "logs": {bot: [{"move": ln.move, "stream": ln.stream, "text": ln.text} for ln in log_lines(r, bot)]
                 for bot in r.players},
        "problem": t.problem,
    }


def games_of(archive: Archive, *, bot: str | None = None, verdict: str | None = None, loser: str | None = None,
             round: int | None = None, records: Iterable[GameRecord] | None = None) -> Iterator[GameRecord]:
    """The games that pass every filter given (``loser``: lost, by a verdict or not; in a game of more
    seats, not alone in first place), of ``records`` (default: the archive's current standings' games);
    ``verdict``: any seat's, in a game of more seats."""
    for r in archive.groups().current if records is None else records:
        if bot is not None and bot not in r.players:
            continue
        if verdict is not None and r.verdict != verdict and verdict not in (r.seat_verdicts or ()):
            continue
        if loser is not None and (loser not in r.players or r.winner is None or r.winner == loser):
            continue
        if round is not None and archive.settings(r)[1] != round:
            continue
        yield r
