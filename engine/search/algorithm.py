"""What every search algorithm provides, and the per-thread worker that runs MCTS kernels.

An :class:`Algorithm` is a registered, stateless description of a search: its
parameters, what it can do (capabilities), how to run its kernel, how to read
its tree's numbers (Q, the selection score, eval, proofs) and its final choice.
How a search reads to people (the step view's words and tables, the node
card) is its explainer's, in ``engine.explain``, which reads this class and is
never read by it. No caller compares an algorithm's name (a test greps for
that), so a new algorithm plugs in by filling in the hooks below. A
:class:`Worker` owns one tree (one per root-parallel thread), its RNG and
scratch arrays, and calls the algorithm's numba batch kernel.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

import numpy as np

from engine.core.bits import new_rng
from engine.core.games import make_move
from engine.core.state import MAX_MOVES
from engine.eval.evaluate import is_mate_score, mate_plies
from engine.search.codes import DONE, FULL, INFO_SIZE, MAX_PATH, RECYCLED
from engine.search.params import EVAL_PARAM, ParamSpec, validate
from engine.search.parts.path import HIST_MAX
from engine.search.parts.pv import PV_VISITS, pv_score, pv_walk
from engine.search.scratch import Scratch
from engine.search.tree import (
    NONE,
    ROOT,
    TERMINAL,
    Tree,
    fold,
    fold_cut,
    reroot,
)

if TYPE_CHECKING:
    from engine.search.info import MoveStats

#: ``ChildStats.proof`` / ``MoveStats.proof``: the game-theoretic value once it is known,
#: for the side to move at the parent (at the root: the side to move).
NOT_PROVEN, PROVEN_WIN, PROVEN_LOSS, PROVEN_DRAW = 0, 1, -1, 2


@dataclass(frozen=True)
class ChildStats:
    """A tree node's raw numbers from one tree (a root move's: or summed over the threads'
    trees), as its parent's side reads them."""

    move: int
    visits: int
    value_sum: float  # sum of rewards for the side to move at the root
    value: float  # bfms negamax value / latest value, same point of view
    eval: float  # static eval for the side to move at the root
    terminal: bool
    outcome: int  # for terminal children: +1 / 0 / -1 for the side to move at the root
    bound: str = "exact"  # alphabeta: "upper" when the score is only an upper bound
    # Proven value for the side to move at the parent: PROVEN_WIN / PROVEN_LOSS /
    # PROVEN_DRAW, NOT_PROVEN (0) while only estimated. ``mate``: plies to the end of a
    # proven win or loss when the algorithm knows them (a WIN − 10·ply score), else None.
    proof: int = NOT_PROVEN
    mate: int | None = None
    # What a PUCT score needs beyond them (mcts): the prior (None: the algorithm keeps
    # none, or a root move merged over several threads' trees has no single one), the
    # value an unevaluated child is taken at (its parent's first-play urgency, fixed once
    # the parent is evaluated), and whether it was evaluated without a visit (a game over
    # at once).
    prior: float | None = None
    urgency: float = 0.5
    evaluated_unvisited: bool = False

    @property
    def evaluated(self) -> bool:
        """Scored at least once: visited, or evaluated without a visit."""
        return self.visits > 0 or self.evaluated_unvisited


@dataclass(frozen=True)
class SelectionTerms:
    """A child's selection formula as its parent ranks it, for the side to move at the
    parent: ``score = exploit + explore``.

    ``exploit`` is None when the child has no value to exploit yet (UCB1's unvisited
    child), ``explore`` None when its bonus is not a number (the same child, whose
    ``score`` is +inf: unvisited children are tried first).
    """

    exploit: float | None
    explore: float | None
    score: float


def proof_from_value(child: ChildStats) -> tuple[int, int | None]:
    """``(proof, mate)`` of a child from its terminal flag and a ``WIN − 10·ply`` value.

    A terminal child is proven by the rules; a mate-score value (``|value| > WIN / 2``)
    is a proof wherever an algorithm backs values up by negamax over *every* child
    (bfms): a node can only reach a winning mate score when all its children are
    mated, since a static evaluation never leaves [-1, 1].
    """
    if is_mate_score(child.value):
        return (PROVEN_WIN if child.value > 0 else PROVEN_LOSS), mate_plies(child.value)
    if child.terminal:
        return {1: PROVEN_WIN, -1: PROVEN_LOSS}.get(child.outcome, PROVEN_DRAW), None
    return NOT_PROVEN, None


class Algorithm:
    """A registered search algorithm (stateless).

    Hooks, all class-level (every value is for the side to move at the node's parent,
    the side that chooses the move into the node, unless it says otherwise):

    * what it is: ``name``, ``title``, ``summary``, ``description`` (the menus' words
      about the algorithm itself) and ``params``, with :meth:`validate` and
      :meth:`describe`;
    * capabilities (:meth:`capabilities`; the front end branches on them): ``mcts``
      (root parallelism applies, the search counts iterations), ``tree`` (it keeps an
      array tree: node card, tree view, export, step walk; False for ``alphabeta``, which
      keeps root moves only), ``keeps_proofs`` (it proves values beyond terminal nodes:
      ``ChildStats.proof`` may be set on inner nodes; terminal children are reported as
      proven by all), ``stepping`` (what one step is, ``"iteration"`` or ``"depth"`` of
      deepening), ``value_kind`` (``"q"``: an average of rewards in [0, 1], UCI reads
      ``MoveStats.q``; ``"eval"``: a backed-up evaluation in [-1, 1] or a mate score,
      UCI reads ``MoveStats.eval``), and for the controller ``plays_on_full``,
      ``free_per_iteration`` and the PV rule (``pv_rule``, ``pv_needs_visits``);
    * running: :meth:`kernel_params`, :meth:`node_params`, :meth:`make_worker`,
      :meth:`run_kernel`;
    * reading the tree: :meth:`q` / :meth:`q_array` (a value read as an expected
      score), :meth:`display_eval`, :meth:`root_prior`, :meth:`selection_terms` (backed
      by the numba selection function itself) with :meth:`selectable` and
      :meth:`selection_score`, :meth:`child_proof`, :meth:`pv_key`;
    * the final choice: :meth:`final_rank` / :meth:`final_key` / :meth:`final_order`;
    * UCI: :meth:`decides_by_visits`, :meth:`uci_depth`, :meth:`uci_nodes`.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    #: What the algorithm is for, in one line (the algorithm menus show it).
    summary: ClassVar[str]
    description: ClassVar[str]
    mcts: ClassVar[bool] = True
    params: ClassVar[tuple[ParamSpec, ...]] = ()
    #: It calls the static evaluation, so it takes ``eval = hand | learned``
    #: (:data:`~engine.search.params.EVAL_PARAM`, added to ``params`` by the class itself).
    evaluates: ClassVar[bool] = True
    free_per_iteration: ClassVar[int] = 1  # tree nodes one iteration may add
    #: Once its tree has reached a node budget too small to fold (Worker.recycle) it
    #: searches on without adding nodes (``mcts`` re-scores leaves deeper) instead of
    #: stopping with FULL.
    plays_on_full: ClassVar[bool] = False
    pv_needs_visits: ClassVar[bool] = True  # PV follows visited children only
    pv_rule: ClassVar[int] = PV_VISITS  # which child it follows (engine.search.parts.pv)

    tree: ClassVar[bool] = True
    keeps_proofs: ClassVar[bool] = False
    stepping: ClassVar[Literal["iteration", "depth"]] = "iteration"
    value_kind: ClassVar[Literal["q", "eval"]] = "q"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Give every evaluating algorithm the shared ``eval`` parameter, last, once."""
        super().__init_subclass__(**kwargs)
        if cls.evaluates and all(spec.name != EVAL_PARAM.name for spec in cls.params):
            cls.params = (*cls.params, EVAL_PARAM)

    # ------------------------------------------------------------ description
    @classmethod
    def validate(cls, params: dict[str, Any] | None, game: str) -> dict[str, Any]:
        return validate(cls.params, params, game, cls.name)

    @classmethod
    def describe(cls, game: str) -> dict[str, Any]:
        return {
            "name": cls.name,
            "title": cls.title,
            "summary": cls.summary,
            "description": cls.description,
            "mcts": cls.mcts,
            "params": [spec.describe(game) for spec in cls.params],
            "capabilities": cls.capabilities(),
        }

    @classmethod
    def capabilities(cls) -> dict[str, Any]:
        """What the front end branches on instead of the algorithm's name (its explainer
        adds the names of the parts its views show)."""
        return {
            "mcts": cls.mcts,
            "tree": cls.tree,
            "threads": cls.mcts,
            "proofs": cls.keeps_proofs,
            "stepping": cls.stepping,
            "value_kind": cls.value_kind,
        }

    # ------------------------------------------------------------ reading the tree
    @staticmethod
    def q(child: ChildStats) -> float:
        """Expected score in [0, 1] for the side to move at the parent."""
        return child.value_sum / child.visits if child.visits else 0.5

    @staticmethod
    def q_array(visits: np.ndarray, value_sum: np.ndarray, value: np.ndarray) -> np.ndarray:
        """:meth:`q` for many nodes at once (the tree view asks for hundreds)."""
        return np.where(visits > 0, value_sum / np.maximum(visits, 1), 0.5)

    @staticmethod
    def display_eval(child: ChildStats) -> float:
        return child.eval

    @staticmethod
    def root_prior(child: ChildStats) -> float | None:
        """The prior a root move's selection multiplies its exploration by, for the root
        table (None: the algorithm has no priors, and the table shows no such column)."""
        return None

    @classmethod
    def selection_terms(
        cls, child: ChildStats, parent_visits: int, params: dict[str, Any]
    ) -> SelectionTerms:
        """The child's formula as its parent (with ``parent_visits``) ranks it now."""
        raise NotImplementedError

    @classmethod
    def selectable(cls, child: ChildStats, params: dict[str, Any]) -> bool:
        """Whether selection may enter the child at all, whatever its formula says (the
        step trace leaves the others out of the winner, as the kernel does)."""
        return True

    @classmethod
    def selection_score(
        cls, child: ChildStats, parent_visits: int, params: dict[str, Any]
    ) -> float:
        """What the selection rule ranks the child by (``MoveStats.score``)."""
        return cls.selection_terms(child, parent_visits, params).score

    @classmethod
    def child_proof(cls, child: ChildStats) -> tuple[int, int | None]:
        """``(proof, mate)`` of a child: by default a terminal child is proven by the
        rules (a win that ends the game here is mate in 1 ply)."""
        if not child.terminal:
            return NOT_PROVEN, None
        if child.outcome > 0:
            return PROVEN_WIN, 1
        return (PROVEN_LOSS, None) if child.outcome < 0 else (PROVEN_DRAW, None)

    @classmethod
    def final_key(cls, child: ChildStats, params: dict[str, Any], threads: int) -> float:
        """Bigger is better: the move played is the root child maximising this."""
        return float(child.visits)

    @classmethod
    def final_rank(
        cls, child: ChildStats, params: dict[str, Any], threads: int
    ) -> tuple[int, float, float, float]:
        """Sort key of the final choice: a move that wins on the spot comes first, then
        the algorithm's own rule (averaging rewards cannot tell a mate from a won ending),
        then Q and the evaluation break its ties. Ties are common when a search is short
        of iterations — ``uct-minimax`` in knight chess gets one visit per root move in
        100 ms, each rewarded 0 when every line loses material — and move-generation
        order is no reason to pick a move."""
        decisive = 1 if child.terminal and child.outcome > 0 else 0
        q = cls.q(child) if child.visits else -1.0
        return decisive, cls.final_key(child, params, threads), q, cls.display_eval(child)

    @classmethod
    def final_order(cls, moves: list[MoveStats], params: dict[str, Any]) -> list[MoveStats]:
        """The root table, sorted by :meth:`final_rank`, as it is played and shown: the
        first move is the one played. A rule that needs the whole table (not one child
        at a time) reorders it here; by default it stands."""
        return moves

    @classmethod
    def pv_key(cls, tree: Tree, node: int) -> float:
        """Which child the principal variation follows: the one maximising this
        (the rule :data:`pv_rule` names, scored by the numba walk's own function)."""
        return float(pv_score(tree.arrays, node, cls.pv_rule))

    # ------------------------------------------------------------ UCI
    @classmethod
    def decides_by_visits(cls, params: dict[str, Any]) -> bool:
        """The move played is the most visited, so a search may end early once the
        leader cannot be caught in the time left (UCI's "decided" rule)."""
        return False

    # ------------------------------------------------------------ running
    @classmethod
    def make_worker(
        cls, root: np.ndarray, params: dict[str, Any], seed: int, thread: int, node_budget: int
    ) -> SearchWorker:
        raise NotImplementedError

    @classmethod
    def run_kernel(
        cls, worker: Worker, max_iters: int, stop: np.ndarray, trace: bool
    ) -> tuple[int, int]:
        raise NotImplementedError

    @classmethod
    def node_params(cls, params: dict[str, Any], at_root: bool) -> dict[str, Any]:
        """The parameters the selection rule reads among one node's children: the same at
        every node unless an algorithm weighs the root's moves apart, as ``mcts``'s
        ``c_root`` does — the table and the step view then show the scores the kernel
        compared."""
        return params

    @classmethod
    def kernel_params(cls, params: dict[str, Any]) -> np.record:
        """The parameters the kernel reads, as one numba record (fields by name)."""
        raise NotImplementedError


class SearchWorker(Protocol):
    """What the controller and the snapshot builder use of a worker (MCTS or alphabeta)."""

    thread: int
    history_keys: list[int]

    @property
    def iterations(self) -> int: ...
    @property
    def memory_bytes(self) -> int: ...
    def run(self, max_iters: int, stop: np.ndarray) -> tuple[int, int]: ...
    def step(self, stop: np.ndarray) -> int: ...
    def root_children(self) -> list[tuple[int, ChildStats]]: ...
    def principal_variation(self, node: int, limit: int = ...) -> list[int]: ...
    def advance(self, move: int) -> bool: ...


def thread_seed(seed: int, thread: int) -> int:
    """Independent, reproducible RNG seed for each root-parallel thread."""
    return (seed * 0x9E3779B1 + thread * 0x85EBCA77 + 1) & 0xFFFFFFFFFFFFFFFF


class Worker:
    """One MCTS tree with its scratch space; used by one thread at a time."""

    def __init__(
        self,
        algorithm: type[Algorithm],
        root: np.ndarray,
        params: dict[str, Any],
        seed: int,
        thread: int,
        node_budget: int,
        ply_cap: int = 0,
    ) -> None:
        self.algorithm = algorithm
        self.params = params
        self.thread = thread
        self.root = root.copy()
        self.tree = Tree(capacity=4096, budget=node_budget)
        self.rng = new_rng(thread_seed(seed, thread))
        self.kparams = algorithm.kernel_params(params)
        self.state = np.zeros_like(root)
        self.child_state = np.zeros_like(root)
        self.moves = np.zeros(MAX_MOVES, dtype=np.int32)
        self.child_moves = np.zeros(MAX_MOVES, dtype=np.int32)
        self.hist = np.zeros(max(ply_cap, 1) + 1, dtype=np.uint64)
        self.path = np.zeros(MAX_PATH, dtype=np.int32)
        self.info = np.zeros(INFO_SIZE, dtype=np.int64)
        self.finfo = np.zeros(4, dtype=np.float64)
        self.no_record = np.zeros(0, dtype=np.int32)
        self.record = np.zeros(max(ply_cap, 1), dtype=np.int32)
        self._visits_offset = 0  # root visits this worker did not make (a reused subtree)
        self.keys = np.zeros(HIST_MAX + MAX_PATH + 1, dtype=np.uint64)  # see parts/path.py
        self.extra: Any = None  # algorithm-specific scratch (e.g. an alpha-beta context)
        # The tree is at its node budget and the algorithm plays on without growing it
        # (set before every kernel call; see Algorithm.plays_on_full).
        self.full = False
        self.folds = 0  # times this tree was folded to make room (recycle)
        # Held while the tree is folded: a fold renumbers the nodes, so a reader in another
        # thread (the controller's snapshots) holds it to see one numbering. Kernels only
        # add nodes, which readers have always met as they go.
        self.fold_lock = threading.Lock()

    def scratch(self, trace: bool) -> Scratch:
        """The arrays a kernel iteration works in, by name; ``trace`` records the
        playout's (or the leaf search's) moves."""
        return Scratch(
            state=self.state,
            moves=self.moves,
            child_state=self.child_state,
            child_moves=self.child_moves,
            hist=self.hist,
            record=self.record if trace else self.no_record,
            path=self.path,
            info=self.info,
            finfo=self.finfo,
            keys=self.keys,
        )

    @property
    def history_keys(self) -> list[int]:
        return [int(k) for k in self.keys[:HIST_MAX] if k]

    @history_keys.setter
    def history_keys(self, keys: list[int]) -> None:
        """The game's positions before the root (oldest first), for repetition draws."""
        keys = keys[-HIST_MAX:]
        self.keys[:HIST_MAX] = 0
        if keys:
            self.keys[HIST_MAX - len(keys) : HIST_MAX] = np.array(keys, dtype=np.uint64)

    @property
    def iterations(self) -> int:
        """Iterations this worker ran, live while its kernel runs (every one visits the root)."""
        return int(self.tree.visits[ROOT]) - self._visits_offset

    @property
    def memory_bytes(self) -> int:
        extra = getattr(self.extra, "memory_bytes", 0)
        return self.tree.memory_bytes + int(extra)

    def run(self, max_iters: int, stop: np.ndarray) -> tuple[int, int]:
        """Up to ``max_iters`` iterations; grows the tree by doubling as needed, and at
        its node budget makes room by folding it (:meth:`recycle`).

        Returns (iterations done, code) with code DONE, FULL (node budget
        reached and no room to be made), STOPPED (flag raised) or ROOT_TERMINAL.
        """
        total = 0
        while total < max_iters:
            if not self._room():
                return total, FULL
            done, code = self.algorithm.run_kernel(self, max_iters - total, stop, False)
            total += done
            if code == FULL:
                if self.full:  # no room even to play on (a root not yet expanded)
                    return total, FULL
                continue  # the next _room() doubles the tree, or finds it at its budget
            if code != DONE:
                return total, code
        return total, DONE

    def _room(self) -> bool:
        """Room for one more iteration: free nodes (doubling the tree if the budget
        allows, else folding it: :meth:`recycle`), or an algorithm that plays on in a
        full tree (``self.full`` says so)."""
        needed = self.algorithm.free_per_iteration
        self.full = not self.tree.ensure_free(needed) and not self.recycle()
        return not self.full or self.algorithm.plays_on_full

    def recycle(self) -> bool:
        """The tree is at its node budget: fold its least visited branches into their
        nodes (:func:`~engine.search.tree.fold`), down to half the budget, so the search
        goes on growing where it keeps coming back. A folded node keeps its visits and
        values, so every statistic above it stands; it is expanded again when the search
        returns to it. True if that made room for an iteration (a budget too small to
        fold leaves the tree as it was)."""
        tree = self.tree
        needed = self.algorithm.free_per_iteration
        keep = tree.budget // 2
        if tree.budget - keep < needed:
            return False
        cut = fold_cut(tree.arrays, keep)
        if cut <= 0:
            return False
        with self.fold_lock:
            fold(tree.arrays, cut)
            self.folds += 1
        return tree.ensure_free(needed)

    @property
    def at_budget(self) -> str | None:
        """What the search does at its node budget: ``"recycling"`` once the tree has been
        folded to make room, ``"deepening"`` when it searches on without growing
        (:attr:`Algorithm.plays_on_full`, a budget too small to fold), else None."""
        if self.full and self.algorithm.plays_on_full:
            return "deepening"
        return "recycling" if self.folds else None

    def step(self, stop: np.ndarray) -> int:
        """Exactly one iteration with its trace recorded in path/info/finfo/record; return
        code. A tree at its node budget is folded first, and that step runs no iteration
        (RECYCLED): the step view compares the nodes before and after an iteration by id,
        which a fold renumbers."""
        if not self.tree.ensure_free(self.algorithm.free_per_iteration) and self.recycle():
            return RECYCLED
        if not self._room():
            return FULL
        _, code = self.algorithm.run_kernel(self, 1, stop, True)
        return code

    # ------------------------------------------------------------ reading
    def root_children(self) -> list[tuple[int, ChildStats]]:
        """(node id, stats) for each child of the root, in tree order."""
        t = self.tree
        out = []
        for node in t.children(ROOT):
            out.append((node, self.child_stats(node)))
        return out

    def child_stats(self, node: int) -> ChildStats:
        """A node's numbers, for the side that made the move into it, with its proof."""
        t = self.tree
        stats = ChildStats(
            move=int(t.move[node]),
            visits=int(t.visits[node]),
            value_sum=float(t.value_sum[node]),
            value=float(t.value[node]),
            eval=float(t.eval[node]),
            terminal=bool(t.flags[node] & TERMINAL),
            outcome=int(t.outcome[node]),
        )
        proof, mate = self.algorithm.child_proof(stats)
        if proof == NOT_PROVEN:
            return stats
        return replace(stats, proof=proof, mate=mate)

    def principal_variation(self, node: int, limit: int = 32) -> list[int]:
        """Moves from ``node`` down, each time to the child the algorithm's PV rule prefers."""
        out = np.empty(max(1, limit), dtype=np.int64)
        length = pv_walk(
            self.tree.arrays, node, self.algorithm.pv_rule, self.algorithm.pv_needs_visits, out
        )
        return [int(m) for m in out[:length]]

    # ------------------------------------------------------------ reuse
    def advance(self, move: int) -> bool:
        """Make ``move`` the new root, keeping its subtree; True if a subtree was reused."""
        make_move(self.root, move)
        child = NONE
        for node in self.tree.children(ROOT):
            if int(self.tree.move[node]) == move:
                child = node
                break
        # A child the tree marked terminal is not kept as the new root: its mark may be a
        # repetition draw that held only on the line the search reached it by (another
        # move order, another history), and a root marked terminal ends every search at
        # once with no move. If the game really is over, nobody searches it.
        self.folds = 0
        if child == NONE or self.tree.flags[child] & TERMINAL:
            self.tree.clear()
            self._visits_offset = 0
            return False
        self.tree.adopt(reroot(self.tree, child))
        self._visits_offset = int(self.tree.visits[ROOT])
        return True
