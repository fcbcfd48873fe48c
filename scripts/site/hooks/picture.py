"""MkDocs hook: the map of the whole pass (scripts/site/pass_diagram.py), drawn from the tiny model's config,
given to the theme's templates as `nt_pass_side(page)` and `nt_pass_phone(page)` (overrides/main.html).

It also lets the map follow the demos: each demo container gets `data-pass-parts` (what the demo shows,
pass_diagram.DEMO_PARTS, unless the page wrote its own), and every page with a demo loads the lighting
script (docs/js/ui/lighting.js), which lights those parts while the demo is on screen. A page whose demos use
the tiny model (it loads js/runtime/active.js) also loads docs/js/ui/pass-sizes.js, which writes the active
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

from scripts.site.pass_diagram import demo_parts, phone_nav, side_nav  # noqa: E402

CONFIG = ROOT / "site_data" / "tiny" / "config.json"
LIGHTING = "js/ui/lighting.js"
SIZES = "js/ui/pass-sizes.js"
ACTIVE = "js/runtime/active.js"
CONTAINER = re.compile(r'<div\b[^>]*\bdata-demo="([a-z0-9-]+)"[^>]*>')


def _model() -> dict:
    try:
        return json.loads(CONFIG.read_text(encoding="utf-8"))["model"]
    except (OSError, ValueError, KeyError) as exc:
        raise PluginError(f"picture hook: cannot read the model's sizes from {CONFIG.relative_to(ROOT)} ({exc})") from None


def _src(page) -> str:
    return page.file.src_uri if page is not None and page.file else ""


def with_parts(html: str, model: dict) -> str:
    """Each demo container's opening tag with `data-pass-parts`, where the page gave none."""
    def add(m: re.Match) -> str:
        tag, said = m.group(0), demo_parts(model, m.group(1))
        if said is None or "data-pass-parts=" in tag:
            return tag
        return tag[:-1] + f' data-pass-parts="{said}">'
    return CONTAINER.sub(add, html)


def on_env(env, config, files, **kwargs):
    model = _model()
    env.globals["nt_pass_side"] = lambda page: Markup(side_nav(model, _src(page)))
    env.globals["nt_pass_phone"] = lambda page: Markup(phone_nav(model, _src(page)))
    return env


def on_page_content(html, page, config, files, **kwargs):
    try:
        return with_parts(html, _model())
    except ValueError as exc:
        raise PluginError(f"picture hook: docs/{_src(page)}: {exc}") from None


def on_page_context(context, page, config, nav, **kwargs):
    scripts = page.meta.get("nt_scripts") or []
    if scripts and LIGHTING not in scripts:  # after the bootstrap; it needs nothing else
        scripts = scripts + [LIGHTING]
    if ACTIVE in scripts and SIZES not in scripts:  # after active.js, which publishes the sizes
        scripts = scripts + [SIZES]
    if scripts:
        page.meta["nt_scripts"] = scripts
    return context
