"""Copy the site's front-end vendor files from node_modules into docs/assets/vendor/ (git-ignored).

- iframe-worker's shim lets Material's search run from file:// (the offline plugin would otherwise
  point at unpkg.com).
- The site's type (STYLE.md, Type): Fontsource's woff2 files of the three faces, the subsets the pages
  need (the Latin ones cut to LATIN_KEEP), and `fonts/fonts.css`, their @font-face rules (font-display:
  swap), each face's unicode-range that of its Fontsource subset or of its cut file. The symbols the faces lack (arrows, ≤, ∑, ᵀ...) come from one small
  face cut at build time from DejaVu Sans (SYMBOLS): its unicode-range is exactly the glyphs it holds.
  While they load, system faces scaled to their widths stand in (STAND_INS), so no line moves when they arrive.

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
    keep: tuple[tuple[int, int], ...] = ()  # what its Latin file is cut to (LATIN_KEEP unless the face needs less)


# The subsets the pages need: Latin (all text), Greek (β, σ, π in the prose; loaded only by pages that
# have some), Latin Extended (the tokenizers' Ġ, a reader's é or ł). Cyrillic and Vietnamese are left out:
# such text, as CJK, Hebrew, Arabic or emoji, falls through to the reader's system fonts.
SUBSETS = ("latin", "latin-ext", "greek")
# The Latin files every page loads are cut at build time to what a page or a reader's text needs in
# practice (ASCII, Latin-1, the usual punctuation): two thirds of Fontsource's Latin subset's bytes.
# Their unicode-range is then exactly what the cut file holds; the rest of Fontsource's Latin range
# (rare punctuation) falls to the symbols face or the system.
LATIN_KEEP = ((0x20, 0x7E), (0xA0, 0xFF), (0x131, 0x131), (0x152, 0x153), (0x2010, 0x2027), (0x2030, 0x203A),
              (0x20AC, 0x20AC), (0x2122, 0x2122), (0x2212, 0x2212))
# The titles' face draws only the site's own titles: ASCII, punctuation and the permalink's ¶ (tests/site/test_fonts.py checks).
TITLE_KEEP = ((0x20, 0x7E), (0xA0, 0xA0), (0xB6, 0xB7), (0xD7, 0xD7), (0x2013, 0x2014), (0x2018, 0x2019),
              (0x201C, 0x201D), (0x2026, 0x2026), (0x2212, 0x2212))
# OpenType features kept: fontTools' defaults (kerning, ligatures, marks...) and the figures' own
FEATURES = ["tnum", "pnum", "lnum", "onum", "frac", "numr", "dnom", "case", "zero"]
# No italic files: the few italics (an <em>, a caption) are the upright slanted by the browser, which
# saves a reader 50 KB on most pages.
FACES = (
    Face("Inter Variable", "@fontsource-variable/inter", "inter", "normal", SUBSETS),
    Face("Source Serif 4 Variable", "@fontsource-variable/source-serif-4", "source-serif-4", "normal", SUBSETS, TITLE_KEEP),
    Face("JetBrains Mono Variable", "@fontsource-variable/jetbrains-mono", "jetbrains-mono", "normal", SUBSETS),
)
# Text shows at once in a stand-in (STAND_INS, sized as ours) and takes our face when it arrives. No preload:
# a preload competes with the stylesheets for a slow line (Lighthouse mobile put the first paint at
# 2.9-3.1 s with one, 1.5-2.0 s without), and the rules are written inline in every page's head
# (scripts/site/hooks/share.py), not in a stylesheet of their own. `optional` was tried: without a preload,
# Chromium drew every first visit in the system's face. STYLE.md, Type.
DISPLAY = "swap"
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


@dataclass(frozen=True)
class StandIn:
    """A system face that stands in for one of ours while it loads: `local()` names (full and PostScript)
    of its regular and bold, and their average letter widths in ems (LETTERS' weighting)."""
    family: str
    face: str  # the family of ours it stands in for
    regular: tuple[str, ...]
    bold: tuple[str, ...]
    width: float
    bold_width: float


# Until a face of ours arrives (font-display: swap), the page draws with the face a reader most likely has
# (Arial, Georgia, Courier New, or faces with their widths, on macOS and Windows; DejaVu on a bare Linux),
# scaled to our face's average letter width, its bold to our face's at weight 700, and given our face's
# ascent and descent: a paragraph keeps its lines when ours arrive, so nothing below it moves (Lighthouse
# counted a shift of 0.26 on the landing page without; 0.18 on embeddings.html with one size for both weights).
# Widths: Arial, Georgia and Courier New from @capsizecss/metrics 4.3.0 (Latin xWidthAvg / unitsPerEm;
# the package is 169 MB, so not a dependency), DejaVu Sans from @fontsource/dejavu-sans, DejaVu Serif and
# Sans Mono from Debian's fonts-dejavu-core 2.37, measured with letter_width().
STAND_INS = (
    StandIn("nt Inter on Arial", "Inter Variable", ("Arial", "ArialMT", "Liberation Sans", "LiberationSans", "Arimo"),
            ("Arial Bold", "Arial-BoldMT", "Liberation Sans Bold", "LiberationSans-Bold", "Arimo Bold"), 913 / 2048, 983 / 2048),
    StandIn("nt Inter on DejaVu Sans", "Inter Variable", ("DejaVu Sans", "DejaVuSans"), ("DejaVu Sans Bold", "DejaVuSans-Bold"),
            0.5132, 0.5799),
    StandIn("nt Source Serif 4 on Georgia", "Source Serif 4 Variable", ("Georgia",), ("Georgia Bold", "Georgia-Bold"),
            913 / 2048, 1062 / 2048),
    StandIn("nt Source Serif 4 on DejaVu Serif", "Source Serif 4 Variable", ("DejaVu Serif", "DejaVuSerif"),
            ("DejaVu Serif Bold", "DejaVuSerif-Bold"), 0.5187, 0.5727),
    StandIn("nt JetBrains Mono on Courier New", "JetBrains Mono Variable", ("Courier New", "CourierNewPSMT"),
            ("Courier New Bold", "CourierNewPS-BoldMT"), 1229 / 2048, 1229 / 2048),
    StandIn("nt JetBrains Mono on DejaVu Sans Mono", "JetBrains Mono Variable", ("DejaVu Sans Mono", "DejaVuSansMono"),
            ("DejaVu Sans Mono Bold", "DejaVuSansMono-Bold"), 1233 / 2048, 1233 / 2048),
)
# English letter frequencies (per cent) and the space's, for an average letter width as running text has it.
LETTERS = dict(zip("abcdefghijklmnopqrstuvwxyz ", (8.2, 1.5, 2.8, 4.3, 12.7, 2.2, 2.0, 6.1, 7.0, 0.15, 0.77, 4.0, 2.4, 6.7,
                                                    7.5, 1.9, 0.095, 6.0, 6.3, 9.1, 2.8, 0.98, 2.4, 0.15, 2.0, 0.074, 18.0)))
BOLD = 700  # the pages' bold (<strong>, labels); the stand-ins' bold serves 550-900


def letter_width(font, weight: int | None = None) -> float:
    """A fontTools font's average advance over LETTERS, in ems (a variable font at `weight`, else as it is).
    A variable font's advances are read at `weight` and rounded as an instance stores them: at 400 and BOLD
    the widths of fontTools' instancer (test_fonts), without making the whole instance (about a second each)."""
    from fontTools.misc.roundTools import otRound
    location = {"wght": weight} if weight is not None and "fvar" in font else None
    glyphs, cmap, upm = font.getGlyphSet(location=location), font.getBestCmap(), font["head"].unitsPerEm
    return sum(w * otRound(glyphs[cmap[ord(c)]].width) for c, w in LETTERS.items()) / sum(LETTERS.values()) / upm


def stand_in_rules(ours: dict[str, tuple[float, float, float, float, str]]) -> list[str]:
    """@font-face rules for STAND_INS, from each face of ours: (letter width at 400 and at BOLD, ascent and
    descent in ems, the unicode-range of its files, so other scripts still go to the reader's system faces)."""
    rules = []
    for s in STAND_INS:
        width, bold_width, ascent, descent, unicode_range = ours[s.face]
        for weight, names, adjust in (("100 549", s.regular, width / s.width), ("550 900", s.bold, bold_width / s.bold_width)):
            src = ", ".join(f'local("{n}")' for n in names)
            rules.append("@font-face {\n"
                         f"  font-family: \"{s.family}\";\n  font-style: normal;\n  font-weight: {weight};\n"
                         f"  src: {src};\n"
                         f"  size-adjust: {adjust:.2%};\n  ascent-override: {ascent / adjust:.2%};\n"
                         f"  descent-override: {descent / adjust:.2%};\n  line-gap-override: 0%;\n"
                         f"  unicode-range: {unicode_range};\n}}\n")
    return rules


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
            f"  font-display: {DISPLAY};\n  src: url({src}) format(\"woff2\");\n  unicode-range: {unicode_range};\n}}\n")


def font_plan(node_modules: Path = NODE_MODULES) -> tuple[list[tuple[Path, str]], list[str]]:
    """The font files to copy (source, name under fonts/) and the @font-face rules for them (the Latin
    files' ranges are filled in by copy_assets, from the cut files: `{latin:NAME}`)."""
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
            if subset == "latin":
                unicode_range = "{latin:" + name + ("|title" if face.keep else "") + "}"
            pairs.append((package / "files" / name, f"fonts/{name}"))
            rules.append(_font_face(face.family, name, face.style, "100 900", unicode_range))
    return pairs, rules


def cut_symbols(source: Path, dest: Path) -> set[int]:
    """SYMBOLS cut from `source` into a woff2 at `dest`; returns the code points it holds (the face's range)."""
    from fontTools import subset  # matplotlib's dependency; brotli (site.lock) writes woff2
    from fontTools.ttLib import TTFont

    font = TTFont(source, recalcTimestamp=False)  # the source's date, not the build's: the same bytes each build
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


def cut_latin(path: Path, keep=LATIN_KEEP) -> set[int]:
    """A Fontsource Latin file cut in place to `keep` (woff2, variable axes kept); returns its code points."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(path, recalcTimestamp=False)  # the source's date, not the build's: the same bytes each build
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = list(subset.Options().layout_features) + FEATURES
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6]
    options.notdef_outline = True
    sub = subset.Subsetter(options)
    sub.populate(unicodes={c for lo, hi in keep for c in range(lo, hi + 1)})
    sub.subset(font)
    font.flavor = "woff2"
    font.save(path)
    return set(TTFont(path).getBestCmap())


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


def _metrics(fonts: Path, rules: list[str]) -> dict[str, tuple[float, float, float, float, str]]:
    """Each face of ours: its Latin file's letter widths (regular and bold), ascent and descent (OS/2 typo metrics, which our
    faces say to use), and the union of its rules' unicode-ranges."""
    import re
    from fontTools.ttLib import TTFont
    out = {}
    for face in FACES:
        font = TTFont(fonts / f"{face.stem}-latin-wght-{face.style}.woff2")
        upm, os2 = font["head"].unitsPerEm, font["OS/2"]
        ranges = [re.search(r"unicode-range: ([^;]+);", r).group(1) for r in rules if f'"{face.family}"' in r]
        out[face.family] = (letter_width(font, 400), letter_width(font, BOLD), os2.sTypoAscender / upm,
                            -os2.sTypoDescender / upm, ",".join(ranges))
    return out


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
    for i, rule in enumerate(rules):
        if "{latin:" in rule:
            key = rule.split("{latin:")[1].split("}")[0]
            name = key.split("|")[0]
            cut = cut_latin(vendor / "fonts" / name, TITLE_KEEP if key.endswith("|title") else LATIN_KEEP)
            rules[i] = rule.replace("{latin:" + key + "}", _ranges(cut))
    rules.append(_font_face(SYMBOL_FAMILY, Path(SYMBOL_FILE).name, "normal", "400", _ranges(held)))
    rules += stand_in_rules(_metrics(vendor / "fonts", rules))
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
