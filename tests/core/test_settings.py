"""A run's settings are resolved in one place (kothkit.playing.settings): an option over the challenge
file over the journal over the game's defaults, with real challenge files and real journals."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kothkit.limits import Limits
from kothkit.playing import challenge as challenges
from kothkit.playing.settings import Game, Options, SettingsError, choose_seed, game_of, journal_path, resolve
from kothkit.plugins import get_game
from kothkit.store.journal import Journal


def _challenge(folder: Path, text: str) -> challenges.Challenge:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bots").mkdir(exist_ok=True)
    (folder / challenges.FILE).write_text(f'game = "connect4_hidden"\nbots = ["bots"]\n{text}')
    return challenges.load(folder)


def _game(rounds: int, ch: challenges.Challenge | None = None) -> Game:
    """connect4 with ``rounds`` and no limits of its own, and ``ch``'s rules and limits."""
    import attrs

    return game_of(attrs.evolve(get_game("connect4_hidden"), rounds=rounds, limits=Limits()), ch)


def _journal_with_seed(path: Path, game: str, seed: int) -> Path:
    with Journal(path) as j:
        j.start_run(game, seed, {"limits": {}}, [])
    return path


def test_the_seed_is_the_option_then_the_file_then_the_journal_then_fresh(tmp_path):
    journal = _journal_with_seed(tmp_path / "j.sqlite", "connect4_hidden", 77)
    file = tmp_path / "c" / challenges.FILE
    assert choose_seed("connect4_hidden", option=5, challenge_seed=9, journal=journal).value == 5
    got = choose_seed("connect4_hidden", challenge_seed=9, challenge_path=file, journal=journal)
    assert (got.value, got.origin, got.note()) == (9, "challenge", f" (from {file})")
    got = choose_seed("connect4_hidden", journal=journal)
    assert (got.value, got.origin) == (77, "journal") and "--new-seed" in got.note()
    with Journal(journal) as j:  # an open journal is asked as it is (the host's)
        assert choose_seed("connect4_hidden", journal=j).value == 77
    # Another game's runs do not count; a journal that does not exist is not made.
    assert choose_seed("gomoku_swap2", journal=journal).origin == "fresh"
    assert choose_seed("connect4_hidden", journal=tmp_path / "none.sqlite").origin == "fresh"
    assert not (tmp_path / "none.sqlite").exists()
    # --new-seed skips the file and the journal, not the option.
    assert choose_seed("connect4_hidden", challenge_seed=9, journal=journal, new=True).origin == "fresh"
    assert choose_seed("connect4_hidden", option=3, journal=journal, new=True).value == 3


def test_the_journal_is_the_option_then_the_file_then_the_folder_then_the_game(tmp_path):
    plain = _challenge(tmp_path / "a", "")
    named = _challenge(tmp_path / "b", 'journal = "elsewhere.sqlite"\n')
    assert journal_path("connect4_hidden", named, tmp_path / "x.sqlite") == tmp_path / "x.sqlite"
    assert journal_path("connect4_hidden", named) == named.journal
    assert journal_path("connect4_hidden", plain) == plain.folder / "kothkit.sqlite"
    assert journal_path("connect4_hidden") == Path(".kothkit/connect4_hidden.sqlite")
    # A person's games (kothkit play) are kept apart from the tournament's.
    assert journal_path("connect4_hidden", plain, suffix="-play") == Path(".kothkit/connect4_hidden-play.sqlite")


def test_resolve_merges_options_over_the_file_over_the_defaults(tmp_path):
    ch = _challenge(tmp_path / "c", "seed = 12\njobs = 3\nrounds = 4\ntrusted = true\n[limits]\nmove_time = 2.0\n"
                                    "memory_mb = 300\n")
    s = resolve(_game(7, ch), Options())
    assert (s.seed.value, s.jobs, s.rounds, s.trusted) == (12, 3, 4, True)
    assert (s.limits.move_time, s.limits.memory_mb) == (2.0, 300)
    assert s.journal == ch.folder / "kothkit.sqlite"
    s = resolve(_game(7, ch), Options(seed=1, jobs=2, rounds=9, limits={"move_time": 0.5,
                                                                                               "memory_mb": None}))
    assert (s.seed.value, s.jobs, s.rounds, s.limits.move_time, s.limits.memory_mb) == (1, 2, 9, 0.5, 300)
    s = resolve(_game(7), Options(db=tmp_path / "j.sqlite"))
    assert (s.jobs, s.rounds, s.trusted, s.seed.origin) == (os.cpu_count() or 1, 7, False, "fresh")


def test_a_bad_setting_names_its_option_or_file(tmp_path):
    with pytest.raises(SettingsError, match="--jobs must be an integer from 1 to"):
        resolve(_game(1), Options(jobs=0))
    with pytest.raises(SettingsError, match="--move-time: "):
        resolve(_game(1), Options(limits={"move_time": -1.0}))
    not_a_journal = tmp_path / "notes.sqlite"
    not_a_journal.write_text("my notes, not a journal\n")
    with pytest.raises(SettingsError, match="notes.sqlite: not a usable kothkit journal"):
        resolve(_game(1), Options(db=not_a_journal))
    assert not_a_journal.read_text() == "my notes, not a journal\n"


def test_match_and_play_take_the_challenge_files_seed_as_run_does(cli, tmp_path):
    from tests.core.test_challenge_commands import _challenge

    ch = _challenge(tmp_path, 'opening = "empty"')  # seed = 3
    shown = cli("match", ch, "threat", "steady", "--games", "2", "--jobs", "1", "-q", check=True).stdout
    assert f"seed 3 (from {ch / 'kothkit.toml'})" in shown, shown
    left = cli("play", ch, "--against", "threat", "--db", tmp_path / "p.sqlite")
    assert left.returncode == 0 and "game 0 of seed 3;" in left.stdout, left.stdout + left.stderr
