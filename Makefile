# The two commands a fresh clone needs are `make run` and `make test` (see README).
# Options reach the run command through ARGS: make run ARGS="--no-demo --fresh" (ARGS=--help lists them).
# The Python 3.11 that builds .venv: the distribution's own build where there is one (Debian's
# is compiled with profile-guided and link-time optimisation: about a fifth less CPU on this
# suite than a default source or pyenv build of 3.11), else python3.11 or python3 on PATH.
PYTHON ?= $(firstword $(wildcard /usr/bin/python3.11) $(shell command -v python3.11 || command -v python3))
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
OUT ?= out

.PHONY: run test test-dates test-localstack lint typecheck unit bootstrap package bench capacity clean

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q 'pip==23.2.1'
	$(BIN)/python -m pip wheel -q --no-deps --wheel-dir $(VENV)/wheels -r requirements.txt
	$(BIN)/python -m pip install -q --find-links $(VENV)/wheels -r requirements-dev.txt
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m ops.run $(ARGS)

# Three workers (pytest-xdist) on this project's two-core machines, each with its own moto server:
# a third worker runs while the others wait on visibility timeouts, retries and servers. Tests
# that package the repository share one worker (their xdist_group), so Chalice builds its layer once.
test: $(STAMP) lint typecheck
	$(BIN)/python -m pytest -n 3 --dist loadgroup

# The whole suite under a faked clock at the instants calendars break (midnight, month and year
# ends, a leap day, DST changes, three random ones); about an hour. Not part of `make test`.
test-dates: $(STAMP)
	$(BIN)/python -m ops.test_dates $(ARGS)

# Opt-in: the integration tests against a running LocalStack (LOCALSTACK_HOST, default localhost:4566).
test-localstack: $(STAMP)
	TXN_TEST_LOCALSTACK=1 $(BIN)/python -m pytest -m integration

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

bootstrap: $(STAMP)
	$(BIN)/python -m ops.bootstrap

package: $(STAMP)
	$(BIN)/python -m ops.package $(OUT)

bench: $(STAMP)
	$(BIN)/python -m ops.bench

# Measure the pipeline on a local run and regenerate docs/capacity.md.
capacity: $(STAMP)
	$(BIN)/python -m ops.capacity

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache out
