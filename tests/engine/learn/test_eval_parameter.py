"""``eval = hand | learned | scaled``: one parameter on every algorithm, carried by the root
state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.core.state import EVAL, HAND_EVAL, LEARNED_EVAL, SCALED_EVAL
from engine.errors import InvalidParameterError
from engine.eval import learned_weights
from engine.eval.evaluate import EVAL_SLOTS, with_eval
from engine.eval.learned_weights import save_weights
from engine.learn.ntuple import Model, tuple_squares
from engine.match.spec import parse_spec
from engine.search.controller import SearchController
from engine.search.params import EVAL_PARAM
from engine.search.registry import ALGORITHMS, describe_algorithms, validate_params
from engine.uci.options import OptionSet


@pytest.fixture
def no_learned_weights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The learned weights file points nowhere (the loader's cache is reset around it)."""
    missing = tmp_path / "missing.npz"
    monkeypatch.setenv(learned_weights.ENV_VAR, str(missing))
    monkeypatch.setattr(learned_weights, "DATA_DIR", tmp_path)  # no shipped file either
    learned_weights.shipped.cache_clear()
    yield missing
    learned_weights.shipped.cache_clear()


#: Where a measurement chose the learned evaluation as the default (docs/learning.md).
LEARNED_DEFAULT = {("uct-minimax", "knight")}


@pytest.mark.parametrize("game", ["chess", "knight"])
def test_every_algorithm_takes_eval_defaulting_to_hand_unless_measured(game: str) -> None:
    for entry in describe_algorithms(game):
        spec = [p for p in entry["params"] if p["name"] == "eval"]
        assert len(spec) == 1, entry["name"]
        default = "learned" if (entry["name"], game) in LEARNED_DEFAULT else "hand"
        assert spec[0]["default"] == default, entry["name"]
        assert spec[0]["choices"] == ["hand", "learned", "scaled", "nnue"]
        assert validate_params(entry["name"], {}, game)["eval"] == default


def test_eval_is_declared_once_and_shared_but_where_a_default_differs() -> None:
    specs = {
        id(next(s for s in a.params if s.name == "eval"))
        for a in ALGORITHMS.values()
        if all((a.name, game) not in LEARNED_DEFAULT for game in ("chess", "knight"))
    }
    assert len(specs) == 1
    own = next(s for s in ALGORITHMS["uct-minimax"].params if s.name == "eval")
    assert own.description == EVAL_PARAM.description and own.choices == EVAL_PARAM.choices


def test_a_learned_default_falls_back_to_hand_without_weights(no_learned_weights: Path) -> None:
    # Asked for by name, learned is refused; as a default, the hand evaluation serves.
    assert validate_params("uct-minimax", {}, "knight")["eval"] == "hand"
    with pytest.raises(InvalidParameterError, match="cannot be learned"):
        validate_params("uct-minimax", {"eval": "learned"}, "knight")


def test_an_unknown_evaluation_is_refused_by_name() -> None:
    with pytest.raises(
        InvalidParameterError, match="'eval' must be one of hand, learned, scaled, nnue"
    ):
        validate_params("alphabeta", {"eval": "neural"}, "knight")


@pytest.mark.parametrize("game", ["chess", "knight"])
def test_learned_without_a_weights_file_is_refused_naming_the_file(
    no_learned_weights: Path, game: str
) -> None:
    with pytest.raises(InvalidParameterError, match=r"missing\.npz is missing"):
        validate_params("alphabeta", {"eval": "learned"}, game)
    with pytest.raises(InvalidParameterError, match="cannot be learned"):
        parse_spec("mcts:eval=learned", game)


def test_another_games_weights_leave_this_game_on_its_shipped_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    knight = tmp_path / "knight.npz"
    model = Model(tuple_squares("pst"))
    save_weights(knight, model.unpack(model.start(), "", {}))
    monkeypatch.setenv(learned_weights.ENV_VAR, str(knight))
    learned_weights.shipped.cache_clear()
    try:
        assert learned_weights.shipped("knight")[0] is not None
        weights, why = learned_weights.shipped("chess")
        shipped = learned_weights.shipped_path("chess")
        assert (weights is None) == (not shipped.exists())
        assert weights is not None or str(shipped) in why
    finally:
        learned_weights.shipped.cache_clear()


def test_hand_stays_available_without_learned_weights(no_learned_weights: Path) -> None:
    assert validate_params("alphabeta", {"eval": "hand"}, "knight")["eval"] == "hand"


def test_the_choice_is_written_into_the_state() -> None:
    controller = SearchController("knight", algorithm="alphabeta", params={"eval": "hand"})
    assert controller.root[EVAL] == HAND_EVAL
    s = controller.root.copy()
    assert with_eval(s, {"eval": "learned"})[EVAL] == LEARNED_EVAL
    assert with_eval(s, {"eval": "scaled"})[EVAL] == SCALED_EVAL
    assert with_eval(s, {})[EVAL] == HAND_EVAL
    assert set(EVAL_SLOTS) == set(EVAL_PARAM.choices)  # every choice has its slot
    chess = SearchController("chess", algorithm="mcts", params={"eval": "scaled"})
    assert chess.root[EVAL] == SCALED_EVAL


def test_uci_offers_eval_for_every_algorithm() -> None:
    options = OptionSet.build()
    for name in ALGORITHMS:
        option = options.get(f"{name}.eval")
        assert option.type == "combo"
        if (name, "knight") in LEARNED_DEFAULT:  # a default per game: "auto" picks it
            assert option.default == "auto"
            assert option.choices == ("auto", "hand", "learned", "scaled", "nnue")
        else:
            assert option.default == "hand"
            assert option.choices == ("hand", "learned", "scaled", "nnue")


def test_a_match_spec_passes_eval_to_the_engine_as_its_uci_option() -> None:
    spec = parse_spec("alphabeta:eval=hand", "knight")
    assert ("alphabeta.eval", "hand") in spec.options
