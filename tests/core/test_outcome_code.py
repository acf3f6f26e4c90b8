"""A game's ids hold the code that decides its outcomes, not all of its plugin's code: a third-party
plugin (a copy of tests/thirdparty/mnk, found through its entry point as an editable install is)
whose picture, hooks or README change has its games reused; one whose rules change, replayed."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

VIEWS = '''"""mnk's picture: not part of what decides a game."""

from kothkit.picture import CELLS, Grid

COLOURS = {"X": "#111111", "O": "#f4f4f4"}


def picture(match):
    rows = tuple("".join(c if c in "XO" else "." for c in row) for row in match.board)
    return Grid(rows=rows, pieces=COLOURS, style=CELLS)
'''

HOOK = '''

@hookimpl
def kothkit_picture(game, match):
    if game.name != INFO.name:
        return None
    from kothkit_mnk.views import picture

    return picture(match)
'''


def _plugin(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    site = tmp_path / "site"
    shutil.copytree(ROOT / "tests" / "thirdparty" / "mnk" / "src" / "kothkit_mnk", site / "kothkit_mnk",
                    ignore=shutil.ignore_patterns("__pycache__"))
    dist = site / "kothkit_mnk-1.0.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: kothkit-mnk\nVersion: 1.0.0\n")
    (dist / "entry_points.txt").write_text("[kothkit]\nmnk = kothkit_mnk.plugin\n")
    pkg = site / "kothkit_mnk"
    (pkg / "views.py").write_text(VIEWS)
    (pkg / "README.md").write_text("# mnk\n")
    with open(pkg / "plugin.py", "a") as f:
        f.write(HOOK)
    return pkg, {"PYTHONPATH": str(site)}


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def _reused_then_replayed_for_the_rules(pkg: Path, play, whole: str) -> None:
    """``play()`` (a command's output, on the journal of its 2 games, the picture edited since):
    the games reused without a word; then, the rules edited, played again with the notice.
    ``whole``: the end of the command's line of counts."""
    text = play()
    assert f"games: 0 played, 2 reused, 2 {whole}" in text and "will be played again" not in text, text
    _edit(pkg / "rules.py", "((0, 1), (1, 0), (1, 1), (1, -1))", "((0, 1), (1, 0))")  # no diagonals
    text = play()
    assert "mnk's code changed since the journal's games: 2 games will be played again" in text, text
    assert f"games: 2 played, 0 reused, 2 {whole}" in text


def test_a_changed_picture_replays_nothing_and_changed_rules_replay_the_games(cli, tmp_path):
    pkg, env = _plugin(tmp_path)

    def mnk(*extra: str) -> str:
        return cli("run", "mnk", "--db", tmp_path / "mnk.sqlite", "--jobs", "1", "--quiet", *extra, env=env,
                   check=True).stdout

    assert "games: 2 played, 0 reused, 2 in all" in mnk("--seed", "3")
    # The picture's colours and style, its hook in plugin.py, the game's summary and README.
    _edit(pkg / "views.py", '"#f4f4f4"', '"#ffffff"')
    _edit(pkg / "views.py", "style=CELLS", 'style=CELLS, title="mnk"')
    _edit(pkg / "plugin.py", "    return picture(match)", "    # Drawn by views.py.\n    return picture(match)")
    _edit(pkg / "plugin.py", "default 3,3,3: tic-tac-toe", "3,3,3 by default: tic-tac-toe")
    (pkg / "README.md").write_text("# mnk\n\nk in a row wins.\n")
    _reused_then_replayed_for_the_rules(pkg, mnk, "in all")

    # A helper the rules import is part of them (found by reading the imports), the picture's
    # module still is not.
    (pkg / "lines.py").write_text('"""Where lines are looked for."""\n\nDIAGONALS = False\n')
    _edit(pkg / "rules.py", "from __future__ import annotations\n",
          "from __future__ import annotations\n\nfrom kothkit_mnk import lines  # noqa: F401\n")
    assert "will be played again" in mnk()
    _edit(pkg / "lines.py", "DIAGONALS = False", "DIAGONALS = True")
    assert "mnk's code changed since the journal's games: 2 games will be played again" in mnk()
    _edit(pkg / "views.py", '"#ffffff"', '"#fefefe"')
    assert "will be played again" not in mnk()

    # What a program bot is told on its command line decides its play too.
    _edit(pkg / "plugin.py", "return [str(bot_seed)]", "return [str(bot_seed + 1)]")
    assert "mnk's code changed since the journal's games: 2 games will be played again" in mnk()


def test_a_game_that_names_its_outcome_modules_is_replayed_for_those(cli, tmp_path):
    pkg, env = _plugin(tmp_path)
    (pkg / "engine.py").write_text('"""Where mnk\'s lines are found."""\n\nDIRECTIONS = 4\n')
    _edit(pkg / "plugin.py", "    bot_args=bot_args,\n", '    bot_args=bot_args,\n    outcome_modules=(".rules", ".engine"),\n')

    def mnk(*extra: str) -> str:
        return cli("run", "mnk", "--db", tmp_path / "mnk.sqlite", "--jobs", "1", "--quiet", *extra, env=env,
                   check=True).stdout

    assert "games: 2 played, 0 reused, 2 in all" in mnk("--seed", "3")
    _edit(pkg / "codec.py", '"""', '"""(Not named by the game: not part of its ids.) ', )
    text = mnk()
    assert "games: 0 played, 2 reused, 2 in all" in text and "will be played again" not in text, text
    _edit(pkg / "engine.py", "DIRECTIONS = 4", "DIRECTIONS = 2")
    assert "mnk's code changed since the journal's games: 2 games will be played again" in mnk()


def test_a_matchs_ids_hold_the_games_code_as_a_runs_do(cli, tmp_path):
    """``kothkit match`` and ``gauntlet`` too: an edited picture reuses a match's games, edited rules
    play them again with run's notice; a gauntlet finds the match's games (the same ids), and
    ``kothkit verify`` finds every game identical."""
    pkg, env = _plugin(tmp_path)
    db = tmp_path / "mnk.sqlite"

    def match(*extra: str) -> str:
        return cli("match", "mnk", "random", "blocker", "--games", "2", "--db", db, "--jobs", "1", "-q", *extra,
                   env=env, check=True).stdout

    assert "games: 2 played, 0 reused, 2 counted" in match("--seed", "3")
    _edit(pkg / "views.py", '"#f4f4f4"', '"#ffffff"')
    _reused_then_replayed_for_the_rules(pkg, match, "counted")

    gauntlet = cli("gauntlet", "mnk", "random", "--games", "2", "--db", db, "--jobs", "1", "-q", env=env, check=True)
    assert "games: 0 played, 2 reused, 2 counted" in gauntlet.stdout  # (its field: blocker)
    r = cli("verify", db, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "4 identical, 0 differ, 0 not verifiable" in r.stdout, r.stdout
