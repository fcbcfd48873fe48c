"""The whole pass as SVG, drawn from a model's config, so the map stays true to the model on show.

Three shapes (SHAPES): the tiny model's (`site_data/tiny/config.json`'s `model` block), SmolLM2's (its
config as the real-model stage recorded it: RMSNorm, grouped-query attention, rotary positions, a gated MLP)
and GPT-2 small's (the tiny model's shape with GPT-2's recorded config, beside GPT-2's tokenizer).
Pure functions of that config, the shape's name and the page being built:
  parts(model) / smollm2_parts(model)  the stages in order: {key, name, code, does, page, group}
  side_nav(model, page, shape)   the compact map: a vertical SVG whose parts are links, in a <nav> that names
                                 the model, with a text alternative; the parts the page is about are lit
                                 (aria-current)
  phone_nav(model, page, shape)  the same map folded into a <details> strip above the text, for narrow screens
  shape_of_demo(demo)        the model a demo runs: the map that stands beside it
  block_figure(model)        the large drawing of one block: the residual stream as the line every part adds
                             onto, each arrow as wide as the vector it carries
  demo_parts(model, demo, shape)  what a demo shows, as the words of its container's `data-pass-parts`
In the tiny model's map every size drawn (vocabulary, width, per head, MLP, heads, context, blocks) is
written inside an element with `data-size-of="<config field>"`, and every accessible name holding one keeps its template in
`data-size-label` ("{vocab_size} logits ..."), so docs/js/ui/pass-map-sizes.js can redraw the numbers for the
reader's model; what the build writes stays the built model's, the map without JavaScript. SmolLM2's
map has no such marks: no reader's model redraws it.
Every drawn part carries `data-pass-part`: its key and the groups it belongs to (GROUPS), the words that
docs/js/ui/pass-map.js matches to light the part while a demo showing it is on screen.
The MkDocs hook `scripts/site/hooks/pass_map.py` hands them to the theme's templates and the pages.
"""
from __future__ import annotations

import html
import re
import string

_FORMAT = string.Formatter()
# What a page is about, beyond the parts whose own page it is: the landing page walks the whole pass; the
# training page trains every weight of it; the context window is the positions the embedding has and the
# last tokens the loop keeps; the real-model page shows all of SmolLM2's.
PAGE_PARTS = {"index.md": "all", "training.md": "all", "context.md": "embed loop", "real-models.md": "all"}


# Names for several parts at once, as a demo's container may give them (data-pass-parts="attn").
GROUPS = {
    "all": lambda p: True,
    "block": lambda p: p.get("group") == "block",
    "heads": lambda p: p["key"].startswith("head"),
    "attn": lambda p: p["key"].startswith("head") or p["key"] in ("join", "rope", "attn_proj"),
    "output": lambda p: p["key"] in ("ln_f", "logits", "softmax", "pick"),
}
# The part of the pass each demo shows (by its data-demo name), in the map of the model it runs: a demo of
# the other model lights nothing (SmolLM2's 49,152 bars never light the tiny model's logits). A container's
# own data-pass-parts wins, and a demo may change it as it runs (docs/js/ui/pass-map.js follows).
DEMO_PARTS = {
    "tiny": {
        "one-token": "all", "tokenize": "text tokens", "embeddings": "embed",
        "attention": "ln_1 attn", "two-heads": "heads join", "knockout": "heads mlp",
        "lens": "add_1 add_2 ln_f logits", "temperature": "logits softmax pick", "generate": "loop",
        "context-window": "embed loop", "snapshots": "all", "train-yours": "all",
        "attention-steps": "attn", "kv-cache": "loop", "moe-router": "mlp", "spec-decode": "softmax pick loop",
    },
    "smollm2": {
        "real-ask": "all", "real-distribution": "logits softmax pick", "real-inside": "block",
        "real-writers": "pick loop", "one-roll": "softmax pick",
    },
    "gpt2": {"gpt2-tokenizer": "text tokens"},
}


def shape_of_demo(demo: str) -> str | None:
    """The model a demo runs, as the name of its map's shape (None: a demo no map follows)."""
    return next((shape for shape, demos in DEMO_PARTS.items() if demo in demos), None)


def fill(template: str, m: dict) -> str:
    """A template's plain text: its {fields} replaced by the model's sizes."""
    return template.format_map(m)


def marked(template: str, m: dict, tag: str = "tspan") -> str:
    """A template as escaped markup, each size in its own element saying which config field it is."""
    out = []
    for text, field, _, _ in _FORMAT.parse(template):
        out.append(_e(text))
        if field is not None:
            out.append(f'<{tag} data-size-of="{_e(field)}">{_e(str(m[field]))}</{tag}>')
    return "".join(out)


def parts(m: dict, heads_as_one: bool = False) -> list[dict]:
    """The pass, stage by stage; `group` "block" marks the parts inside a transformer block. Each part's
    name, code and does are plain text; `tpl` holds the same three as templates of the config's fields.
    heads_as_one: the heads as one part (GPT-2 small's twelve would not fit the map one box each)."""
    if heads_as_one:
        heads = [{"key": "heads", "name": "{n_head} heads", "code": "attn, {d_head} wide each",
                  "does": "{n_head} heads, each mixing earlier tokens' values", "page": "attention.md", "group": "block"}]
    else:
        heads = [{"key": f"head{i}", "name": f"head {i + 1}", "code": "attn ({d_head} wide)",
                  "does": f"head {i + 1} of {{n_head}}: mixes earlier tokens' values", "page": "attention.md",
                  "group": "block", "head": i} for i in range(m["n_head"])]
    ps = [
        {"key": "text", "name": "text", "code": "prompt", "does": "the words you type", "page": "tokens.md"},
        {"key": "tokens", "name": "tokens", "code": "tokenizer (BPE)", "does": "pieces from a vocabulary of {vocab_size}, as ids",
         "page": "tokens.md"},
        {"key": "embed", "name": "embedding + position", "code": "wte[id] + wpe[pos]",
         "does": "a row of {n_embd} numbers per token, plus its place's (one of {n_ctx})", "page": "embeddings.md"},
        {"key": "ln_1", "name": "LayerNorm", "code": "ln_1", "does": "rescales each vector: mean 0, spread 1",
         "page": "block.md", "group": "block"},
        *heads,
        {"key": "join", "name": "join heads", "code": "concat {n_head} × {d_head} → {n_embd}",
         "does": "puts the {n_head} heads' outputs side by side", "page": "attention.md", "group": "block"},
        {"key": "attn_proj", "name": "output projection", "code": "attn.c_proj", "does": "mixes the joined {n_embd} numbers",
         "page": "attention.md", "group": "block"},
        {"key": "add_1", "name": "add", "code": "x + attn(ln_1(x))", "does": "adds attention's change onto the stream",
         "page": "block.md", "group": "block"},
        {"key": "ln_2", "name": "LayerNorm", "code": "ln_2", "does": "rescales again, before the MLP",
         "page": "block.md", "group": "block"},
        {"key": "mlp", "name": "MLP", "code": "mlp {n_embd} → {d_mlp} → {n_embd}", "does": "widens to {d_mlp}, GELU, back to {n_embd}",
         "page": "block.md", "group": "block"},
        {"key": "add_2", "name": "add", "code": "x + mlp(ln_2(x))", "does": "adds the MLP's change onto the stream",
         "page": "block.md", "group": "block"},
        {"key": "ln_f", "name": "final LayerNorm", "code": "ln_f", "does": "rescales the last vector once more",
         "page": "block.md"},
        {"key": "logits", "name": "{vocab_size} logits", "code": "lm_head = wteᵀ", "does": "a score for each of the {vocab_size} tokens",
         "page": "sampling.md"},
        {"key": "softmax", "name": "softmax", "code": "softmax(logits / T)", "does": "turns scores into probabilities",
         "page": "sampling.md"},
        {"key": "pick", "name": "pick", "code": "sample", "does": "draws one token (temperature, top-k, top-p)",
         "page": "sampling.md"},
        {"key": "loop", "name": "append and repeat", "code": "generate",
         "does": "the pick joins the text; the pass runs again on the last {n_ctx} tokens", "page": "generation.md"},
    ]
    return filled(ps, m)


def gpt2_parts(m: dict) -> list[dict]:
    """GPT-2 small's pass: the tiny model's shape (the tiny model is GPT-2-shaped), with its own sizes and its
    heads drawn as one part."""
    return parts(m, heads_as_one=True)


def smollm2_parts(m: dict) -> list[dict]:
    """SmolLM2's pass, in the same keys where a part does the same job (so a demo's words mean the same in
    both maps): no position added to the embedding (rotary positions turn queries and keys instead),
    RMSNorm, {n_head} query heads sharing {n_kv_heads} key/value heads, a gated MLP. Sizes are the fields of
    the config the real-model stage recorded (n_embd, d_mlp, n_kv_heads ...)."""
    ps = [
        {"key": "text", "name": "text", "code": "chat template + prompt", "does": "the words you type, in the chat's frame",
         "page": "tokens.md"},
        {"key": "tokens", "name": "tokens", "code": "tokenizer (BPE)", "does": "pieces from a vocabulary of {vocab_size}, as ids",
         "page": "tokens.md"},
        {"key": "embed", "name": "embedding", "code": "embed_tokens[id]",
         "does": "a row of {n_embd} numbers per token; no position is added here", "page": "embeddings.md"},
        {"key": "ln_1", "name": "RMSNorm", "code": "input_layernorm", "does": "rescales each vector by its root mean square",
         "page": "block.md", "group": "block"},
        {"key": "head_q", "name": "{n_head} query heads", "code": "q_proj, {d_head} wide",
         "does": "each of {n_head} heads asks with its own query", "page": "attention.md", "group": "block"},
        {"key": "head_kv", "name": "{n_kv_heads} K/V heads", "code": "k_proj, v_proj",
         "does": "{n_kv_heads} keys and values, each shared by {n_head} / {n_kv_heads} query heads", "page": "attention.md",
         "group": "block"},
        {"key": "rope", "name": "rotary positions", "code": "RoPE on q and k", "does": "turns each query and key by its position",
         "page": "embeddings.md", "group": "block"},
        {"key": "attn_proj", "name": "output projection", "code": "o_proj → {n_embd}", "does": "mixes the joined heads' outputs",
         "page": "attention.md", "group": "block"},
        {"key": "add_1", "name": "add", "code": "x + attn(norm(x))", "does": "adds attention's change onto the stream",
         "page": "block.md", "group": "block"},
        {"key": "ln_2", "name": "RMSNorm", "code": "post_attention_layernorm", "does": "rescales again, before the MLP",
         "page": "block.md", "group": "block"},
        {"key": "mlp", "name": "gated MLP", "code": "{n_embd} → {d_mlp} → {n_embd}",
         "does": "SiLU(gate_proj) × up_proj, {d_mlp} wide, then down_proj", "page": "block.md", "group": "block"},
        {"key": "add_2", "name": "add", "code": "x + mlp(norm(x))", "does": "adds the MLP's change onto the stream",
         "page": "block.md", "group": "block"},
        {"key": "ln_f", "name": "final RMSNorm", "code": "norm", "does": "rescales the last vector once more", "page": "block.md"},
        {"key": "logits", "name": "{vocab_size} logits", "code": "lm_head = embed_tokensᵀ",
         "does": "a score for each of the {vocab_size} tokens", "page": "sampling.md"},
        {"key": "softmax", "name": "softmax", "code": "softmax(logits / T)", "does": "turns scores into probabilities",
         "page": "sampling.md"},
        {"key": "pick", "name": "pick", "code": "sample", "does": "draws one token (temperature, top-k, top-p)",
         "page": "sampling.md"},
        {"key": "loop", "name": "append and repeat", "code": "generate",
         "does": "the pick joins the text; the pass runs again, over up to {n_ctx} tokens", "page": "generation.md"},
    ]
    return filled(ps, m)


def filled(ps: list[dict], m: dict) -> list[dict]:
    """Each part's name, code and description with the model's sizes filled in (the templates kept as tpl)."""
    for p in ps:
        p["tpl"] = {k: p[k] for k in ("name", "code", "does")}
        for k, template in p["tpl"].items():
            p[k] = fill(template, m)
        p["words"] = words(p)
    return ps


def words(part: dict) -> str:
    """The part's key and every group it belongs to: what `data-pass-part` holds."""
    return " ".join([part["key"]] + [g for g, has in GROUPS.items() if has(part)])


def demo_parts(m: dict, demo: str, shape: str = "tiny") -> str | None:
    """The words a demo's container lights, each a part's key or a group; None for a demo not listed (or
    of the other model)."""
    said = DEMO_PARTS[shape].get(demo)
    if said is None:
        return None
    keys = {p["key"] for p in SHAPES[shape]["parts"](m)} | set(GROUPS)
    unknown = [w for w in said.split() if w not in keys]
    if unknown:
        raise ValueError(f"DEMO_PARTS[{demo!r}] names {unknown}, which are neither parts nor groups")
    return said


def lit(part: dict, page: str) -> bool:
    about = PAGE_PARTS.get(page, "").split()
    return part["page"] == page or any(w == part["key"] or w in part["words"].split() for w in about)


def whole(ps: list[dict], page: str) -> bool:
    """The page is about every part of the pass."""
    return all(lit(p, page) for p in ps)


def _href(part: dict) -> str:
    return html.escape(part["page"].removesuffix(".md") + ".html", quote=True)


def _current(part: dict, page: str) -> str:
    """aria-current: "page" on a link to this page; "true" for a lit part of the landing page's whole pass."""
    if not lit(part, page):
        return ""
    return ' aria-current="page"' if part["page"] == page else ' aria-current="true"'


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _on(part: dict) -> str:
    return f' data-pass-part="{_e(part["words"])}"'


def _label(m: dict, part: dict) -> str:
    """The link's accessible name (it starts with the visible text, as read), with its template when it
    holds a size."""
    t = part["tpl"]
    template = f"{t['name']} {t['code']}: {t['does']}"
    said = f' aria-label="{_e(fill(template, m))}"'
    return said + (f' data-size-label="{_e(template)}"' if "{" in template else "")


def _text(m: dict, part: dict, key: str) -> str:
    return marked(part["tpl"][key], m)


def _box(m: dict, part: dict, page: str, x: float, y: float, w: float, h: float, *, describe: bool = False,
         code: bool = True) -> str:
    """One part: a link holding its box, its plain name and (code) its code name small beneath."""
    cls = "nt-map-part nt-map-lit" if lit(part, page) else "nt-map-part"
    cx = x + w / 2
    lines = [f'<text class="nt-map-name" text-anchor="middle" x="{cx:g}" y="{y + (h / 2 - 1.5 if code else h / 2 + 3.7):g}">'
             f'{_text(m, part, "name")}</text>']
    if code:
        lines.append(f'<text class="nt-map-code" text-anchor="middle" x="{cx:g}" y="{y + h / 2 + 9.5:g}">{_text(m, part, "code")}</text>')
    if describe:
        lines.append(f'<text class="nt-map-does" text-anchor="middle" x="{cx:g}" y="{y + 35:g}">{_text(m, part, "does")}</text>')
    return (f'<a class="{cls}" href="{_href(part)}"{_current(part, page)}{_on(part)}{_label(m, part)}>'
            f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="4"/>' + " ".join(lines) + "</a>")


def _arrow(x1: float, y1: float, x2: float, y2: float, ident: str, width: float = 1.2, cls: str = "nt-pa") -> str:
    return (f'<line class="{cls}" x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke-width="{width:g}" '
            f'marker-end="url(#nt-arrow-{ident})"/>')


def arrow_def(ident: str) -> str:
    """The arrowhead, one per drawing: a page holds several (the side map, the phone's, a map per model), and
    a marker found inside a hidden one would not be drawn."""
    return (f'<defs><marker id="nt-arrow-{ident}" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="5" markerHeight="5" '
            'orient="auto-start-reverse" markerUnits="userSpaceOnUse"><path d="M0 0L8 4L0 8z" class="nt-pa-head"/>'
            '</marker></defs>')


# The text alternative: the whole pass in one sentence, sizes included.
FLOW = ("The pass: text, split into tokens from a vocabulary of {vocab_size}; each token's embedding plus its "
        "position's ({n_embd} numbers, up to {n_ctx} positions); then the block (here {n_layer} of them): LayerNorm, "
        "{n_head} attention heads of {d_head} numbers, joined and projected, added onto the residual stream; "
        "LayerNorm, an MLP {n_embd} to {d_mlp} to {n_embd}, added onto the stream; then a final LayerNorm, "
        "{vocab_size} logits, softmax, and the pick, which is appended to the text before the pass repeats.")


FLOW_SMOLLM2 = ("SmolLM2's pass: text in its chat template, split into tokens from a vocabulary of {vocab_size}; each "
                "token's embedding ({n_embd} numbers, no position added); then the block ({n_layer} of them): RMSNorm, "
                "{n_head} query heads sharing {n_kv_heads} key/value heads, with rotary positions turning queries and "
                "keys, projected and added onto the residual stream; RMSNorm, a gated MLP {n_embd} to {d_mlp} to "
                "{n_embd}, added onto the stream; then a final RMSNorm, {vocab_size} logits, softmax, and the pick, "
                "appended before the pass repeats, over up to {n_ctx} tokens.")


def flow_sentence(m: dict) -> str:
    return fill(FLOW, m)


SHAPES = {
    "tiny": {"parts": parts, "flow": FLOW, "name": "the tiny model", "sized": True},
    "smollm2": {"parts": smollm2_parts, "flow": FLOW_SMOLLM2, "name": "SmolLM2-135M", "sized": False},
    "gpt2": {"parts": gpt2_parts, "flow": FLOW, "name": "GPT-2 small", "sized": False},
}
_SIZED = re.compile(r'<(tspan|span) data-size-of="\w+">([^<]*)</\1>')


def _unsized(markup: str) -> str:
    """A map no reader's model redraws (SmolLM2's): its sizes as plain text, no templates kept."""
    return re.sub(r' data-size-label="[^"]*"', "", _SIZED.sub(r"\2", markup))


def map_svg(m: dict, page: str, width: float = 240, shape: str = "tiny", ident: str = "map", short: bool = False) -> str:
    """The compact vertical map: one box per part, the block's parts in a dashed frame, the loop back. short:
    each part's name alone on a low row (the code names stay in the links' names), for a laptop's screen,
    where the map shares the sidebar with the page's contents."""
    ps = SHAPES[shape]["parts"](m)
    ident = f"{ident}-{shape}" + ("-short" if short else "")
    (row, gap), x0, x1 = ((17, 6) if short else (24, 7)), 26, width - 6
    ix0, ix1 = x0 + 8, x1 - 8
    y, out, prev_bottom = 6.0, [], None
    heads = [p for p in ps if p["key"].startswith("head")]
    block_top = block_bottom = None
    loop_y = text_y = None
    for p in ps:
        if p["key"].startswith("head") and p is not heads[0]:
            continue
        inside = p.get("group") == "block"
        if inside and block_top is None:
            block_top = y
            y += 14  # room for the frame's label
        if not inside and block_top is not None and block_bottom is None:
            block_bottom = y - gap + 5
            y += 6
        if prev_bottom is not None:
            out.append(_arrow((x0 + x1) / 2, prev_bottom, (x0 + x1) / 2, y - 1, ident))
        if p is heads[0] if heads else False:
            hw = (ix1 - ix0 - 6 * (len(heads) - 1)) / len(heads)
            for i, hp in enumerate(heads):
                out.append(_box(m, hp, page, ix0 + i * (hw + 6), y, hw, row, code=not short))
        else:
            l, r = (ix0, ix1) if inside else (x0, x1)
            out.append(_box(m, p, page, l, y, r - l, row, code=not short))
        if p["key"] == "text":
            text_y = y + row / 2
        if p["key"] == "loop":
            loop_y = y + row / 2
        prev_bottom = y + row
        y += row + gap
    frame = (f'<rect class="nt-pblock" x="{x0:g}" y="{block_top:g}" width="{x1 - x0:g}" '
             f'height="{block_bottom - block_top:g}" rx="6"/>'
             f'<text class="nt-pblock-name" x="{x0 + 6:g}" y="{block_top + 11:g}">'
             f'{"block" if m["n_layer"] == 1 else marked("block, × {n_layer}", m)}</text>')
    loop = (f'<path class="nt-pa nt-ploop" d="M{x0:g} {loop_y:g}H10V{text_y:g}H{x0 - 1:g}" '
            f'marker-end="url(#nt-arrow-{ident})"/>')
    height = y - gap + 6
    return (f'<svg class="nt-map-svg{" nt-map-short" if short else ""}" viewBox="0 0 {width:g} {height:g}" width="{width:g}" '
            f'height="{height:g}" focusable="false">{arrow_def(ident)}{frame}{loop}' + "".join(out) + "</svg>")


def _here_names(m: dict, page: str, ps: list[dict]) -> list[str]:
    """The names of the page's own parts, once each, as markup (a name may hold a size); the tiny model's
    numbered heads as one run ("heads 1–2"), as docs/js/ui/pass-map.js names them while the reader scrolls."""
    heads = [p["head"] + 1 for p in ps if "head" in p and lit(p, page)]
    seen: list[str] = []
    for p in ps:
        if not lit(p, page):
            continue
        if "head" in p:
            name = f"heads {heads[0]}–{heads[-1]}" if len(heads) > 1 else f"head {heads[0]}"
        else:
            name = marked(p["tpl"]["name"], m, "span")
        if name not in seen:
            seen.append(name)
    return seen


def _title(shape: str) -> str:
    return f'The whole pass <span class="nt-map-model">of {SHAPES[shape]["name"]}</span>'


def _hidden(hidden: bool) -> str:
    return " hidden" if hidden else ""


def side_nav(m: dict, page: str, shape: str = "tiny", hidden: bool = False) -> str:
    """The map for the sidebar beside the text (wide screens), naming the model it draws, drawn twice: whole, and
    short (names only) for a screen too low for both it and the page's contents (docs/css/pass-map.css shows
    one). A page with demos of two models has a map of each; docs/js/ui/pass-map.js shows the one of the demo
    on screen (hidden: not the first)."""
    out = (f'<nav class="nt-map nt-map-side" data-model="{shape}" aria-label="The whole pass, part by part"{_hidden(hidden)}>'
           f'<p class="nt-map-title">{_title(shape)}</p>'
           f'<p class="nt-sr">{marked(SHAPES[shape]["flow"], m, "span")}</p>{map_svg(m, page, shape=shape, ident="side")}'
           f'{map_svg(m, page, shape=shape, ident="side", short=True)}</nav>')
    return out if SHAPES[shape]["sized"] else _unsized(out)


def phone_nav(m: dict, page: str, shape: str = "tiny", hidden: bool = False) -> str:
    """The same map, folded: a slim bar above the text (one tick per part, this page's lit) that opens to it.
    It stays where it is, at the top of the text, so it never covers a demo being read."""
    ps = SHAPES[shape]["parts"](m)
    ticks = "".join(f'<rect class="nt-ptick{" nt-ptick-lit" if lit(p, page) else ""}"{_on(p)} x="{i * 9:g}" y="0" '
                    f'width="7" height="10" rx="1.5"/>' for i, p in enumerate(ps))
    here = _here_names(m, page, ps)
    said = ("this page: " + ", ".join(here)) if here and not whole(ps, page) else (
        "this page: all of it" if here else "where each part is explained")
    out = (f'<details class="nt-map-phone" data-model="{shape}"{_hidden(hidden)}><summary><span class="nt-map-phone-title">'
           f'{_title(shape)}</span> '
           f'<svg class="nt-pstrip" viewBox="0 0 {len(ps) * 9 - 2} 10" width="{len(ps) * 9 - 2}" height="10" '
           f'aria-hidden="true" focusable="false">{ticks}</svg> <span class="nt-map-phone-here">{said}</span>'
           f'</summary><nav class="nt-map" aria-label="The whole pass, part by part">'
           f'<p class="nt-sr">{marked(SHAPES[shape]["flow"], m, "span")}</p>{map_svg(m, page, shape=shape, ident="phone")}</nav></details>')
    return out if SHAPES[shape]["sized"] else _unsized(out)


def block_figure(m: dict, page: str = "") -> str:
    """One transformer block, large: the residual stream is the thick line on the left, attention and the
    MLP branch off it and add back onto it; every arrow is as wide as the vector it carries."""
    ps = {p["key"]: p for p in parts(m)}
    d, h, dh, f = m["n_embd"], m["n_head"], m["d_head"], m["d_mlp"]
    k = 0.9  # user units of stroke per number carried
    sx, W = 48, 720
    bw, bh = 104, 40
    out = []

    def box(key, x, y, w=bw):
        out.append(_box(m, ps[key], page, x, y, w, bh, describe=False))

    def size(x, y, field, anchor="middle"):
        out.append(f'<text class="nt-psize" x="{x:g}" y="{y:g}" text-anchor="{anchor}">{marked("{" + field + "}", m)}</text>')

    # attention branch, row at y = 40..80
    ay = 46
    out.append(f'<path class="nt-pw" d="M{sx:g} {ay - 26:g}H{sx + 30:g}V{ay + bh / 2:g}H{sx + 66:g}" '
               f'stroke-width="{d * k:g}"/>')
    size(sx + 50, ay + bh / 2 - 8, "n_embd")
    box("ln_1", sx + 70, ay)
    hx = sx + 70 + bw + 50
    hy = [ay - 26 + i * (bh + 12) for i in range(h)]
    for i in range(h):
        out.append(f'<path class="nt-pw" d="M{sx + 70 + bw:g} {ay + bh / 2:g}C{hx - 20:g} {ay + bh / 2:g} '
                   f'{hx - 30:g} {hy[i] + bh / 2:g} {hx:g} {hy[i] + bh / 2:g}" stroke-width="{dh * k:g}"/>')
        size(hx - 22, hy[i] + bh / 2 - 6, "d_head")
        box(f"head{i}", hx, hy[i])
    jx = hx + bw + 40
    jy = ay
    for i in range(h):
        out.append(f'<path class="nt-pw" d="M{hx + bw:g} {hy[i] + bh / 2:g}C{jx - 15:g} {hy[i] + bh / 2:g} '
                   f'{jx - 25:g} {jy + bh / 2:g} {jx:g} {jy + bh / 2:g}" stroke-width="{dh * k:g}"/>')
    box("join", jx, jy, 112)
    px = jx + 112 + 30
    out.append(f'<path class="nt-pw" d="M{jx + 112:g} {jy + bh / 2:g}H{px:g}" stroke-width="{d * k:g}"/>')
    size(jx + 112 + 15, jy + bh / 2 - 8, "n_embd")
    box("attn_proj", px, jy, 110)
    add1 = ay + bh + 70
    out.append(f'<path class="nt-pw" d="M{px + 55:g} {jy + bh:g}V{add1:g}H{sx + 24:g}" stroke-width="{d * k:g}"/>')
    size(px + 55 + 10, jy + bh + 30, "n_embd", "start")
    # MLP branch
    my = add1 + 44
    out.append(f'<path class="nt-pw" d="M{sx:g} {add1 + 20:g}H{sx + 30:g}V{my + bh / 2:g}H{sx + 66:g}" '
               f'stroke-width="{d * k:g}"/>')
    box("ln_2", sx + 70, my)
    fx = sx + 70 + bw + 50
    out.append(f'<path class="nt-pw" d="M{sx + 70 + bw:g} {my + bh / 2:g}H{fx + 24:g}" stroke-width="{d * k:g}"/>')
    size(sx + 70 + bw + 25, my + bh / 2 - 8, "n_embd")
    mlp_w, mh = 300, 64
    p = ps["mlp"]
    band = f * k
    ly, lx0, lx1 = my + bh / 2 + 6, fx + 24, fx + mlp_w - 24  # the MLP's own drawing, under its names
    widen = (f'M{lx0:g} {ly - d * k / 2:g}L{lx0 + 50:g} {ly - band / 2:g}H{lx1 - 50:g}L{lx1:g} {ly - d * k / 2:g}'
             f'V{ly + d * k / 2:g}L{lx1 - 50:g} {ly + band / 2:g}H{lx0 + 50:g}L{lx0:g} {ly + d * k / 2:g}z')
    out.append(f'<a class="nt-map-part{" nt-map-lit" if lit(p, page) else ""}" href="{_href(p)}"{_current(p, page)}{_on(p)}'
               f'{_label(m, p)}>'
               f'<rect x="{fx:g}" y="{my - 12:g}" width="{mlp_w:g}" height="{mh:g}" rx="4"/>'
               f'<text class="nt-map-name" text-anchor="middle" x="{fx + mlp_w / 2:g}" y="{my + 1:g}">{_text(m, p, "name")}'
               f' <tspan class="nt-map-code">{_text(m, p, "code")}</tspan></text>'
               f'<path class="nt-pwide" d="{widen}"/></a>'  # the sizes inside are labels, not the link's name
               f'<text class="nt-psize" text-anchor="middle" x="{fx + mlp_w / 2:g}" y="{ly + 4:g}">'
               f'{marked("{d_mlp}, through GELU", m)}</text>'
               f'<text class="nt-psize" text-anchor="end" x="{lx0 + 40:g}" y="{ly - band / 2 - 2:g}">c_fc</text>'
               f'<text class="nt-psize" text-anchor="start" x="{lx1 - 40:g}" y="{ly - band / 2 - 2:g}">c_proj</text>')
    my = my + 14  # the return leaves from the MLP box's bottom edge
    add2 = my + bh + 50
    out.append(f'<path class="nt-pw" d="M{fx + mlp_w / 2:g} {my + bh - 2:g}V{add2:g}H{sx + 24:g}" '
               f'stroke-width="{d * k:g}"/>')
    size(fx + mlp_w / 2 + 10, my + bh + 28, "n_embd", "start")
    # the residual stream: one line, every branch adds onto it
    bottom = add2 + 40
    out.insert(0, f'<path class="nt-pstream" d="M{sx:g} 4V{bottom:g}" stroke-width="{d * k * 1.6:g}" '
                  'marker-end="url(#nt-arrow-block)"/>')
    for key, yy in (("add_1", add1), ("add_2", add2)):
        p = ps[key]
        out.append(f'<a class="nt-map-part{" nt-map-lit" if lit(p, page) else ""}" href="{_href(p)}"{_current(p, page)}{_on(p)}'
                   f'{_label(m, p)}>'
                   f'<circle cx="{sx:g}" cy="{yy:g}" r="13"/><text class="nt-map-plus" text-anchor="middle" x="{sx:g}" y="{yy + 5:g}">+</text></a>')
    out.append(f'<text class="nt-pstream-name" text-anchor="middle" x="{sx - 16:g}" y="{bottom / 2:g}" '
               f'transform="rotate(-90 {sx - 16:g} {bottom / 2:g})">{marked("residual stream, {n_embd} numbers per token", m)}</text>')
    out.append(f'<text class="nt-pnote" x="{sx + 12:g}" y="{12:g}">from the embedding</text>')
    out.append(f'<text class="nt-pnote" x="{sx + 14:g}" y="{bottom - 4:g}">to the next block, or ln_f</text>')
    svg = (f'<svg class="nt-block-svg" viewBox="0 0 {W} {bottom + 6:g}" width="{W}" height="{bottom + 6:g}" '
           f'focusable="false">{arrow_def("block")}' + "".join(out) + "</svg>")
    rows = [ps[k] for k in ("ln_1", *[f"head{i}" for i in range(h)], "join", "attn_proj", "add_1", "ln_2", "mlp", "add_2")]
    key = "".join(f'<li><strong>{marked(p["tpl"]["name"], m, "span")}</strong> <code>{marked(p["tpl"]["code"], m, "span")}'
                  f'</code>: {marked(p["tpl"]["does"], m, "span")}</li>' for p in rows)
    caption = ("One block of the tiny model. The thick line is the residual stream: attention and the MLP each "
               "read it through a LayerNorm and add their change back onto it. Each arrow is as wide as the "
               "vector it carries: {n_embd} numbers, {d_head} per head, {d_mlp} inside the MLP.")
    return (f'<figure class="nt-block-figure"><div class="nt-scroll" role="region" tabindex="0" '
            f'aria-label="Diagram of one block (scrolls sideways)"><nav aria-label="One block, part by part">{svg}</nav></div>'
            f'<figcaption>{marked(caption, m, "span")}</figcaption><ul class="nt-block-key">{key}</ul></figure>')
