"""A third-party plugin written against the broadcast hooks of kothkit 0.1 (``kothkit_scenarios``,
``kothkit_picture``, ``kothkit_exporters``, ``kothkit_human``, each guarded by
``if game.name != INFO.name: return None``) keeps working for one release: pluggy warns when it is
registered, saying what to use instead, and the core still reaches each hook through the game."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from kothkit import hookimpl
from kothkit.game import GameInfo, Match, Setup
from kothkit.human import Mistake, Turn, turn_of
from kothkit.limits import Limits
from kothkit.picture import CELLS, Grid, picture_of
from kothkit.plugins import exporters_of, plugin_manager, scenarios_of
from kothkit.testing import Kit, check_bot
from kothkit.testing.scenarios import Scenario

MNK = Path(__file__).resolve().parent / "mnk"


@pytest.fixture
def old_plugin(monkeypatch):
    """The old way, as tests/thirdparty/mnk's plugin.py was written for kothkit 0.1, for a game
    "mnk_old" (so as not to clash with mnk), registered for the test and removed after."""
    monkeypatch.syspath_prepend(str(MNK / "src"))
    from kothkit_mnk.match import MnkMatch

    class OldMatch(MnkMatch):
        pass

    info = GameInfo(name="mnk_old", summary="mnk, registered the old way", match=OldMatch,
                    limits=Limits(move_time=1.0, grace=0.2), bots=MNK / "src" / "kothkit_mnk" / "bots",
                    bot_args=lambda setup, seat, bot_seed: [str(bot_seed)])

    class OldPlugin:
        @hookimpl
        def kothkit_games(self):
            return [info]

        @hookimpl
        def kothkit_scenarios(self, game):
            if game.name != info.name:
                return None
            return [Scenario("O answers a corner", "You play O after X took the top left corner.", seat=1,
                             script=("0 0",), bot_replies=1)]

        @hookimpl
        def kothkit_picture(self, game, match):
            if game.name != info.name:
                return None
            return Grid(rows=tuple(match.board), pieces={"X": "#111", "O": "#eee"}, style=CELLS)

        @hookimpl
        def kothkit_exporters(self, game):
            if game.name != info.name:
                return None
            return {"txt": lambda t: f"{len(t.steps)} moves\n"}

        @hookimpl
        def kothkit_human(self, game, match, prompt):
            if game.name != info.name:
                return None

            def parse(text: str) -> str:
                if len(text.split()) != 2:
                    raise Mistake("type ROW COL")
                return text

            return Turn(board=match.render(), asks="your move: ROW COL", parse=parse)

    plugin = OldPlugin()
    pm = plugin_manager()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pm.register(plugin)
    yield info, [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    pm.unregister(plugin)


def test_registering_it_warns_once_a_hook_saying_what_to_use_instead(old_plugin):
    _, warned = old_plugin
    assert len(warned) == 4, warned
    for hook, instead in (("kothkit_scenarios", "GameInfo(scenarios=[...])"),
                          ("kothkit_picture", "a picture(self) method"),
                          ("kothkit_exporters", "GameInfo(exporters={name: function})"),
                          ("kothkit_human", "a human(self, prompt) method")):
        assert any(hook in w and instead in w and "removed in kothkit 0.2" in w for w in warned), (hook, warned)


def test_its_hooks_are_still_reached_through_the_game(old_plugin):
    info, _ = old_plugin
    assert [s.name for s in scenarios_of(info)] == ["O answers a corner"]
    assert "txt" in exporters_of(info)
    match = info.match(Setup(players=("a", "b"), seed=1))
    assert match.play(0, "1 1") is None
    panels = picture_of(info, match)
    assert panels is not None and panels[0]["rows"] == list(match.board)
    turn = turn_of(info, match, match.next())
    assert turn.asks == "your move: ROW COL" and turn.parse("0 0") == "0 0"
    assert type(match).picture is Match.picture  # reached through the hook, not the match


def test_the_kit_and_the_bot_check_run_its_hooks(old_plugin):
    info, _ = old_plugin
    assert Kit(info, seeds=range(2)).run(checks=("check_pictures", "check_play_by_a_person",
                                                 "check_exporters")) == []
    report = check_bot(info, info.bots / "blocker", quick=True)
    assert report.ok, [f.text for r in report.runs for f in r.findings]
    assert report.runs[0].title == "O answers a corner"
