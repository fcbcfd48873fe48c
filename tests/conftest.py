"""Shared fixtures: the repository root, and each test starting with torch's settings as imported. The
import path comes from pyproject's `pythonpath`.

A module marked as a whole (`pytestmark = pytest.mark.slow`) that the run's `-m` expression leaves out is not
even imported: the modules that import torch at the top are marked slow, so `make test-fast` (`-m "not browser
and not slow"`) collects nothing that imports torch, and runs where torch is not installed."""
from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression

ROOT = Path(__file__).resolve().parent.parent

# torch's OpenMP threads wait for work asleep, not spinning (read when torch is first imported, and passed on
# to the stages and scripts the tests start). `make test` runs three processes on two cores, each with torch's
# two threads: spinning threads take the cores from the threads with work, and a model's pass then takes
# several times its CPU and wall time. How threads wait changes no number: the same threads split the same work.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def _mark_name(node: ast.AST) -> str | None:
    """NAME of an expression `<...>.mark.NAME`, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and node.value.attr == "mark":
        return node.attr
    return None


def module_marks(path: Path) -> tuple[set[str], set[str]]:
    """The marks of a test module's `pytestmark = ...`, and every mark its file names anywhere (a decorator,
    pytest.param's marks), read without importing it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    named = {m for node in ast.walk(tree) if (m := _mark_name(node))}
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            values = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            return {m for v in values if (m := _mark_name(v))}, named
    return set(), named


def pytest_ignore_collect(collection_path: Path, config: pytest.Config):
    expr = config.getoption("markexpr", "")
    if not expr or collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    marks, named = module_marks(collection_path)
    if not marks:
        return None
    # a test carries only marks its file names (no hook adds any): a module marked slow that never names
    # `browser` has no browser test, and `-m browser` need not import it (nor torch with it)
    every = marks | named
    compiled = Expression.compile(expr)
    # left out whatever marks its tests add: false with the module's marks and with every one its file names
    if not compiled.evaluate(lambda m, **kw: m in marks) and not compiled.evaluate(lambda m, **kw: m in every):
        return True
    return None


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT



_TORCH_DEFAULTS: list[tuple[int, bool]] = []  # torch's thread count and deterministic mode as imported


def _torch_defaults(torch) -> tuple[int, bool]:
    if not _TORCH_DEFAULTS:
        _TORCH_DEFAULTS.append((torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()))
    return _TORCH_DEFAULTS[0]


def pytest_collection_modifyitems(config, items):
    """The files that hold a slow test run first, then the rest, each group by its number of tests (xdist's
    own order, which `make test` turns off with --no-loadscope-reorder so that this one holds). Under
    `--dist loadfile` a process takes a whole file at a time: a file of a few minute-long tests taken last
    left the other processes idle at the end (a 45 s tail over 900 s), and small files last fill the gaps."""
    files: dict = {}
    for item in items:
        files.setdefault(item.path, []).append(item)
    order = sorted(files.values(), key=lambda tests: (not any(t.get_closest_marker("slow") for t in tests), -len(tests)))
    items[:] = [t for tests in order for t in tests]


def pytest_collection_finish(session):
    if "torch" in sys.modules:  # imported by the modules collected, before any test or fixture ran
        _torch_defaults(sys.modules["torch"])


@pytest.fixture(autouse=True)
def torch_as_imported():
    """Each test starts with torch's own thread count and deterministic mode. Training sets both
    (scripts/tiny/checkpoint.py), as do some fixtures, and never gives them back; `make test` runs the
    tests in three processes, each taking whichever file comes next, so a later test in the same process
    would otherwise sum in another order than the stage it checks (a probability 1.1e-5 apart where
    1e-5 is allowed)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        threads, deterministic = _torch_defaults(torch)
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(deterministic)


def pytest_terminal_summary(terminalreporter):
    """Say plainly how many browser tests an explicit BROWSER=skip left out. The hook lives here, not in
    tests/browser/conftest.py: under pytest-xdist (`make test` runs `-n 3`) the controller that writes the
    summary collects nothing, so it loads only this conftest, and the workers' summaries are not printed."""
    if os.environ.get("NEXTTOKEN_BROWSER") != "skip":
        return
    skipped = {r.nodeid for r in terminalreporter.stats.get("skipped", []) if r.nodeid.startswith("tests/browser/")}
    terminalreporter.write_line(f"BROWSER=skip: {len(skipped)} browser tests skipped (chromium not used)")
