"""Copy the site's front-end vendor files from node_modules into docs/assets/vendor/ (git-ignored).

- iframe-worker's shim lets Material's search run from file:// (the offline plugin would otherwise
  point at unpkg.com).
- The site's type (STYLE.md, Type): Fontsource's woff2 files of the three faces, the subsets the pages
  need, and `fonts/fonts.css`, their @font-face rules (font-display: swap), each face's unicode-range
  that of its Fontsource subset. The symbols the faces lack (arrows, ≤, ∑, ᵀ...) come from one small
  face cut at build time from DejaVu Sans (SYMBOLS): its unicode-range is exactly the glyphs it holds.

Formulas need nothing here: scripts/site/hooks/math.py makes them MathML at build time. Nothing is
fetched: a missing file fails loudly, naming it, with the command that restores it (`npm ci`).

    python -m scripts.site.vendor            # node_modules -> docs/assets/vendor
"""
from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from scripts.core.io import ROOT, StageError, rel, run_main, write_text_atomic

NODE_MODULES = ROOT / "node_modules"
VENDOR = ROOT / "docs" / "assets" / "vendor"

# (source relative to node_modules, destination relative to the vendor folder)
FILES = [
    ("iframe-worker/shim/index.js", "iframe-worker/shim.js"),
    ("iframe-worker/LICENSE", "iframe-worker/LICENSE"),
]


@dataclass(frozen=True)
class Face:
    """One face of a Fontsource variable package: its family name in CSS, the package and file stem,
    the style, and the Fontsource subsets copied (each becomes one @font-face with that subset's range)."""
    family: str
    package: str
    stem: str
    style: str
    subsets: tuple[str, ...]


# The subsets the pages need: Latin (all text), Greek (β, σ, π in the prose; loaded only by pages that
# have some), Latin Extended (the tokenizers' Ġ, a reader's é or ł). Cyrillic and Vietnamese are left out:
# such text, as CJK, Hebrew, Arabic or emoji, falls through to the reader's system fonts.
SUBSETS = ("latin", "latin-ext", "greek")
FACES = (
    Face("Inter Variable", "@fontsource-variable/inter", "inter", "normal", SUBSETS),
    Face("Inter Variable", "@fontsource-variable/inter", "inter", "italic", SUBSETS),
    Face("Source Serif 4 Variable", "@fontsource-variable/source-serif-4", "source-serif-4", "normal", SUBSETS),
    Face("JetBrains Mono Variable", "@fontsource-variable/jetbrains-mono", "jetbrains-mono", "normal", SUBSETS),
)
# The text face's Latin file: every page draws with it, so overrides/main.html and embed.html preload it.
PRELOAD = "fonts/inter-latin-wght-normal.woff2"
# Phonetic Extensions hold ᵀ (the map's wteᵀ, on every page): served by the symbols face, so a page with
# a transposed matrix does not load a whole Latin Extended file for one glyph.
NOT_FROM_LATIN_EXT = (0x1D00, 0x1DBF)

# Every symbol the pages draw that the three faces lack (tests/site/test_fonts.py checks the built pages
# against this, and names any character missing). Cut from DejaVu Sans, the face the figures use too.
SYMBOL_FAMILY = "nexttoken symbols"
SYMBOL_SOURCE = "@fontsource/dejavu-sans/files/dejavu-sans-latin-400-normal.woff2"
SYMBOLS = ("←↑→↓↔↕↵⇐⇒⇔↦"  # arrows
           "∑∏√∞∝∂∇∈∉∣∥≈≠≡≤≥≪≫⊙⊗∘⋅∫"  # operators
           "ℒℓℝ𝔼‖ᵀ"  # letters of formulas written in text
           "✓✗")
SYMBOL_FILE = "fonts/nexttoken-symbols.woff2"


def _ranges(codepoints: set[int]) -> str:
    """`U+2190-2193,U+2264`: a unicode-range from code points."""
    out, cps = [], sorted(codepoints)
    i = 0
    while i < len(cps):
        j = i
        while j + 1 < len(cps) and cps[j + 1] == cps[j] + 1:
            j += 1
        out.append(f"U+{cps[i]:04X}" + (f"-{cps[j]:04X}" if j > i else ""))
        i = j + 1
    return ",".join(out)


def _minus(unicode_range: str, lo: int, hi: int) -> str:
    """A Fontsource unicode-range without the code points lo..hi."""
    parts = []
    for part in unicode_range.split(","):
        a, _, b = part.strip()[2:].partition("-")
        start, end = int(a, 16), int(b or a, 16)
        if end < lo or start > hi:
            parts.append(part.strip())
            continue
        if start < lo:
            parts.append(f"U+{start:04X}" + (f"-{lo - 1:04X}" if lo - 1 > start else ""))
        if end > hi:
            parts.append(f"U+{hi + 1:04X}" + (f"-{end:04X}" if end > hi + 1 else ""))
    return ",".join(parts)


def _font_face(family: str, src: str, style: str, weight: str, unicode_range: str) -> str:
    return ("@font-face {\n"
            f"  font-family: \"{family}\";\n  font-style: {style};\n  font-weight: {weight};\n"
            f"  font-display: swap;\n  src: url({src}) format(\"woff2\");\n  unicode-range: {unicode_range};\n}}\n")


def font_plan(node_modules: Path = NODE_MODULES) -> tuple[list[tuple[Path, str]], list[str]]:
    """The font files to copy (source, name under fonts/) and the @font-face rules for them."""
    pairs, rules = [], []
    for face in FACES:
        package = node_modules / face.package
        try:
            ranges = json.loads((package / "unicode.json").read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise StageError(f"{rel(package / 'unicode.json')}: file not found (run `npm ci`)") from None
        for subset in face.subsets:
            name = f"{face.stem}-{subset}-wght-{face.style}.woff2"
            unicode_range = ranges[subset]
            if subset == "latin-ext":
                unicode_range = _minus(unicode_range, *NOT_FROM_LATIN_EXT)
            pairs.append((package / "files" / name, f"fonts/{name}"))
            rules.append(_font_face(face.family, name, face.style, "100 900", unicode_range))
    return pairs, rules


def cut_symbols(source: Path, dest: Path) -> set[int]:
    """SYMBOLS cut from `source` into a woff2 at `dest`; returns the code points it holds (the face's range)."""
    from fontTools import subset  # matplotlib's dependency; brotli (site.lock) writes woff2
    from fontTools.ttLib import TTFont

    font = TTFont(source)
    wanted = {ord(c) for c in SYMBOLS}
    held = wanted & set(font.getBestCmap())
    if held != wanted:
        missing = "".join(sorted(chr(c) for c in wanted - held))
        raise StageError(f"{rel(source)} lacks {missing!r}: take them out of SYMBOLS in scripts/site/vendor.py")
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = []  # symbols alone need no shaping
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6]  # keep the copyright and licence lines
    options.notdef_outline = True
    options.hinting = False  # screens of this century draw unhinted outlines well; a third of the bytes
    options.drop_tables += ["FFTM"]  # FontForge's timestamps
    sub = subset.Subsetter(options)
    sub.populate(unicodes=held)
    sub.subset(font)
    dest.parent.mkdir(parents=True, exist_ok=True)
    font.flavor = "woff2"
    font.save(dest)
    return set(TTFont(dest).getBestCmap())  # with the mirrored forms the subsetter keeps (∈ brings ∋)


def plan(node_modules: Path = NODE_MODULES, vendor: Path = VENDOR) -> list[tuple[Path, Path]]:
    """Every (source, destination) pair to copy; raises StageError naming the first missing source."""
    pairs = [(node_modules / src, vendor / dst) for src, dst in FILES]
    pairs += [(src, vendor / dst) for src, dst in font_plan(node_modules)[0]]
    for package in sorted({f.package for f in FACES}) + ["@fontsource/dejavu-sans"]:
        pairs.append((node_modules / package / "LICENSE", vendor / "fonts" / f"LICENSE-{package.split('/')[1]}"))
    for src, _ in pairs + [(node_modules / SYMBOL_SOURCE, None)]:
        if not src.is_file():
            raise StageError(f"{rel(src)}: file not found (run `npm ci`)")
    return pairs


def copy_assets(node_modules: Path = NODE_MODULES, vendor: Path = VENDOR) -> list[Path]:
    """Copy the vendor files and write fonts/fonts.css (replacing the folder, so no stale file survives);
    returns the files written."""
    pairs = plan(node_modules, vendor)
    if vendor.exists():
        shutil.rmtree(vendor)
    for src, dst in pairs:
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    symbols = vendor / SYMBOL_FILE
    held = cut_symbols(node_modules / SYMBOL_SOURCE, symbols)
    rules = font_plan(node_modules)[1]
    rules.append(_font_face(SYMBOL_FAMILY, Path(SYMBOL_FILE).name, "normal", "400", _ranges(held)))
    css = vendor / "fonts" / "fonts.css"
    write_text_atomic(css, "/* Written by scripts/site/vendor.py from the Fontsource packages pinned in package.json (OFL-1.1,\n"
                           "   licences beside). The families are named in docs/css/nexttoken.css (STYLE.md, Type). */\n"
                      + "".join(rules))
    return [dst for _, dst in pairs] + [symbols, css]


def main() -> None:
    out = copy_assets()
    size = sum(p.stat().st_size for p in out)
    fonts = [p for p in out if p.suffix == ".woff2"]
    print(f"assets: {len(out)} files ({size / 1024:.0f} KiB, {len(fonts)} fonts) -> {rel(VENDOR)}")


if __name__ == "__main__":
    run_main(main)
