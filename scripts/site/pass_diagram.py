"""The whole pass as SVG, drawn from the tiny model's config, so the picture stays true to the model.

Pure functions of `site_data/tiny/config.json`'s `model` block and the page being built:
  parts(model)               the stages in order: {key, name, code, does, page, group}
  side_nav(model, page)      the compact map: a vertical SVG whose parts are links, in a <nav>, with a text
                             alternative; the parts the page explains are lit (aria-current)
  phone_nav(model, page)     the same map folded into a <details> strip, for narrow screens
  block_figure(model)        the large drawing of one block: the residual stream as the line every part adds
                             onto, each arrow as wide as the vector it carries
  demo_parts(model, demo)    what a demo shows, as the words of its container's `data-pass-parts`
Every drawn part carries `data-pass-part`: its key and the groups it belongs to (GROUPS), the words that
docs/js/ui/lighting.js matches to light the part while a demo showing it is on screen.
The MkDocs hook `scripts/site/hooks/picture.py` hands them to the theme's templates and the pages.
"""
from __future__ import annotations

import html

WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}
# The landing page walks the whole pass: every part is its subject.
WHOLE_PASS_PAGES = ("index.md",)


# Names for several parts at once, as a demo's container may give them (data-pass-parts="attn").
GROUPS = {
    "all": lambda p: True,
    "block": lambda p: p.get("group") == "block",
    "heads": lambda p: p["key"].startswith("head"),
    "attn": lambda p: p["key"].startswith("head") or p["key"] in ("join", "attn_proj"),
    "output": lambda p: p["key"] in ("ln_f", "logits", "softmax", "pick"),
}
# The part of the pass each demo shows (by its data-demo name); a container's own data-pass-parts wins.
DEMO_PARTS = {
    "one-token": "all", "tokenize": "text tokens", "gpt2-tokenizer": "text tokens", "embeddings": "embed",
    "attention": "ln_1 attn", "two-heads": "heads join", "knockout": "heads mlp", "lens": "add_1 add_2 ln_f logits",
    "temperature": "logits softmax pick", "generate": "loop", "context-window": "embed loop", "snapshots": "all",
    "train-yours": "all", "real-distribution": "logits softmax pick", "real-ask": "logits softmax pick",
    "real-inside": "block", "real-writers": "pick loop",
}


def _count(n: int) -> str:
    return WORDS.get(n, str(n))


def parts(m: dict) -> list[dict]:
    """The pass, stage by stage; `group` "block" marks the parts inside a transformer block."""
    d, v, h, dh, f = m["n_embd"], m["vocab_size"], m["n_head"], m["d_head"], m["d_mlp"]
    heads = [{"key": f"head{i}", "name": f"head {i + 1}", "code": f"attn ({dh} wide)",
              "does": f"head {i + 1} of {h}: mixes earlier tokens' values", "page": "attention.md",
              "group": "block", "head": i} for i in range(h)]
    ps = [
        {"key": "text", "name": "text", "code": "prompt", "does": "the words you type", "page": "tokens.md"},
        {"key": "tokens", "name": "tokens", "code": "tokenizer (BPE)", "does": f"pieces from a vocabulary of {v}, as ids",
         "page": "tokens.md"},
        {"key": "embed", "name": "embedding + position", "code": "wte[id] + wpe[pos]",
         "does": f"a row of {d} numbers per token, plus its place's", "page": "embeddings.md"},
        {"key": "ln_1", "name": "LayerNorm", "code": "ln_1", "does": "rescales each vector: mean 0, spread 1",
         "page": "block.md", "group": "block"},
        *heads,
        {"key": "join", "name": "join heads", "code": f"concat {h} × {dh} → {d}", "does": f"puts the {h} heads' outputs side by side",
         "page": "attention.md", "group": "block"},
        {"key": "attn_proj", "name": "output projection", "code": "attn.c_proj", "does": f"mixes the joined {d} numbers",
         "page": "attention.md", "group": "block"},
        {"key": "add_1", "name": "add", "code": "x + attn(ln_1(x))", "does": "adds attention's change onto the stream",
         "page": "block.md", "group": "block"},
        {"key": "ln_2", "name": "LayerNorm", "code": "ln_2", "does": "rescales again, before the MLP",
         "page": "block.md", "group": "block"},
        {"key": "mlp", "name": "MLP", "code": f"mlp {d} → {f} → {d}", "does": f"widens to {f}, GELU, back to {d}",
         "page": "block.md", "group": "block"},
        {"key": "add_2", "name": "add", "code": "x + mlp(ln_2(x))", "does": "adds the MLP's change onto the stream",
         "page": "block.md", "group": "block"},
        {"key": "ln_f", "name": "final LayerNorm", "code": "ln_f", "does": "rescales the last vector once more",
         "page": "block.md"},
        {"key": "logits", "name": f"{v} logits", "code": "lm_head = wteᵀ", "does": f"a score for each of the {v} tokens",
         "page": "sampling.md"},
        {"key": "softmax", "name": "softmax", "code": "softmax(logits / T)", "does": "turns scores into probabilities",
         "page": "sampling.md"},
        {"key": "pick", "name": "pick", "code": "sample", "does": "draws one token (temperature, top-k, top-p)",
         "page": "sampling.md"},
        {"key": "loop", "name": "append and repeat", "code": "generate", "does": "the pick joins the text; the pass runs again",
         "page": "generation.md"},
    ]
    for p in ps:
        p["words"] = words(p)
    return ps


def words(part: dict) -> str:
    """The part's key and every group it belongs to: what `data-pass-part` holds."""
    return " ".join([part["key"]] + [g for g, has in GROUPS.items() if has(part)])


def demo_parts(m: dict, demo: str) -> str | None:
    """The words a demo's container lights, each a part's key or a group; None for a demo not listed."""
    said = DEMO_PARTS.get(demo)
    if said is None:
        return None
    keys = {p["key"] for p in parts(m)} | set(GROUPS)
    unknown = [w for w in said.split() if w not in keys]
    if unknown:
        raise ValueError(f"DEMO_PARTS[{demo!r}] names {unknown}, which are neither parts nor groups")
    return said


def lit(part: dict, page: str) -> bool:
    return page in WHOLE_PASS_PAGES or part["page"] == page


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


def _box(part: dict, page: str, x: float, y: float, w: float, h: float, *, describe: bool = False) -> str:
    """One part: a link holding its box, its plain name and its code name small beneath."""
    cls = "nt-pp nt-pp-lit" if lit(part, page) else "nt-pp"
    label = f"{part['name']} {part['code']}: {part['does']}"  # starts with the visible text, as read
    cx = x + w / 2
    lines = [f'<text class="nt-pp-name" text-anchor="middle" x="{cx:g}" y="{y + 12.5:g}">{_e(part["name"])}</text>',
             f'<text class="nt-pp-code" text-anchor="middle" x="{cx:g}" y="{y + 23.5:g}">{_e(part["code"])}</text>']
    if describe:
        lines.append(f'<text class="nt-pp-does" text-anchor="middle" x="{cx:g}" y="{y + 35:g}">{_e(part["does"])}</text>')
    return (f'<a class="{cls}" href="{_href(part)}"{_current(part, page)}{_on(part)} aria-label="{_e(label)}">'
            f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="4"/>' + " ".join(lines) + "</a>")


def _arrow(x1: float, y1: float, x2: float, y2: float, width: float = 1.2, cls: str = "nt-pa") -> str:
    return (f'<line class="{cls}" x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke-width="{width:g}" '
            'marker-end="url(#nt-arrow)"/>')


ARROW_DEF = ('<defs><marker id="nt-arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="5" markerHeight="5" '
             'orient="auto-start-reverse" markerUnits="userSpaceOnUse"><path d="M0 0L8 4L0 8z" class="nt-pa-head"/>'
             '</marker></defs>')


def flow_sentence(m: dict) -> str:
    """The text alternative: the whole pass in one sentence, sizes included."""
    d, f = m["n_embd"], m["d_mlp"]
    blocks = "one block" if m["n_layer"] == 1 else f"{_count(m['n_layer'])} blocks"
    return (f"The pass: text, split into tokens; each token's embedding plus its position's ({d} numbers); "
            f"then {blocks}: LayerNorm, {_count(m['n_head'])} attention heads of {m['d_head']} numbers, joined and "
            f"projected, added onto the residual stream; LayerNorm, an MLP {d} to {f} to {d}, added onto the stream; "
            f"then a final LayerNorm, {m['vocab_size']} logits, softmax, and the pick, which is appended to the "
            "text before the pass repeats.")


def map_svg(m: dict, page: str, width: float = 240) -> str:
    """The compact vertical map: one box per part, the block's parts in a dashed frame, the loop back."""
    ps = parts(m)
    row, gap, x0, x1 = 28, 9, 26, width - 6
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
            y += 16  # room for the frame's label
        if not inside and block_top is not None and block_bottom is None:
            block_bottom = y - gap + 6
            y += 8
        if prev_bottom is not None:
            out.append(_arrow((x0 + x1) / 2, prev_bottom, (x0 + x1) / 2, y - 1))
        if p is heads[0] if heads else False:
            hw = (ix1 - ix0 - 6 * (len(heads) - 1)) / len(heads)
            for i, hp in enumerate(heads):
                out.append(_box(hp, page, ix0 + i * (hw + 6), y, hw, row))
        else:
            l, r = (ix0, ix1) if inside else (x0, x1)
            out.append(_box(p, page, l, y, r - l, row))
        if p["key"] == "text":
            text_y = y + row / 2
        if p["key"] == "loop":
            loop_y = y + row / 2
        prev_bottom = y + row
        y += row + gap
    frame = (f'<rect class="nt-pblock" x="{x0:g}" y="{block_top:g}" width="{x1 - x0:g}" '
             f'height="{block_bottom - block_top:g}" rx="6"/>'
             f'<text class="nt-pblock-name" x="{x0 + 6:g}" y="{block_top + 11:g}">'
             f'{_e("block" if m["n_layer"] == 1 else "block, × " + str(m["n_layer"]))}</text>')
    loop = (f'<path class="nt-pa nt-ploop" d="M{x0:g} {loop_y:g}H10V{text_y:g}H{x0 - 1:g}" '
            'marker-end="url(#nt-arrow)"/>')
    height = y - gap + 6
    return (f'<svg class="nt-pass-svg" viewBox="0 0 {width:g} {height:g}" width="{width:g}" height="{height:g}" '
            f'focusable="false">{ARROW_DEF}{frame}{loop}' + "".join(out) + "</svg>")


def _here_names(m: dict, page: str) -> list[str]:
    seen: list[str] = []
    for p in parts(m):
        if lit(p, page) and p["name"] not in seen and not p["key"].startswith("head"):
            seen.append(p["name"])
    return seen


def side_nav(m: dict, page: str) -> str:
    """The map for the sidebar beside the text (wide screens)."""
    return (f'<nav class="nt-pass nt-pass-side" aria-label="The whole pass, part by part">'
            f'<p class="nt-pass-title">The whole pass</p>'
            f'<p class="nt-sr">{_e(flow_sentence(m))}</p>{map_svg(m, page)}</nav>')


def phone_nav(m: dict, page: str) -> str:
    """The same map, folded: a one-line strip (one tick per part, this page's lit) that opens to it."""
    ps = [p for p in parts(m)]
    ticks = "".join(f'<rect class="nt-ptick{" nt-ptick-lit" if lit(p, page) else ""}"{_on(p)} x="{i * 9:g}" y="0" '
                    f'width="7" height="10" rx="1.5"/>' for i, p in enumerate(ps))
    here = _here_names(m, page)
    said = ("this page: " + ", ".join(here)) if here and page not in WHOLE_PASS_PAGES else (
        "this page: all of it" if here else "where each part is explained")
    return (f'<details class="nt-pass-phone"><summary><span class="nt-pass-phone-title">The whole pass</span> '
            f'<svg class="nt-pstrip" viewBox="0 0 {len(ps) * 9 - 2} 10" width="{len(ps) * 9 - 2}" height="10" '
            f'aria-hidden="true" focusable="false">{ticks}</svg> <span class="nt-pass-phone-here">{_e(said)}</span>'
            f'</summary><nav class="nt-pass" aria-label="The whole pass, part by part">'
            f'<p class="nt-sr">{_e(flow_sentence(m))}</p>{map_svg(m, page)}</nav></details>')


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
        out.append(_box(ps[key], page, x, y, w, bh, describe=False))

    def size(x, y, n, anchor="middle"):
        out.append(f'<text class="nt-psize" x="{x:g}" y="{y:g}" text-anchor="{anchor}">{n}</text>')

    # attention branch, row at y = 40..80
    ay = 46
    out.append(f'<path class="nt-pw" d="M{sx:g} {ay - 26:g}H{sx + 30:g}V{ay + bh / 2:g}H{sx + 66:g}" '
               f'stroke-width="{d * k:g}"/>')
    size(sx + 50, ay + bh / 2 - 8, d)
    box("ln_1", sx + 70, ay)
    hx = sx + 70 + bw + 50
    hy = [ay - 26 + i * (bh + 12) for i in range(h)]
    for i in range(h):
        out.append(f'<path class="nt-pw" d="M{sx + 70 + bw:g} {ay + bh / 2:g}C{hx - 20:g} {ay + bh / 2:g} '
                   f'{hx - 30:g} {hy[i] + bh / 2:g} {hx:g} {hy[i] + bh / 2:g}" stroke-width="{dh * k:g}"/>')
        size(hx - 22, hy[i] + bh / 2 - 6, dh)
        box(f"head{i}", hx, hy[i])
    jx = hx + bw + 40
    jy = ay
    for i in range(h):
        out.append(f'<path class="nt-pw" d="M{hx + bw:g} {hy[i] + bh / 2:g}C{jx - 15:g} {hy[i] + bh / 2:g} '
                   f'{jx - 25:g} {jy + bh / 2:g} {jx:g} {jy + bh / 2:g}" stroke-width="{dh * k:g}"/>')
    box("join", jx, jy, 112)
    px = jx + 112 + 30
    out.append(f'<path class="nt-pw" d="M{jx + 112:g} {jy + bh / 2:g}H{px:g}" stroke-width="{d * k:g}"/>')
    size(jx + 112 + 15, jy + bh / 2 - 8, d)
    box("attn_proj", px, jy, 110)
    add1 = ay + bh + 70
    out.append(f'<path class="nt-pw" d="M{px + 55:g} {jy + bh:g}V{add1:g}H{sx + 24:g}" stroke-width="{d * k:g}"/>')
    size(px + 55 + 10, jy + bh + 30, d, "start")
    # MLP branch
    my = add1 + 44
    out.append(f'<path class="nt-pw" d="M{sx:g} {add1 + 20:g}H{sx + 30:g}V{my + bh / 2:g}H{sx + 66:g}" '
               f'stroke-width="{d * k:g}"/>')
    box("ln_2", sx + 70, my)
    fx = sx + 70 + bw + 50
    out.append(f'<path class="nt-pw" d="M{sx + 70 + bw:g} {my + bh / 2:g}H{fx + 24:g}" stroke-width="{d * k:g}"/>')
    size(sx + 70 + bw + 25, my + bh / 2 - 8, d)
    mlp_w, mh = 300, 64
    p = ps["mlp"]
    band = f * k
    ly, lx0, lx1 = my + bh / 2 + 6, fx + 24, fx + mlp_w - 24  # the MLP's own drawing, under its names
    widen = (f'M{lx0:g} {ly - d * k / 2:g}L{lx0 + 50:g} {ly - band / 2:g}H{lx1 - 50:g}L{lx1:g} {ly - d * k / 2:g}'
             f'V{ly + d * k / 2:g}L{lx1 - 50:g} {ly + band / 2:g}H{lx0 + 50:g}L{lx0:g} {ly + d * k / 2:g}z')
    out.append(f'<a class="nt-pp{" nt-pp-lit" if lit(p, page) else ""}" href="{_href(p)}"{_current(p, page)}{_on(p)} '
               f'aria-label="{_e(p["name"] + " " + p["code"] + ": " + p["does"])}">'
               f'<rect x="{fx:g}" y="{my - 12:g}" width="{mlp_w:g}" height="{mh:g}" rx="4"/>'
               f'<text class="nt-pp-name" text-anchor="middle" x="{fx + mlp_w / 2:g}" y="{my + 1:g}">{_e(p["name"])}'
               f' <tspan class="nt-pp-code">{_e(p["code"])}</tspan></text>'
               f'<path class="nt-pwide" d="{widen}"/></a>'  # the sizes inside are labels, not the link's name
               f'<text class="nt-psize" text-anchor="middle" x="{fx + mlp_w / 2:g}" y="{ly + 4:g}">{f}, through GELU</text>'
               f'<text class="nt-psize" text-anchor="end" x="{lx0 + 40:g}" y="{ly - band / 2 - 2:g}">c_fc</text>'
               f'<text class="nt-psize" text-anchor="start" x="{lx1 - 40:g}" y="{ly - band / 2 - 2:g}">c_proj</text>')
    my = my + 14  # the return leaves from the MLP box's bottom edge
    add2 = my + bh + 50
    out.append(f'<path class="nt-pw" d="M{fx + mlp_w / 2:g} {my + bh - 2:g}V{add2:g}H{sx + 24:g}" '
               f'stroke-width="{d * k:g}"/>')
    size(fx + mlp_w / 2 + 10, my + bh + 28, d, "start")
    # the residual stream: one line, every branch adds onto it
    bottom = add2 + 40
    out.insert(0, f'<path class="nt-pstream" d="M{sx:g} 4V{bottom:g}" stroke-width="{d * k * 1.6:g}" '
                  'marker-end="url(#nt-arrow)"/>')
    for key, yy in (("add_1", add1), ("add_2", add2)):
        p = ps[key]
        out.append(f'<a class="nt-pp{" nt-pp-lit" if lit(p, page) else ""}" href="{_href(p)}"{_current(p, page)}{_on(p)} '
                   f'aria-label="{_e(p["name"] + " " + p["code"] + ": " + p["does"])}">'
                   f'<circle cx="{sx:g}" cy="{yy:g}" r="13"/><text class="nt-pp-plus" text-anchor="middle" x="{sx:g}" y="{yy + 5:g}">+</text></a>')
    out.append(f'<text class="nt-pstream-name" text-anchor="middle" x="{sx - 16:g}" y="{bottom / 2:g}" '
               f'transform="rotate(-90 {sx - 16:g} {bottom / 2:g})">residual stream, {d} numbers per token</text>')
    out.append(f'<text class="nt-pnote" x="{sx + 12:g}" y="{12:g}">from the embedding</text>')
    out.append(f'<text class="nt-pnote" x="{sx + 14:g}" y="{bottom - 4:g}">to the next block, or ln_f</text>')
    svg = (f'<svg class="nt-block-svg" viewBox="0 0 {W} {bottom + 6:g}" width="{W}" height="{bottom + 6:g}" '
           f'focusable="false">{ARROW_DEF}' + "".join(out) + "</svg>")
    rows = [ps[k] for k in ("ln_1", *[f"head{i}" for i in range(h)], "join", "attn_proj", "add_1", "ln_2", "mlp", "add_2")]
    key = "".join(f'<li><strong>{_e(p["name"])}</strong> <code>{_e(p["code"])}</code>: {_e(p["does"])}</li>' for p in rows)
    caption = (f"One block of the tiny model. The thick line is the residual stream: attention and the MLP each "
               f"read it through a LayerNorm and add their change back onto it. Each arrow is as wide as the "
               f"vector it carries: {d} numbers, {dh} per head, {f} inside the MLP.")
    return (f'<figure class="nt-block-figure"><div class="nt-scroll" role="region" tabindex="0" '
            f'aria-label="Diagram of one block (scrolls sideways)"><nav aria-label="One block, part by part">{svg}</nav></div>'
            f'<figcaption>{_e(caption)}</figcaption><ul class="nt-block-key">{key}</ul></figure>')
