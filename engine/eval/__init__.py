"""What scores a position: the hand evaluation (features, fitted weights, the endgame
scale), the learned evaluations (their kernels and weights files) and the comparison of
the two that the position view shows.

The searches (:mod:`engine.search`) call :func:`engine.eval.evaluate.evaluate`; nothing
here imports the search. The kernels bake the shipped weights in as constants when they
are imported, so ``engine/__init__.py`` hashes this package with the weights files into
the numba cache directory's name.
"""
