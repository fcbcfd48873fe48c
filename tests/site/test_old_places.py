"""A checkout built before the real-model family took one name still holds the generated copies in their
old places (docs/js/data/llm/, docs/js/llm/kernels-wasm.js). Their scripts define the old names, so the
build would refuse them: the generators delete them, saying so in one line, and touch nothing else."""
from __future__ import annotations

from scripts.site import real_js, real_wasm


def test_the_copys_old_folder_is_removed_with_one_line(tmp_path, capsys):
    old = tmp_path / "data" / "llm"
    (old / "smollm2").mkdir(parents=True)
    (old / "smollm2" / "manifest.js").write_text('nexttoken.define("data.llm.smollm2.manifest", [], 0);')
    keep = tmp_path / "data" / "real"
    keep.mkdir()
    assert real_js.remove_old_copy(old) is True
    assert not old.exists() and keep.is_dir()
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "removed" in out[0]
    assert real_js.remove_old_copy(old) is False  # nothing there: nothing said


def test_the_old_kernels_module_and_its_emptied_folder_are_removed(tmp_path, capsys):
    old = tmp_path / "llm" / "kernels-wasm.js"
    old.parent.mkdir()
    old.write_text('nexttoken.define("llm.kernels-wasm", [], 0);')
    assert real_wasm.remove_old_module(old) is True
    assert not old.parent.exists()
    assert len(capsys.readouterr().out.strip().splitlines()) == 1


def test_a_folder_holding_anything_else_is_kept(tmp_path):
    old = tmp_path / "llm" / "kernels-wasm.js"
    old.parent.mkdir()
    old.write_text("")
    (old.parent / "notes.txt").write_text("mine")
    assert real_wasm.remove_old_module(old) is True
    assert (old.parent / "notes.txt").is_file()
