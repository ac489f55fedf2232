"""The search tree: preallocated struct-of-arrays, grown by doubling.

Shapes and meanings (``C`` = capacity, index = node id, ``ROOT = 0``, ``NONE = -1``)::

    parent       int32[C]    parent node, NONE for the root
    first_child  int32[C]    head of the child list, NONE while unexpanded
    next_sibling int32[C]    next child of the same parent, NONE at the end
    move         int32[C]    int move from the parent into this node
    visits       int32[C]    iterations that passed through this node
    num_legal    int16[C]    legal moves in this node's position, UNKNOWN until looked at
    num_children int16[C]    children created so far (<= num_legal)
    value_sum    float64[C]  sum of rewards in [0, 1] for the side that moved into the node
    value        float32[C]  bfms, mcts: backed-up negamax value (mcts: of the children's
                             evaluations, the implicit minimax value); others: last
                             terminal/eval value; for the side that moved into the node.
                             A proven or terminal node's value is its game value
                             ``±(WIN - 10·d)``, d = plies from the root to the game's end
    eval         float32[C]  static evaluation when created (mcts: the leaf evaluation,
                             a quiescence score), same point of view
    depth        int16[C]    plies below the root
    flags        uint8[C]    TERMINAL, EVALUATED, PROVEN bits
    outcome      int8[C]     for terminal and proven nodes: +1 / 0 / -1 for the side that
                             moved in
    prior        float32[C]  mcts: the move-ordering prior of the move into the node
                             (the parent's children sum to 1)
    meta         int64[4]    [nodes used, capacity, max depth, sum of depths]

Children form a linked list so UCT can add one child per iteration without
reserving slots for untried moves: a node costs its own 48 bytes (``BYTES_PER_NODE``),
all included.
Kernels receive the arrays as one plain tuple (numba caches plain tuples,
not namedtuples) and unpack it at the top.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.eval.evaluate import PLY_PENALTY, WIN

ROOT = 0
NONE = -1
UNKNOWN = -1  # num_legal before the position has been looked at

TERMINAL = 1
EVALUATED = 2
# The game-theoretic value is known (MCTS-Solver): a terminal node, or one whose
# children prove it; ``outcome`` holds the result and ``value`` its game value.
PROVEN = 4
# mcts (``cut``): some children are not scored yet — an expansion stopped at the reply
# that refuted the move into the node; the search resumes it if the refutation fails.
PARTIAL = 8

# meta slots
USED, CAPACITY, MAX_DEPTH, DEPTH_SUM = 0, 1, 2, 3

FIELDS: tuple[tuple[str, type], ...] = (
    ("parent", np.int32),
    ("first_child", np.int32),
    ("next_sibling", np.int32),
    ("move", np.int32),
    ("visits", np.int32),
    ("num_legal", np.int16),
    ("num_children", np.int16),
    ("value_sum", np.float64),
    ("value", np.float32),
    ("eval", np.float32),
    ("depth", np.int16),
    ("flags", np.uint8),
    ("outcome", np.int8),
    ("prior", np.float32),
)
BYTES_PER_NODE = sum(np.dtype(t).itemsize for _, t in FIELDS)

# Tuple positions, for kernels that need a single array.
(
    PARENT,
    FIRST_CHILD,
    NEXT_SIBLING,
    MOVE,
    VISITS,
    NUM_LEGAL,
    NUM_CHILDREN,
    VALUE_SUM,
    VALUE,
    EVAL,
    DEPTH,
    FLAGS,
    OUTCOME,
    PRIOR,
    META,
) = range(15)


class Tree:
    """Owner of the arrays; numba kernels work on :attr:`arrays`."""

    def __init__(self, capacity: int = 4096, budget: int = 2_000_000) -> None:
        if budget < 2:
            raise ValueError(f"node budget must be at least 2, got {budget}")
        self.budget = budget
        capacity = max(2, min(capacity, budget))
        self.meta = np.zeros(4, dtype=np.int64)
        self._columns: dict[str, np.ndarray] = {
            name: np.zeros(capacity, dtype=t) for name, t in FIELDS
        }
        self.meta[CAPACITY] = capacity
        self.clear()

    # ------------------------------------------------------------ access
    @property
    def arrays(self) -> tuple[np.ndarray, ...]:
        return (*self._columns.values(), self.meta)

    def __getattr__(self, name: str) -> np.ndarray:
        columns = self.__dict__.get("_columns")
        if columns is not None and name in columns:
            return columns[name]
        raise AttributeError(name)

    @property
    def used(self) -> int:
        return int(self.meta[USED])

    @property
    def capacity(self) -> int:
        return int(self.meta[CAPACITY])

    @property
    def memory_bytes(self) -> int:
        return sum(a.nbytes for a in self._columns.values()) + self.meta.nbytes

    @property
    def max_depth(self) -> int:
        return int(self.meta[MAX_DEPTH])

    @property
    def mean_depth(self) -> float:
        return float(self.meta[DEPTH_SUM]) / max(1, self.used)

    # ------------------------------------------------------------ lifecycle
    def clear(self) -> None:
        """Reset to a single unexpanded root."""
        self.meta[USED] = 1
        self.meta[MAX_DEPTH] = 0
        self.meta[DEPTH_SUM] = 0
        init_node(self.arrays, ROOT, NONE, NONE, 0)

    def ensure_free(self, needed: int) -> bool:
        """Make room for ``needed`` more nodes by doubling; False if the budget forbids it."""
        if self.capacity - self.used >= needed:
            return True
        target = self.capacity
        while target - self.used < needed:
            target *= 2
        target = min(target, self.budget)
        if target - self.used < needed:
            return False
        for name, column in self._columns.items():
            grown = np.zeros(target, dtype=column.dtype)
            grown[: self.used] = column[: self.used]
            self._columns[name] = grown
        self.meta[CAPACITY] = target
        return True

    def adopt(self, other: Tree) -> None:
        """Take over ``other``'s arrays (used after re-rooting into a fresh tree)."""
        self._columns = other._columns
        self.meta = other.meta

    def path(self, node: int) -> list[int]:
        """Node ids from the root's child down to ``node`` (empty for the root): the moves
        that reach it are ``self.move`` of each. The tree keeps no position per node, so the
        views that need one replay this path."""
        out = []
        n = node
        while n > ROOT:
            out.append(n)
            n = int(self.parent[n])
        out.reverse()
        return out

    def children(self, node: int) -> list[int]:
        out = []
        child = int(self.first_child[node])
        while child != NONE:
            out.append(child)
            child = int(self.next_sibling[child])
        return out


@njit(cache=True, nogil=True)
def init_node(tree: tuple, node: int, parent: int, move: int, depth: int) -> None:
    (parent_a, first_child, next_sibling, move_a, visits, num_legal, num_children,
     value_sum, value, eval_a, depth_a, flags, outcome, prior, _meta) = tree  # fmt: skip
    parent_a[node] = parent
    first_child[node] = NONE
    next_sibling[node] = NONE
    move_a[node] = move
    visits[node] = 0
    num_legal[node] = UNKNOWN
    num_children[node] = 0
    value_sum[node] = 0.0
    value[node] = 0.0
    eval_a[node] = 0.0
    depth_a[node] = depth
    flags[node] = 0
    outcome[node] = 0
    prior[node] = 0.0


@njit(cache=True, nogil=True)
def add_child(tree: tuple, node: int, move: int) -> int:
    """Append a new child of ``node`` reached by ``move``; return its id (caller ensured room)."""
    first_child, next_sibling = tree[FIRST_CHILD], tree[NEXT_SIBLING]
    num_children, depth_a, meta = tree[NUM_CHILDREN], tree[DEPTH], tree[META]
    child = meta[USED]
    meta[USED] += 1
    depth = depth_a[node] + 1
    init_node(tree, child, node, move, depth)
    next_sibling[child] = first_child[node]
    first_child[node] = child
    num_children[node] += 1
    meta[DEPTH_SUM] += depth
    if depth > meta[MAX_DEPTH]:
        meta[MAX_DEPTH] = depth
    return child


@njit(cache=True, nogil=True)
def copy_subtree(src: tuple, dst: tuple, new_root: int) -> int:
    """Copy the subtree under ``new_root`` of ``src`` into empty ``dst`` (breadth first).

    Depths are shifted so the new root has depth 0, and game values with them (a mate
    ``WIN - 10·d`` plies below the old root is ``base`` plies nearer the new one), so a
    proof keeps its distance. Returns the node count.
    Used for tree reuse after a move: the played move's subtree becomes the tree.
    """
    (s_parent, s_first, s_next, s_move, s_visits, s_legal, s_nchild,
     s_sum, s_value, s_eval, s_depth, s_flags, s_outcome, s_prior, s_meta) = src  # fmt: skip
    (d_parent, d_first, d_next, d_move, d_visits, d_legal, d_nchild,
     d_sum, d_value, d_eval, d_depth, d_flags, d_outcome, d_prior, d_meta) = dst  # fmt: skip
    base = s_depth[new_root]
    order = np.empty(s_meta[USED], dtype=np.int32)  # old ids in BFS order
    new_id = np.full(s_meta[USED], NONE, dtype=np.int32)
    order[0] = new_root
    new_id[new_root] = 0
    d_next[0] = NONE
    head, tail = 0, 1
    max_depth, depth_sum = 0, 0
    while head < tail:
        old = order[head]
        nid = head
        head += 1
        d_parent[nid] = NONE if old == new_root else new_id[s_parent[old]]
        d_move[nid] = s_move[old]
        d_visits[nid] = s_visits[old]
        d_legal[nid] = s_legal[old]
        d_nchild[nid] = s_nchild[old]
        d_sum[nid] = s_sum[old]
        v = s_value[old]
        if v > WIN / 2:
            v += PLY_PENALTY * base
        elif v < -WIN / 2:
            v -= PLY_PENALTY * base
        d_value[nid] = v
        d_eval[nid] = s_eval[old]
        depth = s_depth[old] - base
        d_depth[nid] = depth
        d_flags[nid] = s_flags[old]
        d_outcome[nid] = s_outcome[old]
        d_prior[nid] = s_prior[old]
        d_first[nid] = NONE  # (d_next[nid] was set when its parent listed it)
        depth_sum += depth
        if depth > max_depth:
            max_depth = depth
        # children keep their list order
        child = s_first[old]
        prev = NONE
        while child != NONE:
            new_id[child] = tail
            order[tail] = child
            d_next[tail] = NONE
            if prev == NONE:
                d_first[nid] = tail
            else:
                d_next[prev] = tail
            prev = tail
            tail += 1
            child = s_next[child]
    d_meta[USED] = tail
    d_meta[MAX_DEPTH] = max_depth
    d_meta[DEPTH_SUM] = depth_sum
    return tail


@njit(cache=True, nogil=True)
def count_subtree(first_child: np.ndarray, next_sibling: np.ndarray, node: int, used: int) -> int:
    """Nodes in the subtree under ``node`` (itself included), walked in numba: a tree of
    millions of nodes is counted in milliseconds (a Python walk took seconds, and a
    UCI engine spends them between ``go`` and ``bestmove``)."""
    stack = np.empty(used, dtype=np.int32)
    stack[0] = node
    top, count = 1, 0
    while top > 0:
        top -= 1
        n = stack[top]
        count += 1
        child = first_child[n]
        while child != NONE:
            stack[top] = child
            top += 1
            child = next_sibling[child]
    return count


@njit(cache=True, nogil=True)
def fold_cut(tree: tuple, keep: int) -> int:
    """The fewest visits a node must have to keep its children when the tree is folded
    (:func:`fold`) down to at most ``keep`` nodes: the most visited nodes keep theirs,
    down to the first visit count whose nodes' children would not fit as well. -1 if
    not even the root's children fit.

    A node has at most its parent's visits (every walk through it passes its parent), so
    the nodes with at least ``cut`` visits form a top of the tree, and the nodes a fold
    keeps are the root and their children."""
    parent, visits, meta = tree[PARENT], tree[VISITS], tree[META]
    used = meta[USED]
    kids = np.zeros(used, dtype=np.int64)
    for node in range(1, used):
        kids[parent[node]] += 1
    kept = 1 + kids[ROOT]
    if kept > keep:
        return -1
    inner = np.empty(used, dtype=np.int64)  # the nodes below the root with children
    count = 0
    for node in range(1, used):
        if kids[node] > 0:
            inner[count] = node
            count += 1
    inner = inner[:count]
    order = np.argsort(-visits[inner].astype(np.int64), kind="mergesort")
    i = 0
    while i < count:
        top = visits[inner[order[i]]]
        group = 0  # the children of every node with ``top`` visits
        j = i
        while j < count and visits[inner[order[j]]] == top:
            group += kids[inner[order[j]]]
            j += 1
        if kept + group > keep:
            return top + 1
        kept += group
        i = j
    return 0  # everything fits: nothing to fold


@njit(cache=True, nogil=True)
def fold(tree: tuple, cut: int) -> int:
    """Fold every node below the root with fewer than ``cut`` visits: its children and
    everything under them leave the tree, and it becomes a leaf that keeps its own numbers
    (visits, rewards, value, evaluation, proof), so its parent's statistics stand. The
    search expands it again when it comes back. The nodes left keep their order (ids are
    renumbered downwards, in place) and the root stays 0. Returns the nodes left."""
    (parent, first, nxt, move, visits, legal, nchild,
     total, value, ev, depth, flags, outcome, prior, meta) = tree  # fmt: skip
    used = meta[USED]
    new_id = np.full(used, NONE, dtype=np.int32)
    new_id[ROOT] = 0
    count = 1
    for node in range(1, used):  # a parent's id is below its children's
        up = parent[node]
        if new_id[up] != NONE and (up == ROOT or visits[up] >= cut):
            new_id[node] = count
            count += 1
    depth_sum, max_depth = 0, 0
    for node in range(used):
        k = new_id[node]
        if k == NONE:
            continue
        folded = node != ROOT and visits[node] < cut
        # k <= node: every slot written has been read already
        parent[k] = NONE if node == ROOT else new_id[parent[node]]
        first[k] = NONE if folded or first[node] == NONE else new_id[first[node]]
        nxt[k] = NONE if nxt[node] == NONE else new_id[nxt[node]]
        move[k] = move[node]
        visits[k] = visits[node]
        legal[k] = legal[node]
        nchild[k] = 0 if folded else nchild[node]
        total[k] = total[node]
        value[k] = value[node]
        ev[k] = ev[node]
        depth[k] = depth[node]
        flags[k] = flags[node] & ~PARTIAL if folded else flags[node]
        outcome[k] = outcome[node]
        prior[k] = prior[node]
        depth_sum += depth[k]
        max_depth = max(max_depth, depth[k])
    meta[USED] = count
    meta[DEPTH_SUM] = depth_sum
    meta[MAX_DEPTH] = max_depth
    return count


def subtree_size(tree: Tree, node: int) -> int:
    return int(count_subtree(tree.first_child, tree.next_sibling, node, tree.used))


def reroot(tree: Tree, child: int) -> Tree:
    """A new tree holding ``tree``'s subtree under ``child`` (which becomes the root)."""
    size = subtree_size(tree, child)
    fresh = Tree(capacity=max(4096, size * 2), budget=tree.budget)
    copy_subtree(tree.arrays, fresh.arrays, child)
    return fresh


@njit(cache=True, nogil=True)
def top_nodes(tree: tuple, limit: int, max_depth: int) -> np.ndarray:
    """Ids of up to ``limit`` most visited nodes reachable from the root, best first.

    Best-first over visit counts from the root (a parent always precedes its
    children), so the result is a connected top of the tree; nodes deeper than
    ``max_depth`` are left out. Unvisited nodes are included only after every
    visited one (bfms evaluates children it has not visited yet).
    """
    first_child, next_sibling, visits, depth = (
        tree[FIRST_CHILD], tree[NEXT_SIBLING], tree[VISITS], tree[DEPTH],
    )  # fmt: skip
    out = np.empty(limit, dtype=np.int32)
    if limit <= 0:
        return out
    heap_key = np.empty(limit * 256 + 1, dtype=np.int64)
    heap_id = np.empty(limit * 256 + 1, dtype=np.int32)
    size = 0
    count = 0
    heap_key[0] = visits[ROOT]
    heap_id[0] = ROOT
    size = 1
    while size > 0 and count < limit:
        # pop max
        node = heap_id[0]
        size -= 1
        heap_key[0] = heap_key[size]
        heap_id[0] = heap_id[size]
        i = 0
        while True:
            left = 2 * i + 1
            if left >= size:
                break
            big = left
            if left + 1 < size and heap_key[left + 1] > heap_key[left]:
                big = left + 1
            if heap_key[big] <= heap_key[i]:
                break
            heap_key[i], heap_key[big] = heap_key[big], heap_key[i]
            heap_id[i], heap_id[big] = heap_id[big], heap_id[i]
            i = big
        out[count] = node
        count += 1
        if depth[node] >= max_depth:
            continue
        child = first_child[node]
        while child != NONE:
            if size < heap_key.shape[0]:
                heap_key[size] = visits[child]
                heap_id[size] = child
                j = size
                size += 1
                while j > 0:
                    up = (j - 1) // 2
                    if heap_key[up] >= heap_key[j]:
                        break
                    heap_key[up], heap_key[j] = heap_key[j], heap_key[up]
                    heap_id[up], heap_id[j] = heap_id[j], heap_id[up]
                    j = up
            child = next_sibling[child]
    return out[:count]
