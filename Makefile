# Two commands set everything up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
ASSETS := app/static/vendor/.built
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: setup run test test-all screenshots lint typecheck bench results load-test container-check sysdeps clean

## setup: idempotent; .venv with the project (editable), the front-end assets, and the
## numba kernels compiled (or found in the cache: a few seconds), so `make run` starts warm
setup: $(STAMP) $(ASSETS)
	$(BIN)/canopy warm

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,cluster,train]'  # the Dask and training tests run too
	touch $(STAMP)

$(ASSETS): package.json package-lock.json scripts/build-assets.mjs
	npm ci --no-audit --no-fund --loglevel=error
	node scripts/build-assets.mjs
	touch $(ASSETS)

## run: serve the app on http://$(HOST):$(PORT) (another port: make run PORT=8001)
run: setup
	$(BIN)/canopy serve --host $(HOST) --port $(PORT)

## sysdeps: Debian packages the tests drive (chromium, stockfish, fairy-stockfish, postgresql)
sysdeps:
	scripts/install-system-deps.sh

## test: everything (lint, format, types, unit, app, browser); .ci/run calls this. One worker
## a core; a module is one unit of work, the longest first (tests/conftest.py)
test: setup sysdeps lint typecheck
	$(BIN)/pytest -n auto --dist loadgroup --no-loadscope-reorder

## test-all: also the slow checks (deep perft, long matches) and the strict timing goals
test-all: setup sysdeps
	$(BIN)/pytest -m '' --timing

## screenshots: the pictures in docs/screenshots, made in headless Chromium (about 2 minutes)
screenshots: setup sysdeps
	$(BIN)/python scripts/screenshots.py

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: setup
	$(BIN)/mypy engine app canopy

bench: setup
	$(BIN)/canopy bench

## results: rewrite docs/results.md's tables and its figure from the match records in
## docs/results/ (scripts/results_tables.py --add files a new match there first)
results: setup
	$(BIN)/python scripts/results_tables.py

## load-test: 50 websocket clients with games and searches for 60 s, then 1,000 connect/disconnect
## cycles during searches (figures in docs/reliability.md)
load-test: setup
	$(BIN)/python -m tests.reliability.load load --clients 50 --seconds 60
	$(BIN)/python -m tests.reliability.load cycles --cycles 1000

## container-check: build the Dockerfile with podman (../shared/tools) and run the image once (root)
container-check:
	../shared/tools/container-check.sh canopy:check
	scripts/container-smoke.sh canopy:check

clean:
	rm -rf $(VENV) node_modules app/static/vendor .pytest_cache
