"""Quality report of the built site: Lighthouse, axe-core, page weight, demo start-up, offline-ness.

    python -m scripts.quality.report                      # every page; writes build/report/report.{json,md}
    python -m scripts.quality.report --skip-lighthouse    # the browser checks only (about a second a page)
    python -m scripts.quality.report --pages index.html --pages attention.html
    python -m scripts.quality.report --preset both        # Lighthouse mobile (the default) and desktop
    python -m scripts.quality.report --with-bench         # run scripts.quality.bench first (minutes: cold build)

It measures build/site as it is (build it first: `make site`). Targets are figures to compare, not
assertions: the report says pass or FAIL for each, exits 0 either way (1 only when it could not
measure), and prints what changed since the previous build/report/report.json.

How each figure is taken (also written at the top of report.md):
- The site is served by a static server on 127.0.0.1 (a random port) that, like GitHub Pages,
  gzips text and sends `Cache-Control: max-age=600`. Lighthouse 12 runs on it one page at a time
  (it refuses file://); the Playwright checks run both on it and from file://.
- Page weight: every local file that Chromium requested while the page loaded (the page, workers
  and frames, until the network is idle), counted once at its size on disk (uncompressed: the
  offline copy is read uncompressed), without the search index. 1 KB = 1,000 bytes.
- Demo start-up: from navigation start (performance.now() = 0) until the first element carrying
  `data-demo` gets a `data-ready` attribute (see DEMO_READY below); median of --repeat fresh loads.
- External requests: every request whose URL is not file:, data:, blob:, about: or on
  127.0.0.1/localhost is counted, then aborted (served and file://).
"""
from __future__ import annotations

import argparse
import datetime as dt
import functools
import gzip
import http.server
import json
import mimetypes
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any, Iterable

from scripts.core.io import BUILD, ROOT, write_json_atomic, write_text_atomic

SITE = ROOT / "build" / "site"
REPORT_DIR = BUILD / "report"
NODE_BIN = ROOT / "node_modules" / ".bin"
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-gpu"]
# A second safety net under the request routing (and the only one in the timing loads, which run
# unrouted so that Playwright's per-request round trip does not inflate the figure): no host but
# the local server resolves.
NO_DNS = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"
BLOCKED = "ERR_BLOCKED_BY_CLIENT"
LH_CATEGORIES = ("performance", "accessibility", "best-practices", "seo")

# Targets: (operator, value). Judged in the report only; no test asserts them.
TARGETS: dict[str, tuple[str, float]] = {
    "lighthouse_performance": (">=", 95),
    "lighthouse_accessibility": (">=", 100),
    "lighthouse_best-practices": (">=", 95),
    "lighthouse_seo": (">=", 90),
    "axe_serious_critical": ("<=", 0),
    "page_weight_kb": ("<", 400),
    "tiny_model_kb": ("<", 60),
    "demo_ready_ms": ("<", 300),
    "external_requests": ("<=", 0),
}
try:  # the build and runtime targets are the lead's, in scripts/quality/bench.py
    from scripts.quality.bench import TARGETS as _BENCH_TARGETS
except Exception:  # pragma: no cover - bench.py missing or broken: report its figures untargeted
    _BENCH_TARGETS = {}
TARGETS.update({key: ("<", value) for key, value in _BENCH_TARGETS.items()})

# The demo start-up signal. A demo's root element carries `data-demo="<name>"`; once its first
# output is on screen the demo sets `data-ready` on that root (any value). FALLBACK (used only when
# no demo on the page sets it) is an output region inside a demo root that has non-empty text.
DEMO_ROOT = "[data-demo]"
DEMO_READY = "[data-demo][data-ready]"
DEMO_FALLBACK = "[data-demo] output, [data-demo] [aria-live]"
SEARCH_INDEX = ("search/search_index.js", "search/search_index.json")
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}
LOCAL_SCHEMES = {"file", "data", "blob", "about", "chrome-error", "devtools"}
KB = 1000

KINDS = ("html", "css", "js", "data", "fonts", "images", "other")
_EXT_KIND = {
    ".html": "html", ".htm": "html", ".css": "css", ".js": "js", ".mjs": "js",
    ".json": "data", ".txt": "data", ".csv": "data", ".bin": "data",
    ".woff": "fonts", ".woff2": "fonts", ".ttf": "fonts", ".otf": "fonts", ".eot": "fonts",
    ".png": "images", ".svg": "images", ".jpg": "images", ".jpeg": "images", ".gif": "images",
    ".webp": "images", ".avif": "images", ".ico": "images",
}


# ---- pure helpers (tested in tests/test_report.py) ----------------------------------------------
def classify_request(url: str) -> str:
    """'local' for file:/data:/blob:/about: URLs and 127.0.0.1/localhost, else 'external'."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in LOCAL_SCHEMES:
        return "local"
    if scheme in ("http", "https", "ws", "wss") and (parts.hostname or "").lower() in LOCAL_HOSTS | {"::1"}:
        return "local"
    return "external"


def find_pages(site: Path) -> list[str]:
    """Every reader-facing HTML page of the site, relative and sorted (no 404, search, assets)."""
    pages = []
    for path in sorted(site.rglob("*.html")):
        name = path.relative_to(site).as_posix()
        top = name.split("/", 1)[0]
        if name == "404.html" or top in ("search", "assets") or name.startswith("js/"):
            continue
        pages.append(name)
    return pages


def url_to_file(url: str, site: Path, base: str | None) -> str | None:
    """The site-relative file that a local URL names, or None (data:, blob:, outside the site)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "file":
        path = Path(urllib.parse.unquote(parts.path))
        try:
            name = path.resolve().relative_to(site.resolve()).as_posix()
        except ValueError:
            return None
    elif parts.scheme in ("http", "https") and base and url.startswith(base):
        name = urllib.parse.unquote(parts.path).lstrip("/")
    else:
        return None
    if name == "" or name.endswith("/"):
        name += "index.html"
    elif (site / name).is_dir():
        name += "/index.html"
    return name


def kind_of(name: str) -> str:
    ext = Path(name).suffix.lower()
    if ext == ".js" and "/data/" in f"/{name}":
        return "data"  # generated data shipped as window.X = {...} scripts
    return _EXT_KIND.get(ext, "other")


@functools.lru_cache(maxsize=4096)
def _gzip_size(path: str, mtime: float, size: int) -> int:
    return len(gzip.compress(Path(path).read_bytes(), compresslevel=6, mtime=0))


def page_weight(urls: Iterable[str], site: Path, base: str | None = None) -> dict:
    """Bytes by kind of the distinct local files behind `urls`, search index excluded."""
    names = set()
    for url in urls:
        name = url_to_file(url, site, base)
        if name and not name.endswith(SEARCH_INDEX) and (site / name).is_file():
            names.add(name)
    by_kind = dict.fromkeys(KINDS, 0)
    files, total, gz = [], 0, 0
    for name in sorted(names):
        path = site / name
        st = path.stat()
        by_kind[kind_of(name)] += st.st_size
        total += st.st_size
        gz += _gzip_size(str(path), st.st_mtime, st.st_size)
        files.append({"file": name, "bytes": st.st_size})
    files.sort(key=lambda f: -f["bytes"])
    return {"bytes": total, "gzip_bytes": gz, "by_kind": by_kind, "files": files}


def largest_files(site: Path, n: int = 10) -> list[dict]:
    sizes = [(p.stat().st_size, p.relative_to(site).as_posix()) for p in site.rglob("*") if p.is_file()]
    return [{"file": name, "bytes": size} for size, name in sorted(sizes, key=lambda t: (-t[0], t[1]))[:n]]


def judge(key: str, value: float | None) -> str:
    """'pass', 'FAIL', or 'n/a' (not measured, or no target for this figure)."""
    if value is None or key not in TARGETS:
        return "n/a"
    op, target = TARGETS[key]
    ok = {"<": value < target, "<=": value <= target, ">=": value >= target, ">": value > target}[op]
    return "pass" if ok else "FAIL"


def target_text(key: str, unit: str = "") -> str:
    if key not in TARGETS:
        return ""
    op, target = TARGETS[key]
    return f"{op} {target:g}{(' ' + unit) if unit else ''}"


def summary_row(key: str, label: str, value: float | None, unit: str = "", where: str = "") -> dict:
    return {"key": key, "label": label, "value": value, "unit": unit, "target": target_text(key, unit),
            "result": judge(key, value), "where": where}


def flatten(report: dict) -> dict[str, float]:
    """The comparable numbers of a report: summary figures and per-page scores, by a stable key."""
    flat: dict[str, float] = {}
    for row in report.get("summary", []):
        if isinstance(row.get("value"), (int, float)):
            flat[row["key"]] = row["value"]
    for preset, pages in (report.get("lighthouse") or {}).get("presets", {}).items():
        for page, res in pages.items():
            for cat, score in (res.get("scores") or {}).items():
                if score is not None:
                    flat[f"lighthouse/{preset}/{page}/{cat}"] = score
    for page, res in (report.get("weight") or {}).get("pages", {}).items():
        flat[f"weight/{page}/kb"] = round(res["bytes"] / KB, 1)
    for page, res in (report.get("demo_ready") or {}).get("pages", {}).items():
        if res.get("served_ms") is not None:
            flat[f"demo_ready/{page}/served_ms"] = res["served_ms"]
    return flat


def diff_reports(old: dict, new: dict) -> list[str]:
    """Human-readable lines for every comparable figure that changed, appeared or went."""
    a, b = flatten(old), flatten(new)
    lines = []
    old_results = {r["key"]: r["result"] for r in old.get("summary", [])}
    gone = sorted(set(a) - set(b))
    if gone:
        shown = ", ".join(gone[:4]) + (f" and {len(gone) - 4} more" if len(gone) > 4 else "")
        lines.append(f"  not measured this time ({len(gone)}): {shown}")
    for key in sorted(set(b)):
        if key not in a:
            lines.append(f"  {key}: (new) {b[key]:g}")
        elif a[key] != b[key]:
            lines.append(f"  {key}: {a[key]:g} -> {b[key]:g} ({b[key] - a[key]:+.4g})")
    for row in new.get("summary", []):
        before = old_results.get(row["key"])
        if before and before != row["result"] and "n/a" not in (before, row["result"]):
            lines.append(f"  {row['key']}: {before} -> {row['result']}")
    return lines


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 10 else f"{value:.3g}"
    return str(value)


def _kb(n: int | None) -> str:
    return "—" if n is None else f"{n / KB:,.1f}"


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def md_table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def render_markdown(report: dict) -> str:
    meta = report["meta"]
    out = [f"# Quality report of the built site",
           "",
           f"{meta['generated']} · commit {meta.get('commit') or '?'} · {len(report.get('pages', []))} pages of "
           f"`{meta['site']}` · Chromium {meta.get('chromium') or '?'} · Lighthouse preset: "
           f"{', '.join(meta.get('lighthouse_presets') or ['not run'])}"
           + (" · **partial run** (--pages or --skip-lighthouse)" if meta.get("partial") else ""),
           "",
           "Served from 127.0.0.1 with gzip and `max-age=600` (as GitHub Pages); browser checks also from "
           "file://. Page weight = distinct local files requested during load, uncompressed, search index "
           "excluded, 1 KB = 1,000 bytes. Demo start-up = navigation start until the first "
           f"`{DEMO_ROOT}` element gets `data-ready`. Targets are figures, not tests.",
           "",
           "## Summary", ""]
    out.append(md_table(["measure", "value", "target", "result", "where"],
                        [[r["label"], f"{_fmt(r['value'])} {r['unit']}".strip(), r["target"], r["result"],
                          r.get("where", "")] for r in report.get("summary", [])]))
    lh = report.get("lighthouse") or {}
    for preset, pages in lh.get("presets", {}).items():
        out += ["", f"## Lighthouse ({preset})", ""]
        rows = []
        for page, res in pages.items():
            s = res.get("scores") or {}
            rows.append([page] + [_fmt(s.get(c)) for c in LH_CATEGORIES] +
                        [res.get("error") or ("pass" if all(judge(f"lighthouse_{c}", s.get(c)) == "pass"
                                                            for c in LH_CATEGORIES) else "FAIL")])
        out.append(md_table(["page", "perf ≥95", "a11y 100", "best pr. ≥95", "SEO ≥90", "result"], rows))
        audits: dict[tuple[str, str], dict] = {}
        for page, res in pages.items():
            for a in res.get("failing", []):
                entry = audits.setdefault((a["category"], a["id"]), {"pages": [], "a": a})
                entry["pages"].append(page)
        if audits:
            out += ["", "Audits that cost points (weight > 0, score < 1):", ""]
            rows = [[cat, aid, f"{e['a'].get('weight', 0):g}", _fmt(e["a"].get("display")),
                     ", ".join(e["pages"]) if len(e["pages"]) < len(pages) else f"all {len(pages)}",
                     "; ".join(e["a"].get("examples", [])[:3])]
                    for (cat, aid), e in sorted(audits.items())]
            out.append(md_table(["category", "audit", "weight", "value", "pages", "examples"], rows))
    axe = report.get("axe")
    if axe:
        out += ["", "## axe-core", ""]
        rows = [[v["page"], v["mode"], v["id"], v["impact"], v["nodes"], "; ".join(v["targets"][:3]), v["help"]]
                for v in axe["violations"]]
        out.append(md_table(["page", "mode", "rule", "impact", "nodes", "targets", "help"], rows)
                   if rows else "No violations of any impact on any page (served and file://).")
    weight = report.get("weight")
    if weight:
        out += ["", "## Page weight (KB, uncompressed; target < 400 per page)", ""]
        rows = [[page, *(_kb(r["by_kind"][k]) for k in KINDS), _kb(r["bytes"]), _kb(r["gzip_bytes"]),
                 judge("page_weight_kb", r["bytes"] / KB)] for page, r in weight["pages"].items()]
        out.append(md_table(["page", *KINDS, "total", "gzip", "result"], rows))
        if weight.get("largest_on_pages"):
            out += ["", "Largest files requested by the heaviest page ("
                    f"{weight['heaviest_page']}):", ""]
            out.append(md_table(["file", "KB"], [[f["file"], _kb(f["bytes"])] for f in weight["largest_on_pages"]]))
        out += ["", "Ten largest files of the site:", ""]
        out.append(md_table(["file", "KB"], [[f["file"], _kb(f["bytes"])] for f in weight["largest_files"]]))
    demo = report.get("demo_ready")
    if demo:
        out += ["", "## Demo start-up (ms from navigation start; target < 300)", ""]
        rows = [[page, r["demos"], _fmt(r.get("dcl_ms")), _fmt(r.get("served_ms")), _fmt(r.get("file_ms")),
                 r.get("signal") or "none",
                 judge("demo_ready_ms", max([v for v in (r.get("served_ms"), r.get("file_ms")) if v is not None],
                                            default=None))]
                for page, r in demo["pages"].items() if r["demos"]]
        out.append(md_table(["page", "demo roots", "DOMContentLoaded (served)", "ready, served (median)", "ready, file:// (median)", "signal", "result"], rows)
                   if rows else f"No page has a `{DEMO_ROOT}` element.")
    ext = report.get("external")
    if ext is not None:
        out += ["", "## External requests (target 0)", ""]
        out.append(md_table(["page", "mode", "url"], [[e["page"], e["mode"], e["url"]] for e in ext["requests"]])
                   if ext["requests"] else "None, served or from file://; every page visited.")
    problems = report.get("problems") or []
    if problems:
        out += ["", "## Browser errors and broken local requests (no target; each is a bug)", ""]
        out.append(md_table(["page", "mode", "kind", "detail"],
                            [[p["page"], p["mode"], p["kind"], p["detail"][:200]] for p in problems]))
    bench = report.get("bench")
    if bench:
        out += ["", "## Build and runtime", ""]
        out.append(md_table(["figure", "value", "source"],
                            [[k, _fmt(v.get("value")), v.get("source", "")] for k, v in bench.items()]))
    if report.get("notes"):
        out += ["", "## Notes", ""] + [f"- {n}" for n in report["notes"]]
    return "\n".join(out) + "\n"


# ---- the static server ---------------------------------------------------------------------------
class _Handler(http.server.SimpleHTTPRequestHandler):
    gzip_text = True
    _cache: dict[tuple[str, float], bytes] = {}

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=600")
        super().end_headers()

    def send_head(self):  # type: ignore[override]
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            if not self.path.split("?", 1)[0].endswith("/"):
                return super().send_head()  # redirect to the slash form
            path = os.path.join(path, "index.html")
        ctype = self.guess_type(path)
        if not os.path.isfile(path):
            page404 = os.path.join(self.directory, "404.html")
            body = Path(page404).read_bytes() if os.path.isfile(page404) else b"not found"
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return _Body(body)
        body = Path(path).read_bytes()
        textual = ctype.startswith("text/") or ctype in ("application/javascript", "application/json",
                                                           "image/svg+xml", "application/xml")
        self.send_response(200)
        self.send_header("Content-Type", ctype + ("; charset=utf-8" if textual and "charset" not in ctype else ""))
        if self.gzip_text and textual and "gzip" in self.headers.get("Accept-Encoding", ""):
            key = (path, os.path.getmtime(path))
            if key not in self._cache:
                self._cache[key] = gzip.compress(body, compresslevel=6, mtime=0)
            body = self._cache[key]
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return _Body(body)


class _Body:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, *_: Any) -> bytes:
        data, self.data = self.data, b""
        return data

    def close(self) -> None:
        pass


class SiteServer:
    """`with SiteServer(site) as base:` serves `site` on 127.0.0.1; base ends with '/'."""

    def __init__(self, site: Path, gzip_text: bool = True) -> None:
        mimetypes.add_type("application/javascript", ".js")
        mimetypes.add_type("font/woff2", ".woff2")
        handler = functools.partial(type("H", (_Handler,), {"gzip_text": gzip_text}), directory=str(site))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


# ---- Lighthouse ------------------------------------------------------------------------------------
def _audit_examples(audit: dict) -> list[str]:
    items = ((audit.get("details") or {}).get("items")) or []
    out = []
    for item in items[:3]:
        if not isinstance(item, dict):
            continue
        node = item.get("node") or {}
        src = item.get("source") or {}
        loc = item.get("sourceLocation") or {}
        text = (node.get("selector") or item.get("description") or item.get("url")
                or (src.get("url") if isinstance(src, dict) else None) or item.get("label"))
        if text and item.get("description") and isinstance(loc, dict) and loc.get("url"):
            text = f"{text} ({loc['url']})"
        if text:
            out.append(str(text)[:160])
    return out


def parse_lighthouse(result: dict) -> dict:
    scores = {cid: (None if c.get("score") is None else round(c["score"] * 100))
              for cid, c in result["categories"].items()}
    failing = []
    for cid, cat in result["categories"].items():
        for ref in cat["auditRefs"]:
            audit = result["audits"][ref["id"]]
            if ref.get("weight", 0) > 0 and audit.get("score") is not None and audit["score"] < 1:
                failing.append({"category": cid, "id": ref["id"], "weight": ref["weight"],
                                "score": audit["score"], "display": audit.get("displayValue"),
                                "title": audit.get("title"), "examples": _audit_examples(audit)})
    metrics = {}
    for mid in ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time",
                "cumulative-layout-shift", "speed-index"):
        if mid in result["audits"]:
            metrics[mid] = result["audits"][mid].get("numericValue")
    return {"scores": scores, "failing": failing, "metrics": metrics,
            "warnings": result.get("runWarnings") or []}


def run_lighthouse(url: str, preset: str, tmp: Path, timeout: int = 240) -> dict:
    out = tmp / "lh.json"
    out.unlink(missing_ok=True)
    cmd = [str(NODE_BIN / "lighthouse"), url, "--quiet", "--output=json", f"--output-path={out}",
           f"--only-categories={','.join(LH_CATEGORIES)}",
           "--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-background-networking "
           "--disable-component-update --disable-sync "
           '--host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"']
    if preset == "desktop":
        cmd.append("--preset=desktop")
    env = os.environ | {"CHROME_PATH": CHROMIUM}
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    if not out.exists():
        return {"error": f"lighthouse exit {proc.returncode}: {(proc.stderr or proc.stdout)[-300:]}"}
    result = json.loads(out.read_text())
    if result.get("runtimeError"):
        return {"error": f"{result['runtimeError'].get('code')}: {result['runtimeError'].get('message')}"}
    return parse_lighthouse(result)


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


# ---- bench figures ----------------------------------------------------------------------------------
def bench_figures(with_bench: bool, log) -> tuple[dict, list[dict], list[str]]:
    notes = []
    bench_path = REPORT_DIR / "bench.json"
    if with_bench:
        log("running scripts.quality.bench (cold build: minutes)")
        proc = subprocess.run([sys.executable, "-m", "scripts.quality.bench"], cwd=ROOT)
        if proc.returncode:
            notes.append(f"scripts.quality.bench exited {proc.returncode}; its figures below may be old")
    bench = {}
    if bench_path.exists():
        bench = json.loads(bench_path.read_text())
        age = dt.datetime.fromtimestamp(bench_path.stat().st_mtime, dt.timezone.utc)
        notes.append(f"build/runtime figures from build/report/bench.json written {age:%Y-%m-%d %H:%M} UTC"
                     + ("" if with_bench else " (not rerun: pass --with-bench)"))
    else:
        notes.append("no build/report/bench.json: build and forward-pass figures not measured "
                     "(run `make bench` or pass --with-bench)")
    figures: dict[str, dict] = {}
    for key, value in bench.items():
        if isinstance(value, (int, float)):
            figures[key] = {"value": value, "source": "bench.json"}
    for stage, seconds in (bench.get("stage_seconds") or {}).items():
        figures[f"cold build stage {stage} (s)"] = {"value": round(sum(seconds.values()), 2),
                                                    "source": "bench.json (cold build)"}
    manifest = ROOT / "site_data" / "manifest.json"
    if manifest.exists():
        for stage, info in json.loads(manifest.read_text()).get("stages", {}).items():
            seconds = info.get("seconds") or {}
            figures[f"stage {stage} (s)"] = {"value": round(sum(seconds.values()), 2),
                                             "source": f"site_data/manifest.json ({info.get('built', '?')}, "
                                                       f"{info.get('machine', '?')})"}
    smol = ROOT / "site_data" / "smollm2" / "measurements.json"
    if smol.exists():
        prov = json.loads(smol.read_text()).get("provenance", {})
        for step, value in (prov.get("seconds") or {}).items():
            figures[f"SmolLM2 {step} (s)"] = {"value": value, "source": "site_data/smollm2/measurements.json"}
    js, torch = bench.get("js_forward_us"), bench.get("torch_forward_us")
    if js and torch:
        figures["JS / PyTorch forward ratio"] = {"value": round(js / torch, 2), "source": "bench.json"}
    smol_s = figures.get("stage smollm2 (s)", {}).get("value")
    rows = [summary_row("training_s", "training time", bench.get("training_s"), "s", "scripts.tiny.checkpoint"),
            summary_row("cold_build_s", "`make site` cold", bench.get("cold_build_s"), "s"),
            summary_row("fresh_clone_build_s", "`make site` fresh clone", bench.get("fresh_clone_build_s"), "s"),
            summary_row("docs_only_rebuild_s", "`make site` docs-only rebuild", bench.get("docs_only_rebuild_s"), "s"),
            summary_row("js_forward_us", "JS forward pass", js, "µs", "scripts/quality/bench_forward.py"),
            summary_row("torch_forward_us", "PyTorch forward pass", torch, "µs", "scripts/quality/bench_forward.py"),
            summary_row("smollm2_stage_s", "SmolLM2 stage", smol_s, "s", "manifest.json")]
    return figures, rows, notes


# ---- main -------------------------------------------------------------------------------------------
def git_commit() -> str | None:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except Exception:
        return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="measure the built site against its targets")
    ap.add_argument("--site", type=Path, default=SITE, help="built site (default build/site)")
    ap.add_argument("--out", type=Path, default=REPORT_DIR, help="report folder (default build/report)")
    ap.add_argument("--pages", action="append", default=[],
                    help="only this page (site-relative, e.g. index.html); repeatable")
    ap.add_argument("--skip-lighthouse", action="store_true", help="no Lighthouse (the slow part)")
    ap.add_argument("--preset", choices=("mobile", "desktop", "both"), default="mobile",
                    help="Lighthouse form factor (default mobile, Lighthouse's own default)")
    ap.add_argument("--repeat", type=int, default=5, help="loads per demo page and mode for the start-up median")
    ap.add_argument("--no-gzip", action="store_true", help="serve uncompressed (GitHub Pages gzips)")
    ap.add_argument("--with-bench", action="store_true", help="run scripts.quality.bench first (slow: cold build)")
    args = ap.parse_args(argv)
    log = functools.partial(print, flush=True)
    site: Path = args.site.resolve()
    if not (site / "index.html").exists():
        print(f"error: {site} has no index.html: build the site first (make site)", file=sys.stderr)
        return 1
    pages = find_pages(site)
    if args.pages:
        unknown = [p for p in args.pages if p not in pages]
        if unknown:
            print(f"error: not pages of the site: {', '.join(unknown)} (pages: {', '.join(pages)})", file=sys.stderr)
            return 1
        pages = [p for p in pages if p in args.pages]
    started = time.perf_counter()
    report: dict[str, Any] = {
        "meta": {"generated": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                 "commit": git_commit(), "site": os.path.relpath(site, ROOT), "gzip": not args.no_gzip,
                 "lighthouse_presets": [] if args.skip_lighthouse else
                 (["mobile", "desktop"] if args.preset == "both" else [args.preset]),
                 "partial": bool(args.pages) or args.skip_lighthouse},
        "pages": pages, "summary": [], "notes": []}
    bench, bench_rows, notes = bench_figures(args.with_bench, log)
    report["notes"] += notes
    with SiteServer(site, gzip_text=not args.no_gzip) as base:
        if not args.skip_lighthouse:
            presets: dict[str, dict] = {}
            with tempfile.TemporaryDirectory(prefix="nexttoken-lh-") as tmp:
                for preset in report["meta"]["lighthouse_presets"]:
                    presets[preset] = {}
                    for name in pages:
                        t0 = time.perf_counter()
                        presets[preset][name] = res = run_lighthouse(base + name, preset, Path(tmp))
                        log(f"  lighthouse {preset} {name}: {res.get('scores') or res.get('error')} "
                            f"({time.perf_counter() - t0:.0f} s)")
            report["lighthouse"] = {"presets": presets}
        log(f"browser checks on {len(pages)} pages (served and file://)")
        checks = browser_checks(site, pages, base, max(1, args.repeat), log)
    report["meta"]["chromium"] = checks["chromium"]

    summary = report["summary"]
    if "lighthouse" in report:
        for preset, res in report["lighthouse"]["presets"].items():
            for cat in LH_CATEGORIES:
                vals = {p: r["scores"].get(cat) for p, r in res.items() if r.get("scores")}
                vals = {p: v for p, v in vals.items() if v is not None}
                worst = min(vals, key=vals.get) if vals else None
                errors = [p for p, r in res.items() if r.get("error")]
                row = summary_row(f"lighthouse_{cat}", f"Lighthouse {cat} ({preset}), worst page",
                                  vals[worst] if worst else None, "", worst or "")
                if errors:
                    row["result"] = "FAIL"
                    row["where"] += f" (no score: {', '.join(errors)})"
                row["key"] = f"lighthouse_{preset}_{cat}"
                summary.append(row)
    serious = [v for v in checks["axe"] if v["impact"] in ("serious", "critical")]
    summary.append(summary_row("axe_serious_critical", "axe serious + critical violations (rules × pages × modes)",
                               len(serious), "", ", ".join(sorted({v["id"] for v in serious}))))
    summary.append({**summary_row("axe_all", "axe violations of any impact", len(checks["axe"])),
                    "where": ", ".join(sorted({v["id"] for v in checks["axe"]}))})
    weights = checks["weight"]
    heaviest = max(weights, key=lambda p: weights[p]["bytes"]) if weights else None
    summary.append(summary_row("page_weight_kb", "heaviest page weight",
                               round(weights[heaviest]["bytes"] / KB, 1) if heaviest else None, "KB", heaviest or ""))
    tiny = site / "js" / "data" / "tiny-model.js"
    tiny_kb = round(tiny.stat().st_size / KB, 1) if tiny.exists() else None
    summary.append(summary_row("tiny_model_kb", "tiny model data (js/data/tiny-model.js)", tiny_kb, "KB",
                               "" if tiny.exists() else "file missing from the built site"))
    demo_vals = {p: max(v for v in (r["served_ms"], r["file_ms"]) if v is not None)
                 for p, r in checks["demo"].items() if r["served_ms"] is not None or r["file_ms"] is not None}
    silent = [p for p, r in checks["demo"].items() if r["demos"] and p not in demo_vals]
    slowest = max(demo_vals, key=demo_vals.get) if demo_vals else None
    row = summary_row("demo_ready_ms", "slowest demo start-up (median, served or file://)",
                      round(demo_vals[slowest], 1) if slowest else None, "ms", slowest or "")
    if silent:
        row["result"] = "FAIL"
        row["where"] = (row["where"] + "; " if row["where"] else "") + f"no signal: {', '.join(silent)}"
    summary.append(row)
    summary.append(summary_row("external_requests", "external requests (all pages, served + file://)",
                               len(checks["external"]), "",
                               ", ".join(sorted({urllib.parse.urlsplit(e["url"]).netloc for e in checks["external"]}))))
    summary.append({**summary_row("browser_problems", "console errors, page errors, broken local requests",
                                  len(checks["problems"])), "where": "see below" if checks["problems"] else ""})
    summary += bench_rows

    report["axe"] = {"violations": checks["axe"]}
    report["weight"] = {"pages": {p: {k: v for k, v in w.items() if k != "files"} | {"files": w["files"][:10]}
                                  for p, w in weights.items()},
                        "heaviest_page": heaviest,
                        "largest_on_pages": weights[heaviest]["files"][:10] if heaviest else [],
                        "largest_files": largest_files(site),
                        "tiny_model_bytes": tiny.stat().st_size if tiny.exists() else None}
    report["demo_ready"] = {"signal": DEMO_READY, "fallback": DEMO_FALLBACK, "pages": checks["demo"]}
    report["external"] = {"requests": checks["external"]}
    report["problems"] = checks["problems"]
    report["bench"] = bench
    report["meta"]["seconds"] = round(time.perf_counter() - started, 1)
    if not any(r["demos"] for r in checks["demo"].values()):
        report["notes"].append(f"no page has a `{DEMO_ROOT}` element, so demo start-up was not measured")

    out: Path = args.out
    previous = out / "report.json"
    old = json.loads(previous.read_text()) if previous.exists() else None
    write_json_atomic(out / "report.json", report)
    write_text_atomic(out / "report.md", render_markdown(report))

    log("")
    width = max(len(r["label"]) for r in summary)
    for r in summary:
        log(f"{r['label']:<{width}}  {_fmt(r['value']):>9} {r['unit']:<3} {r['target']:<10} {r['result']:<4}  {r['where']}")
    if old is not None:
        lines = diff_reports(old, report)
        log(f"\nchanges since the previous report ({old['meta']['generated']}):")
        log("\n".join(lines) if lines else "  none")
    failed = sum(r["result"] == "FAIL" for r in summary)
    log(f"\n{failed} target(s) missed; written to {os.path.relpath(out, ROOT)}/report.md and report.json "
        f"({report['meta']['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
