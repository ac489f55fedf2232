"""An arena's rules are checked on construction and every bot is checked against them,
each refusal with its code and a message naming the field."""

from __future__ import annotations

import pytest

from engine.arena.rules import ArenaError, ArenaRules, Bot
from engine.search.registry import ALGORITHMS


def test_defaults_allow_every_algorithm_and_parameter_and_the_games_ply_limit() -> None:
    rules = ArenaRules("chess", iterations=100)
    assert rules.algorithms == tuple(ALGORITHMS)
    assert rules.free["uct"] == tuple(spec.name for spec in ALGORITHMS["uct"].params)
    assert rules.max_plies == 300 and rules.format == "round-robin" and rules.rounds == 1
    assert ArenaRules("knightchess", movetime_ms=50).max_plies == 200
    assert ArenaRules("knightchess", movetime_ms=50).game == "knight"


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"game": "go", "iterations": 10}, "game"),
        ({"game": "chess"}, "exactly one of movetime_ms and iterations"),
        ({"game": "chess", "iterations": 10, "movetime_ms": 10}, "exactly one"),
        ({"game": "chess", "iterations": 0}, "iterations must be a whole number from 1"),
        ({"game": "chess", "movetime_ms": 5}, "movetime_ms must be a whole number from 10"),
        ({"game": "chess", "iterations": 10, "format": "knockout"}, "format must be one of"),
        ({"game": "chess", "iterations": 10, "rounds": 0}, "rounds"),
        ({"game": "chess", "iterations": 10, "max_plies": 100_000}, "max_plies"),
        ({"game": "chess", "iterations": 10, "algorithms": ("uct", "nope")}, "'nope'"),
        ({"game": "chess", "iterations": 10, "free": {"uct": ["k"]}}, r"free\.uct.*'k'"),
        (
            {"game": "chess", "iterations": 10, "algorithms": ("uct",), "free": {"bfms": []}},
            "'bfms', which is not allowed",
        ),
    ],
)
def test_bad_rules_are_refused_naming_the_field(kwargs: dict, words: str) -> None:
    with pytest.raises(ArenaError, match=words) as info:
        ArenaRules(**kwargs)
    assert info.value.code == "bad_request"


RULES = ArenaRules("chess", iterations=100, algorithms=("uct", "bfms"), free={"uct": ("c",)})


def test_a_bot_gets_its_clean_name_and_every_parameter_with_its_default() -> None:
    name, algorithm, params = RULES.validate_bot("  Ada  ", "uct", {"c": 0.7})
    assert (name, algorithm) == ("Ada", "uct")
    assert params == {**ALGORITHMS["uct"].validate(None, "chess"), "c": 0.7}
    assert RULES.validate_bot("Bob", "bfms", None)[2] == ALGORITHMS["bfms"].validate({}, "chess")


@pytest.mark.parametrize(
    ("name", "algorithm", "params", "code", "words"),
    [
        ("", "uct", None, "bad_name", "name must be 1 to 40"),
        ("   ", "uct", None, "bad_name", "name"),
        ("x" * 41, "uct", None, "bad_name", "name"),
        ("tab\there", "uct", None, "bad_name", "printable"),
        ("Ada", "mcts", None, "algorithm_not_allowed", "'mcts' is not allowed"),
        ("Ada", "uct", {"c": -1}, "bad_params", "'c'"),
        ("Ada", "uct", {"c": "big"}, "bad_params", "'c'"),
        ("Ada", "uct", {"zz": 1}, "bad_params", "'zz'"),
        ("Ada", "uct", ["c"], "bad_params", "params"),
        ("Ada", "uct", {"policy": "uniform"}, "param_locked", "'policy' of uct is fixed"),
    ],
)
def test_a_bad_bot_is_refused_with_its_code(
    name: str, algorithm: str, params: object, code: str, words: str
) -> None:
    with pytest.raises(ArenaError, match=words) as info:
        RULES.validate_bot(name, algorithm, params)  # type: ignore[arg-type]
    assert info.value.code == code


def test_a_label_names_only_the_parameters_that_differ_from_the_defaults() -> None:
    params = ALGORITHMS["uct"].validate({"c": 0.7, "policy": "capture_first"}, "chess")
    bot = Bot("b1", "Ada", "uct", params)
    assert bot.label() == "Ada (uct c=0.7 policy=capture_first)"
    assert bot.engine() == "uct c=0.7 policy=capture_first"
    plain = Bot("b2", "Bob", "uct", ALGORITHMS["uct"].validate(None, "knight"))
    assert plain.label("knight") == "Bob (uct)"
