"""SmolLM2-135M-Instruct in the JS engine (Node) against transformers loading the same GGUF
(de-quantised to float32, eager attention), on held-out prompts drawn from a seed, raw and in the
chat template; token ids from transformers' tokenizer."""
from __future__ import annotations

import json

import numpy as np
import pytest

pytestmark = pytest.mark.slow
torch = pytest.importorskip("torch", reason="the reference needs the pipeline dependencies")
pytest.importorskip("transformers")

from scripts.core.io import read_json  # noqa: E402
from scripts.real import loading  # noqa: E402
from scripts.site import real_js  # noqa: E402
from tests.helpers.real_reference import compare, log_softmax, reference, run_node  # noqa: E402

SEED = 20261203
SUBJECTS = ["The cat", "My neighbour", "A small robot", "The old king", "Every student", "The river", "Grandma",
            "The capital of France", "Water", "The first computer", "Our team", "A hungry fox"]
VERBS = ["sat on the", "is known for", "decided to", "always wanted", "was found near", "looks like", "is",
         "ran towards the", "said that", "will never"]
SNIPPETS = ["def add(a, b):\n    return", "for i in range(10):", "x = [1, 2, 3]\nprint(len(", "2 + 2 =",
            "The year 1969 was", "1, 2, 3, 4,", "SELECT name FROM", "Monday, Tuesday,", "Paris est la", "print('hello"]
QUESTIONS = ["What is the capital of France?", "Name a colour.", "How many legs does a spider have?",
             "Write one word that rhymes with cat.", "What is 7 times 6?", "Who wrote Hamlet?",
             "Translate 'good morning' to French.", "Is the sun a star?"]


def held_out(tok) -> list[tuple[str, list[int]]]:
    """22 prompts from the seed: 10 sentence starts, 6 snippets, 6 chat-templated questions."""
    rng = np.random.default_rng(SEED)
    texts = [f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)}" for _ in range(10)]
    texts += list(rng.choice(SNIPPETS, size=6, replace=False))
    out = [(t, tok.encode(t, add_special_tokens=False)) for t in texts]
    for q in rng.choice(QUESTIONS, size=6, replace=False):
        text = tok.apply_chat_template([{"role": "user", "content": str(q)}], add_generation_prompt=True, tokenize=False)
        out.append((text, tok.encode(text, add_special_tokens=False)))
    return out


@pytest.fixture(scope="module")
def smollm2():
    spec = read_json(real_js.CONFIG)["models"]["smollm2"]
    model, tok, _, _ = loading.load("smollm2", spec)
    return model, tok


@pytest.fixture(scope="module")
def ref_of(smollm2):
    """transformers' pass on a prompt (with a knock-out), run once for both kernels' comparisons; with its
    logit lens only where the engine is asked for its own (each block's lens reads the whole output matrix:
    the 30 of them cost more than the pass itself)."""
    model, _ = smollm2
    done: dict = {}

    def get(ids: list[int], knockout: dict | None = None, lens: bool = False) -> dict:
        key = (tuple(ids), json.dumps(knockout, sort_keys=True))
        if key not in done or (lens and done[key]["lens"] is None):
            done[key] = reference(model, ids, knockout, lens=lens)
        return done[key]
    return get


@pytest.fixture(scope="module")
def browser_copy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("smollm2-browser")
    path, source = real_js.smollm2_gguf()
    files = real_js.gguf_files(path, "smollm2", source)
    real_js.write_folder(folder / "smollm2", files)
    return folder, files, source


def test_browser_files_size(browser_copy):
    _, files, source = browser_copy
    size = sum(len(t) for t in files.values())
    assert size <= 1.35 * source["bytes"], (size, source["bytes"])
    assert max(len(t) for t in files.values()) < 20_000_000


@pytest.mark.parametrize("kernels", ["js", "wasm"])
def test_smollm2_matches_transformers(kernels, smollm2, ref_of, browser_copy, tmp_path):
    _, tok = smollm2
    folder, _, _ = browser_copy
    prompts = held_out(tok)
    assert sum("<|im_start|>" in t for t, _ in prompts) == 6 and len(prompts) == 22
    rng = np.random.default_rng(SEED + 1)
    knockouts = [{"heads": [[int(rng.integers(30)), int(rng.integers(9))]], "mlp": []} for _ in range(2)]
    knockouts.append({"heads": [], "mlp": [int(rng.integers(30))]})
    cases = [(ids, None) for _, ids in prompts] + [(prompts[i][1], k) for i, k in zip((0, 10, 16), knockouts)]
    reqs = [{"ids": ids, "opts": {"residuals": True, "heads": True, "knockout": k, "lens": i in (0, 16)}}
            for i, (ids, k) in enumerate(cases)]
    _, js = run_node(folder, "smollm2", reqs, tmp_path, kernels=kernels)
    worst = {"logit": 0.0, "kl": 0.0, "residual_rel": 0.0, "heads": 0.0, "lens_logit": 0.0}
    for i, ((ids, k), out, req) in enumerate(zip(cases, js, reqs)):
        ref = ref_of(ids, k, lens=req["opts"]["lens"])
        got = compare(ref, out)
        assert got["top_same"], (i, tok.decode(ids))
        for key in ("logit", "kl", "residual_rel", "heads", "lens_logit"):
            worst[key] = max(worst[key], got.get(key, 0.0))
        if k is not None:  # the knock-out moved the output: the comparison is not vacuous
            plain = js[next(j for j, (p, kk) in enumerate(cases) if p == ids and kk is None)]
            assert np.abs(plain["logits"] - out["logits"]).max() > 1e-3
    print(f"smollm2 ({kernels} kernels) parity over {len(cases)} runs: {worst}")  # shown with pytest -s
    assert worst["logit"] <= 2e-3 and worst["kl"] <= 1e-5 and worst["lens_logit"] <= 2e-3, worst
    # residual entries reach the hundreds in float32: the bound is relative to each vector's largest entry
    assert worst["residual_rel"] <= 1e-4 and worst["heads"] <= 1e-4, worst


@pytest.mark.parametrize("kernels", ["js", "wasm"])
def test_smollm2_decode_step_matches(kernels, smollm2, ref_of, browser_copy, tmp_path):
    _, tok = smollm2
    folder, _, _ = browser_copy
    ids = tok.encode("The capital of France is the city of", add_special_tokens=False)
    _, js = run_node(folder, "smollm2", [{"ids": ids[:-2], "decode": ids[-2:]}], tmp_path, kernels=kernels)
    for step, logits in enumerate(js[0]["decode"]):
        ref = ref_of(ids[:len(ids) - 1 + step])["logits"]
        lr, lj = log_softmax(ref), log_softmax(logits)
        assert np.abs(ref - logits).max() <= 2e-3 and (np.exp(lr) * (lr - lj)).sum() <= 1e-5
    assert tok.decode([int(js[0]["decode"][-1].argmax())]) == " Paris"
