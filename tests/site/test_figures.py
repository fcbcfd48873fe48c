"""The figure stage: reproducible SVGs, alt text for each, and no torch needed."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from scripts.core.io import ROOT


def draw(out) -> None:
    # A fresh interpreter per run: reproducibility must not depend on state left in one process.
    code = ("import sys; from pathlib import Path; from scripts.site.figures import draw_all; "
            f"draw_all(Path({str(out)!r})); assert 'torch' not in sys.modules, 'figures imported torch'")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    """Every figure, drawn once for the tests that read them (none writes to the folder)."""
    out = tmp_path_factory.mktemp("figures")
    draw(out)
    return out


@pytest.mark.slow  # the whole generator, twice
def test_figures_are_byte_identical_across_runs(drawn, tmp_path):
    a, b = drawn, tmp_path / "b"
    draw(b)
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    assert len(names) >= 9
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), f"{name} differs between two runs"
    svg = (a / "top_bars_smollm2.svg").read_text(encoding="utf-8")
    assert "<dc:date>" not in svg  # no build date in the output


@pytest.mark.slow  # draws every figure
def test_every_figure_has_alt_text_and_missing_ones_say_why(drawn):
    tmp_path = drawn
    alt = json.loads((tmp_path / "alt.json").read_text(encoding="utf-8"))
    svgs = {p.stem for p in tmp_path.glob("*.svg")}
    drawn = {k for k, v in alt.items() if not v.startswith("unavailable")}
    assert svgs == drawn | {f"{k}-dark" for k in drawn}  # one per scheme
    assert all(len(v) > 40 for v in alt.values())
    if not (ROOT / "site_data" / "gpt2" / "measurements.json").exists():
        assert alt["sink_grid_gpt2"].startswith("unavailable") and "sink_grid_gpt2" not in svgs
    assert "sink_grid_smollm2" in svgs and "270 heads" in alt["sink_grid_smollm2"]


@pytest.mark.slow  # draws every figure
def test_each_figure_has_a_variant_per_scheme_and_no_background(drawn):
    """Dark ink for the light scheme, light ink for the dark one; no figure paints a background (a white card)."""
    tmp_path = drawn
    for light in sorted(p for p in tmp_path.glob("*.svg") if not p.stem.endswith("-dark")):
        dark = light.with_name(f"{light.stem}-dark.svg")
        a, b = light.read_text(encoding="utf-8"), dark.read_text(encoding="utf-8")
        assert "#333333" in a and "#d5d8de" not in a, light.name
        assert "#d5d8de" in b and "#333333" not in b, dark.name
        for svg in (a, b):
            assert "fill: #ffffff" not in svg and "fill:#ffffff" not in svg, light.name


def _gpt2_shape() -> dict:
    from scripts.core.io import SITE_DATA
    from scripts.real.page_variables import load_real_models
    return {k: v["value"] for k, v in load_real_models(SITE_DATA)["gpt2"]["config"].items()}


def test_the_kv_cost_chart_shows_the_cached_line_off_zero_and_its_quoted_growth():
    """The page quotes the cached step's growth (facts.decode.growth): its line must not lie on the axis's
    zero, and its rise must be a visible part of a zero-based axis."""
    import matplotlib.pyplot as plt
    from scripts.site.figures import kv_axes, kv_cost
    c = _gpt2_shape()
    fig, (both, alone) = plt.subplots(1, 2, figsize=(7.6, 3.2))
    kv_axes(both, alone, c)
    fig.canvas.draw()
    for ax in (both, alone):
        line = next(ln for ln in ax.get_lines() if "with KV" in ln.get_label() or ax is alone)
        px = ax.transData.transform(list(zip(line.get_xdata(), line.get_ydata())))
        bottom, height = ax.bbox.y0, ax.bbox.height
        assert (px[:, 1].min() - bottom) / height > 0.1, "the cached line sits on the axis's floor"
    assert alone.get_ylim()[0] == 0  # the axis that shows the rise starts at zero
    _, cached, _ = kv_cost(c)
    px = alone.transData.transform([(1, cached[0] / 1e9), (c["n_ctx"], cached[-1] / 1e9)])
    assert (px[1, 1] - px[0, 1]) / alone.bbox.height > 0.08, "the quoted growth is not visible"
    assert both.get_yscale() == "log" and "log" in both.get_ylabel()
    plt.close(fig)


def test_the_two_models_top_bars_share_one_scale(tmp_path):
    """Shown side by side, GPT-2's and SmolLM2's bars have the same width, row height and axis: the same
    probability draws the same bar. Tokens without a published probability keep a named row."""
    import re
    from scripts.site.figures import Out, top_bars
    bars_a = [{"token": " floor", "prob": 0.076}, {"token": " bed", "prob": 0.065}, {"token": " ground"}]
    bars_b = [{"token": f" t{i}", "prob": 0.07 - i * 0.005} for i in range(10)]
    alt_a = top_bars(Out(tmp_path), "a", "gpt2", bars_a, "published", "The cat sat on the", 10)
    top_bars(Out(tmp_path), "b", "smollm2", bars_b, "measured", "The cat sat on the", 10)
    size = {n: tuple(float(v) for v in re.search(r'width="([\d.]+)pt" height="([\d.]+)pt"',
                                                  (tmp_path / f"{n}.svg").read_text()).groups()) for n in "ab"}
    assert size["a"][0] == size["b"][0]  # one width
    # the height grows by the same amount per row: (10 - 3) rows apart
    per_row = (size["b"][1] - size["a"][1]) / 7
    assert per_row > 15
    assert "ground" in (tmp_path / "a.svg").read_text() and "not published" in alt_a
