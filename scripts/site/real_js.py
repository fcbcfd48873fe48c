"""Generate the browser copy of a real model: docs/js/data/real/<model>/ (git-ignored, built by make site).

The page computes the very model the build measures, so the GGUF's own blocks travel unchanged
(Q4_1 and Q8_0 matrices, F32 norms); only the rows of the Q and K projections are put back in the
order transformers uses (llama.cpp's converter stores them permuted for its rotary layout, and
transformers' GGUF loader reverses that). GPT-2 small, where its weights exist, is written the same
way from its state dict, with every matrix as Q8_0 blocks (8 bits).

The tensors are packed into one byte string (each tensor 4-byte aligned) and split into chunks of at
most CHUNK_BYTES, each an HTML page holding its bytes as base64 text, so that none passes 20 MB.
The loader (docs/js/real/loader.js) opens each chunk in a hidden iframe, whose one short script
decodes that text and posts the bytes to the page: this works from file:// as well as served, and no
browser compiles the data. (Chunks were classic scripts before; Chromium's compilation cache then kept
every chunk's 19.6 MB source for the page's life: 124 MB of the engine's memory after loading.)
`manifest.js` lists the model's shape, every tensor (name, type, shape, offset) and every chunk (file,
bytes, sha256 of the decoded bytes), which the loader checks after loading.

Only `gguf` and numpy are needed (no torch): this runs at site-build time.
"""
from __future__ import annotations

import base64
import hashlib
import importlib.metadata as md
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

from scripts.core.io import ROOT, StageError, read_json, rel, run_main

OUT = ROOT / "docs" / "js" / "data" / "real"
# Where the copy was written before the real-model family took one name (docs/js/data/llm/): a checkout
# built before the rename still holds it, and its scripts would define the old names beside the new.
OLD_OUT = ROOT / "docs" / "js" / "data" / "llm"
CONFIG = ROOT / "scripts" / "config" / "real_models.json"
# 14 MiB of bytes is 19.6 MB of base64: every file stays under 20 MB (GitHub Pages refuses 100 MB).
CHUNK_BYTES = 14 * 1024 * 1024
FORMAT = 2  # 2: chunks are .html pages (1: .js scripts)
BLOCK = 32  # weights per Q4_1 / Q8_0 block
BLOCK_BYTES = {"Q4_1": 20, "Q8_0": 34}
LLAMA_NAMES = {  # GGUF tensor names -> the engine's nanoGPT-style names
    "token_embd.weight": "wte.weight", "output_norm.weight": "ln_f.weight", "output.weight": "lm_head.weight",
    "attn_norm.weight": "ln_1.weight", "attn_q.weight": "attn.q.weight", "attn_k.weight": "attn.k.weight",
    "attn_v.weight": "attn.v.weight", "attn_output.weight": "attn.c_proj.weight", "ffn_norm.weight": "ln_2.weight",
    "ffn_gate.weight": "mlp.gate.weight", "ffn_up.weight": "mlp.up.weight", "ffn_down.weight": "mlp.c_proj.weight",
}


def unpermute_order(rows: int, n_head: int) -> np.ndarray:
    """Row order that undoes llama.cpp's rotary permutation, as transformers' GGUF loader does:
    new row i is stored row order[i]."""
    dim = rows // n_head // 2
    idx = np.arange(rows).reshape(n_head, dim, 2).swapaxes(2, 1).reshape(rows)
    return idx


def permute_rows(w: np.ndarray, n_head: int) -> np.ndarray:
    """llama.cpp's converter permutation (for writing test GGUFs the way real ones are written)."""
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def field(reader, key: str, default=None):
    f = reader.fields.get(key)
    return default if f is None else f.contents()


def read_gguf(path: Path) -> tuple[dict, list[dict]]:
    """(config, tensors) of a llama GGUF; each tensor {name, type, shape, data: bytes}."""
    import gguf

    try:
        reader = gguf.GGUFReader(path)
    except (OSError, ValueError) as exc:
        raise StageError(f"{rel(path)}: cannot read the GGUF ({exc})") from None
    arch = field(reader, "general.architecture")
    if arch != "llama":
        raise StageError(f"{rel(path)}: architecture {arch!r}, the browser engine reads llama GGUFs only")
    a = "llama."
    n_embd = int(field(reader, a + "embedding_length"))
    n_head = int(field(reader, a + "attention.head_count"))
    cfg = {
        "arch": "llama",
        "n_layer": int(field(reader, a + "block_count")),
        "n_embd": n_embd,
        "n_head": n_head,
        "n_kv_heads": int(field(reader, a + "attention.head_count_kv", n_head)),
        "d_mlp": int(field(reader, a + "feed_forward_length")),
        "n_ctx": int(field(reader, a + "context_length")),
        "rms_eps": float(field(reader, a + "attention.layer_norm_rms_epsilon", 1e-5)),
        "rope_base": float(field(reader, a + "rope.freq_base", 10000.0)),
        "bos": field(reader, "tokenizer.ggml.bos_token_id"),
        "eos": field(reader, "tokenizer.ggml.eos_token_id"),
    }
    tensors = []
    for t in reader.tensors:
        kind = t.tensor_type.name
        if kind not in ("Q4_1", "Q8_0", "F32"):
            raise StageError(f"{rel(path)}: tensor {t.name} is {kind}; the engine reads Q4_1, Q8_0 and F32")
        parts = t.name.split(".")
        if parts[0] == "blk":
            name = f"h.{parts[1]}." + LLAMA_NAMES[".".join(parts[2:])]
        else:
            name = LLAMA_NAMES[t.name]
        data = np.asarray(t.data)
        shape = [int(d) for d in reversed([int(s) for s in t.shape])]  # GGUF lists the fastest axis first
        if name.endswith(("attn.q.weight", "attn.k.weight")):
            heads = cfg["n_head"] if ".q." in name else cfg["n_kv_heads"]
            data = data[unpermute_order(shape[0], heads)]
        tensors.append({"name": name, "type": kind, "shape": shape, "data": np.ascontiguousarray(data).tobytes()})
    cfg["vocab_size"] = next(t["shape"][0] for t in tensors if t["name"] == "wte.weight")
    cfg["tied"] = not any(t["name"] == "lm_head.weight" for t in tensors)
    return cfg, tensors


def q8_0(w: np.ndarray) -> bytes:
    """A float matrix as GGUF Q8_0 blocks (gguf's own quantiser, bit-exact with llama.cpp)."""
    import gguf

    return gguf.quants.quantize(np.ascontiguousarray(w, dtype=np.float32), gguf.GGMLQuantizationType.Q8_0).tobytes()


def gpt2_tensors(sd: dict, cfg: dict) -> list[dict]:
    """GPT-2's state dict (numpy, transformers' names) as the engine's tensors: matrices as Q8_0 rows of
    (out, in) (transformers' Conv1D stores them (in, out)), biases and LayerNorms as F32."""
    def f32(name, a):
        return {"name": name, "type": "F32", "shape": list(a.shape), "data": np.ascontiguousarray(a, np.float32).tobytes()}

    def mat(name, a):
        if a.shape[1] % BLOCK:
            raise StageError(f"GPT-2 tensor {name}: {a.shape[1]} columns, not a multiple of {BLOCK}")
        return {"name": name, "type": "Q8_0", "shape": list(a.shape), "data": q8_0(a)}

    p = "transformer." if "transformer.wte.weight" in sd else ""
    out = [mat("wte.weight", sd[p + "wte.weight"]), mat("wpe.weight", sd[p + "wpe.weight"])]
    for i in range(cfg["n_layer"]):
        h = f"{p}h.{i}."
        for ln in ("ln_1", "ln_2"):
            out += [f32(f"h.{i}.{ln}.weight", sd[h + ln + ".weight"]), f32(f"h.{i}.{ln}.bias", sd[h + ln + ".bias"])]
        for lin in ("attn.c_attn", "attn.c_proj", "mlp.c_fc", "mlp.c_proj"):
            out += [mat(f"h.{i}.{lin}.weight", sd[h + lin + ".weight"].T), f32(f"h.{i}.{lin}.bias", sd[h + lin + ".bias"])]
    out += [f32("ln_f.weight", sd[p + "ln_f.weight"]), f32("ln_f.bias", sd[p + "ln_f.bias"])]
    return out


def gpt2_config(hf: dict) -> dict:
    return {"arch": "gpt2", "n_layer": hf["n_layer"], "n_embd": hf["n_embd"], "n_head": hf["n_head"],
            "n_kv_heads": hf["n_head"], "d_mlp": hf.get("n_inner") or 4 * hf["n_embd"], "n_ctx": hf["n_positions"],
            "ln_eps": hf.get("layer_norm_epsilon", 1e-5), "vocab_size": hf["vocab_size"], "tied": True,
            "bos": hf.get("bos_token_id"), "eos": hf.get("eos_token_id")}


def check_shapes(cfg: dict, tensors: list[dict]) -> None:
    """Each tensor's bytes agree with its type and shape (a damaged source fails here, not in the page)."""
    for t in tensors:
        n = int(np.prod(t["shape"]))
        if t["type"] == "F32":
            want = 4 * n
        else:
            if t["shape"][-1] % BLOCK:
                raise StageError(f"tensor {t['name']}: {t['shape'][-1]} columns, not a multiple of {BLOCK}")
            want = n // BLOCK * BLOCK_BYTES[t["type"]]
        if len(t["data"]) != want:
            raise StageError(f"tensor {t['name']}: {len(t['data'])} bytes, {t['type']} {t['shape']} needs {want}")


def pack(cfg: dict, tensors: list[dict], model: str, source: dict) -> dict[str, str]:
    """{file name: text} of the browser copy: manifest.js and the chunks w00.html, w01.html, ..."""
    check_shapes(cfg, tensors)
    blob, table = bytearray(), []
    for t in tensors:
        blob += b"\0" * (-len(blob) % 4)  # F32 tensors are read through Float32Array views
        table.append({"name": t["name"], "type": t["type"], "shape": t["shape"], "offset": len(blob)})
        blob += t["data"]
    files, chunks = {}, []
    for k, start in enumerate(range(0, len(blob), CHUNK_BYTES)):
        part = bytes(blob[start:start + CHUNK_BYTES])
        name = f"w{k:02d}.html"
        chunks.append({"file": name, "bytes": len(part), "sha256": hashlib.sha256(part).hexdigest()})
        files[name] = chunk_page(model, k, base64.b64encode(part).decode("ascii"))
    manifest = {"format": FORMAT, "model": model, "config": cfg, "source": source,
                "total_bytes": len(blob), "tensors": table, "chunks": chunks}
    files["manifest.js"] = (f"// Generated by scripts/site/real_js.py: {model}'s shape, tensors and chunk hashes. Do not edit.\n"
                            + _assign(f"{model}/manifest.js", json.dumps(manifest, separators=(",", ":"))))
    return files


def _assign(key: str, value_js: str) -> str:
    return ("window.nexttoken = window.nexttoken || {};\nwindow.nexttoken.data = window.nexttoken.data || {};\n"
            "window.nexttoken.data.realFiles = window.nexttoken.data.realFiles || {};\n"
            f"window.nexttoken.data.realFiles[{json.dumps(key)}] = {value_js};\n")


# A chunk's page. Its script comes first, so that a truncated file still posts what it holds (the loader
# then names the file and the bytes missing) and runs at DOMContentLoaded, once the text is parsed.
# The bytes are posted as a transferred ArrayBuffer: the page never holds the 19.6 MB of text.
CHUNK_SCRIPT = """document.addEventListener("DOMContentLoaded", function () {
  var el = document.getElementById("b64"), text = el ? el.textContent : "", bytes, bin, i;
  if (el) el.remove();
  try {
    if (Uint8Array.fromBase64) bytes = Uint8Array.fromBase64(text);
    else { bin = atob(text); bytes = new Uint8Array(bin.length); for (i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i); }
  } catch (e) { parent.postMessage({nexttoken: "chunk", error: "not base64"}, "*"); return; }
  parent.postMessage({nexttoken: "chunk", bytes: bytes.buffer}, "*", [bytes.buffer]);
});"""
CHUNK_OPEN = '<script type="text/plain" id="b64">'


def chunk_page(model: str, k: int, b64: str) -> str:
    """One chunk as the page the loader opens in a hidden iframe (base64 never contains "</script")."""
    return (f"<!doctype html>\n<!-- Generated by scripts/site/real_js.py: {model} weights, chunk {k}. Do not edit. -->\n"
            f'<html lang="en"><meta charset="utf-8"><title>{model} weights, chunk {k}</title>\n'
            f"<script>\n{CHUNK_SCRIPT}\n</script>\n{CHUNK_OPEN}{b64}</script>\n")


def chunk_text(page: str) -> str | None:
    """The base64 a chunk's page holds (for the tests), or None if it holds none."""
    at = page.find(CHUNK_OPEN)
    end = page.find("</script>", at + len(CHUNK_OPEN))
    return None if at < 0 or end < 0 else page[at + len(CHUNK_OPEN):end]


def read_manifest(text: str, model: str) -> dict:
    """The manifest object of a manifest.js (for the benchmark and the tests)."""
    return json.loads(text.split(f'[{json.dumps(model + "/manifest.js")}] = ', 1)[1].rstrip(";\n"))


def write_folder(folder: Path, files: dict[str, str]) -> None:
    """Write the whole folder beside its place and swap it in: never half a model."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        for name, text in files.items():
            (tmp / name).write_text(text, encoding="ascii", newline="\n")
            os.chmod(tmp / name, 0o644)
        os.chmod(tmp, 0o755)
        old = folder.with_name(f".{folder.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        if folder.exists():
            folder.rename(old)
        tmp.rename(folder)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def smollm2_gguf() -> tuple[Path, dict]:
    from scripts.real.loading import package_folder

    spec = read_json(CONFIG)["models"]["smollm2"]
    path = package_folder(spec["module"]) / spec["gguf_file"]
    if not path.is_file():
        raise StageError(f"{rel(path)}: GGUF file not found in {spec['package']}")
    return path, {"file": spec["gguf_file"], "package": f"{spec['package']} {md.version(spec['package'])}",
                  "bytes": path.stat().st_size}


def gguf_files(path: Path, model: str, source: dict) -> dict[str, str]:
    cfg, tensors = read_gguf(path)
    return pack(cfg, tensors, model, source)


def gpt2_files(folder: Path, revision: str) -> dict[str, str]:
    from safetensors.numpy import load_file

    from scripts.real.loading import weights_file

    weights = weights_file(folder)
    if weights.suffix != ".safetensors":
        raise StageError(f"{rel(weights)}: the browser export reads model.safetensors only")
    hf = read_json(folder / "config.json")
    cfg = gpt2_config(hf)
    return pack(cfg, gpt2_tensors(load_file(str(weights)), cfg), "gpt2", {"file": weights.name, "revision": revision})


def report(folder: Path, files: dict[str, str], source_bytes: int | None) -> str:
    size = sum(len(t) for t in files.values())
    ratio = f", {size / source_bytes:.3f} x the source file" if source_bytes else ""
    return f"real js data: wrote {rel(folder)}/ ({len(files)} files, {size / 1e6:.1f} MB{ratio})"


def remove_old_copy(old: Path = OLD_OUT) -> bool:
    """Delete the browser copy's old, generated folder if a checkout still has it; say so in one line."""
    if not old.is_dir():
        return False
    shutil.rmtree(old)
    print(f"real js data: removed {rel(old)}/, the copy's place before it was renamed {rel(OUT)}/")
    return True


def main(argv: list[str] | None = None) -> None:
    which = (argv if argv is not None else sys.argv[1:]) or ["smollm2"]
    remove_old_copy()
    if which == ["smollm2"]:
        path, source = smollm2_gguf()
        files = gguf_files(path, "smollm2", source)
        write_folder(OUT / "smollm2", files)
        print(report(OUT / "smollm2", files, source["bytes"]))
    elif which == ["gpt2"]:
        from scripts.real.loading import gpt2_folder

        spec = read_json(CONFIG)["models"]["gpt2"]
        found = gpt2_folder(spec["model_id"], spec["folder_env"])
        if found is None:
            print(f"real js data: GPT-2's weights are not here (set {spec['folder_env']} or fill the Hugging Face cache); no browser copy of GPT-2")
            return
        files = gpt2_files(*found)
        write_folder(OUT / "gpt2", files)
        print(report(OUT / "gpt2", files, None))
    else:
        raise StageError(f"usage: python -m scripts.site.real_js [smollm2|gpt2], not {' '.join(which)}")


if __name__ == "__main__":
    run_main(main)
