"""Benchmarks: print how long the build takes and how fast the runtime is (no targets asserted).

    python -m scripts.quality.bench            # all figures, written to build/report/bench.json
    python -m scripts.quality.bench --quick    # skip the cold build (the slowest part)

Builds run in a scratch copy of the working tree (tracked and untracked, not ignored files) that
links to this checkout's .venv and node_modules, so the real build/ and site_data/ are untouched:
- training: `python -m scripts.tiny.checkpoint` alone;
- cold build: `make site` with site_data/manifest.json removed, so every data stage reruns
  (no GPT-2 weights here: the GPT-2 stage only says so);
- fresh-clone build: `make site` when the committed data are up to date (what Pages runs);
- docs-only rebuild: `make site` again after touching one page;
- recovery: `make data` after deleting one committed output (site_data/tiny/tokenizer.json);
- forward pass: scripts.quality.bench_forward (JS in Node against PyTorch).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scripts.core.io import BUILD, ROOT, write_json_atomic
from scripts.quality.needs import require

TARGETS = {"training_s": 20, "cold_build_s": 90, "docs_only_rebuild_s": 10, "js_forward_us": 50}


def scratch_copy(dest: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split("\0")
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    for link in (".venv", "node_modules"):
        if (ROOT / link).exists():
            (dest / link).symlink_to(ROOT / link)
    return dest


def timed(cmd: list[str], cwd: Path, env: dict | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)} failed in {cwd}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return seconds, proc.stdout + proc.stderr


def bench_builds(quick: bool) -> dict:
    out = {}
    with tempfile.TemporaryDirectory(prefix="nexttoken-bench-") as tmp:
        work = scratch_copy(Path(tmp))
        py = str(work / ".venv" / "bin" / "python")
        env = os.environ | {"PYTHONPATH": str(work)}
        seconds, log = timed([py, "-m", "scripts.tiny.checkpoint"], work, env)
        out["training_s"] = round(seconds, 2)
        m = re.search(r"steps in ([\d.]+) s", log)
        out["training_loop_s"] = float(m.group(1)) if m else None
        if not quick:
            (work / "site_data" / "manifest.json").unlink(missing_ok=True)  # every data stage is stale
            shutil.rmtree(work / "build", ignore_errors=True)
            out["cold_build_s"] = round(timed(["make", "site"], work)[0], 2)
            manifest = json.loads((work / "site_data" / "manifest.json").read_text())
            out["stage_seconds"] = {k: v["seconds"] for k, v in manifest["stages"].items()}
            # A deleted output makes its stage run again (here the tiny model: tokenizer, training, export).
            (work / "site_data" / "tiny" / "tokenizer.json").unlink()
            out["recover_deleted_output_s"] = round(timed(["make", "data"], work)[0], 2)
        for gen in ("build", "docs/js/data", "docs/assets/vendor", "docs/assets/figures"):
            shutil.rmtree(work / gen, ignore_errors=True)
        if not quick:  # the cold build rewrote site_data: restore the committed copy for a fair fresh clone
            shutil.rmtree(work / "site_data")
            shutil.copytree(ROOT / "site_data", work / "site_data")
        out["fresh_clone_build_s"] = round(timed(["make", "site"], work)[0], 2)
        page = work / "docs" / "index.md"
        page.write_text(page.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        out["docs_only_rebuild_s"] = round(timed(["make", "site"], work)[0], 2)
    return out


def bench_runtime() -> dict:
    proc = subprocess.run([sys.executable, "-m", "scripts.quality.bench_forward"], cwd=ROOT, capture_output=True,
                          text=True)
    print(proc.stdout, end="")
    last = (proc.stdout.strip().splitlines() or ["{}"])[-1]
    try:
        data = json.loads(last)
    except json.JSONDecodeError:
        return {"runtime_error": proc.stderr[-500:]}
    return {"js_forward_us": data.get("js_us"), "torch_forward_us": data.get("torch_us")}


def main() -> None:
    ap = argparse.ArgumentParser(description="print build and runtime figures")
    ap.add_argument("--quick", action="store_true", help="skip the cold build")
    args = ap.parse_args()
    require("bench", modules=("torch",), node=True)
    figures = bench_builds(args.quick) | bench_runtime()
    print(f"{'figure':28} {'value':>10} {'target':>8}")
    for key, value in figures.items():
        if isinstance(value, (int, float)):
            target = TARGETS.get(key)
            print(f"{key:28} {value:>10} {('< ' + str(target)) if target else '':>8}")
    if "stage_seconds" in figures:
        print("stages:", json.dumps(figures["stage_seconds"]))
    write_json_atomic(BUILD / "report" / "bench.json", figures)
    print("written to build/report/bench.json")


if __name__ == "__main__":
    main()
