"""The check before the ladder: a brain that built plays a validation pair before it is entered.

With ``check = true`` in a challenge's ``[serve]`` table, a submission that built is ``checking``
until it has played one game in each seat against the challenge's reference bot (``check_against``,
a bundled bot of the game; default: the first of them by name), jailed, with the challenge's limits
and rules, exactly as a ladder game (a game with no bundled bot: ``kothkit check --quick``'s
scenarios and openings instead).  Losing is no failure: a game the brain loses by a fault of its
own (a crash, a timeout, a reply the game rejects, no answer to START) is.  The result (each game's
outcome, the fault, and the brain's log of the game it failed: its stderr and the last lines
exchanged) is kept in ``STATE/checks/ID.json`` and shown on the submission's page.  Whether a brain
that fails still replaces its author's previous one is ``check_failed_replaces`` (default: it does,
as every submission resets the author's score); one that does not is ``check-failed``.

:func:`run` is what a host's slot runs (a worker process); the host calls :func:`save` and reads the
result back with :func:`load`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import attrs

from kothkit.messages import say
from kothkit.serve.accounts import private_folder

#: Characters of a log kept with a check's result.
LOG_CHARS = 20_000


@attrs.frozen
class CheckResult:
    ok: bool
    #: One line per game: who played which seat and how it ended.
    games: tuple[str, ...]
    #: The brain's fault (the referee's reason), or "" when it passed.
    fault: str = ""
    #: The brain's log of the game it failed (or "").
    log: str = ""


def reference(info: Any, name: str | None):
    """The challenge's reference bot: the bundled bot ``name`` (default: the first by name), or None
    when the game bundles none."""
    from kothkit.bots.folders import load_bots

    if info.bots is None:
        return None
    loaded = load_bots([info.bots])
    bots = sorted((b for b in loaded.bots if info.takes(b)), key=lambda b: b.name)
    if name is not None:
        bots = [b for b in bots if name in (b.name, b.path.name)]
    return bots[0] if bots else None


def _log(record: Any, bot: str) -> str:
    """``bot``'s stderr and asides in ``record``, then the game's last replies."""
    from kothkit.results.archive import log_lines

    lines = [f"[{line.stream}{'' if line.move is None else f' move {line.move}'}] {line.text}"
             for line in log_lines(record, bot)]
    moves = [f"{record.players[m.seat]}: {m.reply!r}"[:300] for m in record.moves[-20:]]
    text = "\n".join(lines or ["(no stderr)"]) + "\n\nlast replies:\n" + "\n".join(moves or ["(none)"])
    return text[-LOG_CHARS:]


def run(folder: str, game: str, limits: Any, rules: dict, against: str | None, seed: int) -> tuple:
    """Play the validation pair of the brain in ``folder`` (built) in this process: a
    :class:`CheckResult`'s fields as a tuple (it crosses from a worker)."""
    from kothkit.bots.folders import BotError, load_folder
    from kothkit.playing.referee import play_game
    from kothkit.playing.seeding import derive
    from kothkit.playing.tournament import build_bots
    from kothkit.plugins import get_game
    from kothkit.store.records import GameTask

    info = get_game(game)
    try:
        brain = load_folder(Path(folder))
    except (BotError, OSError) as e:
        return False, (), say("the brain cannot be loaded: {error}", error=e), ""
    ref = reference(info, against)
    if ref is None:
        return _scenarios(info, brain, limits)
    built, errors = build_bots([ref])
    if errors or not built:
        return _scenarios(info, brain, limits)
    ref = built[0]
    if ref.name == brain.name:
        ref = attrs.evolve(ref, name=f"{ref.name}-reference")
    lines: list[str] = []
    for k, seats in enumerate(((brain, ref), (ref, brain))):
        task = GameTask(id=f"check-{k}", game=game, players=seats, seed=derive(seed, "check", k), limits=limits,
                        rules=rules, index=k)
        rec = play_game(task, info=info)
        outcome = say("a draw") if rec.winner is None else say("{bot} won", bot=rec.winner)
        lines.append(say("{first} (seat 0) against {second} (seat 1): {outcome}: {reason}", first=seats[0].name,
                         second=seats[1].name, outcome=outcome, reason=rec.reason))
        if rec.offender == brain.name:
            return False, tuple(lines), rec.reason, _log(rec, brain.name)
    return True, tuple(lines), "", ""


def _scenarios(info: Any, brain: Any, limits: Any) -> tuple:
    """A game with no reference bot: the brain is run through ``kothkit check``'s scenarios and
    openings (``--quick``: no whole games)."""
    from kothkit.playing.check import CheckError, check_bot

    try:
        report = check_bot(info, brain, quick=True, limits=limits)
    except CheckError as e:
        return False, (), str(e), ""
    lines = tuple(say("ok: {title}", title=run.title) if run.ok else say("fault: {title}", title=run.title)
                  for run in report.runs)
    for run, finding in report.faults:
        return False, lines, finding.text, "\n".join(run.transcript)[-LOG_CHARS:]
    return True, lines, "", ""


def _path(state_dir: Path, sub_id: int) -> Path:
    return Path(state_dir) / "checks" / f"{int(sub_id)}.json"


def save(state_dir: Path, sub_id: int, result: CheckResult) -> None:
    p = _path(state_dir, sub_id)
    private_folder(p.parent)  # (a check holds the brain's log: its author's, as the journals)
    tmp = p.with_suffix(".tmp")
    with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as f:
        f.write(json.dumps(attrs.asdict(result)))
    os.replace(tmp, p)


def load(state_dir: Path, sub_id: int) -> CheckResult | None:
    """The check of submission ``sub_id``, or None (not checked, or not yet)."""
    try:
        data = json.loads(_path(state_dir, sub_id).read_text(encoding="utf-8"))
        return CheckResult(ok=bool(data["ok"]), games=tuple(str(x) for x in data["games"]),
                           fault=str(data["fault"]), log=str(data["log"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def settings_problem(info: Any, settings: Any) -> str | None:
    """What is wrong with a challenge's check settings for its game, or None."""
    if settings.check and not info.two_seats:  # (a validation pair: one game in each of two seats)
        return (f"check = true: {info.name} seats {info.seats_said()} players a game; the check before the "
                "ladder plays games of two seats only")
    if settings.check_against is None:
        return None
    names = sorted(p.name for p in info.bots.iterdir() if p.is_dir()) if info.bots is not None else []
    if settings.check_against not in names:
        return (f"check_against: {info.name} bundles no bot {settings.check_against!r} "
                f"(its bots: {', '.join(names) or 'none'})")
    return None
