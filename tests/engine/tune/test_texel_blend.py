"""The blended Texel target and the fit from a weights file: the search's score enters
from White's side on the result's scale, ``--blend`` mixes it in, ``--start`` is where
the fit starts and what it is pulled towards."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from engine.eval.weights import EvalWeights, hand_weights, load_weights, save_weights
from engine.tune.fitting import quiet_rows, quiet_targets
from engine.tune.selfplay import SelfPlayConfig, play_games, read_search_scores, write_games
from engine.tune.texel import main as texel_main

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
ROWS = (  # fen, White's result, ply, flags, static_cp, search (for the side to move)
    (f"{START} w KQkq - 0 1", 1.0, 0, "", 10.0, 0.5),
    (f"{START} b KQkq - 0 1", 1.0, 1, "", -10.0, 0.5),
    (f"{START} w KQkq - 0 1", 0.0, 0, "", 0.0, 9990.0),  # a mate score clips to a win
    (f"{START} b KQkq - 0 1", 0.0, 1, "x", 0.0, -0.2),  # a capture: not quiet
)


def write_rows(path: Path) -> Path:
    lines = ["# test\n", "# fen\tresult\tply\tflags\tstatic_cp\tsearch\n"]
    lines += ["\t".join(str(v) for v in row) + "\n" for row in ROWS]
    with gzip.open(path, "wt") as out:
        out.writelines(lines)
    return path


def test_search_scores_are_whites_expected_score(tmp_path: Path) -> None:
    scores = read_search_scores(write_rows(tmp_path / "g.tsv.gz"))
    # White to move scored +0.5: 0.75 for White; Black to move scored +0.5: 0.25 for White
    assert scores.tolist() == pytest.approx([0.75, 0.25, 1.0, 0.6])


def test_blend_mixes_result_and_search_on_the_quiet_rows(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "g.tsv.gz")
    fens, results, games = quiet_rows(path)
    assert len(fens) == 3 and results.tolist() == [1.0, 1.0, 0.0]
    assert games.tolist() == [0, 0, 1]
    assert quiet_targets(path, 0.0).tolist() == results.tolist()
    assert quiet_targets(path, 1.0).tolist() == pytest.approx([0.75, 0.25, 1.0])
    assert quiet_targets(path, 0.5).tolist() == pytest.approx([0.875, 0.625, 0.5])
    with pytest.raises(ValueError, match="blend"):
        quiet_targets(path, 1.5)


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("selfplay") / "games.tsv.gz"
    config = SelfPlayConfig(game="chess", games=12, seed=3, nodes=150)
    write_games(path, config, play_games(config), "test")
    return path


def test_a_fit_from_a_start_file_is_pulled_towards_it(games: Path, tmp_path: Path) -> None:
    """With an overwhelming prior the fit stays where ``--start`` put it, not at the
    hand-set weights; the file's source says how it was made."""
    hand = hand_weights()
    start_mg = hand.chess_mg.copy()
    start_mg[1] += 80.0  # a knight worth 80 cp more than the hand-set weights say
    start = tmp_path / "start.npz"
    save_weights(start, EvalWeights(start_mg, hand.chess_eg, hand.knight_mg, hand.knight_eg))
    out = tmp_path / "w.npz"
    argv = ["--chess", str(games), "--start", str(start), "--blend", "0.5", "--prior", "1e6"]
    assert texel_main([*argv, "--out", str(out)]) == 0
    fitted = load_weights(out)
    assert fitted.chess_mg == pytest.approx(start_mg, abs=0.5)
    assert "--start start.npz --blend 0.5" in fitted.source
    assert "target 0.5 result + 0.5 search" in fitted.source
    assert "knight: as in start.npz" in fitted.source
    free = tmp_path / "free.npz"
    assert texel_main(["--chess", str(games), "--blend", "0.5", "--out", str(free)]) == 0
    assert not np.allclose(load_weights(free).chess_mg, fitted.chess_mg)


@pytest.mark.parametrize(
    ("extra", "message"),
    [(["--blend", "1.5"], "--blend must be in [0, 1]"), (["--start", "missing.npz"], "--start")],
)
def test_bad_blend_or_start_is_refused_and_nothing_written(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    out = tmp_path / "w.npz"
    with pytest.raises(SystemExit) as exit_info:
        texel_main(["--chess", str(games), *extra, "--out", str(out)])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()
