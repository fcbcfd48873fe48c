"""The demo manifest (scripts/site/demos.py): a page's scripts come from what each script declares,
in dependency order, and a need that no script provides fails naming the page and the script."""
from __future__ import annotations

from pathlib import Path

import pytest

from scripts.site import demos


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    docs = tmp_path / "docs"
    for path, needs in files.items():
        f = docs / path
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(f'// a script\nnexttoken.define("{demos.name_of(path)}", [{needs}], function () {{ return {{}}; }});\n')
    return docs


def test_scripts_come_after_what_they_need(tmp_path):
    docs = _tree(tmp_path, {
        "js/demos/one.js": '"ui", "runtime.model", "later:data.big"',
        "js/ui.js": '"runtime.tokenizer", "store"',
        "js/runtime/model.js": '"runtime.kernels"',
        "js/runtime/kernels.js": "",
        "js/runtime/tokenizer.js": "",
        "js/data/big.js": '"runtime.kernels"',
        "js/demos/unused.js": '"runtime.tokenizer"',
    })
    order = demos.plan("docs/p.md", ["one"], demos.scan(docs)).scripts
    assert order[0] == demos.BOOTSTRAP
    assert set(order) == {demos.BOOTSTRAP, "js/demos/one.js", "js/ui.js", "js/runtime/model.js",
                          "js/runtime/kernels.js", "js/runtime/tokenizer.js"}  # data/big.js loads later
    for path, needs in [("js/demos/one.js", ["js/ui.js", "js/runtime/model.js"]),
                        ("js/ui.js", ["js/runtime/tokenizer.js"]), ("js/runtime/model.js", ["js/runtime/kernels.js"])]:
        assert all(order.index(n) < order.index(path) for n in needs), (path, order)


def test_a_later_demo_leaves_its_own_scripts_to_its_container(tmp_path):
    docs = _tree(tmp_path, {
        "js/demos/near.js": '"ui", "runtime.model"',
        "js/demos/far.js": '"ui", "runtime.model", "runtime.big"',
        "js/demos/farther.js": '"runtime.big", "runtime.extra"',
        "js/ui.js": '"load"',
        "js/runtime/model.js": "",
        "js/runtime/big.js": '"runtime.model"',
        "js/runtime/extra.js": "",
    })
    got = demos.plan("docs/p.md", ["near", "later:far", "later:farther"], demos.scan(docs))
    assert got.scripts == [demos.BOOTSTRAP, "js/ui.js", "js/runtime/model.js", "js/demos/near.js"]
    # each list whole and in order (what is on the page already left out), whichever container loads first
    assert got.later == {"far": ["runtime.big", "demos.far"], "farther": ["runtime.big", "runtime.extra", "demos.farther"]}
    marked = demos.mark_later('<div data-demo="near"></div><div data-demo="far"></div>', got.later)
    assert marked == '<div data-demo="near"></div><div data-demo="far" data-later="runtime.big demos.far"></div>'
    # a page whose demos are all later still carries the loader
    only = demos.plan("docs/p.md", ["later:farther"], demos.scan(docs))
    assert only.scripts == [demos.BOOTSTRAP, "js/ui.js"]
    assert only.later == {"farther": ["runtime.model", "runtime.big", "runtime.extra", "demos.farther"]}
    demos.check_containers("docs/p.md", ["later:far"], '<div class="nt-demo" data-demo="far">')


def test_a_planted_missing_dependency_names_page_and_script(tmp_path):
    docs = _tree(tmp_path, {"js/demos/one.js": '"ui"', "js/ui.js": '"runtime.missing"'})
    with pytest.raises(demos.ManifestError) as e:
        demos.plan("docs/p.md", ["one"], demos.scan(docs)).scripts
    assert "docs/p.md" in str(e.value) and "js/ui.js" in str(e.value) and "runtime.missing" in str(e.value)


@pytest.mark.parametrize("files, demo, words", [
    ({"js/demos/one.js": '"later:data.none"'}, "one", ["js/demos/one.js", "later:data.none"]),
    ({"js/demos/one.js": '"later:data.none-*"'}, "one", ["js/demos/one.js", "later:data.none-*"]),
    ({"js/demos/one.js": ""}, "two", ["front matter", "demos.two"]),
    ({"js/demos/one.js": '"ui"', "js/ui.js": '"demos.one"'}, "one", ["circle", "demos.one -> ui -> demos.one"]),
])
def test_unmet_needs_fail(tmp_path, files, demo, words):
    docs = _tree(tmp_path, files)
    with pytest.raises(demos.ManifestError) as e:
        demos.plan("docs/p.md", [demo], demos.scan(docs)).scripts
    assert all(w in str(e.value) for w in words), str(e.value)


def test_a_script_names_itself_by_its_path(tmp_path):
    f = tmp_path / "docs" / "js" / "runtime" / "model.js"
    f.parent.mkdir(parents=True)
    f.write_text('nexttoken.define("runtime.modle", [], function () {});')
    with pytest.raises(demos.ManifestError, match="js/runtime/model.js: defines \"runtime.modle\""):
        demos.scan(tmp_path / "docs")
    f.write_text("window.X = 1;")
    with pytest.raises(demos.ManifestError, match="js/runtime/model.js: expected one nexttoken.define"):
        demos.scan(tmp_path / "docs")


def test_containers_and_listed_demos_agree():
    demos.check_containers("docs/p.md", ["one"], '<div class="nt-demo" data-demo="one">')
    with pytest.raises(demos.ManifestError, match="data-demo \"two\""):
        demos.check_containers("docs/p.md", ["one"], '<div data-demo="one"></div><div data-demo="two"></div>')
    with pytest.raises(demos.ManifestError, match="lists \"one\""):
        demos.check_containers("docs/p.md", ["one"], "no demo here")


def test_the_built_scripts_lose_only_whole_line_comments():
    src = ('// why this file exists\n'
           'var SVG = "http://www.w3.org/2000/svg";  // the namespace\n'
           '  // an indented note\n'
           'var url = "a//b";\n')
    out = demos.blank_comments(src)
    assert out.splitlines() == ["", 'var SVG = "http://www.w3.org/2000/svg";  // the namespace', "", 'var url = "a//b";']
    assert out.count("\n") == src.count("\n")  # line numbers unchanged


def test_the_build_hook_fails_naming_page_and_script(tmp_path):
    """The MkDocs hook (scripts/site/hooks/demos.py) as the build calls it, on a planted missing need."""
    from types import SimpleNamespace

    from mkdocs.exceptions import PluginError

    from scripts.site.hooks import demos as hook

    docs = _tree(tmp_path, {"js/demos/one.js": '"ui"', "js/ui.js": '"runtime.kernels", "runtime.gone"',
                            "js/runtime/kernels.js": ""})
    page = SimpleNamespace(meta={"demos": ["one"]}, file=SimpleNamespace(src_uri="p.md"))
    hook.on_pre_build({"docs_dir": str(docs)})
    with pytest.raises(PluginError) as e:
        hook.on_page_markdown('<div class="nt-demo" data-demo="one"></div>', page, {}, None)
    assert "docs/p.md" in str(e.value) and "js/ui.js" in str(e.value) and "runtime.gone" in str(e.value)
    (docs / "js" / "runtime" / "gone.js").write_text('nexttoken.define("runtime.gone", [], function () {});')
    hook.on_pre_build({"docs_dir": str(docs)})
    hook.on_page_markdown('<div class="nt-demo" data-demo="one"></div>', page, {}, None)
    assert page.meta["nt_scripts"][-1] == "js/demos/one.js" and "js/runtime/gone.js" in page.meta["nt_scripts"]
    page = SimpleNamespace(meta={"scripts": ["js/ui.js"]}, file=SimpleNamespace(src_uri="q.md"))
    with pytest.raises(PluginError, match="docs/q.md: front matter lists scripts: by hand"):
        hook.on_page_markdown("", page, {}, None)
