"""``kothkit report``: a journal as a static web site, or its leaderboard as Markdown.

The site is plain files any static host serves (and a browser opens from
``file://``): ``index.html`` with the leaderboard (points and Elo ratings, see
:mod:`kothkit.store.ratings`), the likelihood-of-superiority matrix and the crosstable (each
pair's wins, draws and losses), one page per bot (its games, its faults by
verdict, its reply times: median, 95th percentile and maximum, and the share
of the game's time budget it used), and a replay page per game
(:mod:`kothkit.results.replay`), all linked.  The pages are Jinja2 templates
(``kothkit/templates/report/``, in the frame of :mod:`kothkit.results.look`), autoescaped: every
name and text from a bot is escaped.  A report anyone may read (``boards_of``'s ``rename``) names
each bot by a public name and holds no bot's logs or stderr.  ``--markdown`` prints the
leaderboard as a Markdown table, ready to paste into a challenge post.

The index and bot pages are in English, or in the language of the gettext translations given
to :func:`write_site` (the report ``kothkit serve``'s admin downloads, in the admin's language):
the templates' words and this module's (marked with :func:`N_`; ``kothkit.serve.i18n``
extracts both into the site's catalogs), the verdicts' names, the ratings' notes, and the
games' reasons (``said``); the bots' names are as they are.

The games counted are those of the journal's last tournament run of each game
(the bots it had, with their content hashes, its seed, settings and rounds), as
``kothkit run`` counted them, ranked as it ranks them (the game's tie-breaks,
with the bots' ``submitted`` dates the run recorded); a match's or gauntlet's
games and superseded games are left out (``--all``: every game counts).  A
journal without runs counts every game.
"""

from __future__ import annotations

import contextlib
import functools
import gettext
import math
import re
import shutil
import statistics
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from kothkit.messages import fill, match, ordered
from kothkit.playing.progress import counted
from kothkit.results.archive import Archive, ArchiveError
from kothkit.results.look import render
from kothkit.results.public import private_record, private_transcript
from kothkit.results.report import memory_peaks
from kothkit.scoring import Scoring, Standing, Tally
from kothkit.store.ratings import Ratings, SkillRating, games_of, placed_above, rate, rate_tables
from kothkit.store.records import GameRecord


def N_(message: str) -> str:
    """Marks ``message`` for the site's catalogs; it is translated where a page shows it (:class:`Words`)."""
    return message


#: The ratings' notes (kothkit.store.ratings and this module's), with ``{name}`` where a value goes:
#: a page in another language fits a note to them (a note none fits is shown as it is).
NOTES = (N_("ratings need at least two bots"), N_("too few game pairs for an error estimate"),
         N_("ratings left out: {why}"), N_("{bots} played no games"),
         N_("some bots never met, directly or through others"),
         N_("{n} games of more than two seats are not rated (the Bradley-Terry model rates two-player games)"),
         N_("openskill (Plackett-Luce) from every seat's place, game after game: μ ± σ (docs/ratings.md)"))


@attrs.frozen
class Words:
    """The words of the index and bot pages: English (no ``translations``), or those of gettext's
    ``translations``; ``said``: a game's text (its reason) in that language, given the game."""

    translations: gettext.NullTranslations | None = None
    said: Callable[[str, str], str] | None = None
    #: The language's code (``zh_CN``: ``<html lang>``).
    lang: str = "en"

    def __call__(self, message: str, **values: object) -> str:
        """``message`` in the pages' language, ``%(name)s`` filled from ``values``."""
        text = message if self.translations is None else self.translations.gettext(message)
        return text % values if values else text

    def told(self, text: str, game: str) -> str:
        """A game's reason or outcome in the pages' language."""
        return text if self.said is None else self.said(text, game)

    def note(self, text: str) -> str:
        """A ratings' note (:data:`NOTES`) in the pages' language."""
        if self.translations is None:
            return text
        found = match(text, ordered(NOTES)) if text not in NOTES else (text, {})
        if found is None:
            return text
        msgid, values = found
        return fill(self(msgid), {k: self.note(v) for k, v in values.items()})


ENGLISH = Words()


@attrs.frozen
class Board:
    """One game's standings and games, as the report counts them."""

    game: str
    scoring: Scoring
    bots: tuple[str, ...]
    games: tuple[GameRecord, ...]
    standings: tuple[Standing, ...]
    #: The per-game thinking-time budget (seconds) of the run, or None.
    game_time: float | None
    #: Elo ratings of the standings' games (kothkit.store.ratings), as ``kothkit run`` shows them.
    ratings: Ratings | None = None
    #: For a report anyone may read: how its bots were renamed, and the games as stored.
    public: _Public | None = None
    #: The challenge's title (its kothkit.toml's ``[serve] title``), else the game's summary.
    title: str | None = None
    #: The seed of the run whose games these are, and when its last game was stored (Unix time).
    seed: int | None = None
    finished: float | None = None
    #: What the run recorded of each bot: its ``author``, ``url`` and ``language`` (bot.toml's).
    about: Mapping[str, Mapping[str, str]] = attrs.field(factory=dict)
    #: Games of more than two seats: each bot's openskill rating (kothkit.store.ratings.rate_tables),
    #: rated in the games' schedule order; empty otherwise.
    skills: Mapping[str, SkillRating] = attrs.field(factory=dict)
    #: Each bot's highest memory peak in its games, MiB (kothkit.results.report.memory_peaks);
    #: empty where no game kept one.
    memory: Mapping[str, int] = attrs.field(factory=dict)


@attrs.frozen
class _Public:
    """A report's bots renamed (bot -> public name), and its games as stored, by id (the replay
    pages re-play them)."""

    rename: Mapping[str, str]
    stored: Mapping[str, GameRecord]


def boards_of(archive: Archive, all_games: bool = False, rename: Mapping[str, str] | None = None,
              title: str | None = None, scoring: Mapping[str, Any] | None = None) -> list[Board]:
    """Each game's standings, from the games ``kothkit run`` counts (``all_games``: every game;
    a journal of matches alone: the matches' games).  With ``rename`` (bot -> its public name), a
    report anyone may read: every bot by its public name (one not given: ``bot-<n>``), and no
    bot's logs or stderr quotes (:mod:`kothkit.results.public`), and no bot's author or address.
    ``title``: the challenge's (else each game's summary heads its board); ``scoring``: the
    challenge's ``[scoring]``, over each game's own (how results count)."""
    from kothkit.playing.verify import is_match_run
    from kothkit.plugins import PluginError, get_game

    counted = archive.games(all_games) or archive.groups().matches
    public = None
    shown: Mapping[str, str] = {}
    if rename is not None:
        public = _Public(_every_bot(archive, counted, rename), {r.id: r for r in counted})
        shown = public.rename
    out_: list[Board] = []
    for game in sorted({r.game for r in counted}):
        # Ranked under the bots' own names, then renamed: the last tie-break is the name, and a
        # public report must order ties as the host's Scoreboard does.
        games = [r for r in counted if r.game == game]
        runs = [r for r in archive.runs if r.get("game") == game and not is_match_run(r)]
        game_time = None
        submitted: dict[str, str] = {}
        about: dict[str, dict[str, str]] = {}
        seed = None
        names = sorted({p for r in games for p in r.players})
        if runs:
            last = runs[-1]
            try:
                game_time = last["settings"].get("limits", {}).get("game_time")
                submitted = {b["name"]: str(b["submitted"]) for b in last["bots"] if b.get("submitted")}
                seed = last.get("seed") if isinstance(last.get("seed"), int) else None
                keys = ("language",) if public is not None else ("author", "url", "language")
                about = {b["name"]: {k: str(b[k]) for k in keys if isinstance(b.get(k), str)} for b in last["bots"]}
                if not all_games:
                    names = sorted({b["name"] for b in last["bots"]})
            except (ValueError, TypeError, KeyError, AttributeError):
                raise ArchiveError(f"{archive.path}: corrupt journal: run {last.get('id')} cannot be read") from None
        summary = None
        try:
            info = get_game(game)
            counting, summary = attrs.evolve(info.scoring, **(scoring or {})), info.summary
        except PluginError:
            counting = Scoring(**(scoring or {}))
        finished = max((archive.finished.get(r.id) or 0.0 for r in games), default=None) or None
        tally = Tally(counting, names)
        for r in games:
            tally.add(r.players, r.winner, places=r.seat_places, points=r.seat_points)
        standings = tally.standings(submitted)
        if public is not None:
            games = [private_record(r, shown, ()) for r in games]
            names = sorted(shown.get(n, n) for n in names)
            standings = [attrs.evolve(st, bot=shown.get(st.bot, st.bot)) for st in standings]
            about = {shown.get(n, n): v for n, v in about.items()}
        seated = any(r.seat_places is not None for r in games)
        skills = ({x.bot: x for x in rate_tables(sorted(games, key=lambda r: (r.index, r.id)), names)}
                  if seated else {})
        out_.append(Board(game, counting, tuple(names), tuple(games), tuple(standings), game_time,
                          None if seated else rate(games_of(games), names), public, title or summary, seed,
                          finished, about, skills, memory=memory_peaks(games)))
    return out_


def bots_of(archive: Archive, games: Iterable[GameRecord] | None = None) -> list[str]:
    """Every bot of ``games`` (default: all the journal's) and of the journal's runs, sorted."""
    bots = {p for r in (archive.records if games is None else games) for p in r.players}
    for run in archive.runs:
        with contextlib.suppress(KeyError, TypeError, AttributeError):  # (a damaged run names nobody)
            bots.update(str(b["name"]) for b in run["bots"])
    return sorted(bots)


def _every_bot(archive: Archive, games: Iterable[GameRecord], rename: Mapping[str, str]) -> dict[str, str]:
    """``rename`` for every bot of ``games`` and of the runs: a bot it does not name gets ``bot-<n>``
    (never its own name: that may be a login), and no two bots get one name."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for n, bot in enumerate(bots_of(archive, games), 1):
        name = rename.get(bot) or f"bot-{n}"
        while name in taken:
            name = f"{name}~{n}"
        out[bot] = name
        taken.add(name)
    return out


def _points(s: Standing, scoring: Scoring) -> str:
    if scoring.mean:
        return f"{s.points:.3f}"
    return str(int(s.points)) if float(s.points).is_integer() else f"{s.points:.2f}"


def _elo_cells(board: Board, bot: str) -> list[str] | None:
    """Elo, half its 95% interval and the Elo rank ("=" where intervals overlap), or None when the
    games could not be rated."""
    rated = board.ratings
    if rated is None or not rated.ratings:
        return None
    r = rated.of(bot)
    if r is None:
        return ["-", "-", "-"]
    shared = sum(x.rank == r.rank for x in rated.ratings) > 1
    return [f"{round(r.elo):+d}", f"{round(r.error)}" if math.isfinite(r.error) else "-",
            f"{'=' if shared else ''}{r.rank}"]


def _matches(board: Board) -> bool:
    return bool(board.standings) and board.standings[0].match_wins is not None


def _seated(board: Board) -> bool:
    """Whether the board's games are of more than two seats (every seat's result recorded)."""
    return any(r.seat_places is not None for r in board.games)


def _heads(board: Board) -> list[str]:
    """The leaderboard's headings after "#" and "bot", as ``kothkit run``'s table has them: where
    points are per match, the matches won, drawn and lost, then the games; in games of more seats,
    each bot's mean score per game with its standard error."""
    head = N_("score") if board.scoring.mean else N_("match points") if _matches(board) else N_("points")
    counts = ([N_("matches won"), N_("drawn"), N_("lost"), N_("games won"), N_("drawn"), N_("lost"), N_("games")]
              if _matches(board) else [N_("wins"), N_("draws"), N_("losses"), N_("games")])
    rated = board.ratings is not None and bool(board.ratings.ratings)
    return [head, *([N_("mean ± error"), N_("rating (μ ± σ)")] if _seated(board) else []), *counts,
            *([N_("memory peak")] if board.memory else []), *(["Elo", "±95%", N_("Elo rank")] if rated else [])]


def _cells(board: Board, s: Standing) -> list[str]:
    """The cells of :func:`_heads` for ``s``."""
    counts = [s.match_wins, s.match_draws, s.match_losses] if _matches(board) else []
    counts += [s.wins, s.draws, s.losses, s.games]
    skill = board.skills.get(s.bot)
    spread = [s.mean_error(), "-" if skill is None else f"{skill.mu:.3g} ± {skill.sigma:.2g}"] if _seated(board) else []
    # (a bot's highest memory peak in its games, where its memory cgroup kept one)
    memory = ([f"{board.memory[s.bot]} MiB" if s.bot in board.memory else "-"] if board.memory else [])
    return [_points(s, board.scoring), *spread, *map(str, counts), *memory, *(_elo_cells(board, s.bot) or ())]


def when(board: Board) -> str:
    """When the board's last game was stored, as a date and a UTC time (empty: not known)."""
    if board.finished is None:
        return ""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(board.finished))


def heading(board: Board, words: Words = ENGLISH) -> str:
    """The line under a board's title: its date, seed and games (the report's and the post's)."""
    if words.translations is None:  # (English: "1 game", "2 games")
        parts = [f"standings of {when(board)}" if board.finished else "standings"]
        if board.seed is not None:
            parts.append(f"seed {board.seed}")
        parts.append(f"{counted(len(board.games), 'game')} played by {counted(len(board.bots), 'bot')}")
        return ", ".join(parts)
    parts = [words(N_("standings of %(when)s"), when=when(board)) if board.finished else words(N_("standings"))]
    if board.seed is not None:
        parts.append(words(N_("seed %(seed)s"), seed=board.seed))
    parts.append(words(N_("%(games)s games played by %(bots)s bots"), games=len(board.games), bots=len(board.bots)))
    return words(N_(", ")).join(parts)


def elo_says_something(board: Board) -> bool:
    """Whether a leaderboard's Elo columns tell the bots apart: its Elo ranks separate more than
    half of them (with few games, most 95% intervals overlap and nearly every bot is "=1")."""
    rated = board.ratings
    if rated is None or not rated.ratings:
        return False
    return len({r.rank for r in rated.ratings}) * 2 > len(rated.ratings)


def faults_of(board: Board, bot: str) -> str:
    """The games ``bot`` lost by a fault of its own, by verdict ("2 timeout, 1 crash"), or "-"."""
    found = Counter(r.verdict for r in board.games if r.offender == bot and r.verdict and r.seat_verdicts is None)
    found.update(v for r in board.games if r.seat_verdicts is not None and bot in r.players
                 for p, v in zip(r.players, r.seat_verdicts) if p == bot and v)
    return ", ".join(f"{n} {v}" for v, n in sorted(found.items(), key=lambda x: (-x[1], x[0]))) or "-"


def _md(text: str) -> str:
    """A stranger's text in a Markdown line or table cell: on one line, and nothing it holds taken
    for markup (a link, HTML, code, emphasis, a cell's end)."""
    text = " ".join(text.split())
    return re.sub(r"([\\`*\[\]<>|])", r"\\\1", text)


def markdown(board: Board) -> str:
    """The board as a post's leaderboard: a heading (its title, date, seed and games), then each
    bot with its author, language and link where its run recorded them, its points and counts,
    its faults, and the Elo columns where they tell the bots apart (:func:`elo_says_something`)."""
    heads = _heads(board)
    elo = board.ratings is not None and bool(board.ratings.ratings)
    shown_elo = elo_says_something(board)
    if elo and not shown_elo:
        heads = heads[:-3]
    about = board.about
    authors = any(a.get("author") for a in about.values())
    languages = any(a.get("language") for a in about.values())
    extra = (["author"] if authors else []) + (["language"] if languages else [])
    title = board.title or board.game
    lines = [f"## {_md(title)}" + (f" ({board.game})" if title != board.game else ""), "",
             _md(heading(board)[0].upper() + heading(board)[1:]) + ".", ""]
    lines += ["| # | bot |" + "".join(f" {h} |" for h in extra + heads + ["faults"]),
              "|---:|---|" + "---|" * len(extra) + "---:|" * len(heads) + "---|"]
    for s in board.standings:
        a = about.get(s.bot, {})
        name = _md(s.bot)
        if a.get("url"):
            # (bot.toml's url has no space, < or >: a | would end the table's cell, a backslash escape what follows)
            name = f"[{name}](<{a['url'].replace('|', '%7C').replace(chr(92), '%5C')}>)"
        cells = ([_md(a.get("author", "")) or "-"] if authors else []) + ([_md(a.get("language", "")) or "-"]
                                                                          if languages else [])
        counts = _cells(board, s)
        if elo and not shown_elo:
            counts = counts[:-3]
        lines.append(f"| {s.rank} | {name} |" + "".join(f" {c} |" for c in cells + counts + [faults_of(board, s.bot)]))
    if elo and not shown_elo:
        lines += ["", f"Elo ratings left out: with {counted(len(board.games), 'game')} their 95% intervals overlap "
                      "for most bots (`kothkit report` shows them)."]
    return "\n".join(lines)


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q`` percentile (0-100) of ``values``."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


class _Names:
    """Safe, distinct file names for bots (a bot's name is a stranger's text)."""

    def __init__(self) -> None:
        self._of: dict[str, str] = {}

    def __call__(self, bot: str) -> str:
        if bot not in self._of:
            # Letters and digits of any script stay (a Chinese nickname is its own file name, not
            # "____.html"); anything else (a slash, a space, a control character) is "_".
            safe = re.sub(r"[^\w.-]", "_", unicodedata.normalize("NFC", bot)).strip(".")[:60] or "bot"
            name, n = safe, 1
            while f"{name}.html" in self._of.values():
                n += 1
                name = f"{safe}-{n}"
            self._of[bot] = f"{name}.html"
        return self._of[bot]


def _los_order(board: Board) -> list[str]:
    """The bots of the likelihood-of-superiority matrix: by Elo, bots of one Elo in the
    leaderboard's order (its tie-breaks), not by name."""
    if board.ratings is None or not board.ratings.ratings:
        return []
    place = {s.bot: i for i, s in enumerate(board.standings)}
    return [r.bot for r in sorted(board.ratings.ratings,
                                  key=lambda r: (-round(r.elo, 6), place.get(r.bot, len(place)), r.bot))]


def _index_parts(board: Board, words: Words = ENGLISH) -> dict[str, Any]:
    """What ``report/index.html`` shows of ``board``, worked out."""
    rated = board.ratings if board.ratings is not None and board.ratings.ratings else None
    # The crosstable: the row bot's wins-draws-losses against the column bot (in games of more
    # seats: how often it placed above, level with and below the column bot).
    wdl: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    above = placed_above(r for r in board.games if r.seat_places is not None)
    for (me, other), (n, games) in above.items():
        below = above.get((other, me), (0, 0))[0]
        wdl[me, other] = [n, games - n - below, below]
    for r in board.games:
        if r.seat_places is not None or len(r.players) != 2:
            continue
        a, b = r.players
        for me, other in ((a, b), (b, a)):
            wdl[me, other][0 if r.winner == me else 1 if r.winner is None else 2] += 1
    return {
        "board": board, "heads": [words(h) for h in _heads(board)],
        "rows": [(s, _cells(board, s)) for s in board.standings],
        "heading": heading(board, words),
        "rated": rated is not None, "los": rated.los if rated is not None else {},
        "los_order": _los_order(board),
        "notes": [words.note(n) for n in board.ratings.notes] if board.ratings else
        ([words.note(NOTES[-1])] if board.skills else ()),
        "seated": _seated(board),
        "order": [s.bot for s in board.standings], "wdl": wdl,
        "faults": sorted(Counter(fault for r in board.games for fault in _faults(r)).items()),
    }


def _faults(r: GameRecord) -> list[tuple[str, str]]:
    """(bot, verdict) of each fault of game ``r``: the offender's, or in a game of more seats each
    seat's that left by a fault."""
    if r.seat_verdicts is not None:
        return [(p, v) for p, v in zip(r.players, r.seat_verdicts) if v]
    return [(r.offender or "?", r.verdict)] if r.verdict else []


def bot_stats(board: Board, bot: str) -> dict:
    games = [r for r in board.games if bot in r.players]
    times = [m.ms for r in games for m in r.moves if r.players[m.seat] == bot]
    per_game = [sum(m.ms for m in r.moves if r.players[m.seat] == bot) / 1000 for r in games]
    stats = {"games": len(games), "replies": len(times),
             "faults": Counter(v for r in games for p, v in _faults(r) if p == bot)}
    if times:
        stats.update(median=statistics.median(times), p95=percentile(times, 95), max=max(times))
    if per_game:
        stats.update(think_max=max(per_game), think_mean=statistics.fmean(per_game))
        if board.game_time:
            stats.update(budget_max=100 * max(per_game) / board.game_time,
                         budget_mean=100 * statistics.fmean(per_game) / board.game_time)
    return stats


def _bot_page(board: Board, bot: str, links: dict[str, Any], words: Words = ENGLISH) -> str:
    st = bot_stats(board, bot)
    rank = next((s.rank for s in board.standings if s.bot == bot), None)
    if words.translations is None:  # (English: "1 game", "2 games")
        counts = f"{counted(st['games'], 'game')}, {counted(st['replies'], 'reply', 'replies')}"
    else:
        counts = words(N_("%(games)s games, %(replies)s replies"), games=st["games"], replies=st["replies"])
    return render("report/bot.html", words.translations, board=board, bot=bot, rank=rank, st=st, counts=counts,
                  games=[r for r in board.games if bot in r.players], **_page_words(words), **links)


def _page_words(words: Words) -> dict[str, Any]:
    """What the index and bot pages' templates are given of their language."""
    return {"tr": words, "told": words.told, "lang": words.lang.replace("_", "-")}


def _told(said: Callable[[str, str], str], game: str, text: str) -> str:
    return said(text, game)


def write_site(archive: Archive, dest: Path, boards: list[Board], pages: bool = True,
               words: Mapping[str, str] | None = None, lang: str = "en",
               said: Callable[[str, str], str] | None = None,
               translations: gettext.NullTranslations | None = None) -> int:
    """Write the site into ``dest`` (made afresh); returns the number of replay pages.  ``words``,
    ``lang`` and ``said`` (a text of the game named by its second argument, in ``lang``): the replay
    pages in another language than English (kothkit.results.replay.page_of); ``translations``
    (gettext's, in ``lang``) and ``said``: the index and bot pages in it (:class:`Words`)."""
    from kothkit.results.archive import transcript
    from kothkit.results.replay import page_name, page_of, replay_page

    if dest.exists():
        if not (dest / "index.html").is_file() and any(dest.iterdir()):
            raise ArchiveError(f"{dest}: exists and is not a kothkit report; give a new or empty folder")
        shutil.rmtree(dest)
    (dest / "bots").mkdir(parents=True)
    (dest / "games").mkdir()
    links: dict[str, Any] = {"bot_file": _Names(), "replay_file": page_name if pages else None}
    language = Words(translations, said, lang) if translations is not None else ENGLISH
    written = 0
    for board in boards:
        for bot in board.bots:
            (dest / "bots" / links["bot_file"](bot)).write_text(_bot_page(board, bot, links, language),
                                                                 encoding="utf-8")
        if pages:
            for r in board.games:
                nav = render("report/replay_nav.html", translations, game=board.game, players=r.players, **links)
                told = functools.partial(_told, said, board.game) if said is not None else None
                if board.public is None:
                    page = replay_page(archive, r, nav) if words is None else page_of(
                        transcript(archive, r, pictures=True), nav, words, lang, told)
                else:  # re-played from the stored game, its bots renamed as the site names them
                    page = page_of(private_transcript(archive, board.public.stored[r.id], True,
                                                      board.public.rename, (), pictures=True), nav, words, lang, told)
                (dest / "games" / page_name(r)).write_text(page, encoding="utf-8")
                written += 1
    (dest / "index.html").write_text(render("report/index.html", translations,
                                            boards=[_index_parts(b, language) for b in boards], nan=math.nan,
                                            **_page_words(language), **links), encoding="utf-8")
    return written
