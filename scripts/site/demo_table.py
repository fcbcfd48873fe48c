"""The site's table of demos, read from the pages themselves, so that it cannot leave one out.

Each `<div class="nt-demo" data-demo="NAME">` in a page's source is a demo; its name in the table is
the nearest heading above it (without a "Demo: " or "Experiment: " lead and without its attribute
list), and its page comes in the order of mkdocs.yml's nav. Headings may hold [[ ]] expressions over
the page's own variables, so `render` fills the whole page first (the numbers hook passes its Jinja2
renderer, with an empty table of demos for the page that prints it).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import yaml

DEMO = re.compile(r'<div class="nt-demo" data-demo="([a-z0-9-]+)"')
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(\{[^}]*\})?\s*$")
LEAD = re.compile(r"^(Demo|Experiments?):\s*")


def nav_pages(mkdocs_yml: Path) -> list[tuple[str, str]]:
    """[(nav title, file name)] in nav order. mkdocs.yml holds !!python tags that safe_load refuses,
    so only its nav block is parsed."""
    text = mkdocs_yml.read_text(encoding="utf-8")
    block = re.search(r"^nav:\n((?:[ \t]+-.*\n)+)", text, re.M)
    if not block:
        raise ValueError(f"{mkdocs_yml.name}: no nav block")
    return [next(iter(item.items())) for item in yaml.safe_load(block.group(1))]


def page_demos(text: str) -> list[dict]:
    """[{demo, heading}] for each demo container in one page's rendered Markdown, in order."""
    out, heading = [], None
    for line in text.split("\n"):
        h = HEADING.match(line)
        if h and len(h.group(1)) >= 2:
            heading = LEAD.sub("", h.group(2).strip())
            if heading[1:2].islower():  # a table cell: "which rows are alike", but "GPT-2's tokenizer"
                heading = heading[0].lower() + heading[1:]
        for m in DEMO.finditer(line):
            out.append({"demo": m.group(1), "heading": heading})
    return out


def demo_table(docs: Path, mkdocs_yml: Path, render: Callable[[str, str], str] = lambda name, s: s) -> list[dict]:
    """[{page, title, demos: [{demo, heading}]}] for every page of the nav (pages without demos too);
    `render(name, text)` fills a page's expressions."""
    return [{"page": name, "title": title,
             "demos": page_demos(render(name, (docs / name).read_text(encoding="utf-8")))}
            for title, name in nav_pages(mkdocs_yml)]
