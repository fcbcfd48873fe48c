"""The shelf after the main path (docs/fast.md, weights.md, making.md): its numbers are computed from the data (configs,
SmolLM2's storage record, published figures) by scripts/site/costs.py, checked here against
independent counts, and they move when the data moves; every section that prints a number shows
its status; the published figures have a schema and a source each."""
from __future__ import annotations

import copy
import math
import re

import jsonschema
import pytest

from scripts.core.io import SITE_DATA, read_json
from scripts.site import costs
from scripts.site.hooks import checks, numbers

PAGES = [numbers.ROOT / "docs" / f"{name}.md" for name in ("fast", "weights", "making")]


@pytest.fixture(scope="module")
def context():
    return numbers.build_context()


def render(ctx) -> str:
    """The shelf's pages, rendered one after the other."""
    out = []
    for page in PAGES:
        _, body, _ = checks.split_front_matter(page.read_text(encoding="utf-8"))
        out.append(numbers.make_env().from_string(body).render(**ctx, page_meta={}))
    return "\n".join(out)


def cfg(ctx, model):
    return {k: v["value"] for k, v in ctx[model]["config"].items()}


def test_kv_bytes_per_token_from_the_configs(context):
    g, s = cfg(context, "gpt2"), cfg(context, "smollm2")
    kv = context["around"]["kv"]
    # GPT-2: a key and a value of n_embd numbers per layer; SmolLM2: only its key/value heads
    assert kv["gpt2"]["bytes"] == 2 * g["n_layer"] * g["n_embd"] * 4
    assert kv["smollm2"]["bytes"] == 2 * s["n_layer"] * s["n_kv_heads"] * s["d_head"] * 4
    assert kv["smollm2"]["full_bytes"] == kv["smollm2"]["bytes"] * s["n_ctx"]
    assert kv["smollm2"]["gqa_saving"] == s["n_head"] / s["n_kv_heads"]


def test_multiply_adds_are_the_files_matrices(context):
    """Every 2-D tensor of SmolLM2's file is a matrix a token multiplies by once (the embedding table
    twice over: looked up, and as the tied output layer, where it is multiplied)."""
    storage = read_json(SITE_DATA / "smollm2" / "storage.json")
    matrices = sum(t["elements"] for t in storage["tensor_types"] if t["type"] != "F32")
    macs = context["around"]["macs"]
    assert macs["smollm2"]["matrices"] == matrices
    assert macs["smollm2"]["flops"] == 2 * matrices
    assert 0.95 < macs["gpt2"]["per_weight"] <= 1  # GPT-2's position table is not multiplied


def test_weight_bytes_and_lora(context):
    n = context["smollm2"]["n_params"]["value"]
    assert [w["bytes"] for w in context["around"]["weights"]["smollm2"]] == [n * b // 8 for b in (32, 16, 8, 4)]
    lo = context["around"]["lora"]
    s = cfg(context, "smollm2")
    q = next(r for r in lo["rows"] if r["name"] == "q")
    assert q["lora"] == lo["rank"] * (s["n_embd"] + s["n_head"] * s["d_head"])
    assert lo["total"] == s["n_layer"] * sum(r["lora"] for r in lo["rows"])


def test_q4_1_checks_the_block_against_its_bytes(context):
    storage = read_json(SITE_DATA / "smollm2" / "storage.json")
    assert context["around"]["q4_1"]["bits_per_weight"] == 5  # two float16 and 32 four-bit codes in 20 bytes
    bad = copy.deepcopy(storage)
    bad["block"]["w"][3] += 0.01
    with pytest.raises(ValueError, match="is not d·q \\+ m"):
        costs.q4_1(bad)


def test_speculative_toy_keeps_the_target(context):
    sp = context["around"]["spec"]
    assert 0 < sp["accept"] < 1 and sp["max_error"] < 1e-12
    for r in sp["rows"]:
        assert math.isclose(r["keep"], min(1, r["p"] / r["q"]))


def test_page_numbers_move_with_the_data(context):
    """Another block, another KV layout: the page prints the new numbers, not the old."""
    before = render(context)
    storage = read_json(SITE_DATA / "smollm2" / "storage.json")
    b = storage["block"]
    assert b["bytes_hex"] in before and f"{cfg(context, 'smollm2')['n_kv_heads']} key/value heads" in before
    other = copy.deepcopy(storage)
    raw = bytearray.fromhex(b["bytes_hex"])
    raw[4:] = bytes(reversed(raw[4:]))  # the same scale and minimum, the codes in reverse
    from scripts.real.storage import decode_q4_1

    other["block"] |= decode_q4_1(bytes(raw)) | {"bytes_hex": raw.hex()}
    smol = copy.deepcopy(context["smollm2"])
    smol["config"]["n_kv_heads"]["value"] = 1
    ctx = dict(context)
    settings = read_json(numbers.ROOT / "scripts" / "config" / "around.json")
    ctx["around"] = costs.around(context["gpt2"], smol, other, read_json(SITE_DATA / "around" / "published.json"),
                                 settings, context["traces"][settings["speculative"]["prompt"]],
                                 context["tok"]["vocab"], numbers.show)
    after = render(ctx)
    assert raw.hex() in after and b["bytes_hex"] not in after
    s = cfg(context, "smollm2")
    old, new = ([2, s["n_layer"], k, s["d_head"], 4] for k in (s["n_kv_heads"], 1))
    assert " × ".join(map(str, new)) in after and " × ".join(map(str, old)) not in after


def test_no_typed_numbers_and_every_numbered_section_has_a_status(context):
    allow = checks.load_allowlist()
    for page in PAGES:
        assert checks.page_errors(page.read_text(encoding="utf-8"), page.name, allow) == []
    out = render(context)
    for section in re.split(r"\n## ", out)[1:]:
        prose = section.split("\n", 1)[1]
        for mask in checks.MASKS:
            prose = mask.sub(checks._blank, prose)
        if re.search(r"\d", prose):
            assert "nt-cite-raw" in section, section.split("\n", 1)[0]


def test_published_figures_have_a_schema_and_sources(context):
    pub = read_json(SITE_DATA / "around" / "published.json")
    jsonschema.validate(pub, read_json(SITE_DATA / "schema" / "around_published.schema.json"))
    unkeyed = re.compile(r' data-key="[^"]*"')  # the same figure printed from another data path keeps its status and source
    out = unkeyed.sub("", render(context))
    for key, badge in context["around"]["published"].items():
        assert pub["records"][key]["source"]["url"] in badge["source"]
        assert unkeyed.sub("", numbers.status(badge)) in out, key  # each published figure is printed with its badge


def test_every_link_to_the_sources_page_lands_on_an_entry():
    from markdown.extensions.toc import slugify

    docs = numbers.ROOT / "docs"
    src = (docs / "sources.md").read_text(encoding="utf-8")
    ids = set(re.findall(r'<span id="([^"]+)"></span>', src)) | set(re.findall(r"\{ #([\w-]+) \}", src))
    ids |= {slugify(re.sub(r"\s*\{[^}]*\}\s*$", "", h), "-") for h in re.findall(r"^#{2,6} (.+)$", src, re.M)}
    links = [(p.name, a) for p in docs.glob("*.md")
             for a in re.findall(r"\]\(sources\.md#([\w-]+)\)", p.read_text(encoding="utf-8"))]
    assert links, "no page links to an entry of the sources page"
    missing = [(page, a) for page, a in links if a not in ids]
    assert not missing, missing


# ---- the page's figures (scripts/site/around_figures.py) ---------------------------------------------

def test_bytes_figure_bars_share_one_zero_based_scale(context):
    from scripts.site import around_figures
    A = context["around"]
    html = around_figures.bytes_figure(A["weights"], {"gpt2": "G", "smollm2": "S"}, {"gpt2": 1, "smollm2": 2}, A["q4_1"]["file_mb"])
    widths = [float(w) for w in re.findall(r'style="width:([\d.]+)%"', html)]
    values = [float(v) for v in re.findall(r'data-value="([^"]+)"', html)]
    top = max(values)
    assert len(widths) == 2 * len(A["weights"]["gpt2"]) + 1
    assert all(math.isclose(w, 100 * v / top, abs_tol=1e-3) for w, v in zip(widths, values))
    assert values[:4] == [w["mb"] for w in A["weights"]["gpt2"]]


def test_lora_figure_sets_each_matrix_beside_its_rank_r_update_on_one_zero_based_scale(context):
    from scripts.site import around_figures
    lo = context["around"]["lora"]
    html = around_figures.lora_figure(lo)
    widths = [float(w) for w in re.findall(r'style="width:([\d.]+)%"', html)]
    values = [float(v) for v in re.findall(r'data-value="([^"]+)"', html)]
    assert values == [x for r in lo["rows"] for x in (r["full"], r["lora"])]
    assert all(math.isclose(w, 100 * v / max(values), abs_tol=1e-3) for w, v in zip(widths, values))
    assert all(r["lora"] == lo["rank"] * (r["in"] + r["out"]) for r in lo["rows"])


def test_q4_block_figure_draws_every_bit_of_the_block(context):
    from scripts.site import around_figures
    q = context["around"]["q4_1"]
    html = around_figures.q4_block_figure(q)
    raw = bytes.fromhex(q["block"]["bytes_hex"])
    bits = "".join(re.findall(r'class="nt-ar-bit [^"]+">([01]+)<', html))
    # d and m as their float16's bits (most significant first), then each code byte high nibble first
    assert bits == "".join(f"{int.from_bytes(raw[i:i + 2], 'little'):016b}" for i in (0, 2)) + "".join(f"{x:08b}" for x in raw[4:])
    with pytest.raises(ValueError, match="is not its bytes"):
        around_figures.q4_block_figure(q | {"block": q["block"] | {"d": q["block"]["d"] * 2}})


def test_roofline_points_sit_on_the_roof(context):
    from scripts.site import around_figures
    mem = context["around"]["memory"]
    html = around_figures.roofline_figure(mem)
    pts = [(float(i), float(t)) for i, t in re.findall(r'data-intensity="([^"]+)" data-tflops="([^"]+)"', html)]
    assert [i for i, _ in pts][:2] == [mem["intensity_f32"], mem["intensity"]]
    for i, t in pts:
        assert math.isclose(t, min(mem["chip_tflops"], mem["chip_gb_s"] * 1e9 * i / 1e12))
    assert pts[1][1] < mem["chip_tflops"] / 10  # one reader: memory bound, far under the chip's arithmetic
    assert "(log scale)" in html


def test_router_keeps_the_top_k_and_its_gates_add_to_one(context):
    ro = context["around"]["router"]
    trace = context["traces"][ro["prompt"]]
    assert len(ro["rows"]) == len(trace["tokens"])
    for r, pre in zip(ro["rows"], trace["h"][0]["mlp_pre"]):
        assert math.isclose(sum(r["scores"]), sum(pre), abs_tol=1e-9)
        assert sorted(r["scores"], reverse=True)[:ro["top_k"]] == [r["scores"][e] for e in r["keep"]]
        assert math.isclose(sum(r["gates"]), 1) and r["gates"] == sorted(r["gates"], reverse=True)
