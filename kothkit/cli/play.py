"""`kothkit play`: a person plays one game against a bot, in the terminal or a browser."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from kothkit.bots.folders import NAME, BotSpec
from kothkit.cli.common import RULES_HELP, app, fail, game_target
from kothkit.game import GameInfo, Prompt, Setup
from kothkit.human import HUMAN_HASH, NoHumanPlay, turn_of
from kothkit.playing.play import Abandoned, Terminal, hidden_information

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
    seed: Annotated[Optional[int], typer.Option(help="The play seed (default: the journal's last one, else a fresh one); each game takes the next game seed of it.")] = None,
    db: Annotated[Optional[Path], typer.Option("--db", help="The journal the game is stored in (default: .kothkit/GAME-play.sqlite).")] = None,
    name: Annotated[str, typer.Option(help="Your name in the game's record.")] = "you",
    web: Annotated[bool, typer.Option("--web", help="Play on a local web page, clicking on the board, instead of in the terminal.")] = False,
    port: Annotated[int, typer.Option(help="With --web: the page's port on 127.0.0.1 (0: any free port).")] = 0,
    rules: Annotated[Optional[list[str]], typer.Option("--rules", help=RULES_HELP)] = None,
) -> None:
    """Play one game yourself against a bot: the board after every move, your moves typed in the game's notation."""
    from kothkit.playing.referee import play_game
    from kothkit.playing.schedule import game_key, id_maker, settings_of
    from kothkit.playing.seeding import derive, fresh_seed
    from kothkit.plugins import game_code
    from kothkit.store.journal import Journal, row_of
    from kothkit.store.records import GameTask

    info, ch = game_target(game, rules)
    game = info.name
    if not 0 <= seat < info.seats:
        fail(f"--seat: 0 to {info.seats - 1} in {game}, got {seat}")
    if info.seats != 2:
        fail(f"{game} seats {info.seats} players; kothkit play seats one person against one bot")
    if not NAME.fullmatch(name):
        fail(f"--name: 1-64 letters, digits and _ . + -, got {name!r}")
    settings_rules = dict(info.rules)
    probe = info.match(Setup(players=(name, "bot"), seed=0, rules=settings_rules))
    first = probe.next()
    try:
        if isinstance(first, Prompt):
            turn_of(info, probe, first)
    except NoHumanPlay as e:
        fail(str(e))
    bot = _bot(info, against, ch)
    if bot.name == name:
        fail(f"the bot is called {name!r} too: give yourself another --name")
    me = BotSpec(name=name, path=Path("."), kind="human", hash=HUMAN_HASH)
    seats = (me, bot) if seat == 0 else (bot, me)
    names = (seats[0].name, seats[1].name)
    journal = db or Path(".kothkit") / f"{game}-play.sqlite"
    journal.parent.mkdir(parents=True, exist_ok=True)
    limits = info.limits
    settings = settings_of(limits, settings_rules, game_code(info))
    with Journal(journal) as j:
        last = j.last_run(game)
        if seed is None:
            seed = last["seed"] if last is not None else fresh_seed()
        a, b = sorted(names)
        make = id_maker(game_key(game, settings), seats, (a, b))
        k = _slot(j, lambda n: make(f"{n}\x1f{seed}"))
        # The run names every bot of the earlier plays under this seed and settings too, so that
        # their games still count as the journal's current games (kothkit verify, prune).
        bots = {me.name: {"name": me.name, "hash": me.hash}}
        same = last is not None and last["seed"] == seed
        if same and last is not None and json.loads(last["settings"]) == json.loads(json.dumps(settings)):
            for entry in json.loads(last["bots"]):
                bots.setdefault(entry["name"], entry)
        from kothkit.playing.tournament import _where

        bots[bot.name] = {"name": bot.name, "hash": bot.hash, "where": _where(bot, journal)}
        run_id = j.start_run(game, seed, settings, list(bots.values()))
    task = GameTask(id=make(f"{k}\x1f{seed}"), game=game, players=seats, seed=derive(seed, "game", a, b, k),
                    limits=limits, rules=settings_rules, index=k)
    server = None
    term: WebSeat | Terminal
    if web:
        from kothkit.playing.playweb import WebSeat, serve

        term = WebSeat(info, names, seat, hidden_information(probe))
        try:
            server = serve(term, port)
        except OSError as e:
            fail(f"--port {port}: cannot serve the page: {e}")
        term.say(f"open http://127.0.0.1:{server.server_address[1]}/ to play")
    else:
        term = Terminal(info, names, seat, hidden_information(probe),
                        start=info.match(Setup(players=names, seed=task.seed, rules=settings_rules)))
    term.say(f"{game}: you ({name}, seat {seat}) against {bot.name}, game {k} of seed {seed}; "
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
    if term.match is not None and info.renders:
        if term.hidden:
            term.say("the game is over; the true board:")
        term.board(term.match.render())
    result = "a draw" if rec.winner is None else "you win" if rec.winner == name else f"{rec.winner} wins"
    term.say(f"result: {result}: {rec.reason}")
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
