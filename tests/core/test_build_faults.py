"""The build never lies: a wrong-shaped manifest, a failed install, a Ctrl-C in the site swap or during an
import, a deleted output and a bad setting each end in one line, and never in stale or retrained data.

Each test works on a scratch copy of the repository (tests/helpers/scratch.py); the real one is never touched.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scripts.core import stage
from tests.helpers.scratch import digest, git_commit_all, private_venv, sh, stage_cmd

TOKENIZER_INPUT = "scripts/config/gpt2_tokenizer.json"


def _stale_gpt2_tokenizer(repo: Path) -> None:
    """The quickest stage to make stale (its run takes seconds, no training)."""
    cfg = repo / TOKENIZER_INPUT
    cfg.write_text(cfg.read_text().replace("The cat sat on the", "The dog sat on the", 1))


def _fake_package(folder: Path, name: str, body: str) -> Path:
    (folder / name).mkdir(parents=True)
    (folder / name / "__init__.py").write_text(body)
    return folder


# ---- a manifest of the wrong shape is an error (exit 2), never "stale" (exit 1) ----------------------
@pytest.mark.parametrize("tiny", [[], {"inputs": 5, "outputs": {}}, {"inputs": {}, "outputs": {"a": 1}}])
def test_a_wrong_shaped_manifest_is_one_line_and_exit_2(repo, tiny):
    path = repo / "site_data/manifest.json"
    manifest = json.loads(path.read_text())
    manifest["stages"]["tiny"] = tiny
    path.write_text(json.dumps(manifest))
    proc = stage_cmd(repo, "check", "tiny")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.strip().count("\n") == 0
    assert "site_data/manifest.json is corrupt" in proc.stderr and "stages.tiny" in proc.stderr


def test_an_unexpected_failure_is_exit_2_not_stale(monkeypatch, capsys):
    def broken(name, restore=False):
        raise AttributeError("'list' object has no attribute 'get'")

    monkeypatch.setattr(stage, "check", broken)
    assert stage.main(["check", "tiny"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "AttributeError" in err


@pytest.mark.slow
def test_make_stops_on_a_wrong_shaped_manifest_and_rebuilds_nothing(repo):
    before = digest(repo / "site_data")
    path = repo / "site_data/manifest.json"
    manifest = json.loads(path.read_text())
    manifest["stages"]["tiny"] = []
    path.write_text(json.dumps(manifest))
    proc = sh(repo, "make", "data")
    assert proc.returncode != 0
    assert "stages.tiny" in proc.stderr and "Traceback" not in proc.stderr
    assert "pipeline-deps" not in proc.stdout and "built in" not in proc.stdout
    assert digest(repo / "site_data") | {"manifest.json": ""} == before | {"manifest.json": ""}


# ---- a failed install stops the build: no stale data published ---------------------------------------
@pytest.mark.slow
def test_a_failed_pipeline_install_fails_make_and_publishes_nothing(tmp_path):
    from tests.helpers.scratch import scratch_repo

    repo = scratch_repo(tmp_path / "repo", links=("node_modules",))
    private_venv(repo)
    _stale_gpt2_tokenizer(repo)
    before = digest(repo / "site_data")
    bad = tmp_path / "pip.conf"
    bad.write_text("not a pip configuration file\n")
    proc = sh(repo, "make", "site", env={"PIP_CONFIG_FILE": str(bad)})
    assert proc.returncode != 0
    assert "Configuration file could not be loaded" in proc.stderr
    assert "built in" not in proc.stdout and not (repo / "build/site").exists()
    assert not (repo / ".venv/.pipeline-deps").exists()
    assert digest(repo / "site_data") == before


# ---- a bad setting is one line before anything is installed -------------------------------------------
@pytest.mark.slow
def test_a_bad_setting_is_refused_before_anything_is_installed(tmp_path):
    from tests.helpers.scratch import scratch_repo

    repo = scratch_repo(tmp_path / "repo", links=())  # a fresh clone: no .venv, no node_modules
    cfg = repo / "scripts/config/tiny.json"
    cfg.write_text(cfg.read_text().replace('"n_head": 2', '"n_head": 3'))
    proc = sh(repo, "make", "site")
    assert proc.returncode != 0
    assert "error: scripts/config/tiny.json: model.n_head 3 must divide model.n_embd 8" in proc.stderr.splitlines()
    assert "Traceback" not in proc.stderr and "pip" not in proc.stdout
    assert not (repo / ".venv").exists(), "nothing may be installed before the settings are checked"


# ---- a deleted or damaged output whose inputs are unchanged comes back from git, not from retraining ---
@pytest.mark.parametrize("damage", ["deleted", "truncated"])
def test_a_bad_output_is_restored_from_the_committed_copy(repo, damage):
    git_commit_all(repo)
    before = digest(repo / "site_data")
    weights = repo / "site_data/tiny/weights.json"
    if damage == "deleted":
        weights.unlink()
    else:
        weights.write_bytes(weights.read_bytes()[:1000])
    assert stage_cmd(repo, "check", "tiny").returncode == 1, "plain check only reports"
    proc = stage_cmd(repo, "check", "--restore", "tiny")
    assert proc.returncode == 0
    assert "tiny: restored site_data/tiny/weights.json from the repository's committed copy" in proc.stderr
    assert digest(repo / "site_data") == before, "byte-identical, manifest included"


def test_no_restore_when_the_committed_copy_is_not_the_recorded_one(repo):
    """An output committed before the manifest moved on is not the right one: the stage must run."""
    git_commit_all(repo)
    path = repo / "site_data/manifest.json"
    manifest = json.loads(path.read_text())
    manifest["stages"]["tiny"]["outputs"]["site_data/tiny/weights.json"] = "0" * 64
    path.write_text(json.dumps(manifest))
    (repo / "site_data/tiny/weights.json").unlink()
    proc = stage_cmd(repo, "check", "--restore", "tiny")
    assert proc.returncode == 1 and "output missing: site_data/tiny/weights.json" in proc.stdout
    assert not (repo / "site_data/tiny/weights.json").exists()


@pytest.mark.slow
def test_make_restores_a_deleted_output_without_retraining(repo, tmp_path):
    git_commit_all(repo)
    before = digest(repo / "site_data")
    (repo / "site_data/tiny/weights.json").unlink()
    (repo / "site_data/tiny/training.json").unlink()
    # Any step that imported torch would now fail: restoring must not train.
    fake = _fake_package(tmp_path / "fake", "torch", "raise ImportError('restoring must not import torch')\n")
    proc = sh(repo, "make", "data", env={"PYTHONPATH": f"{fake}:{repo}"})
    assert proc.returncode == 0
    assert "restored site_data/tiny/weights.json, site_data/tiny/training.json" in proc.stderr
    assert "built in" not in proc.stdout and "restoring must not import torch" not in proc.stderr
    assert digest(repo / "site_data") == before


# ---- Ctrl-C: during an import, and in the middle of the site swap ------------------------------------
def test_ctrl_c_during_an_import_is_one_line(repo, tmp_path, ctrl_c):
    marker = tmp_path / "importing"
    fake = _fake_package(tmp_path / "fake", "torch",
                         f"import pathlib, time\npathlib.Path({str(marker)!r}).touch()\ntime.sleep(60)\n")
    before = digest(repo / "site_data")
    env = os.environ | {"PYTHONPATH": f"{fake}:{repo}"}
    proc = subprocess.Popen([sys.executable, "-m", "scripts.core.stage", "run", "tiny"], cwd=repo, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.time() + 300
    while not marker.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert marker.exists(), "the checkpoint step never reached `import torch`"
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole process group
    _, err = proc.communicate(timeout=60)
    print(err)
    assert proc.returncode == 130
    assert err.strip() == "error: interrupted; site_data/ is unchanged"
    assert digest(repo / "site_data") == before


@pytest.mark.slow
def test_ctrl_c_between_the_two_moves_of_the_site_swap_keeps_a_site(built_repo, tmp_path, ctrl_c):
    repo = built_repo  # the generated files made already: make goes straight to MkDocs and the swap
    site = repo / "build/site"
    site.mkdir(parents=True)
    (site / "index.html").write_text("the previous build")
    # mv pauses after moving the old site aside, the moment a Ctrl-C used to leave no build/site.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marker = tmp_path / "moved-aside"
    real_mv = subprocess.run(["sh", "-c", "command -v mv"], capture_output=True, text=True).stdout.strip()
    (bin_dir / "mv").write_text(f"#!/bin/sh\n{real_mv} \"$@\" || exit $?\n"
                                f"case \"$2\" in *site.old) touch {marker}; sleep 3;; esac\n")
    (bin_dir / "mv").chmod(0o755)
    env = os.environ | {"PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHONPATH": str(repo)}
    proc = subprocess.Popen(["make", "site", "MODEL=none"], cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    deadline = time.time() + 600
    while not marker.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert marker.exists(), proc.communicate()[0][-3000:]
    os.killpg(proc.pid, signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    print(out[-2000:])
    assert (site / "index.html").is_file(), "a Ctrl-C in the swap must leave a site"
    assert (site / "index.html").read_text() != "the previous build", "the swap completes once begun"


# ---- the journal is on disk before the first move --------------------------------------------------------
def test_the_journal_is_flushed_to_disk_before_the_first_move(tmp_path, monkeypatch):
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(stage, "JOURNAL", tmp_path / "staging" / "commit.json")
    (tmp_path / "staging").mkdir()
    src, dst = tmp_path / "staging" / "out.json", tmp_path / "out.json"
    src.write_text("{}")

    def fsync(fd):
        events.append("fsync")
        real_fsync(fd)

    def replace(a, b):
        events.append(f"replace {Path(b).name}")
        real_replace(a, b)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    stage.commit([(src, dst)])
    first_move = events.index("replace out.json")
    journal = events.index("replace commit.json")
    assert "fsync" in events[:journal], "the journal's bytes reach the disk before it is renamed into place"
    assert "fsync" in events[journal:first_move], "and its folder entry before the first move"
    assert dst.read_text() == "{}" and not stage.JOURNAL.exists()


def test_a_stage_s_first_output_in_a_new_folder_is_committed(tmp_path, monkeypatch):
    """A stage whose outputs live in a folder not yet in site_data/ (the lab's per-prompt files) moves
    them in all the same, making the folder."""
    monkeypatch.setattr(stage, "JOURNAL", tmp_path / "staging" / "commit.json")
    (tmp_path / "staging").mkdir()
    src, dst = tmp_path / "staging" / "a.json", tmp_path / "site" / "new" / "a.json"
    src.write_text("{}")
    stage.commit([(src, dst)])
    assert dst.read_text() == "{}" and not stage.JOURNAL.exists()


# ---- node is asked for only by what runs it -------------------------------------------------------------
def _path_without(bin_root: Path, *hidden: str) -> str:
    """os.environ's PATH with `hidden` commands gone: each folder holding one is mirrored without them."""
    out = []
    for i, folder in enumerate(os.environ["PATH"].split(os.pathsep)):
        d = Path(folder)
        if not d.is_dir() or not any((d / h).exists() for h in hidden):
            out.append(folder)
            continue
        mirror = bin_root / str(i)
        mirror.mkdir(parents=True)
        for entry in d.iterdir():
            if entry.name not in hidden:
                (mirror / entry.name).symlink_to(entry)
        out.append(str(mirror))
    return os.pathsep.join(out)


@pytest.mark.slow
def test_make_site_needs_no_node_once_node_modules_is_installed(tmp_path):
    from tests.helpers.scratch import scratch_repo

    repo = scratch_repo(tmp_path / "repo")  # the packages installed: .venv and node_modules linked in
    (repo / "docs/js/real/kernels-wasm.js").unlink(missing_ok=True)  # ignored by git: a fresh clone has none
    # apt-get hidden too, so that no test ever installs Debian's nodejs on this machine
    path = _path_without(tmp_path / "bin", "node", "npm", "npx", "corepack", "apt-get")
    proc = sh(repo, "make", "site", "MODEL=none", env={"PATH": path})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (repo / "build/site/index.html").is_file()
    assert "node not found" in proc.stderr and "plain-JS kernels" in proc.stderr
    assert "apt-get" not in proc.stdout + proc.stderr and "Traceback" not in proc.stderr
    assert not (repo / "docs/js/real/kernels-wasm.js").exists()
