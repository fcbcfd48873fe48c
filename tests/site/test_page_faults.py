"""Every error a page can raise in the MkDocs hooks is one line naming the page, the line when it is known,
and the cause; never a Python traceback; and the previous site stays.

Each test plants one fault in a copy of a page of a scratch copy of the site's sources (generated files
included, SmolLM2's browser copy left out as after `make site MODEL=none`) and runs MkDocs as `make site`
does, into build/site.new beside the previous build/site.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.core.io import ROOT

pytestmark = pytest.mark.slow  # each builds the site (seconds)

PREVIOUS = "the previous build"


def _ignore(folder: str, names: list[str]) -> set[str]:
    skip = {n for n in names if n in {"__pycache__", ".pytest_cache"}}
    return skip | ({"real"} if folder.endswith("docs/js/data") else set())


@pytest.fixture(scope="module")
def site_copy(tmp_path_factory) -> Path:
    if not (ROOT / "docs/assets/figures/alt.json").is_file():
        pytest.fail("the generated files are missing: run `make site` first")
    dst = tmp_path_factory.mktemp("site") / "repo"
    dst.mkdir()
    for part in ("docs", "overrides", "scripts", "site_data"):
        shutil.copytree(ROOT / part, dst / part, ignore=_ignore, symlinks=True)
    shutil.copy2(ROOT / "mkdocs.yml", dst / "mkdocs.yml")
    return dst


@pytest.fixture
def repo(site_copy):
    """The copy, with its pages restored after each test and a previous build in build/site."""
    saved = {p: p.read_text(encoding="utf-8") for p in (site_copy / "docs").glob("*.md")}
    site = site_copy / "build/site"
    shutil.rmtree(site_copy / "build", ignore_errors=True)
    site.mkdir(parents=True)
    (site / "index.html").write_text(PREVIOUS)
    yield site_copy
    for p, text in saved.items():
        p.write_text(text, encoding="utf-8")


def build(repo: Path) -> subprocess.CompletedProcess:
    env = os.environ | {"PYTHONPATH": str(repo), "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", "build/site.new"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    print(proc.stderr[-3000:])
    return proc


def one_line(proc: subprocess.CompletedProcess, repo: Path) -> str:
    """The build failed with exactly one error line and no traceback, and the previous site is untouched."""
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr and "File \"" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1, errors
    assert (repo / "build/site/index.html").read_text() == PREVIOUS
    return errors[0]


def plant(repo: Path, page: str, old: str, new: str) -> int:
    """Replace the first `old` in docs/<page> by `new`; the line `new` starts on."""
    path = repo / "docs" / page
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{page} no longer holds {old!r}"
    at = text.index(old)
    path.write_text(text[:at] + new + text[at + len(old):], encoding="utf-8")
    return text.count("\n", 0, at) + 1


BODY = "Here is what was skipped"  # a sentence of left-out.md's body, below its front matter


@pytest.mark.parametrize("expr, cause", [
    ("[[ nonexistent.key ]]", "'nonexistent' is undefined"),
    ("[[ summary.no_such_key ]]", "no_such_key"),
])
def test_a_missing_data_key_is_one_line_naming_page_line_and_key(repo, expr, cause):
    line = plant(repo, "left-out.md", BODY, f"{expr} {BODY}")
    error = one_line(build(repo), repo)
    assert f"left-out.md, line {line}:" in error and cause in error


def test_a_bad_filter_argument_is_one_line_naming_page_line_and_filter(repo):
    line = plant(repo, "left-out.md", BODY, f'[[ 0.5 | pct("two") ]] {BODY}')
    error = one_line(build(repo), repo)
    assert f"left-out.md, line {line}:" in error and "pct" in error


def test_a_missing_figure_is_one_line_naming_page_line_and_figure(repo):
    line = plant(repo, "left-out.md", BODY, f'[[ figure("no_such_figure") ]]\n\n{BODY}')
    error = one_line(build(repo), repo)
    assert f"left-out.md, line {line}:" in error and "figure 'no_such_figure'" in error


def test_a_demo_with_no_container_is_one_line_naming_page_and_demo(repo):
    plant(repo, "tokens.md", "demos: [tokenize, gpt2-tokenizer]", "demos: [tokenize, gpt2-tokenizer, attention]")
    error = one_line(build(repo), repo)
    assert "docs/tokens.md" in error and '"attention"' in error and "no container" in error


@pytest.mark.parametrize("expr, cause", [
    ("[[ 0.5 | status ]]", "status: 0.5 is not a number with a source"),
    ('[[ {"status": "rumoured", "source": "a blog"} | status ]]', "'rumoured'"),
])
def test_an_unknown_citation_is_one_line_naming_page_line_and_source(repo, expr, cause):
    line = plant(repo, "left-out.md", BODY, f"{expr} {BODY}")
    error = one_line(build(repo), repo)
    assert f"left-out.md, line {line}:" in error and cause in error


def test_a_citation_marker_with_no_source_line_is_one_line(repo):
    mark = ('<button type="button" class="nt-mark-btn" aria-expanded="false" aria-controls="nowhere" '
            'aria-describedby="nowhere">mx</button>')
    plant(repo, "left-out.md", BODY, f"{mark} {BODY}")
    error = one_line(build(repo), repo)
    assert "left-out.md" in error and "described by no popover" in error


@pytest.mark.parametrize("old, new, cause", [
    ("title: What this explainer leaves out", "title: What: this explainer: leaves out", "not YAML"),
    ("title: What this explainer leaves out\n", "", "`title` is missing"),
])
def test_a_bad_front_matter_is_one_line_naming_page_and_cause(repo, old, new, cause):
    plant(repo, "left-out.md", old, new)
    error = one_line(build(repo), repo)
    assert "left-out.md" in error and cause in error


def test_the_unchanged_copy_builds(repo):
    """The faults above are the planted ones: the copy itself builds."""
    proc = build(repo)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert re.search(r"Documentation built in", proc.stderr)
