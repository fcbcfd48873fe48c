"""Copy the site's front-end vendor files from node_modules into docs/assets/vendor/ (git-ignored).

iframe-worker's shim lets Material's search run from file:// (the offline plugin would otherwise
point at unpkg.com). Formulas need nothing here: scripts/site/hooks/math.py makes them MathML at build time. Nothing is fetched: a missing
file fails loudly, naming it, with the command that restores it (`npm ci`).

    python -m scripts.site.vendor            # node_modules -> docs/assets/vendor
"""
from __future__ import annotations

import shutil
from pathlib import Path

from scripts.core.io import ROOT, StageError, rel, run_main

NODE_MODULES = ROOT / "node_modules"
VENDOR = ROOT / "docs" / "assets" / "vendor"

# (source relative to node_modules, destination relative to the vendor folder)
FILES = [
    ("iframe-worker/shim/index.js", "iframe-worker/shim.js"),
    ("iframe-worker/LICENSE", "iframe-worker/LICENSE"),
]


def plan(node_modules: Path = NODE_MODULES, vendor: Path = VENDOR) -> list[tuple[Path, Path]]:
    """Every (source, destination) pair to copy; raises StageError naming the first missing source."""
    pairs = [(node_modules / src, vendor / dst) for src, dst in FILES]
    for src, _ in pairs:
        if not src.is_file():
            raise StageError(f"{rel(src)}: file not found (run `npm ci`)")
    return pairs


def copy_assets(node_modules: Path = NODE_MODULES, vendor: Path = VENDOR) -> list[Path]:
    """Copy the vendor files (replacing the folder, so no stale file survives); returns the destinations."""
    pairs = plan(node_modules, vendor)
    if vendor.exists():
        shutil.rmtree(vendor)
    for src, dst in pairs:
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    return [dst for _, dst in pairs]


def main() -> None:
    out = copy_assets()
    size = sum(p.stat().st_size for p in out)
    print(f"assets: {len(out)} files ({size / 1024:.0f} KiB) -> {rel(VENDOR)}")


if __name__ == "__main__":
    run_main(main)
