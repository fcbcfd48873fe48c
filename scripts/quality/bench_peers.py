"""The page's engine beside its peers on the same GGUF and the same prompts: wllama (llama.cpp
compiled to WebAssembly, npm `@wllama/wllama`, one thread, in the same Chromium) and native llama.cpp
(npm `node-llama-cpp`'s prebuilt CPU binary, 1 and 2 threads), against the page's and transformers'
figures that bench_real wrote in the same run (build/report/bench_real.json). Prints every figure with
the page's ratio to each peer and writes build/report/bench_peers.json. No target is asserted.

    make bench-peers                          # installs the peers (scripts/quality/peers/), then
                                              # bench_real and this, one after the other
    python -m scripts.quality.bench_peers     # the peers alone, after bench_real

The peers are installed only by `make bench-peers` (npm ci in scripts/quality/peers/, never by
`make site` or `make test`). A peer that is not installed or fails is one line; the rest still run.
The prompts: bench_real's 6-token prompt and its 512-token text (token ids from transformers'
tokenizer: node-llama-cpp is given the ids; wllama, whose API takes text, the same text, its own
token count printed). llama.cpp's figures: a prefill is the prompt up to its first sampled token, a
decode step one generated token (node-llama-cpp: timed here; wllama: llama.cpp's own timings).
"""
from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from scripts.core.io import ROOT, read_json, write_json_atomic
from scripts.quality.needs import require
from scripts.site.real_js import smollm2_gguf

PEERS = ROOT / "scripts" / "quality" / "peers"
PAGE = ROOT / "build" / "report" / "bench_real.json"
OUT = ROOT / "build" / "report" / "bench_peers.json"
CHROMIUM = os.environ.get("NEXTTOKEN_CHROMIUM", "/usr/bin/chromium")
RUNS = 3
PROMPT = "The capital of France is the"
LONG = 512


def prompts() -> tuple[list[int], list[int], str, str]:
    """bench_real's prompt and long text as ids (transformers' tokenizer of the same GGUF) and as text."""
    from transformers import AutoTokenizer

    from scripts.core.io import read_json as rj
    from scripts.real import loading

    spec = rj(ROOT / "scripts" / "config" / "real_models.json")["models"]["smollm2"]
    tok = AutoTokenizer.from_pretrained(loading.package_folder(spec["module"]), gguf_file=spec["gguf_file"])
    ids = tok.encode(PROMPT, add_special_tokens=False)
    text = " ".join(["The capital of France is Paris, and the capital of Italy is Rome."] * 60)
    long = tok.encode(text, add_special_tokens=False)[:LONG]
    return ids, long, PROMPT, tok.decode(long[:-RUNS])


def llama_cpp(gguf: Path, ids: list[int], long: list[int], threads: str) -> dict:
    if not (PEERS / "node_modules" / "node-llama-cpp").is_dir():
        raise RuntimeError("node-llama-cpp is not installed in scripts/quality/peers/ (make bench-peers installs it)")
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "ids.json"
        f.write_text(json.dumps({"ids": ids, "long": long}))
        done = subprocess.run(["node", str(PEERS / "llama_cpp.mjs"), str(gguf), str(f), threads, str(RUNS)],
                              capture_output=True, text=True, cwd=PEERS, timeout=3600)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"node-llama-cpp failed: {last}")
    return json.loads(done.stdout.strip().splitlines()[-1])


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def wllama(gguf: Path, short: str, long: str) -> dict:
    pkg = PEERS / "node_modules" / "@wllama" / "wllama"
    if not pkg.is_dir():
        raise RuntimeError("@wllama/wllama is not installed in scripts/quality/peers/ (make bench-peers installs it)")
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="bench-peers-"))
    try:
        shutil.copy(PEERS / "wllama.html", work / "index.html")
        (work / "wllama").symlink_to(pkg)
        (work / "model.gguf").symlink_to(gguf)
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(work)))
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
                page = browser.new_page()
                page.set_default_timeout(1_800_000)
                errors = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/index.html")
                try:
                    page.wait_for_function("window.ready === true", timeout=60_000)
                except Exception:
                    raise RuntimeError(f"wllama's page did not start: {errors[0] if errors else 'no error reported'}") from None
                out = page.evaluate("(a) => window.bench(a)", {"short": short, "long": long, "steps": RUNS, "threads": 1})
                browser.close()
        finally:
            httpd.shutdown()
            httpd.server_close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    s, l = (r["timings"] for r in out["runs"])
    return {"load": out["load"], "prefill6": s["prompt_ms"], "decode6": s["predicted_per_token_ms"], "prompt6_n": s["prompt_n"],
            "prefill_long": l["prompt_ms"], "decode512": l["predicted_per_token_ms"], "prompt_long_n": l["prompt_n"],
            "cache_n": [s.get("cache_n"), l.get("cache_n")]}


def main() -> None:
    require("bench_peers", modules=("torch", "transformers", "playwright"), chromium=True)
    if not PAGE.is_file():
        raise SystemExit("error: build/report/bench_real.json not found (run `python -m scripts.quality.bench_real` first)")
    page = read_json(PAGE)
    gguf, _ = smollm2_gguf()
    ids, long, short_text, long_text = prompts()
    cols: dict[str, dict] = {}
    for n, r in page["chromium"].items():
        cols[f"page {n} wk"] = r
    for n, r in page["transformers"].items():
        cols[f"torch {n}t"] = r
    notes = []
    try:
        cols["wllama 1t"] = wllama(gguf, short_text, long_text)
        notes.append(f"wllama read the prompts as {cols['wllama 1t']['prompt6_n']} and {cols['wllama 1t']['prompt_long_n']} tokens "
                     f"(the page: {len(ids)} and {len(long) - RUNS}; cached tokens reused: {cols['wllama 1t']['cache_n']})")
    except Exception as exc:  # one line, and the other peers still run
        notes.append(f"wllama: {str(exc).splitlines()[0]}")
    try:
        native = llama_cpp(gguf, ids, long, "1,2")
        for n, r in native["threads"].items():
            cols[f"llama.cpp {n}t"] = {**r, "load": native["load"]}
    except Exception as exc:
        notes.append(f"native llama.cpp: {str(exc).splitlines()[0]}")
    rows = [("load (ms)", "load"), ("prefill, 6 tokens (ms)", "prefill6"), ("decode step at 6 (ms)", "decode6"),
            (f"decode step at ~{LONG} (ms)", "decode512"), (f"prefill, {LONG - RUNS} tokens (ms)", "prefill_long")]
    names = list(cols)
    la = os.getloadavg()
    print(f"SmolLM2-135M Q4_1 (the packaged GGUF), {os.cpu_count()} cores, load average {la[0]:.2f} "
          f"(bench_real's run: {page['load_average'][0]:.2f}); the page on its {page['kernels']} kernels")
    print(f"{'':28}" + "".join(f"{c:>13}" for c in names))
    for label, k in rows:
        print(f"{label:28}" + "".join(f"{cols[c][k]:13.1f}" if k in cols[c] else f"{'-':>13}" for c in names))
    peers = [c for c in names if not c.startswith("page")]
    print("the page on 1 worker, as a multiple of each (below 1: the page is faster):")
    print(f"{'':28}" + "".join(f"{c:>13}" for c in peers))
    one = cols.get("page 1 wk")
    for label, k in rows[1:]:
        print(f"{label:28}" + "".join(f"{one[k] / cols[c][k]:13.2f}" if one and k in cols[c] and cols[c][k] else f"{'-':>13}" for c in peers))
    rounded = [c for c in peers if c.startswith(("llama.cpp", "wllama"))]
    if rounded:  # kept in the table with the reason the page does not race them
        notes.append(f"{', '.join(rounded)}: llama.cpp rounds every block of 32 activations to 8-bit integers for its integer "
                     "products, which is its speed; rounded so, SmolLM2's logits move far past the parity tests' 2e-3 "
                     "(python -m scripts.quality.activation_rounding prints by how much). The page keeps float32 activations "
                     "and transformers' numbers: DECISIONS.md, 'Activations stay float32'")
    for line in notes:
        print(line)
    write_json_atomic(OUT, {"load_average": la, "bench_real_load_average": page["load_average"], "columns": cols, "notes": notes,
                            "prompt_tokens": len(ids), "long_tokens": len(long) - RUNS})
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
