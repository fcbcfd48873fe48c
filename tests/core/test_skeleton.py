"""The skeleton under faults: stages that cannot lose data, one registry, settings checked before work.

Each test works on a scratch copy of the repository (its own site_data/, build/ and config), with the
real .venv and node_modules linked in, and drives it the way a maintainer would: make, or
`python -m scripts.core.stage`. The real repository is never touched.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scripts.core import registry
from scripts.tiny import settings
from tests.helpers.scratch import digest, sh, stage_cmd

ROOT = Path(__file__).resolve().parents[2]
PY = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable


# ---- 1. a damaged or deleted output is noticed, and make data rebuilds it ----------------------------
def test_a_deleted_output_makes_its_stage_stale(repo):
    (repo / "site_data/tiny/tokenizer.json").unlink()
    proc = stage_cmd(repo, "check", "tiny")
    assert proc.returncode == 1 and "output missing: site_data/tiny/tokenizer.json" in proc.stdout


def test_a_damaged_output_makes_its_stage_stale(repo):
    path = repo / "site_data/tiny/summary.json"
    path.write_text(path.read_text().replace('"n_params":', '"n_params" :'))
    proc = stage_cmd(repo, "check", "tiny")
    assert proc.returncode == 1 and "output differs from the recorded one: site_data/tiny/summary.json" in proc.stdout


@pytest.mark.slow
def test_make_data_rebuilds_a_deleted_output_byte_for_byte(repo):
    before = digest(repo / "site_data")
    (repo / "site_data/gpt2/tokenizer_parity.json").unlink()
    start = time.perf_counter()
    proc = sh(repo, "make", "data")
    print(f"recovered a deleted output in {time.perf_counter() - start:.1f} s")
    assert proc.returncode == 0
    assert digest(repo / "site_data") | {"manifest.json": ""} == before | {"manifest.json": ""}
    assert stage_cmd(repo, "check", "gpt2_tokenizer_facts").returncode == 0


def _change_gpt2_tokenizer_input(repo: Path) -> None:
    cfg_path = repo / "scripts/config/gpt2_tokenizer.json"
    cfg = json.loads(cfg_path.read_text())
    text = json.dumps(cfg)
    assert "The cat sat on the" in text
    cfg_path.write_text(text.replace("The cat sat on the", "The dog sat on the", 1))


@pytest.mark.slow  # runs a stage twice
def test_a_run_killed_between_two_moves_is_finished_by_the_next_command(repo):
    """Kill the runner right after it moved the first staged file; the next check completes the commit."""
    _change_gpt2_tokenizer_input(repo)
    killer = ("import os, sys; import scripts.core.stage as st; real = os.replace; n = [0]\n"
              "def replace(a, b):\n"
              "    real(a, b); n[0] += 1\n"
              "    if n[0] == 2 and str(b).endswith('.json') and 'staging' not in str(b): os._exit(9)\n"
              "os.replace = replace\n"
              "sys.exit(st.main(['run', 'gpt2_tokenizer_facts']))\n")
    proc = sh(repo, PY, "-c", killer)
    assert proc.returncode == 9, "the runner should have been killed mid-commit"
    assert (repo / "build/staging/commit.json").exists()
    proc = stage_cmd(repo, "check", "gpt2_tokenizer_facts")
    assert "finished a commit that was cut short" in proc.stderr
    assert proc.returncode == 0, "after recovery, outputs and manifest agree"
    assert "The dog sat on the" in (repo / "site_data/gpt2/tokenizer_facts.json").read_text()


# ---- 2. a stage changes committed files all at once or not at all ------------------------------------
@pytest.mark.slow
def test_a_failing_stage_leaves_site_data_untouched(repo):
    before = digest(repo / "site_data")
    with open(repo / "scripts/config/corpus.txt", "a") as fh:
        fh.write("the cat sat on the mat and the dog sat on the rug.\n")
    proc = sh(repo, "make", "data")
    assert proc.returncode != 0
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "over model.n_ctx" in proc.stderr
    assert digest(repo / "site_data") == before


@pytest.mark.slow
def test_ctrl_c_during_training_deletes_and_changes_nothing(repo, ctrl_c):
    before = digest(repo / "site_data")
    cfg_path = repo / "scripts/config/tiny.json"
    cfg_path.write_text(cfg_path.read_text().replace('"seed": 24', '"seed": 25'))
    env = os.environ | {"PYTHONPATH": str(repo)}
    proc = subprocess.Popen(["make", "data"], cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and not (repo / "build/staging/tiny/build").exists():
        time.sleep(0.1)
    time.sleep(2.0)  # inside the tokenizer or training step
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole process group
    out, _ = proc.communicate(timeout=60)
    print(out[-2000:])
    assert proc.returncode != 0
    assert digest(repo / "site_data") == before, "a Ctrl-C must neither delete nor change committed data"


# ---- 3. a check that cannot read the manifest is an error, not "stale" -------------------------------
@pytest.mark.slow
def test_a_corrupt_manifest_is_one_line_error_not_a_rebuild(repo):
    (repo / "site_data/manifest.json").write_text("{ not json")
    proc = stage_cmd(repo, "check", "tiny")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "site_data/manifest.json is corrupt" in proc.stderr
    proc = sh(repo, "make", "data")
    assert proc.returncode != 0
    assert "built in" not in proc.stdout and "pipeline-deps" not in proc.stdout


# ---- 4. settings are checked before any work, one line naming file, field and rule -------------------
def _settings_with(monkeypatch, tmp_path, edit=None, corpus_extra: str = "") -> None:
    raw = json.loads(settings.PATH.read_text())
    if edit:
        edit(raw)
    cfg = tmp_path / "tiny.json"
    cfg.write_text(json.dumps(raw))
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(settings.CORPUS.read_text() + corpus_extra)
    monkeypatch.setattr(settings, "PATH", cfg)
    monkeypatch.setattr(settings, "CORPUS", corpus)


@pytest.mark.parametrize("edit, message", [
    (lambda r: r["model"].update(n_head=3), r"model\.n_head 3 must divide model\.n_embd 8"),
    (lambda r: r["training"].update(lr=-0.01), r"training\.lr -0\.01 must be above 0"),
    (lambda r: r["training"].update(steps=0), r"training\.steps 0 must be at least 1"),
    (lambda r: r["training"].update(betas=[0.9, 1.5]), r"training\.betas"),
    (lambda r: r["model"].update(n_ctx="8"), r"model\.n_ctx must be a whole number"),
    (lambda r: r["training"].update(momentum=0.9), r"training\.momentum is not a setting"),
    (lambda r: r["prompts"].append("the cat sat on the mat. the dog"), r"prompts\[\d+\] .* over model\.n_ctx 8"),
    (lambda r: r["roles"].update(verbs="the cow"), r"roles\.verbs 'the cow' must be one of prompts"),
])
def test_bad_settings_fail_with_one_line(monkeypatch, tmp_path, edit, message):
    _settings_with(monkeypatch, tmp_path, edit)
    with pytest.raises(settings.StageError, match=message) as err:
        settings.load()
    assert "\n" not in str(err.value) and "tiny.json" in str(err.value)


def test_a_new_letter_says_the_merges_ran_out(monkeypatch, tmp_path):
    _settings_with(monkeypatch, tmp_path, corpus_extra="the cat ate a crepe.\n")
    with pytest.raises(settings.StageError) as err:
        settings.load()
    msg = str(err.value)
    print(msg)
    assert re.search(r"the corpus has \d+ characters, so 58 tokens leave \d+ merges; '.*' then needs \d+ tokens", msg)


def test_bad_settings_reach_the_maintainer_without_a_traceback(repo):
    cfg_path = repo / "scripts/config/tiny.json"
    cfg_path.write_text(cfg_path.read_text().replace('"n_head": 2', '"n_head": 3'))
    proc = sh(repo, PY, "-m", "scripts.tiny.tokenizer")
    assert proc.returncode == 1
    assert proc.stderr.strip() == "error: scripts/config/tiny.json: model.n_head 3 must divide model.n_embd 8"


# ---- 5. the browser tokenizer splits any Unicode as Python does --------------------------------------
def test_the_browser_tokenizer_matches_python_on_astral_characters(tmp_path):
    from scripts.tiny.tokenizer import build_tokenizer

    corpus = ["the 🐈 sat on the mat.", "the dog sat on the 🧶.", "a crêpe for the 🐈."]
    tok = build_tokenizer(corpus, 40)
    expected = [tok.encode(s) for s in corpus]
    (tmp_path / "tok.json").write_text(json.dumps(tok.to_json(), ensure_ascii=False), encoding="utf-8")
    script = ("globalThis.window = globalThis; require(process.argv[1]); require(process.argv[2]);"
              "const tok = JSON.parse(require('fs').readFileSync(process.argv[3], 'utf8'));"
              "const t = nexttoken.runtime.tokenizer.create(tok);"
              "console.log(JSON.stringify(JSON.parse(process.argv[4]).map(s => { const e = t.encode(s);"
              " return e.ok ? e.ids : e.message; })));")
    proc = subprocess.run(["node", "-e", script, str(ROOT / "docs/js/nexttoken.js"), str(ROOT / "docs/js/runtime/tokenizer.js"),
                           str(tmp_path / "tok.json"), json.dumps(corpus)], capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout) == expected


# ---- 6. a failed site build keeps the previous site --------------------------------------------------
@pytest.mark.slow
def test_a_failed_site_build_keeps_the_previous_site(built_repo):
    repo = built_repo  # the generated files made already: only MkDocs runs, and fails
    site = repo / "build" / "site"
    site.mkdir(parents=True)
    (site / "index.html").write_text("the previous build")
    page = repo / "docs" / "index.md"
    page.write_text(page.read_text() + "\n[[ no_such_name ]]\n")
    proc = sh(repo, "make", "site", "MODEL=none")
    assert proc.returncode != 0
    assert "no_such_name" in proc.stdout + proc.stderr
    assert (site / "index.html").read_text() == "the previous build"


# ---- 7. without chromium the browser tests fail, unless skipped on purpose ---------------------------
def _browser_pytest(extra_env: dict) -> subprocess.CompletedProcess:
    env = os.environ | {"NEXTTOKEN_CHROMIUM": "/nonexistent/chromium"} | extra_env
    return subprocess.run([PY, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "tests/browser/test_site.py",
                           "-k", "search_works"], cwd=ROOT, env=env, capture_output=True, text=True)


def test_missing_chromium_fails_the_browser_tests():
    proc = _browser_pytest({"NEXTTOKEN_BROWSER": "chromium"})
    print(proc.stdout[-1500:])
    assert proc.returncode != 0 and "chromium not found" in proc.stdout


# `tests` as the Makefile passes it (a file named on the command line would load its folder's conftest in the
# controller too, which `make test` does not), narrowed to two browser files
SKIP_FILES = ["tests", "-m", "browser", "-k", "test_site.py or test_lazy.py"]
SKIP_ENV = {"NEXTTOKEN_CHROMIUM": "/nonexistent/chromium", "NEXTTOKEN_BROWSER": "skip"}


@pytest.fixture(scope="module")
def browser_tests_in_skip_files() -> int:
    """How many tests SKIP_FILES select, counted by a collection of their own (once for both runs below)."""
    collected = subprocess.run([PY, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider", *SKIP_FILES],
                               cwd=ROOT, env=os.environ | SKIP_ENV, capture_output=True, text=True, check=True).stdout
    return int(re.search(r"(\d+)(?:/\d+)? tests? collected", collected).group(1))


@pytest.mark.slow  # a collection, then a pytest run for each JOBS, each collecting the browser tests
@pytest.mark.parametrize("jobs", ["2", "0"])
def test_browser_skip_is_explicit_and_says_what_it_skipped(jobs, browser_tests_in_skip_files):
    """`make test BROWSER=skip` runs pytest as the Makefile does (`-n JOBS --dist loadfile`, in two processes or,
    with JOBS=0, in one): its summary names the number of browser tests it left out, counted, not just printed."""
    files, env, expected = SKIP_FILES, os.environ | SKIP_ENV, browser_tests_in_skip_files
    proc = subprocess.run([PY, "-m", "pytest", "-q", "-n", jobs, "--dist", "loadfile", "-p", "no:cacheprovider", *files],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    print(proc.stdout[-1500:])
    assert proc.returncode == 0
    said = re.findall(r"BROWSER=skip: (\d+) browser tests skipped", proc.stdout)
    skipped = int(re.search(r"(\d+) skipped", proc.stdout).group(1))
    passed = int(m.group(1)) if (m := re.search(r"(\d+) passed", proc.stdout)) else 0
    # every test of these files ran or was skipped, and the line counts exactly the skipped ones
    assert said == [str(skipped)] and skipped + passed == expected and skipped > 10


# ---- one registry: the Makefile's rules and site_data/README.md's tables come from it ----------------
def test_site_data_readme_is_the_registry():
    """site_data/README.md (the stages' table and the data contract) is generated: it is exactly the registry's."""
    text = (ROOT / "site_data" / "README.md").read_text(encoding="utf-8")
    assert text == registry.readme(), "regenerate it: python3 -m scripts.core.stage readme > site_data/README.md"
    assert registry.table() in text and registry.contract_table() in text


def test_data_contract_lists_every_site_data_file():
    """The data contract's rows cover every committed site_data/ file and every stage output, each exactly once."""
    tracked = subprocess.run(["git", "ls-files", "site_data"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    outputs = [p for s in registry.DATA for p in s.outputs]
    paths = sorted(set(tracked) | set(outputs))
    assert len(tracked) > 40 and "site_data/parity/grads.json" in paths
    rows, unlisted = registry.contract_rows(paths)
    assert unlisted == [], f"site_data/ files with no row (or several) in registry.CONTRACT: {unlisted}"
    for row, matched in rows:  # a row for a file nothing writes any more is stale
        assert matched or row.writer == "`make gpt2` (`scripts.real.measurements gpt2`)", f"contract row {row.pattern} matches no file"
    # a new file with no row is caught, by name
    planted = "site_data/smollm2/new_figure_data.json"
    assert registry.contract_rows([*paths, planted])[1] == [planted]
    distributions = next(matched for row, matched in rows if row.pattern == "smollm2/distributions/<key>.json")
    assert len(distributions) == len(registry.DIST_KEYS)


def test_a_stage_is_named_after_the_module_it_runs():
    """One step: its module's name; several: their package's (the tiny model's three steps run scripts.tiny)."""
    for s in registry.STAGES:
        packages = {m.rsplit(".", 1)[0] for m in s.steps}
        named = s.steps[0].rsplit(".", 1)[1] if len(s.steps) == 1 else packages.pop().rsplit(".", 1)[1]
        assert s.name == named, f"stage {s.name} runs {', '.join(s.steps)}"


def test_every_stage_input_exists_and_every_step_module_is_an_input():
    for s in registry.STAGES:
        for path in s.inputs:
            assert (ROOT / path).is_file() or path.startswith("node_modules/"), f"{s.name}: {path} is missing"
        for step in s.steps:
            assert str(registry.module_file(step).relative_to(ROOT)) in s.inputs


def test_the_stage_modules_imports_are_inputs():
    """The figures generator imports scripts.real.page_variables: it must be among its prerequisites."""
    figures = registry.BY_NAME["figures"]
    assert "scripts/real/page_variables.py" in figures.inputs and "scripts/tiny/tokenizer.py" in figures.inputs
    tiny = registry.BY_NAME["tiny"]
    assert "scripts/tiny/settings.py" in tiny.inputs and "scripts/tiny/model.py" in tiny.inputs


def test_the_makefile_rules_cover_every_stage():
    mk = subprocess.run(["python3", "-m", "scripts.core.stage", "makefile"], cwd=ROOT, capture_output=True,
                        text=True, check=True).stdout
    targets = set()
    for line in mk.splitlines():
        if line and not line.startswith(("\t", "#")) and ":" in line and ":=" not in line:
            targets.update(line.split(":")[0].removesuffix(" &").split())
    for s in registry.STAGES:
        expected = s.targets if s.kind == "generator" else [f"build/stamps/{s.name}.outputs"]
        assert set(expected) <= targets, f"no rule for {s.name}"
    assert not any(t.startswith("site_data/") for t in targets), "make must never own a committed file"


# ---- prompts and examples are config: changing them rebuilds cleanly ---------------------------------
@pytest.mark.slow
def test_changed_prompts_rebuild_the_data_and_the_site(built_repo):
    repo = built_repo  # as a maintainer's copy is: built, so make redoes what depends on the prompts
    cfg_path = repo / "scripts/config/tiny.json"
    raw = json.loads(cfg_path.read_text())
    raw["prompts"] = [p for p in raw["prompts"] if p != "my cat sat on the"] + ["my dog sat on the"]
    raw["roles"]["verbs"] = "the dog"
    raw["roles"]["greedy"] = ["the dog", "my dog"]
    cfg_path.write_text(json.dumps(raw, indent=2))
    proc = sh(repo, "make", "site", "MODEL=none")
    assert proc.returncode == 0, "a maintainer's new prompts must build without code changes"
    summary = json.loads((repo / "site_data/tiny/summary.json").read_text())
    traces = {t["prompt"]: t for t in json.loads((repo / "site_data/tiny/traces.json").read_text())["traces"]}
    assert summary["roles"]["verbs"] == "the dog"
    assert summary["verbs_after_the_cat"] == traces["the dog"]["top"][:3]
    assert "my dog sat on the" in summary["picks"] and "my cat sat on the" not in summary["picks"]
    greedy = json.loads((repo / "site_data/tiny/traces.json").read_text())["greedy"]
    assert [g["prompt"] for g in greedy] == ["the dog", "my dog"]
    assert stage_cmd(repo, "check", "tiny").returncode == 0
    # and the site's demos read the new picks
    site_js = (repo / "build/site/js/data/tiny-model.js").read_text()
    assert '"my dog sat on the":{' in site_js and '"my cat sat on the":{' not in site_js
