"""Every benchmark the README lists says in one line what it lacks (the built site, torch, playwright,
chromium, node) and exits 2, instead of a traceback."""
from __future__ import annotations

import importlib
import importlib.util

import pytest

from scripts.quality import needs

MODULES = ["bench", "bench_forward", "bench_training", "bench_computation", "bench_distribution", "bench_real", "bench_peers"]


@pytest.fixture
def without(monkeypatch):
    """Hide packages from the needs check, as on a machine where `make site` installed only the site's."""
    def hide(*names):
        real = importlib.util.find_spec
        monkeypatch.setattr(needs.importlib.util, "find_spec", lambda n, *a: None if n in names else real(n, *a))
    return hide


@pytest.mark.parametrize("name", MODULES)
def test_a_missing_package_is_one_line_and_exit_2(name, without, monkeypatch, capsys):
    without("torch", "playwright")
    monkeypatch.setattr("sys.argv", [name])
    mod = importlib.import_module(f"scripts.quality.{name}")
    with pytest.raises(SystemExit) as exc:
        mod.main()
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"{name}: the Python package ")
    assert "make pipeline-deps" in err or "make deps" in err


def test_a_missing_site_names_make_site(tmp_path, monkeypatch):
    monkeypatch.setattr(needs, "ROOT", tmp_path)
    assert needs.missing(site_page="training.html") == "build/site/training.html not found: run `make site` first"


def test_a_missing_chromium_names_the_command(monkeypatch):
    monkeypatch.setattr(needs, "chromium_path", lambda: None)
    why = needs.missing(chromium=True)
    assert "sudo apt-get install chromium" in why and "NEXTTOKEN_CHROMIUM" in why


def test_nothing_missing_is_none():
    assert needs.missing(modules=("json",)) is None
