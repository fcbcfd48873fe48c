"""The prose a reader reads on a page, measured one way for the build's checks and the first-minute report.

Prose is the text of paragraphs and list items (and of definitions, quotes and open admonitions) in a
page's HTML, outside what is not read as running text: demos (.nt-demo), tables, figures, code blocks,
closed <details> (folded caveats, "Where these numbers come from"), the marks' popovers, text for screen
readers only, the pass map and rows of chips. A formula counts as one word.

  prose_blocks(html)    the prose blocks in document order, each a block's own text (a list item's nested
                        paragraph is its own block)
  words(text)           whitespace-separated runs holding a letter or a digit ("·", "→", "|" are not words)
  sentences(text)       the text cut at . ! ? followed by a space (abbreviations and initials kept whole)
  long_sentences(blocks, limit)   the sentences of more than `limit` words
  build_words(text)     mentions of the build ("build", "built", "builds", "building")
"""
from __future__ import annotations

import re
from html.parser import HTMLParser

BLOCKS = {"p", "li", "dd", "dt", "blockquote"}
SKIP_TAGS = {"table", "figure", "pre", "script", "style", "noscript", "template", "svg", "nav", "summary",
             "h1", "h2", "h3", "h4", "h5", "h6", "button"}
SKIP_CLASSES = {"nt-demo", "nt-mark", "nt-pop", "nt-sr", "headerlink", "nt-vocab", "nt-tokens", "nt-strip",
                "nt-strip-block", "nt-bytes", "nt-howtocite", "nt-map", "nt-map-phone", "nt-share", "nt-noprose"}
VOID = {"br", "img", "input", "meta", "link", "hr", "wbr", "area", "base", "col", "embed", "source", "track"}

WORD = re.compile(r"[^\W_]", re.UNICODE)
ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|vs|al|cf|etc|approx|Fig|No|Mr|Dr|St)|\b[A-Z])\.$")
END = re.compile(r"(?<=[.!?])([\"”’)\]]*)\s+")
BUILD = re.compile(r"\bbuil(?:d|ds|t|ding)\b", re.I)


class _Prose(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool, int | None]] = []  # (tag, skipped, index of the block it opens)
        self.blocks: list[str] = []
        self.open: list[int] = []  # indexes of the open blocks, innermost last

    def _skipped(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        if tag == "math":  # a formula reads as one word
            if not self._skipped() and self.open:
                self.blocks[self.open[-1]] += " x "
        skip = (self._skipped() or tag in SKIP_TAGS or tag == "math" or bool(classes & SKIP_CLASSES)
                or (tag == "details" and "open" not in a) or "hidden" in a)
        if tag in VOID:
            return
        block = None
        if tag in BLOCKS and not skip:
            block = len(self.blocks)
            self.blocks.append("")
            self.open.append(block)
        self.stack.append((tag, skip, block))

    def handle_startendtag(self, tag, attrs):
        if tag == "math" and not self._skipped() and self.open:
            self.blocks[self.open[-1]] += " x "

    def handle_endtag(self, tag):
        if tag in VOID or not any(t == tag for t, _, _ in self.stack):
            return
        while self.stack:
            t, _, block = self.stack.pop()
            if block is not None:
                self.open.remove(block)
            if t == tag:
                break

    def handle_data(self, data):
        if not self._skipped() and self.open:
            self.blocks[self.open[-1]] += data


def prose_blocks(html_text: str) -> list[str]:
    """The prose blocks of a page's HTML (its article when the whole page is given), whitespace collapsed."""
    start = html_text.find("<article")
    if start >= 0:
        html_text = html_text[start:html_text.find("</article>", start)]
    parser = _Prose()
    parser.feed(html_text)
    parser.close()
    return [b for b in (" ".join(x.split()) for x in parser.blocks) if b]


def words(text: str) -> int:
    return sum(1 for t in text.split() if WORD.search(t))


def sentences(text: str) -> list[str]:
    out, start = [], 0
    text = " ".join(text.split())
    for m in END.finditer(text):
        if ABBREV.search(text[start:m.start()]):
            continue
        out.append(text[start:m.end(1)])
        start = m.end()
    if text[start:].strip():
        out.append(text[start:])
    return out


def long_sentences(blocks: list[str], limit: int) -> list[str]:
    return [s for b in blocks for s in sentences(b) if words(s) > limit]


def build_words(text: str) -> int:
    return len(BUILD.findall(text))


# ---- the limits (the build's checks in scripts/site/hooks/checks.py; scripts/quality/first_minute.py) ----

# The main path: the ten pages from the loop to the real model, read in order.
MAIN_PAGES = ("index.md", "tokens.md", "embeddings.md", "attention.md", "block.md", "sampling.md", "generation.md",
              "context.md", "training.md", "real-models.md")
MAIN_WORDS = 900      # prose words on one main page
MAIN_TOTAL = 6000     # on the ten together (reported by first_minute; the per-page limit keeps it near)
MAIN_BUILD = 1        # mentions of the build on one main page, in the reader's words
SHELF_WORDS = 1500    # on a page of the shelf after the main path
SHELF_PAGES = ("fast.md", "weights.md", "making.md")
SENTENCE_WORDS = 30   # words in a sentence, on every page but the list of sources
NO_SENTENCE_LIMIT = ("sources.md",)

BUILD_FILE = re.compile(r"site_data/|\b[\w.-]+\.(?:json|gguf|safetensors)\b|\b\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d)?Z?\b")


def build_file_blocks(blocks: list[str]) -> list[str]:
    """Blocks naming build files: a site_data/ path, a .json/.gguf/.safetensors file or a timestamp."""
    return [b for b in blocks if BUILD_FILE.search(b)]
