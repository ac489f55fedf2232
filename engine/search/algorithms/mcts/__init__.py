"""``mcts`` — Monte Carlo Tree Search built for strength in tactical games.

The same tree, visits and averages as ``uct``; what changes is each part:

* **Selection** — PUCT over a blend of two values: ``(1 − α)·Q + α·minimax +
  c·P·sqrt(N) / (1 + n)``, ``Q`` the child's mean reward, ``minimax`` its implicit
  minimax value (below) read as an expected score, ``P`` its prior. A child not yet
  evaluated is taken to be worth the parent's own leaf evaluation (for the chooser)
  less ``fpu`` (first-play urgency). A move proven lost is never chosen.
* **Expansion** — on a node's second visit every child is created with a move-ordering
  prior (:mod:`~engine.search.parts.prior`: captures by victim and exchange, promotions,
  checks, pieces saved or put en prise; softmax at ``prior_temp`` centipawns); a child
  that mates, stalemates or ends the game otherwise is recognised at once.
* **Simulation** — none at random: the new leaf is scored by a quiescence search
  (captures, promotions, every evasion in check; in chess quiet checks in its first
  plies, and no capture or check that loses the exchange, ``qprune``) with the shared
  evaluation, squashed to a reward in [0, 1] (:mod:`~engine.search.parts.leaf`),
  through a Zobrist-keyed table so transpositions share it.
* **Back-propagation** — rewards averaged as in UCT; above the leaf every node's
  implicit minimax value (the negamax of its children's evaluations; Lanctot et al.
  2014) and its proof (MCTS-Solver; Winands, Björnsson & Saito 2008) are refreshed.
* **Final move** — a proven win (the shortest) first; else the most visited move,
  ties by Q; never a proven loss while another move exists.

The search stops by itself once the root's value is proven (``SOLVED``).

The package: :mod:`.params` (the parameters and the kernel's record), :mod:`.kernel`
(the iteration and its batch), :mod:`.scoring` (scoring a node's children),
:mod:`.depth` (how deep each search goes), :mod:`.worker` and :mod:`.algorithm` (the
class the registry names). What the views around the search show of it is its explainer's,
:mod:`engine.explain.explainers.mcts`.
"""

from engine.search.algorithms.mcts.algorithm import MCTS

__all__ = ["MCTS"]
