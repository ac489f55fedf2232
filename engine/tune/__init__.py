"""Fitting the evaluation: self-play data (:mod:`.selfplay`) and Texel's method (:mod:`.texel`)."""
