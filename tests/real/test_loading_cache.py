"""The float32 copy of SmolLM2 that scripts/real/loading.py keeps in build/cache/real/: read back, it is the
model transformers makes from the GGUF, tensor for tensor and logit for logit (so every stage and test that
loads it measures the GGUF's model), and a cache that cannot be read is made again from the GGUF."""
from __future__ import annotations

import pytest

from scripts.core.io import read_json
from scripts.real import loading

pytestmark = pytest.mark.slow


def test_the_cached_copy_is_the_gguf_model_bit_for_bit(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("gguf")
    import scripts.core.io as io

    monkeypatch.setattr(io, "BUILD", tmp_path)
    spec = read_json(io.ROOT / "scripts" / "config" / "real_models.json")["models"]["smollm2"]
    path = loading.package_folder(spec["module"]) / spec["gguf_file"]
    made, tok_made = loading.load_gguf(path)  # from the GGUF, and written to the cache
    [cache] = (tmp_path / "cache" / "real").iterdir()
    assert (cache / "model.safetensors").is_file() and not list(cache.parent.glob("*.tmp"))
    read, tok_read = loading.load_gguf(path)  # from the cache
    a, b = made.state_dict(), read.state_dict()
    assert a.keys() == b.keys()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert read.lm_head.weight.data_ptr() == read.model.embed_tokens.weight.data_ptr()  # tied, as in the GGUF
    chat = [{"role": "user", "content": "Name a capital."}]
    assert tok_made.apply_chat_template(chat, tokenize=False) == tok_read.apply_chat_template(chat, tokenize=False)
    for text in ("The cat sat on the", "K P W R J M Q K P W R J"):
        ids = tok_made(text, return_tensors="pt").input_ids
        assert torch.equal(ids, tok_read(text, return_tensors="pt").input_ids)
        with torch.no_grad():
            assert torch.equal(made(ids).logits, read(ids).logits), text

    # a truncated cache is not read: the next load makes the model from the GGUF again and rewrites the cache.
    # The GGUF's model is the one just compared with the cache (the same file, dequantised the same way), so
    # the load from the GGUF is recorded and answered with it rather than run a second time (17 s); the
    # rewritten cache is then read back and compared with it.
    (cache / "model.safetensors").write_bytes(b"\0" * 64)
    calls, real_load_folder = [], loading.load_folder

    def load_folder(folder, gguf_file=None):
        calls.append((folder, gguf_file))
        return (made, tok_made) if gguf_file else real_load_folder(folder, gguf_file)

    monkeypatch.setattr(loading, "load_folder", load_folder)
    again, _ = loading.load_gguf(path)
    assert calls == [(cache, None), (path.parent, path.name)]  # the cache refused, then the GGUF read
    assert again is made
    assert (cache / "model.safetensors").stat().st_size > 100_000_000
    monkeypatch.setattr(loading, "load_folder", real_load_folder)
    reread, _ = loading.load_gguf(path)  # from the rewritten cache
    assert all(torch.equal(a[k], t) for k, t in reread.state_dict().items())
