"""gomoku_classic12 end to end: the real ``kothkit`` command line, real brains, real pipes.

Each limit of the course judge has a misbehaving brain in tests/bots/classic12/
that loses with its own verdict against ``steady`` (a brain that never faults).
Limits are kept small where the course's would make a test slow.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from kothkit.store.journal import Journal
from kothkit_gomoku_classic12.match import ClassicMatch
from kothkit.game import Outcome, Setup

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "plugins" / "gomoku_classic12" / "bots"
TB = ROOT / "tests" / "bots" / "classic12"
STEADY = TB / "steady"


def records(db: Path):
    with Journal(db) as j:
        return list(j.all("gomoku_classic12"))


def pairs_of(games):
    """Games grouped by unordered pair of bots."""
    by_pair = defaultdict(list)
    for g in games:
        by_pair[tuple(sorted(g["players"]))].append(g)
    return by_pair


def match_points(games, win=3, draw=1):
    """Match points recomputed from the games: winning more games of a pair's match is worth 3."""
    points = Counter()
    for (a, b), gs in pairs_of(games).items():
        wa = sum(g["winner"] == a for g in gs)
        wb = sum(g["winner"] == b for g in gs)
        points[a] += win if wa > wb else draw if wa == wb else 0
        points[b] += win if wb > wa else draw if wa == wb else 0
    return points


def replay(moves, opening="center4"):
    """Replays a game's replies (JSON 'moves': OK, OK, then X Y ...) through a fresh match."""
    m = ClassicMatch(Setup(players=("a", "b"), seed=0, rules={"opening": opening}))
    for reply in moves:
        step = m.next()
        assert not isinstance(step, Outcome)
        assert m.play(step.seat, reply) is None, reply
    return m.next()


# -- the bundled brains ---------------------------------------------------------------------------
def test_bundled_brains_compile_and_play_to_match_standings(cli):
    doc = cli.run_json("run", "gomoku_classic12", "--seed", "1", "--jobs", "1")
    assert doc["errors"] == []
    table = {s["bot"]: s for s in doc["standings"]}
    assert set(table) == {"template", "threat", "pywindow"}
    # threat wins both its games against each of the others; the template loses everything.
    assert [s["bot"] for s in doc["standings"]] == ["threat", "pywindow", "template"]
    assert (table["threat"]["points"], table["threat"]["wins"]) == (6, 4)
    assert (table["template"]["points"], table["template"]["losses"]) == (0, 4)
    assert len(doc["games"]) == doc["played"] == 6
    for g in doc["games"]:
        assert g["fault"] is None and g["verdict"] is None, g
        assert g["reason"].startswith("five in a row")
        assert g["moves"][:2] == ["OK", "OK"]
        out = replay(g["moves"])  # the recorded replies replay to the same result
        assert out.reason == g["reason"] and g["players"][out.winner] == g["winner"]
    for pair, gs in pairs_of(doc["games"]).items():
        assert sorted(g["players"][0] for g in gs) == sorted(pair)  # each is black once
    assert match_points(doc["games"]) == {s["bot"]: s["points"] for s in doc["standings"]}


def test_bundled_brains_are_deterministic_across_jobs(cli):
    one = cli.run_json("run", "gomoku_classic12", "--seed", "7", "--jobs", "1")
    two = cli.run_json("run", "gomoku_classic12", "--seed", "7", "--jobs", "2")
    key = lambda d: sorted((g["id"], g["winner"], tuple(g["moves"])) for g in d["games"])
    assert key(one) == key(two)
    assert one["standings"] == two["standings"]


def test_bot_toml_of_the_c_brains_is_the_three_line_drop_in():
    for name in ("template", "threat"):
        lines = (BUNDLED / name / "bot.toml").read_text().splitlines()
        assert lines == [f'name = "{name}"', 'build = ["gcc", "-O2", "-o", "brain", "brain.c"]', 'command = ["./brain"]']
        assert sorted(p.name for p in (BUNDLED / name).iterdir() if p.suffix in (".c", ".toml")) == ["bot.toml", "brain.c"]


# -- one misbehaving brain per verdict ------------------------------------------------------------------
VERDICTS = [
    ("no_ok", [], "timeout", "no reply within 1 s"),
    ("late_ok", [], "timeout", "no reply within 1 s"),
    ("out_of_turn", [], "out-of-turn", "thinking about my next move"),
    ("malformed", [], "invalid-reply", "expected 'X Y'"),
    ("occupied", [], "illegal-move", "is occupied"),
    ("slow", ["--move-time", "1"], "timeout", "no reply within 1 s"),
    ("budget", ["--game-time", "2"], "time-budget", "2 s of thinking time"),
    ("memory", [], "memory", "350 MiB"),
    ("crash", [], "crash", "SIGSEGV"),
    ("quit", [], "crash", "code 3"),
]


@pytest.mark.parametrize("bot,flags,verdict,why", VERDICTS, ids=[v[0] for v in VERDICTS])
def test_each_limit_breaker_loses_with_its_verdict(cli, bot, flags, verdict, why):
    db = cli.tmp / f"{bot}.sqlite"
    doc = cli.run_json("run", "gomoku_classic12", "--bots", str(STEADY), "--bots", str(TB / bot),
                       "--seed", "3", "--jobs", "2", "--db", str(db), *flags)
    assert doc["errors"] == []
    games = doc["games"]
    assert len(games) == 2 and {g["players"][0] for g in games} == {"steady", bot}  # in both colours
    for g in games:
        assert (g["winner"], g["fault"], g["verdict"]) == ("steady", bot, verdict), g
        assert why in g["reason"]
    st = {s["bot"]: s for s in doc["standings"]}
    assert (st["steady"]["points"], st[bot]["points"], st[bot]["losses"]) == (3, 0, 2)
    for rec in records(db):
        # The END lines follow a forfeit too: steady reports END 1 (it won) on its stderr.
        assert "END 1" in rec.logs.get("steady", ""), rec.logs


def test_the_slow_move_breaks_the_course_limit_of_2_s(cli):
    doc = cli.run_json("run", "gomoku_classic12", "--bots", str(STEADY), "--bots", str(TB / "slow"), "--seed", "3",
                       "--jobs", "2")
    assert [(g["fault"], g["verdict"]) for g in doc["games"]] == [("slow", "timeout")] * 2
    assert all("no reply within 2 s" in g["reason"] for g in doc["games"])


def test_memory_cap_can_be_set_lower_or_higher(cli):
    # Writing 600 MB took 0.4-2 s on the development VM (fresh guest pages are slow and vary):
    # a roomy move time, so that only the cap can decide.
    args = ("run", "gomoku_classic12", "--bots", str(STEADY), "--bots", str(TB / "memory"), "--seed", "3", "--jobs", "2",
            "--move-time", "10")
    doc = cli.run_json(*args, "--memory-mb", "120")
    assert [(g["fault"], g["verdict"]) for g in doc["games"]] == [("memory", "memory")] * 2
    assert all("120 MiB" in g["reason"] for g in doc["games"])
    # Under a cap above its 600 MB peak the same brain plays on: the verdict was the cap's.
    doc = cli.run_json(*args, "--memory-mb", "1000")
    assert all(g["fault"] is None and g["reason"].startswith("five in a row") for g in doc["games"])


def test_budget_counts_own_time_and_every_move_time_is_kept(cli):
    db = cli.tmp / "budget.sqlite"
    cli.run_json("run", "gomoku_classic12", "--bots", str(STEADY), "--bots", str(TB / "budget"), "--seed", "3",
                 "--jobs", "1", "--game-time", "2", "--db", str(db))
    for rec in records(db):
        seat = rec.players.index("budget")
        mine = [m for m in rec.moves if m.seat == seat]
        # OK, then at most three 0.6 s moves fit in 2 s (a late reply is not recorded).
        assert [m.reply for m in mine][0] == "OK" and 3 <= len(mine) <= 4
        assert sum(m.ms for m in mine) <= 2000 + 50
        assert all(m.ms >= 600 for m in mine[1:])
        assert all(isinstance(m.ms, float) and m.ms >= 0 for m in rec.moves)


def test_debug_flood_is_logged_within_caps_and_the_game_goes_on(cli):
    db = cli.tmp / "flood.sqlite"
    doc = cli.run_json("run", "gomoku_classic12", "--bots", str(STEADY), "--bots", str(TB / "debug_flood"),
                       "--seed", "3", "--jobs", "2", "--db", str(db))
    for g in doc["games"]:
        assert g["fault"] is None and g["reason"].startswith("five in a row")
        assert not any(m.startswith("DEBUG") for m in g["moves"])
        assert len(g["moves"]) > 10
    for rec in records(db):
        log = rec.logs["debug_flood"]
        lines = log.splitlines()
        assert lines[0] == "DEBUG starting"
        kept = [l for l in lines if l.startswith("DEBUG")]
        assert all(len(l.encode()) <= 16 * 1024 for l in kept)
        assert sum(len(l.encode()) for l in kept) <= 32 * 1024
        assert "dropped over the cap" in lines[-1]
        # the deciding move reached the loser as a PLACE before its END
        loser = next(p for p in rec.players if p != rec.winner)
        if loser == "steady":
            last = rec.moves[-1].reply.split()
            assert f"steady: last PLACE {' '.join(last)}; END 2" in rec.logs["steady"]
        else:
            assert "END 1" in rec.logs["steady"]


def _long_debug(size: int) -> str:
    """What debug_long and debug_huge write as a long DEBUG line of ``size`` bytes."""
    body = size - len("DEBUG long ")
    return "DEBUG long " + ("0123456789" * (body // 10 + 1))[:body]


@pytest.mark.parametrize("brain, size", [("debug_long", 100 * 1024), ("debug_huge", 10 * 1024 * 1024)])
def test_a_debug_line_over_the_line_caps_is_cut_and_the_game_goes_on(cli, brain, size):
    # The seed: one DEBUG message over 16 KB is truncated, past 32 KB in all they are ignored,
    # and neither loses the game (both lines are longer than max_line, 64 KB).  A roomy move
    # time: only the caps are under test, not how fast 10 MB cross a pipe on a loaded machine.
    db = cli.tmp / f"{brain}.sqlite"
    folder = cli.tmp / brain
    # One source (debug_long's), the line's size from its command line.
    shutil.copytree(TB / "debug_long", folder, ignore=shutil.ignore_patterns("brain", ".kothkit-build"))
    (folder / "bot.toml").write_text(f'name = "{brain}"\nbuild = ["gcc", "-O2", "-o", "brain", "brain.c"]\n'
                                     f'command = ["./brain", "{size}"]\n')
    doc = cli.run_json("run", "gomoku_classic12", "--bots", str(STEADY), "--bots", str(folder),
                       "--seed", "3", "--jobs", "1", "--move-time", "10", "--db", str(db), timeout=180)
    assert doc["errors"] == [] and len(doc["games"]) == 2
    for g in doc["games"]:
        assert g["fault"] is None and g["reason"].startswith("five in a row"), g
        assert not any(m.startswith("DEBUG") for m in g["moves"])
        assert len(g["moves"][2 + g["players"].index(brain)::2]) > 3  # its moves, after the long lines too
    cap, total = 16 * 1024, 32 * 1024
    for rec in records(db):
        lines = rec.logs[brain].split("\n")
        # The first 16 KB of the long line; the stream goes on at its end (the next line whole);
        # the 20 KB line of the next move is kept up to the 32 KB in all, and the rest is counted.
        assert lines[0] == "DEBUG hello"
        assert lines[1] == _long_debug(size)[:cap]
        assert lines[2] == "DEBUG after the long line"
        assert lines[3] == _long_debug(20 * 1024)[:total - cap - len(lines[0]) - len(lines[2])]
        assert sum(len(line) for line in lines[:4]) == total
        assert lines[4].endswith("bytes of DEBUG output dropped over the cap]") and len(lines) == 5
    assert os.path.getsize(db) < 1024 * 1024  # nothing like the 10 MB line was stored


# -- the course's protocol, unchanged --------------------------------------------------------------------
def test_a_brain_written_for_the_course_plays_without_change(cli):
    doc = cli.run_json("run", "gomoku_classic12", "--bots", str(BUNDLED), "--bots", str(TB / "course"),
                       "--bots", str(STEADY), "--seed", "11", "--jobs", "2")
    assert doc["errors"] == []
    course = [g for g in doc["games"] if "course" in g["players"]]
    assert len(course) == 8
    for g in doc["games"]:
        assert g["fault"] is None, g
        assert g["reason"].startswith("five in a row") or g["reason"] == "board full"


def test_debug_shows_the_transcript_with_debug_lines(cli):
    p = cli("debug", "gomoku_classic12", str(BUNDLED / "template"), "--against", "threat", timeout=60)
    assert p.returncode == 0, p.stderr
    text = p.stdout
    for expected in ("judge -> template: START 1", "template -> judge", "judge -> threat: START 2",
                     "template (aside): DEBUG template brain ready, playing black", "judge -> threat: PLACE",
                     "judge -> template: TURN", "judge -> template: END 2", "judge -> threat: END 1", "result: winner threat"):
        assert expected in text, expected


def test_debug_of_a_faulty_brain_names_the_verdict(cli):
    p = cli("debug", "gomoku_classic12", str(TB / "malformed"), timeout=60)
    assert p.returncode == 2
    assert "VERDICT against malformed: invalid-reply" in p.stdout


# -- challenge files -----------------------------------------------------------------------------------------
def challenge(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kothkit.toml").write_text(body)
    return folder


def test_challenge_with_four_games_a_pair_balances_colours_and_scores_matches(cli):
    ch = challenge(cli.tmp / "course", f'''
game = "gomoku_classic12"
bots = ["{BUNDLED}", "{STEADY}"]
seed = 2024
games_per_pair = 4
jobs = 2
''')
    doc = cli.run_json("run", str(ch))
    assert doc["seed"] == 2024 and doc["errors"] == []
    by_pair = pairs_of(doc["games"])
    assert len(by_pair) == 6
    for pair, gs in by_pair.items():
        assert len(gs) == 4
        assert Counter(g["players"][0] for g in gs) == {pair[0]: 2, pair[1]: 2}
    points = {s["bot"]: s["points"] for s in doc["standings"]}
    assert points == match_points(doc["games"])
    assert doc["standings"][0]["bot"] == "threat" and points["threat"] == 9


def test_a_drawn_match_is_one_point_each(cli, tmp_path):
    twin = tmp_path / "steady_twin"
    shutil.copytree(STEADY, twin)
    (twin / "bot.toml").write_text((twin / "bot.toml").read_text().replace('"steady"', '"steady_twin"'))
    done = cli("run", "gomoku_classic12", "--bots", str(STEADY), "--bots", str(twin), "--seed", "1",
               "--json", tmp_path / "out.json", "--db", tmp_path / "j.sqlite", check=True)
    doc = json.loads((tmp_path / "out.json").read_text())
    # Same brain both sides: black wins each game, so each wins one game of the match.
    assert sorted(g["winner"] for g in doc["games"]) == ["steady", "steady_twin"]
    assert [(s["points"], s["wins"]) for s in doc["standings"]] == [(1, 1), (1, 1)]
    # Matches and games each under their own headings: one drawn match, one game won and one lost.
    assert [(s["match_wins"], s["match_draws"], s["match_losses"]) for s in doc["standings"]] == [(0, 1, 0)] * 2
    head = next(line for line in done.stdout.splitlines() if "match points" in line)
    assert re.search(r"match points.*matches won.*drawn.*lost.*games won.*drawn.*lost.*games", head), head
    row = next(line for line in done.stdout.splitlines() if "│ steady " in line)
    assert [c.strip() for c in row.split("│")[3:11]] == ["1", "0", "1", "0", "1", "0", "1", "2"]


def test_challenge_limits_apply_and_flags_override_them(cli):
    ch = challenge(cli.tmp / "lenient", f'''
game = "gomoku_classic12"
bots = ["{STEADY}", "{TB / 'late_ok'}"]
seed = 5

[limits]
first_reply_time = 3.0
''')
    lenient = cli.run_json("run", str(ch))
    assert all(g["fault"] is None for g in lenient["games"])  # 1.5 s for OK is within this challenge's 3 s
    strict = cli.run_json("run", str(ch), "--first-reply-time", "1")
    assert [(g["fault"], g["verdict"]) for g in strict["games"]] == [("late_ok", "timeout")] * 2


def test_challenge_can_choose_the_empty_opening(cli):
    ch = challenge(cli.tmp / "empty", f'''
game = "gomoku_classic12"
bots = ["{STEADY}", "{TB / 'course'}"]
seed = 5

[rules]
opening = "empty"
''')
    doc = cli.run_json("run", str(ch))
    for g in doc["games"]:
        assert g["fault"] is None
        out = replay(g["moves"], opening="empty")
        assert out.reason == g["reason"]


def test_challenge_with_a_misspelt_limit_names_file_and_line(cli):
    ch = challenge(cli.tmp / "typo", f'''game = "gomoku_classic12"
bots = ["{STEADY}", "{BUNDLED / 'template'}"]

[limits]
move_time = 2.0
memory_mbs = 350
''')
    p = cli("run", str(ch), timeout=60)
    assert p.returncode == 1
    assert f"{ch / 'kothkit.toml'}:6: unknown limit 'memory_mbs'" in p.stderr.replace("\n", "")


def test_challenge_with_an_unknown_opening_is_refused_clearly(cli):
    ch = challenge(cli.tmp / "badrule", f'''game = "gomoku_classic12"
bots = ["{STEADY}", "{BUNDLED / 'template'}"]

[rules]
opening = "swap2"
''')
    p = cli("run", str(ch), timeout=60)
    assert p.returncode == 1
    assert "opening must be one of 'center4', 'empty', got 'swap2'" in p.stderr
    assert "Traceback" not in p.stderr


# -- the build step ---------------------------------------------------------------------------------------------
def test_build_is_cached_by_source_hash_and_a_failed_build_sits_out(cli, tmp_path):
    mine = tmp_path / "bots" / "mine"
    shutil.copytree(BUNDLED / "template", mine, ignore=shutil.ignore_patterns("brain", ".kothkit-build"))
    (mine / "bot.toml").write_text((mine / "bot.toml").read_text().replace('"template"', '"mine"'))
    args = ("run", "gomoku_classic12", "--bots", str(mine), "--bots", str(STEADY), "--seed", "1", "--jobs", "1", "-q")

    first = cli(*args, "--db", str(tmp_path / "a.sqlite"), check=True)
    assert "building mine: gcc -O2 -o brain brain.c" in first.stderr
    assert (mine / "brain").is_file()
    again = cli(*args, "--db", str(tmp_path / "b.sqlite"), check=True)
    assert "building mine" not in again.stderr

    src = mine / "brain.c"
    src.write_text(src.read_text() + "\n/* a changed source */\n")
    changed = cli(*args, "--db", str(tmp_path / "c.sqlite"), check=True)
    assert "building mine" in changed.stderr

    broken = tmp_path / "bots" / "broken"
    shutil.copytree(mine, broken, ignore=shutil.ignore_patterns("brain", ".kothkit-build"))
    (broken / "bot.toml").write_text((broken / "bot.toml").read_text().replace('"mine"', '"broken"'))
    (broken / "brain.c").write_text("int main(void) { return missing_variable; }\n")
    doc = cli.run_json("run", "gomoku_classic12", "--bots", str(tmp_path / "bots"), "--bots", str(STEADY),
                       "--seed", "1", "--jobs", "1")
    assert {s["bot"] for s in doc["standings"]} == {"mine", "steady"}
    assert len(doc["errors"]) == 1 and "broken" in doc["errors"][0]
    assert "missing_variable" in doc["errors"][0] and "error" in doc["errors"][0]


# -- CPU: a brain that uses 1.5 s of its 2 s never loses on time with --jobs = cores ------------------------------
def _machine_cpu_seconds() -> float:
    """CPU seconds spent by everything on the machine so far (all cores, from /proc/stat)."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, idle, iowait, irq, softirq, steal = (int(x) for x in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def _own_cpu_seconds() -> float:
    """CPU seconds of this process and every child it has waited for (the kothkit run and its bots)."""
    import resource

    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        u = resource.getrusage(who)
        total += u.ru_utime + u.ru_stime
    return total


@pytest.mark.slow
def test_slow15_never_loses_on_time_with_jobs_equal_to_cores(cli, tmp_path):
    """The claim is about kothkit's own load: if other programs took CPU during the run, a time fault is no evidence."""
    cores = len(os.sched_getaffinity(0))
    k = 2
    while k * (k - 1) < cores:  # enough games to keep every core busy at once
        k += 1
    for i in range(k):
        d = tmp_path / "bots" / f"slow15_{i}"
        shutil.copytree(TB / "slow15", d)
        (d / "bot.toml").write_text((d / "bot.toml").read_text().replace('"slow15"', f'"slow15_{i}"'))
    db = tmp_path / "slow.sqlite"
    machine, own = _machine_cpu_seconds(), _own_cpu_seconds()
    doc = cli.run_json("run", "gomoku_classic12", "--bots", str(tmp_path / "bots"), "--seed", "1",
                       "--jobs", str(cores), "--db", str(db), timeout=600)
    foreign = (_machine_cpu_seconds() - machine) - (_own_cpu_seconds() - own)
    if any(g["fault"] for g in doc["games"]) and foreign > 1.0:
        pytest.skip(f"other programs used {foreign:.1f} s of CPU during the run: the cores were not kothkit's alone")
    assert len(doc["games"]) == k * (k - 1)
    for g in doc["games"]:
        assert g["fault"] is None, (g, f"other programs used {foreign:.1f} s of CPU during the run")
        assert g["winner"] == g["players"][0]  # black completes its home row first
    for rec in records(db):
        moves = [m for m in rec.moves if m.reply != "OK"]
        assert len(moves) == 9
        assert all(m.ms >= 1500 for m in moves)  # the CPU really was spent
