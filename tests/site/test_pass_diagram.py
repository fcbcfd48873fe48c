"""The map of the whole pass is drawn from the model's config: other sizes give another picture, every part
links to an existing page, and a page lights exactly the parts it explains."""
from __future__ import annotations

import json
import re
from pathlib import Path

from scripts.site.pass_diagram import block_figure, parts, phone_nav, side_nav

ROOT = Path(__file__).resolve().parents[2]
MODEL = json.loads((ROOT / "site_data" / "tiny" / "config.json").read_text())["model"]


def links(svg: str) -> list[dict]:
    return [{"href": m.group(1), "current": m.group(2), "name": m.group(3)} for m in re.finditer(
        r'<a class="nt-pp[^"]*" href="([^"]+)"(?: aria-current="(\w+)")?[^>]*>.*?<text class="nt-pp-name"[^>]*>([^<]+)',
        svg)]


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
    svg = side_nav(other, "attention.md")
    found = links(svg)
    assert [x["name"] for x in found if x["name"].startswith("head ")] == ["head 1", "head 2", "head 3", "head 4"]
    assert "100 logits" in svg and "mlp 8 → 16 → 8" in svg and "block, × 3" in svg
    assert "four attention heads of 2 numbers" in svg  # the text alternative follows too


def test_a_page_lights_the_parts_it_explains_and_only_those():
    for page in ("tokens.md", "embeddings.md", "attention.md", "block.md", "sampling.md", "generation.md"):
        found = links(side_nav(MODEL, page))
        assert len(found) == len(parts(MODEL))
        lit = {x["href"] for x in found if x["current"]}
        assert lit == {page.replace(".md", ".html")}, page
        assert all(x["current"] == "page" for x in found if x["href"] == page.replace(".md", ".html"))
    assert not any(x["current"] for x in links(side_nav(MODEL, "training.md")))
    # the landing page walks the whole pass: every part is lit, none claims to be the page itself
    assert {x["current"] for x in links(side_nav(MODEL, "index.md"))} == {"true"}


def test_the_phone_strip_says_what_this_page_covers():
    html = phone_nav(MODEL, "attention.md")
    assert html.startswith('<details class="nt-pass-phone">') and "this page: head 1" not in html
    assert "this page: join heads, output projection" in html
    assert html.count('class="nt-ptick nt-ptick-lit"') == MODEL["n_head"] + 2


def test_the_block_figure_draws_each_arrow_as_wide_as_its_vector():
    svg = block_figure(MODEL)
    widths = sorted({float(w) for w in re.findall(r'class="nt-pw"[^>]*stroke-width="([\d.]+)"', svg)})
    assert len(widths) == 2 and widths[1] / widths[0] == MODEL["n_embd"] / MODEL["d_head"]
    band = re.search(r'class="nt-pwide" d="M[\d.]+ ([\d.]+)L[\d.]+ ([\d.]+)', svg)
    edge, top = float(band.group(1)), float(band.group(2))
    # the MLP's band widens from the stream's width to d_mlp's, on the same scale
    assert round((edge - top) * 2 + widths[1], 6) == round(widths[1] * MODEL["d_mlp"] / MODEL["n_embd"], 6)
    assert f">{MODEL['d_head']}<" in svg and f">{MODEL['n_embd']}<" in svg and f"{MODEL['d_mlp']}, through GELU" in svg
    assert "residual stream" in svg
