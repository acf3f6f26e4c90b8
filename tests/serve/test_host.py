"""The host (kothkit.serve.host.Host): real challenge folders, real builds (gcc), real games of
blindfold connect4 between small C brains, real SQLite; a restart in the middle of a build."""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from kothkit.results.archive import transcript
from kothkit.results.gametext import game_text
from kothkit.serve.host import (BadFileName, Host, RateLimited, SettingsError, SubmitError, TooLarge,
                                UnknownLanguage)

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")


def brain(offset: int) -> bytes:
    """A connect4 brain in C: one column a prompt, each brain its own sequence (never illegal:
    a full column is a pass)."""
    return (b'#include <stdio.h>\nint main(void){char line[8192];int k=0;\n'
            b'while(fgets(line,sizeof line,stdin)){printf("%d\\n",(k++ + ' + str(offset).encode() +
            b')%7);fflush(stdout);}return 0;}\n')


BROKEN = b"int main( { return 0; }\n"

SUBMISSIONS = """game = "connect4_hidden"
rounds = 1
seed = 11

[serve]
kind = "submissions"
title = "Blindfold connect4"
max_bytes = 2000
min_interval = {interval}
per_day = {per_day}
build_time = 30

[serve.languages.c11]
label = "C11"
file = "brain.c"
build = {build}
command = ["./brain"]
"""

GCC = '["gcc", "-O2", "-std=c11", "-o", "brain", "brain.c"]'


def submissions_challenge(root: Path, interval: float = 0, per_day: int = 100, extra: str = "") -> Path:
    d = root / "course"
    d.mkdir()
    (d / "kothkit.toml").write_text(SUBMISSIONS.format(interval=interval, per_day=per_day, build=GCC) + extra)
    return d


def folder_bot(where: Path, name: str, offset: int) -> Path:
    d = where / name
    d.mkdir(parents=True)
    (d / "bot.c").write_bytes(brain(offset))
    (d / "bot.toml").write_text(f'name = "{name}"\ncommand = ["./bot"]\nbuild = ["gcc", "-O2", "-o", "bot", "bot.c"]\n')
    return d


def folder_challenge(root: Path, bots: dict[str, int]) -> Path:
    d = root / "koth"
    for name, offset in bots.items():
        folder_bot(d / "bots", name, offset)
    (d / "kothkit.toml").write_text('game = "connect4_hidden"\nbots = ["bots"]\nrounds = 1\nseed = 5\n')
    return d


def until(host: Host, name: str, ok, timeout: float = 60.0):
    """Wait (on the host's version) until ``ok()`` is true; fails past ``timeout``."""
    end = time.monotonic() + timeout
    version = -1
    while True:
        value = ok()
        if value:
            return value
        left = end - time.monotonic()
        if left <= 0:
            raise AssertionError(f"timed out; {host.challenge(name)}; {host.submissions(name) if host.challenge(name).kind == 'submissions' else ''}")
        version = host.wait(name, version, min(left, 2.0))


def settled(host: Host, name: str) -> bool:
    info = host.challenge(name)
    subs = host.submissions(name) if info.kind == "submissions" else []
    return (info.queued == 0 and info.playing == 0 and not any(s.status in ("queued", "building") for s in subs))


def stored_ids(journal: Path) -> list[str]:
    with sqlite3.connect(journal) as db:
        return [r[0] for r in db.execute("SELECT id FROM games")]



def test_folder_challenge_plays_only_what_changed(tmp_path, hosts):
    ch = folder_challenge(tmp_path, {"alpha": 0, "beta": 3})
    host = hosts([ch], tmp_path / "state", jobs=2)
    host.start()
    [info] = host.challenges()
    assert (info.name, info.kind, info.game, info.languages) == ("koth", "folder", "connect4_hidden", ())
    until(host, "koth", lambda: len(host.games("koth")) == 2 and settled(host, "koth"))
    assert [s.bot for s in host.standings("koth")] and {s.owner for s in host.standings("koth")} == {None}
    journal = ch / "kothkit.sqlite"
    assert len(stored_ids(journal)) == 2

    # A bot folder copied in: only its games are played, and it shows on the leaderboard.
    folder_bot(ch / "bots", "gamma", 5)
    until(host, "koth", lambda: len(host.games("koth")) == 6 and settled(host, "koth"))
    table = host.standings("koth")
    assert sorted(s.bot for s in table) == ["alpha", "beta", "gamma"]
    assert all(s.games == 4 for s in table) and [s.rank for s in table][0] == 1
    assert len(stored_ids(journal)) == 6  # the two games of alpha-beta were reused, not played again
    cross = host.crosstable("koth")
    assert set(cross.bots) == {"alpha", "beta", "gamma"}
    assert all(cross.cell(a, b).games == 2 for a in cross.bots for b in cross.bots if a != b)
    assert cross.cell("alpha", "beta").wins == cross.cell("beta", "alpha").losses

    # A bot changed: its four games are played again, the others' two are kept.
    (ch / "bots" / "gamma" / "bot.c").write_bytes(brain(6))
    until(host, "koth", lambda: len(stored_ids(journal)) == 10 and settled(host, "koth"))
    assert len(host.games("koth")) == 6

    # A bot removed: its games drop out of the standings.
    shutil.rmtree(ch / "bots" / "gamma")
    until(host, "koth", lambda: len(host.games("koth")) == 2)
    assert sorted(s.bot for s in host.standings("koth")) == ["alpha", "beta"]
    assert all(s.games == 2 for s in host.standings("koth"))
    assert set(host.games("koth", bot="alpha")) == set(host.games("koth"))


def test_folder_bot_that_does_not_build_is_named(tmp_path, hosts):
    ch = folder_challenge(tmp_path, {"alpha": 0, "beta": 3})
    broken = folder_bot(ch / "bots", "broken", 0)
    (broken / "bot.c").write_bytes(BROKEN)
    host = hosts([ch], tmp_path / "state", jobs=1)
    host.start()
    until(host, "koth", lambda: host.challenge("koth").errors)
    [error] = host.challenge("koth").errors
    assert "broken" in error and "build failed" in error
    until(host, "koth", lambda: len(host.games("koth")) == 2 and settled(host, "koth"))
    assert sorted(s.bot for s in host.standings("koth")) == ["alpha", "beta"]


def bot_of(host: Host, login: str) -> str:
    """The bot name of ``login``'s brains on ``host``: an HMAC of the login under the state's key."""
    from kothkit.serve.privacy import load_key
    from kothkit.serve.submissions import keyed_bot_name

    return keyed_bot_name(load_key(host.state_dir), login)


def test_submissions_build_play_and_replace(tmp_path, hosts):
    ch = submissions_challenge(tmp_path)
    host = hosts([ch], tmp_path / "state", jobs=2)
    host.start()
    info = host.challenge("course")
    assert (info.kind, info.title, info.max_bytes, [lang.id for lang in info.languages]) == \
        ("submissions", "Blindfold connect4", 2000, ["c11"])
    first = host.submit("course", "s001", "my brain.c", "c11", brain(0))
    assert (first.status, first.login, first.bot, first.filename) == ("queued", "s001", bot_of(host, "s001"),
                                                                      "my brain.c")
    assert "s001" not in first.bot
    host.submit("course", "s002", "b.c", "c11", brain(2))
    host.submit("course", "s003", "c.c", "c11", brain(4))
    until(host, "course", lambda: settled(host, "course") and len(host.games("course")) == 6)
    table = host.standings("course")
    assert sorted((s.owner, s.bot, s.games) for s in table) == [(f"s00{k}", bot_of(host, f"s00{k}"), 4)
                                                                for k in (1, 2, 3)]
    assert all(s.latest is not None for s in table)
    [mine] = host.submissions("course", "s001")
    assert (mine.status, mine.played, mine.total) == ("done", 4, 4)
    journal = tmp_path / "state" / "journals" / "course.sqlite"
    assert len(stored_ids(journal)) == 6

    # A brain that does not build: its author reads gcc's error; the previous brain plays on.
    bad = host.submit("course", "s001", "oops.c", "c11", BROKEN)
    until(host, "course", lambda: host.submissions("course", "s001")[0].status == "build-failed")
    failed = host.submissions("course", "s001")[0]
    assert failed.id == bad.id and "error" in failed.build_output and "brain.c" in failed.build_output
    assert str(tmp_path) not in failed.build_output  # the host's folders are not shown
    assert host.submissions("course", "s001")[1].status == "done"

    # A newer brain that builds replaces the old one: only its games are played.
    host.submit("course", "s001", "better.c", "c11", brain(1))
    until(host, "course", lambda: settled(host, "course") and host.submissions("course", "s001")[0].status == "done")
    statuses = [s.status for s in host.submissions("course", "s001")]
    assert statuses == ["done", "build-failed", "replaced"]
    replaced = host.submissions("course", "s001")[2]
    assert (replaced.played, replaced.total) == (4, 4)
    assert len(stored_ids(journal)) == 10  # 6 + the new brain's 4; s002-s003's 2 reused
    assert len(host.games("course")) == 6
    assert all(s.games == 4 for s in host.standings("course"))
    game = host.games("course", bot=bot_of(host, "s001"))[0]
    assert {bot_of(host, login) for login in host.owners("course", game.id)} == set(game.bots)
    assert host.game("course", game.id) == game
    with pytest.raises(KeyError):
        host.game("course", "0" * 32)

    # What the pages re-play a game from (the web's log and replay routes: tests/serve/test_privacy.py),
    # for a counted game and a superseded one alike.
    archive, record, info = host.stored_game("course", game.id)
    assert (record.id, record.players, info.name) == (game.id, game.bots, "connect4_hidden")
    assert "outcome:" in game_text(transcript(archive, record, info=info))
    with pytest.raises(KeyError):
        host.stored_game("course", "0" * 32)
    old_game = next(g for g in stored_ids(journal) if g not in {x.id for x in host.games("course")})
    assert host.game("course", old_game).id == old_game  # a superseded game is still there to see
    assert host.stored_game("course", old_game)[1].id == old_game
    with pytest.raises(KeyError):
        host.standings("nope")


def test_refused_submissions_store_nothing(tmp_path, hosts):
    ch = submissions_challenge(tmp_path, interval=3600, per_day=2)
    koth = folder_challenge(tmp_path, {"alpha": 0, "beta": 1})
    host = hosts([ch, koth], tmp_path / "state", jobs=1)

    def nothing_stored():
        assert sorted(s.id for s in host.submissions("course")) == accepted
        assert sorted(p.name for p in (tmp_path / "state" / "submissions" / "course").glob("*/*")) == \
            [str(i) for i in sorted(accepted)]

    accepted: list[int] = []
    with pytest.raises(TooLarge) as e:
        host.submit("course", "s1", "big.c", "c11", b"x" * 2001)
    assert "2,001 bytes" in str(e.value) and "2,000" in str(e.value)
    for name in ("../brain.c", "a/b.c", "bad\0.c", "", "..", "ctl\x1b[31m.c"):
        with pytest.raises(BadFileName):
            host.submit("course", "s1", name, "c11", brain(0))
    with pytest.raises(UnknownLanguage) as e:
        host.submit("course", "s1", "x.py", "python3", b"print(1)")
    assert "c11" in str(e.value)
    with pytest.raises(UnknownLanguage):
        host.submit("koth", "s1", "x.c", "c11", brain(0))
    with pytest.raises(SubmitError):
        host.submit("course", "s1", "empty.c", "c11", b"")
    assert not (tmp_path / "state" / "submissions").exists() or not any((tmp_path / "state" / "submissions").rglob("*.c"))
    accepted.append(host.submit("course", "s1", "a.c", "c11", brain(0)).id)
    with pytest.raises(RateLimited) as e:
        host.submit("course", "s1", "b.c", "c11", brain(1))
    assert 3590 < e.value.retry_after <= 3600 and "submit again in" in str(e.value)
    nothing_stored()
    accepted.append(host.submit("course", "s2", "a.c", "c11", brain(0)).id)  # another author is not limited
    nothing_stored()


def test_daily_limit(tmp_path):
    from kothkit.serve.settings import load
    from kothkit.serve.submissions import Store

    settings = load(submissions_challenge(tmp_path, interval=10, per_day=2))
    store = Store(tmp_path / "state")
    now = 1_000_000.0
    store.add("course", settings, "s1", "a.c", "c11", brain(0), now=now)
    store.add("course", settings, "s1", "a.c", "c11", brain(0), now=now + 60)
    with pytest.raises(RateLimited) as e:
        store.add("course", settings, "s1", "a.c", "c11", brain(0), now=now + 120)
    assert e.value.retry_after == pytest.approx(86400 - 120) and "2 submissions in 24 hours" in str(e.value)
    store.add("course", settings, "s1", "a.c", "c11", brain(0), now=now + 86401)  # the first left the window
    assert len(store.list("course", "s1")) == 3
    store.close()


def test_build_time_per_day(tmp_path):
    from kothkit.serve.settings import load
    from kothkit.serve.submissions import Store

    ch = submissions_challenge(tmp_path, interval=0, per_day=100)
    text = (ch / "kothkit.toml").read_text().replace("build_time = 30", "build_time = 30\nbuild_seconds_per_day = 10")
    (ch / "kothkit.toml").write_text(text)
    settings = load(ch)
    assert settings.build_seconds_per_day == 10
    store = Store(tmp_path / "state")
    now = 1_000_000.0
    for k, took in enumerate((4.0, 7.0)):
        row = store.add("course", settings, "s1", "a.c", "c11", brain(0), now=now + k * 100)
        store.set_status(row.id, "build-failed", build_output="", build_seconds=took)
    with pytest.raises(RateLimited) as e:
        store.add("course", settings, "s1", "a.c", "c11", brain(0), now=now + 300)
    # 11 s used: free again when the first build (4 s) leaves the last 24 hours.
    assert e.value.retry_after == pytest.approx(86400 - 300) and "11 s" in str(e.value)
    store.add("course", settings, "s2", "a.c", "c11", brain(0), now=now + 300)
    store.close()


def test_rows_are_read_by_column_name(tmp_path):
    """A host.sqlite whose submissions table has its columns in another order, and one more (as an
    older or newer kothkit might leave it), still reads into the right fields."""
    from kothkit.serve.settings import load
    from kothkit.serve.submissions import Store

    state = tmp_path / "state"
    state.mkdir()
    with sqlite3.connect(state / "host.sqlite") as db:
        db.execute("""CREATE TABLE submissions (id INTEGER PRIMARY KEY AUTOINCREMENT, note TEXT DEFAULT 'x',
            status TEXT NOT NULL, login TEXT NOT NULL, challenge TEXT NOT NULL, bot TEXT NOT NULL, time REAL NOT NULL,
            size INTEGER NOT NULL, language TEXT NOT NULL, filename TEXT NOT NULL, total INTEGER NOT NULL DEFAULT 0,
            played INTEGER NOT NULL DEFAULT 0, build_output TEXT NOT NULL DEFAULT '',
            build_seconds REAL NOT NULL DEFAULT 0)""")
    store = Store(state)
    settings = load(submissions_challenge(tmp_path, interval=0, per_day=100))
    added = store.add("course", settings, "s1", "a.c", "c11", brain(0), now=1_000_000.0)
    (row,) = store.list("course", "s1")
    assert row == added
    assert (row.challenge, row.login, row.filename, row.language, row.status) == ("course", "s1", "a.c", "c11", "queued")
    store.close()


#: A build profile whose first build in a folder hangs (the host is stopped during it), and whose
#: next one builds.
SLOW = """
[serve.languages.slow]
label = "C, built slowly once"
file = "brain.c"
build = ["sh", "-c", "if test -e started; then gcc -O2 -o brain brain.c; else touch started; sleep 60; fi"]
command = ["./brain"]
"""


def test_restart_in_the_middle_of_a_build(tmp_path, hosts):
    """A host stopped while a build runs: the build is killed at once (nothing left running); the
    next host builds the submission again and plays its games, each counted once."""
    ch = submissions_challenge(tmp_path, extra=SLOW)
    state = tmp_path / "state"
    host = hosts([ch], state, jobs=1)
    host.start()
    sub = host.submit("course", "s001", "a.c", "slow", brain(0))
    until(host, "course", lambda: host.submissions("course")[0].status == "building")
    folder = state / "submissions" / "course" / sub.bot / str(sub.id)
    until(host, "course", lambda: (folder / "started").exists())
    assert until(host, "course", lambda: _processes_in(folder), timeout=10)  # the build runs: seen here
    began = time.monotonic()
    host.stop(timeout=10)
    assert time.monotonic() - began < 15
    assert not _processes_in(folder)  # the build (its sleep) was killed with its worker
    assert host.submissions("course")[0].status == "building"

    again = hosts([ch], state, jobs=1)
    again.start()
    again.submit("course", "s002", "b.c", "c11", brain(3))
    until(again, "course", lambda: settled(again, "course") and len(again.games("course")) == 2)
    assert [s.status for s in again.submissions("course")] == ["done", "done"]
    assert all(s.games == 2 for s in again.standings("course"))


def _processes_in(folder: Path) -> list[int]:
    """Processes whose working folder is ``folder`` (a jailed build sees it under another path, so
    also: any process whose command line names the folder's unique ``started`` step)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd == str(folder) or b"touch started; sleep 60" in cmd:
            found.append(int(pid))
    return found


def test_restart_loses_nothing_and_counts_nothing_twice(tmp_path, hosts):
    ch = folder_challenge(tmp_path, {f"b{i}": i for i in range(5)})
    state = tmp_path / "state"
    host = hosts([ch], state, jobs=1)
    host.start()
    until(host, "koth", lambda: 3 <= len(host.games("koth")))
    host.stop()
    partial = len(stored_ids(ch / "kothkit.sqlite"))
    assert partial < 20 or pytest.skip("every game finished before the stop")

    again = hosts([ch], state, jobs=2)
    again.start()
    until(again, "koth", lambda: settled(again, "koth") and len(again.games("koth")) == 20)
    assert len(stored_ids(ch / "kothkit.sqlite")) == 20
    assert all(s.games == 8 for s in again.standings("koth"))


def test_wait_wakes_on_a_change_and_times_out(tmp_path, hosts):
    ch = submissions_challenge(tmp_path)
    host = hosts([ch], tmp_path / "state", jobs=1)
    v = host.version("course")
    began = time.monotonic()
    assert host.wait("course", v, 0.3) == v
    assert time.monotonic() - began >= 0.25
    host.submit("course", "s1", "a.c", "c11", brain(0))  # queued even before the host starts
    assert host.wait("course", v, 5) > v
    assert host.submissions("course")[0].status == "queued"
    time.sleep(0.05)
    later = hosts([ch], tmp_path / "state", jobs=1)  # a restarted host: versions go on growing
    assert later.version("course") > host.version("course")


def test_kothkit_run_takes_a_challenge_with_a_serve_table(tmp_path):
    from kothkit.playing import challenge as challenges

    ch = challenges.load(submissions_challenge(tmp_path))
    assert (ch.game, ch.rounds, ch.seed) == ("connect4_hidden", 1, 11)


def test_wrong_settings_name_the_file_and_line(tmp_path):
    d = tmp_path / "ch"
    d.mkdir()
    f = d / "kothkit.toml"
    f.write_text('game = "connect4_hidden"\n\n[serve]\nkind = "submissions"\nper_dya = 3\n')
    with pytest.raises(SettingsError, match=rf"{f}:5: .*unknown key 'per_dya'"):
        Host([d], tmp_path / "state")
    f.write_text('game = "connect4_hidden"\n[serve]\nkind = "submissions"\n[serve.languages.c]\nlabel = "C"\n'
                 'file = "../brain.c"\ncommand = ["./brain"]\n')
    with pytest.raises(SettingsError, match=rf"{f}:6: \[serve.languages.c\] file must be a plain file name"):
        Host([d], tmp_path / "state")
    f.write_text('game = "connect4_hidden"\n[serve]\nmax_bytes = -1\n')
    with pytest.raises(SettingsError, match=rf"{f}:3: .*max_bytes must be an integer"):
        Host([d], tmp_path / "state")
    f.write_text('game = "gomoku_swap2"\n[serve]\nkind = "folder"\n\n[rules]\nboard_order = "sideways"\n')
    with pytest.raises(SettingsError, match=rf"{f}:6: bad \[rules\] value board_order"):
        Host([d], tmp_path / "state")
    f.write_text('game = "no_such_game"\n')
    with pytest.raises(SettingsError, match="no_such_game"):
        Host([d], tmp_path / "state")


def test_a_new_submission_does_not_wait_for_another_challenges_games(tmp_path, hosts):
    """One slot, a folder challenge with 56 games queued: a submission to another challenge is
    built and its games played before those (builds and a new brain's games first)."""
    koth = folder_challenge(tmp_path, {f"b{i}": i for i in range(8)})
    course = submissions_challenge(tmp_path)
    host = hosts([koth, course], tmp_path / "state", jobs=1)
    host.start()
    until(host, "koth", lambda: len(host.games("koth")) >= 1)
    host.submit("course", "s1", "a.c", "c11", brain(0))
    host.submit("course", "s2", "b.c", "c11", brain(2))
    until(host, "course", lambda: [s.status for s in host.submissions("course")] == ["done", "done"])
    assert host.challenge("koth").queued > 0  # the other challenge's games waited
    until(host, "koth", lambda: settled(host, "koth") and len(host.games("koth")) == 56, timeout=120)


def test_bot_names_made_from_logins_are_safe_folder_names():
    from kothkit.bots.folders import NAME
    from kothkit.serve.submissions import bot_name

    assert bot_name("s2024001") == "s2024001"
    for login in ("..", "../etc", "a/b", "x" * 100, "<script>", "", ".hidden", "名字"):
        name = bot_name(login)
        assert NAME.fullmatch(name) and "/" not in name and not name.startswith(".")
    assert bot_name("a/b") != bot_name("a\\b")


def _workers() -> list[int]:
    """The host's worker processes: this process's children started by multiprocessing's spawn."""
    me = str(os.getpid())
    found = []
    for pid in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[1] == me and b"spawn_main" in cmd:
            found.append(int(pid))
    return found


def test_a_worker_killed_mid_game_loses_no_game(tmp_path, hosts):
    ch = folder_challenge(tmp_path, {f"b{i}": i for i in range(5)})
    host = hosts([ch], tmp_path / "state", jobs=2)
    host.start()
    until(host, "koth", lambda: len(host.games("koth")) >= 2 and _workers())
    for pid in _workers()[:1]:
        os.kill(pid, 9)
    until(host, "koth", lambda: settled(host, "koth") and len(host.games("koth")) == 20, timeout=120)
    assert len(stored_ids(ch / "kothkit.sqlite")) == 20
    assert all(s.games == 8 for s in host.standings("koth"))
    assert "a worker died" in (host.problem or "")


def test_default_languages_take_a_python_brain(tmp_path, hosts):
    d = tmp_path / "py"
    d.mkdir()
    (d / "kothkit.toml").write_text('game = "connect4_hidden"\nrounds = 1\n[serve]\nkind = "submissions"\n')
    host = hosts([d], tmp_path / "state", jobs=2)
    assert [lang.id for lang in host.challenge("py").languages] == ["c11", "cpp17", "python3"]
    host.start()
    for login, column in (("p1", 0), ("p2", 3)):
        host.submit("py", login, "bot.py", "python3",
                    f"import sys\nfor line in sys.stdin:\n    print({column}, flush=True)\n".encode())
    until(host, "py", lambda: settled(host, "py") and len(host.games("py")) == 2)
    assert [s.status for s in host.submissions("py")] == ["done", "done"]
    folder = tmp_path / "state" / "submissions" / "py" / bot_of(host, "p1")
    [brain_folder] = folder.iterdir()
    assert sorted(p.name for p in brain_folder.iterdir() if not p.name.startswith(".")) == ["bot.toml", "brain.py"]


# -- a change of bots schedules only what changed -------------------------------------------------
# The host keeps its schedule pair by pair and, for a new, replaced or removed brain, works out
# only that brain's pairs (kothkit.playing.schedule.Planned, through Host._plan).  These tests drive the dispatcher's own steps in the test's
# thread (no slots, no games played: stored rows stand for finished games) and compare the host's
# schedule, counted games and standings with a full one: kothkit.playing.schedule.Schedule, and a
# second host that opens the same state afresh.

PY_CHALLENGE = ('game = "connect4_hidden"\nrounds = 2\nseed = 3\n[serve]\nkind = "submissions"\n'
                'min_interval = 0\nper_day = 100000\n')


def _py_brain(i: int) -> bytes:
    return f"print({i})\n".encode()


def _row(t, finished: float):
    """A journal row for task ``t`` (a GameRow, as the workers store them), its result made from its seed."""
    import json

    from kothkit.store.journal import GameRow

    a, b = t.players
    winner = (a.name, b.name, None)[t.seed % 3]
    return GameRow(t.id, t.game, t.index, json.dumps([a.name, b.name]), json.dumps([a.hash, b.hash]), t.seed, winner,
            "four in a row" if winner else "board full", None, None, "[]", "{}", 0.01, finished)


def _full_schedule(c):
    from kothkit.playing.schedule import Schedule

    return Schedule(game=c.info.name, bots=tuple(sorted(c.bots.values(), key=lambda b: b.name)), seed=c.seed,
                    rounds=c.rounds, limits=c.limits, rules=c.rules, code=c.code)


def _assert_as_full(host: Host, ch: Path, state: Path) -> None:
    """``host``'s schedule of ``course`` is what a full schedule of its bots gives."""
    c = host._get("course")
    tasks = list(_full_schedule(c))
    assert {gid: c.plan.index(gid) for gid in c.plan.where} == {t.id: t.index for t in tasks}
    in_journal = set(stored_ids(c.journal_path))
    assert set(c.counted) == {t.id for t in tasks if t.id in in_journal}
    assert set(c.unplayed) == {t.id for t in tasks if t.id not in in_journal}
    queued = sorted(host._work.queue(c.name), key=lambda t: t.index)
    assert queued == [t for t in tasks if t.id not in in_journal]  # (ids, seats, seeds, indices)
    assert all(c.fresh & {b.name for b in t.players} for t in host._work.queue(c.name, 0))
    fresh = Host([ch], state)  # the same state opened afresh: a full schedule, its games looked up
    f = fresh._get("course")
    try:
        fresh._open(f)
        assert fresh._work.queue(f.name) == [t for t in tasks if t.id not in in_journal]
        assert host.standings("course") == fresh.standings("course")
        assert host.crosstable("course") == fresh.crosstable("course")
        for bot in list(c.bots)[:3]:
            assert host.games("course", bot) == fresh.games("course", bot)
        assert host.games("course") == fresh.games("course")
        some = next(iter(c.counted))
        assert host.game("course", some) == fresh.game("course", some)
        assert [(s.status, s.played, s.total) for s in host.submissions("course")] == \
            [(s.status, s.played, s.total) for s in fresh.submissions("course")]
    finally:
        assert f.journal is not None
        f.journal.close()
        fresh._store.close()


def _play(host: Host, c, n: int, start: float) -> None:
    """Store ``n`` games of the queue, as the dispatcher stores finished games."""
    for i in range(n):
        t = host._work.take(c.name)
        assert t is not None
        host._stored(c, t, [_row(t, start + i)])


def _built(host: Host, c, sub_id: int, ok: bool = True) -> None:
    """A build that finished (a Python brain has nothing to build), as the dispatcher handles it."""
    row = host._store.get(sub_id)
    host._built(c, ("submission" if ok else "rebuild", sub_id), str(host._store.folder(row)),
                (ok, "" if ok else "the rebuild failed", 0.0), None)


def _status(host: Host, sub_id: int):
    [s] = [s for s in host.submissions("course") if s.id == sub_id]
    return s.status, s.played, s.total


def test_a_change_of_brains_schedules_only_their_games_as_a_full_schedule_would(tmp_path):
    from kothkit.bots.folders import load_folder
    from kothkit.plugins import game_code, get_game
    from kothkit.serve import settings as serve_settings
    from kothkit.serve.privacy import load_key
    from kothkit.serve.submissions import Store, keyed_bot_name
    from kothkit.store.journal import Journal

    ch = tmp_path / "course"
    ch.mkdir()
    (ch / "kothkit.toml").write_text(PY_CHALLENGE)
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    # The bots' names (HMACs of the logins under this key), hence the schedule, the same at every run.
    (state / "public-ids.key").write_bytes(b"a change of brains: a fixed key.")
    store = Store(state)
    key = load_key(state)

    def n(login: str) -> str:  # a login's bot name
        return keyed_bot_name(key, login)

    settings = serve_settings.load(ch)
    specs, first_of = [], {}
    for i in range(20):  # more than a BLOCK (16) of bots: pairs go block by block
        row = store.add("course", settings, f"s{i:02d}", "brain.py", "python3", _py_brain(i), now=1_000_000.0 + i)
        store.set_status(row.id, "active")
        specs.append(load_folder(store.folder(row)))
        first_of[row.login] = row.id
    store.close()
    info = get_game("connect4_hidden")
    from kothkit.playing.schedule import Schedule

    schedule = Schedule(game=info.name, bots=tuple(specs), seed=3, rounds=2, limits=info.limits,
                        rules=dict(info.rules), code=game_code(info))
    # s05's games all stored (its brain is "done"), and every third of the others'.
    with Journal(state / "journals" / "course.sqlite") as j:
        j.add_rows([_row(t, 2_000_000.0 + t.index) for t in schedule
                    if n("s05") in (t.players[0].name, t.players[1].name) or t.index % 3 == 0])

    host = Host([ch], state)
    c = host._get("course")
    try:
        host._open(c)
        _assert_as_full(host, ch, state)
        assert _status(host, first_of["s05"])[0] == "done"
        _play(host, c, 25, 3_000_000.0)
        _assert_as_full(host, ch, state)

        # A new brain whose name comes first: every bot after it moves up a place, some to the next group.
        a00 = next(login for login in (f"a{k:02d}" for k in range(10_000))
                   if n(login) < min(n(f"s{i:02d}") for i in range(20)))
        new = host.submit("course", a00, "brain.py", "python3", _py_brain(100))
        _built(host, c, new.id)
        assert _status(host, new.id) == ("playing", 0, 2 * 2 * 20)  # while its games are being scheduled
        host._reschedule(c, c.changed, wait=True)
        c.changed = None
        assert _status(host, new.id) == ("playing", 0, 2 * 2 * 20)
        assert c.fresh == {n(a00)} and len(host._work.queue(c.name, 0)) == 2 * 2 * 20
        # Its games in a seeded random order over its opponents: its first 20 meet 10 opponents of both groups.
        early = {next(b.name for b in t.players if b.name != n(a00)) for t in host._work.queue(c.name, 0)[:20]}
        second_group = sorted(c.bots)[16]
        assert len(early) == 10 and {bot < second_group for bot in early} == {True, False}
        _assert_as_full(host, ch, state)
        _play(host, c, 30, 4_000_000.0)
        _assert_as_full(host, ch, state)

        # s05 replaced: its old brain was done; the new one is never "done" with the old one's counts.
        second = host.submit("course", "s05", "brain.py", "python3", _py_brain(105))
        _built(host, c, second.id)
        # Its old brain's games still queued are dropped at once (before the new one is scheduled).
        assert not any(n("s05") in (t.players[0].name, t.players[1].name) for t in host._work.queue(c.name))
        assert _status(host, second.id) == ("playing", 0, 2 * 2 * 20)  # not "done" with the old counts
        status, played, total = _status(host, first_of["s05"])
        assert status == "replaced" and played == c.board.games(n("s05")) >= 2 * 2 * 19 and total == 2 * 2 * 20
        host._reschedule(c, c.changed, wait=True)
        c.changed = None
        assert _status(host, second.id) == ("playing", 0, 2 * 2 * 20)
        _assert_as_full(host, ch, state)
        _play(host, c, 20, 5_000_000.0)

        # s05 back to its first source: the same brain, whose games are all in the journal.
        third = host.submit("course", "s05", "brain.py", "python3", _py_brain(5))
        _built(host, c, third.id)
        assert _status(host, third.id) == ("playing", 0, 2 * 2 * 20)
        host._reschedule(c, c.changed, wait=True)
        c.changed = None
        status, played, total = _status(host, third.id)  # (its games with a00 may not all be played)
        assert played >= 2 * 2 * 19 and status == ("done" if played == total else "playing")
        _assert_as_full(host, ch, state)

        # A brain whose rebuild fails leaves: its games drop out, the others keep their places' order.
        _built(host, c, first_of["s11"], ok=False)
        host._reschedule(c, c.changed or set(), wait=True)
        c.changed = None
        assert n("s11") not in c.bots and all(n("s11") not in s.bots for s in host.games("course"))
        _assert_as_full(host, ch, state)
    finally:
        if c.journal is not None:
            c.journal.close()


def test_provisional_rows_become_final(tmp_path):
    """While a brain's games are being played its row says so: games counted of due, the Elo of its
    games so far with its error; its rank stays the challenge's scoring.  All played: final."""
    from kothkit.scoring import rank_key

    ch = tmp_path / "course"
    ch.mkdir()
    (ch / "kothkit.toml").write_text(PY_CHALLENGE)
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    # The bots' names (HMACs of the logins under this key), hence the schedule, the same at every run.
    (state / "public-ids.key").write_bytes(b"provisional rows: a fixed key.!!")
    host = Host([ch], state)
    c = host._get("course")
    try:
        host._open(c)
        for i in range(5):
            sub = host.submit("course", f"s{i}", "brain.py", "python3", _py_brain(i))
            _built(host, c, sub.id)
        host._reschedule(c, c.changed, wait=True)
        c.changed = None
        due = 2 * 2 * 4
        _play(host, c, 13, 1_000_000.0)
        rows = host.standings("course")
        assert all(r.provisional and r.due == due and r.games < due for r in rows)
        assert sum(r.games for r in rows) == 2 * 13
        rated = [r for r in rows if r.elo is not None]
        assert rated and all(r.elo_error is None or r.elo_error > 0 for r in rated)
        # ranked by the challenge's own scoring (connect4_hidden: its points), Elo aside
        assert [r.bot for r in rows] == [s.bot for s in sorted(rows, key=rank_key(c.info.scoring))]
        _play(host, c, host._work.queued(c.name), 2_000_000.0)
        rows = host.standings("course")
        assert all(not r.provisional and r.games == due and r.elo is None for r in rows)
    finally:
        if c.journal is not None:
            c.journal.close()
        host._store.close()
