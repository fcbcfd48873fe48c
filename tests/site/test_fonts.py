"""The site's own type (STYLE.md, Type; scripts/site/vendor.py), checked on the built site: every character
the pages draw is in one of our faces, each face's file holds what its unicode-range sends to it or the
symbols face does, nothing comes from elsewhere, every page writes the rules in its head (no font stylesheet,
no preload), and each system face that stands in while ours load is sized as ours."""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont

from scripts.site import vendor

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "site"
FONTS = SITE / "assets" / "vendor" / "fonts"
RULE = re.compile(r"@font-face\s*{(.*?)}", re.S)


def _site() -> Path:
    if not (FONTS / "fonts.css").is_file():
        pytest.fail("build/site/assets/vendor/fonts/fonts.css not found: build the site first (`make site`)", pytrace=False)
    return SITE


def _codepoints(unicode_range: str) -> set[int]:
    out = set()
    for part in unicode_range.split(","):
        a, _, b = part.strip()[2:].partition("-")
        out.update(range(int(a, 16), int(b or a, 16) + 1))
    return out


@pytest.fixture(scope="module")
def faces() -> list[dict]:
    """fonts.css's rules, in order, each with its file's code points."""
    css = (_site() / "assets" / "vendor" / "fonts" / "fonts.css").read_text(encoding="utf-8")
    out = []
    for body in RULE.findall(css):
        props = dict(re.findall(r"([\w-]+):\s*([^;]+);", body))
        if props["src"].startswith("local("):
            continue  # a stand-in (test_stand_ins_are_sized_as_our_faces)
        src = re.fullmatch(r'url\(([^)]+)\) format\("woff2"\)', props["src"]).group(1)
        out.append({**props, "family": props["font-family"].strip('"'), "file": FONTS / src,
                    "range": _codepoints(props["unicode-range"]), "cmap": set(TTFont(FONTS / src).getBestCmap())})
    return out


class _Text(HTMLParser):
    """The text a page draws: its text nodes, without scripts, styles and MathML (the browser's math font)."""

    def __init__(self) -> None:
        super().__init__()
        self.skip, self.title, self.parts, self.titles = 0, 0, [], []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "math"):
            self.skip += 1
        if tag in ("h1", "h2", "h3"):
            self.title += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style", "math"):
            self.skip -= 1
        if tag in ("h1", "h2", "h3"):
            self.title -= 1

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)
            if self.title:
                self.titles.append(data)


def test_every_face_is_ours_swaps_and_has_its_file(faces):
    assert {f["family"] for f in faces} == {f.family for f in vendor.FACES} | {vendor.SYMBOL_FAMILY}
    for f in faces:
        assert f["font-display"] == vendor.DISPLAY == "swap", f["file"].name
        assert f["file"].is_file() and f["file"].parent == FONTS
    listed = {f["file"].name for f in faces}
    assert {p.name for p in FONTS.glob("*.woff2")} == listed  # no file shipped that no rule names
    symbols = [f for f in faces if f["family"] == vendor.SYMBOL_FAMILY]
    assert len(symbols) == 1 and symbols[0]["range"] == symbols[0]["cmap"] >= {ord(c) for c in vendor.SYMBOLS}


def test_every_character_the_pages_draw_is_in_one_of_our_faces(faces):
    """As the browser picks (STYLE.md's stack): the text face's files whose ranges hold the character, then
    the symbols face; in titles h1-h3 the same with the titles' face. A character none has is named with its
    pages: add it to vendor.SYMBOLS if DejaVu Sans has it (or to TITLE_KEEP for a title's letter)."""
    text = [f for f in faces if f["family"] == "Inter Variable"]
    display = [f for f in faces if f["family"] == "Source Serif 4 Variable"]
    symbols = [f for f in faces if f["family"] == vendor.SYMBOL_FAMILY]
    missing: dict[str, set[str]] = {}
    pages = _pages()
    assert len(pages) > 20
    for page in pages:
        parser = _Text()
        parser.feed(page.read_text(encoding="utf-8"))
        for chars, faces_of in ((set("".join(parser.parts)), text), (set("".join(parser.titles)), display)):
            for ch in chars:
                c = ord(ch)
                if ch.isspace() or c < 0x20:
                    continue
                if not any(c in f["range"] and c in f["cmap"] for f in faces_of + symbols):
                    name = "title" if faces_of is display else "text"
                    missing.setdefault(f"U+{c:04X} {ch} ({name})", set()).add(page.relative_to(SITE).as_posix())
    assert missing == {}


def test_the_code_and_title_faces_cover_what_the_text_face_does():
    """Each face ships the same subsets, so a character never changes face between text, titles and code."""
    for face in vendor.FACES:
        assert face.subsets == vendor.SUBSETS


def _pages() -> list[Path]:
    return sorted(_site().glob("*.html")) + sorted(SITE.glob("embed/*.html"))


def test_every_page_writes_the_faces_in_its_head_and_loads_them_after_its_first_paint():
    """A stylesheet of their own was one more request before the first paint, and a preload took a slow
    line from the stylesheets (Lighthouse mobile: first paint 2.9-3.1 s with both). Inline, our faces still
    loaded ahead of the first paint (0.7 s more on Lighthouse's phone line): they are written under
    media="print", switched on by a script once the page has painted (fonts.css where scripts do not run),
    and the stand-ins, always on, draw the first paint."""
    rules = (FONTS / "fonts.css").read_text(encoding="utf-8")
    count = len(RULE.findall(rules))
    for page in _pages():
        html = page.read_text(encoding="utf-8")
        head = html[:html.index("</head>")]
        assert 'rel="preload"' not in html and "l.rel" not in html, page.name
        stand_ins = re.search(r"<style>(@font-face.*?)</style>", head, re.S)
        ours = re.search(r'<style id="nt-faces" media="print">(@font-face.*?)</style>\s*<script>(.*?)</script>', head, re.S)
        assert stand_ins and ours, page.name
        assert "url(" not in stand_ins.group(1) and "local(" not in ours.group(1), page.name
        assert len(RULE.findall(stand_ins.group(1))) + len(RULE.findall(ours.group(1))) == count, page.name
        assert "getElementById('nt-faces').media = 'all'" in ours.group(2) and "requestAnimationFrame" in ours.group(2), page.name
        # fonts.css only for a reader without scripts, and every rule ahead of the stylesheets
        assert [m.group(0) for m in re.finditer(r"<[^<>]*fonts\.css[^<>]*>", html)] == [
            m.group(1) for m in re.finditer(r"<noscript>(<link rel=\"stylesheet\" href=\"[^\"]*fonts\.css\">)</noscript>", head)], page.name
        assert "fonts.css" in head, page.name
        assert head.index("<style>@font-face") < head.index('<style id="nt-faces"') < head.index('rel="stylesheet" href="', head.index("</noscript>")), page.name
        for url in re.findall(r"url\(([^)]+)\)", ours.group(1)):  # 404.html's links start at the root, as the theme makes them
            target = SITE / url.lstrip("/") if url.startswith("/") else page.parent / url
            assert target.resolve().parent == FONTS.resolve() and target.is_file(), (page.name, url)
        link = re.search(r'<noscript><link rel="stylesheet" href="([^"]+)"></noscript>', head).group(1)
        target = SITE / link.lstrip("/") if link.startswith("/") else page.parent / link
        assert target.resolve() == (FONTS / "fonts.css").resolve(), (page.name, link)


def test_stand_ins_are_sized_as_our_faces():
    """Each system face that stands in while ours load: named by local() only (nothing fetched), for each
    of its weights, scaled by our face's letter width (regular, and bold at vendor.BOLD) over its own, with our face's ascent and descent,
    and only over our face's ranges (other scripts still go to the reader's own faces)."""
    css = (FONTS / "fonts.css").read_text(encoding="utf-8")
    rules = [dict(re.findall(r"([\w-]+):\s*([^;]+);", b)) for b in RULE.findall(css)]
    ours = {r["font-family"].strip('"'): r for r in rules if r["src"].startswith("url(") and "-latin-wght" in r["src"]}
    ranges = {}
    for r in rules:
        if r["src"].startswith("url("):
            ranges.setdefault(r["font-family"].strip('"'), set()).update(_codepoints(r["unicode-range"]))
    assert {s.face for s in vendor.STAND_INS} == {f.family for f in vendor.FACES}
    widths = {}  # (face, weight) -> its letter width: instancing a variable font takes about a second
    for s in vendor.STAND_INS:
        mine = [r for r in rules if r["font-family"].strip('"') == s.family]
        assert [r["font-weight"] for r in mine] == ["100 549", "550 900"], s.family
        font = TTFont(FONTS / re.fullmatch(r'url\(([^)]+)\) format\("woff2"\)', ours[s.face]["src"]).group(1))
        upm, os2 = font["head"].unitsPerEm, font["OS/2"]
        for weight in (400, vendor.BOLD):
            if (s.face, weight) not in widths:
                widths[s.face, weight] = vendor.letter_width(font, weight)
        for r, names, adjust in zip(mine, (s.regular, s.bold), (widths[s.face, 400] / s.width, widths[s.face, vendor.BOLD] / s.bold_width)):
            assert 0.8 < adjust < 1.2, (s.family, adjust)  # a stand-in of about our size, or it is the wrong face
            assert r["src"] == ", ".join(f'local("{n}")' for n in names), s.family
            assert float(r["size-adjust"].rstrip("%")) == pytest.approx(adjust * 100, abs=0.006), s.family
            assert float(r["ascent-override"].rstrip("%")) * adjust == pytest.approx(os2.sTypoAscender / upm * 100, abs=0.01)
            assert float(r["descent-override"].rstrip("%")) * adjust == pytest.approx(-os2.sTypoDescender / upm * 100, abs=0.01)
            assert _codepoints(r["unicode-range"]) == ranges[s.face], s.family


def test_a_cut_face_keeps_its_sources_date_so_each_build_writes_the_same_bytes():
    """fontTools stamps a saved font with the time of saving unless told not to: the cut files would then
    differ from build to build (and their woff2 sizes with them)."""
    cuts = [(vendor.NODE_MODULES / vendor.SYMBOL_SOURCE, FONTS / "nexttoken-symbols.woff2")]
    cuts += [(vendor.NODE_MODULES / f.package / "files" / f"{f.stem}-latin-wght-{f.style}.woff2",
              FONTS / f"{f.stem}-latin-wght-{f.style}.woff2") for f in vendor.FACES]
    for source, cut in cuts:
        assert TTFont(cut)["head"].modified == TTFont(source)["head"].modified, cut.name


@pytest.mark.slow  # makes two instances, about a second each
def test_letter_width_is_the_width_of_an_instance_made_by_fonttools():
    """letter_width reads a variable font's advances at the stand-ins' bold without making the instance: the
    same widths, to the bit, as the instance fontTools' instancer makes (its advances rounded to whole units).
    (Between two masters the two differ in the fifth decimal: the instancer rounds each region's delta.)"""
    from fontTools.varLib import instancer
    for face in ("inter", "source-serif-4"):
        font = TTFont(FONTS / f"{face}-latin-wght-normal.woff2")
        instance = instancer.instantiateVariableFont(TTFont(FONTS / f"{face}-latin-wght-normal.woff2"), {"wght": vendor.BOLD})
        assert "fvar" not in instance
        assert vendor.letter_width(font, vendor.BOLD) == vendor.letter_width(instance), face


def test_the_kit_names_our_families_first():
    css = (ROOT / "docs" / "css" / "nexttoken.css").read_text(encoding="utf-8")
    for var, family in (("text", "Inter Variable"), ("display", "Source Serif 4 Variable"), ("code", "JetBrains Mono Variable")):
        stack = re.search(rf"--nt-font-{var}:\s*([^;]+);", css).group(1)
        names = [n.strip().strip('"') for n in stack.split(",")]
        assert names[:2] == [family, vendor.SYMBOL_FAMILY], names
        # then the faces that stand in while ours load, before the reader's own
        assert names[2:2 + sum(s.face == family for s in vendor.STAND_INS)] == [s.family for s in vendor.STAND_INS if s.face == family], names
        assert "sans-serif" in names or "serif" in names or "monospace" in names  # then the system's own
