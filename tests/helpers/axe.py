"""axe-core in a Playwright page, as the browser tests run it: injected once from node_modules, each
violation as one line (rule, impact and the first few elements it names)."""
from __future__ import annotations

from pathlib import Path

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
# Every finite animation (a row's flash, a fade) is let run to its end first: colours measured mid-flash
# made the contrast check depend on timing. Endless ones (a spinner) are not waited for.
RUN = """async ([within]) => {
  await Promise.all(document.getAnimations()
    .filter((a) => a.playState === "running" && Number.isFinite(a.effect.getComputedTiming().endTime))
    .map((a) => a.finished.catch(() => null)));
  return axe.run(within ? document.querySelector(within) : document, {resultTypes: ['violations']});
}"""


def violations(page, within: str | None = None) -> list[str]:
    """axe's violations on the page (or inside the element `within` selects), one line each."""
    if not page.evaluate("() => !!window.axe"):
        page.add_script_tag(path=str(AXE))
    res = page.evaluate(RUN, [within])
    return [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:4]}" for v in res["violations"]]
