# The README's two commands. Both work on a fresh machine with only Python 3.11+:
# they create .venv, install the package (test: with its dev extra; demo: the core only), then run.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DEMO_STAMP := $(VENV)/.demo-stamp

.PHONY: test demo lint typecheck bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "llmist needs Python 3.11+, found " + sys.version)'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

# The demo needs only the core package (no SDKs, no test tools), so a fresh clone starts quickly.
$(DEMO_STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "llmist needs Python 3.11+, found " + sys.version)'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	@touch $(DEMO_STAMP)

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples

typecheck: $(STAMP)
	$(BIN)/mypy src

test: lint typecheck
	$(BIN)/pytest

demo: $(DEMO_STAMP)
	@bash examples/demo.sh $(BIN)

bench: $(STAMP)
	$(BIN)/python benchmarks/parser_bench.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
