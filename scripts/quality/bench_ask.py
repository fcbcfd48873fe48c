"""Benchmark of the "Ask the real model" panel: printed figures and build/report/bench_ask.json, no
targets asserted (the target: everything redrawn under a temperature change in under 16 ms).

    python -m scripts.quality.bench_ask    # needs build/site with SmolLM2's copy (`make site`) and chromium

In Chromium over a local http server, 1280-px window, after the model has loaded:
- Enter to bars: from the Enter key in the prompt box to the live bars drawn (the pass, with the lens
  and every head's weights as the panel asks, then the 49,152 logits sorted, the softmax, the cuts,
  the canvas and the top list), for a 6-token and a 100-token prompt, the median of RUNS;
- the pass alone, with and without the lens and heads (session.prefill straight, the same ids);
- a temperature change with the live pass shown: every probability recomputed, the cuts, the draw,
  the canvas and the list (median and largest of 30).
The machine's load average is printed with the figures: timings on a shared machine are noisy.
"""
from __future__ import annotations

import functools
import http.server
import json
import os
import statistics
import threading

from scripts.core.io import ROOT
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
  const drawn = new Promise(res => { const off = nexttoken.store.subscribe('llm.pass', p => {
    if (p && p.text === text) { off(); res(performance.now()); } }); });  // after the bars' own subscriber drew
  box.value = text;
  const t0 = performance.now();
  box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
  const t1 = await drawn, p = nexttoken.store.get('llm.pass');
  return {ms: t1 - t0, pass_ms: p.ms, tokens: p.ids.length};
}"""

PASS_JS = """async ([text, full]) => {
  const llm = nexttoken.store.get('llm'), enc = llm.tokenizer.encode(text, {});
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


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main() -> None:
    require("bench_ask", site_page="js/data/llm/smollm2/manifest.js", modules=("playwright",), chromium=True)
    from playwright.sync_api import sync_playwright

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    report = {"load_average": os.getloadavg(), "runs": RUNS}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(900_000)
            page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/real-models.html", wait_until="load")
            page.wait_for_selector('.nt-demo[data-demo="real-distribution"][data-loaded]')
            t0 = page.evaluate("performance.now()")
            page.click('[data-role="ask-load"]')
            page.wait_for_selector('.nt-demo[data-demo="real-ask"][data-llm]')
            report["load_ms"] = page.evaluate("performance.now()") - t0
            # the stored prompt on show runs live once loaded: let it finish before timing anything
            page.wait_for_selector('.nt-demo[data-demo="real-ask"][data-pass]:not([data-busy])')
            print(f"load: {report['load_ms'] / 1000:.1f} s (the button to the text box open)")
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
            page.evaluate(ENTER_JS, PROMPTS[6])
            temp = page.evaluate(TEMPERATURE_JS, 30)
            report["temperature_ms"] = {"median": statistics.median(temp["ms"]), "max": max(temp["ms"]), "shown": temp["source"]}
            print(f"temperature change, {temp['source']} pass (49,152 bars recomputed and drawn): median "
                  f"{report['temperature_ms']['median']:.1f} ms, largest {report['temperature_ms']['max']:.1f} ms of 30 (target 16 ms)")
            browser.close()
    finally:
        httpd.shutdown()
    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.2f}' for x in report['load_average'])}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
