"""MkDocs hook: the map of the whole pass (scripts/site/pass_map.py), drawn from the config of the model
on show, given to the theme's templates as `nt_map_side(page)` and `nt_map_phone(page)` (overrides/main.html).

A page shows the map of each model its demos run (pass_map.shape_of_demo), in the order the demos come: the
tiny model's, SmolLM2's (its own shape, from the real-model stage's record of its config) or GPT-2 small's
(beside GPT-2's tokenizer). The first is shown; docs/js/ui/pass-map.js shows the one of the demo on screen,
so the map beside a demo always names that demo's model. The front matter's `map:` can say `none` (no map: a
page with no pass on show, and the default for a page without demos) or name the map of a page whose
demos name none (`tiny` by default).

It also lets the map follow the demos: each demo container gets `data-pass-parts` (what the demo shows,
pass_map.DEMO_PARTS, unless the page wrote its own) and `data-pass-model` (the map it lights), and every page
with a map loads the map's script (docs/js/ui/pass-map.js), which lights those parts while the demo is on
screen. A page whose demos use the tiny model (it loads js/runtime/active.js) also loads
docs/js/ui/pass-map-sizes.js, which writes the active model's sizes into the map, so a reader's model is drawn
with its own vocabulary and context."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from markupsafe import Markup
from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:  # MkDocs loads hooks by path: make `scripts` importable from anywhere
    sys.path.insert(0, str(ROOT))

from scripts.core.io import SITE_DATA  # noqa: E402
from scripts.real.page_variables import load_real_models  # noqa: E402
from scripts.site.pass_map import SHAPES, demo_parts, phone_nav, shape_of_demo, side_nav  # noqa: E402

CONFIG = ROOT / "site_data" / "tiny" / "config.json"
MAPS = (*SHAPES, "none")
MAP = "js/ui/pass-map.js"
SIZES = "js/ui/pass-map-sizes.js"
ACTIVE = "js/runtime/active.js"
CONTAINER = re.compile(r'<div\b[^>]*\bdata-demo="([a-z0-9-]+)"[^>]*>')


def _model() -> dict:
    try:
        return json.loads(CONFIG.read_text(encoding="utf-8"))["model"]
    except (OSError, ValueError, KeyError) as exc:
        raise PluginError(f"pass map hook: cannot read the model's sizes from {CONFIG.relative_to(ROOT)} ({exc})") from None


def _real(name: str) -> dict:
    """A real model's config as site_data records it (SmolLM2's measured, GPT-2's published), counts written
    with thousands separators."""
    try:
        config = load_real_models(SITE_DATA)[name]["config"]
    except (OSError, ValueError, KeyError) as exc:
        raise PluginError(f"pass map hook: cannot read {name}'s config from site_data ({exc})") from None
    return {k: (f"{v['value']:,}" if isinstance(v["value"], int) else v["value"]) for k, v in config.items()}


def _src(page) -> str:
    return page.file.src_uri if page is not None and page.file else ""


def shape_of(page) -> str:
    """The page's front matter's `map:`, else the tiny model's where it has demos: `none`, or the map of a
    page whose demos name no model."""
    meta = (page.meta if page is not None else None) or {}
    said = meta.get("map", "tiny" if meta.get("demos") else "none")
    if said not in MAPS:
        raise PluginError(f"pass map hook: docs/{_src(page)}: map: {said!r} is not one of {', '.join(MAPS)}")
    return said


def shapes_of(page, html: str) -> list[str]:
    """The maps a page shows: one per model its demos run, in the order they come (none for `map: none`)."""
    said = shape_of(page)
    if said == "none":
        return []
    found = []
    for demo in CONTAINER.findall(html):
        shape = shape_of_demo(demo)
        if shape is not None and shape not in found:
            found.append(shape)
    return found or [said]


def _draw(draw, models: dict, page) -> Markup:
    shapes = ((page.meta if page is not None else None) or {}).get("nt_map_shapes") or []
    return Markup("".join(draw(models[shape], _src(page), shape, hidden=i > 0) for i, shape in enumerate(shapes)))


def with_parts(html: str, models: dict, shapes: list[str]) -> str:
    """Each demo container's opening tag with `data-pass-parts`, where the page gave none (what the demo shows
    in the map of its model), and `data-pass-model` (that map); nothing for a demo no map on the page draws."""
    def add(m: re.Match) -> str:
        tag, demo = m.group(0), m.group(1)
        shape = shape_of_demo(demo)
        if shape not in shapes:
            return tag
        extra = "" if "data-pass-parts=" in tag else f' data-pass-parts="{demo_parts(models[shape], demo, shape)}"'
        extra += "" if "data-pass-model=" in tag else f' data-pass-model="{shape}"'
        return tag[:-1] + extra + ">"
    return CONTAINER.sub(add, html)


def _models() -> dict:
    return {"tiny": _model(), "smollm2": _real("smollm2"), "gpt2": _real("gpt2")}


def on_env(env, config, files, **kwargs):
    models = _models()
    assert set(models) == set(SHAPES)
    env.globals["nt_map_side"] = lambda page: _draw(side_nav, models, page)
    env.globals["nt_map_phone"] = lambda page: _draw(phone_nav, models, page)
    return env


def on_page_content(html, page, config, files, **kwargs):
    shapes = shapes_of(page, html)
    page.meta["nt_map_shapes"] = shapes
    try:
        return with_parts(html, _models(), shapes)
    except ValueError as exc:
        raise PluginError(f"pass map hook: docs/{_src(page)}: {exc}") from None


def on_page_context(context, page, config, nav, **kwargs):
    scripts = page.meta.get("nt_scripts") or []
    if scripts and shape_of(page) != "none" and MAP not in scripts:  # after the bootstrap; it needs nothing else
        scripts = scripts + [MAP]
    if ACTIVE in scripts and SIZES not in scripts:  # after active.js, which publishes the sizes
        scripts = scripts + [SIZES]
    if scripts:
        page.meta["nt_scripts"] = scripts
    return context
