"""The site's own type (STYLE.md, Type; scripts/site/vendor.py), checked on the built site: every character
the pages draw is in one of our faces, each face's file holds what its unicode-range sends to it or the
symbols face does, nothing comes from elsewhere, and every page preloads its text face."""
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
        src = re.fullmatch(r'url\(([^)]+)\) format\("woff2"\)', props["src"]).group(1)
        out.append({**props, "family": props["font-family"].strip('"'), "file": FONTS / src,
                    "range": _codepoints(props["unicode-range"]), "cmap": set(TTFont(FONTS / src).getBestCmap())})
    return out


class _Text(HTMLParser):
    """The text a page draws: its text nodes, without scripts, styles and MathML (the browser's math font)."""

    def __init__(self) -> None:
        super().__init__()
        self.skip, self.parts = 0, []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "math"):
            self.skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style", "math"):
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def test_every_face_is_ours_swaps_and_has_its_file(faces):
    assert {f["family"] for f in faces} == {f.family for f in vendor.FACES} | {vendor.SYMBOL_FAMILY}
    for f in faces:
        assert f["font-display"] == "swap", f["file"].name
        assert f["file"].is_file() and f["file"].parent == FONTS
    listed = {f["file"].name for f in faces}
    assert {p.name for p in FONTS.glob("*.woff2")} == listed  # no file shipped that no rule names
    symbols = [f for f in faces if f["family"] == vendor.SYMBOL_FAMILY]
    assert len(symbols) == 1 and symbols[0]["range"] == symbols[0]["cmap"] >= {ord(c) for c in vendor.SYMBOLS}


def test_every_character_the_pages_draw_is_in_one_of_our_faces(faces):
    """As the browser picks (STYLE.md's stack): the text face's files whose ranges hold the character, then
    the symbols face. A character none has is named with its pages: add it to vendor.SYMBOLS if DejaVu Sans
    has it."""
    text = [f for f in faces if f["family"] == "Inter Variable" and f["font-style"] == "normal"]
    symbols = [f for f in faces if f["family"] == vendor.SYMBOL_FAMILY]
    missing: dict[str, set[str]] = {}
    pages = sorted(_site().glob("*.html")) + sorted(SITE.glob("embed/*.html"))
    assert len(pages) > 20
    for page in pages:
        parser = _Text()
        parser.feed(page.read_text(encoding="utf-8"))
        for ch in set("".join(parser.parts)):
            c = ord(ch)
            if ch.isspace() or c < 0x20:
                continue
            if not any(c in f["range"] and c in f["cmap"] for f in text + symbols):
                missing.setdefault(f"U+{c:04X} {ch}", set()).add(page.relative_to(SITE).as_posix())
    assert missing == {}


def test_the_code_and_title_faces_cover_what_the_text_face_does():
    """Each face ships the same subsets, so a character never changes face between text, titles and code."""
    for face in vendor.FACES:
        assert face.subsets == vendor.SUBSETS


def test_every_page_preloads_its_text_face_when_served():
    pages = sorted(_site().glob("*.html")) + sorted(SITE.glob("embed/*.html"))
    for page in pages:
        html = page.read_text(encoding="utf-8")
        found = re.search(r'l\.href = "([^"]+)"', html)
        assert found and 'l.rel = "preload"' in html, page.name
        href = found.group(1)  # 404.html's links start at the root, as the theme makes them
        assert (SITE / href.lstrip("/") if href.startswith("/") else page.parent / href).resolve() == (SITE / "assets" / "vendor" / vendor.PRELOAD).resolve(), page.name


def test_the_kit_names_our_families_first():
    css = (ROOT / "docs" / "css" / "nexttoken.css").read_text(encoding="utf-8")
    for var, family in (("text", "Inter Variable"), ("display", "Source Serif 4 Variable"), ("code", "JetBrains Mono Variable")):
        stack = re.search(rf"--nt-font-{var}:\s*([^;]+);", css).group(1)
        names = [n.strip().strip('"') for n in stack.split(",")]
        assert names[:2] == [family, vendor.SYMBOL_FAMILY], names
        assert "sans-serif" in names or "serif" in names or "monospace" in names  # then the system's own
