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
  gpt2, smollm2   scripts.real.context.load_real_models(): each number {value, status, source}
  facts      a few numbers derived here from the data above (corpus counts, totals)
Filters: pct(x, digits=0), num(x), fix(x, digits=2), show(token) (leading space as ·), status(wrapped)
(a badge: "published" with its source, or "measured by this build").
"""
from __future__ import annotations

import html
import json
import math
from collections import Counter
from pathlib import Path

import sys

import jinja2
from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:  # for scripts.real.context, whatever the working directory
    sys.path.insert(0, str(ROOT))
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
    if x is None:
        raise ValueError("fix: no value")
    return f"{float(x):.{digits}f}"


def show(token: str) -> str:
    """A token as the pages draw it: a leading space becomes a middle dot (' cat' -> '·cat')."""
    return token.replace(" ", "·") if token.startswith(" ") else token


def status(wrapped: dict) -> str:
    """An inline badge saying where a real-model number comes from."""
    st = wrapped.get("status")
    src = html.escape(str(wrapped.get("source", "")))
    if st == "measured":
        return f'<span class="nt-status nt-measured" title="{src}">measured by this build</span>'
    if st == "published":
        short = html.escape(str(wrapped.get("source", "")).split(' "')[0])
        return (f'<a class="nt-status nt-published" href="sources.html#published-gpt-2-measurements" '
                f'title="{src}">published: {short}</a>')
    if st == "config":
        return f'<span class="nt-status nt-config" title="{src}">from the model\'s config.json</span>'
    raise ValueError(f"status: this number is {st!r} (no value to show): {wrapped.get('source')}")


def strip(values, label: str = "vector", digits: int = 2) -> str:
    """A vector as a strip of cells (orange positive, blue negative), the static twin of ui.js's strips.

    Each cell carries its number as a title (hover) and the strip as a whole an aria-label (screen
    readers), so the numbers are never only colour."""
    vals = [float(v) for v in values]
    top = max((abs(v) for v in vals), default=1.0) or 1.0
    cells = []
    for i, v in enumerate(vals):
        sign = "pos" if v >= 0 else "neg"
        cells.append(f'<span class="nt-cell nt-{sign}" style="--a:{abs(v) / top:.3f}" '
                     f'title="{i}: {v:.{digits}f}"></span>')
    text = ", ".join(f"{v:.{digits}f}" for v in vals)
    return (f'<span class="nt-strip" role="img" aria-label="{html.escape(label)}: {text}">'
            + "".join(cells) + "</span>")


def bpe_steps(tok: dict, word: str) -> list[dict]:
    """The merges that build one pre-token, in learned order: [{merge, symbols}], first entry unmerged.

    The same rule as scripts/tiny/tokenizer.py and the browser: repeatedly merge the adjacent pair with the
    lowest rank (earliest learned)."""
    ranks = {tuple(m): i for i, m in enumerate(tok["merges"])}
    symbols = list(word)
    steps = [{"merge": None, "rank": None, "symbols": [show(x) for x in symbols]}]
    while len(symbols) > 1:
        pairs = [(ranks.get((a, b), math.inf), i) for i, (a, b) in enumerate(zip(symbols, symbols[1:]))]
        rank, i = min(pairs)
        if rank == math.inf:
            break
        merged = symbols[i] + symbols[i + 1]
        steps.append({"merge": [show(symbols[i]), show(symbols[i + 1])], "rank": rank,
                      "symbols": [show(x) for x in symbols[:i] + [merged] + symbols[i + 2:]]})
        symbols = symbols[:i] + [merged] + symbols[i + 2:]
    return steps


def _facts(cfg: dict, summary: dict, training: dict) -> dict:
    """Small derived numbers (counts over the corpus, snapshot totals) that the prose quotes."""
    corpus = cfg["corpus"]
    after_the_cat = Counter()
    for s in corpus:
        words = s.rstrip(".").split()
        for i in range(len(words) - 2):
            if words[i] == "the" and words[i + 1] == "cat":
                after_the_cat[words[i + 2]] += 1
    words = sorted({w for s in corpus for w in s.rstrip(".").split()})
    snaps = training["snapshots"]
    m = cfg["model"]
    d, L, V, T, F = m["n_embd"], m["n_layer"], m["vocab_size"], m["n_ctx"], m["d_mlp"]
    params = {
        "wte": V * d, "wpe": T * d, "ln": (2 * L + 1) * 2 * d,
        "attn": L * (d * 3 * d + 3 * d + d * d + d), "mlp": L * (d * F + F + F * d + d),
    }
    if sum(params.values()) != m["n_params"]:
        raise PluginError(f"numbers hook: parameter breakdown {params} does not add up to n_params {m['n_params']}")
    starts = Counter(s.split()[1] for s in corpus if s.split()[0] == "the")
    corpus_set = set(corpus)
    fp = training["final_positions"]
    seen = [p["mean"] for p in fp if p["sentence"] in corpus_set]
    unseen = [p for p in fp if p["sentence"] not in corpus_set]
    return {
        "params": params,
        "after_first_the": dict(starts.most_common()),
        "n_start_the": sum(starts.values()),
        "final_seen_mean": sum(seen) / len(seen),
        "final_unseen_mean": sum(p["mean"] for p in unseen) / len(unseen),
        "final_unseen": unseen,
        "final_seen": [p for p in fp if p["sentence"] in corpus_set],
        "n_sentences": len(corpus),
        "after_the_cat": dict(after_the_cat.most_common()),
        "after_the_cat_total": sum(after_the_cat.values()),
        "corpus_words": words,
        "n_corpus_words": len(words),
        "n_snapshots": len(snaps),
        "loss_drop": snaps[0]["corpus_loss"] - snaps[-1]["corpus_loss"],
    }


def build_context() -> dict:
    from scripts.real.context import load_real_models  # the repository root is on sys.path under mkdocs

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
        return (f'<figure class="nt-figure" markdown>\n![{safe}](assets/figures/{name}.svg){{ loading=lazy }}{cap}\n</figure>')

    def has_figure(name: str) -> bool:
        return name in alt and not alt[name].startswith("unavailable")

    facts = _facts(cfg, summary, training)
    try:
        real = load_real_models(SITE_DATA)
    except Exception as exc:  # StageError names the file at fault
        raise PluginError(f"numbers hook: {exc}") from None
    return {
        "cfg": cfg, "tiny": cfg["model"], "summary": summary, "tok": tok, "training": training,
        "traces": traces, "sliding": traces_file["sliding"], "greedy": traces_file["greedy"],
        "gpt2": real["gpt2"], "smollm2": real["smollm2"], "facts": facts,
        "vocab": tok["vocab"], "math": math, "alt": alt, "figure": figure, "has_figure": has_figure,
        "strip": strip, "bpe_steps": lambda word: bpe_steps(tok, word),
        # issue 11: knock-outs and the logit lens, for the experiments' static fallbacks
        "experiments": {e["prompt"]: e for e in _read(SITE_DATA / "parity" / "experiments.json")["prompts"]},
    }


def make_env() -> jinja2.Environment:
    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined,
        variable_start_string="[[", variable_end_string="]]",
        block_start_string="[%", block_end_string="%]",
        comment_start_string="[#", comment_end_string="#]",
        autoescape=False, keep_trailing_newline=True,
    )
    env.filters.update(pct=pct, num=num, fix=fix, show=show, status=status)
    return env


def on_pre_build(config, **kwargs):
    """Reload site_data on every build, so that `mkdocs serve` (watching site_data/) picks up changes."""
    global _context
    _context = build_context()


def on_page_markdown(markdown, page, config, files, **kwargs):
    global _context
    if _context is None:
        _context = build_context()
    try:
        return make_env().from_string(markdown).render(**_context, page_meta=page.meta)
    except jinja2.TemplateError as exc:
        line = getattr(exc, "lineno", None)
        where = f"{page.file.src_path}" + (f", line {line}" if line else "")
        raise PluginError(f"numbers hook: {where}: {exc.__class__.__name__}: {exc}") from None
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        raise PluginError(f"numbers hook: {page.file.src_path}: {exc}") from None
