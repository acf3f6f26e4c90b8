"""Turn the conformance kit into pytest tests: ``TestConformance = conformance_tests("mygame")``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from kothkit.game import GameInfo
from kothkit.testing.kit import DEFAULT_SEEDS, Kit


def seeds_option(config: Any, default: int = DEFAULT_SEEDS) -> list[int]:
    """The playout seeds: ``--kothkit-seeds N`` (the kothkit pytest plugin's option) or ``default``."""
    n = config.getoption("kothkit_seeds", None) if config is not None else None
    return list(range(n if n else default))


def conformance_tests(game: str | GameInfo, *, seeds: Iterable[int] | None = None, bundled_bots: bool = True,
                      **kit_options: Any) -> type:
    """A test class running every check of :class:`kothkit.testing.Kit` on ``game``, one test per check.

    Assign it to a name starting with ``Test`` in a test module::

        from kothkit.testing import conformance_tests

        TestConformance = conformance_tests("tictactoe")

    ``seeds`` fixes the playout seeds (default: ``--kothkit-seeds N``, else 0..9);
    ``bundled_bots=False`` skips the test that plays the bundled bots through
    the real referee (marked ``slow``); other keywords go to :class:`Kit`
    (``rules``, ``max_steps``, ``reveals``, ``decode``, ``fuzz_examples``).
    The game is looked up when the tests run, not when they are collected.
    """
    fixed = list(seeds) if seeds is not None else None
    label = game.name if isinstance(game, GameInfo) else str(game)

    class Conformance:
        # One Kit per class (its playouts are shared by the checks); a class method, as pytest wants a
        # class-scoped fixture to be (an instance method is deprecated: each test gets a new instance).
        @pytest.fixture(scope="class")
        @classmethod
        def kit(cls, request: Any) -> Kit:
            return Kit(game, seeds=fixed if fixed is not None else seeds_option(request.config), **kit_options)

        def test_info(self, kit: Kit) -> None:
            """GameInfo fields are usable and the bundled bots load."""
            kit.check_info()

        def test_random_games_end_with_legal_moves_only(self, kit: Kit) -> None:
            kit.check_playouts()

        def test_every_offered_reply_is_accepted(self, kit: Kit) -> None:
            kit.check_other_legal_replies()

        def test_same_seed_same_game(self, kit: Kit) -> None:
            kit.check_determinism()

        def test_malformed_replies_are_rejected(self, kit: Kit) -> None:
            kit.check_malformed_replies()

        def test_forfeit(self, kit: Kit) -> None:
            kit.check_forfeit()

        def test_a_seat_that_faults_leaves_alone(self, kit: Kit) -> None:
            """Games of more than two seats: the others play on without it (nothing to check with two)."""
            kit.check_leave()

        def test_hidden_information_stays_hidden(self, kit: Kit) -> None:
            kit.check_hidden_information()

        def test_codec_round_trip(self, kit: Kit) -> None:
            kit.check_codec()

        def test_function_bots_cannot_change_the_game(self, kit: Kit) -> None:
            kit.check_payload_isolation()

        def test_render(self, kit: Kit) -> None:
            kit.check_render()

        def test_pictures(self, kit: Kit) -> None:
            kit.check_pictures()

        def test_play_by_a_person(self, kit: Kit) -> None:
            kit.check_play_by_a_person()

        def test_exporters(self, kit: Kit) -> None:
            kit.check_exporters()

        def test_fuzzed_replies(self, kit: Kit) -> None:
            kit.check_fuzz()

        if bundled_bots:
            @pytest.mark.slow
            def test_bundled_bots_play(self, kit: Kit) -> None:
                """Bundled bots (two, or a table) play two real games (real processes) without a fault."""
                kit.check_bundled_bots()

    Conformance.__name__ = Conformance.__qualname__ = f"TestConformance[{label}]"
    return Conformance
