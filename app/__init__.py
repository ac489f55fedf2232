"""Canopy's web app: thin FastAPI layer that validates, routes and streams."""
