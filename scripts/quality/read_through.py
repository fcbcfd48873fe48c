"""A reader scrolling down the page: demos build only when they near the screen (docs/js/ui.js `start`),
so a browser check that looks at every demo first brings each into view, in page order, until it has
built, then goes back to where the page was. Installed as an init script, it runs after every load of
the page (reloads and moves to other pages included); `window.__ntReadThrough` is true when it is done.

    page.add_init_script(READ_THROUGH)           # or context.add_init_script
    page.wait_for_function(DONE)
"""
from __future__ import annotations

READ_THROUGH = """
(() => {
  if (window.top !== window) return;
  window.__ntReadThrough = false;
  addEventListener("load", async () => {
    const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
    const x = scrollX, y = scrollY;
    for (const d of document.querySelectorAll(".nt-demo")) {
      if (d.hasAttribute("data-ready")) continue;
      const until = performance.now() + 5000;  // a demo that fails keeps its fallback and says so
      // scrolled again each frame: after a reload the browser restores the old position once loaded
      while (!d.hasAttribute("data-ready") && !d.querySelector(".nt-error") && performance.now() < until) {
        d.scrollIntoView({block: "center", behavior: "instant"});
        await frame();
      }
    }
    scrollTo({left: x, top: y, behavior: "instant"});
    await frame();
    window.__ntReadThrough = true;
  });
})();
"""
DONE = "() => window.__ntReadThrough === true"
