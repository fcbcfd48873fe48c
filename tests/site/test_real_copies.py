"""The numbers hook's real_copies: the real models' browser copies a build holds and the bytes a
reader's browser loads for each and the weights they hold (what the "Ask the real model" panel says), none after
`make site MODEL=none`, and one line for a damaged manifest."""
from __future__ import annotations

import json

import pytest
from mkdocs.exceptions import PluginError

from scripts.site.hooks.numbers import real_copies


def write_copy(folder, model: str, chunks: dict[str, bytes]) -> int:
    d = folder / model
    d.mkdir(parents=True)
    manifest = {"format": 1, "model": model, "config": {"arch": "llama"}, "total_bytes": 777,
                "chunks": [{"file": name, "bytes": len(body)} for name, body in chunks.items()]}
    text = f'window.nexttoken.data.realFiles["{model}/manifest.js"] = {json.dumps(manifest)};\n'
    (d / "manifest.js").write_text(text)
    for name, body in chunks.items():
        (d / name).write_bytes(body)
    (d / "stray.js").write_bytes(b"x" * 999)  # not in the manifest: not loaded, not counted
    return len(text.encode()) + sum(len(b) for b in chunks.values())


def test_sizes_are_the_files_the_manifest_lists(tmp_path):
    want = write_copy(tmp_path, "smollm2", {"w00.html": b"a" * 1000, "w01.html": b"b" * 17})
    assert real_copies(tmp_path) == {"smollm2": {"bytes": want, "weights": 777, "files": 3, "arch": "llama"}}


def test_no_copy_no_model(tmp_path):
    assert real_copies(tmp_path) == {}
    assert real_copies(tmp_path / "absent") == {}


def test_a_damaged_manifest_is_one_line(tmp_path):
    write_copy(tmp_path, "smollm2", {"w00.html": b"a"})
    (tmp_path / "smollm2" / "w00.html").unlink()
    with pytest.raises(PluginError) as err:
        real_copies(tmp_path)
    assert "manifest.js is damaged" in str(err.value) and "\n" not in str(err.value)
