"""Playwright visits in Debian's chromium: axe-core, requests, page weight and demo start-up."""
from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from scripts.quality.read_through import DONE, READ_THROUGH
from scripts.quality.report.config import AXE_JS, BLOCKED, CHROMIUM, CHROMIUM_ARGS, DEMO_FALLBACK, DEMO_READY, DEMO_ROOT, NO_DNS
from scripts.quality.report.render import _kb
from scripts.quality.report.weight import classify_request, page_weight

# ---- Playwright visits -------------------------------------------------------------------------------
INIT_SCRIPT = """
(() => {
  const w = window;
  w.__report = {ready: null, filled: null};
  const check = () => {
    const r = w.__report, now = performance.now();
    if (r.ready === null && document.querySelector(%(ready)s)) r.ready = now;
    if (r.filled === null) {
      for (const el of document.querySelectorAll(%(fallback)s)) {
        if (el.textContent.trim()) { r.filled = now; break; }
      }
    }
  };
  new MutationObserver(check).observe(document, {subtree: true, childList: true, attributes: true,
                                                 characterData: true});
  document.addEventListener("DOMContentLoaded", check);
})();
""" % {"ready": json.dumps(DEMO_READY), "fallback": json.dumps(DEMO_FALLBACK)}


def visit(browser, url: str, *, run_axe: bool, routed: bool = True, settle_ms: int = 3000,
          scheme: str = "light") -> dict:
    """Load `url` in a fresh context; return requests, external ones (aborted), demo times, axe, errors.

    routed=False (the extra timing loads) skips the request routing and listeners: only the times count.
    scheme="dark" emulates prefers-color-scheme: dark, which Material follows with its slate palette.
    """
    context = browser.new_context(color_scheme=scheme)
    requests: list[str] = []
    external: list[str] = []
    problems: list[dict] = []
    recording = [True]  # off once axe is injected: its CSSOM preload XHRs stylesheets, blocked from file://

    def note(kind: str, detail: str) -> None:
        if recording[0]:
            problems.append({"kind": kind, "detail": detail})

    def route(r):
        if classify_request(r.request.url) == "external":
            external.append(r.request.url)
            r.abort("blockedbyclient")
        else:
            r.continue_()

    if routed:
        context.route("**/*", route)
    context.on("request", lambda req: requests.append(req.url))

    def on_failed(req):
        if (classify_request(req.url) == "local" and not req.url.startswith(("data:", "blob:"))
                and BLOCKED not in (req.failure or "")):
            note("failed request", f"{req.url} ({req.failure})")

    def on_response(resp):
        if resp.status >= 400 and classify_request(resp.url) == "local":
            note(f"HTTP {resp.status}", resp.url)

    context.on("requestfailed", on_failed)
    context.on("response", on_response)
    context.add_init_script(INIT_SCRIPT)
    context.add_init_script(READ_THROUGH)  # demos build near the screen: bring each into view, as a reader would
    page = context.new_page()
    def on_console(msg):  # the aborts of external requests are reported as such, not again as errors
        if msg.type == "error" and BLOCKED not in msg.text:
            note("console error", msg.text)

    page.on("console", on_console)
    page.on("pageerror", lambda e: note("page error", str(e)))
    result: dict[str, Any] = {}
    try:
        page.goto(url, wait_until="load", timeout=30000)
        demos = page.evaluate(f"() => document.querySelectorAll({json.dumps(DEMO_ROOT)}).length")
        if demos:
            try:
                page.wait_for_function("() => window.__report.ready !== null || window.__report.filled !== null",
                                       timeout=settle_ms)
            except Exception:
                pass
        try:
            page.wait_for_load_state("networkidle", timeout=5000)
        except Exception:
            pass
        page.wait_for_timeout(300)  # late worker/font requests
        timing = page.evaluate("""() => {
            const nav = performance.getEntriesByType("navigation")[0] || {};
            return Object.assign({}, window.__report, {dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd});
        }""")
        result.update(demos=demos, ready_ms=timing.get("ready"), filled_ms=timing.get("filled"),
                      dcl_ms=timing.get("dcl"), load_ms=timing.get("load"))
        if run_axe:
            page.wait_for_function(DONE, timeout=30000)  # axe audits the built demos, not their fallbacks
            recording[0] = False
            page.add_script_tag(path=str(AXE_JS))
            axe = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
            result["axe"] = [{"id": v["id"], "impact": v.get("impact"), "help": v.get("help"),
                              "nodes": len(v.get("nodes", [])),
                              "targets": [" ".join(map(str, n.get("target", []))) for n in v.get("nodes", [])[:5]]}
                             for v in axe["violations"]]
    except Exception as exc:  # a page that does not load is itself a finding
        problems.append({"kind": "load failed", "detail": str(exc).splitlines()[0]})
    finally:
        context.close()
    result.update(requests=requests, external=external, problems=problems)
    return result


def browser_checks(site: Path, pages: list[str], base: str, repeat: int, log) -> dict:
    from playwright.sync_api import sync_playwright

    out: dict[str, Any] = {"weight": {}, "demo": {}, "axe": [], "external": [], "problems": []}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS + [NO_DNS])
        out["chromium"] = browser.version
        # one discarded load per mode first, so that no page pays for the browser's own start-up
        if pages:
            visit(browser, base + pages[0], run_axe=False, routed=False)
            visit(browser, (site / pages[0]).resolve().as_uri(), run_axe=False, routed=False)
        for name in pages:
            times: dict[str, list[float]] = {"served": [], "file": []}
            signal = None
            demos = 0
            dcl: list[float] = []
            for mode, url in (("served", base + name), ("file", (site / name).resolve().as_uri())):
                r = visit(browser, url, run_axe=True)
                demos = max(demos, r.get("demos", 0))
                for rule in r.get("axe", []):
                    out["axe"].append({"page": name, "mode": mode, **rule})
                out["external"] += [{"page": name, "mode": mode, "url": u} for u in r["external"]]
                out["problems"] += [{"page": name, "mode": mode, **p} for p in r["problems"]]
                if mode == "served":
                    out["weight"][name] = page_weight(r["requests"], site, base)
                    # the dark scheme is audited too: its colours are designed separately
                    for rule in visit(browser, url, run_axe=True, scheme="dark").get("axe", []):
                        out["axe"].append({"page": name, "mode": "served, dark", **rule})
                # the start-up figure comes from unrouted loads only (routing adds a round trip a request)
                # (skipped when the audit load saw no signal within 3 s: it would only wait again)
                answered = r.get("ready_ms") is not None or r.get("filled_ms") is not None
                runs = ([visit(browser, url, run_axe=False, routed=False) for _ in range(repeat)]
                        if r.get("demos") and answered else [])
                for run in runs:
                    if mode == "served" and run.get("dcl_ms") is not None:
                        dcl.append(run["dcl_ms"])
                    t = run.get("ready_ms")
                    sig = "data-ready" if t is not None else None
                    if t is None and run.get("filled_ms") is not None:
                        t, sig = run["filled_ms"], "output filled (fallback)"
                    if t is not None:
                        times[mode].append(t)
                        signal = signal or sig
            served = round(statistics.median(times["served"]), 1) if times["served"] else None
            filed = round(statistics.median(times["file"]), 1) if times["file"] else None
            out["demo"][name] = {"demos": demos, "served_ms": served, "file_ms": filed, "signal": signal,
                                 "served_runs": [round(t, 1) for t in times["served"]],
                                 "file_runs": [round(t, 1) for t in times["file"]],
                                 "dcl_ms": round(statistics.median(dcl), 1) if dcl else None}
            w = out["weight"].get(name, {})
            log(f"  {name}: {_kb(w.get('bytes'))} KB, demos {demos} ready {served} ms / {filed} ms, "
                f"axe {sum(1 for v in out['axe'] if v['page'] == name)} rules, "
                f"external {sum(1 for e in out['external'] if e['page'] == name)}")
        browser.close()
    return out


