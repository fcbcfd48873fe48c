"""The browser copy of a real model (scripts/site/real_js.py) and the JS engine that runs it
(docs/js/real/engine.js, in Node), against transformers on two random models the tests make:
a small llama with grouped-query attention written to a GGUF the way llama.cpp writes one (Q4_1
layers, Q8_0 embedding, F32 norms, Q/K rows permuted), and a small GPT-2 exported at 8 bits from its
state dict. The reference models carry the same de-quantised weights."""
from __future__ import annotations

import base64
import hashlib

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # transformers references (torch imported at the top)
torch = pytest.importorskip("torch", reason="the references need the pipeline dependencies")
transformers = pytest.importorskip("transformers")
gguf = pytest.importorskip("gguf")

from scripts.site import real_js  # noqa: E402
from tests.helpers.real_reference import compare, reference, run_node  # noqa: E402

Q = gguf.GGMLQuantizationType


def roundtrip(w: np.ndarray, qtype) -> np.ndarray:
    return gguf.quants.dequantize(gguf.quants.quantize(w.astype(np.float32), qtype), qtype)


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    """(HF model with the de-quantised weights, browser folder) of a 2-block llama, 6 query heads over
    2 key/value heads, written to GGUF with gguf's writer and read back by the generator."""
    work = tmp_path_factory.mktemp("llama-random")
    torch.manual_seed(1)
    cfg = transformers.LlamaConfig(vocab_size=320, hidden_size=96, intermediate_size=128, num_hidden_layers=2,
                                   num_attention_heads=6, num_key_value_heads=2, max_position_embeddings=128,
                                   rms_norm_eps=1e-5, rope_theta=10000.0, tie_word_embeddings=True,
                                   initializer_range=0.2, attn_implementation="eager")
    model = transformers.LlamaForCausalLM(cfg).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.copy_(1 + 0.1 * torch.randn_like(p))
    path = work / "random-llama.gguf"
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_block_count(2); w.add_context_length(128); w.add_embedding_length(96); w.add_feed_forward_length(128)
    w.add_head_count(6); w.add_head_count_kv(2); w.add_rope_freq_base(10000.0); w.add_layer_norm_rms_eps(1e-5)
    w.add_bos_token_id(1); w.add_eos_token_id(2)
    sd = {k: v.detach().numpy() for k, v in model.state_dict().items()}
    names = {"self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
             "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
             "mlp.down_proj": "ffn_down", "input_layernorm": "attn_norm", "post_attention_layernorm": "ffn_norm"}
    dequantised = {}
    for key, a in sd.items():
        if key == "lm_head.weight":
            continue
        if key == "model.embed_tokens.weight":
            gname, qtype = "token_embd.weight", Q.Q8_0
        elif key == "model.norm.weight":
            gname, qtype = "output_norm.weight", None
        else:
            _, _, layer, *rest = key.split(".")
            mod = ".".join(rest[:-1])
            gname, qtype = f"blk.{layer}.{names[mod]}.weight", (None if mod.endswith("layernorm") else Q.Q4_1)
        stored = a
        if gname.endswith(("attn_q.weight", "attn_k.weight")):
            stored = real_js.permute_rows(a, 6 if "attn_q" in gname else 2)
        if qtype is None:
            w.add_tensor(gname, stored.astype(np.float32))
            dequantised[key] = a
        else:
            w.add_tensor(gname, gguf.quants.quantize(stored.astype(np.float32), qtype), raw_dtype=qtype)
            dequantised[key] = roundtrip(a, qtype)
    w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()
    with torch.no_grad():
        for key, a in dequantised.items():
            model.state_dict()[key].copy_(torch.from_numpy(np.ascontiguousarray(a)))
    folder = work / "browser"
    files = real_js.gguf_files(path, "llama", {"file": path.name})
    real_js.write_folder(folder / "llama", files)
    return model, folder, files


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    work = tmp_path_factory.mktemp("gpt2-random")
    torch.manual_seed(2)
    hf = dict(n_layer=2, n_head=2, n_embd=64, n_positions=64, vocab_size=300, initializer_range=0.2,
              bos_token_id=0, eos_token_id=0)
    model = transformers.GPT2LMHeadModel(transformers.GPT2Config(**hf, attn_implementation="eager")).eval()
    sd = {k: v.detach().numpy() for k, v in model.state_dict().items()}
    cfg = real_js.gpt2_config(hf | {"layer_norm_epsilon": 1e-5})
    files = real_js.pack(cfg, real_js.gpt2_tensors(sd, cfg), "gpt2", {"file": "random"})
    real_js.write_folder(work / "gpt2", files)
    with torch.no_grad():
        for key, p in model.state_dict().items():
            if key.endswith("weight") and p.ndim == 2 and "lm_head" not in key:
                a = p.numpy()
                q = roundtrip(a.T, Q.Q8_0).T if ".h." in key else roundtrip(a, Q.Q8_0)
                p.copy_(torch.from_numpy(np.ascontiguousarray(q)))
    return model, work, files


def prompts(vocab: int, seed: int, n: int = 6) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, vocab, size=int(rng.integers(1, 24))).tolist() for _ in range(n)]


KNOCKOUTS = [None, {"heads": [[0, 1]]}, {"heads": [[1, 4], [0, 0]], "mlp": [0]}]


@pytest.mark.parametrize("kernels", ["js", "wasm"])
@pytest.mark.parametrize("which", ["llama", "gpt2"])
def test_random_model_matches_transformers(which, kernels, llama, gpt2, tmp_path):
    model, folder, _ = llama if which == "llama" else gpt2
    n_head = model.config.num_attention_heads
    ids = prompts(model.config.vocab_size, seed=7 if which == "llama" else 8)
    cases = [(p, k) for p in ids for k in KNOCKOUTS]
    reqs = []
    for p, k in cases:
        ko = None if k is None else {"heads": [[l, h % n_head] for l, h in k["heads"]], "mlp": k.get("mlp", [])}
        reqs.append({"ids": p, "opts": {"residuals": True, "heads": True, "lens": True, "knockout": ko}})
    _, js = run_node(folder, which, reqs, tmp_path, kernels=kernels)
    worst = {"logit": 0.0, "kl": 0.0, "residual": 0.0, "heads": 0.0, "lens_logit": 0.0}
    for (p, _), req, out in zip(cases, reqs, js):
        got = compare(reference(model, p, req["opts"]["knockout"]), out)
        assert got["top_same"], (which, p)
        for key in worst:
            worst[key] = max(worst[key], got[key])
    print(f"{which} ({kernels} kernels) parity over {len(cases)} runs: {worst}")  # shown with pytest -s
    assert worst["logit"] <= 2e-3 and worst["kl"] <= 1e-5 and worst["lens_logit"] <= 2e-3, worst
    assert worst["residual"] <= 1e-4 and worst["heads"] <= 1e-4, worst
    # a knocked-out head changes the answer's numbers: the comparison above is not vacuous
    assert np.abs(js[0]["logits"] - js[1]["logits"]).max() > 1e-3


@pytest.mark.parametrize("kernels", ["js", "wasm"])
@pytest.mark.parametrize("which", ["llama", "gpt2"])
def test_decode_steps_equal_the_whole_prompt(which, kernels, llama, gpt2, tmp_path):
    """Prefill the first tokens, then decode the rest one by one through the KV cache: each step's
    logits are transformers' for that prefix."""
    model, folder, _ = llama if which == "llama" else gpt2
    ids = prompts(model.config.vocab_size, seed=9, n=1)[0] + [5, 6, 7]
    _, js = run_node(folder, which, [{"ids": ids[:3], "decode": ids[3:]}], tmp_path, kernels=kernels)
    for step, logits in enumerate(js[0]["decode"]):
        ref = reference(model, ids[:4 + step])["logits"]
        assert np.abs(ref - logits).max() <= 2e-3, step


@pytest.mark.parametrize("kernels", ["js", "wasm"])
@pytest.mark.parametrize("which", ["llama", "gpt2"])
def test_split_over_workers_changes_no_bit(which, kernels, llama, gpt2, tmp_path):
    """The exported model split into 2 and 3 shares (the page's workers; rows that do not divide
    evenly): every logit, lens row, residual and head weight, with knock-outs and a decode step, has
    the bits of one share's."""
    model, folder, _ = llama if which == "llama" else gpt2
    n_head = model.config.num_attention_heads
    reqs = [{"ids": p, "decode": [3, 1], "opts": {"residuals": True, "heads": True, "lens": True,
             "knockout": None if k is None else {"heads": [[l, h % n_head] for l, h in k["heads"]], "mlp": k.get("mlp", [])}}}
            for p, k in zip(prompts(model.config.vocab_size, seed=10, n=3), KNOCKOUTS)]

    def flat(results):
        return np.concatenate([a for r in results for key in ("logits", "decode", "residuals", "heads", "lens")
                               for a in ([r[key]] if key == "logits" else r[key])]).astype(np.float32)

    one = flat(run_node(folder, which, reqs, tmp_path, kernels=kernels)[1])
    for workers in (2, 3):
        got = flat(run_node(folder, which, reqs, tmp_path, kernels=kernels, workers=workers)[1])
        assert got.tobytes() == one.tobytes(), (which, kernels, workers)


def test_unpermute_inverts_llama_cpp_permutation():
    w = np.arange(96 * 3, dtype=np.float32).reshape(96, 3)
    for heads in (6, 2):
        assert np.array_equal(real_js.permute_rows(w, heads)[real_js.unpermute_order(96, heads)], w)
        assert not np.array_equal(real_js.permute_rows(w, heads), w)


def test_chunks_hold_the_bytes_the_manifest_hashes(llama):
    _, _, files = llama
    manifest = real_js.read_manifest(files["manifest.js"], "llama")
    assert manifest["config"]["n_kv_heads"] == 2 and manifest["config"]["n_head"] == 6
    assert {t["type"] for t in manifest["tensors"]} == {"Q4_1", "Q8_0", "F32"}
    blob = b""
    for c in manifest["chunks"]:
        text = files[c["file"]]
        assert c["file"].endswith(".html") and real_js.chunk_text(text) is not None
        data = base64.b64decode(real_js.chunk_text(text), validate=True)
        assert len(data) == c["bytes"] and hashlib.sha256(data).hexdigest() == c["sha256"]
        blob += data
    assert len(blob) == manifest["total_bytes"]
    assert all(t["offset"] % 4 == 0 for t in manifest["tensors"])


def test_every_chunk_is_under_20_mb(monkeypatch):
    monkeypatch.setattr(real_js, "CHUNK_BYTES", 1000)
    t = [{"name": "wte.weight", "type": "F32", "shape": [10, 260], "data": np.ones((10, 260), np.float32).tobytes()}]
    files = real_js.pack({"arch": "llama"}, t, "m", {})
    assert sorted(files) == ["manifest.js", *(f"w{k:02d}.html" for k in range(11))]
    # at the real chunk size, base64 and its page stay under 20 MB
    assert 4 * ((14 * 1024 * 1024 + 2) // 3) + len(real_js.chunk_page("smollm2", 99, "")) < 20_000_000


def test_bad_source_is_one_line():
    t = [{"name": "wte.weight", "type": "Q4_1", "shape": [2, 64], "data": b"\0" * 79}]
    with pytest.raises(real_js.StageError, match=r"^tensor wte.weight: 79 bytes, Q4_1 \[2, 64\] needs 80$"):
        real_js.pack({}, t, "m", {})


def test_gpt2_export_from_a_saved_folder(gpt2, tmp_path):
    """`make gpt2`'s export path: config.json and model.safetensors in a folder, as GPT2_DIR holds them."""
    model, _, _ = gpt2
    folder = tmp_path / "saved"
    model.save_pretrained(folder)
    files = real_js.gpt2_files(folder, "local folder")
    real_js.write_folder(tmp_path / "out" / "gpt2", files)
    ids = prompts(model.config.vocab_size, seed=10, n=1)[0]
    _, js = run_node(tmp_path / "out", "gpt2", [{"ids": ids}], tmp_path)
    got = compare(reference(model, ids), js[0])
    assert got["top_same"] and got["logit"] <= 2e-3 and got["kl"] <= 1e-5, got


def test_no_page_loads_the_model_on_first_load():
    """The model's scripts and data load only when a reader asks (a later panel): no page, template
    or config names one of their files, so no page's first load grows. (Prose may name the folder, as
    How every number is made does.)"""
    import re

    from scripts.core.io import ROOT

    a_file = re.compile(r"(?:js/real|data/real)/[\w./{}-]*\.(?:js|html)\b")
    sources = [*ROOT.joinpath("docs").rglob("*.md"), *ROOT.joinpath("overrides").rglob("*.html"), ROOT / "mkdocs.yml"]
    assert sources
    for path in sources:
        assert not a_file.findall(path.read_text(encoding="utf-8")), path
    assert a_file.findall("<script src='js/real/engine.js'>") and a_file.findall("data/real/smollm2/w00.html")


def test_the_demo_manifest_declares_the_engine_and_skips_its_data(tmp_path):
    """The engine's scripts declare themselves (a page loads them with later: needs); the weights'
    chunks declare nothing (the engine's own loader reads them), and the manifest scan skips them
    instead of failing the build."""
    from scripts.site import demos

    for rel_path in ("js/real/engine.js", "js/data/real/smollm2/manifest.js", "js/runtime/x.js"):
        (tmp_path / rel_path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "js/real/engine.js").write_text('function nexttokenRealEngine() {}\n'
                                               'if (nexttoken.define) nexttoken.define("real.engine", [], function () { return 1; });\n')
    (tmp_path / "js/data/real/smollm2/manifest.js").write_text("window.nexttoken = window.nexttoken || {};\n")
    (tmp_path / "js/runtime/x.js").write_text('nexttoken.define("runtime.x", [], function () { return 1; });\n')
    assert sorted(demos.scan(tmp_path)) == ["real.engine", "runtime.x"]
    for name in ("engine", "loader", "workers", "tokenizer"):  # the site's own: each declared once, by its path
        assert demos.parse(f"js/real/{name}.js", (real_js.ROOT / "docs" / "js" / "real" / f"{name}.js").read_text()).name == f"real.{name}"
