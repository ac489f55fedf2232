"""The NNUE's training positions: records that give back their boards, shards refused by
name when damaged, and generation that is seed-reproducible, resumable and deduplicated."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.core.state import BLACK_BB, KING, STATE_SIZE, TURN, WHITE_BB
from engine.learn.nnue_data import (
    HEADER,
    RECORD,
    DataConfig,
    DataError,
    generate,
    load,
    pack_record,
    read_shard,
    shard_path,
    unique,
    unpack_boards,
    write_shard,
)
from engine.learn.players import GameRecord
from engine.learn.train import Pool
from engine.rules.convert import state_from_fen

FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/1P3ppp/8/3pP3/8/8/p4PPP/R3K2R b KQkq - 0 20",
    "8/8/4k3/8/8/3K4/6Q1/8 w - - 5 60",
]


def board_of(s: np.ndarray) -> np.ndarray:
    out = np.full(64, -1)
    for sq in range(64):
        bit = np.uint64(1) << np.uint64(sq)
        for piece in range(KING + 1):
            if s[piece] & bit:
                out[sq] = (0 if s[WHITE_BB] & bit else 6) + piece
    assert all(s[WHITE_BB] & s[BLACK_BB] == 0 for _ in [0])
    return out


def test_a_record_gives_back_its_board_side_score_and_result() -> None:
    states = np.array([state_from_fen(f, "chess") for f in FENS])
    record = GameRecord(states, np.array([0.25, -1.0, 0.999]), white=0.0, plies=3)
    rows = pack_record(record, game=7)
    boards = np.zeros((len(rows), 64), dtype=np.int64)
    unpack_boards(rows["occ"].copy(), rows["pieces"].copy(), boards)
    for i, s in enumerate(states):
        assert np.array_equal(boards[i], board_of(s))
    assert rows["stm"].tolist() == [int(s[TURN]) for s in states]
    assert rows["score"].tolist() == [8000, -32000, 31968]
    # Black won: -1 for White to move, +1 for Black to move
    assert rows["result"].tolist() == [-1, 1, -1]
    assert rows["game"].tolist() == [7, 7, 7]
    assert RECORD.itemsize == 32


def test_the_same_position_is_kept_once() -> None:
    s = state_from_fen(FENS[0], "chess")
    record = GameRecord(np.array([s, s, s]), np.array([0.1, 0.2, 0.3]), 0.5, 3)
    rows = pack_record(record, 0)
    assert len(unique(rows)) == 1
    assert unique(rows)["score"][0] == rows["score"][0]  # the first is kept


def test_a_damaged_shard_is_refused_by_name(tmp_path: Path) -> None:
    s = state_from_fen(FENS[0], "chess")
    rows = pack_record(GameRecord(np.array([s]), np.array([0.0]), 0.5, 1), 0)
    path = tmp_path / "positions-00000.bin"
    write_shard(path, rows)
    assert read_shard(path).tobytes() == rows.tobytes()
    path.write_bytes(path.read_bytes()[:-5])
    with pytest.raises(DataError, match=r"positions-00000\.bin is truncated or corrupt"):
        read_shard(path)
    path.write_bytes(b"PK\x03\x04" + bytes(40))
    with pytest.raises(DataError, match=r"not a Canopy positions file"):
        read_shard(path)
    header = np.zeros(1, dtype=HEADER)
    header["magic"], header["version"], header["count"] = b"CNPYPOS1", 99, 0
    path.write_bytes(header.tobytes())
    with pytest.raises(DataError, match=r"format version 99"):
        read_shard(path)


def test_generation_is_reproducible_and_resumes_with_the_shard_it_lacks(tmp_path: Path) -> None:
    config = DataConfig(nodes=60, games_per_shard=2, random_plies=4, max_plies=40)
    pool = Pool(2)
    try:
        first = generate(tmp_path / "a", config, 2, pool, command="first")
        shard_path(tmp_path / "a", 1).unlink()
        manifest = (tmp_path / "a" / "data.json").read_text().replace('"1": {', '"9": {')
        (tmp_path / "a" / "data.json").write_text(manifest)  # as if shard 1 never finished
        again = generate(tmp_path / "a", config, 2, pool, command="second")
        other = generate(tmp_path / "b", config, 2, pool)
    finally:
        pool.close()
    assert first["shards"]["0"]["positions"] > 20
    assert again["commands"] == ["first", "second"]
    for index in (0, 1):
        a = shard_path(tmp_path / "a", index).read_bytes()
        assert a == shard_path(tmp_path / "b", index).read_bytes()
    assert len(load([tmp_path / "b"])) == len(unique(np.concatenate(
        [read_shard(shard_path(tmp_path / "b", i)) for i in (0, 1)])))  # fmt: skip
    assert other["settings"]["nodes"] == 60
    with pytest.raises(DataError, match=r"other settings \(nodes\)"):
        generate(tmp_path / "a", replace(config, nodes=61), 1, pool)


def test_leaves_in_check_are_left_out_and_quiet_positions_played_kept() -> None:
    from engine.learn.nnue_data import positions_of

    checked = state_from_fen("4k3/8/8/8/8/8/8/4K2r w - - 0 1", "chess")
    calm = state_from_fen(FENS[0], "chess")
    played = state_from_fen(FENS[2], "chess")
    record = GameRecord(np.array([checked, calm]), np.array([0.0, 0.1]), 0.5, 2,
                        np.array([played]), np.array([0.7]))  # fmt: skip
    both = positions_of(record)
    assert both.states.shape == (2, STATE_SIZE)  # the leaf in check is not among them
    assert both.scores.tolist() == [0.7, 0.1]
    assert np.array_equal(both.states[0], played)


def test_a_game_records_the_quiet_positions_it_passed_through() -> None:
    from engine.core.games import in_check
    from engine.learn.players import Player, Searcher, Side, play_game

    player = Player(None, Searcher(None, 200))
    try:
        start = state_from_fen(FENS[0], "chess")
        record = play_game(start, Side(player, 0), Side(player, 0), max_plies=30)
    finally:
        player.close()
    assert 5 <= len(record.roots) <= 30 and len(record.root_scores) == len(record.roots)
    assert np.array_equal(record.roots[0], start)  # 1st move of a game: never a capture
    assert not any(in_check(s) for s in record.roots)


def test_a_local_dask_cluster_writes_the_same_shards_as_the_local_pool(tmp_path: Path) -> None:
    import os

    if not os.environ.get("CI"):
        pytest.importorskip("distributed", reason="the optional extra canopy[cluster]")
    from engine.learn.cluster import ClusterPool

    config = DataConfig(nodes=60, games_per_shard=3, random_plies=4, max_plies=30, seed=5)
    pool = Pool(1)
    try:
        generate(tmp_path / "pool", config, 1, pool)
    finally:
        pool.close()
    cluster = ClusterPool.connect("local", 2, 30.0)
    try:
        generate(tmp_path / "dask", config, 1, cluster)
    finally:
        cluster.close()
    pooled = shard_path(tmp_path / "pool", 0).read_bytes()
    assert len(pooled) > 1000
    assert shard_path(tmp_path / "dask", 0).read_bytes() == pooled
