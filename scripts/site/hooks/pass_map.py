"""MkDocs hook: the map of the whole pass (scripts/site/pass_map.py), drawn from the config of the model
on show, given to the theme's templates as `nt_map_side(page)` and `nt_map_phone(page)` (overrides/main.html).

Which model a page shows is its front matter's `map:`: `tiny` (the tiny model's map, the default for a page
with demos), `smollm2` (SmolLM2's own shape, from the real-model stage's record of its config) or `none`
(no map: a page with no pass on show, and the default for a page without demos).

It also lets the map follow the demos: each demo container gets `data-pass-parts` (what the demo shows,
pass_map.DEMO_PARTS, unless the page wrote its own), and every page with a demo loads the map's script (docs/js/ui/pass-map.js), which lights those parts while the demo is on screen. A page whose demos use
the tiny model (it loads js/runtime/active.js) also loads docs/js/ui/pass-map-sizes.js, which writes the active
model's sizes into the map, so a reader's model is drawn with its own vocabulary and context."""
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
from scripts.site.pass_map import SHAPES, demo_parts, phone_nav, side_nav  # noqa: E402

CONFIG = ROOT / "site_data" / "tiny" / "config.json"
MAPS = ("tiny", "smollm2", "none")
MAP = "js/ui/pass-map.js"
BAR = "js/ui/pass-map-bar.js"
SIZES = "js/ui/pass-map-sizes.js"
ACTIVE = "js/runtime/active.js"
CONTAINER = re.compile(r'<div\b[^>]*\bdata-demo="([a-z0-9-]+)"[^>]*>')


def _model() -> dict:
    try:
        return json.loads(CONFIG.read_text(encoding="utf-8"))["model"]
    except (OSError, ValueError, KeyError) as exc:
        raise PluginError(f"pass map hook: cannot read the model's sizes from {CONFIG.relative_to(ROOT)} ({exc})") from None


def _smollm2() -> dict:
    """SmolLM2's config as recorded by the real-model stage, counts written with thousands separators."""
    try:
        config = load_real_models(SITE_DATA)["smollm2"]["config"]
    except (OSError, ValueError, KeyError) as exc:
        raise PluginError(f"pass map hook: cannot read SmolLM2's config from site_data ({exc})") from None
    return {k: (f"{v['value']:,}" if isinstance(v["value"], int) else v["value"]) for k, v in config.items()}


def _src(page) -> str:
    return page.file.src_uri if page is not None and page.file else ""


def shape_of(page) -> str:
    """The map a page shows: its front matter's `map:`, else the tiny model's where it has demos."""
    meta = (page.meta if page is not None else None) or {}
    said = meta.get("map", "tiny" if meta.get("demos") else "none")
    if said not in MAPS:
        raise PluginError(f"pass map hook: docs/{_src(page)}: map: {said!r} is not one of {', '.join(MAPS)}")
    return said


def _draw(draw, models: dict, page) -> Markup:
    shape = shape_of(page)
    return Markup("" if shape == "none" else draw(models[shape], _src(page), shape))


def with_parts(html: str, model: dict, shape: str = "tiny") -> str:
    """Each demo container's opening tag with `data-pass-parts`, where the page gave none: what the demo
    shows in the map of the page's model (nothing for a demo of the other model, or a page without a map)."""
    if shape == "none":
        return html

    def add(m: re.Match) -> str:
        tag, said = m.group(0), demo_parts(model, m.group(1), shape)
        if said is None or "data-pass-parts=" in tag:
            return tag
        return tag[:-1] + f' data-pass-parts="{said}">'
    return CONTAINER.sub(add, html)


def _models() -> dict:
    return {"tiny": _model(), "smollm2": _smollm2()}


def on_env(env, config, files, **kwargs):
    models = _models()
    assert set(models) == set(SHAPES)
    env.globals["nt_map_side"] = lambda page: _draw(side_nav, models, page)
    env.globals["nt_map_phone"] = lambda page: _draw(phone_nav, models, page)
    return env


def on_page_content(html, page, config, files, **kwargs):
    shape = shape_of(page)
    try:
        return with_parts(html, _models()[shape] if shape != "none" else {}, shape)
    except ValueError as exc:
        raise PluginError(f"pass map hook: docs/{_src(page)}: {exc}") from None


def on_page_context(context, page, config, nav, **kwargs):
    scripts = page.meta.get("nt_scripts") or []
    if scripts and shape_of(page) != "none":  # after the bootstrap; they need nothing else
        scripts = scripts + [s for s in (MAP, BAR) if s not in scripts]
    if ACTIVE in scripts and SIZES not in scripts:  # after active.js, which publishes the sizes
        scripts = scripts + [SIZES]
    if scripts:
        page.meta["nt_scripts"] = scripts
    return context
