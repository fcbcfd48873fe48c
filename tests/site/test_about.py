"""Who made the site and where it lives: the citation's author and address come from mkdocs.yml (filled by the
Pages workflow, empty in a local build), a repository path links to the repository only when its address is
known, and the header's repository link never makes the theme fetch from api.github.com."""
from __future__ import annotations

import re
from pathlib import Path

from scripts.site.hooks import numbers
from scripts.site.provenance import AUTHOR, provenance

ROOT = Path(__file__).resolve().parents[2]


def test_the_citation_names_the_author_and_the_address_it_is_given_and_no_address_when_none():
    given = provenance(ROOT / "site_data", "A. Maintainer", "https://example.org/nexttoken/")
    assert "author       = {{A. Maintainer}}" in given["bibtex"]
    assert "url          = {https://example.org/nexttoken/}" in given["bibtex"]
    assert given["plain"].startswith("A. Maintainer. ") and given["plain"].endswith(" https://example.org/nexttoken/")
    local = provenance(ROOT / "site_data")
    assert f"author       = {{{{{AUTHOR}}}}}" in local["bibtex"] and "url" not in local["bibtex"]
    assert local["version"] == given["version"]  # the address is not part of the data's version


def test_a_repository_path_is_linked_only_when_the_repository_is_known():
    assert numbers.repo_file(None, "site_data/tiny/") == "`site_data/tiny/`"
    assert numbers.repo_file("https://github.com/o/r/", "site_data/tiny/") == "[`site_data/tiny/`](https://github.com/o/r/tree/main/site_data/tiny)"
    assert numbers.repo_file("https://github.com/o/r", "README.md") == "[`README.md`](https://github.com/o/r/blob/main/README.md)"


def test_site_context_reads_mkdocs_yml_and_the_workflow_fills_it():
    ctx = numbers.site_context({"site_author": "X", "site_url": None, "repo_url": "https://github.com/o/r"})
    assert ctx["site"] == {"author": "X", "site_url": None, "repo_url": "https://github.com/o/r"}
    assert "url          = {https://github.com/o/r}" in ctx["cite"]["bibtex"]
    yml = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^site_url: !ENV \[NEXTTOKEN_SITE_URL, null\]$", yml, re.M)
    assert re.search(r"^repo_url: !ENV \[NEXTTOKEN_REPO_URL, null\]$", yml, re.M)
    workflow = (ROOT / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8")
    assert "NEXTTOKEN_REPO_URL: ${{ github.server_url }}/${{ github.repository }}" in workflow
    assert "NEXTTOKEN_SITE_URL: ${{ steps.pages.outputs.base_url }}" in workflow
    assert workflow.index("id: pages") < workflow.index("run: make site")  # the Pages URL is known before the build


def test_the_header_link_to_the_repository_is_not_a_theme_component_that_fetches_its_stars():
    partial = (ROOT / "overrides" / "partials" / "source.html").read_text(encoding="utf-8")
    tag = re.search(r"<a [^>]*>", partial).group(0)
    assert 'href="{{ config.repo_url }}"' in tag and "data-md-component" not in tag
