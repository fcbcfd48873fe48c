"""The snippets' fixed parts are real Python files (docs/snippets/), linted by `make lint` and run here as
the demos run them: the tiny model's pass gives the build's own traces, the real model's gives SmolLM2's
stored logits. docs/js/data/snippets.js is what scripts/site/snippets_js.py makes of them."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from scripts.core.io import SITE_DATA, StageError
from scripts.site import snippets_js

TINY = snippets_js.FOLDER / "tiny_pass.py"
REAL = snippets_js.FOLDER / "real_pass.py"


def run(imports: list[str], inputs: list[str], body: list[str], folder) -> dict:
    """The snippet as an explanation writes it, run in `folder`; its variables."""
    scope: dict = {"__name__": "snippet"}
    code = "\n".join(imports + inputs + body) + "\n"
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        exec(compile(code, "<snippet>", "exec"), scope)
    finally:
        os.chdir(cwd)
    return scope


def weights_in(folder) -> None:
    """The final weights under the name the snippets open (site_data's file holds them under "weights")."""
    shutil.copy(SITE_DATA / "tiny" / "weights.json", folder / "nexttoken-tiny-weights.json")


def test_the_tiny_pass_gives_the_builds_traces(tmp_path):
    weights_in(tmp_path)
    cfg = json.loads((SITE_DATA / "tiny" / "config.json").read_text())["model"]
    part = snippets_js.parts(TINY)
    for trace in json.loads((SITE_DATA / "tiny" / "traces.json").read_text())["traces"]:
        inputs = ['W = json.load(open("nexttoken-tiny-weights.json"))["weights"]', f"ids = {trace['ids']}",
                  f"ln_eps, C, H = {cfg['ln_eps']}, {cfg['n_embd']}, {cfg['n_head']}", "off_heads, off_mlp = [], False"]
        got = run(["import json", "import numpy as np"], inputs, part["body"], tmp_path)["tr"]
        assert np.abs(got["logits"] - np.array(trace["logits"])).max() < 1e-6, trace["prompt"]


def test_the_tiny_pass_runs_as_a_script(tmp_path):
    weights_in(tmp_path)
    proc = subprocess.run([sys.executable, str(TINY)], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert 0 <= int(proc.stdout) < json.loads((SITE_DATA / "tiny" / "config.json").read_text())["model"]["vocab_size"]


def test_the_data_script_holds_the_files_parts():
    text = snippets_js.build()
    for name in ("tiny_pass", "real_pass"):
        assert json.dumps(snippets_js.parts(snippets_js.FOLDER / f"{name}.py")["body"][0], ensure_ascii=False)[1:-1] in text
    if snippets_js.OUT.is_file():
        assert snippets_js.OUT.read_text(encoding="utf-8") == text, "run `make site` (the generator is behind)"


def test_a_file_without_its_markers_is_one_line(tmp_path):
    bad = tmp_path / "broken.py"
    bad.write_text("import numpy as np\nx = 1\n")
    with pytest.raises(StageError, match=r"broken.py: needs a line '# ---- end of inputs ----'"):
        snippets_js.parts(bad)


@pytest.mark.slow  # loads SmolLM2 with transformers
def test_the_real_pass_gives_smollm2s_stored_logits(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    d = json.loads((SITE_DATA / "smollm2" / "distributions" / "cat.json").read_text())
    part = snippets_js.parts(REAL)
    inputs = [f"gguf_file = {json.dumps(d['provenance']['weights_file'])}", f"ids = {d['ids']}", "off_heads, off_mlp = [], []"]
    logits = run(part["imports"], inputs, part["body"], tmp_path)["logits"].numpy()
    assert abs(logits.max() - d["max_logit"]) < 2e-3
    assert int(logits.argmax()) == d["head"]["ids"][0]
