"""Targets judged, reports compared, and report.md written: pure functions."""
from __future__ import annotations

from typing import Any

from scripts.quality.report.config import DEMO_ROOT, KB, KINDS, LH_CATEGORIES, TARGETS

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
    out = ["# Quality report of the built site",
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


