"""The "reproduce it" snippets that the demos' opened numbers offer (docs/js/explain/lines.js and pass.js) run in
Python over the site's own weights file and print the number the page's arithmetic ends with.

The samples (every kind: logit, probability with and without temperature and filters, attention score and
weight, head output, output projection, LayerNorm, residual, MLP, cosine of two embeddings, logit lens, a snapshot's loss and mean loss, a K or V cache cell, a step's multiply-adds) come from node running the same module the pages load."""
from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEIGHTS = ROOT / "site_data" / "tiny" / "weights.json"
NODE = shutil.which("node")


def samples(prompt: str, knockout: str = "") -> list[dict]:
    if not (ROOT / "docs" / "js" / "data" / "tiny-model.js").is_file():
        pytest.fail("docs/js/data/tiny-model.js is missing: run `make site` first", pytrace=False)
    out = subprocess.run([NODE, str(ROOT / "tests" / "helpers" / "explain_samples.js"), prompt, knockout],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("prompt, knockout", [("the cat sat on the", ""), ("my dog", ""),
                                              ("the dog sat on the", '{"heads": [1], "mlp": false}'),
                                              ("the cat sat on the", '{"heads": [0], "mlp": true}')])
def test_snippets_print_the_number_shown(tmp_path, monkeypatch, prompt, knockout):
    """Also with parts knocked out (the attention and block pages' demos follow the knock-out demo)."""
    shutil.copy(WEIGHTS, tmp_path / "nexttoken-tiny-weights.json")
    shutil.copy(ROOT / "docs" / "js" / "data" / "nexttoken-tiny-snapshots.json", tmp_path)  # written by make site
    got = samples(prompt, knockout)
    kinds = {s["kind"] for s in got}
    assert kinds == {"logit", "prob", "score", "weight", "layernorm", "residual", "mlp", "mix", "proj", "cosine", "lens", "loss", "mean", "kv", "ops"}
    for s in got:
        out = run_snippet(s["snippet"], tmp_path, monkeypatch)
        assert out.strip() == s["eq"].replace("\u2212", "-"), (s["kind"], out, s["eq"])


def run_snippet(snippet: str, folder: Path, monkeypatch) -> str:
    """What the snippet prints, run as a script in `folder` (in this process: a new python per snippet costs
    more than the snippets; an exception fails the test with the snippet's own traceback)."""
    monkeypatch.chdir(folder)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(snippet, "<snippet>", "exec"), {"__name__": "__main__"})
    return out.getvalue()
