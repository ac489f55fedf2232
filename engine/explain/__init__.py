"""Explaining a search to people: the step view, node cards, tree exports, the summary a
game keeps of each engine move, the race view and the tactics suite.

``engine.explain`` reads the search (:mod:`engine.search`) and never the other way round:
the kernels and the controller publish numbers (snapshots, step records), and the modules
here turn them into the numbers and words the app, the CLI and the docs show. Each
algorithm's :class:`~engine.explain.explainer.Explainer` holds what is said about it.
"""
