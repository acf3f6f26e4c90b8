"""The conformance kit calls every hook a game offers (its picture, play by a person, exporters) on
its playthroughs and fails on an exception, naming the hook, the seed and the step; and kothkit
itself reports a hook that fails instead of hiding it (``kothkit export`` exits 1 naming it)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kothkit import hookimpl
from kothkit.human import Mistake, Turn
from kothkit.picture import CELLS, Grid
from kothkit.plugins import plugin_manager
from kothkit.testing import ConformanceError, Kit, conformance_tests
from tests.core.test_conformance import Race, info_of

ROOT = Path(__file__).resolve().parents[2]
HOOKS = ("check_pictures", "check_play_by_a_person", "check_exporters")


def board(match: Race) -> Grid:
    return Grid(rows=("X" * match.total + "." * (Race.GOAL - match.total),), pieces={"X": "#111"}, style=CELLS)


def read(text: str) -> str:
    if text.strip() not in ("1", "2"):
        raise Mistake("type 1 or 2")
    return text.strip()


class RaceHooks:
    """The race game's optional hooks, each replaceable by a broken one."""

    def __init__(self, picture=board, parse=read, exporter=lambda t: f"{len(t.steps)} moves\n",
                 turn_picture=board) -> None:
        self.picture, self.parse, self.exporter, self.turn_picture = picture, parse, exporter, turn_picture

    @hookimpl
    def kothkit_picture(self, game, match):
        return self.picture(match) if game.name == "race" else None

    @hookimpl
    def kothkit_human(self, game, match, prompt):
        if game.name != "race":
            return None
        return Turn(board=f"total {match.total}", asks="add 1 or 2", parse=self.parse, choices="1 or 2",
                    picture=self.turn_picture(match), cell=lambda r, c: "1")

    @hookimpl
    def kothkit_exporters(self, game):
        return {"txt": self.exporter} if game.name == "race" else None


@pytest.fixture
def race_hooks():
    """Registers a RaceHooks with the plugin manager for the test, and removes it after."""
    pm = plugin_manager()
    registered: list[RaceHooks] = []

    def register(**broken: Any) -> RaceHooks:
        hooks = RaceHooks(**broken)
        pm.register(hooks)
        registered.append(hooks)
        return hooks

    yield register
    for hooks in registered:
        pm.unregister(hooks)


def test_a_game_whose_hooks_work_passes_them_and_conformance_tests_include_them(race_hooks):
    race_hooks()
    assert Kit(info_of(Race), seeds=range(3)).run(checks=HOOKS) == []
    names = set(vars(conformance_tests("race")))
    assert {"test_pictures", "test_play_by_a_person", "test_exporters"} <= names


def _fails(check: str) -> str:
    with pytest.raises(ConformanceError) as e:
        getattr(Kit(info_of(Race), seeds=range(3)), check)()
    return str(e.value)


def test_a_picture_that_raises_part_way_through_a_game_fails_the_kit(race_hooks):
    def picture(match):
        if match.total >= 7:
            raise ZeroDivisionError("no room for the seventh")
        return board(match)

    race_hooks(picture=picture)
    text = _fails("check_pictures")
    assert "race's kothkit_picture hook raised ZeroDivisionError: no room for the seventh" in text
    assert "seed 0, step" in text


def test_a_picture_the_page_cannot_draw_fails_the_kit(race_hooks):
    race_hooks(picture=lambda match: Grid(rows=("X..", "X."), pieces={"X": "#111"}))
    assert "rows must be equally long" in _fails("check_pictures")


def test_a_picture_colour_that_is_no_css_colour_fails_the_kit(race_hooks):
    race_hooks(picture=lambda match: Grid(rows=("X.",), pieces={"X": "#111"}, empty_colour="url(http://x)"))
    assert "empty_colour's colour 'url(http://x)' is not a CSS colour" in _fails("check_pictures")


def test_play_by_a_person_whose_parse_raises_on_a_slip_fails_the_kit(race_hooks):
    race_hooks(parse=lambda text: str(int(text)))  # ValueError on "zzz", not a Mistake
    text = _fails("check_play_by_a_person")
    assert "parse('') raised ValueError" in text and "kothkit.human.Mistake" in text


def test_play_by_a_person_whose_picture_the_page_cannot_draw_fails_the_kit(race_hooks):
    race_hooks(turn_picture=lambda match: Grid(rows=("X.",), pieces={"X": "#111"}, last=((3, 0),)))
    assert "Turn.picture returned a Grid the page cannot draw: last has (3, 0)" in _fails("check_play_by_a_person")


def test_an_exporter_that_raises_fails_the_kit(race_hooks):
    def exporter(t):
        raise KeyError("board")

    race_hooks(exporter=exporter)
    assert "the txt exporter raised KeyError" in _fails("check_exporters")


VIEWS = '''"""mnk's picture and text export, broken on purpose when BROKEN is set."""

from kothkit.picture import CELLS, Grid

BROKEN = False


def picture(match):
    if BROKEN and match.moves >= 3:
        raise ZeroDivisionError("the picture's bug")
    rows = tuple("".join(c if c in "XO" else "." for c in row) for row in match.board)
    return Grid(rows=rows, pieces={"X": "#111111", "O": "#f4f4f4"}, style=CELLS)


def text(t):
    if BROKEN:
        raise KeyError("the exporter's bug")
    return "moves: %d\\n" % len(t.steps)
'''

HOOKS_PY = '''

@hookimpl
def kothkit_picture(game, match):
    if game.name != INFO.name:
        return None
    from kothkit_mnk.views import picture

    return picture(match)


@hookimpl
def kothkit_exporters(game):
    if game.name != INFO.name:
        return None
    from kothkit_mnk.views import text

    return {"txt": text}
'''


def test_export_fails_naming_a_picture_or_exporter_that_raises(cli, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(ROOT / "tests" / "thirdparty" / "mnk" / "src" / "kothkit_mnk", site / "kothkit_mnk",
                    ignore=shutil.ignore_patterns("__pycache__"))
    dist = site / "kothkit_mnk-1.0.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: kothkit-mnk\nVersion: 1.0.0\n")
    (dist / "entry_points.txt").write_text("[kothkit]\nmnk = kothkit_mnk.plugin\n")
    views = site / "kothkit_mnk" / "views.py"
    views.write_text(VIEWS)
    with open(site / "kothkit_mnk" / "plugin.py", "a") as f:
        f.write(HOOKS_PY)
    env = {"PYTHONPATH": str(site)}
    db = tmp_path / "mnk.sqlite"
    cli("run", "mnk", "--db", db, "--seed", "1", "--jobs", "1", "-q", env=env, check=True)
    for fmt in ("html", "txt"):
        ok = cli("export", db, "1", "--format", fmt, "--out", tmp_path / f"ok-{fmt}", env=env)
        assert ok.returncode == 0, ok.stderr
    views.write_text(VIEWS.replace("BROKEN = False", "BROKEN = True"))
    html = cli("export", db, "1", "--format", "html", "--out", tmp_path / "html", env=env)
    assert html.returncode == 1, html.stdout
    assert "mnk's kothkit_picture hook raised ZeroDivisionError: the picture's bug (at move 3)" in html.stderr
    assert "game #1" in html.stderr and not (tmp_path / "html").exists()
    txt = cli("export", db, "1", "--format", "txt", "--out", tmp_path / "txt", env=env)
    assert txt.returncode == 1 and "mnk's txt exporter raised KeyError: \"the exporter's bug\"" in txt.stderr, txt.stderr
