"""Gomocup engines play unchanged: a real engine of ours (tests/bots/gomocup/pbrain-probe.c) in
bot folders of a binary and a three-line bot.toml, through real tournaments, on every path of the
Piskvork protocol."""

from __future__ import annotations

import re

from kothkit_gomocup.match import GomocupMatch

from kothkit.game import Setup


def faults(records) -> list:
    return [(r.offender, r.verdict, r.reason) for r in records if r.verdict]


def test_engines_are_told_their_limits_and_time_left_and_play_to_five(arena):
    arena.engine("alpha")
    arena.engine("beta", "message", "crlf")
    arena.run(limits="move_time = 2.0\ngame_time = 60.0\nmemory_mb = 300")
    records = arena.records()
    assert len(records) == 2 and not faults(records)
    assert all(r.winner and r.reason.startswith("five in a row at ") for r in records)
    for r in records:
        replies = [m.reply for m in r.moves]
        assert replies[:4] == ["OK", 'name="probe", version="1.2", author="kothkit tests", country="CZ"'] * 2
        for name in r.players:
            log = r.logs[name]
            for told in ("told: INFO timeout_turn 2000", "told: INFO timeout_match 60000",
                         f"told: INFO max_memory {300 * 1024 * 1024}", "told: INFO rule 0", "told: INFO game_type 1"):
                assert log.count(told) == 1, (told, log)
            left = [int(t) for t in re.findall(r"told: INFO time_left (\d+)", log)]
            assert left[0] == 60000 and len(left) >= 3
            assert left == sorted(left, reverse=True) and left[-1] > 50000  # counted down, start-up not charged


def test_message_and_debug_lines_in_any_case_are_logs_and_any_line_end_ends_a_line(arena):
    arena.engine("loud", "message", "cr")
    arena.engine("quiet", "crlf", "noabout")
    arena.run()
    records = arena.records()
    assert not faults(records)
    for r in records:
        log = r.logs["loud"]
        for line in ("MESSAGE thinking about 0 stones", "message lower case too", "DEBUG depth 1", "debug done"):
            assert line in log
        # every reply of the CR-ended engine is a move or its start-up, never a log line
        assert all(not str(m.reply).lower().startswith(("message", "debug")) for m in r.moves)
        assert "UNKNOWN" in [m.reply for m in r.moves]  # ABOUT not understood: taken, and played on


def test_a_slow_start_within_the_allowance_is_not_charged_to_the_first_move(arena):
    arena.engine("sleepy", "slow=1500")
    arena.engine("brisk")
    arena.run(limits="move_time = 0.5\nfirst_reply_time = 0.5\nstartup_time = 3.0\ngame_time = 30.0\ntolerance = 0.2")
    records = arena.records()
    assert not faults(records)
    for r in records:
        seat = r.players.index("sleepy")
        start = [m for m in r.moves if m.seat == seat][0]
        assert start.reply == "OK" and start.ms >= 1400  # its START took 1.5 s, within 3 s
        left = [int(t) for t in re.findall(r"told: INFO time_left (\d+)", r.logs["sleepy"])]
        assert left[0] == 30000  # the start-up is not charged to the game's time


def test_a_start_past_the_allowance_is_a_timeout_and_a_refused_board_is_said(arena):
    arena.engine("sleepy", "slow=2500")
    arena.engine("picky", "refuse")
    arena.run(limits="startup_time = 1.0\ntolerance = 0.1")
    (r,) = arena.records()[:1]
    seat0 = r.players[0]
    if seat0 == "sleepy":
        assert (r.offender, r.verdict, r.reason) == ("sleepy", "timeout", "timeout: no reply within 1 s")
    else:
        assert r.offender == "picky" and r.verdict == "invalid-reply"
        assert r.reason == "invalid-reply: refused START 15: 'ERROR unsupported board size 15'"
    assert {f[0] for f in faults(arena.records())} <= {"sleepy", "picky"}


def test_every_swap2_path_plays_to_the_end(arena):
    arena.engine("opener", "b=two", "c=one", group="a")
    arena.engine("taker", "b=swap", "c=swap", group="a")
    arena.engine("stayer", "b=one", group="a")
    arena.engine("adder", "b=two", "c=swap", group="a")
    arena.run(rules='size = 20\nopening = "swap2"', group="a")
    records = arena.records()
    assert len(records) == 12 and not faults(records)
    seen = set()
    for r in records:
        m = GomocupMatch(Setup(players=r.players, seed=r.seed, rules={"size": 20, "opening": "swap2"}))
        for mv in r.moves:
            phase = m.phase
            assert m.play(mv.seat, mv.reply) is None
            if phase in ("B", "C"):
                seen.add((phase, "SWAP" if mv.reply == "SWAP" else len(mv.reply.split())))
        assert m.outcome is not None and m.outcome.reason == r.reason
        # colours alternate from black all along: the stones' colours are their order's parity
        assert [c for _x, _y, c in m.board.stones] == [1 + i % 2 for i in range(len(m.board.stones))]
    assert seen == {("B", "SWAP"), ("B", 1), ("B", 2), ("C", "SWAP"), ("C", 1)}


def test_the_guard_keeps_an_engine_that_drops_quick_commands_playing(arena):
    arena.engine("hasty", "drop=40", group="g")
    arena.engine("quick", group="g")
    arena.run(limits="move_time = 1.0\ntolerance = 0.1", group="g", name="unguarded")
    lost = faults(arena.records("unguarded"))
    assert lost and all(f[:2] == ("hasty", "timeout") for f in lost)
    arena.run(limits="move_time = 1.0\ntolerance = 0.1\nguard = 0.08", group="g", name="guarded")
    assert not faults(arena.records("guarded"))


def test_about_names_the_engine_on_show_and_games_export_as_psq(arena):
    arena.engine("alpha")
    arena.engine("beta")
    arena.run(rules='position = "7,7 8,8 6,6"')
    records = arena.records()
    shown = arena.kothkit("show", str(arena.root / "c" / "j.sqlite"), "0").stdout
    assert "probe 1.2 by kothkit tests" in shown
    for r in records:
        text = arena.kothkit("export", str(arena.root / "c" / "j.sqlite"), r.id[:12], "-f", "psq", "-o", "-").stdout
        lines = text.splitlines()
        assert lines[0] == "Piskvorky 15x15, 11:11, 0"
        stones = [tuple(map(int, l.split(",")[:2])) for l in lines[1:] if re.fullmatch(r"\d+,\d+,\d+", l)]
        assert stones[:3] == [(8, 8), (9, 9), (7, 7)]  # the position, 1-based, black first
        m = GomocupMatch(Setup(players=r.players, seed=r.seed, rules={"position": "7,7 8,8 6,6"}))
        for mv in r.moves:
            m.play(mv.seat, mv.reply)
        assert {(x + 1, y + 1): c for x, y, c in m.board.stones} == {s: 1 + i % 2 for i, s in enumerate(stones)}


def test_each_engine_s_memory_peak_is_kept_per_game_and_shown(arena):
    arena.engine("alpha")
    arena.engine("beta")
    arena.run(limits="memory_mb = 200")
    records = arena.records()
    shown = arena.kothkit("show", str(arena.root / "c" / "j.sqlite"), "0").stdout
    if records[0].memory is None:  # a machine without a memory cgroup keeps no peak
        assert "memory peak" not in shown
        return
    for r in records:
        assert len(r.memory) == 2 and all(0 < m < 200 for m in r.memory)
    assert re.search(r"memory peak: \w+ \d+ MiB, \w+ \d+ MiB", shown)


def test_a_journal_from_before_memory_peaks_is_read_and_gets_the_column(arena, tmp_path):
    import sqlite3

    from kothkit.store.journal import Journal

    arena.engine("alpha")
    arena.engine("beta")
    arena.run()
    db = arena.root / "c" / "j.sqlite"
    with sqlite3.connect(db) as con:  # as an older kothkit wrote it: no memory column
        con.execute("ALTER TABLE games DROP COLUMN memory")
    con.close()
    shown = arena.kothkit("show", str(db), "0").stdout
    assert "five in a row" in shown and "memory peak" not in shown
    with Journal(db) as j:
        assert all(r.memory is None for r in j.all())
    arena.run()  # played again into it: the column is added, the old games kept
    with Journal(db) as j:
        assert len(list(j.all())) == 2


def test_show_gives_back_the_info_lines_the_engines_were_sent(arena):
    arena.engine("alpha")
    arena.engine("beta")
    arena.run(limits="move_time = 2.0\ngame_time = 60.0")
    r = arena.records()[0]
    shown = arena.kothkit("show", str(arena.root / "c" / "j.sqlite"), "0", "--no-boards").stdout
    for bot in r.players:
        assert f"judge -> {bot}: INFO timeout_turn 2000" in shown and f"judge -> {bot}: INFO timeout_match 60000" in shown
        sent = [int(v) for v in re.findall(rf"judge -> {bot}: INFO time_left (\d+)", shown)]
        told = [int(v) for v in re.findall(r"told: INFO time_left (\d+)", r.logs[bot])]
        assert len(sent) == len(told) and all(abs(a - b) <= 1 for a, b in zip(sent, told)), (sent, told)
