"""Ratings, matches and gauntlets of real connect4 function bots through the real command line.

The bots of tests/bots/connect4/strength.py have a known strength q (awake in a game with probability
q; asleep, they lose at once).  Over a game pair, strength qa scores exactly 1/2 + (qa - qb)/2 a game
against qb: in the game qa opens, qa wins if awake while qb is asleep, and scores the opener's share b
of the random game if both are awake: qa (1 - qb) + qa qb b; in the game qb opens, 1 - qb + qb qa (1 - b);
the sum is 1 + qa - qb, whatever b.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from scipy import optimize

from kothkit.store.journal import stored_count

ROOT = Path(__file__).resolve().parents[2]
STRENGTH = ROOT / "tests" / "bots" / "connect4" / "strength.py"
Q = {"q100": 1.0, "q75": 0.75, "q50": 0.5, "q25": 0.25}


def bot(name: str) -> str:
    return f"{STRENGTH}:{name}"


def kothkit(tmp: Path, *args: str, timeout: float = 300, ok: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "kothkit", *args], cwd=tmp, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, env={**os.environ, "COLUMNS": "200"})
    if ok:
        assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def match(tmp: Path, a: str, b: str, *args: str, name: str = "m") -> dict:
    out = tmp / f"{name}.json"
    proc = kothkit(tmp, "match", "connect4_hidden", a, b, "--db", str(tmp / f"{name}.sqlite"), "--json", str(out),
                   *args)
    doc = json.loads(out.read_text())
    doc["_stdout"] = proc.stdout
    return doc


def true_ratings(names: list[str]) -> dict[str, float]:
    """The centred ratings a Bradley–Terry fit of this round robin converges to (scipy's root finder on
    the score equations, with the exact expected scores)."""
    q = np.array([Q[n] for n in names])

    def eqs(x):
        r = np.concatenate(([0.0], x))
        return [sum(0.5 + (q[i] - q[j]) / 2 - 1 / (1 + 10 ** (-(r[i] - r[j]) / 400))
                    for j in range(len(q)) if j != i) for i in range(1, len(q))]

    r = np.concatenate(([0.0], optimize.root(eqs, np.zeros(len(q) - 1), tol=1e-12).x))
    return dict(zip(names, r - r.mean()))


def test_a_rated_round_robin_orders_bots_of_known_strength_and_covers_the_truth(tmp_path):
    names = list(Q)
    out = tmp_path / "rr.json"
    proc = kothkit(tmp_path, "run", "connect4_hidden", *[a for n in names for a in ("--bots", bot(n))],
                   "--rounds", "150", "--seed", "11", "--trusted", "--jobs", "2", "--db", str(tmp_path / "rr.sqlite"),
                   "--json", str(out), "-q")
    doc = json.loads(out.read_text())
    rated = doc["ratings"]["bots"]
    assert [r["bot"] for r in rated] == names  # best first: q100, q75, q50, q25
    truth = true_ratings(names)
    for r in rated:
        assert r["low"] <= truth[r["bot"]] <= r["high"], (r, truth)
    by_bot = {s["bot"]: s for s in doc["standings"]}
    for r in rated:
        assert by_bot[r["bot"]]["elo"] == r["elo"] and by_bot[r["bot"]]["elo_error"] == r["error"]
    assert abs(sum(r["elo"] for r in rated)) < 0.1  # centred on the field's mean
    assert doc["ratings"]["los"]["q100"]["q25"] > 0.999
    assert "Elo" in proc.stdout and "±95%" in proc.stdout and "Elo rank" in proc.stdout


def test_sprt_between_a_strong_and_a_weak_bot_stops_early_and_accepts_h1(tmp_path):
    doc = match(tmp_path, bot("q100"), bot("q25"), "--sprt", "0,10", "--games", "2000", "--seed", "3")
    assert doc["sprt"]["decision"] == "H1" and doc["sprt"]["llr"] >= doc["sprt"]["upper"]
    assert doc["counted"] < 200  # stops as soon as it knows: q100 scores 87.5%
    assert doc["played"] + doc["reused"] < 2000
    text = doc["_stdout"]
    for part in ("Results of q100 vs q25", "Elo: ", "nElo: ", "LOS: ", "DrawRatio: ", "Ptnml(0-2): [",
                 "LLR: ", "(-2.94, 2.94) [0.00, 10.00]", "SPRT: H1 accepted"):
        assert part in text, text
    penta = doc["overall"]["pentanomial"]
    assert sum(penta) * 2 == doc["counted"] == doc["overall"]["games"]


def test_sprt_conclusions_read_right_for_bounds_below_zero(tmp_path):
    # A non-regression test: [-50, 0].  H0 accepted says "not stronger", H1 "not weaker by 50 or more".
    weak = match(tmp_path, bot("q25"), bot("q100"), "--sprt", "-50,0", "--games", "2000", "--seed", "3", name="w")
    assert weak["sprt"]["decision"] == "H0"
    assert "SPRT: H0 accepted (LLR " in weak["_stdout"]
    assert ("): q25 is not stronger than q100 (its Elo is more likely -50 than 0), after "
            f"{weak['counted']} games") in weak["_stdout"], weak["_stdout"]
    assert "by 0 " not in weak["_stdout"]
    strong = match(tmp_path, bot("q100"), bot("q25"), "--sprt", "-50,0", "--games", "2000", "--seed", "3", name="s")
    assert strong["sprt"]["decision"] == "H1"
    assert ("): q100 is not weaker than q25 by 50 normalized Elo or more (its Elo is more likely 0 than -50), "
            f"after {strong['counted']} games") in strong["_stdout"], strong["_stdout"]


def test_sprt_between_identical_bots_does_not_accept_h1(tmp_path):
    doc = match(tmp_path, bot("q50"), bot("q50"), "--sprt", "0,10", "--games", "600", "--seed", "3")
    assert doc["bot"] == "q50#1" and list(doc["opponents"]) == ["q50#2"]
    assert doc["sprt"]["decision"] != "H1"
    assert doc["sprt"]["llr"] < doc["sprt"]["upper"]


def test_a_match_counts_pairs_in_schedule_order_at_any_jobs(tmp_path):
    one = match(tmp_path, bot("q75"), bot("q50"), "--sprt", "0,10", "--games", "3000", "--seed", "9", "--jobs", "1",
                name="one")
    two = match(tmp_path, bot("q75"), bot("q50"), "--sprt", "0,10", "--games", "3000", "--seed", "9", "--jobs", "2",
                name="two")
    assert one["sprt"]["decision"] is not None
    for key in ("counted", "overall", "sprt"):
        assert one[key] == two[key]


def test_the_bundled_random_players_are_told_apart(tmp_path):
    """`kothkit match A B --sprt 0,10` decides between the two versions of the bundled random player."""
    doc = match(tmp_path, "better_random_player", "random_player", "--sprt", "0,10", "--seed", "1", "--trusted")
    assert doc["sprt"]["decision"] == "H1"


def test_a_match_resumes_from_its_journal(tmp_path):
    short = match(tmp_path, bot("q75"), bot("q25"), "--games", "40", "--seed", "5", name="r")
    assert (short["played"], short["reused"], short["counted"]) == (40, 0, 40)
    longer = match(tmp_path, bot("q75"), bot("q25"), "--games", "80", name="r")  # the journal's seed
    assert (longer["played"], longer["reused"], longer["counted"]) == (40, 40, 80)
    fresh = match(tmp_path, bot("q75"), bot("q25"), "--games", "80", "--seed", "5", name="fresh")
    assert longer["overall"] == fresh["overall"]


def test_a_killed_match_resumes_to_the_same_result(tmp_path):
    # An SPRT that decides after 170 games (184 played: some finish past the decision); the
    # reference match is played beside the one that is killed (each judge on a core of its own).
    args = ["match", "connect4_hidden", bot("q75_slow"), bot("q50"), "--sprt", "0,20", "--games", "400",
            "--seed", "8", "--jobs", "1", "-q"]
    ref = subprocess.Popen([sys.executable, "-m", "kothkit", *args, "--db", str(tmp_path / "ref.sqlite"),
                            "--json", str(tmp_path / "ref.json")], cwd=tmp_path, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    db = tmp_path / "k.sqlite"
    p = subprocess.Popen([sys.executable, "-m", "kothkit", *args, "--db", str(db)], cwd=tmp_path,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while p.poll() is None and stored_count(db) < 20 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert p.poll() is None, "the match ended before it could be killed"
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=60)
        _, err = ref.communicate(timeout=300)
        assert ref.returncode == 0, err
    finally:
        for proc in (p, ref):
            proc.kill()
            proc.wait()
    stored = stored_count(db)
    assert stored >= 20
    again = kothkit(tmp_path, *args, "--db", str(db), "--json", str(tmp_path / "k.json"))
    doc, want = json.loads((tmp_path / "k.json").read_text()), json.loads((tmp_path / "ref.json").read_text())
    assert doc["reused"] == stored and doc["played"] > 0
    assert (doc["counted"], doc["overall"], doc["sprt"]) == (want["counted"], want["overall"], want["sprt"])
    assert want["sprt"]["decision"] is not None and again.returncode == 0, want["sprt"]


def test_a_gauntlet_reports_each_opponent_and_the_field(tmp_path):
    out = tmp_path / "g.json"
    proc = kothkit(tmp_path, "gauntlet", "connect4_hidden", bot("q75"), "--bots", bot("q50"), "--bots", bot("q25"),
                   "--bots", bot("q75"), "--games", "40", "--seed", "2", "--db", str(tmp_path / "g.sqlite"),
                   "--json", str(out))
    doc = json.loads(out.read_text())
    assert list(doc["opponents"]) == ["q50", "q25"]  # not against itself
    assert all(s["games"] == 40 for s in doc["opponents"].values()) and doc["overall"]["games"] == 80
    assert doc["overall"]["wins"] == sum(s["wins"] for s in doc["opponents"].values())
    for part in ("Results of q75 vs q50", "Results of q75 vs q25", "Results of q75 vs the field (2 bots)"):
        assert part in proc.stdout


@pytest.mark.parametrize("args, message", [
    (["match", "connect4_hidden", "random_player"], "a match needs two bots"),
    (["match", "connect4_hidden", "nosuchbot", "random_player"], "unknown bot 'nosuchbot'"),
    (["match", "connect4_hidden", "random_player", "no/such/folder"], "unknown bot 'no/such/folder'"),
    (["match", "connect4_hidden", "random_player", "deducer", "--sprt", "10,0"], "elo0 (10) must be less than elo1 (0)"),
    (["match", "connect4_hidden", "random_player", "deducer", "--sprt", "0,10,0.5,0.05"], "alpha must be between 0 and 0.5"),
    (["match", "connect4_hidden", "random_player", "deducer", "--sprt", "0,10,0.05,0.7"], "beta must be between 0 and 0.5"),
    (["gauntlet", "connect4_hidden", "random_player", "--bots", str(ROOT / "plugins/connect4_hidden/bots/random_player")],
     "a gauntlet needs at least two bots"),
])
def test_bad_input_is_one_clear_line(tmp_path, args, message):
    proc = kothkit(tmp_path, *args, "--db", str(tmp_path / "x.sqlite"), ok=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and message in errors[0], proc.stderr


def test_kothkit_verify_replays_a_match_journal(tmp_path):
    match(tmp_path, bot("q75"), bot("q25"), "--games", "20", "--seed", "4", name="v")
    proc = kothkit(tmp_path, "verify", str(tmp_path / "v.sqlite"), "--bots", bot("q75"), "--bots", bot("q25"))
    assert "verified 20 games: 20 identical, 0 differ" in proc.stdout


def test_the_logistic_sprt_model_on_request(tmp_path):
    doc = match(tmp_path, bot("q100"), bot("q25"), "--sprt", "0,10", "--sprt-model", "logistic", "--games", "2000",
                "--seed", "3")
    assert doc["sprt"]["model"] == "logistic" and doc["sprt"]["decision"] == "H1"
    assert "(logistic)" in doc["_stdout"] and doc["counted"] < 400
