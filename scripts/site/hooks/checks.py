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
  math digits   a digit inside a formula (\( \), \[ \], $$) is a typed number too, except the 0 and 1
                of a formula's structure and a square (^2); so is a digit inside a quoted string of a
                template ([[ "k = 40" ]]). Both are covered by the allowlist like prose.
  statuses      a real model's number printed by a [[ ]] expression (gpt2.*, smollm2.*, llama3.* and
                SmolLM2's stored distributions, through any [% set %] or [% for %] name for them) needs
                in the same block (paragraph, list item or table) a status badge ([[ x | status ]]) of
                the same source, so no model number stands without saying where it comes from.
  counting      one counting base per page: a position, head, layer, snapshot, step or token numbered
                by an expression (inline "head [[ sh + 1 ]]", or a table column under that header) is
                counted from zero or from one, never both on one page.
  description   the front matter's description goes into <meta content="..."> unescaped, so it may not
                hold a straight double quote, < or > (use “ ”).
And one on the real-model prompts' labels (scripts/config/real_prompts.json), before the pages:
  labels        a label that claims a shape (flat, spread, one answer, peaked, a fact) must agree with
                what the measured bars show (scripts/real/page_variables.py's distribution_shape).
And one on every page's HTML once the numbers and their source lines are in (on_page_content, run after
numbers.py's, which writes them: scripts/site/citations.py):
  citations     each mark (button.nt-mark-btn, from numbers.py's `status` filter) has no attribute but its own
                (a quote in the source that was not escaped splits it into stray attributes) and is
                described by its popover, which says the status and the whole source and links to a source
                line of the page's one "Where these numbers come from" that reads exactly the same; no
                placeholder is left.
  prose         the page's prose as a reader reads it (scripts/site/prose.py: paragraphs and list items outside
                demos, tables, figures and closed details): no sentence over 30 words (but on Sources, a list
                of references), at most 900 words on each of the ten pages of the main path and 1,500 on a
                page of the shelf after it, and "build" said at most once on a main page. Each error names
                the source line its text stands on (the line found by a run of the text's words).
Any failure raises PluginError naming the page and line.
"""
from __future__ import annotations

import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import yaml
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:  # MkDocs loads hooks by path: make `scripts` importable from anywhere
    sys.path.insert(0, str(ROOT))

from scripts.real.page_variables import distribution_shape, load_real_models  # noqa: E402
from scripts.site import prose  # noqa: E402
from scripts.site.citations import WORDS as STATUS_WORDS_BY_STATUS  # noqa: E402
STATUS_WORDS = list(STATUS_WORDS_BY_STATUS.values()) + ["computed by this build"]  # how a popover starts
ALLOWLIST = ROOT / "scripts" / "site" / "prose_allowlist.yaml"
LABELS = ROOT / "scripts" / "config" / "real_prompts.json"
DISTRIBUTIONS = ROOT / "site_data" / "smollm2" / "distributions"
TINY = ROOT / "site_data" / "tiny" / "config.json"
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


MATH = re.compile(r"\$\$.*?\$\$|\\\(.*?\\\)|\\\[.*?\\\]", re.S)
TEMPLATE = re.compile(r"\[\[.*?\]\]|\[%.*?%\]", re.S)
STRING = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'")
# the structure of a formula: 0 and 1 standing alone (sums from 1, weights from 0 to 1) and squares
MATH_OK = re.compile(r"(?<![\d.])[01](?![\d.])|\^\{?2\}?")
NUMBER = re.compile(r"(?<![A-Za-z_\d.])\d+(?:[.,]\d+)*")


def _line_of(text: str, pos: int, first_line: int) -> int:
    return first_line + text.count("\n", 0, pos)


def _allowed(text: str, allow: list[dict], page: str) -> str:
    for e in allow:
        if not e.get("pages") or page in e["pages"]:
            text = e["pattern"].sub(lambda m: " " * len(m.group(0)), text)
    return text


def hidden_digits(body: str, allow: list[dict], page: str = "", first_line: int = 1) -> list[str]:
    """Typed numbers where the prose check cannot see them: inside formulas and inside the quoted
    strings of template expressions and statements."""
    found = []
    code = MASKS[0].sub(_blank, body)  # fenced code is code, not a formula
    for m in MATH.finditer(code):
        rest = _allowed(MATH_OK.sub(lambda x: " " * len(x.group(0)), TEMPLATE.sub(_blank, m.group(0))), allow, page)
        for d in NUMBER.finditer(rest):
            found.append(f"line {_line_of(code, m.start() + d.start(), first_line)}: typed number `{d.group(0)}` "
                         f"inside the formula “{m.group(0).strip()[:60]}”")
    for m in TEMPLATE.finditer(code):
        for q in STRING.finditer(m.group(0)):
            for d in NUMBER.finditer(_allowed(q.group(0), allow, page)):
                found.append(f"line {_line_of(code, m.start() + q.start(), first_line)}: typed number "
                             f"`{d.group(0)}` inside the template string {q.group(0)[:60]}")
    return found


# ---- a model number printed without its status -----------------------------------------------------

ROOTS = ("gpt2", "smollm2", "llama3", "smollm2_dist")
PATH = re.compile(r"(?<![\w.\"'])([a-z_][a-z0-9_]*)((?:\.[a-z_][a-z0-9_]*|\[[^\[\]]*\])*)")
SET = re.compile(r"\[%-?\s*set\s+([a-z_][a-z0-9_]*)\s*=\s*([a-z_][\w.\[\]\"']*)")
FOR = re.compile(r"\[%-?\s*for\s+(?:[a-z_]\w*\s*,\s*)?([a-z_][a-z0-9_]*)\s+in\s+([a-z_][\w.\[\]\"']*)")
NUMERIC = re.compile(r"\|\s*(pct|num|fix|round|int|sum|min|max)\b|[-+*/]\s*[\w(]|\blength\b")
TEXT_KEYS = {"source", "status", "token", "text", "shape", "pieces", "tokens", "type", "file_type", "weights_file",
             "compute_dtype", "dtype", "device", "model_id", "libraries", "piece", "chat", "key", "name", "url", "address"}


def _steps(rest: str) -> list:
    """'.a[0]["b"].c' -> ['a', 0, 'b', 'c'] (a subscript that is not a literal: None)."""
    out = []
    for m in re.finditer(r"\.([a-z_]\w*)|\[([^\[\]]*)\]", rest):
        if m.group(1):
            out.append(m.group(1))
        else:
            k = m.group(2).strip()
            out.append(int(k) if k.lstrip("-").isdigit() else k[1:-1] if k[:1] in "\"'" else None)
    return out


class ModelNumbers:
    """Resolves a page's template paths to the wrapped real-model number they print ({status, source});
    SmolLM2's stored distributions (smollm2_dist.<key>) resolve to their files' values."""

    def __init__(self, real: dict | None = None, dists: dict | None = None):
        self.real = real if real is not None else load_real_models()
        if dists is None:
            dists = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(DISTRIBUTIONS.glob("*.json"))}
        self.dists = dists

    def leaf(self, steps: list) -> tuple[object, bool]:
        node = self.dists
        for k in steps:
            try:
                node = node[k]
            except (KeyError, IndexError, TypeError):
                return None, False
        return node, True

    def wrapped(self, steps: list) -> tuple[dict | None, object, bool]:
        """(the first object along the path that has a status, the leaf value, whether it was reached)."""
        node, found = self.real, None
        for k in steps:
            if isinstance(node, dict) and "status" in node and "source" in node and found is None:
                found = node
            try:
                node = node[k] if k is not None else None
            except (KeyError, IndexError, TypeError):
                return found, None, False
            if node is None:
                return found, None, False
        if isinstance(node, dict) and "status" in node and "source" in node and found is None:
            found = node
        return found, node, True


def _blocks(body: str, first_line: int) -> list[tuple[int, str]]:
    """Paragraphs, list items' runs and tables: text between blank lines, with the line each starts on."""
    out, start, cur = [], first_line, []
    for n, line in enumerate(body.split("\n"), first_line):
        if line.strip():
            if not cur:
                start = n
            cur.append(line)
        elif cur:
            out.append((start, "\n".join(cur)))
            cur = []
    if cur:
        out.append((start, "\n".join(cur)))
    return out


BADGE = re.compile(r"\(?\s*([a-z_][\w.\[\]\"']*)\s*\|\s*status\s*\)?")
# the page that names every source: its numbers stand beside the citation they come from
SOURCE_PAGES = {"sources.md"}


def status_errors(body: str, numbers: ModelNumbers, first_line: int = 1) -> list[str]:
    """'line N: ...' for each real-model number printed in a block that holds no badge of its source."""
    defs = sorted([(m.start(), m.group(1), m.group(2)) for m in list(SET.finditer(body)) + list(FOR.finditer(body))])

    def expand(name: str, rest: str, at: int) -> tuple[str, str]:
        for _ in range(10):  # a name means what its last [% set %] or [% for %] before this point made it
            if name in ROOTS:
                break
            target = next((t for p, n, t in reversed(defs) if n == name and p < at), None)
            m = PATH.match(target) if target else None
            if not m:
                break
            name, rest = m.group(1), m.group(2) + rest
        return name, rest

    def source_of(expr: str, at: int) -> list[tuple[tuple, bool]]:
        """[((status, source) or ("smollm2_dist",), is a number)] for each real-model path in expr."""
        out = []
        for m in PATH.finditer(expr):
            root, rest = expand(m.group(1), m.group(2), at)
            if root not in ROOTS:
                continue
            if root == "smollm2_dist":
                steps = _steps(rest)
                leaf, reached = numbers.leaf(steps)
                last = ([k for k in steps if isinstance(k, str)] or [""])[-1]
                is_num = ((isinstance(leaf, (int, float)) and not isinstance(leaf, bool))
                          or (isinstance(leaf, (list, dict)) and bool(NUMERIC.search(expr)))) if reached else (
                    last not in TEXT_KEYS and bool(NUMERIC.search(expr)))
                out.append((("smollm2_dist",), is_num))
                continue
            steps = [root] + _steps(rest)
            w, leaf, reached = numbers.wrapped(steps)
            if w is None or w.get("status") == "unavailable":
                continue
            last = ([k for k in steps if isinstance(k, str)] or [""])[-1]
            if reached:
                is_num = (isinstance(leaf, (int, float)) and not isinstance(leaf, bool)) or (
                    isinstance(leaf, (list, dict)) and bool(NUMERIC.search(expr)))
            else:
                is_num = last not in TEXT_KEYS and bool(NUMERIC.search(expr) or last in ("prob", "value", "weight"))
            if last in ("source", "status"):
                is_num = False
            out.append(((w["status"], w["source"]), is_num))
        return out

    errors = []
    offsets = [0]
    for line in body.split("\n"):
        offsets.append(offsets[-1] + len(line) + 1)
    for start, block in _blocks(body, first_line):
        at = offsets[start - first_line]
        exprs = [(m.start(), m.group(0)[2:-2]) for m in re.finditer(r"\[\[.*?\]\]", block, re.S)]
        badges = set()
        for pos, e in exprs:
            for b in BADGE.finditer(e):
                badges |= {src for src, _ in source_of(b.group(1), at + pos)}
        has_smol = any(b[0] == "measured" and "smollm2" in b[1] for b in badges if len(b) == 2)
        for pos, e in exprs:
            for src, is_num in source_of(BADGE.sub(" ", e), at + pos):
                covered = (has_smol if src == ("smollm2_dist",) else src in badges)
                if is_num and not covered:
                    what = "SmolLM2's stored distributions" if src == ("smollm2_dist",) else f"{src[0]}: {src[1][:60]}"
                    errors.append(f"line {_line_of(block, pos, start)}: model number [[{e}]] printed without "
                                  f"its status ({what}); add a [[ ... | status ]] badge to its paragraph")
                    break
    return errors


# ---- a status mark standing where a word is needed ---------------------------------------------------

COPULA = re.compile(r"\b(?:is|are|was|were|be|been)\s+", re.I)
STATEMENT = re.compile(r"\[%.*?%\]", re.S)
MARK_ONLY = re.compile(r"\s*\[\[[^\]]*?\|\s*status\s*\]\](?:\s*(?:and|,)\s*\[\[[^\]]*?\|\s*status\s*\]\])*"
                       r"(?:\s*(?:and|,))?\s*(?:[.;:!?)]|\n\s*\n|\Z)")


def status_word_errors(body: str, first_line: int = 1) -> list[str]:
    """'line N: ...' where a status mark stands in for the status word ("Every number here is [[ x | status ]]."):
    the reader sees a thin mark where the sentence needs "measured" or "published"."""
    errors = []
    for m in COPULA.finditer(body):
        rest = STATEMENT.sub("", body[m.end():m.end() + 400])
        if MARK_ONLY.match(rest):
            line = _line_of(body, m.start(), first_line)
            text = body.split("\n")[line - first_line].strip()
            errors.append(f"line {line}: a status mark stands where a word is needed (“{text[:90]}”): say "
                          "measured, computed or published in words and put the mark after the number")
    return errors


# ---- a count typed as a word where the data has it ---------------------------------------------------

NUMBER_WORDS = {w: n for n, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}
COUNT_WORD = re.compile(r"\b(" + "|".join(w for w in NUMBER_WORDS if NUMBER_WORDS[w] >= 2) + r")\s+"
                        r"((?:[a-z/-]+\s+)?)(heads|layers|blocks|beams|positions|dimensions)\b", re.I)
FIRST_ROWS = re.compile(r"\b(?:first|last)\s+(" + "|".join(w for w in NUMBER_WORDS if NUMBER_WORDS[w] >= 2) + r")\s+"
                        r"(rows|columns|entries|bars|tokens|prompts|steps)\b", re.I)


def data_counts(tiny: dict, real: dict) -> dict[str, list[tuple[str, int]]]:
    """The counts the data holds, by the noun a page would count them with: (data key, value)."""
    def cfg(model, key):
        w = real.get(model, {}).get("config", {}).get(key)
        return [(f"{model}.config.{key}", w["value"])] if isinstance(w, dict) and isinstance(w.get("value"), int) else []
    heads = [("tiny.n_head", tiny["n_head"])] + cfg("gpt2", "n_head") + cfg("smollm2", "n_head") + cfg("smollm2", "n_kv_heads")
    layers = [("tiny.n_layer", tiny["n_layer"])] + cfg("gpt2", "n_layer") + cfg("smollm2", "n_layer")
    return {"heads": heads, "layers": layers, "blocks": layers,
            "positions": [("tiny.n_ctx", tiny["n_ctx"])],
            "dimensions": [("tiny.n_embd", tiny["n_embd"]), ("tiny.d_head", tiny["d_head"])]}


def _prose_and_strings(body: str) -> str:
    """The page's prose with everything else blanked (as the digit check masks it), plus the quoted strings
    of template expressions (figure captions), kept where they stand so that lines keep their numbers."""
    code = MASKS[0].sub(_blank, body)
    strings = list(code)
    for m in TEMPLATE.finditer(code):
        keep = {i for q in STRING.finditer(m.group(0)) for i in range(m.start() + q.start() + 1, m.start() + q.end() - 1)}
        for i in range(m.start(), m.end()):
            if i not in keep and strings[i] != "\n":
                strings[i] = " "
    masked = _mask_templates(body)
    for mask in MASKS:
        masked = mask.sub(_blank, masked)
    return "".join(s if s.strip() else t for s, t in zip(masked, strings))


def count_word_errors(body: str, counts: dict, first_line: int = 1) -> list[str]:
    """'line N: ...' for a count typed as a word that the data holds ("two heads" where the tiny model's
    n_head is 2; "the first two rows" of a table the data fills): print it from the data instead."""
    text, lines = _prose_and_strings(body), body.split("\n")
    errors = []
    for m in COUNT_WORD.finditer(text):
        n, noun = NUMBER_WORDS[m.group(1).lower()], m.group(3).lower()
        keys = [k for k, v in counts.get(noun, []) if v == n]
        if keys:
            line = _line_of(text, m.start(), first_line)
            errors.append(f"line {line}: the count “{m.group(0)}” is typed as a word, but the data has it "
                          f"({', '.join(keys)}) in “{lines[line - first_line].strip()[:90]}”: print it from the data")
    for m in FIRST_ROWS.finditer(text):
        line = _line_of(text, m.start(), first_line)
        errors.append(f"line {line}: the count “{m.group(0)}” is typed as a word, but the data decides how many "
                      f"there are (“{lines[line - first_line].strip()[:90]}”): print it from the data")
    return errors


# ---- the prose a reader reads: its length, its sentences, its talk of the build ---------------------

def _source_words(body: str, first_line: int) -> list[tuple[str, int]]:
    """The source's plain words in order, each with its line: templates, tags, link targets and markup out."""
    text = _mask_templates(body)
    for mask in (MASKS[3], MASKS[4], MASKS[5]):  # tags, attribute lists, link targets
        text = mask.sub(_blank, text)
    return [(m.group(0).lower(), _line_of(text, m.start(), first_line)) for m in re.finditer(r"[^\W_]+", text)]


def source_line(source_words: list[tuple[str, int]], text: str, run: int = 4) -> int | None:
    """The source line where a rendered text begins, or the first line holding a run of its words (a run may
    not cross a number the template printed); None when no run of `run` words is found."""
    want = [w.lower() for w in re.findall(r"[^\W_]+", text)]
    seq = [w for w, _ in source_words]
    for size in (run, 3):
        for k in range(max(1, len(want) - size + 1)):
            window = want[k:k + size]
            if len(window) < min(size, len(want)):
                break
            for i in range(len(seq) - len(window) + 1):
                if seq[i:i + len(window)] == window:
                    return source_words[i][1]
    return None


def prose_errors(html_text: str, source: str, page: str) -> list[str]:
    """'line N: ...' for each sentence over prose.SENTENCE_WORDS words, for a main page over prose.MAIN_WORDS
    words of prose or a shelf page over prose.SHELF_WORDS, and for a main page that talks of the build more
    than prose.MAIN_BUILD times. The prose is measured on the page's HTML (scripts/site/prose.py, as
    scripts/quality/first_minute.py measures it); each error names the source line the text stands on."""
    blocks = prose.prose_blocks(html_text)
    _, body, offset = split_front_matter(source)
    sw = _source_words(body, offset + 1)

    def where(text: str) -> str:
        n = source_line(sw, text)
        return f"line {n}" if n else f"line {offset + 1} (the text's own line was not found)"

    errors = []
    if page not in prose.NO_SENTENCE_LIMIT:
        for s in prose.long_sentences(blocks, prose.SENTENCE_WORDS):
            errors.append(f"{where(s)}: a sentence of {prose.words(s)} words (over {prose.SENTENCE_WORDS}) “{s[:70]}…”: "
                          "split it, or fold the caveat into a closed <details>")
    limit = prose.MAIN_WORDS if page in prose.MAIN_PAGES else prose.SHELF_WORDS if page in prose.SHELF_PAGES else None
    total = sum(prose.words(b) for b in blocks)
    if limit is not None and total > limit:
        seen = 0
        for b in blocks:
            seen += prose.words(b)
            if seen > limit:
                kind = "a main page" if page in prose.MAIN_PAGES else "a page of the shelf"
                errors.append(f"{where(b)}: the page's prose passes {limit} words here ({total} in all, at most {limit} "
                              f"on {kind}): cut, fold a caveat into a closed <details>, or move it to a reference page")
                break
    if page in prose.MAIN_PAGES:
        said = [b for b in blocks for _ in range(prose.build_words(b))]
        if len(said) > prose.MAIN_BUILD:
            errors.append(f"{where(said[prose.MAIN_BUILD])}: the prose says build or built {len(said)} times (at most "
                          f"{prose.MAIN_BUILD} on a main page): say what the reader sees; how a number is made belongs "
                          "on the page “How every number is made”")
    return errors


# ---- one counting base per page --------------------------------------------------------------------

KINDS = ("position", "head", "layer", "snapshot", "step", "token")
INLINE_INDEX = re.compile(r"\b(" + "|".join(KINDS) + r")s?\s+(?:number\s+)?\[\[\s*(.+?)\s*\]\]", re.I)
CELL_INDEX = re.compile(r"^\[\[\s*(loop\.index0?|[a-z]|[a-z_][\w.]*\s*[-+]\s*(?:1|loop\.index0))\s*\]\]$")


def _base(expr: str) -> int | None:
    """1 when an index expression counts from one (`x + 1`, loop.index), 0 otherwise; None for no index."""
    e = expr.split("|")[0].strip()
    if "status" in expr or "," in e:
        return None
    if e == "loop.index" or re.search(r"\+\s*1$", e):
        return 1
    return 0


def counting_errors(body: str, first_line: int = 1) -> list[str]:
    seen: dict[str, dict[int, int]] = {}
    lines = body.split("\n")
    for n, line in enumerate(lines, first_line):
        for m in INLINE_INDEX.finditer(line):
            b = _base(m.group(2))
            if b is not None:
                seen.setdefault(m.group(1).lower(), {}).setdefault(b, n)
    header = None
    for n, line in enumerate(lines, first_line):
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else None
        if cells is None:
            header = None
            continue
        if header is None:
            header = [c.lower() for c in cells]
            continue
        for name, cell in zip(header, cells):
            m = CELL_INDEX.match(cell)
            if name in KINDS and m:
                seen.setdefault(name, {}).setdefault(_base(m.group(1)), n)
    return [f"line {max(b.values())}: {kind}s are counted from {min(b, key=b.get)} on line {min(b.values())} "
            f"and from {max(b, key=b.get)} here; count each from one base on a page"
            for kind, b in seen.items() if len(b) > 1]


def description_errors(source: str) -> list[str]:
    front, _, _ = split_front_matter(source)
    if front is None:
        return []
    try:
        meta = yaml.safe_load(front)
    except yaml.YAMLError:
        return []
    desc = meta.get("description") if isinstance(meta, dict) else None
    if not isinstance(desc, str):
        return []
    bad = sorted({c for c in desc if c in '"<>'})
    if not bad:
        return []
    line = next((i for i, t in enumerate(front.split("\n"), 2) if t.startswith("description")), 2)
    return [f"line {line}: the description holds {' '.join(bad)}, which the theme's <meta content=\"...\"> "
            "does not escape, so the description would be cut there (use “ ” for quotes)"]


_numbers: ModelNumbers | None = None


_counts: dict | None = None


def page_errors(source: str, page: str, allow: list[dict], numbers: ModelNumbers | None = None,
                counts: dict | None = None) -> list[str]:
    global _numbers, _counts
    if numbers is None:
        _numbers = _numbers or ModelNumbers()
        numbers = _numbers
    if counts is None:
        _counts = _counts or data_counts(json.loads(TINY.read_text(encoding="utf-8"))["model"], numbers.real)
        counts = _counts
    _, body, offset = split_front_matter(source)
    words = status_word_errors(body, offset + 1)
    statuses = [] if page in SOURCE_PAGES else status_errors(body, numbers, offset + 1)
    return (front_matter_errors(source) + description_errors(source) + prose_digits(body, allow, page, offset + 1)
            + hidden_digits(body, allow, page, offset + 1) + statuses + counting_errors(body, offset + 1)
            + words + count_word_errors(body, counts, offset + 1))


# ---- the prompts' labels against their measured bars -----------------------------------------------

# (words in a label, what the measured bars must then show, that in words); probs: the head, most likely first
CLAIMS = [(re.compile(r"\b(flat|spread|many plausible)\b"), lambda kind, probs: kind == "spread", "a spread distribution"),
          (re.compile(r"\b(one answer|peaked)\b"), lambda kind, probs: kind == "peaked" and probs[1] <= probs[0] / 4,
           "one token taking most of the probability, the next far behind"),
          (re.compile(r"\b(fact|answer)\b"), lambda kind, probs: kind != "whitespace", "bars about the answer")]


def label_errors(config: Path, dists: Path) -> list[str]:
    """'file line N: ...' for each prompt label of `config` that its stored distribution contradicts."""
    text = config.read_text(encoding="utf-8")
    errors = []
    for p in json.loads(text)["prompts"]:
        path = dists / f"{p['key']}.json"
        if not path.is_file():
            continue
        shape = distribution_shape(json.loads(path.read_text(encoding="utf-8")))
        probs = json.loads(path.read_text(encoding="utf-8"))["head"]["probs"]
        for pattern, agrees, what in CLAIMS:
            if pattern.search(p["shape"]) and not agrees(shape["kind"], probs):
                line = next(i for i, t in enumerate(text.split("\n"), 1) if f'"{p["key"]}"' in t)
                rel_cfg = config.relative_to(ROOT) if config.is_relative_to(ROOT) else config
                errors.append(f"{rel_cfg}: line {line}: the label “{p['shape']}” of prompt {p['key']!r} claims "
                              f"{what}, but its measured bars are {shape['text']}")
    return errors


MARK_ATTRS = {"type", "class", "aria-expanded", "aria-controls", "aria-describedby", "data-search-exclude"}


class _Citations(HTMLParser):
    """Collects each mark's button (button.nt-mark-btn), each popover (span.nt-pop: its id, attributes, the
    status it says, its link) and each source line (li.nt-src: its id and the text of its .nt-src-text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.buttons: list[dict] = []
        self.pops: dict[str, dict] = {}
        self.sources: dict[str, str] = {}
        self.raw = 0
        self.wheres = 0
        self._stack: list[tuple] = []  # (tag, what it collects into, opens a popover, opens a source line)
        self._pop: dict | None = None
        self._src: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        line = self.getpos()[0]
        if "nt-cite-raw" in classes:
            self.raw += 1
        if tag == "details" and a.get("id") == "nt-where":
            self.wheres += 1
        what = None
        if tag == "button" and "nt-mark-btn" in classes:
            self.buttons.append({"attrs": attrs, "line": line})
        elif tag == "span" and "nt-pop" in classes:
            self._pop = {"attrs": attrs, "said": "", "href": None, "line": line}
            self.pops[a.get("id", "")] = self._pop
        elif "nt-pop-said" in classes and self._pop is not None:
            what = "said"
        elif tag == "a" and self._pop is not None:
            self._pop["href"] = a.get("href")
        elif tag == "li" and "nt-src" in classes:
            self._src = a.get("id", "")
            self.sources[self._src] = ""
        elif tag == "span" and "nt-src-text" in classes and self._src is not None:
            what = "src"
        if tag not in ("br", "img", "input", "meta", "link", "hr", "wbr"):
            self._stack.append((tag, what, "nt-pop" in classes, tag == "li" and "nt-src" in classes))

    def handle_data(self, data):
        collecting = [w for _, w, _, _ in self._stack if w]
        if "said" in collecting and self._pop is not None:
            self._pop["said"] += data
        if "src" in collecting and self._src is not None:
            self.sources[self._src] += data

    def handle_endtag(self, tag):
        while self._stack:
            t, _, pop, src = self._stack.pop()
            if pop:
                self._pop = None
            if src:
                self._src = None
            if t == tag:
                break


def citation_errors(html_text: str) -> list[str]:
    """Each mark is a button named by hidden text and described by its popover (no stray attribute: a quote in a
    source left unescaped would split it into some), whose popover says a status and a whole source and links to
    the source line, in the page's one closed "Where these numbers come from", that reads exactly the same."""
    parser = _Citations()
    parser.feed(html_text)
    errors = [f"{parser.raw} source markers were never resolved to a mark"] if parser.raw else []
    if parser.buttons and parser.wheres != 1:
        errors.append(f"the page has {len(parser.buttons)} marks and {parser.wheres} “Where these numbers come from” blocks (one is needed)")
    for b in parser.buttons:
        attrs = dict(b["attrs"])
        where = f"HTML line {b['line']}: mark"
        stray = [k for k, _ in b["attrs"] if k not in MARK_ATTRS]
        if stray:
            errors.append(f"{where} has stray attributes {stray}: its source was cut at a quote")
            continue
        pop = parser.pops.get(attrs.get("aria-describedby") or "")
        if pop is None or attrs.get("aria-controls") != attrs.get("aria-describedby"):
            errors.append(f"{where} is described by no popover ({attrs.get('aria-describedby')!r})")
            continue
        stray = [k for k, _ in pop["attrs"] if k not in ("class", "id", "data-search-exclude")]
        said = pop["said"].strip()
        target = (pop["href"] or "").removeprefix("#")
        if stray:
            errors.append(f"{where}: its popover has stray attributes {stray}: its source was cut at a quote")
        elif not said.lower().startswith(tuple(STATUS_WORDS)):
            errors.append(f"{where}: its popover names no status and source")
        elif target not in parser.sources:
            errors.append(f"{where}: its popover links to no source line ({pop['href']!r})")
        elif parser.sources[target].strip() != said[:1].lower() + said[1:]:
            errors.append(f"{where}: its source line does not name its whole source ({said!r})")
    return errors


_allow: list[dict] | None = None


def on_pre_build(config, **kwargs):
    global _allow, _numbers
    _allow = load_allowlist()
    try:
        _numbers = ModelNumbers()
    except Exception as exc:  # StageError names the file at fault
        raise PluginError(f"checks hook: {exc}") from None
    errors = label_errors(LABELS, DISTRIBUTIONS)
    if errors:
        raise PluginError("checks hook: " + "; ".join(errors) + " (the label names the prompt; let the data say what it shows)")


def on_page_markdown(markdown, page, config, files, **kwargs):
    global _allow
    if _allow is None:
        _allow = load_allowlist()
    src = page.file.src_path
    errors = page_errors(Path(page.file.abs_src_path).read_text(encoding="utf-8"), src, _allow)
    if errors:
        hint = (" (take numbers from the data, or add an entry with its reason to scripts/site/prose_allowlist.yaml)"
                if any("typed number" in e for e in errors) else "")
        raise PluginError(f"checks hook: {src}: " + f"; {src}: ".join(errors) + hint)
    return markdown


@event_priority(-50)  # after numbers.py's on_page_content, which writes the source lines
def on_page_content(html_text, page, config, files, **kwargs):
    errors = citation_errors(html_text)
    src = page.file.src_path
    errors += prose_errors(html_text, Path(page.file.abs_src_path).read_text(encoding="utf-8"), src)
    if errors:
        raise PluginError(f"checks hook: {src}: " + f"; {src}: ".join(errors))
    return html_text
