"""One character rule for the corpus, in the build (scripts/tiny/settings.py) and in the training page
(docs/js/runtime/corpus.js), and every corpus word ending as one token."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from scripts.core.io import ROOT
from scripts.tiny import settings

NODE = shutil.which("node")
CORPUS = settings.CORPUS.read_text(encoding="utf-8")


def _load_with(monkeypatch, tmp_path: Path, extra: str) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS + extra, encoding="utf-8")
    monkeypatch.setattr(settings, "CORPUS", corpus)
    settings.load()


def test_a_corpus_line_with_an_emoji_is_refused_in_one_line(monkeypatch, tmp_path):
    with pytest.raises(settings.StageError) as err:
        _load_with(monkeypatch, tmp_path, "my cat 🐱 ate.\n")
    msg = str(err.value)
    assert "\n" not in msg
    assert "corpus.txt: line 13 has '🐱' (U+1F431)" in msg and "printable ASCII" in msg


def test_a_word_that_no_longer_ends_as_one_token_is_refused(monkeypatch, tmp_path):
    """A new character costs a merge: 'cow', the corpus's rarest word, then ends as two tokens."""
    with pytest.raises(settings.StageError) as err:
        _load_with(monkeypatch, tmp_path, "A cat sat.\n")
    msg = str(err.value)
    print(msg)
    assert "\n" not in msg
    assert "line 12: '·cow' no longer ends as one token (·co w)" in msg
    assert "the corpus has 21 characters, so 58 tokens leave 36 merges" in msg


def test_the_settings_check_runs_alone_with_one_line(tmp_path):
    bad = tmp_path / "corpus.txt"
    bad.write_text(CORPUS + "the cat ate a crêpe.\n", encoding="utf-8")
    code = ("import sys; from pathlib import Path; from scripts.tiny import settings; "
            f"settings.CORPUS = Path({str(bad)!r}); from scripts.core.io import run_main; run_main(settings.main)")
    proc = subprocess.run(["python3", "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "has 'ê' (U+00EA)" in proc.stderr


LINES = ["the cat sat.", "my cat 🐱 ate.", "der Kater saß.", "the café.", "the cat sat on the <b>mat</b>.",
         "a > b.", "Cat, dog; bird!", "the cat ~ the dog?", "x = 1 + 2.", "tab\there.", "the \u00a0cat."]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_build_and_the_training_page_take_the_same_characters(tmp_path):
    script = ("globalThis.window = globalThis; require(process.argv[1]); require(process.argv[2]);"
              "const limits = {maxSentences: 60, builtSentences: 12, maxChars: 200, nCtx: 8};"
              "const corpus = nexttoken.runtime.corpus;"
              "console.log(JSON.stringify(JSON.parse(process.argv[3]).map(l => corpus.checkCorpus(l, limits).ok)));")
    proc = subprocess.run([NODE, "-e", script, str(ROOT / "docs/js/nexttoken.js"), str(ROOT / "docs/js/runtime/corpus.js"),
                           json.dumps(LINES)], capture_output=True, text=True, check=True)
    page = json.loads(proc.stdout)
    build = []
    for line in LINES:
        try:
            settings.check_chars([line])
            build.append(True)
        except settings.StageError:
            build.append(False)
    assert build == page, [(line, b, p) for line, b, p in zip(LINES, build, page) if b != p]
    assert not all(build) and any(build)
