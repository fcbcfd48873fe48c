"""`make gpt2`'s first step: put GPT-2 small's weights in the Hugging Face cache when they are in
neither $GPT2_DIR nor the cache and the hub is reachable (GitHub's runners reach it, the build
machines do not: then one line says so, and the later steps say GPT-2 is absent).

Only this step downloads; the measurement stage and the browser export read local files only.
"""
from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "0"  # before huggingface_hub reads it; scripts.real.loading sets it to 1
os.environ.setdefault("HF_HUB_ETAG_TIMEOUT", "10")
os.environ.setdefault("HF_HUB_DOWNLOAD_TIMEOUT", "30")

from scripts.core.io import CONFIG, read_json, run_main  # noqa: E402

FILES = ["config.json", "model.safetensors", "vocab.json", "merges.txt", "tokenizer.json", "tokenizer_config.json",
         "generation_config.json"]


def main() -> None:
    spec = read_json(CONFIG / "real_models.json")["models"]["gpt2"]
    if os.environ.get(spec["folder_env"]):
        print(f"gpt2: using {spec['folder_env']}={os.environ[spec['folder_env']]}")
        return
    from huggingface_hub import snapshot_download

    try:
        path = snapshot_download(spec["model_id"], allow_patterns=FILES)
    except Exception as exc:  # no network, DNS, proxy, hub errors: all mean "not here"
        print(f"gpt2: the Hugging Face hub cannot be reached from here ({type(exc).__name__}); "
              f"set {spec['folder_env']} to a folder holding config.json and model.safetensors")
        return
    print(f"gpt2: weights in the Hugging Face cache at {path}")


if __name__ == "__main__":
    run_main(main)
