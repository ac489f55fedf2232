"""Self-play data: a pure function of the seed, labelled with each game's real result."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from engine.tune.selfplay import SelfPlayConfig, play_games, read_positions, write_games


def run(tmp_path: Path, name: str, config: SelfPlayConfig, jobs: int = 1) -> bytes:
    path = tmp_path / name
    write_games(path, config, play_games(config, jobs), "test")
    return path.read_bytes()


@pytest.mark.parametrize("game", ["chess", "knight"])
def test_the_same_seed_writes_the_same_bytes(tmp_path: Path, game: str) -> None:
    config = SelfPlayConfig(game=game, games=2, seed=11, nodes=150)
    first = run(tmp_path, "a.tsv.gz", config)
    assert run(tmp_path, "b.tsv.gz", config) == first
    assert run(tmp_path, "c.tsv.gz", config, jobs=2) == first
    other = SelfPlayConfig(game=game, games=2, seed=12, nodes=150)
    assert run(tmp_path, "d.tsv.gz", other) != first


def test_rows_are_legal_positions_labelled_with_their_games_result(tmp_path: Path) -> None:
    config = SelfPlayConfig(game="chess", games=2, seed=5, nodes=150)
    path = tmp_path / "games.tsv.gz"
    games, rows = write_games(path, config, play_games(config), "test")
    fens, results, flags, plies = read_positions(path)
    assert games == 2 and rows == len(fens) > 0
    assert set(results) <= {0.0, 0.5, 1.0}
    assert (plies == 0).sum() == 2  # each game starts at ply 0
    for fen, flag in zip(fens, flags, strict=True):
        board = chess.Board(fen)
        assert board.is_valid()
        assert ("c" in flag) == board.is_check()


def test_bad_configuration_is_refused() -> None:
    with pytest.raises(ValueError, match="games"):
        SelfPlayConfig(games=0)
    with pytest.raises(ValueError, match="nodes"):
        SelfPlayConfig(nodes=0)
