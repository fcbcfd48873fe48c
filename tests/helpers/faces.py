"""Waiting for the site's own faces in a page."""
from __future__ import annotations


def faces_loaded(page) -> None:
    """Once the page has switched our faces on (after its first paint: scripts/site/hooks/share.py), until
    every face its text uses has loaded. A layout first: a face starts loading when text needs it."""
    page.wait_for_function("() => document.documentElement.hasAttribute('data-nt-faces')", timeout=30_000)
    page.evaluate("() => { document.body.offsetWidth; return document.fonts.ready.then(() => true); }")
