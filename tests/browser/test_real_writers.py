"""The three writers on the real-models page (docs/js/demos/real-writers.js, docs/js/runtime/decoding.js)
with SmolLM2 loaded in Chromium, over http and from file://, against transformers loading the same GGUF
(de-quantised to float32, eager attention): greedy equals generate(do_sample=False) for 16 tokens, beam
search equals generate(num_beams=3) for 8 tokens with transformers' defaults (length_penalty=1.0,
early_stopping=False) and both end tokens (<|im_end|>, <|endoftext|>) as eos_token_id; a seeded sample
is reproducible and equals the same draw replayed in Python over transformers' logits; Stop stops.
Until the model is loaded, the section says why it cannot write.

The model is opened through the panel above, as a reader does (scripts/quality/bench_writers.py's OPEN_MODEL)."""
from __future__ import annotations

import numpy as np
import pytest

from scripts.quality.bench_writers import OPEN_MODEL, WRITE
from scripts.tiny.sizing import Mulberry32
from tests.helpers.real_reference import one_thread

pytestmark = pytest.mark.browser

PAGE = "real-models.html"
PROMPT = "A quiet village by the sea was"  # held out: in no test set, no page, no config
ROOT_SEL = '.nt-demo[data-demo="real-writers"]'


@pytest.fixture(scope="module")
def hf():
    """transformers' model and tokenizer, the prompt's ids, the end tokens and both references."""
    torch = pytest.importorskip("torch", reason="the reference needs the pipeline dependencies")
    pytest.importorskip("transformers")
    from transformers import GenerationConfig

    from scripts.core.io import read_json
    from scripts.real import loading
    from scripts.site import real_js

    model, tok, _, _ = loading.load("smollm2", read_json(real_js.CONFIG)["models"]["smollm2"])
    ids = tok.encode(PROMPT, add_special_tokens=False)
    ends = [tok.convert_tokens_to_ids("<|im_end|>"), tok.convert_tokens_to_ids("<|endoftext|>")]
    x = torch.tensor([ids])
    common = dict(do_sample=False, eos_token_id=ends, pad_token_id=ends[0])
    with torch.no_grad(), one_thread():
        greedy = model.generate(x, generation_config=GenerationConfig(num_beams=1, max_new_tokens=16, **common))
        beam = model.generate(x, generation_config=GenerationConfig(num_beams=3, max_new_tokens=8, length_penalty=1.0,
                                                                    early_stopping=False, **common))
    return {"model": model, "tok": tok, "ids": ids, "ends": ends,
            "greedy": greedy[0, len(ids):].tolist(), "beam": beam[0, len(ids):].tolist()}


@pytest.fixture(scope="module")
def opened(module_open_page):
    """opened(mode): the page with the model loaded through the panel and the prompt run, and the prompt's ids. One
    page per mode for the module: the tests that write run on it in turn, as a reader writes again (each Write starts
    its writers afresh from the panel's pass), where each loaded the page and the model for itself."""
    done = {}

    def get(mode):
        if mode not in done:
            page = module_open_page(PAGE, mode)
            page.set_default_timeout(600_000)
            page.wait_for_selector(f"{ROOT_SEL}[data-ready]")
            done[mode] = page, page.evaluate(OPEN_MODEL, [PROMPT, False])
        return done[mode]
    return get


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["http", "file"])
def test_greedy_and_beam_search_equal_transformers(opened, hf, mode):
    page, ids = opened(mode)
    assert ids == hf["ids"]
    g = page.evaluate(WRITE, [16, ["greedy"], None])
    assert g["message"] == ""
    assert g["greedy"]["ids"] == hf["greedy"], (hf["tok"].decode(g["greedy"]["ids"]), hf["tok"].decode(hf["greedy"]))
    assert g["greedy"]["why"] == ("end" if hf["greedy"][-1] in hf["ends"] else "length")
    b = page.evaluate(WRITE, [8, ["beam"], None])
    assert b["beam"]["ids"] == hf["beam"], (hf["tok"].decode(b["beam"]["ids"]), hf["tok"].decode(hf["beam"]))
    # the beams are shown with their sums, and the answer's score is its sum over its length
    shown = page.evaluate(f"""() => [...document.querySelectorAll('{ROOT_SEL} .nt-beam-done')].map(li => Number(li.dataset.score))""")
    assert len(shown) == 3 and shown == sorted(shown, reverse=True)
    assert page.nt_problems == []


def replay(hf, sampled: list[int], sampling: dict) -> list[int]:
    """The writer's draw (runtime/sampling.js: softmax at T, top-k, top-p over the sorted
    probabilities, ties to the lower id, then u = mulberry32(seed) against the renormalised running
    sum) replayed over transformers' logits after the prompt and each prefix of `sampled`."""
    import torch

    rng, out = Mulberry32(sampling["seed"]), []
    for n in range(len(sampled)):
        with torch.no_grad(), one_thread():
            logits = hf["model"](torch.tensor([hf["ids"] + sampled[:n]])).logits[0, -1].double().numpy()
        z = (logits - logits.max()) / sampling["T"]
        probs = np.exp(z) / np.exp(z).sum()
        order = np.lexsort((np.arange(len(probs)), -probs))
        sorted_p = probs[order]
        k = sampling["k"] if 0 < sampling["k"] < len(probs) else len(probs)
        kept = k
        if sampling["p"] < 1:
            cum = np.cumsum(sorted_p[:k] / sorted_p[:k].sum())
            kept = max(1, int(np.argmax(cum >= sampling["p"])) + 1)
        share = sorted_p[:kept] / sorted_p[:kept].sum()
        u = rng.next_u32() / 4294967296.0
        at = int(np.searchsorted(np.cumsum(share), u, side="right"))
        out.append(int(order[min(at, kept - 1)]))
        if out[-1] in hf["ends"]:
            break
    return out


@pytest.mark.slow
def test_seeded_sample_is_reproducible_and_replays_in_python(opened, hf):
    page, _ = opened("http")
    s = {"T": 0.8, "k": 0, "p": 0.9, "seed": 7}
    a = page.evaluate(WRITE, [10, ["sample"], s])["sample"]
    b = page.evaluate(WRITE, [10, ["sample"], s])["sample"]
    assert a["ids"] == b["ids"] and a["why"] == "length"
    assert replay(hf, a["ids"], s) == a["ids"]
    hot = {"T": 1.5, "k": 0, "p": 1, "seed": 8}
    c = page.evaluate(WRITE, [10, ["sample"], hot])["sample"]
    assert c["ids"] != a["ids"]
    assert replay(hf, c["ids"], hot) == c["ids"]
    text = page.text_content(f'{ROOT_SEL} [data-role="settings"]')
    assert "temperature 1.5" in text and "seed 8" in text


STOP = """async () => {
  const root = document.querySelector('.nt-demo[data-demo="real-writers"]');
  root.querySelector('[data-role="length"]').value = "64";
  for (const box of root.querySelectorAll('.nt-check input')) box.checked = true;
  root.querySelector('[data-role="write"]').click();
  const box = (w) => root.querySelector(`[data-writer="${w}"]`);
  const wait = (ok) => new Promise((resolve) => { const f = () => ok() ? resolve() : setTimeout(f, 20); f(); });
  await wait(() => Number(box("greedy").dataset.tokens || 0) >= 2);
  const stopBtn = root.querySelector('[data-role="stop"]');
  const stopEnabled = !stopBtn.disabled;
  stopBtn.click();
  await wait(() => root.hasAttribute("data-done"));
  const at = ["greedy", "sample", "beam"].map((w) => Number(box(w).dataset.tokens));
  await new Promise((r) => setTimeout(r, 3000));
  return {stopEnabled, at, later: ["greedy", "sample", "beam"].map((w) => Number(box(w).dataset.tokens)),
          why: ["greedy", "sample", "beam"].map((w) => box(w).dataset.why),
          writeEnabled: !root.querySelector('[data-role="write"]').disabled};
}"""


@pytest.mark.slow
def test_stop_stops_every_writer(opened):
    page, _ = opened("file")
    got = page.evaluate(STOP)
    assert got["stopEnabled"] and got["writeEnabled"]
    assert got["why"] == ["stopped"] * 3
    assert got["at"] == got["later"] and max(got["at"]) < 64
    assert page.nt_problems == []


@pytest.mark.parametrize("mode", ["http", "file"])
def test_without_the_model_the_section_says_why(open_page, mode):
    page = open_page(PAGE, mode)
    page.wait_for_selector(f"{ROOT_SEL}[data-ready]")
    write = page.locator(f'{ROOT_SEL} [data-role="write"]')
    assert write.is_disabled()
    why = page.locator(f"#{write.get_attribute('aria-describedby')}").text_content()
    assert why == "Load the model in the panel above first: the writers run it in your browser."
    assert page.locator(f"{ROOT_SEL} .nt-fallback").is_hidden()
    # a model without a prompt's pass: the reason changes
    page.evaluate("() => nexttoken.store.set('real.model', {session: {}, tokenizer: {}, config: {}})")
    assert page.locator(f"#{write.get_attribute('aria-describedby')}").text_content() == \
        "Run a prompt in the panel above first: the writers continue it."
    assert page.nt_problems == []
