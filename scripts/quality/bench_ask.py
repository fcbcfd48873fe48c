"""Benchmark of the "Ask the real model" panel: printed figures and build/report/bench_ask.json, no
targets asserted (the target: everything redrawn under a temperature change in under 16 ms).

    python -m scripts.quality.bench_ask    # needs build/site with SmolLM2's copy (`make site`) and chromium

In Chromium over a local http server, 1280-px window, after the model has loaded:
- Enter to bars: from the Enter key in the prompt box to the live bars drawn (the pass, with the lens
  and every head's weights as the panel asks, then the 49,152 logits sorted, the softmax, the cuts,
  the canvas and the top list), for a 6-token and a 100-token prompt, the median of RUNS;
- the pass alone, with and without the lens and heads (session.prefill straight, the same ids);
- the panel's own 6-token pass with the inside view off screen (the lens and heads not computed) and
  on screen (computed), and, in the same run, transformers' forward pass on the same ids (CPU, float32,
  eager attention) when the pipeline's packages are installed;
- a temperature change with the live pass shown: every probability recomputed, the cuts, the draw,
  the canvas and the list (median and largest of 30);
- a knock-out (a head switched off) in block 0, 15 and 29 against a full pass with it, on 100 and
  500 tokens with the lens and heads (session.prefill: the engine's rerun, opts.keep and reuse, as
  the panel runs it up to 256 tokens and a sweep's slot at any length, and a full prefill in a
  spare slot), median of RUNS; the target: a knock-out in block L costs at most
  (30 - L) / 30 of a full pass plus 10 %. Also the reader's wait in the panel on 100 tokens: from the
  knock-out set (as the inside view sets it) to its pass published;
- memory at the panel's limit: the renderers' peak unique memory (USS) of the whole page while a
  1,024-token prompt runs and is rerun with a knock-out in block 15 as the panel runs them, against
  the page with the model loaded and a short prompt;
- the engine alone on the bare harness page (bench_real's measure of the 400 MB target): the
  renderers' peak USS at 256 tokens with the inputs kept (the panel keeps them up to 256), at 512
  with and without them, and at the 1,024-token limit without them; Chromium driven without
  Playwright (bare_chromium.py), whose DevTools would hold a copy of every chunk file.
--before SITE measures a site built from another commit (its own `make site`) first, in the same run,
for the knock-out and memory figures, so both share the machine's load; --only knockout skips the
other figures, --only memory runs only the engine's memory. The machine's load average is printed
with the figures: timings on a shared machine are noisy.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

from scripts.core.io import ROOT
from scripts.quality.bare_chromium import BareChromium
from scripts.quality.needs import chromium_path, require

SITE = ROOT / "build" / "site"
OUT = ROOT / "build" / "report" / "bench_ask.json"
RUNS = int(os.environ.get("BENCH_ASK_RUNS", "3"))  # fewer on a busy machine: each 100-token pass takes seconds
# 6 and 100 tokens (checked against the page's tokenizer below)
PROMPTS = {6: "The lighthouse keeper walked home slowly",
           100: " ".join(["The old sailor told the children a long story about the sea, the storms and the stars"] * 6)[:476]}

ENTER_JS = """async (text) => {
  const box = document.querySelector('[data-role=ask-prompt]');
  document.querySelector('[data-role=ask-chat]').checked = false;
  const drawn = new Promise(res => { const off = nexttoken.store.subscribe('real.pass', p => {
    if (p && p.text === text) { off(); res(performance.now()); } }); });  // after the bars' own subscriber drew
  box.value = text;
  const t0 = performance.now();
  box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
  const t1 = await drawn, p = nexttoken.store.get('real.pass');
  return {ms: t1 - t0, pass_ms: p.ms, tokens: p.ids.length};
}"""

PASS_JS = """async ([text, full]) => {
  const llm = nexttoken.store.get('real.model'), enc = llm.tokenizer.encode(text, {});
  const t0 = performance.now();
  await llm.session.prefill(enc.ids, full ? {lens: true, heads: true} : {});
  return performance.now() - t0;
}"""

TEMPERATURE_JS = """(runs) => {
  const root = document.querySelector('.nt-demo[data-demo="real-distribution"]');
  const lab = [...root.querySelectorAll('label')].find(l => l.textContent.startsWith('Temperature'));
  const t = document.getElementById(lab.htmlFor), canvas = root.querySelector('canvas'), out = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    t.value = String(i % 2 ? 0.7 : 1.4);
    t.dispatchEvent(new Event('input'));
    canvas.getContext('2d').getImageData(0, 0, 1, 1);  // wait for the drawing to finish
    out.push(performance.now() - start);
  }
  return {ms: out, source: root.getAttribute('data-source')};
}"""


INSIDE_JS = """async (open) => {
  const root = document.querySelector('.nt-demo[data-demo="real-inside"]');
  if (open) root.scrollIntoView(); else window.scrollTo(0, 0);
  const want = () => { const w = nexttoken.store.get('real.inside'); return open ? !!w : !w; };
  while (!want()) await new Promise(r => setTimeout(r, 50));
  return nexttoken.store.get('real.inside') || null;
}"""


# A knock-out of one head in each block of `layers` on n tokens (a sentence's, repeated), against a full
# pass with it: the panel's rerun (keep and reuse, from the pass without it) and a full prefill in slot 6.
KNOCKOUT_JS = """async ([text, n, layers, runs]) => {
  const llm = nexttoken.store.get('real.model'), s = llm.session, one = llm.tokenizer.encode(text, {}).ids, ids = [];
  while (ids.length < n) ids.push(...one);
  ids.length = n;
  const show = {final: true, lens: true, heads: true}, keep = {...show, keep: true, reuse: true};
  const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1], out = {tokens: ids.length};
  await s.prefill(ids, keep);
  for (const L of layers) {
    const rerun = [], full = [], knockout = {heads: [[L, 0]], mlp: []};
    let from = null;
    for (let i = 0; i < runs; i++) {
      await s.prefill(ids, keep);  // back to no knock-out
      let t0 = performance.now();
      const r = await s.prefill(ids, {...keep, knockout});
      rerun.push(performance.now() - t0);
      from = r.from === undefined ? null : r.from;
      t0 = performance.now();
      await s.prefill(ids, {...show, knockout, slot: 6});
      full.push(performance.now() - t0);
    }
    out[L] = {knockout_ms: med(rerun), full_ms: med(full), from};
  }
  return out;
}"""

# The reader's wait: the knock-out set in the store, as the inside view sets it, to the panel's pass
# published with it (the bars drawn), then back to none; median of runs.
PANEL_KNOCKOUT_JS = """async ([layers, runs]) => {
  const store = nexttoken.store, med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1], out = {};
  const set = (k) => new Promise((res) => {
    const t0 = performance.now(), want = JSON.stringify(k);
    const off = store.subscribe('real.pass', (p) => { if (p && JSON.stringify({heads: p.knockout.heads, mlp: p.knockout.mlp}) === want) { off(); res(performance.now() - t0); } });
    store.set('real.knockout', k);
  });
  for (const L of layers) {
    const got = [];
    for (let i = 0; i < runs; i++) { got.push(await set({heads: [[L, 0]], mlp: []})); await set({heads: [], mlp: []}); }
    out[L] = med(got);
  }
  return out;
}"""

# The panel at its limit: a 1,024-token prompt (a sentence's tokens, repeated) as the panel runs it (its
# inputs not kept: real-ask.js keeps them up to 256 tokens), then a knock-out in block 15.
LIMIT_JS = """async (text) => {
  const llm = nexttoken.store.get('real.model'), s = llm.session, one = llm.tokenizer.encode(text, {}).ids, ids = [];
  while (ids.length < 1024) ids.push(...one);
  ids.length = 1024;
  const show = {final: true, lens: true, heads: true, keep: false, reuse: true};
  await s.prefill(ids, show);
  await s.prefill(ids, {...show, knockout: {heads: [[15, 0]]}});
  return ids.length;
}"""


# The engine alone at the panel's limit, on the bare harness page (bench_real's): the model loaded, then
# a 1,024-token prompt with the lens, heads and (where the engine has it) the inputs kept, then a
# knock-out in block 15. Returns the ids' count; the renderers' memory is read around it.
HARNESS_OPEN_JS = """async () => {
  window.nt_session = await nexttoken.real.workers.open({base: "js/data/real/", model: "smollm2"});
  return window.nt_session.kernels;
}"""
HARNESS_LIMIT_JS = """async ([n, keep]) => {
  const s = window.nt_session, ids = [];
  while (ids.length < n) ids.push(...[504, 3575, 282, 4649, 314, 253, 1345, 30, 1014, 11, 418, 3296]);
  ids.length = n;
  const show = {final: true, lens: true, heads: true, keep, reuse: true};
  await s.prefill(ids, show);
  await s.prefill(ids, {...show, knockout: {heads: [[15, 0]]}});
  return ids.length;
}"""


MEMORY_CASES = [(256, True), (512, True), (512, False), (1024, False)]  # the panel keeps inputs up to 256 tokens (real-ask.js KEEP_MAX)


def engine_memory(site: Path, work: str) -> dict:
    """Renderer USS (MB) of the harness page running `site`'s engine, each case in a fresh browser: bare,
    the model loaded, and the peak while n tokens run with the inputs kept or not. Chromium is driven
    bare (bare_chromium.py): under Playwright its DevTools would keep a copy of every chunk file."""
    out = {}
    for n, keep in MEMORY_CASES:
        root = Path(tempfile.mkdtemp(prefix="harness-", dir=work))
        shutil.copy(ROOT / "scripts" / "quality" / "real_harness.html", root / "index.html")
        shutil.copytree(site / "js" / "real", root / "js" / "real")
        shutil.copy(site / "js" / "nexttoken.js", root / "js" / "nexttoken.js")
        (root / "js" / "data").mkdir()
        (root / "js" / "data" / "real").symlink_to((site / "js" / "data" / "real").resolve())
        profile = str(root / "profile")
        with BareChromium(chromium_path(), profile, (root / "index.html").as_uri()) as page:
            bare = renderer_memory(profile)
            page.evaluate(HARNESS_OPEN_JS)
            time.sleep(1)
            loaded = renderer_memory(profile)
            peak, stop = [loaded], threading.Event()

            def watch():
                while not stop.is_set():
                    peak[0] = max(peak[0], renderer_memory(profile))
                    time.sleep(0.2)

            thread = threading.Thread(target=watch, daemon=True)
            thread.start()
            page.evaluate(HARNESS_LIMIT_JS, [n, keep])
            stop.set()
            thread.join()
        out[f"{n} {'kept' if keep else 'not kept'}"] = {"bare": bare / 1e6, "loaded": loaded / 1e6, "peak": peak[0] / 1e6}
    return out


def renderer_memory(profile: str) -> int:
    """Unique bytes (USS) of the Chromium renderers started with this profile (bench_real's measure)."""
    from scripts.quality.bench_real import renderer_memory as uss

    return uss(profile)


def knockout_figures(page, profile: str) -> dict:
    """The knock-out figures and memory at the panel's limit of the page's loaded model."""
    long = "The old sailor told the children a long story about the sea, the storms and the stars. "
    out = {"session": {n: page.evaluate(KNOCKOUT_JS, [long, n, LAYERS, RUNS]) for n in (100, 500)}}
    page.evaluate(INSIDE_JS, True)  # the knock-out comes from the inside view: the panel's pass computes the lens and heads
    page.wait_for_selector('.nt-demo[data-demo="real-ask"]:not([data-busy])')
    page.evaluate(ENTER_JS, PROMPTS[100])
    out["panel_100_ms"] = page.evaluate(PANEL_KNOCKOUT_JS, [LAYERS, RUNS])
    idle = renderer_memory(profile)
    peak, stop = [idle], threading.Event()

    def watch():
        while not stop.is_set():
            peak[0] = max(peak[0], renderer_memory(profile))
            time.sleep(0.2)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    out["limit_tokens"] = page.evaluate(LIMIT_JS, long)
    stop.set()
    thread.join()
    out["memory_mb"] = {"loaded": idle / 1e6, "peak_at_limit": peak[0] / 1e6}
    return out


def open_model(page) -> float:
    """Loads the model through the panel and lets the stored prompt's pass end; returns the ms."""
    page.wait_for_selector('.nt-demo[data-demo="real-distribution"][data-loaded]')
    t0 = page.evaluate("performance.now()")
    page.click('[data-role="ask-load"]')
    page.wait_for_selector('.nt-demo[data-demo="real-ask"][data-real-model]')
    ms = page.evaluate("performance.now()") - t0
    # the stored prompt on show runs live once loaded: let it finish before timing anything
    page.wait_for_selector('.nt-demo[data-demo="real-ask"][data-pass]:not([data-busy])')
    return ms


def on_site(site: Path, work):
    """A Chromium page on `site` over a local http server: yields (page, profile)."""
    from contextlib import contextmanager

    from playwright.sync_api import sync_playwright

    @contextmanager
    def opened():
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        profile = tempfile.mkdtemp(prefix="bench-ask-", dir=work)
        try:
            with sync_playwright() as pw:
                ctx = pw.chromium.launch_persistent_context(profile, executable_path=chromium_path(), headless=True,
                                                            args=["--no-sandbox"], viewport={"width": 1280, "height": 900})
                page = ctx.new_page()
                page.set_default_timeout(900_000)
                page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/real-models.html", wait_until="load")
                yield page, profile
                ctx.close()
        finally:
            httpd.shutdown()
            httpd.server_close()
    return opened()


def show_knockouts(name: str, k: dict) -> None:
    for n, rows in k["session"].items():
        for L in LAYERS:
            r = rows[str(L)] if str(L) in rows else rows[L]
            target = (30 - L) / 30 + 0.1
            print(f"{name:10} {rows['tokens']:4d} tokens, block {L:2d}: knock-out {r['knockout_ms']:7.0f} ms, full pass {r['full_ms']:7.0f} ms, "
                  f"ratio {r['knockout_ms'] / r['full_ms']:.2f} (target <= {target:.2f}; reran from block {r['from']})")
    print(f"{name:10} the panel, 100 tokens, knock-out to bars: "
          + ", ".join(f"block {L} {k['panel_100_ms'][str(L)] if str(L) in k['panel_100_ms'] else k['panel_100_ms'][L]:.0f} ms" for L in LAYERS))
    m = k["memory_mb"]
    print(f"{name:10} memory (renderers' USS): {m['loaded']:.0f} MB with the model loaded, peak {m['peak_at_limit']:.0f} MB "
          f"while {k['limit_tokens']} tokens and a knock-out ran as the panel runs them (the whole page)")


def transformers_ms(text: str, runs: int) -> float | None:
    """transformers' forward pass on the page tokenizer's ids for `text`, median of `runs` (None without torch)."""
    try:
        import torch
        from scripts.core.io import read_json
        from scripts.real import loading
        from scripts.site import real_js
    except ImportError:
        return None
    import time
    model, tok, _, _ = loading.load("smollm2", read_json(real_js.CONFIG)["models"]["smollm2"])
    ids = torch.tensor([tok.encode(text, add_special_tokens=False)])
    out = []
    with torch.no_grad():
        model(ids, use_cache=False)  # warm
        for _ in range(runs):
            t0 = time.perf_counter()
            model(ids, use_cache=False)
            out.append((time.perf_counter() - t0) * 1000)
    return statistics.median(out)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


LAYERS = [0, 15, 29]


def panel_figures(page, report: dict) -> None:
    """The panel's own figures (Enter to bars, the passes, the inside view, a temperature change)."""
    for n, text in PROMPTS.items():
        got = [page.evaluate(ENTER_JS, text) for _ in range(RUNS)]
        assert got[0]["tokens"] == n, (n, got[0]["tokens"])
        full = [page.evaluate(PASS_JS, [text, True]) for _ in range(RUNS)]
        bare = [page.evaluate(PASS_JS, [text, False]) for _ in range(RUNS)]
        rec = {"enter_to_bars_ms": statistics.median(g["ms"] for g in got),
               "pass_lens_heads_ms": statistics.median(full), "pass_bare_ms": statistics.median(bare)}
        rec["drawing_ms"] = rec["enter_to_bars_ms"] - statistics.median(g["pass_ms"] for g in got)
        report[f"prompt_{n}"] = rec
        print(f"{n} tokens: Enter to bars {rec['enter_to_bars_ms']:.0f} ms (median of {RUNS}); the pass with lens and heads "
              f"{rec['pass_lens_heads_ms']:.0f} ms, without {rec['pass_bare_ms']:.0f} ms; after the pass, sorting and drawing "
              f"{rec['drawing_ms']:.0f} ms")
    # the panel's pass as a reader meets it: the inside view off screen, then on screen
    views = {}
    for open_ in (False, True):
        page.evaluate(INSIDE_JS, open_)
        page.wait_for_selector('.nt-demo[data-demo="real-ask"]:not([data-busy])')
        views["open" if open_ else "closed"] = statistics.median(page.evaluate(ENTER_JS, PROMPTS[6])["pass_ms"] for _ in range(RUNS))
    report["prompt_6"]["panel_pass_inside_closed_ms"] = views["closed"]
    report["prompt_6"]["panel_pass_inside_open_ms"] = views["open"]
    report["prompt_6"]["transformers_ms"] = tf = transformers_ms(PROMPTS[6], RUNS)
    print(f"6 tokens, the panel's pass: inside view closed {views['closed']:.0f} ms, open {views['open']:.0f} ms "
          f"(before this change every pass computed the lens and heads: {report['prompt_6']['pass_lens_heads_ms']:.0f} ms); "
          + (f"transformers {tf:.0f} ms" if tf is not None else "transformers not installed"))
    page.evaluate("() => window.scrollTo(0, 0)")
    page.evaluate(ENTER_JS, PROMPTS[6])
    temp = page.evaluate(TEMPERATURE_JS, 30)
    report["temperature_ms"] = {"median": statistics.median(temp["ms"]), "max": max(temp["ms"]), "shown": temp["source"]}
    print(f"temperature change, {temp['source']} pass (49,152 bars recomputed and drawn): median "
          f"{report['temperature_ms']['median']:.1f} ms, largest {report['temperature_ms']['max']:.1f} ms of 30 (target 16 ms)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, help="a site built from another commit: its knock-out and memory figures, first, in the same run")
    ap.add_argument("--only", choices=("knockout", "memory"), help="only the knock-out and memory figures, or only the engine's memory")
    args = ap.parse_args()
    require("bench_ask", site_page="js/data/real/smollm2/manifest.js", modules=("playwright", "psutil"), chromium=True)
    if args.before and not (args.before / "js" / "data" / "real" / "smollm2" / "manifest.js").is_file():
        raise SystemExit(f"error: {args.before}/js/data/real/smollm2/ not found (build that site with `make site`)")
    report = {"load_average": [os.getloadavg()], "runs": RUNS}
    work = tempfile.mkdtemp(prefix="bench-ask-")
    try:
        if args.before and args.only != "memory":
            with on_site(args.before, work) as (page, profile):
                open_model(page)
                report["before"] = {"site": str(args.before), "knockout": knockout_figures(page, profile)}
        if args.only != "memory":
            with on_site(SITE, work) as (page, profile):
                report["load_ms"] = open_model(page)
                print(f"load: {report['load_ms'] / 1000:.1f} s (the button to the text box open)")
                if args.only != "knockout":
                    panel_figures(page, report)
                report["knockout"] = knockout_figures(page, profile)
        report["engine_memory"] = {"this site": engine_memory(SITE, work)}
        if args.before:
            report["engine_memory"]["before"] = engine_memory(args.before, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report["load_average"].append(os.getloadavg())
    if "before" in report:
        show_knockouts("before", report["before"]["knockout"])
    if "knockout" in report:
        show_knockouts("this site", report["knockout"])
    for name, m in report["engine_memory"].items():
        first = next(iter(m.values()))
        print(f"{name:10} the engine alone (harness page, renderers' USS): bare page {first['bare']:.0f} MB, model loaded "
              f"{first['loaded']:.0f} MB; peak with the lens, heads and a knock-out: "
              + ", ".join(f"{case} tokens' inputs {r['peak']:.0f} MB" for case, r in m.items()) + " (target 400 MB)")
    print("load average (1, 5, 15 min) at the start: " + ", ".join(f"{x:.2f}" for x in report["load_average"][0])
          + "; at the end: " + ", ".join(f"{x:.2f}" for x in report["load_average"][1]))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
