"""Lighthouse 12 from node_modules, one page at a time, reduced to scores and failing audits."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from scripts.quality.report.config import CHROMIUM, LH_CATEGORIES, NODE_BIN

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


