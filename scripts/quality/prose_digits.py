"""Counts the numbers typed into the pages rather than taken from the data, by page and kind.

    .venv/bin/python -m scripts.quality.prose_digits [--root DIR]

DIR is a checkout (default: this one; for a "before" figure, a worktree of an older commit). Its
docs/*.md and scripts/site/prose_allowlist.yaml are read with this checkout's checks
(scripts/site/hooks/checks.py), so two checkouts are measured the same way. Kinds:
  prose       a digit in prose outside template expressions, math, code, headings, tags and links
              that no allowlist entry covers (the build fails on these)
  allowed     a digit in prose that an allowlist entry covers, counted by the entry's reason
  math        a typed number inside a formula (not the 0 and 1 of its structure, not a square)
  template    a digit inside a quoted string of a template expression or statement
  no status   a real model's number printed without a status badge of its source in its paragraph
              (resolved against this checkout's site_data)
math and template, like prose, leave out what the allowlist covers (model names in figure captions).
Printed, never asserted (the build's checks assert).
"""
from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from scripts.site.hooks import checks


def count(root: Path) -> dict:
    allow = checks.load_allowlist(root / "scripts" / "site" / "prose_allowlist.yaml")
    pages, reasons, numbers = {}, Counter(), checks.ModelNumbers()
    for path in sorted((root / "docs").glob("*.md")):
        _, body, _ = checks.split_front_matter(path.read_text(encoding="utf-8"))
        left = [len(checks.prose_digits(body, allow[:k], path.name)) for k in range(len(allow) + 1)]
        for k, e in enumerate(allow):  # what each entry covers that the entries before it did not
            reasons[e["reason"]] += left[k] - left[k + 1]
        hidden = checks.hidden_digits(body, allow, path.name)
        unbadged = [] if path.name in checks.SOURCE_PAGES else checks.status_errors(body, numbers)
        uncovered = left[-1]
        pages[path.name] = {"prose": uncovered, "allowed": left[0] - uncovered,
                            "math": sum("inside the formula" in h for h in hidden),
                            "template": sum("inside the template string" in h for h in hidden),
                            "no status": len(unbadged)}
    return {"pages": pages, "reasons": dict(reasons)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, default=checks.ROOT)
    root = ap.parse_args().root.resolve()
    c = count(root)
    kinds = ("prose", "allowed", "math", "template", "no status")
    print(f"typed numbers in {root}/docs (kinds: see the module's docstring)")
    print(f"{'page':<16}" + "".join(f"{k:>10}" for k in kinds))
    for name, row in c["pages"].items():
        print(f"{name:<16}" + "".join(f"{row[k]:>10}" for k in kinds))
    total = {k: sum(r[k] for r in c["pages"].values()) for k in kinds}
    print(f"{'total':<16}" + "".join(f"{total[k]:>10}" for k in kinds))
    print(f"outside data, math-structure and allow-listed reasons: {total['prose'] + total['math'] + total['template']}")
    print("allow-listed, by reason:")
    for reason, n in sorted(c["reasons"].items(), key=lambda x: -x[1]):
        print(f"  {n:>4}  {reason}")


if __name__ == "__main__":
    main()
