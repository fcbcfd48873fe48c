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
  gpt2, smollm2, llama3   scripts.real.context.load_real_models(): each number {value, status, source}
  real_settings   scripts/config/real_models.json (the real-model prompts, mass_n, top_k, top_p)
  facts      numbers derived here from the data above: corpus counts, the weight breakdown, the corpus's
             own loss floor, first merges with their pair counts, embedding similarities, the initial
             biases and gains, GPT-2's decode-step growth (see _facts and _corpus_facts)
  bpe_steps(word), encode(text)   the tiny tokenizer replayed here (tokens shown with ·)
Filters: pct(x, digits=0), num(x), fix(x, digits=2), show(token) (leading space as ·), status(wrapped)
(a badge: "published: <whole source>", "measured by this build" or "computed by this build").
"""
from __future__ import annotations

import html
import itertools
import json
import math
import re
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


def _badge_text(text: str) -> str:
    """Escaped for HTML text and attributes alike; `|` too, since a badge often sits in a table cell."""
    return html.escape(text, quote=True).replace("|", "&#124;")


def status(wrapped: dict) -> str:
    """An inline badge saying where a real-model number comes from; a published one names its whole source."""
    st = wrapped.get("status")
    src = _badge_text(str(wrapped.get("source", "")))
    if st == "measured":
        return f'<span class="nt-status nt-measured" title="{src}">measured by this build</span>'
    if st == "computed":
        return f'<span class="nt-status nt-measured" title="{src}">computed by this build</span>'
    if st == "published":
        anchor = wrapped.get("anchor", "published-gpt-2-measurements")
        return (f'<a class="nt-status nt-published" href="sources.html#{anchor}" '
                f'title="{src}">published: {src}</a>')
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


def encode(tok: dict, text: str) -> list[str]:
    """Text -> tokens as the pages show them (' cat' -> '·cat'): the tokenizer's pre-split, then BPE per piece."""
    for ch in text:
        if ch not in tok["chars"]:
            raise ValueError(f"encode: {ch!r} is not in the tiny vocabulary")
    return [s for chunk in re.findall(tok["pretokenizer"], text) for s in bpe_steps(tok, chunk)[-1]["symbols"]]


def merge_counts(tok: dict, corpus: list[str], n: int) -> list[dict]:
    """Replay the first n learned merges over the corpus: how often each pair stood side by side when it
    was learned, and in which words. BPE training merges the most frequent pair, so a replay that finds
    another pair more frequent means the tokenizer and this account disagree, and the build stops."""
    words = Counter(c for s in corpus for c in re.findall(tok["pretokenizer"], s))
    seg = {w: list(w) for w in words}
    out = []
    for a, b in tok["merges"][:n]:
        pairs = Counter()
        for w, count in words.items():
            for pair in zip(seg[w], seg[w][1:]):
                pairs[pair] += count
        if pairs[(a, b)] != max(pairs.values()):
            raise PluginError(f"numbers hook: merge {a!r}+{b!r} was not the most frequent pair when learned")
        out.append({"merge": [show(a), show(b)], "count": pairs[(a, b)],
                    "words": sorted(show(w) for w in words if (a, b) in zip(seg[w], seg[w][1:]))})
        for w, s in seg.items():
            merged, i = [], 0
            while i < len(s):
                if s[i:i + 2] == [a, b]:
                    merged.append(a + b)
                    i += 2
                else:
                    merged.append(s[i])
                    i += 1
            seg[w] = merged
    return out


def corpus_floor(sequences: list[list[str]]) -> dict:
    """The lowest mean loss any model can reach on the corpus: the entropy of the corpus's own next-token choices.

    Each sequence is a sentence's tokens followed by end-of-text, scored as training scores it (every
    position predicts the next token from the tokens before it in its sentence; the mean runs over all
    predictions). For each prefix, the best possible prediction is how often each token follows it in
    the corpus; scoring every target by that frequency gives the floor."""
    after = Counter()
    prefixes = Counter()
    for seq in sequences:
        for i in range(1, len(seq)):
            prefixes[tuple(seq[:i])] += 1
            after[tuple(seq[:i + 1])] += 1
    losses = [-math.log(after[tuple(seq[:i + 1])] / prefixes[tuple(seq[:i])])
              for seq in sequences for i in range(1, len(seq))]
    return {"loss": sum(losses) / len(losses), "n_predictions": len(losses),
            "n_uncertain": sum(1 for x in losses if x > 0)}


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def wte_similarity(wte: list[list[float]], vocab: list[str], words: list[str]) -> dict:
    """Cosine similarity of the trained token-embedding rows of the corpus's word tokens ('·cat', ...)."""
    row = {show(t): wte[i] for i, t in enumerate(vocab)}
    pairs = [cosine(row[a], row[b]) for a, b in itertools.combinations(words, 2)]
    near = sorted(((cosine(row["·cat"], row[w]), w) for w in words if w != "·cat"), reverse=True)
    return {"cat_dog": cosine(row["·cat"], row["·dog"]), "mean": sum(pairs) / len(pairs),
            "n_words": len(words), "nearest_to_cat": [{"token": w, "cos": c} for c, w in near[:3]]}


def init_values(snapshot: dict) -> dict:
    """What training starts from, read off the step-0 snapshot: every bias's value and every LayerNorm gain's."""
    if snapshot["step"] != 0:
        raise PluginError(f"numbers hook: the first snapshot is step {snapshot['step']}, not the initial weights")
    w = snapshot["weights"]
    norms = [blk[k] for blk in w["h"] for k in ("ln_1", "ln_2")] + [w["ln_f"]]
    linears = [blk[part][k] for blk in w["h"] for part, k in
               (("attn", "c_attn"), ("attn", "c_proj"), ("mlp", "c_fc"), ("mlp", "c_proj"))]
    biases = {x for p in norms + linears for x in p["bias"]}
    gains = {x for p in norms for x in p["weight"]}
    if len(biases) != 1 or len(gains) != 1:
        raise PluginError(f"numbers hook: initial biases {sorted(biases)[:3]} or LayerNorm gains {sorted(gains)[:3]} are not all equal")
    return {"bias": biases.pop(), "ln_gain": gains.pop()}


def decode_cost(c: dict) -> dict:
    """Multiply-adds of one cached decode step at context length n for a model shaped like `c`, as in
    scripts/site/figures.py's kv_cache figure: projections 4*d^2 and MLP 2*d*d_ff per layer and token,
    attention over n cached rows 2*n*d per layer, logits V*d. Returns how much a step at the end of the
    window costs against one at its start, and the length where attention's share equals the rest of a layer."""
    d, L, V, ff, T = c["d_model"], c["n_layer"], c["vocab_size"], c["d_ff"], c["n_ctx"]

    def step(n: int) -> float:
        return L * (4 * d * d + 2 * d * ff) + L * 2 * n * d + V * d

    return {"growth": step(T) / step(1), "crossover": (4 * d * d + 2 * d * ff) // (2 * d)}


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
    # softmax of the toy scores worked by hand, checked against the build's own numbers at T = 1
    toy = summary["toy_softmax"]
    exps = [math.exp(z) for z in toy["scores"]]
    by_hand = [e / sum(exps) for e in exps]
    at_1 = next(e["probs"] for e in toy["by_temperature"] if e["t"] == 1)
    if any(abs(a - b) > 1e-6 for a, b in zip(by_hand, at_1)):
        raise PluginError(f"numbers hook: softmax by hand {by_hand} differs from summary.json's {at_1}")
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
        "toy_by_hand": {"exps": exps, "total": sum(exps), "probs": by_hand},
    }


def _corpus_facts(cfg: dict, summary: dict, tok: dict, training: dict, wte: list) -> dict:
    """Facts about the corpus and the trained rows, computed with the tokenizer replayed here."""
    corpus = cfg["corpus"]
    seqs = [encode(tok, s) + [tok["eot"]] for s in corpus]
    by_sentence = {p["sentence"]: p["targets"] for p in training["final_positions"]}
    for s, seq in zip(corpus, seqs):
        if by_sentence.get(s) != seq[1:]:
            raise PluginError(f"numbers hook: the tokenizer replay gives {seq} for {s!r}; training scored {by_sentence.get(s)}")
    merged = {a + b for a, b in tok["merges"]}
    special = [show(v) for v in tok["vocab"] if v not in tok["chars"] and v not in merged]
    if len(tok["chars"]) + len(tok["merges"]) + len(special) != len(tok["vocab"]):
        raise PluginError("numbers hook: characters + merges + special tokens do not make the vocabulary")
    words = sorted({t for seq in seqs for t in seq if t.startswith("·") and len(t) > 1})
    return {
        "corpus_tokens": seqs,
        "special_tokens": special,
        "first_merge_counts": merge_counts(tok, corpus, len(summary["first_merges"])),
        "floor": corpus_floor(seqs),
        "similarity": wte_similarity(wte, tok["vocab"], words),
        "init": init_values(training["snapshots"][0]),
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
    facts |= _corpus_facts(cfg, summary, tok, training_full, _read(tiny_dir / "weights.json")["weights"]["wte"])
    try:
        real = load_real_models(SITE_DATA)
    except Exception as exc:  # StageError names the file at fault
        raise PluginError(f"numbers hook: {exc}") from None
    facts["decode"] = decode_cost({k: v["value"] for k, v in real["gpt2"]["config"].items()})
    return {
        "cfg": cfg, "tiny": cfg["model"], "summary": summary, "tok": tok, "training": training,
        "traces": traces, "sliding": traces_file["sliding"], "greedy": traces_file["greedy"],
        "gpt2": real["gpt2"], "smollm2": real["smollm2"], "llama3": real["llama3"],
        "real_settings": real["settings"], "facts": facts,
        "vocab": tok["vocab"], "math": math, "alt": alt, "figure": figure, "has_figure": has_figure,
        "strip": strip, "bpe_steps": lambda word: bpe_steps(tok, word), "encode": lambda text: encode(tok, text),
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
