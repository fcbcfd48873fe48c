"""Compare the committed data of a commit with the working tree's, number by number (printed, never asserted).

    python -m scripts.quality.compare_data REV [PATH ...] [--tree DIR]   # PATH: under site_data/ (default: all)
    python -m scripts.quality.compare_data OTHER_TREE [PATH ...]          # another checkout's files, as they are

For each JSON file in either tree: every number at the same place in both (objects by key; lists of
objects that all have a "key" by that key, so prompts match whatever their order; other lists by
index) gives an absolute and a relative difference, |a - b| / max(|a|, |b|). It prints the largest of
each with where it is; integers (ids, counts, positions), strings and booleans that differ, one by
one (near-tied tokens that swap ranks show here); and what is only in one tree. Timings
and dates (provenance.seconds, provenance.date, forward_ms.median) are listed apart: they measure
the machine, not the model.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from scripts.core.io import ROOT

VOLATILE = re.compile(r"(^|\.)(provenance\.seconds\.\w+|provenance\.date|forward_ms\.median|provenance\.libraries\.\w+)$")


def old_files(tree: Path, rev: str, paths: list[str]) -> dict[str, str]:
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "--", *paths], cwd=tree,
                           capture_output=True, text=True, check=True).stdout.split()
    return {n: subprocess.run(["git", "show", f"{rev}:{n}"], cwd=tree, capture_output=True, text=True,
                              check=True).stdout for n in names if n.endswith(".json")}


def new_files(tree: Path, paths: list[str]) -> dict[str, str]:
    out = {}
    for p in paths:
        base = tree / p
        for f in ([base] if base.is_file() else sorted(base.rglob("*.json"))):
            out[str(f.relative_to(tree))] = f.read_text(encoding="utf-8")
    return out


def keyed(items: list) -> dict | None:
    if items and all(isinstance(x, dict) and "key" in x for x in items):
        return {x["key"]: x for x in items}
    return None


def walk(a, b, where: str, out: dict) -> None:
    """Fill out["numbers"] with (abs, rel, where), out["other"] with differing leaves, out["only_old"/"only_new"]."""
    if isinstance(a, dict) and isinstance(b, dict):
        pairs, only_a, only_b = ({k: (a[k], b[k]) for k in a if k in b}, [k for k in a if k not in b], [k for k in b if k not in a])
    elif isinstance(a, list) and isinstance(b, list):
        ka, kb = keyed(a), keyed(b)
        if ka is not None and kb is not None:
            pairs = {f"[{k}]": (ka[k], kb[k]) for k in ka if k in kb}
            only_a, only_b = [f"[{k}]" for k in ka if k not in kb], [f"[{k}]" for k in kb if k not in ka]
        else:
            pairs = {f"[{i}]": (x, y) for i, (x, y) in enumerate(zip(a, b))}
            only_a = [f"[{i}]" for i in range(len(b), len(a))]
            only_b = [f"[{i}]" for i in range(len(a), len(b))]
    else:
        if VOLATILE.search(where):
            if a != b:
                out["volatile"].append((where, a, b))
        elif isinstance(a, float) or isinstance(b, float):
            d = abs(a - b) if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b)) else float("inf")
            out["floats"].append((d, d / max(abs(a), abs(b)) if d else 0.0, where))
        elif a != b:
            out["other"].append((where, a, b))  # integers (ids, counts, positions), strings, booleans
        else:
            out["same"] += 1
        return
    for k in only_a:
        out["only_old"].append(join(where, k))
    for k in only_b:
        out["only_new"].append(join(where, k))
    for k, (x, y) in pairs.items():
        walk(x, y, join(where, k), out)


def join(where: str, k: str) -> str:
    return f"{where}{k}" if k.startswith("[") else (f"{where}.{k}" if where else k)


def pattern(where: str) -> str:
    """A place with its list indices collapsed, to summarise many places at once."""
    return re.sub(r"\[\d+\]", "[*]", where)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="a commit, or another checkout's folder")
    ap.add_argument("paths", nargs="*", default=["site_data"])
    ap.add_argument("--show", type=int, default=10, help="differing integers and strings to print per file")
    ap.add_argument("--tree", type=Path, default=ROOT, help="the working tree to compare (default: this one)")
    args = ap.parse_args(argv)
    other = Path(args.rev)
    old = new_files(other, args.paths) if other.is_dir() else old_files(args.tree, args.rev, args.paths)
    new = new_files(args.tree, args.paths)
    worst_abs, worst_rel, total, changes = (0.0, ""), (0.0, ""), 0, 0
    for name in sorted(set(old) | set(new)):
        if name not in new or name not in old:
            print(f"{name}: only in {'the old tree' if name in old else 'the working tree'}")
            continue
        out = {"floats": [], "other": [], "same": 0, "volatile": [], "only_old": [], "only_new": []}
        walk(json.loads(old[name]), json.loads(new[name]), "", out)
        nums = out["floats"]
        total += len(nums)
        changes += len(out["other"])
        a = max(nums, default=(0.0, 0.0, ""))
        r = max(nums, key=lambda t: t[1], default=(0.0, 0.0, ""))
        print(f"{name}: {len(nums)} floats, {sum(1 for t in nums if t[0])} differ; largest |difference| {a[0]:.3g} "
              f"at {a[2] or '-'}; largest relative {r[1]:.3g} at {r[2] or '-'}; "
              f"{len(out['other'])} of {len(out['other']) + out['same']} integers and strings differ")
        if a[0] > worst_abs[0]:
            worst_abs = (a[0], f"{name}: {a[2]}")
        if r[1] > worst_rel[0]:
            worst_rel = (r[1], f"{name}: {r[2]}")
        for label, items in (("only in the old tree", out["only_old"]), ("only in the working tree", out["only_new"])):
            if items:
                counts = Counter(pattern(w) for w in items)
                print(f"  {label}: " + ", ".join(f"{p} ({n})" for p, n in counts.most_common()))
        for where, x, y in out["other"][:args.show]:
            print(f"  differs: {where}: {x!r} -> {y!r}")
        if len(out["other"]) > args.show:
            print(f"  ... and {len(out['other']) - args.show} more integers or strings")
        for where, x, y in out["volatile"]:
            print(f"  machine, versions or date: {where}: {x!r} -> {y!r}")
    print(f"all files: {total} floats compared; largest |difference| {worst_abs[0]:.3g} ({worst_abs[1] or '-'}), "
          f"largest relative {worst_rel[0]:.3g} ({worst_rel[1] or '-'}); {changes} integers or strings differ")


if __name__ == "__main__":
    sys.exit(main())
