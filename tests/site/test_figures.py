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


@pytest.mark.slow  # the whole generator, twice
def test_figures_are_byte_identical_across_runs(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    draw(a)
    draw(b)
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    assert len(names) >= 9
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), f"{name} differs between two runs"
    svg = (a / "top_bars_smollm2.svg").read_text(encoding="utf-8")
    assert "<dc:date>" not in svg  # no build date in the output


@pytest.mark.slow  # draws every figure
def test_every_figure_has_alt_text_and_missing_ones_say_why(tmp_path):
    draw(tmp_path)
    alt = json.loads((tmp_path / "alt.json").read_text(encoding="utf-8"))
    svgs = {p.stem for p in tmp_path.glob("*.svg")}
    drawn = {k for k, v in alt.items() if not v.startswith("unavailable")}
    assert svgs == drawn | {f"{k}-dark" for k in drawn}  # one per scheme
    assert all(len(v) > 40 for v in alt.values())
    if not (ROOT / "site_data" / "gpt2" / "measurements.json").exists():
        assert alt["sink_grid_gpt2"].startswith("unavailable") and "sink_grid_gpt2" not in svgs
    assert "sink_grid_smollm2" in svgs and "270 heads" in alt["sink_grid_smollm2"]


@pytest.mark.slow  # draws every figure
def test_each_figure_has_a_variant_per_scheme_and_no_background(tmp_path):
    """Dark ink for the light scheme, light ink for the dark one; no figure paints a background (a white card)."""
    draw(tmp_path)
    for light in sorted(p for p in tmp_path.glob("*.svg") if not p.stem.endswith("-dark")):
        dark = light.with_name(f"{light.stem}-dark.svg")
        a, b = light.read_text(encoding="utf-8"), dark.read_text(encoding="utf-8")
        assert "#333333" in a and "#d5d8de" not in a, light.name
        assert "#d5d8de" in b and "#333333" not in b, dark.name
        for svg in (a, b):
            assert "fill: #ffffff" not in svg and "fill:#ffffff" not in svg, light.name
