"""The search family: UCT, UCT with minimax simulation, Best-First Minimax with UCT,
alpha-beta, and root parallelism for the MCTS ones — numba kernels behind a
Python controller that streams immutable :class:`~engine.search.info.SearchInfo`
snapshots."""
