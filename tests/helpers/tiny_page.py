"""What the browser tests of the tiny model's demos share: opening a demo, forgetting the reader's
model, and checking that a page recorded no problem (conftest's `page.nt_problems`)."""
from __future__ import annotations

# The localStorage key under which js/runtime/active.js keeps the reader's model.
KEY = "nexttoken.yourModel.v1"


def demo(page, name):
    """The first demo of that name on the page, once it has started (demos build as they near the view)."""
    root = page.locator(f'.nt-demo[data-demo="{name}"]').first
    root.scroll_into_view_if_needed()
    root.locator(".nt-live").first.wait_for(state="visible", timeout=5000)
    return root


def forget(page):
    """Back to the built model: the reader's model removed, the page reloaded."""
    page.evaluate("localStorage.clear()")
    page.reload(wait_until="load")


def clean(page):
    assert page.nt_problems == [], "\n".join(page.nt_problems)


def use_yours(page, on=True):
    """Switch this page's demos to the reader's model (or back): the switch under the title reloads the page."""
    was, now = ("built", "yours") if on else ("yours", "built")
    box = page.locator(f'.nt-model-switch[data-active-model="{was}"] input[data-role=use-yours]')
    assert box.is_checked() is (not on)
    with page.expect_navigation(wait_until="load"):
        box.click()  # not check(): the page reloads, so the box it clicked is gone when check() would look
    page.locator(f'.nt-model-switch[data-active-model="{now}"]').wait_for()
