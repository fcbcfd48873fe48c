"""Scratch copies of the repository for tests that drive make or the stage runner under faults.

A copy has its own site_data/, build/ and config, with the real .venv and node_modules linked in, so
the real repository is never touched."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP = {".git", ".venv", "node_modules", "build", "__pycache__", ".pytest_cache"}


def _ignore(folder: str, names: list[str]) -> set[str]:
    generated = {"data", "vendor", "figures"} if folder.endswith(("docs/js", "docs/assets")) else set()
    return {n for n in names if n in SKIP or n in generated}


def scratch_repo(dst: Path, links: tuple[str, ...] = (".venv", "node_modules"), built: bool = False) -> Path:
    """A copy of the working tree (without generated files), sharing the installed packages.

    built: with the generators' outputs and the data stages' stamps as the real repository has them, file
    times kept, so that make redoes only what the test changes (a test of the site swap or of a new prompt
    need not regenerate the vocabularies, fonts and kernels). SmolLM2's browser copy (129 MB) is left out:
    such tests run `make site MODEL=none`."""
    shutil.copytree(ROOT, dst, ignore=_ignore, symlinks=True)
    for link in links:
        if (ROOT / link).exists():
            (dst / link).symlink_to(ROOT / link)
    if built:
        from scripts.core import registry

        paths = ["build/stamps", *(t.removesuffix(".stamp") if t.endswith("/.stamp") else t
                                    for s in registry.GENERATORS if s.name != "real_js" for t in s.targets)]
        for path in paths:
            src, out = ROOT / path, dst / path
            if src.is_dir():
                shutil.copytree(src, out, dirs_exist_ok=True)
            elif src.is_file():
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, out)
    return dst


def private_venv(repo: Path) -> Path:
    """repo/.venv as a folder of links to the real one's parts, with the site's install stamp but not
    the pipeline's: make then thinks the pipeline is still to be installed, and any stamp it writes
    lands in the scratch copy."""
    real = ROOT / ".venv"
    venv = repo / ".venv"
    venv.mkdir()
    for part in real.iterdir():
        if part.name == ".site-deps":
            shutil.copy2(part, venv / part.name)
        elif not part.name.startswith("."):
            (venv / part.name).symlink_to(part)
    return venv


def git_commit_all(repo: Path) -> None:
    """Make the scratch copy a repository of its own whose last commit holds its files."""
    env = os.environ | {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"}
    for cmd in (["init", "-q"], ["add", "-A", "site_data", "scripts", "docs", "Makefile", "requirements"],
                ["commit", "-q", "-m", "scratch"]):
        subprocess.run(["git", *cmd], cwd=repo, env=env, check=True, capture_output=True)


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def sh(repo: Path, *cmd: str, **kw) -> subprocess.CompletedProcess:
    env = os.environ | {"PYTHONPATH": str(repo)} | kw.pop("env", {})
    proc = subprocess.run(list(cmd), cwd=repo, env=env, capture_output=True, text=True, **kw)
    print(f"$ {' '.join(cmd)} -> {proc.returncode}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return proc


def stage_cmd(repo: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    return sh(repo, "python3", "-m", "scripts.core.stage", *args, **kw)
