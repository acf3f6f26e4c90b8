"""Closed sets of strings are enums (issue 37 item 7), StrEnums whose values are the strings
journals, host.sqlite, ``--json`` output and pages always carried: what is stored is unchanged."""

from __future__ import annotations

import json
import sqlite3

import pytest

from kothkit.game import Clock, Prompt, Verdict
from kothkit.scoring import Scoring, Unit
from kothkit.serve import i18n
from kothkit.serve.host import Period
from kothkit.serve.settings import Kind, ServeSettings
from kothkit.serve.views import Status
from kothkit.testing.playout import CLOCKS


def test_values_are_taken_as_members_and_stored_as_the_strings_they_were(tmp_path):
    assert Scoring(unit="match").unit is Unit.MATCH and Scoring().unit is Unit.GAME
    with pytest.raises(ValueError):
        Scoring(unit="round")
    assert ServeSettings(kind="submissions").kind is Kind.SUBMISSIONS and ServeSettings().kind is Kind.FOLDER
    assert Prompt(seat=0, payload="START").clock == "move" and CLOCKS == ("first", "move", "start")
    assert Prompt(seat=0, payload="START", clock="first").clock == Clock.FIRST
    # Stored as text, byte for byte: a column, a JSON document, a page.
    with sqlite3.connect(tmp_path / "t.sqlite") as db:
        db.execute("CREATE TABLE t (v TEXT)")
        db.executemany("INSERT INTO t VALUES (?)", [(Status.BUILD_FAILED,), (Unit.MATCH,), (Kind.FOLDER,)])
        assert db.execute("SELECT v, typeof(v) FROM t").fetchall() == [
            ("build-failed", "text"), ("match", "text"), ("folder", "text")]
    assert json.dumps([Status.QUEUED, Period.FINAL, Verdict.TIME_BUDGET, Clock.FIRST]) == \
        '["queued", "final", "time-budget", "first"]'
    assert f"{Period.OPEN}" == "open" and Status("check-failed") is Status.CHECK_FAILED


def test_the_sites_verdict_words_are_the_verdicts():
    assert set(i18n.VERDICTS) == {v.value for v in Verdict} | {"fault"}
    assert {m.id for m in i18n.extract()} >= {v.value for v in Verdict}
