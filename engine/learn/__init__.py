"""Training the learned evaluations by self-play (``canopy train``): games, fits,
gating and the record of each generation (the hand evaluation's weights are fitted by
:mod:`engine.tune`)."""
