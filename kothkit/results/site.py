"""``kothkit report``: a journal as a static web site, or its leaderboard as Markdown.

The site is plain files any static host serves (and a browser opens from
``file://``): ``index.html`` with the leaderboard (points and Elo ratings, see
:mod:`kothkit.store.ratings`), the likelihood-of-superiority matrix and the crosstable (each
pair's wins, draws and losses), one page per bot (its games, its faults by
verdict, its reply times: median, 95th percentile and maximum, and the share
of the game's time budget it used), and a replay page per game
(:mod:`kothkit.results.replay`), all linked.  Every name and text from a bot is
escaped.  ``--markdown`` prints the leaderboard as a Markdown table, ready to
paste into a challenge post.

The games counted are those of the journal's last tournament run of each game
(the bots it had, with their content hashes, its seed, settings and rounds), as
``kothkit run`` counted them, ranked as it ranks them (the game's tie-breaks,
with the bots' ``submitted`` dates the run recorded); a match's or gauntlet's
games and superseded games are left out (``--all``: every game counts).  A
journal without runs counts every game.
"""

from __future__ import annotations

import html
import math
import re
import shutil
import statistics
from collections import Counter, defaultdict
from pathlib import Path

import attrs

from kothkit.playing.progress import counted
from kothkit.results.archive import Archive, ArchiveError
from kothkit.scoring import Scoring, Standing, Tally
from kothkit.store.ratings import Ratings, games_of, rate
from kothkit.store.records import GameRecord

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 1em auto; max-width: 1100px; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.6em 0 1.4em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
th { background: #f0f3f8; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
a { color: #1d5fa8; }
.fault { color: #a33; }
.muted { color: #777; }
"""


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


def boards_of(archive: Archive, all_games: bool = False) -> list[Board]:
    """Each game's standings, from the games ``kothkit run`` counts (``all_games``: every game;
    a journal of matches alone: the matches' games)."""
    from kothkit.playing.verify import is_match_run
    from kothkit.plugins import PluginError, get_game

    counted = archive.games(all_games) or archive.groups().matches
    out_: list[Board] = []
    for game in sorted({r.game for r in counted}):
        games = [r for r in counted if r.game == game]
        runs = [r for r in archive.runs if r.get("game") == game and not is_match_run(r)]
        game_time = None
        submitted: dict[str, str] = {}
        names = sorted({p for r in games for p in r.players})
        if runs:
            last = runs[-1]
            try:
                game_time = last["settings"].get("limits", {}).get("game_time")
                submitted = {b["name"]: str(b["submitted"]) for b in last["bots"] if b.get("submitted")}
                if not all_games:
                    names = sorted({b["name"] for b in last["bots"]})
            except (ValueError, TypeError, KeyError, AttributeError):
                raise ArchiveError(f"{archive.path}: corrupt journal: run {last.get('id')} cannot be read") from None
        try:
            scoring = get_game(game).scoring
        except PluginError:
            scoring = Scoring()
        tally = Tally(scoring, names)
        for r in games:
            tally.add(r.players, r.winner)
        out_.append(Board(game, scoring, tuple(names), tuple(games), tuple(tally.standings(submitted)), game_time,
                          rate(games_of(games), names)))
    return out_


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


def _heads(board: Board) -> list[str]:
    """The leaderboard's headings after "#" and "bot", as ``kothkit run``'s table has them: where
    points are per match, the matches won, drawn and lost, then the games."""
    head = "score" if board.scoring.mean else "match points" if _matches(board) else "points"
    counts = (["matches won", "drawn", "lost", "games won", "drawn", "lost", "games"] if _matches(board)
              else ["wins", "draws", "losses", "games"])
    rated = board.ratings is not None and bool(board.ratings.ratings)
    return [head, *counts, *(["Elo", "±95%", "Elo rank"] if rated else [])]


def _cells(board: Board, s: Standing) -> list[str]:
    """The cells of :func:`_heads` for ``s``."""
    counts = [s.match_wins, s.match_draws, s.match_losses] if _matches(board) else []
    counts += [s.wins, s.draws, s.losses, s.games]
    return [_points(s, board.scoring), *map(str, counts), *(_elo_cells(board, s.bot) or ())]


def markdown(board: Board) -> str:
    heads = _heads(board)
    lines = ["| # | bot |" + "".join(f" {h} |" for h in heads), "|---:|---|" + "---:|" * len(heads)]
    for i, s in enumerate(board.standings, 1):
        name = s.bot.replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")
        lines.append(f"| {i} | {name} |" + "".join(f" {c} |" for c in _cells(board, s)))
    return "\n".join(lines)


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q`` percentile (0-100) of ``values``."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{_e(title)}</title>"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
            f"<style>{STYLE}</style></head><body>\n{body}\n</body></html>\n")


class _Names:
    """Safe, distinct file names for bots (a bot's name is a stranger's text)."""

    def __init__(self) -> None:
        self._of: dict[str, str] = {}

    def __call__(self, bot: str) -> str:
        if bot not in self._of:
            safe = re.sub(r"[^A-Za-z0-9_.-]", "_", bot).strip(".")[:60] or "bot"
            name, n = safe, 1
            while f"{name}.html" in self._of.values():
                n += 1
                name = f"{safe}-{n}"
            self._of[bot] = f"{name}.html"
        return self._of[bot]


def _result_cell(r: GameRecord) -> str:
    if r.verdict:
        return f"<span class=\"fault\">{_e(r.offender)} lost: {_e(r.reason)}</span>"
    return _e(r.reason)


def _games_table(games, bot_file, replay_file, prefix: str) -> str:
    rows = []
    for r in games:
        link = f"<a href=\"{prefix}games/{_e(replay_file(r))}\">#{r.index}</a>" if replay_file else f"#{r.index}"
        players = " vs ".join(f"<a href=\"{prefix}bots/{_e(bot_file(p))}\">{_e(p)}</a>" for p in r.players)
        rows.append(f"<tr><td class=\"n\">{link}</td><td>{players}</td><td>{_e(r.winner or 'draw')}</td>"
                    f"<td class=\"n\">{len(r.moves)}</td><td>{_result_cell(r)}</td></tr>")
    return ("<table><tr><th>game</th><th>players (opener first)</th><th>winner</th><th>moves</th><th>result</th></tr>"
            + "".join(rows) + "</table>")


def _index(board: Board, bot_file, replay_file) -> str:
    rows = "".join(
        f"<tr><td class=\"n\">{i}</td><td><a href=\"bots/{_e(bot_file(s.bot))}\">{_e(s.bot)}</a></td>"
        + "".join(f"<td class=\"n\">{_e(c)}</td>" for c in _cells(board, s)) + "</tr>"
        for i, s in enumerate(board.standings, 1))
    rated = board.ratings if board.ratings is not None and board.ratings.ratings else None
    leader = ("<h2>Leaderboard</h2><table><tr><th>#</th><th>bot</th>"
              + "".join(f"<th>{_e(h)}</th>" for h in _heads(board)) + f"</tr>{rows}</table>")
    if rated is not None:
        leader += ("<p class=\"muted\">Elo: a Bradley&ndash;Terry fit of these games, centred on the field's mean, "
                   "with half its 95% interval; ranks are shared (=) where intervals overlap.</p>")
        los = rated.los
        order = [r.bot for r in rated.ratings]
        if los:
            grid = "<tr><th></th>" + "".join(f"<th>{_e(b)}</th>" for b in order) + "</tr>"
            for a in order:
                grid += f"<tr><th>{_e(a)}</th>" + "".join(
                    "<td class=\"muted\">&mdash;</td>" if a == b else
                    f"<td class=\"n\">{los.get(a, {}).get(b, float('nan')):.2f}</td>" for b in order) + "</tr>"
            leader += ("<h2>Likelihood of superiority</h2><p class=\"muted\">how likely the row's bot is stronger "
                       f"than the column's</p><table>{grid}</table>")
    for note in board.ratings.notes if board.ratings else ():
        leader += f"<p class=\"muted\">ratings: {_e(note)}</p>"
    # The crosstable: the row bot's wins-draws-losses against the column bot.
    wdl: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in board.games:
        if len(r.players) != 2:
            continue
        a, b = r.players
        for me, other in ((a, b), (b, a)):
            wdl[me, other][0 if r.winner == me else 1 if r.winner is None else 2] += 1
    order = [s.bot for s in board.standings]
    cross = "<tr><th></th>" + "".join(f"<th>{_e(b)}</th>" for b in order) + "</tr>"
    for a in order:
        cells = "".join("<td class=\"muted\">&mdash;</td>" if a == b else
                        f"<td class=\"n\">{'-'.join(map(str, wdl[a, b]))}</td>" for b in order)
        cross += f"<tr><th><a href=\"bots/{_e(bot_file(a))}\">{_e(a)}</a></th>{cells}</tr>"
    faults = Counter((r.offender, r.verdict) for r in board.games if r.verdict)
    fault_rows = "".join(f"<tr><td><a href=\"bots/{_e(bot_file(b))}\">{_e(b)}</a></td><td>{_e(v)}</td>"
                         f"<td class=\"n\">{n}</td></tr>" for (b, v), n in sorted(faults.items()))
    fault_table = (f"<h2>Faults</h2><table><tr><th>bot</th><th>verdict</th><th>games lost</th></tr>{fault_rows}</table>"
                   if fault_rows else "<h2>Faults</h2><p>none</p>")
    return (f"<h1>{_e(board.game)}</h1><p class=\"muted\">{counted(len(board.games), 'game')}, "
            f"{counted(len(board.bots), 'bot')}</p>"
            f"{leader}<h2>Crosstable</h2><p class=\"muted\">wins-draws-losses of the row's bot against the "
            f"column's</p><table>{cross}</table>{fault_table}<h2>Games</h2>"
            + _games_table(board.games, bot_file, replay_file, ""))


def bot_stats(board: Board, bot: str) -> dict:
    games = [r for r in board.games if bot in r.players]
    times = [m.ms for r in games for m in r.moves if r.players[m.seat] == bot]
    per_game = [sum(m.ms for m in r.moves if r.players[m.seat] == bot) / 1000 for r in games]
    stats = {"games": len(games), "replies": len(times),
             "faults": Counter(r.verdict for r in games if r.offender == bot and r.verdict)}
    if times:
        stats.update(median=statistics.median(times), p95=percentile(times, 95), max=max(times))
    if per_game:
        stats.update(think_max=max(per_game), think_mean=statistics.fmean(per_game))
        if board.game_time:
            stats.update(budget_max=100 * max(per_game) / board.game_time,
                         budget_mean=100 * statistics.fmean(per_game) / board.game_time)
    return stats


def _bot_page(board: Board, bot: str, bot_file, replay_file) -> str:
    st = bot_stats(board, bot)
    rank = next((i for i, s in enumerate(board.standings, 1) if s.bot == bot), None)
    parts = [f"<p><a href=\"../index.html\">&larr; {_e(board.game)} leaderboard</a></p><h1>{_e(bot)}</h1>",
             f"<p>rank {rank} of {len(board.standings)}, "
             f"{counted(st['games'], 'game')}, {counted(st['replies'], 'reply', 'replies')}</p>"]
    if "median" in st:
        parts.append("<h2>Reply times</h2><table><tr><th>median</th><th>95th percentile</th><th>maximum</th></tr>"
                     f"<tr><td class=\"n\">{st['median']:.1f} ms</td><td class=\"n\">{st['p95']:.1f} ms</td>"
                     f"<td class=\"n\">{st['max']:.1f} ms</td></tr></table>")
        budget = (f"<tr><td>share of the {board.game_time:g} s budget</td><td class=\"n\">{st['budget_mean']:.1f}%</td>"
                  f"<td class=\"n\">{st['budget_max']:.1f}%</td></tr>") if "budget_max" in st else ""
        parts.append("<h2>Time budget used</h2><table><tr><th>per game</th><th>mean</th><th>maximum</th></tr>"
                     f"<tr><td>own thinking time</td><td class=\"n\">{st['think_mean']:.3f} s</td>"
                     f"<td class=\"n\">{st['think_max']:.3f} s</td></tr>{budget}</table>")
    faults = st["faults"]
    if faults:
        rows = "".join(f"<tr><td>{_e(v)}</td><td class=\"n\">{n}</td></tr>" for v, n in sorted(faults.items()))
        parts.append(f"<h2>Faults by verdict</h2><table><tr><th>verdict</th><th>games lost</th></tr>{rows}</table>")
    else:
        parts.append("<h2>Faults by verdict</h2><p>none</p>")
    parts.append("<h2>Games</h2>" + _games_table([r for r in board.games if bot in r.players], bot_file,
                                                    replay_file, "../"))
    return "".join(parts)


def write_site(archive: Archive, dest: Path, boards: list[Board], pages: bool = True) -> int:
    """Write the site into ``dest`` (made afresh); returns the number of replay pages."""
    from kothkit.results.replay import page_name, replay_page

    if dest.exists():
        if not (dest / "index.html").is_file() and any(dest.iterdir()):
            raise ArchiveError(f"{dest}: exists and is not a kothkit report; give a new or empty folder")
        shutil.rmtree(dest)
    (dest / "bots").mkdir(parents=True)
    (dest / "games").mkdir()
    bot_file = _Names()
    replay_file = page_name if pages else None
    written = 0
    sections = []
    for board in boards:
        sections.append(_index(board, bot_file, replay_file))
        for bot in board.bots:
            (dest / "bots" / bot_file(bot)).write_text(
                _page(f"{bot} — {board.game}", _bot_page(board, bot, bot_file, replay_file)), encoding="utf-8")
        if pages:
            for r in board.games:
                nav = (f"<a href=\"../index.html\">{_e(board.game)} leaderboard</a> &middot; "
                       + " &middot; ".join(f"<a href=\"../bots/{_e(bot_file(p))}\">{_e(p)}</a>" for p in r.players))
                (dest / "games" / page_name(r)).write_text(replay_page(archive, r, nav), encoding="utf-8")
                written += 1
    (dest / "index.html").write_text(_page(" / ".join(b.game for b in boards) + " results", "<hr>".join(sections)),
                                     encoding="utf-8")
    return written


