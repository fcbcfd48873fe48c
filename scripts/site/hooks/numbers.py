"""MkDocs hook: every model number in the pages is a Jinja2 expression filled from site_data/.

Each page's Markdown is rendered with jinja2 (StrictUndefined, so a misspelt or missing name fails the
build, naming the page) before MkDocs converts it. The delimiters are `[[ ... ]]` for expressions and
`[% ... %]` for statements, so LaTeX braces and Material's own `{ .class }` attributes stay untouched.

Context (see `build_context`):
  cfg        site_data/tiny/config.json (model sizes under cfg.model, training settings, corpus, prompts)
  tiny       cfg.model, the tiny model's sizes
  summary    site_data/tiny/summary.json (the facts the pages quote)
  tok        site_data/tiny/tokenizer.json
  training   site_data/tiny/training.json without the weights (loss curve, snapshot steps and losses,
             per-position losses)
  traces     the forward traces of site_data/tiny/traces.json, keyed by prompt; sliding, greedy
  gpt2, smollm2, llama3   scripts.real.page_variables.load_real_models(): each number {value, status, source}
  real_settings   scripts/config/real_models.json and real_prompts.json (the real-model prompts, mass_n, top_k, top_p)
  around     the "Around the pick" page's numbers (scripts/site/costs.py), each section with its status
  facts      numbers derived here from the data above: corpus counts, the weight breakdown, the corpus's
             own loss floor, first merges with their pair counts, embedding similarities, the initial
             biases and gains, GPT-2's decode-step growth (see scripts/site/facts.py)
  bpe_steps(word), encode(text)   the tiny tokenizer replayed here (tokens shown with ·)
  smollm2_dist, dist_shape   SmolLM2's stored distribution per prompt, and what each one's bars show,
             described from its measured rows (scripts/real/page_variables.py's distribution_shape)
  cite       the site's title, version (content hash of site_data), date, author, address, BibTeX and plain citation
  pipeline   the data stages (scripts/core/registry.py): name, what each does, the files it writes and reads
  prose_limits   the build's limits on prose (scripts/site/prose.py)
  statuses   the marks' statuses, their letters and words (scripts/site/citations.py)
  site       mkdocs.yml's site_author, site_url and repo_url (None in a local build)
  repo_file(path)   a repository path as Markdown, linked to the repository when its address is known
  demo_pages the nav's pages with the demos each holds (scripts/site/demo_table.py)
  file_bytes(path)   the size of a file under docs/ (the GPT-2 vocabulary script the tokens page offers)
Filters: pct(x, digits=0), num(x), fix(x, digits=2), show(token) (leading space as ·), status(wrapped)
(a footnote marker; once the page's HTML is made, `on_page_content` numbers the markers and writes one line
per section or table naming each whole source: scripts/site/citations.py).
"""
from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path

import sys

import jinja2
from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:  # MkDocs loads hooks by path: make `scripts` importable from anywhere
    sys.path.insert(0, str(ROOT))

from scripts.core.io import StageError, rel, validate  # noqa: E402
from scripts.site import around_figures  # noqa: E402
from scripts.site.costs import around  # noqa: E402
from scripts.site.demo_table import demo_table  # noqa: E402
from scripts.site.citations import LETTER, WORDS, footnote, marker  # noqa: E402
from scripts.site.facts import corpus_facts, decode_cost, derived_facts, encode, tied_rows  # noqa: E402
from scripts.site.page_errors import one_line_errors, page_error  # noqa: E402
from scripts.site.pass_map import block_figure  # noqa: E402
from scripts.site import prose  # noqa: E402
from scripts.site.provenance import provenance  # noqa: E402
from scripts.tiny.tokenizer import Tokenizer, show  # noqa: E402
SITE_DATA = ROOT / "site_data"

_context: dict | None = None


def _read(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PluginError(f"numbers hook: {path.relative_to(ROOT)} not found (run `make data`)") from None
    except json.JSONDecodeError as exc:
        raise PluginError(f"numbers hook: {path.relative_to(ROOT)} is not valid JSON ({exc})") from None


def pct(x, digits: int = 0) -> str:
    """0.6652 -> '67%'; values under the last shown digit print as '< 0.1%' style bounds."""
    if x is None:
        raise ValueError("pct: no value (the data has none for this number)")
    v = float(x) * 100
    floor = 10 ** -digits
    if 0 < v < floor:
        return f"under {floor:g}%"
    if v < 100 and float(f"{v:.{digits}f}") >= 100:
        return f"over {100 - floor:g}%"
    return f"{v:.{digits}f}%"


def num(x) -> str:
    """Thousands separated: 50257 -> '50,257'; floats keep their digits."""
    if x is None:
        raise ValueError("num: no value")
    if isinstance(x, float) and not x.is_integer():
        return f"{x:,}"
    return f"{int(x):,}"


def fix(x, digits: int = 2) -> str:
    """x to `digits` decimals with a real minus sign (U+2212), as the demos print it; never "−0.00"."""
    if x is None:
        raise ValueError("fix: no value")
    text = f"{float(x):.{digits}f}"
    return text.lstrip("-") if float(text) == 0 else text.replace("-", "\u2212")


def data_keys(tree: dict, prefix: str) -> None:
    """Names every wrapped number ({status, source, ...}) under `tree` with its path, as `data_key`: the data
    key a mark's popover names (gpt2.config.n_layer). A number reached by two paths keeps the shorter; a
    section's own `status` entry (the around page's) is named by its section."""
    found: dict[int, tuple[dict, str]] = {}

    def walk(node, path: str) -> None:
        if isinstance(node, dict):
            if "status" in node and "source" in node:
                key = path.removesuffix(".status")
                if id(node) not in found or len(key) < len(found[id(node)][1]):
                    found[id(node)] = (node, key)
            for k, v in node.items():
                if k != "value":
                    walk(v, f"{path}.{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}[{i}]")
    walk(tree, prefix)
    for node, key in found.values():
        node["data_key"] = key


def status(wrapped: dict) -> str:
    """A thin mark saying where a real-model number comes from (scripts/site/citations.py): its popover names the
    status, the source and the data key; the page's end gets one "Where these numbers come from"."""
    return marker(wrapped, wrapped.get("data_key", "") if isinstance(wrapped, dict) else "")


def strip(values, label: str = "vector", digits: int = 2) -> str:
    """A vector as a strip of cells (orange positive, blue negative), the static twin of ui.js's strips.

    Each cell carries its number as a title (hover) and the strip as a whole an aria-label (screen
    readers), so the numbers are never only colour."""
    vals = [float(v) for v in values]
    top = max((abs(v) for v in vals), default=1.0) or 1.0
    cells = []
    for i, v in enumerate(vals):
        sign = "pos" if v >= 0 else "neg"
        cells.append(f'<span class="nt-cell nt-{sign}" style="--a:{abs(v) / top:.2f}" '
                     f'title="{i}: {v:.{digits}f}"></span>')
    text = ", ".join(f"{v:.{digits}f}" for v in vals)
    return (f'<span class="nt-strip" role="img" aria-label="{html.escape(label)}: {text}">'
            + "".join(cells) + "</span>")


def bpe_steps(tok: dict, word: str) -> list[dict]:
    """The merges that build one pre-token, in learned order: [{merge, rank, symbols}], first entry unmerged.
    The tokenizer's own loop (scripts/tiny/tokenizer.py), shown with the site's token rule."""
    return [{"merge": None if pair is None else [show(x) for x in pair], "rank": rank,
             "symbols": [show(x) for x in symbols]}
            for pair, rank, symbols in Tokenizer.from_json(tok).merge_steps(word)]


def file_bytes(path: str) -> int:
    """The size of a file the site serves (a path under docs/, e.g. a generated data script)."""
    try:
        return (ROOT / "docs" / path).stat().st_size
    except FileNotFoundError:
        raise ValueError(f"docs/{path} not found (run `make site`, which generates it)") from None


def real_copies(folder: Path) -> dict:
    """The real models' browser copies this site holds (docs/js/data/real/<model>/, written by
    scripts/site/real_js.py; absent after `make site MODEL=none`, GPT-2's only after `make gpt2`):
    per model, the bytes a reader's browser loads (the manifest and the chunks it lists, as on disk) and
    the weights' bytes they hold (the manifest's total_bytes: the chunks are those bytes written as base64)."""
    out = {}
    for manifest in sorted(folder.glob("*/manifest.js")):
        text = manifest.read_text(encoding="utf-8")
        at = text.rfind("] = {")
        try:
            data = json.loads(text[at + len("] = "):].strip().rstrip(";"))
            files = [manifest] + [manifest.parent / c["file"] for c in data["chunks"]]
            out[data["model"]] = {"bytes": sum(f.stat().st_size for f in files), "weights": data["total_bytes"], "files": len(files),
                                  "arch": data["config"]["arch"]}
        except (ValueError, KeyError, TypeError, OSError) as exc:
            raise PluginError(f"numbers hook: {rel(manifest)} is damaged ({exc}): run `make site` to write it again") from None
    return out


def build_context() -> dict:
    from scripts.core.registry import DIST_KEYS  # the prompts' order in scripts/config/real_prompts.json
    from scripts.real.page_variables import PEAKED, SPREAD, distribution_shape, load_real_models  # the repository root is on sys.path under mkdocs

    tiny_dir = SITE_DATA / "tiny"
    cfg = _read(tiny_dir / "config.json")
    summary = _read(tiny_dir / "summary.json")
    tok = _read(tiny_dir / "tokenizer.json")
    traces_file = _read(tiny_dir / "traces.json")
    training_full = _read(tiny_dir / "training.json")
    training = {k: v for k, v in training_full.items() if k != "snapshots"}
    training["snapshots"] = [{k: v for k, v in s.items() if k != "weights"} for s in training_full["snapshots"]]
    traces = {t["prompt"]: t for t in traces_file["traces"]}
    alt_path = ROOT / "docs" / "assets" / "figures" / "alt.json"
    alt = _read(alt_path)

    def figure(name: str, caption: str = "") -> str:
        """A generated figure with its alt text; a missing or unavailable figure fails the build."""
        text = alt.get(name)
        if text is None or not (ROOT / "docs" / "assets" / "figures" / f"{name}.svg").is_file():
            raise ValueError(f"figure {name!r}: no such figure in docs/assets/figures (run `python -m scripts.site.figures`)")
        if text.startswith("unavailable"):
            raise ValueError(f"figure {name!r} is {text}")
        safe = text.replace("[", "(").replace("]", ")").replace("\n", " ")
        cap = f"\n<figcaption>{caption}</figcaption>" if caption else ""
        # its size in CSS px (matplotlib writes pt), so the page keeps its place before it loads (lazily)
        head = (ROOT / "docs" / "assets" / "figures" / f"{name}.svg").read_text(encoding="utf-8")[:2000]
        size = re.search(r'<svg[^>]*\swidth="([\d.]+)pt"\s+height="([\d.]+)pt"', head)
        if not size:
            raise ValueError(f"figure {name!r}: its SVG names no width and height in pt")
        attrs = f"loading=lazy width={round(float(size[1]) * 4 / 3)} height={round(float(size[2]) * 4 / 3)}"
        # one drawing per colour scheme; the theme shows the one whose scheme is on (#only-light, #only-dark)
        return (f'<figure class="nt-figure" markdown>\n![{safe}](assets/figures/{name}.svg#only-light){{ {attrs} }}'
                f'![{safe}](assets/figures/{name}-dark.svg#only-dark){{ {attrs} }}{cap}\n</figure>')

    def has_figure(name: str) -> bool:
        return name in alt and not alt[name].startswith("unavailable")

    facts = derived_facts(cfg, summary, training)
    wte = _read(tiny_dir / "weights.json")["weights"]["wte"]
    facts |= corpus_facts(cfg, summary, tok, training_full, wte)
    facts["tied"] = tied_rows(summary, traces, wte, tok["vocab"])
    try:
        real = load_real_models(SITE_DATA)
    except Exception as exc:  # StageError names the file at fault
        raise PluginError(f"numbers hook: {exc}") from None
    facts["decode"] = decode_cost({k: v["value"] for k, v in real["gpt2"]["config"].items()})
    around_cfg = _read(ROOT / "scripts" / "config" / "around.json")
    storage, around_pub = _read(SITE_DATA / "smollm2" / "storage.json"), _read(SITE_DATA / "around" / "published.json")
    try:  # the "Around the pick" page: costs and variants, from configs, SmolLM2's file and published figures
        validate(storage, "real_storage", "site_data/smollm2/storage.json")
        validate(around_pub, "around_published", "site_data/around/published.json")
        around_facts = around(real["gpt2"], real["smollm2"], storage, around_pub, around_cfg,
                              traces[around_cfg["speculative"]["prompt"]], tok["vocab"], show,
                              traces[around_cfg["moe"]["router_prompt"]])
    except StageError as exc:
        raise PluginError(f"numbers hook: {exc}") from None
    except (KeyError, ValueError) as exc:
        raise PluginError(f"numbers hook: the around page's numbers (scripts/site/costs.py): {exc!r}") from None
    ctx = {
        "cfg": cfg, "tiny": cfg["model"], "summary": summary, "tok": tok, "training": training,
        "traces": traces, "sliding": traces_file["sliding"], "greedy": traces_file["greedy"],
        "gpt2": real["gpt2"], "smollm2": real["smollm2"], "llama3": real["llama3"],
        "real_settings": real["settings"], "facts": facts, "around": around_facts,
        # SmolLM2's whole distribution per prompt (site_data/smollm2/distributions/)
        "smollm2_dist": {k: _read(SITE_DATA / "smollm2" / "distributions" / f"{k}.json") for k in DIST_KEYS},
        # the knock-out the build found that changes one prompt's answer (site_data/smollm2/knockout.json)
        "smollm2_knockout": _read(SITE_DATA / "smollm2" / "knockout.json"),
        "block_figure": lambda: block_figure(cfg["model"]),
        "around_figures": around_figures,  # the around page's static figures (scripts/site/around_figures.py)
        "vocab": tok["vocab"], "math": math, "alt": alt, "figure": figure, "has_figure": has_figure,
        "strip": strip, "bpe_steps": lambda word: bpe_steps(tok, word), "encode": lambda text: encode(tok, text),
        # knock-outs and the logit lens, for the experiments' static fallbacks
        "experiments": {e["prompt"]: e for e in _read(SITE_DATA / "parity" / "experiments.json")["prompts"]},
    }
    ctx["file_bytes"] = file_bytes
    for root in ("gpt2", "smollm2", "llama3", "around"):
        data_keys(ctx[root], root)
    ctx["pipeline"] = pipeline()
    ctx["prose_limits"] = {"sentence": prose.SENTENCE_WORDS, "main": prose.MAIN_WORDS, "shelf": prose.SHELF_WORDS,
                           "build": prose.MAIN_BUILD}
    ctx["statuses"] = [{"status": k, "letter": LETTER[k], "words": WORDS[k]} for k in WORDS]
    ctx.update(site_context({}))  # the site's version and date, for "Cite this"; on_pre_build adds mkdocs.yml's addresses
    ctx["real_copies"] = real_copies(ROOT / "docs" / "js" / "data" / "real")
    ctx["dist_shape"] = {k: distribution_shape(d) for k, d in ctx["smollm2_dist"].items()}
    ctx["dist_shape_rule"] = {"peaked": PEAKED, "spread": SPREAD}
    ctx["demo_pages"] = demo_table(ROOT / "docs", ROOT / "mkdocs.yml", render=lambda name, text: render_page(
        f"docs/{name}", text, {**ctx, "demo_pages": [], "page_meta": {}}))
    return ctx


def pipeline() -> list[dict]:
    """The data stages of scripts/core/registry.py, in the order they run: name, what each does, what it writes."""
    from scripts.core.registry import DATA

    def writes(paths: list[str]) -> list[dict]:
        folders: dict[str, list[str]] = {}
        for path in paths:
            folders.setdefault(path.rsplit("/", 1)[0] + "/", []).append(path)
        return [{"path": f, "files": len(ps)} if len(ps) > 3 else {"path": x, "files": 1}
                for f, ps in folders.items() for x in ([f] if len(ps) > 3 else ps)]
    return [{"name": st.name, "does": st.does, "writes": writes(list(st.outputs)), "config": list(st.config)} for st in DATA]


def render_page(page: str, text: str, context: dict, offset: int = 0) -> str:
    """A page's Markdown with its expressions filled; any error its text causes is one line naming the page
    and the line (`offset`: the page's source lines before `text`)."""
    try:
        return make_env().from_string(text).render(**context)
    except Exception as exc:  # whatever a page's expression raises is the page's fault: say where
        raise page_error("numbers hook", page, exc, offset) from None


def make_env() -> jinja2.Environment:
    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined,
        variable_start_string="[[", variable_end_string="]]",
        block_start_string="[%", block_end_string="%]",
        comment_start_string="[#", comment_end_string="#]",
        autoescape=False, keep_trailing_newline=True,
    )
    env.filters.update({name: _named(name, f) for name, f in
                        dict(pct=pct, num=num, fix=fix, show=show, status=status).items()})
    return env


def _named(name: str, f):
    """A filter whose bad argument says which filter and which arguments it was given."""
    def run(value, *args, **kwargs):
        try:
            return f(value, *args, **kwargs)
        except (TypeError, ValueError) as exc:
            given = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
            raise ValueError(f"filter {name}({given}) on {repr(value)[:60]}: {exc}") from None
    return run


def on_pre_build(config, **kwargs):
    """Reload site_data on every build, so that `mkdocs serve` (watching site_data/) picks up changes."""
    global _context
    one_line_errors()
    _context = build_context()
    _context.update(site_context(config))


def site_context(config) -> dict:
    """What mkdocs.yml says of the site itself: its author and addresses (the Pages workflow sets them; a
    local build has none), for About, "Cite this" and links to the repository's files."""
    site_url, repo_url = config.get("site_url") or None, config.get("repo_url") or None
    author = config.get("site_author") or None
    return {"site": {"author": author, "site_url": site_url, "repo_url": repo_url},
            "cite": provenance(SITE_DATA, author, site_url or repo_url),
            "repo_file": lambda path: repo_file(repo_url, path)}


def repo_file(repo_url: str | None, path: str) -> str:
    """A repository path as Markdown: linked to the file in the repository when its address is known."""
    if not repo_url:
        return f"`{path}`"
    kind = "tree" if path.endswith("/") else "blob"
    return f"[`{path}`]({repo_url.rstrip('/')}/{kind}/main/{path.rstrip('/')})"


def on_page_markdown(markdown, page, config, files, **kwargs):
    global _context
    if _context is None:
        _context = build_context()
    try:  # MkDocs hands over the page without its front matter: count those lines back in
        source = Path(page.file.abs_src_path).read_text(encoding="utf-8")
        offset = source[:len(source) - len(markdown)].count("\n") if source.endswith(markdown) else 0
    except (OSError, TypeError):
        offset = 0
    return render_page(f"docs/{page.file.src_uri}", markdown, {**_context, "page_meta": page.meta}, offset)


def on_page_content(html_text, page, config, files, **kwargs):
    return footnote(html_text)
