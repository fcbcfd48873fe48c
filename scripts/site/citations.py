"""Where a real-model number comes from, said quietly: a thin mark on the number, a popover, a one-line key under
the page's first mark, and one closed "Where these numbers come from" at the page's end.

  marker(wrapped, key)  what the pages' `status` filter prints after a number: a placeholder holding the
                        number's status, its whole source (escaped) and its data key, until the page's HTML is
                        complete
  reader_words(status, source, key)
                        the popover's first sentence, in the reader's words: where the number comes from
                        ("Read from GPT-2's config", "From GPT-2's paper"), no file name, no data key
  footnote(html)        on the page's HTML: numbers each distinct source of the page (in order of first use) and
                        turns each placeholder into a mark: a small button (named "where this number comes
                        from", described by its popover) and the popover, which says the reader's sentence,
                        then the auditor's detail (the status, the whole source, the data key) and links to the
                        source's line; writes the key (what each shape of mark means, in the reader's words)
                        after the block holding the page's first mark outside a demo; then writes one closed
                        <details> ("Where these numbers come from") at the page's end, one line per source with
                        its label (m measured, c computed, p published, cfg config, and the source's number), its
                        status, its whole source and the data keys the page prints from it
Search (Material's plugin) indexes the prose only: the buttons, popovers, key and sources block carry
`data-search-exclude`, and none of them holds an element of its own tag, because the plugin's parser drops an
excluded element at the first closing tag of the same name (its elements compare by tag).
The marks' script (docs/js/marks.js) opens a popover on tap and keeps the "auditor's view" (every mark's
label shown inline) across pages. The build checks that every mark resolves to a source line that names
its whole source (scripts/site/hooks/checks.py).
"""
from __future__ import annotations

import html
import re
from html.parser import HTMLParser

WORDS = {"measured": "measured by this build", "computed": "computed by this build from a config or file",
         "published": "published", "config": "read from the model's config"}
LETTER = {"measured": "m", "computed": "c", "published": "p", "config": "cfg"}
PLACE = re.compile(r'\s*<sup class="nt-cite-raw" data-status="([a-z]+)" data-source="([^"]*)" data-key="([^"]*)"'
                   r'(?: data-href="([^"]*)")?></sup>')
WHERE = "nt-where"          # the <details> id; each source line is nt-where-N
TITLE = "Where these numbers come from"
EXCLUDE = "data-search-exclude"  # Material's search skips the element (see the module's docstring)
MODELS = {"gpt2": "GPT-2", "smollm2": "SmolLM2", "llama3": "Llama 3"}
# what each mark's shape says, in the reader's words (the key under the page's first mark)
KEY_WORDS = {"measured": "measured by running the model", "computed": "worked out from its files",
             "published": "published", "config": "read from its config"}
# publications a reader knows by another name than their title
KNOWN = {"Language Models are Unsupervised Multitask Learners": "From GPT-2's paper (OpenAI, 2019)",
         "The Llama 3 Herd of Models": "From Meta's Llama 3 paper (2024)",
         "50,257 bars, one word": "From a published run of GPT-2 small (engineering.fm); GPT-2 itself does not run on this site"}


def _attr(text: str) -> str:
    """Escaped for HTML text and attributes alike; `|` too, since a mark often sits in a table cell."""
    return html.escape(text, quote=True).replace("|", "&#124;")


def marker(wrapped: dict, key: str = "") -> str:
    if not isinstance(wrapped, dict):
        raise ValueError(f"status: {wrapped!r} is not a number with a source (a real model's {{value, status, source}})")
    st = wrapped.get("status")
    if st not in WORDS:
        raise ValueError(f"status: this number is {st!r} (no value to show): {wrapped.get('source')}")
    href = ""
    if st == "published":
        href = f' data-href="sources.html#{_attr(wrapped.get("anchor", "published-gpt-2-measurements"))}"'
    return (f'<sup class="nt-cite-raw" data-status="{st}" data-source="{_attr(str(wrapped.get("source", "")))}" '
            f'data-key="{_attr(key)}"{href}></sup>')


def _model(key: str, source: str) -> str:
    """The model a number is about: its data key's first part, else the first model its source names."""
    name = MODELS.get(key.split(".")[0])
    if name:
        return name
    found = [(source.find(n), n) for n in ("SmolLM2", "GPT-2", "the tiny model") if n in source]
    return min(found)[1] if found else "the model"


def _title(source: str) -> str:
    m = re.search(r'[“"]([^”"]+)[”"]', source)
    return m.group(1) if m else ""


def reader_words(status: str, source: str, key: str = "") -> str:
    """Where the number comes from, for a reader: the model and the kind of source, never a file or a key."""
    model, low = _model(key, source), source.lower()
    if status == "measured":
        if ".gguf" in low:
            return f"Read from {model}'s weights file"
        return f"Measured: {model} itself was run to get this number"
    if status == "config":
        return f"Read from {model}'s config, the file of sizes that comes with its weights"
    if status == "published":
        title = _title(source)
        if title in KNOWN:
            return KNOWN[title]
        if "model card" in low:
            return f"From {model}'s model card, written by its makers"
        return f"From a publication, “{title}”" if title else "From a publication"
    # computed: what it was worked out from, without the build's words or file paths
    what = re.sub(r"^computed by this build from (a config or file: )?(computed from )?", "", source, flags=re.I)
    what = re.sub(r"\s*\((via )?site_data/[^()]*(\([^()]*\)[^()]*)*\)", "", what)
    if "tokenizer files" in what:
        return f"Counted in {model}'s tokenizer files"
    if re.match(r"[\w.-]+/[\w.-]+ config\.json$", what):
        return f"Worked out from {model}'s config, the file of sizes that comes with its weights"
    what = what.replace("the tiny model's traces", "the tiny model's own pass").replace("config.json", "config")
    return "Worked out from " + what.rstrip(". ")


def status_text(status: str, source: str) -> str:
    """The words a source line gives one source, and its marks' popovers too (a source that already says
    "computed by this build from ..." is not prefixed with the same words again)."""
    if status == "computed" and source.startswith("computed by this build"):
        return source
    return f"{WORDS[status]}: {source}"


class _Page:
    """Numbers the page's sources in order of first use, and the data keys printed from each."""

    def __init__(self) -> None:
        self.numbers: dict[tuple, int] = {}
        self.keys: dict[int, list[str]] = {}
        self.marks = 0
        self.statuses: dict[str, None] = {}

    def mark(self, m: re.Match) -> str:
        st, src, key, href = m.group(1), html.unescape(m.group(2)), html.unescape(m.group(3)), html.unescape(m.group(4) or "")
        n = self.numbers.setdefault((st, src, href), len(self.numbers) + 1)
        keys = self.keys.setdefault(n, [])
        if key and key not in keys:
            keys.append(key)
        self.marks += 1
        self.statuses.setdefault(st, None)
        pop = f"nt-mark-{self.marks}"
        label = f"{LETTER[st]}{n}"
        said = _attr(status_text(st, src)[:1].upper() + status_text(st, src)[1:])
        data = f' Data key: <code>{_attr(key)}</code>.' if key else ""
        # the button and its popover: hover and focus show it (CSS), a tap pins it (docs/js/marks.js). The
        # popover holds no <span> (see the module's docstring): the reader's sentence, then the auditor's line.
        return (f'<span class="nt-mark nt-mark-{st}"><button type="button" class="nt-mark-btn" aria-expanded="false" '
                f'aria-controls="{pop}" aria-describedby="{pop}" {EXCLUDE}><span class="nt-sr">where this number comes from</span>'
                f'<span class="nt-mark-label" aria-hidden="true">{label}</span></button>'
                f'<span class="nt-pop" id="{pop}" {EXCLUDE}><strong class="nt-pop-reader">{_attr(reader_words(st, src, key))}.</strong> '
                f'<small class="nt-pop-audit"><em class="nt-pop-said">{said}</em>.{data} '
                f'<a href="#{WHERE}-{n}" class="nt-pop-link">All sources ({label})</a></small></span></span>')

    def key(self) -> str:
        """The one-line key under the page's first mark: each shape of mark on the page, in the reader's words."""
        items = ", ".join(f'<span class="nt-key-item nt-key-{st}"><i class="nt-key-glyph" aria-hidden="true"></i> '
                          f'{KEY_WORDS[st]}</span>' for st in KEY_WORDS if st in self.statuses)
        return f'<p class="nt-mark-key" {EXCLUDE}>A mark after a number says where it comes from (tap one): {items}.</p>'

    def details(self) -> str:
        items = []
        for (st, src, href), n in sorted(self.numbers.items(), key=lambda kv: kv[1]):
            shown = f'<a href="{_attr(href)}">{_attr(src)}</a>' if href else _attr(src)
            keys = ", ".join(f"<code>{_attr(k)}</code>" for k in self.keys.get(n, []))
            said = status_text(st, src)
            words = _attr(said[:len(said) - len(src)])
            items.append(f'<li class="nt-src nt-src-{st}" id="{WHERE}-{n}"><span class="nt-src-chip nt-src-chip-{st}">'
                         f'{LETTER[st]}{n}</span> <span class="nt-src-text">{words}{shown}</span>'
                         + (f'<span class="nt-src-keys"> (data {"keys" if "," in keys else "key"}: {keys})</span>' if keys else "")
                         + "</li>")
        return (f'\n<details class="nt-where" id="{WHERE}" {EXCLUDE}><summary>{TITLE}</summary>\n'
                '<p>A number with a thin mark after it comes from a real model: hover, focus or tap the mark to see '
                'whether this build measured it, computed it from a config or file, or took it from a publication, '
                'and from where. The tiny model\'s numbers are all computed by this build.</p>\n'
                '<p class="nt-audit-row" hidden><button type="button" class="nt-audit" aria-pressed="false">'
                "Auditor's view: show every mark's label in the text</button></p>\n"
                f'<ul class="nt-sources" aria-label="Sources of this page\'s numbers">{"".join(items)}</ul>\n</details>\n')


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
BLOCKS = {"p", "li", "dd", "figcaption", "blockquote"}  # a key can follow these where they end
WHOLE = {"table", "ul", "ol", "dl"}                       # a mark in a cell or item of these: after the whole


class _FirstMark(HTMLParser):
    """Where the key goes: the block holding the first mark that is not inside a demo (its fallback goes once
    the demo runs) or a fold (closed at first); the first mark anywhere when every mark is."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool, tuple[int, int]]] = []  # open elements: (tag, a demo or a fold, start)
        self.goal: tuple[int, bool] | None = None  # the block the key goes by: (its depth, inside a demo or fold)
        self.found: dict[bool, tuple] = {}  # inside a demo or fold -> ((line, col) of the block's start, of its end tag)

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "span" and "nt-mark" in classes and (self.goal is None or self.goal[1]):
            hidden = any(h for _, h, _ in self.stack)
            depth = self._block()
            if depth is not None and (self.goal is None or not hidden):
                self.goal = (depth, hidden)
        if tag not in VOID:
            self.stack.append((tag, "nt-demo" in classes or tag == "details", self.getpos()))

    def _block(self) -> int | None:
        tags = [t for t, _, _ in self.stack]
        for i, t in enumerate(tags):  # the outermost table or list, else the innermost block
            if t in WHOLE:
                return i
        for i in range(len(tags) - 1, -1, -1):
            if tags[i] in BLOCKS:
                return i
        return None

    def handle_endtag(self, tag):
        if tag not in (t for t, _, _ in self.stack):
            return
        while self.stack:
            t, _, start = self.stack.pop()
            if self.goal is not None and len(self.stack) == self.goal[0] and self.goal[1] not in self.found:
                self.found[self.goal[1]] = (start, self.getpos())
            if t == tag:
                break


def _with_key(text: str, key: str) -> str:
    """The page's HTML with the key after the block holding its first mark (see _FirstMark), or before it when
    the block ends on a colon (it leads into what follows)."""
    finder = _FirstMark()
    finder.feed(text)
    finder.close()
    at = finder.found.get(False) or finder.found.get(True)
    if at is None:
        return key + "\n" + text
    starts = [0]
    for line in text.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    begin = starts[at[0][0] - 1] + at[0][1]
    end = starts[at[1][0] - 1] + at[1][1]
    if re.sub(r"<[^>]*>|\s", "", text[begin:end]).endswith(":"):
        return text[:begin] + key + "\n" + text[begin:]
    end = text.index(">", end) + 1  # past the end tag
    return text[:end] + "\n" + key + text[end:]


def footnote(html_text: str) -> str:
    if "nt-cite-raw" not in html_text:
        return html_text
    page = _Page()
    text = PLACE.sub(page.mark, html_text)
    return _with_key(text, page.key()) + page.details()
