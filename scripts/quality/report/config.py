"""Where the report looks, what it counts as local, and the targets it judges against."""
from __future__ import annotations

import os

from scripts.core.io import BUILD, ROOT

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


