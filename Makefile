# The two commands a new user needs: `make site` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
NODE_STAMP := node_modules/.installed
# site_builder's compiled modules: an editable install has none, and where PYTHONDONTWRITEBYTECODE
# is set, every run would compile ~9,000 lines again (a tenth of a warm build of 1,000 entries).
PYC_STAMP := $(VENV)/.compiled

.PHONY: site test lint clean install

site: $(STAMP) $(NODE_STAMP) $(PYC_STAMP)
	$(BIN)/site-builder build

# The suite on TEST_WORKERS processes (pytest-xdist; a test file stays on one, with its fixtures), then
# the few tests marked serial, which measure how a busy machine slows a run, on a machine of their own.
# With the modules compiled first: the builds the tests start as processes would each compile them again.
TEST_WORKERS ?= 2

test: $(DEV_STAMP) $(NODE_STAMP) $(PYC_STAMP)
	$(BIN)/ruff check site_builder tests
	$(BIN)/mypy
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile -m "not serial"
	$(BIN)/python -m pytest -m serial

lint: $(DEV_STAMP)
	$(BIN)/ruff check site_builder tests
	$(BIN)/ruff format --check site_builder tests
	$(BIN)/mypy

install: $(STAMP) $(NODE_STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(PYC_STAMP): $(STAMP) $(wildcard site_builder/*.py site_builder/*/*.py site_builder/*/*/*.py)
	$(BIN)/python -m compileall -q site_builder
	touch $@

$(DEV_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

clean:
	rm -rf site .cache .site.tmp-*

.PHONY: serve new
serve: $(STAMP) $(NODE_STAMP) $(PYC_STAMP)
	$(BIN)/site-builder serve

new: $(STAMP)
	@test -n "$(P)" || (echo "usage: make new P=icpc/2024/A-some-title" >&2; exit 2)
	$(BIN)/site-builder new $(P)

# Mutation testing of the modules that keep archives safe and verdicts true (docs/testing.md): slow, so
# not part of `make test`; run it before submitting a change to one of them: make mutate MODULE=verify/compare.py
.PHONY: mutate
mutate: $(DEV_STAMP) $(NODE_STAMP)
	$(BIN)/python tests/mutate/run.py $(MODULE)

.PHONY: bench
BENCH_STAMP := $(VENV)/.installed-bench
bench: $(DEV_STAMP) $(BENCH_STAMP) $(NODE_STAMP) $(PYC_STAMP)
	$(BIN)/python tests/bench/run.py

$(BENCH_STAMP): $(DEV_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	touch $@
