"""`kothkit play`: a person plays one game against a bot, in the terminal or a browser."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import attrs
import typer

from kothkit.bots.folders import NAME, BotKind, BotSpec
from kothkit.cli.common import RULES_HELP, app, fail, game_target, resolve_bot
from kothkit.game import GameInfo, Prompt, Round, Setup
from kothkit.human import HUMAN_HASH, NoHumanPlay, turn_of
from kothkit.playing.play import Abandoned, Terminal, hidden_information
from kothkit.playing.settings import journal_path

if TYPE_CHECKING:
    from kothkit.playing.playweb import WebSeat


def _bot(info: GameInfo, against: str | None, ch=None) -> BotSpec:
    if against is None:
        if info.bots is None:
            fail(f"{info.name} has no bundled bots: give --against BOT")
        folders = sorted(p for p in info.bots.iterdir() if p.is_dir())
        if not folders:
            fail(f"{info.name} has no bundled bots: give --against BOT")
        against = str(folders[0])
    return resolve_bot(info, against, ch)


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="The game name (see `kothkit games`), or a challenge folder (its game, rules and limits).")],
    against: Annotated[Optional[str], typer.Option(help="The bot to play: a bundled bot's name, a bot folder or file.py:function. Default: the first bundled bot.")] = None,
    seat: Annotated[int, typer.Option(help="Your seat: 0 opens the game, 1 answers (a game of more seats: 0 to its fewest seats - 1; the bot in all the others).")] = 0,
    seed: Annotated[Optional[int], typer.Option(help="The play seed (default: the challenge file's seed, else the journal's last one, else a fresh one); each game takes the next game seed of it.")] = None,
    db: Annotated[Optional[Path], typer.Option("--db", help="The journal the game is stored in (default: .kothkit/GAME-play.sqlite).")] = None,
    name: Annotated[str, typer.Option(help="Your name in the game's record.")] = "you",
    web: Annotated[bool, typer.Option("--web", help="Play on a local web page, clicking on the board, instead of in the terminal.")] = False,
    port: Annotated[int, typer.Option(help="With --web: the page's port on 127.0.0.1 (0: any free port).")] = 0,
    rules: Annotated[Optional[list[str]], typer.Option("--rules", help=RULES_HELP)] = None,
) -> None:
    """Play one game yourself against a bot: the board after every move, your moves typed in the game's notation."""
    from kothkit.playing.play import drop_game, new_game, store_game
    from kothkit.playing.referee import play_game

    played = game_target(game, rules)
    info, ch = played.info, played.challenge
    game = info.name
    settings_rules = dict(played.rules)
    probe = _check_seat(info, seat, name)
    bot = _bot(info, against, ch)
    if bot.name == name:
        fail(f"the bot is called {name!r} too: give yourself another --name")
    me = BotSpec(name=name, path=Path("."), kind=BotKind.HUMAN, hash=HUMAN_HASH)
    n = info.seat_range[0]
    # The bot in every other seat of a game of more seats, each a bot of its own (its own name).
    bots = [bot] + [attrs.evolve(bot, name=f"{bot.name}#{i}") for i in range(2, n)]
    seats = tuple(bots[:seat] + [me] + bots[seat:])
    names = tuple(s.name for s in seats)
    journal = journal_path(game, option=db, suffix="-play")
    server = local = None
    while True:
        task, run_id, seed = new_game(journal, info, seats, played.limits, settings_rules, seed,
                                      challenge_seed=ch.seed if ch else None)
        k = task.index
        term: WebSeat | Terminal
        start = info.match(Setup(players=names, seed=task.seed, rules=settings_rules))
        if web:
            from kothkit.playing.playweb import WebSeat

            term = WebSeat(info, names, seat, hidden_information(probe), start=start)
            if local is None:
                try:
                    from kothkit.serve.playpage import Local, serve
                except ImportError as e:
                    fail(f"--web needs the serve extra (pip install 'kothkit[serve]'): {e}")
                local = Local(term)
                try:
                    server = serve(local, port, f"{info.name}: {name} against {bot.name}")
                except OSError as e:
                    fail(f"--port {port}: cannot serve the page: {e}")
                term.note(f"open http://127.0.0.1:{server.server_address[1]}/ to play")
            else:
                local.next(term)
        else:
            term = Terminal(info, names, seat, hidden_information(probe), start=start)
        term.note(f"{game}: you ({name}, seat {seat}) against {bot.name}, game {k} of seed {seed}; "
                  f"{'leave the game on the page, or Ctrl-C here,' if web else 'type quit'} to leave")
        try:
            rec = play_game(task, info=info, on_event=term.event, boards=True, people={seat: term})
        except (Abandoned, KeyboardInterrupt) as e:
            # quit (or the end of input) is the person's choice: a normal end.  Ctrl-C is an interruption.
            left = isinstance(e, Abandoned)
            term.note("you left the game: nothing stored" if left else "game interrupted: nothing stored")
            drop_game(journal, run_id)
            if server is not None:
                assert isinstance(term, WebSeat)  # a server serves a web seat
                term.abandoned("you left the game")
                server.shutdown()
            raise typer.Exit(0 if left else 130) from None
        result = _show_end(info, term, rec, name)
        store_game(journal, run_id, rec)
        term.note(f"stored as game {rec.id[:12]} in {journal} (kothkit show {journal} {rec.id[:12]}; "
                  f"kothkit verify {journal})")
        if server is None or local is None:
            return
        from kothkit.playing.playweb import WebSeat, linger

        assert isinstance(term, WebSeat)  # a server serves a web seat
        term.finish(info, f"{result}: {rec.reason}")
        term.publish(final=True)
        if not linger(server, local.again):
            return


def _check_seat(info: GameInfo, seat: int, name: str) -> Any:
    """A match of the game that probes that a person can play it from ``seat`` under ``name``."""
    n = info.seat_range[0]  # a game of a range of seats is played with its fewest
    if not 0 <= seat < n:
        fail(f"--seat: 0 to {n - 1} in {info.name}, got {seat}")
    if not NAME.fullmatch(name):
        fail(f"--name: 1-64 letters, digits and _ . + -, got {name!r}")
    probe = info.match(Setup(players=(name, *(f"bot{i}" for i in range(1, n))), seed=0, rules=dict(info.rules)))
    first = probe.next()
    if isinstance(first, Round):
        first = first.prompt_of(seat) or first.prompts[0]
    try:
        if isinstance(first, Prompt):
            turn_of(info, probe, first)
    except NoHumanPlay as e:
        fail(str(e))
    return probe


def _show_end(info: GameInfo, term: WebSeat | Terminal, rec: Any, name: str) -> str:
    """The true board at the end (a game of hidden information shows it only now) and the result."""
    if term.match is not None and info.renders:
        if term.hidden:
            term.say("the game is over; the true board:")
        term.board(term.match.render())
    if rec.seat_places is not None:  # a game of more seats: the person's place among them
        me = rec.players.index(name)
        result = f"you placed {rec.seat_places[me]} of {len(rec.players)}"
        if rec.seat_points is not None:
            result += f" with {rec.seat_points[me]:g} points"
        term.say(f"result: {result}: {rec.reason}")
        return result
    result = "a draw" if rec.winner is None else "you win" if rec.winner == name else f"{rec.winner} wins"
    term.say(f"result: {result}: {rec.reason}")
    return result
