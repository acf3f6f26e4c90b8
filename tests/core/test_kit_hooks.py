"""The conformance kit calls everything a game offers people (its picture, play by a person,
exporters) on its playthroughs and fails on an exception, naming the method, the seed and the step;
and kothkit itself reports one that fails instead of hiding it (``kothkit export`` exits 1 naming it).
A plugin of the deprecated broadcast hooks is checked the same way (tests/thirdparty/test_legacy_hooks.py
and the export test below)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kothkit.game import GameInfo, Prompt
from kothkit.human import Mistake, Turn
from kothkit.picture import CELLS, Grid
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


def shown_race(picture: Any = board, parse: Any = read, exporter: Any = lambda t: f"{len(t.steps)} moves\n",
               turn_picture: Any = board) -> GameInfo:
    """The race game with a picture, play by a person and an exporter, each replaceable by a broken one."""

    class ShownRace(Race):
        def picture(self) -> Any:
            return picture(self)

        def human(self, prompt: Prompt) -> Turn:
            return Turn(board=f"total {self.total}", asks="add 1 or 2", parse=parse, choices="1 or 2",
                        picture=turn_picture(self), cell=lambda r, c: "1")

    return info_of(ShownRace, exporters={"txt": exporter})


def test_a_game_whose_offers_work_passes_them_and_conformance_tests_include_them():
    assert Kit(shown_race(), seeds=range(3)).run(checks=HOOKS) == []
    names = set(vars(conformance_tests("race")))
    assert {"test_pictures", "test_play_by_a_person", "test_exporters"} <= names


def _fails(check: str, info: GameInfo) -> str:
    with pytest.raises(ConformanceError) as e:
        getattr(Kit(info, seeds=range(3)), check)()
    return str(e.value)


def test_a_picture_that_raises_part_way_through_a_game_fails_the_kit():
    def picture(match):
        if match.total >= 7:
            raise ZeroDivisionError("no room for the seventh")
        return board(match)

    text = _fails("check_pictures", shown_race(picture=picture))
    assert "race's ShownRace.picture() raised ZeroDivisionError: no room for the seventh" in text
    assert "seed 0, step" in text


def test_a_picture_the_page_cannot_draw_fails_the_kit():
    info = shown_race(picture=lambda match: Grid(rows=("X..", "X."), pieces={"X": "#111"}))
    assert "rows must be equally long" in _fails("check_pictures", info)


def test_a_picture_colour_that_is_no_css_colour_fails_the_kit():
    info = shown_race(picture=lambda match: Grid(rows=("X.",), pieces={"X": "#111"}, empty_colour="url(http://x)"))
    assert "empty_colour's colour 'url(http://x)' is not a CSS colour" in _fails("check_pictures", info)


def test_play_by_a_person_whose_parse_raises_on_a_slip_fails_the_kit():
    text = _fails("check_play_by_a_person", shown_race(parse=lambda text: str(int(text))))  # ValueError, not Mistake
    assert "ShownRace.human()'s parse('') raised ValueError" in text and "kothkit.human.Mistake" in text


def test_play_by_a_person_whose_picture_the_page_cannot_draw_fails_the_kit():
    info = shown_race(turn_picture=lambda match: Grid(rows=("X.",), pieces={"X": "#111"}, last=((3, 0),)))
    assert "Turn.picture returned a Grid the page cannot draw: last has (3, 0)" in _fails("check_play_by_a_person", info)


def test_an_exporter_that_raises_fails_the_kit():
    def exporter(t):
        raise KeyError("board")

    assert "the txt exporter raised KeyError" in _fails("check_exporters", shown_race(exporter=exporter))


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
