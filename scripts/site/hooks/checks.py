"""MkDocs hook: the build checks the pages' own text, so that a typed number, a broken header or a cut
source fails it.

Two checks on every page's source (docs/*.md, read from disk, so the order of hooks does not matter):
  front matter  the page starts with a YAML block (`---` ... `---`) that parses to a mapping with a
                non-empty string `title` and `description` (the theme's <title> and meta description).
                Text that is not YAML would otherwise be shown as a paragraph, and the page would have
                no description.
  prose digits  a digit in page prose is a typed number, and every number is meant to come from the
                data. Template expressions ([[ ]], [% %], [# #]), math, code, headings, HTML tags
                with their attributes, attribute lists ({ #id }) and link targets are masked; a digit
                left over fails the build unless an entry of scripts/site/prose_allowlist.yaml (each
                with a reason: a model's name, a year, ...) covers it.
And one on every page's HTML once the numbers and their source lines are in (on_page_content, run after
numbers.py's, which writes them: scripts/site/citations.py):
  citations     each source marker (sup.nt-cite, from numbers.py's `status` filter) is a link with a
                non-empty title and no attribute other than href and title (a quote in the source that was
                not escaped splits it into stray attributes), whose target is a source line on the page
                that reads exactly its title (the status and the whole source); no placeholder is left.
Any failure raises PluginError naming the page and line.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import yaml
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[3]
ALLOWLIST = ROOT / "scripts" / "site" / "prose_allowlist.yaml"
FRONT_KEYS = ("title", "description")

# What is not prose, in the order it is masked (after the templates, see _mask_templates).
MASKS = [
    re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M),          # fenced code
    re.compile(r"\$\$.*?\$\$|\\\(.*?\\\)|\\\[.*?\\\]", re.S),      # math, display and inline
    re.compile(r"(`+)(?:(?!\1).)+?\1"),                            # inline code
    re.compile(r"<[^>]*>"),                                        # HTML tags and their attributes
    re.compile(r"\{\s*[#.:][^}\n]*\}|\{[^}\n]*=[^}\n]*\}"),        # attribute lists: { #id }, { loading=lazy }
    re.compile(r"(?<=\])\([^)\s]*\)"),                             # link targets
    re.compile(r"^ {0,3}#{1,6}\s.*$", re.M),                       # headings
]
DIGIT = re.compile(r"\S*\d\S*")


def _blank(m: re.Match) -> str:
    return re.sub(r"[^\n]", " ", m.group(0))


def _mask_templates(text: str) -> str:
    """Blank out [[ ]], [% %] and [# #]. An expression may hold brackets of its own (`prompts[0]]]`),
    so `[[` is closed by the first `]]` outside them, as Jinja's lexer does; an unclosed one runs to the end."""
    out, i = [], 0
    while i < len(text):
        opener = text[i:i + 2]
        if opener not in ("[[", "[%", "[#"):
            out.append(text[i])
            i += 1
            continue
        j, depth = i + 2, 0
        while j < len(text):
            if opener == "[[":
                if text[j] == "[":
                    depth += 1
                elif text[j] == "]":
                    if depth == 0 and text[j + 1:j + 2] == "]":
                        break
                    depth -= 1
            elif text[j:j + 2] == opener[1] + "]":
                break
            j += 1
        end = min(j + 2, len(text))
        out.append(re.sub(r"[^\n]", " ", text[i:end]))
        i = end
    return "".join(out)


def split_front_matter(source: str) -> tuple[str | None, str, int]:
    """(front matter text or None, body, number of source lines before the body)."""
    lines = source.split("\n")
    if lines[0].strip() != "---":
        return None, source, 0
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1:]), i + 1
    return None, source, 0


def front_matter_errors(source: str) -> list[str]:
    """Why the page's front matter would not give the theme a title and a description ([] when it does)."""
    front, _, _ = split_front_matter(source)
    if front is None:
        return ["line 1: no front matter (a `---` block with title and description)"]
    try:
        meta = yaml.safe_load(front)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 2}" if mark else "front matter"
        return [f"{where}: front matter is not YAML ({getattr(exc, 'problem', None) or exc}); "
                "quote a value that holds ': '"]
    if not isinstance(meta, dict):
        return ["front matter: is not a mapping of keys to values"]
    return [f"front matter: `{k}` is missing or not a non-empty string" for k in FRONT_KEYS
            if not isinstance(meta.get(k), str) or not meta[k].strip()]


def load_allowlist(path: Path = ALLOWLIST) -> list[dict]:
    """Entries {text | regex, reason, pages?}, each compiled to `pattern`; a malformed entry fails the build."""
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    try:
        entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    except (OSError, yaml.YAMLError) as exc:
        raise PluginError(f"checks hook: cannot read {where} ({exc})") from None
    out = []
    for n, e in enumerate(entries, 1):
        if not isinstance(e, dict) or not e.get("reason") or ("text" in e) == ("regex" in e):
            raise PluginError(f"checks hook: {where} entry {n}: needs `text` or `regex`, and a `reason`")
        pattern = re.compile(re.escape(str(e["text"])) if "text" in e else e["regex"])
        out.append(e | {"pattern": pattern})
    return out


def prose_digits(body: str, allow: list[dict], page: str = "", first_line: int = 1) -> list[str]:
    """'line N: `word` in “line text”' for each digit in prose that no allowlist entry covers."""
    masked = _mask_templates(body)
    for mask in MASKS:
        masked = mask.sub(_blank, masked)
    found = []
    for n, (line, orig) in enumerate(zip(masked.split("\n"), body.split("\n")), first_line):
        for e in allow:
            if not e.get("pages") or page in e["pages"]:
                line = e["pattern"].sub(lambda m: " " * len(m.group(0)), line)
        for m in DIGIT.finditer(line):
            found.append(f"line {n}: typed number `{m.group(0)}` in “{orig.strip()[:100]}”")
    return found


def page_errors(source: str, page: str, allow: list[dict]) -> list[str]:
    _, body, offset = split_front_matter(source)
    return front_matter_errors(source) + prose_digits(body, allow, page, offset + 1)


class _Citations(HTMLParser):
    """Collects each marker's link (sup.nt-cite > a) and each source line (li.nt-src): attributes, text, line."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.markers: list[dict] = []
        self.sources: dict[str, str] = {}
        self.raw = 0
        self._sup = False
        self._open: dict | None = None
        self._src: list | None = None  # [id, text, depth]

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if "nt-cite-raw" in classes:
            self.raw += 1
        if self._src is not None:
            self._src[2] += 1
        if tag == "li" and "nt-src" in classes:
            self._src = [dict(attrs).get("id", ""), "", 0]
        elif tag == "sup" and "nt-cite" in classes:
            self._sup = True
        elif tag == "a" and self._sup:
            self._open = {"attrs": attrs, "text": "", "line": self.getpos()[0]}

    def handle_data(self, data):
        if self._open is not None:
            self._open["text"] += data
        if self._src is not None:
            self._src[1] += data

    def handle_endtag(self, tag):
        if tag == "a" and self._open is not None:
            self.markers.append(self._open)
            self._open = None
        elif tag == "sup":
            self._sup = False
        if self._src is not None:
            if self._src[2] == 0:
                self.sources[self._src[0]] = self._src[1]
                self._src = None
            else:
                self._src[2] -= 1


def citation_errors(html_text: str) -> list[str]:
    parser = _Citations()
    parser.feed(html_text)
    errors = [f"{parser.raw} source markers were never resolved to a source line"] if parser.raw else []
    for m in parser.markers:
        attrs = dict(m["attrs"])
        where = f"HTML line {m['line']}: source marker {m['text'].strip()[:40]!r}"
        stray = [k for k, _ in m["attrs"] if k not in ("href", "title")]
        if stray:
            errors.append(f"{where} has stray attributes {stray}: its source was cut at a quote")
        title = (attrs.get("title") or "").strip()
        target = (attrs.get("href") or "").removeprefix("#")
        if not title:
            errors.append(f"{where} names no source")
        elif target not in parser.sources:
            errors.append(f"{where} links to no source line ({attrs.get('href')!r})")
        elif parser.sources[target].split(" ", 1)[-1].strip() != title:
            errors.append(f"{where}: its source line does not name its whole source ({title!r})")
    return errors


_allow: list[dict] | None = None


def on_pre_build(config, **kwargs):
    global _allow
    _allow = load_allowlist()


def on_page_markdown(markdown, page, config, files, **kwargs):
    global _allow
    if _allow is None:
        _allow = load_allowlist()
    src = page.file.src_path
    errors = page_errors(Path(page.file.abs_src_path).read_text(encoding="utf-8"), src, _allow)
    if errors:
        raise PluginError(f"checks hook: {src}: " + f"; {src}: ".join(errors)
                          + " (take numbers from the data, or add an entry with its reason to "
                          "scripts/site/prose_allowlist.yaml)")
    return markdown


@event_priority(-50)  # after numbers.py's on_page_content, which writes the source lines
def on_page_content(html_text, page, config, files, **kwargs):
    errors = citation_errors(html_text)
    if errors:
        src = page.file.src_path
        raise PluginError(f"checks hook: {src}: " + f"; {src}: ".join(errors))
    return html_text
