"""`kothkit play`: a person plays one game against a bot, in the terminal or a browser."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from kothkit.bots.folders import NAME, BotSpec
from kothkit.cli.common import RULES_HELP, app, fail, game_target
from kothkit.game import GameInfo, Prompt, Setup
from kothkit.human import HUMAN_HASH, NoHumanPlay, turn_of
from kothkit.playing.play import Abandoned, Terminal, hidden_information
from kothkit.playing.settings import journal_path

if TYPE_CHECKING:
    from kothkit.playing.playweb import WebSeat


def _bot(info: GameInfo, against: str | None, ch=None) -> BotSpec:
    from kothkit.cli.headtohead import _resolve

    if against is None:
        if info.bots is None:
            fail(f"{info.name} has no bundled bots: give --against BOT")
        folders = sorted(p for p in info.bots.iterdir() if p.is_dir())
        if not folders:
            fail(f"{info.name} has no bundled bots: give --against BOT")
        against = str(folders[0])
    return _resolve(info, against, ch)


def _slot(journal, make_id, k0: int = 0) -> int:
    """The first game number of the pair under this seed whose game is not in the journal."""
    k = k0
    while list(journal.results([make_id(k)])):
        k += 1
    return k


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="The game name (see `kothkit games`), or a challenge folder (its game, rules and limits).")],
    against: Annotated[Optional[str], typer.Option(help="The bot to play: a bundled bot's name, a bot folder or file.py:function. Default: the first bundled bot.")] = None,
    seat: Annotated[int, typer.Option(help="Your seat: 0 opens the game, 1 answers.")] = 0,
    seed: Annotated[Optional[int], typer.Option(help="The play seed (default: the challenge file's seed, else the journal's last one, else a fresh one); each game takes the next game seed of it.")] = None,
    db: Annotated[Optional[Path], typer.Option("--db", help="The journal the game is stored in (default: .kothkit/GAME-play.sqlite).")] = None,
    name: Annotated[str, typer.Option(help="Your name in the game's record.")] = "you",
    web: Annotated[bool, typer.Option("--web", help="Play on a local web page, clicking on the board, instead of in the terminal.")] = False,
    port: Annotated[int, typer.Option(help="With --web: the page's port on 127.0.0.1 (0: any free port).")] = 0,
    rules: Annotated[Optional[list[str]], typer.Option("--rules", help=RULES_HELP)] = None,
) -> None:
    """Play one game yourself against a bot: the board after every move, your moves typed in the game's notation."""
    from kothkit.playing.referee import play_game
    from kothkit.store.journal import Journal, row_of

    info, ch = game_target(game, rules)
    probe = _check_seat(info, seat, name)
    bot = _bot(info, against, ch)
    if bot.name == name:
        fail(f"the bot is called {name!r} too: give yourself another --name")
    me = BotSpec(name=name, path=Path("."), kind="human", hash=HUMAN_HASH)
    seats = (me, bot) if seat == 0 else (bot, me)
    journal = journal_path(info.name, option=db, suffix="-play")
    task, run_id, seed = _next_game(info, ch, seats, journal, seed)
    term, server = _seat(info, task, seat, probe, web, port)
    term.say(f"{info.name}: you ({name}, seat {seat}) against {bot.name}, game {task.index} of seed {seed}; "
             f"{'the page has no quit: Ctrl-C here' if web else 'type quit'} to leave")
    try:
        rec = play_game(task, info=info, on_event=term.event, boards=True, people={seat: term})
    except (Abandoned, KeyboardInterrupt) as e:
        # quit (or the end of input) is the person's choice: a normal end.  Ctrl-C is an interruption.
        left = isinstance(e, Abandoned)
        term.say("you left the game: nothing stored" if left else "game interrupted: nothing stored")
        with Journal(journal) as j:
            j.finish_run(run_id, 0, 0)
        if server is not None:
            server.shutdown()
        raise typer.Exit(0 if left else 130) from None
    result = _show_end(info, term, rec, name)
    with Journal(journal) as j:
        j.add_rows([row_of(rec)])
        j.finish_run(run_id, 1, 0)
    term.say(f"stored as game {rec.id[:12]} in {journal} (kothkit show {journal} {rec.id[:12]}; "
             f"kothkit verify {journal})")
    if server is not None:
        from kothkit.playing.playweb import WebSeat, linger

        assert isinstance(term, WebSeat)  # a server serves a web seat
        term.finish(info, f"{result}: {rec.reason}")
        linger(server)


def _check_seat(info: GameInfo, seat: int, name: str):
    """A match of the game to probe that a person can play it from ``seat`` under ``name``."""
    if not 0 <= seat < info.seats:
        fail(f"--seat: 0 to {info.seats - 1} in {info.name}, got {seat}")
    if info.seats != 2:
        fail(f"{info.name} seats {info.seats} players; kothkit play seats one person against one bot")
    if not NAME.fullmatch(name):
        fail(f"--name: 1-64 letters, digits and _ . + -, got {name!r}")
    probe = info.match(Setup(players=(name, "bot"), seed=0, rules=dict(info.rules)))
    first = probe.next()
    try:
        if isinstance(first, Prompt):
            turn_of(info, probe, first)
    except NoHumanPlay as e:
        fail(str(e))
    return probe


def _next_game(info: GameInfo, ch, seats: tuple[BotSpec, BotSpec], journal: Path, seed: int | None):
    """The next game of these seats under the play seed, the id of the journal's run started for it,
    and the seed: chosen as every command chooses it; the game the first of its pair not yet played."""
    from kothkit.playing.schedule import game_key, id_maker, settings_of
    from kothkit.playing.seeding import derive
    from kothkit.playing.settings import choose_seed
    from kothkit.playing.tournament import _where
    from kothkit.plugins import game_code
    from kothkit.store.journal import Journal
    from kothkit.store.records import GameTask

    me, bot = sorted(seats, key=lambda b: b.hash != HUMAN_HASH)
    names = (seats[0].name, seats[1].name)
    settings = settings_of(info.limits, dict(info.rules), game_code(info))
    journal.parent.mkdir(parents=True, exist_ok=True)
    with Journal(journal) as j:
        last = j.last_run(info.name)
        seed = choose_seed(info.name, option=seed, challenge_seed=ch.seed if ch else None, journal=j).value
        a, b = sorted(names)
        make = id_maker(game_key(info.name, settings), seats, (a, b))
        k = _slot(j, lambda n: make(f"{n}\x1f{seed}"))
        # The run names every bot of the earlier plays under this seed and settings too, so that
        # their games still count as the journal's current games (kothkit verify, prune).
        bots = {me.name: {"name": me.name, "hash": me.hash}}
        if (last is not None and last["seed"] == seed
                and json.loads(last["settings"]) == json.loads(json.dumps(settings))):
            for entry in json.loads(last["bots"]):
                bots.setdefault(entry["name"], entry)
        bots[bot.name] = {"name": bot.name, "hash": bot.hash, "where": _where(bot, journal)}
        run_id = j.start_run(info.name, seed, settings, list(bots.values()))
    task = GameTask(id=make(f"{k}\x1f{seed}"), game=info.name, players=seats, seed=derive(seed, "game", a, b, k),
                    limits=info.limits, rules=dict(info.rules), index=k)
    return task, run_id, seed


def _seat(info: GameInfo, task, seat: int, probe, web: bool, port: int) -> tuple[WebSeat | Terminal, Any]:
    """The person's seat: a page served on ``port`` (and its server), or the terminal."""
    names = (task.players[0].name, task.players[1].name)
    if not web:
        return Terminal(info, names, seat, hidden_information(probe),
                        start=info.match(Setup(players=names, seed=task.seed, rules=dict(info.rules)))), None
    from kothkit.playing.playweb import WebSeat, serve

    term = WebSeat(info, names, seat, hidden_information(probe))
    try:
        server = serve(term, port)
    except OSError as e:
        fail(f"--port {port}: cannot serve the page: {e}")
    term.say(f"open http://127.0.0.1:{server.server_address[1]}/ to play")
    return term, server


def _show_end(info: GameInfo, term: WebSeat | Terminal, rec, name: str) -> str:
    """The true board at the end (a game of hidden information shows it only now) and the result."""
    if term.match is not None and info.renders:
        if term.hidden:
            term.say("the game is over; the true board:")
        term.board(term.match.render())
    result = "a draw" if rec.winner is None else "you win" if rec.winner == name else f"{rec.winner} wins"
    term.say(f"result: {result}: {rec.reason}")
    return result
