"""Benchmark of the real-models page's three writers (docs/js/demos/real-writers.js) in Chromium:
tokens per second while writing, each writer alone and the three side by side, on one prompt. Printed
and written to build/report/bench_writers.json; no target is asserted.

    python -m scripts.quality.bench_writers [--tokens N]   # after `make site`; needs chromium

The page is the built site's real-models.html over a local http server. The model is opened as the
panel above the writers opens it (OPEN_MODEL: its load button, then the prompt typed and Enter,
which publishes the store's "real.model" and "real.pass"), and each run presses Write (WRITE). A writer's rate is its tokens over
its own share of the engine's time (the writers take turns on one worker); "wall" is the tokens of
all the writers that ran over the time from Write to the last token, the prompt's pass included.
Beam search counts one token per step, however many beams it decodes.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import os
import threading
import time

from scripts.core.io import ROOT, write_json_atomic
from scripts.quality.needs import require

SITE = ROOT / "build" / "site"
OUT = ROOT / "build" / "report" / "bench_writers.json"
CHROMIUM = os.environ.get("NEXTTOKEN_CHROMIUM", "/usr/bin/chromium")
PROMPT = "The old lighthouse keeper climbed the stairs and"
SAMPLING = {"T": 0.8, "k": 0, "p": 0.9, "seed": 7}
PAGE = "real-models.html"

# Loads SmolLM2 through the page's own panel (its load button), then runs the prompt as a reader does
# (the text in the box, the chat switch, Enter) and waits for the pass it publishes as "real.pass",
# which the writers continue. Returns the prompt's ids.
OPEN_MODEL = """async ([text, chat]) => {
  const ask = document.querySelector('.nt-demo[data-demo="real-ask"]');
  const said = () => document.querySelector('[data-role="ask-msg"]').textContent;
  const until = (f) => new Promise((resolve) => { const c = () => f() ? resolve() : setTimeout(c, 50); c(); });
  document.querySelector('[data-role="ask-load"]').click();
  await until(() => ask.hasAttribute("data-real-model") || said());
  if (!ask.hasAttribute("data-real-model")) throw new Error(said());
  await until(() => ask.hasAttribute("data-pass") && !ask.hasAttribute("data-busy"));
  const box = document.querySelector('[data-role="ask-prompt"]');
  const got = new Promise((resolve) => {
    const off = nexttoken.store.subscribe("real.pass", (p) => { if (p && p.text === text && p.chat === chat) { off(); resolve(p); } });
  });
  box.value = text;
  document.querySelector('[data-role="ask-chat"]').checked = chat;
  box.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", bubbles: true}));
  return (await got).ids;
}"""

# Sets the length, the writers ticked and the sampling settings, presses Write and waits for the end;
# returns each writer's tokens, engine ms, ids and reason for stopping, and the wall time.
WRITE = """async ([length, writers, sampling]) => {
  const root = document.querySelector('.nt-demo[data-demo="real-writers"]');
  if (sampling) nexttoken.store.set("real.sampling", sampling);
  root.querySelector('[data-role="length"]').value = String(length);
  for (const box of root.querySelectorAll('.nt-check input')) {
    const name = box.parentNode.querySelector("label").textContent;
    box.checked = writers.includes({"Greedy": "greedy", "Sampling": "sample", "Beam search": "beam"}[name]);
  }
  const t0 = performance.now();
  root.querySelector('[data-role="write"]').click();
  await new Promise((resolve) => {
    const check = () => root.hasAttribute("data-done") ? resolve() : setTimeout(check, 20);
    check();
  });
  const out = {wall_ms: performance.now() - t0, message: root.querySelector(".nt-msg").textContent};
  for (const w of writers) {
    const box = root.querySelector(`[data-writer="${w}"]`);
    out[w] = {tokens: Number(box.dataset.tokens), ms: Number(box.dataset.ms), ids: JSON.parse(box.dataset.ids || "[]"),
              why: box.dataset.why, text: box.querySelector('[data-role="text"]').textContent};
  }
  return out;
}"""

RUNS = [("greedy alone", ["greedy"]), ("sampling alone", ["sample"]), ("beam search alone", ["beam"]),
        ("side by side", ["greedy", "sample", "beam"])]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def measure(tokens: int) -> dict:
    from playwright.sync_api import sync_playwright

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page()
            page.set_default_timeout(1_800_000)
            page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/{PAGE}")
            t0 = time.perf_counter()
            ids = page.evaluate(OPEN_MODEL, [PROMPT, False])
            load = time.perf_counter() - t0
            runs = {}
            for label, writers in RUNS:
                runs[label] = page.evaluate(WRITE, [tokens, writers, SAMPLING])
            browser.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    return {"load_s": load, "prompt_tokens": len(ids), "runs": runs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=24, help="new tokens per writer (1 to 64)")
    args = ap.parse_args()
    require("bench_writers", site_page=PAGE, modules=("playwright",), chromium=True)
    if not (SITE / "js" / "data" / "real" / "smollm2" / "manifest.js").is_file():
        raise SystemExit("error: build/site/js/data/real/smollm2/ not found (run `make site`, not `make site MODEL=none`)")
    got = measure(args.tokens)
    rows = []
    for label, writers in RUNS:
        r = got["runs"][label]
        if r["message"]:
            raise SystemExit(f"error: the writers said: {r['message']}")
        each = {w: {"tokens": r[w]["tokens"], "ms": r[w]["ms"], "tokens_per_s": r[w]["tokens"] / (r[w]["ms"] / 1e3), "why": r[w]["why"]}
                for w in writers}
        total = sum(e["tokens"] for e in each.values())
        rows.append({"run": label, "writers": each, "wall_ms": r["wall_ms"], "wall_tokens_per_s": total / (r["wall_ms"] / 1e3)})
    res = {"prompt": PROMPT, "prompt_tokens": got["prompt_tokens"], "tokens": args.tokens, "sampling": SAMPLING,
           "load_s": got["load_s"], "cpu_count": os.cpu_count(), "load_average": os.getloadavg(), "runs": rows}
    alone = {w: rows[i]["writers"][w]["tokens_per_s"] for i, w in enumerate(["greedy", "sample", "beam"])}
    side = rows[3]["writers"]
    # beam search decodes BEAMS rows per token: its rate against greedy's is the price of the beams
    res["beam_vs_greedy_alone"] = alone["beam"] / alone["greedy"]
    write_json_atomic(OUT, res)
    print(f"SmolLM2-135M writers in Chromium, prompt {PROMPT!r} ({got['prompt_tokens']} tokens), up to {args.tokens} new tokens each, "
          f"load average {res['load_average'][0]:.2f} on {os.cpu_count()} CPUs; model opened in {got['load_s']:.1f} s")
    print(f"{'tokens/s (own engine time)':28} {'alone':>8} {'side by side':>13}")
    for w, name in [("greedy", "greedy"), ("sample", "sampling"), ("beam", "beam search (3 beams)")]:
        print(f"{name:28} {alone[w]:8.2f} {side[w]['tokens_per_s']:13.2f}")
    for r in rows:
        ended = ", ".join(f"{w} {e['tokens']} tokens, {e['why']}" for w, e in r["writers"].items())
        print(f"{r['run']:28} wall {r['wall_ms'] / 1e3:6.1f} s, {r['wall_tokens_per_s']:.2f} tokens/s in all ({ended})")
    print(f"beam search alone runs at {res['beam_vs_greedy_alone']:.2f} x greedy's rate")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
