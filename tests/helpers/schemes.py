"""A page in the light or the dark colour scheme, as a reader's system asks for it."""
from __future__ import annotations


def in_scheme(page, scheme: str):
    """Reload with prefers-color-scheme emulated and no stored palette: Material follows it (demos need not be ready)."""
    page.add_init_script("localStorage.clear()")
    page.emulate_media(color_scheme=scheme)
    page.reload(wait_until="load")
    want = "slate" if scheme == "dark" else "default"
    page.wait_for_function("w => document.body.getAttribute('data-md-color-scheme') === w", arg=want, timeout=5000)
    # the reload ran the read-through again (open_page's init script): let it end, so its scrolling to the
    # demos below (and the map it shows there) is over before the test acts on the page
    page.wait_for_function("() => window.__ntReadThrough !== false", timeout=60_000)
