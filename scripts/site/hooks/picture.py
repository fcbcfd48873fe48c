"""MkDocs hook: the map of the whole pass (scripts/site/pass_diagram.py), drawn from the tiny model's config,
given to the theme's templates as `nt_pass_side(page)` and `nt_pass_phone(page)` (overrides/main.html)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from markupsafe import Markup
from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:  # MkDocs loads hooks by path: make `scripts` importable from anywhere
    sys.path.insert(0, str(ROOT))

from scripts.site.pass_diagram import phone_nav, side_nav  # noqa: E402

CONFIG = ROOT / "site_data" / "tiny" / "config.json"


def _model() -> dict:
    try:
        return json.loads(CONFIG.read_text(encoding="utf-8"))["model"]
    except (OSError, ValueError, KeyError) as exc:
        raise PluginError(f"picture hook: cannot read the model's sizes from {CONFIG.relative_to(ROOT)} ({exc})") from None


def _src(page) -> str:
    return page.file.src_uri if page is not None and page.file else ""


def on_env(env, config, files, **kwargs):
    model = _model()
    env.globals["nt_pass_side"] = lambda page: Markup(side_nav(model, _src(page)))
    env.globals["nt_pass_phone"] = lambda page: Markup(phone_nav(model, _src(page)))
    return env
