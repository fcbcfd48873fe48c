"""The engine's WebAssembly kernels (scripts/site/real_wasm.py): assembled from their source by the
pinned wat2wasm, written as a classic script, and a broken source or a missing tool is one line."""
from __future__ import annotations

import base64
import re

import pytest

from scripts.core.io import StageError
from scripts.site import real_wasm


def test_kernels_assemble_into_a_classic_script():
    wasm = real_wasm.assemble()
    assert wasm[:4] == b"\0asm"
    text = real_wasm.kernels_js(wasm)
    assert text.count('nexttoken.define("real.kernels-wasm", [], function () {') == 1
    found = re.search(r'simd: "([A-Za-z0-9+/=]+)"', text)
    assert found and base64.b64decode(found.group(1)) == wasm and "fma: null" in text
    for name in (b"q4", b"q8", b"q4t", b"q8t", b"memory"):
        assert name in wasm, name


def test_a_broken_source_is_one_line(tmp_path):
    bad = tmp_path / "bad.wat"
    bad.write_text("(module (func (export \"f\") (result i32) (i32.add (i32.const 1))))\n")
    with pytest.raises(StageError) as err:
        real_wasm.assemble(bad)
    assert "\n" not in str(err.value) and "bad.wat" in str(err.value)


def test_a_missing_tool_names_the_command(tmp_path):
    with pytest.raises(StageError, match=r"not found \(run `npm ci`\)$"):
        real_wasm.assemble(tool=tmp_path / "wat2wasm")


def test_the_fused_module_fuses_each_accumulation_and_nothing_else():
    src = "(func (local.set $s (f32x4.add (local.get $s) (f32x4.mul (local.get $w) (v128.load offset=16 (local.get $x)))))\n" \
          "  ;; a comment\n  (local.set $u (f32x4.add (local.get $a) (local.get $b))))"
    assert real_wasm.fused(src) == ("(func (local.set $s (f32x4.relaxed_madd (local.get $w) (v128.load offset=16 (local.get $x)) (local.get $s)))"
                                   " (local.set $u (f32x4.add (local.get $a) (local.get $b))))")
    fma = real_wasm.assemble(fma=True)
    assert fma[:4] == b"\0asm" and fma != real_wasm.assemble()
    text = real_wasm.kernels_js(real_wasm.assemble(), fma)
    found = re.search(r'fma: "([A-Za-z0-9+/=]+)"', text)
    assert found and base64.b64decode(found.group(1)) == fma
