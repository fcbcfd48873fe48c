"""Benchmark of the real-models page's three writers (docs/js/demos/real-writers.js) in Chromium: the
time from Write to the last token of greedy alone and of the three writers together (greedy,
sampling and beam search, whose tokens the engine reads in one call a step: runtime/decoding.js,
engine.js step), for 16 and 64 new tokens, on one prompt. Printed and written to
build/report/bench_writers.json; no target is asserted (the target: the three writers take at most 2x
greedy alone).

    python -m scripts.quality.bench_writers [--tokens 16,64] [--before SITE]   # after `make site`; needs chromium

The page is the built site's real-models.html over a local http server. The model is opened as the
panel above the writers opens it (OPEN_MODEL: its load button, then the prompt typed and Enter,
which publishes the store's "real.model" and "real.pass"), and each run presses Write (WRITE). The
time runs from Write to the last token, the prompt's pass included (its last token: the panel's
cache holds the rest); each writer's tokens per second are over the rounds it took part in. With
--before, a site built from another commit (its own `make site`) is measured first, in the same
run, so the two sets of figures share the machine's load.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import os
import threading
import time
from pathlib import Path

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

RUNS = [("greedy alone", ["greedy"]), ("beam search alone", ["beam"]), ("the three writers", ["greedy", "sample", "beam"])]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def measure(site: Path, lengths: list[int]) -> dict:
    from playwright.sync_api import sync_playwright

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page()
            page.set_default_timeout(1_800_000)
            page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/{PAGE}")
            writers = '.nt-demo[data-demo="real-writers"]'  # a demo built as it nears the screen
            page.locator(writers).scroll_into_view_if_needed()
            page.wait_for_selector(f"{writers}[data-ready]")
            t0 = time.perf_counter()
            ids = page.evaluate(OPEN_MODEL, [PROMPT, False])
            load = time.perf_counter() - t0
            runs = {}
            for tokens in lengths:
                for label, writers in RUNS:
                    runs[f"{label}, {tokens}"] = page.evaluate(WRITE, [tokens, writers, SAMPLING])
            browser.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    return {"load_s": load, "prompt_tokens": len(ids), "runs": runs}


def table(got: dict, lengths: list[int]) -> dict:
    """{tokens: {run: {wall_ms, writers: {name: {tokens, tokens_per_s, why}}}}} of one site's runs."""
    out = {}
    for tokens in lengths:
        out[tokens] = {}
        for label, writers in RUNS:
            r = got["runs"][f"{label}, {tokens}"]
            if r["message"]:
                raise SystemExit(f"error: the writers said: {r['message']}")
            out[tokens][label] = {"wall_ms": r["wall_ms"], "writers": {
                w: {"tokens": r[w]["tokens"], "tokens_per_s": r[w]["tokens"] / (r[w]["ms"] / 1e3), "why": r[w]["why"], "ids": r[w]["ids"]}
                for w in writers}}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", default="16,64", help="comma-separated new tokens per writer (1 to 64; default 16,64)")
    ap.add_argument("--before", type=Path, help="a site built from another commit, measured first in the same run")
    args = ap.parse_args()
    try:
        lengths = [int(n) for n in args.tokens.split(",")]
    except ValueError:
        raise SystemExit(f"error: --tokens wants whole numbers separated by commas, not {args.tokens!r}")
    if not lengths or min(lengths) < 1 or max(lengths) > 64:
        raise SystemExit(f"error: --tokens wants lengths from 1 to 64, not {args.tokens!r}")
    require("bench_writers", site_page=PAGE, modules=("playwright",), chromium=True)
    sites = ([("before", args.before)] if args.before else []) + [("this site", SITE)]
    for _, site in sites:
        if not (site / "js" / "data" / "real" / "smollm2" / "manifest.js").is_file():
            raise SystemExit(f"error: {site}/js/data/real/smollm2/ not found (run `make site`, not `make site MODEL=none`)")
    load = [os.getloadavg()]
    got = {name: measure(site, lengths) for name, site in sites}
    load.append(os.getloadavg())
    res = {"prompt": PROMPT, "sampling": SAMPLING, "cpu_count": os.cpu_count(), "load_average": load, "sites": {}}
    print(f"SmolLM2-135M writers in Chromium, prompt {PROMPT!r} ({got['this site']['prompt_tokens']} tokens), "
          f"{os.cpu_count()} CPUs, load average {load[0][0]:.2f} at the start, {load[1][0]:.2f} at the end")
    print(f"{'':14}{'tokens':>7} {'greedy alone':>13} {'beam alone':>11} {'three writers':>14} {'three / greedy':>15}  (Write to the last token, s; target <= 2.00)")
    for name, site in sites:
        t = table(got[name], lengths)
        res["sites"][name] = {"site": str(site), "load_s": got[name]["load_s"], "runs": t}
        for tokens in lengths:
            g, b, three = (t[tokens][label]["wall_ms"] / 1e3 for label, _ in RUNS)
            print(f"{name:14}{tokens:7d} {g:13.1f} {b:11.1f} {three:14.1f} {three / g:15.2f}")
    if len(sites) == 2:  # the same searches: the same texts on both sites
        same = all(res["sites"]["before"]["runs"][n][label]["writers"][w]["ids"] == res["sites"]["this site"]["runs"][n][label]["writers"][w]["ids"]
                   for n in lengths for label, writers in RUNS for w in writers)
        print("the texts of every run: " + ("the same on both sites" if same else "DIFFERENT between the sites"))
        res["same_texts"] = same
    last = res["sites"]["this site"]["runs"][lengths[-1]]["the three writers"]["writers"]
    print("this site, the three writers at " + f"{lengths[-1]} tokens: " + ", ".join(
        f"{w} {e['tokens']} tokens at {e['tokens_per_s']:.2f} tokens/s ({e['why']})" for w, e in last.items()))
    write_json_atomic(OUT, res)
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
