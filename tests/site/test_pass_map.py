"""The map of the whole pass is drawn from the model's config: other sizes give another picture, every part
links to an existing page, and a page lights exactly the parts it explains; every drawn part says which words
light it, and every demo which parts it shows."""
from __future__ import annotations

import html as html_text
import json
import re
from pathlib import Path

from scripts.site.hooks import pass_map as pass_map_hook
from scripts.core.io import SITE_DATA
from scripts.real.page_variables import load_real_models
from scripts.site.pass_map import (DEMO_PARTS, GROUPS, block_figure, demo_parts, gpt2_parts, parts, phone_nav,
                                   shape_of_demo, side_nav, smollm2_parts)

ROOT = Path(__file__).resolve().parents[2]
MODEL = json.loads((ROOT / "site_data" / "tiny" / "config.json").read_text())["model"]
SMOLLM2 = {k: v["value"] for k, v in load_real_models(SITE_DATA)["smollm2"]["config"].items()}
GPT2 = {k: v["value"] for k, v in load_real_models(SITE_DATA)["gpt2"]["config"].items()}


def whole(html: str) -> str:
    """The side map's whole drawing (it also holds a short one, names only, for low screens)."""
    return re.sub(r'<svg class="nt-map-svg nt-map-short".*?</svg>', "", html)


def links(svg: str) -> list[dict]:
    return [{"href": m.group(1), "current": m.group(2), "name": re.sub(r"<[^>]+>", "", m.group(3))} for m in re.finditer(
        r'<a class="nt-map-part[^"]*" href="([^"]+)"(?: aria-current="(\w+)")?[^>]*>.*?<text class="nt-map-name"[^>]*>(.*?)</text>',
        svg)]


def plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_every_stage_is_a_part_with_the_models_sizes():
    names = [p["name"] for p in parts(MODEL)]
    assert names[:3] == ["text", "tokens", "embedding + position"]
    assert names[-4:] == [f"{MODEL['vocab_size']} logits", "softmax", "pick", "append and repeat"]
    assert [n for n in names if n.startswith("head ")] == [f"head {i + 1}" for i in range(MODEL["n_head"])]
    mlp = next(p for p in parts(MODEL) if p["key"] == "mlp")
    assert mlp["code"] == f"mlp {MODEL['n_embd']} → {MODEL['d_mlp']} → {MODEL['n_embd']}"
    for p in parts(MODEL):
        assert (ROOT / "docs" / p["page"]).is_file(), p


def test_other_sizes_draw_another_model():
    other = MODEL | {"n_head": 4, "d_head": 2, "vocab_size": 100, "d_mlp": 16, "n_layer": 3}
    svg = whole(side_nav(other, "attention.md"))
    found = links(svg)
    assert [x["name"] for x in found if x["name"].startswith("head ")] == ["head 1", "head 2", "head 3", "head 4"]
    assert "100 logits" in plain(svg) and "mlp 8 → 16 → 8" in plain(svg) and "block, × 3" in plain(svg)
    assert "4 attention heads of 2 numbers" in plain(svg)  # the text alternative follows too


def test_every_size_says_which_config_field_it_is():
    """Each number drawn sits in an element naming its field, and each accessible name holding one keeps
    its template: filled with the config, the template is the name the build wrote."""
    other = MODEL | {"vocab_size": 31, "n_ctx": 7}
    for html in (side_nav(other, "index.md"), phone_nav(other, "sampling.md"), block_figure(other)):
        marks = re.findall(r'data-size-of="(\w+)">([^<]*)<', html)
        assert marks and all(str(other[field]) == shown for field, shown in marks)
        # no number is left unmarked in the drawn text (the head's own index aside)
        bare = re.sub(r'<[^>]*data-size-of="\w+">[^<]*<', "<", html)
        texts = html_text.unescape(" ".join(re.findall(r">([^<]+)<", bare)))
        for fixed in ("ln_1", "ln_2", "mean 0, spread 1", *(f"head {i + 1}" for i in range(other["n_head"]))):
            texts = texts.replace(fixed, "")
        assert not re.findall(r"\d", texts), texts
        for label, template in re.findall(r'aria-label="([^"]+)" data-size-label="([^"]+)"', html):
            assert template.replace("&#x27;", "'").format_map(other) == label.replace("&#x27;", "'")
    found = dict(re.findall(r'data-size-of="(\w+)">([^<]*)<', side_nav(other, "index.md")))
    assert {"vocab_size", "n_embd", "d_head", "d_mlp", "n_head", "n_ctx", "n_layer"} <= set(found)


def test_a_page_lights_the_parts_it_explains_and_only_those():
    for page in ("tokens.md", "embeddings.md", "attention.md", "block.md", "sampling.md", "generation.md"):
        found = links(whole(side_nav(MODEL, page)))
        assert len(found) == len(parts(MODEL))
        lit = {x["href"] for x in found if x["current"]}
        assert lit == {page.replace(".md", ".html")}, page
        assert all(x["current"] == "page" for x in found if x["href"] == page.replace(".md", ".html"))
    # the training page trains every part; the context window is the positions and the tokens the loop keeps
    assert {x["current"] for x in links(side_nav(MODEL, "training.md"))} == {"true"}
    assert {x["name"] for x in links(whole(side_nav(MODEL, "context.md"))) if x["current"]} == {
        "embedding + position", "append and repeat"}
    # the landing page walks the whole pass: every part is lit, none claims to be the page itself
    assert {x["current"] for x in links(side_nav(MODEL, "index.md"))} == {"true"}


def test_the_side_map_is_drawn_whole_and_short_with_the_same_parts():
    """For a low screen, the same links and names on lower rows, without the code names (they stay in each
    link's accessible name); each drawing has its own arrowhead."""
    html = side_nav(MODEL, "block.md")
    full, short = re.findall(r'<svg class="(nt-map-svg(?: nt-map-short)?)"', html), None
    assert full == ["nt-map-svg", "nt-map-svg nt-map-short"]
    short = re.search(r'<svg class="nt-map-svg nt-map-short".*?</svg>', html).group(0)
    assert [x["name"] for x in links(short)] == [x["name"] for x in links(whole(html))] == [p["name"] for p in parts(MODEL)]
    assert 'class="nt-map-code"' not in short and 'class="nt-map-code"' in whole(html)
    assert float(re.search(r'viewBox="0 0 [\d.]+ ([\d.]+)"', short).group(1)) < 0.8 * float(
        re.search(r'viewBox="0 0 [\d.]+ ([\d.]+)"', whole(html)).group(1))
    ids = re.findall(r'<marker id="([^"]+)"', html + phone_nav(MODEL, "block.md") + block_figure(MODEL))
    assert len(ids) == len(set(ids)) == 4


def test_the_phone_strip_says_what_this_page_covers():
    html = phone_nav(MODEL, "attention.md")
    assert html.startswith('<details class="nt-map-phone" data-model="tiny">') and "this page: head 1" not in html
    assert "this page: heads 1–2, join heads, output projection" in html
    assert html.count('class="nt-ptick nt-ptick-lit"') == MODEL["n_head"] + 2


def test_the_block_figure_draws_each_arrow_as_wide_as_its_vector():
    svg = block_figure(MODEL)
    widths = sorted({float(w) for w in re.findall(r'class="nt-pw"[^>]*stroke-width="([\d.]+)"', svg)})
    assert len(widths) == 2 and widths[1] / widths[0] == MODEL["n_embd"] / MODEL["d_head"]
    band = re.search(r'class="nt-pwide" d="M[\d.]+ ([\d.]+)L[\d.]+ ([\d.]+)', svg)
    edge, top = float(band.group(1)), float(band.group(2))
    # the MLP's band widens from the stream's width to d_mlp's, on the same scale
    assert round((edge - top) * 2 + widths[1], 6) == round(widths[1] * MODEL["d_mlp"] / MODEL["n_embd"], 6)
    assert f">{MODEL['d_head']}<" in svg and f">{MODEL['n_embd']}<" in svg and f"{MODEL['d_mlp']}, through GELU" in plain(svg)
    assert "residual stream" in svg


def test_every_drawn_part_carries_its_key_and_groups():
    for html in (side_nav(MODEL, "index.md"), phone_nav(MODEL, "tokens.md"), block_figure(MODEL)):
        for said in re.findall(r'data-pass-part="([^"]+)"', html):
            key, *groups = said.split()
            assert key in {p["key"] for p in parts(MODEL)} and set(groups) <= set(GROUPS) and "all" in groups
    words = {p["key"]: p["words"].split() for p in parts(MODEL)}
    assert "attn" in words["head0"] and "heads" in words["head1"] and "block" in words["mlp"] and "attn" not in words["mlp"]
    assert {k for k, w in words.items() if "output" in w} == {"ln_f", "logits", "softmax", "pick"}
    # one mark per part in each drawing of the side map and in the phone strip (the ticks and the map inside the fold)
    assert side_nav(MODEL, "index.md").count("data-pass-part=") == 2 * len(parts(MODEL))
    assert phone_nav(MODEL, "index.md").count("data-pass-part=") == 2 * len(parts(MODEL))


def test_every_demo_says_which_parts_it_shows():
    """Each demo lights parts of the map of the model it runs, and only of that one."""
    demos = sorted(f.stem for f in (ROOT / "docs" / "js" / "demos").glob("*.js"))
    real = [d for d in demos if d.startswith("real-") or d == "one-roll"]  # the landing roll draws SmolLM2's stored bars
    assert [d for d in demos if demo_parts(MODEL, d) is None] == sorted(real + ["gpt2-tokenizer"])
    assert [d for d in demos if demo_parts(SMOLLM2, d, "smollm2") is not None] == real
    assert [d for d in demos if demo_parts(GPT2, d, "gpt2") is not None] == ["gpt2-tokenizer"]
    assert {d: shape_of_demo(d) for d in ("one-roll", "temperature", "gpt2-tokenizer", "no-such-demo")} == {
        "one-roll": "smollm2", "temperature": "tiny", "gpt2-tokenizer": "gpt2", "no-such-demo": None}
    for shape, model, drawn in (("tiny", MODEL, parts), ("smollm2", SMOLLM2, smollm2_parts), ("gpt2", GPT2, gpt2_parts)):
        known = {p["key"] for p in drawn(model)} | set(GROUPS)
        for demo, said in DEMO_PARTS[shape].items():
            assert said.split() and set(said.split()) <= known, demo
    assert demo_parts(MODEL, "no-such-demo") is None


def test_the_hook_marks_demo_containers_and_keeps_a_pages_own_choice():
    html = ('<div class="nt-demo" data-demo="attention" data-prompt="the cat">x</div>'
            '<div class="nt-demo" data-demo="lens" data-pass-parts="ln_f">y</div><div data-demo="unknown-demo">z</div>'
            '<div class="nt-demo" data-demo="real-distribution">w</div>')
    models = {"tiny": MODEL, "smollm2": SMOLLM2, "gpt2": GPT2}
    out = pass_map_hook.with_parts(html, models, ["tiny", "smollm2"])
    assert ('<div class="nt-demo" data-demo="attention" data-prompt="the cat" data-pass-parts="ln_1 attn" '
            'data-pass-model="tiny">') in out
    assert 'data-demo="lens" data-pass-parts="ln_f" data-pass-model="tiny">' in out
    assert 'data-demo="real-distribution" data-pass-parts="logits softmax pick" data-pass-model="smollm2">' in out
    assert out.count("data-pass-parts") == 3
    # a demo of a model whose map the page does not show lights nothing
    assert "data-pass-model" not in pass_map_hook.with_parts(html, models, ["gpt2"])


def test_a_page_shows_a_map_for_each_model_its_demos_run_in_their_order():
    class Page:
        file = None
        meta: dict = {}
    roll_then_pass = '<div class="nt-demo" data-demo="one-roll"></div><div class="nt-demo" data-demo="one-token"></div>'
    for meta, html, want in (({"demos": ["one-roll", "one-token"]}, roll_then_pass, ["smollm2", "tiny"]),
                             ({"demos": ["kv-cache"], "map": "none"}, '<div data-demo="kv-cache"></div>', []),
                             ({"demos": ["x"], "map": "smollm2"}, '<div data-demo="x"></div>', ["smollm2"]),
                             ({}, "", [])):
        Page.meta = meta
        assert pass_map_hook.shapes_of(Page, html) == want, meta


def test_pages_with_a_demo_load_the_map_script_after_their_scripts():
    class Page:
        file = None
        meta = {"demos": ["lens"], "nt_scripts": ["js/nexttoken.js", "js/ui.js", "js/demos/lens.js"]}
    pass_map_hook.on_page_context({}, Page, {}, None)
    assert Page.meta["nt_scripts"][-1] == pass_map_hook.MAP
    pass_map_hook.on_page_context({}, Page, {}, None)
    assert Page.meta["nt_scripts"].count(pass_map_hook.MAP) == 1
    Page.meta = {"demos": ["lens"], "map": "none", "nt_scripts": ["js/nexttoken.js", "js/demos/lens.js"]}
    pass_map_hook.on_page_context({}, Page, {}, None)
    assert pass_map_hook.MAP not in Page.meta["nt_scripts"]  # no map, nothing to light
    Page.meta = {"nt_scripts": []}
    pass_map_hook.on_page_context({}, Page, {}, None)
    assert Page.meta["nt_scripts"] == []  # a page without demos loads no script


def test_smollm2s_map_is_its_own_shape_with_its_recorded_sizes():
    """RMSNorm, query heads sharing key/value heads, rotary positions, a gated MLP, its vocabulary: every
    size from the config the real-model stage recorded, none typed; no mark a reader's tiny model would redraw."""
    shown = {k: (f"{v:,}" if isinstance(v, int) else v) for k, v in SMOLLM2.items()}
    html = side_nav(shown, "real-models.md", "smollm2")
    names = [x["name"] for x in links(html)]
    assert names[:3] == ["text", "tokens", "embedding"] and "RMSNorm" in names and "final RMSNorm" in names
    assert f"{shown['n_head']} query heads" in names and f"{shown['n_kv_heads']} K/V heads" in names
    assert "rotary positions" in names and "gated MLP" in names and f"{shown['vocab_size']} logits" in names
    assert f"{shown['n_embd']} → {shown['d_mlp']} → {shown['n_embd']}" in plain(html)
    assert f"block, × {shown['n_layer']}" in plain(html)
    assert "LayerNorm" not in plain(html) and "data-size-of" not in html and "data-size-label" not in html
    assert 'data-model="smollm2"' in html and "of SmolLM2-135M" in plain(html)
    for p in smollm2_parts(shown):
        assert (ROOT / "docs" / p["page"]).is_file(), p


def test_a_page_shows_the_map_of_its_model_or_none():
    class Page:
        file = None
        meta: dict = {}
    for meta, want in (({"demos": ["lens"]}, "tiny"), ({}, "none"), ({"demos": ["real-ask"], "map": "smollm2"}, "smollm2"),
                       ({"demos": ["lens"], "map": "none"}, "none")):
        Page.meta = meta
        assert pass_map_hook.shape_of(Page) == want, meta
    Page.meta = {"map": "gpt3"}
    try:
        pass_map_hook.shape_of(Page)
    except Exception as exc:
        assert "map: 'gpt3' is not one of tiny, smollm2, gpt2, none" in str(exc)
    else:
        raise AssertionError("an unknown map was accepted")
