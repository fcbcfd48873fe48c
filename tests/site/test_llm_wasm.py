"""The engine's WebAssembly kernels (scripts/site/llm_wasm.py): assembled from their source by the
pinned wat2wasm, written as a classic script, and a broken source or a missing tool is one line."""
from __future__ import annotations

import base64
import re

import pytest

from scripts.core.io import StageError
from scripts.site import llm_wasm


def test_kernels_assemble_into_a_classic_script():
    wasm = llm_wasm.assemble()
    assert wasm[:4] == b"\0asm"
    text = llm_wasm.kernels_js(wasm)
    found = re.search(r'nexttoken\.define\("llm\.kernels-wasm", \[\], function \(\) \{ return "([A-Za-z0-9+/=]+)"; \}\);', text)
    assert found and base64.b64decode(found.group(1)) == wasm
    for name in (b"q4", b"q8", b"q4x4", b"q8x4", b"memory"):
        assert name in wasm, name


def test_a_broken_source_is_one_line(tmp_path):
    bad = tmp_path / "bad.wat"
    bad.write_text("(module (func (export \"f\") (result i32) (i32.add (i32.const 1))))\n")
    with pytest.raises(StageError) as err:
        llm_wasm.assemble(bad)
    assert "\n" not in str(err.value) and "bad.wat" in str(err.value)


def test_a_missing_tool_names_the_command(tmp_path):
    with pytest.raises(StageError, match=r"not found \(run `npm ci`\)$"):
        llm_wasm.assemble(tool=tmp_path / "wat2wasm")
