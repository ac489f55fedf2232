"""Fitting the hand evaluation's weights: self-play data (:mod:`.selfplay`) and Texel's
method (:mod:`.texel`, :mod:`.texel_tables`, :mod:`.texel_added`).

A package apart from :mod:`engine.learn`, which trains the learned evaluations by
generations of self-play and gating: the two share no code, and the commands here
(``python -m engine.tune.texel``) are the ones the shipped weights file records as its
source.
"""
