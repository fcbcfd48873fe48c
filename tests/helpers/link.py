"""Waiting for a demo's link (docs/js/ui/permalink.js): a demo writes its state into the page's address with
history.replaceState 300 ms after the last input, change, click or keyup inside its live part. A page opened
with WATCH_LINK as an init script records the time and demo of each such event and each replaceState, so
`link_written` waits for exactly that write instead of sleeping past it."""
from __future__ import annotations

WATCH_LINK = """(() => {
  const rec = window.__ntLink = { event: null, writes: [] };
  const replace = History.prototype.replaceState;
  history.replaceState = function () {
    const out = replace.apply(this, arguments);
    rec.writes.push({ t: performance.now(), hash: location.hash });
    return out;
  };
  // the events permalink.js listens for on a demo's .nt-live (capture: seen before the demo's own listener)
  ['input', 'change', 'click', 'keyup'].forEach(type => document.addEventListener(type, e => {
    const live = e.target && e.target.closest ? e.target.closest('.nt-live') : null;
    const root = live && live.closest('.nt-demo');
    if (root) rec.event = { t: performance.now(), demo: root.getAttribute('data-demo') };
  }, true));
})()"""

# no write pending: no input yet, or a write after the last one by the demo it was in (another demo's pending
# write may land first)
_WRITTEN = """() => {
  const r = window.__ntLink, e = r.event;
  return !e || r.writes.some(w => w.t >= e.t && new RegExp('[#&]d=' + e.demo + '(&|$)').test(w.hash));
}"""


def link_written(page, timeout: float = 10_000) -> None:
    """Until no link write is pending (a page opened with WATCH_LINK): the demo last acted on has written its
    link after that action; at once if nothing was acted on (an action that changed nothing, such as checking a
    checked box, fires no event, so nothing is written)."""
    page.wait_for_function(_WRITTEN, timeout=timeout)
