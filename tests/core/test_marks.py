"""The marks that `make test-fast` selects on: every Playwright module is `browser`, every test that
drives make is `slow`, and every test file's basename is unique (pytest imports them by path)."""
from __future__ import annotations

import ast
from collections import Counter

from scripts.core.io import ROOT

TESTS = ROOT / "tests"
FILES = sorted(TESTS.rglob("test_*.py"))


def _marks(decorators: list[ast.expr]) -> set[str]:
    out = set()
    for d in decorators:
        node = d.func if isinstance(d, ast.Call) else d
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and node.value.attr == "mark":
            out.add(node.attr)
    return out


def _module_marks(tree: ast.Module) -> set[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            values = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            return _marks(values)
    return set()


def test_every_browser_module_is_marked_browser():
    unmarked = [f.name for f in FILES if f.parent.name == "browser" and "browser" not in _module_marks(ast.parse(f.read_text()))]
    assert unmarked == [], "add `pytestmark = pytest.mark.browser`"


def test_every_test_that_drives_make_is_marked_slow():
    unmarked = []
    for f in FILES:
        tree = ast.parse(f.read_text())
        module = _module_marks(tree)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                drives = any(isinstance(arg, ast.Constant) and arg.value == "make"
                             for n in ast.walk(node) if isinstance(n, (ast.Call, ast.List))
                             for arg in (n.args if isinstance(n, ast.Call) else n.elts))
                if drives and "slow" not in _marks(node.decorator_list) | module:
                    unmarked.append(f"{f.relative_to(ROOT)}::{node.name}")
    assert unmarked == []


def test_test_file_basenames_are_unique():
    assert [n for n, c in Counter(f.name for f in FILES).items() if c > 1] == []
