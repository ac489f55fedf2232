"""Building :class:`SearchInfo` snapshots from the workers' trees.

Runs in the controller's publishing thread while the workers keep searching
(their kernels release the GIL). Reading arrays that are being written gives
numbers a few iterations apart, never invalid memory: grown arrays are new
objects and the old ones stay alive while read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import chess
import numpy as np

from engine.rules.convert import move_to_uci
from engine.rules.san import SanCache
from engine.search.algorithm import Algorithm, ChildStats
from engine.search.info import MoveStats, SearchInfo, ThreadStats, TreeNodeInfo
from engine.search.tree import ROOT, TERMINAL, top_nodes

PV_LIMIT = 24


@dataclass
class Merged:
    stats: ChildStats
    per_thread: list[tuple[int, int, ChildStats]]  # (thread, node id, stats)


def merge_root_children(workers: Sequence[Any]) -> dict[int, Merged]:
    """Root children of every tree, summed by move (root parallelism's merge)."""
    merged: dict[int, Merged] = {}
    for worker in workers:
        for node, child in worker.root_children():
            entry = merged.get(child.move)
            if entry is None:
                merged[child.move] = Merged(child, [(worker.thread, node, child)])
                continue
            entry.per_thread.append((worker.thread, node, child))
            k = len(entry.per_thread)
            s = entry.stats
            entry.stats = ChildStats(
                move=s.move,
                visits=s.visits + child.visits,
                value_sum=s.value_sum + child.value_sum,
                value=s.value + (child.value - s.value) / k,  # running mean over trees
                eval=s.eval,
                terminal=s.terminal or child.terminal,
                outcome=s.outcome if s.terminal else child.outcome,
                bound=s.bound,
                # the same position in every tree: a proof found in one holds for all
                proof=s.proof or child.proof,
                mate=s.mate if s.proof else child.mate,
            )
    return merged


def move_stats(
    algorithm: type[Algorithm],
    params: dict[str, Any],
    child: ChildStats,
    parent_visits: int,
    total_visits: int,
    pv: list[int],
    sans: SanCache,
    prior: float | None = None,
) -> MoveStats:
    pv_uci = tuple(move_to_uci(m) for m in pv[:PV_LIMIT])
    pv_san = sans.line(pv_uci)
    return MoveStats(
        move=pv_uci[0] if pv_uci else move_to_uci(child.move),
        san=pv_san[0] if pv_san else move_to_uci(child.move),
        visits=child.visits,
        share=child.visits / total_visits if total_visits else 0.0,
        q=algorithm.q(child),
        score=algorithm.selection_score(child, parent_visits, params),
        eval=algorithm.display_eval(child),
        prior=prior,
        pv=pv_uci,
        pv_san=pv_san,
        bound=child.bound,
        proof=child.proof,
        mate=child.mate,
    )


def root_table(
    algorithm: type[Algorithm],
    params: dict[str, Any],
    workers: Sequence[Any],
    sans: SanCache,
) -> tuple[tuple[MoveStats, ...], tuple[ThreadStats, ...]]:
    """Merged root moves (best first by the final-choice rule) and each thread's own table."""
    threads = len(workers)
    at_root = algorithm.node_params(params, True)  # what selection reads among these moves
    merged = merge_root_children(workers)
    parent_visits = sum(_root_visits(w) for w in workers)
    total = sum(m.stats.visits for m in merged.values())
    rows = []
    for entry in merged.values():
        thread, node, leader = max(entry.per_thread, key=lambda t: t[2].visits)
        pv = workers[thread].principal_variation(node, PV_LIMIT)
        # The merge sums numbers into a plain ChildStats; the prior (the same position's
        # in every tree) is read from the tree the PV comes from.
        prior = algorithm.root_prior(leader)
        rows.append(
            (
                algorithm.final_rank(entry.stats, params, threads),
                move_stats(algorithm, at_root, entry.stats, parent_visits, total, pv, sans, prior),
            )
        )
    rows.sort(key=lambda r: r[0], reverse=True)
    ordered = algorithm.final_order([r[1] for r in rows], params)
    per_thread: list[ThreadStats] = []
    if threads > 1:
        for w in workers:
            kids = w.root_children()
            own_total = sum(c.visits for _, c in kids)
            own = [
                MoveStats(
                    move=move_to_uci(c.move),
                    san=sans.line([move_to_uci(c.move)])[0],
                    visits=c.visits,
                    share=c.visits / own_total if own_total else 0.0,
                    q=algorithm.q(c),
                    score=algorithm.selection_score(c, _root_visits(w), at_root),
                    eval=algorithm.display_eval(c),
                    prior=algorithm.root_prior(c),
                )
                for _, c in kids
            ]
            own.sort(key=lambda m: m.visits, reverse=True)
            per_thread.append(ThreadStats(w.thread, w.iterations, _nodes(w), tuple(own)))
    return tuple(ordered), tuple(per_thread)


def tree_nodes(
    algorithm: type[Algorithm], worker: Any, limit: int, max_depth: int, sans: SanCache
) -> tuple[TreeNodeInfo, ...]:
    """The most visited ``limit`` nodes of one thread's tree, parents before children."""
    tree = getattr(worker, "tree", None)
    if tree is None or limit <= 0:
        return ()
    ids = top_nodes(tree.arrays, limit, max_depth)
    # Whole columns at once: per-element numpy indexing would cost more than the rest.
    depth = tree.depth[ids].astype(np.int64)
    visits = tree.visits[ids]
    value = tree.value[ids].astype(np.float64)
    q = algorithm.q_array(visits, tree.value_sum[ids], value)
    # The mover into a node at odd depth is the root's side to move.
    root_white_to_move = sans.board.turn == chess.WHITE
    mover_white = (depth % 2 == 1) == root_white_to_move
    q_white = np.where(mover_white, q, 1.0 - q)
    terminal = (tree.flags[ids] & TERMINAL) != 0
    columns = zip(
        ids.tolist(),
        tree.parent[ids].tolist(),
        tree.move[ids].tolist(),
        depth.tolist(),
        visits.tolist(),
        q.tolist(),
        q_white.tolist(),
        value.tolist(),
        terminal.tolist(),
        tree.num_children[ids].tolist(),
        strict=True,
    )
    return tuple(
        TreeNodeInfo(
            id=node,
            parent=parent,
            move="" if node == ROOT else move_to_uci(move),
            san=sans.node(tree, node),
            depth=d,
            visits=n,
            q=qq,
            q_white=qw,
            value=v,
            terminal=term,
            children=kids,
        )
        for node, parent, move, d, n, qq, qw, v, term, kids in columns
    )


def _root_visits(worker: Any) -> int:
    tree = getattr(worker, "tree", None)
    return int(tree.visits[ROOT]) if tree is not None else int(worker.iterations)


def _nodes(worker: Any) -> int:
    tree = getattr(worker, "tree", None)
    return tree.used if tree is not None else int(worker.iterations)


def build_info(
    *,
    algorithm: type[Algorithm],
    game: str,
    board: chess.Board,
    params: dict[str, Any],
    seed: int,
    workers: Sequence[Any],
    sans: SanCache,
    iterations: int,
    elapsed: float,
    running: bool,
    stop_reason: str | None,
    tree_size: int,
    tree_depth: int,
    tree_thread: int = 0,
) -> SearchInfo:
    moves, thread_stats = root_table(algorithm, params, workers, sans)
    best = moves[0] if moves else None
    trees = [w.tree for w in workers if getattr(w, "tree", None) is not None]
    if trees:
        nodes = sum(t.used for t in trees)
        memory = sum(w.memory_bytes for w in workers)
        max_depth = max(t.max_depth for t in trees)
        mean_depth = sum(t.mean_depth * t.used for t in trees) / max(1, nodes)
        depth = max_depth
    else:
        ab = workers[0]
        nodes = int(ab.iterations)
        memory = int(ab.memory_bytes)
        max_depth = int(ab.seldepth)
        mean_depth = float(ab.completed_depth)
        depth = int(ab.completed_depth)
    histogram: tuple[int, ...] = ()
    branching = 0.0
    if trees:
        counts = np.zeros(max_depth + 1, dtype=np.int64)
        expanded = children = 0
        for t in trees:
            used = t.used
            counts += np.bincount(t.depth[:used], minlength=max_depth + 1)[: max_depth + 1]
            kids = t.num_children[:used]
            expanded += int(np.count_nonzero(kids))
            children += int(kids.sum(dtype=np.int64))
        histogram = tuple(int(c) for c in counts)
        branching = children / expanded if expanded else 0.0
    extra: dict[str, Any] = {}
    if not algorithm.mcts:
        extra["seldepth"] = max_depth
    if trees:  # tree reuse: root visits the kept subtree brought in, not made by this search
        extra["reused_visits"] = sum(
            max(0, int(t.visits[ROOT]) - int(w.iterations))
            for w, t in ((w, w.tree) for w in workers)
            if t is not None
        )
    return SearchInfo(
        algorithm=algorithm.name,
        game=game,
        fen=board.fen(),
        turn="white" if board.turn == chess.WHITE else "black",
        params=dict(params),
        threads=len(workers),
        seed=seed,
        iterations=iterations,
        nodes=nodes,
        elapsed_ms=elapsed * 1000.0,
        nps=iterations / elapsed if elapsed > 0 else 0.0,
        max_depth=max_depth,
        mean_depth=mean_depth,
        memory_bytes=memory,
        bytes_per_node=memory / max(1, nodes),
        moves=moves,
        bestmove=best.move if best else None,
        pv=best.pv if best else (),
        pv_san=best.pv_san if best else (),
        thread_stats=thread_stats,
        tree=tree_nodes(
            algorithm,
            workers[min(max(0, tree_thread), len(workers) - 1)],
            tree_size,
            tree_depth,
            sans,
        ),
        running=running,
        stop_reason=stop_reason,
        depth=depth,
        depth_histogram=histogram,
        branching_factor=branching,
        extra=extra,
    )
