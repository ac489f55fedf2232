"""The ``canopy`` command: one entry point wiring the engine and the web app together.

``engine`` never imports ``app``; this package is the one place that knows both.
"""
