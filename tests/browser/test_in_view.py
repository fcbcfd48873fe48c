"""Every control's answer where the reader is looking (issue 43 item 1): on every page with demos, at 1280x800
and at 360x740, each control of each demo is brought to the middle of the screen and pressed as a reader
would (a click, a slider's next step, a select's next option, Enter in a text box), and the answer must start
on screen, at least partly inside the window under the header. A result drawn a screen away from its
control, or an explanation opened below the fold, fails.

What "changed" means is read from the page, not listed here: before and after the press, every element of the
demo is noted by its place, own text, style, drawing attributes and classes; an element whose note changed,
or a new one that draws something new, is part of the answer (a redraw of the same thing is not). The answer
starts at the first content the press changed (text, a drawing, a new element), top-most; or, where that lies
off screen, at a highlight it changed (classes alone: a row picked in a chart, the chart being the answer).
The cells an explanation lights are not its answer (the opened explanation is), nor is the control's own
field (a slider's value beside it), nor a form field the press re-set. A text box's answer is awaited a
little longer (demos wait for the reader to stop typing).

One page load per page and size. Motion is reduced (the theme's and the demos' animations stop), so a
result scrolled into view is there at once. Controls not pressed: loading the real model, the panel's Load or
an experiment's (their own tests load it once, tests/browser/test_real_ask_live.py and
test_real_experiments_live.py; a load under way here would change what the later presses answer), training
(tests/browser/test_train_sized.py), a file picker; a control repeated many times over (a number that opens,
a cell of a heat map) is pressed for its first two of each kind in a demo. Sizes come from the layout, never from a font's metrics: the checks read
positions only."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(p.name.replace(".md", ".html") for p in (ROOT / "docs").glob("*.md")
               if re.search(r"^demos:", p.read_text(encoding="utf-8").split("---")[1], re.M))
SIZES = [(1280, 800), (360, 740)]
SKIP = "[data-role=ask-load], [data-role=lab-load], [data-role=train], input[type=file]"
SEEN = 24  # px of an answer that must show inside the window (a line of text)

# Presses every control of every built demo on the page, in order, and reports where its answer is.
PRESS_ALL = """async ({skip, wait}) => {
  const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const AWAY = ".md-sidebar, .md-header, .md-top, .nt-map-phone, .md-footer";
  const visible = e => {
    if (!e || !e.isConnected || e.closest(AWAY) || e.closest(".nt-sr, [hidden]")) return false;
    const r = e.getBoundingClientRect();
    return r.width > 1 && r.height > 1 && (!e.checkVisibility || e.checkVisibility({ visibilityProperty: true }));
  };
  const label = c => (c.getAttribute("aria-label") || (c.labels && c.labels[0] && c.labels[0].textContent) ||
    c.textContent || c.getAttribute("data-role") || c.type || c.tagName).trim().replace(/\\s+/g, " ").slice(0, 60);
  // the window the reader sees: under the header and anything stuck to it
  const band = () => {
    let top = document.querySelector(".md-header").getBoundingClientRect().bottom;
    for (const s of document.querySelectorAll(".nt-map-phone")) {
      const r = s.getBoundingClientRect();
      if (getComputedStyle(s).position !== "static" && r.height && r.top <= top + 1) top = Math.max(top, r.bottom);
    }
    return [top, innerHeight];
  };
  // What the reader sees of a demo, element by element: own text, classes, style, drawing attributes.
  // (the classes kept apart: a change of classes alone is a highlight)
  const ATTRS = ["style", "hidden", "d", "x", "y", "width", "height", "points", "transform", "cx", "cy", "r", "fill", "open"];
  const snap = root => {
    const m = new Map();
    const walk = (el, path) => {
      let own = "";
      for (const n of el.childNodes) if (n.nodeType === 3) own += n.data;
      let v = el.tagName + "|" + own + "|" + ATTRS.map(a => el.getAttribute(a) || "").join("|");
      if (el.tagName === "CANVAS") { try { const d = el.toDataURL(); v += d.length + d.slice(-64); } catch (e) { /* tainted */ } }
      v += "|" + (el.getAttribute("class") || "").replace(/\\bnt-x-(used|lit)\\b/g, "");
      m.set(path, [v, el]);
      m.set(el, v);
      let i = 0;
      for (const ch of el.children) walk(ch, path + "/" + (i++));
    };
    walk(root, "");
    return m;
  };
  const box = e => { const r = e.getBoundingClientRect(); return { top: Math.round(r.top), bottom: Math.round(r.bottom) }; };
  // the short timers the page sets (a demo waiting for the reader to stop typing) and the scripts it loads (a
  // stored prompt's data), to wait for their answer. Not awaited: a timer that only writes the page's link
  // (docs/js/ui/permalink.js, 300 ms after each press), which draws nothing; waiting for it made every press
  // of the suite take 0.3 s.
  const URL_ONLY = /^function\s*\(\)\s*\{\s*try\s*\{\s*history\.replaceState\([^;{}]*\);?\s*\}\s*catch\s*\(\w+\)\s*\{[^{}]*\}\s*\}$/;
  const timers = new Set(), setT = window.setTimeout, clearT = window.clearTimeout;
  window.setTimeout = function (fn, ms, ...rest) {
    const id = setT.call(window, (...a) => { timers.delete(id); if (typeof fn === "function") fn(...a); }, ms, ...rest);
    if ((ms || 0) <= 1000 && !(typeof fn === "function" && URL_ONLY.test(String(fn)))) timers.add(id);
    return id;
  };
  window.clearTimeout = id => { timers.delete(id); clearT.call(window, id); };
  const out = [];
  for (const demo of document.querySelectorAll(".nt-demo[data-ready]")) {
    const name = demo.getAttribute("data-demo");
    const kinds = new Map(), done = new Set();
    // the next control not yet pressed (a press may bring new ones: Load's slider); a control repeated many
    // times over stands for the rest after its first two
    const next = () => [...demo.querySelectorAll("button, input, select, textarea")].find(c => {
      if (done.has(c) || c.matches(skip) || c.closest(AWAY) || !visible(c) || c.disabled) return false;
      done.add(c);
      const k = c.tagName + c.type + c.className + "|" + (c.parentElement && c.parentElement.className);
      kinds.set(k, (kinds.get(k) || 0) + 1);
      return kinds.get(k) <= 2;
    });
    for (let c = next(); c; c = next()) {
      const said = label(c);
      c.scrollIntoView({ block: "center", behavior: "instant" });
      await frame();
      const before = snap(demo);
      let ticks = 0;
      const mo = new MutationObserver(recs => {
        ticks += recs.length;
        for (const r of recs) for (const n of r.addedNodes) {  // a script the press asked for: its answer follows its load
          if (n.tagName !== "SCRIPT" || !n.src) continue;
          timers.add(n);
          const done = () => timers.delete(n);
          n.addEventListener("load", done);
          n.addEventListener("error", done);
        }
      });
      mo.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
      const field = c.closest(".nt-field, label, .nt-radio") || c;
      if (c.type === "range") {
        const v = Number(c.value), step = Number(c.step) || 1;
        c.value = String(v + step <= Number(c.max) ? v + step : v - step);
        c.dispatchEvent(new Event("input", { bubbles: true }));
        c.dispatchEvent(new Event("change", { bubbles: true }));
      } else if (c.tagName === "SELECT") {
        c.selectedIndex = (c.selectedIndex + 1) % c.options.length;
        c.dispatchEvent(new Event("change", { bubbles: true }));
      } else if (c.type === "number") {
        c.value = String(Number(c.value) + 1);
        c.dispatchEvent(new Event("input", { bubbles: true }));
        c.dispatchEvent(new Event("change", { bubbles: true }));
      } else if (c.tagName === "TEXTAREA" || c.type === "text") {
        c.focus();
        c.dispatchEvent(new Event("input", { bubbles: true }));
        c.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
      } else c.click();
      // until the page has been still for a few frames and no short timer the press set is pending (an
      // answer may come a few frames on, or once the reader stops typing)
      const t0 = performance.now();
      let n = -1, still = 0;
      while (performance.now() - t0 < wait) {
        await frame();
        if (ticks === n) { if (++still >= 4 && !timers.size) break; } else { still = 0; n = ticks; }
      }
      mo.disconnect();
      const after = snap(demo), changed = [], lit = [];
      const look = v => v.slice(0, v.lastIndexOf("|"));  // without the classes
      for (const [k, v] of after) {
        if (typeof k !== "string") continue;
        const [sig, el] = v;  // kept: its look changed; new: unless it redraws what stood in its place
        if (before.has(el)) {
          if (before.get(el) !== sig) (look(before.get(el)) !== look(sig) ? changed : lit).push(el);
        } else if (!(before.has(k) && before.get(k)[0] === sig)) changed.push(el);
      }
      const answer = list => list.filter(e => e !== c && !field.contains(e) && !e.contains(c) && visible(e) &&
        !(before.has(e) && e.matches("input, select, textarea")));
      const top = list => list.reduce((a, e) => (a === null || box(e).top < box(a).top ? e : a), null);
      const first = top(answer(changed)), lights = top(answer(lit));
      if (!first && !lights) { out.push({ demo: name, control: said }); continue; }
      const what = e => e && e.tagName.toLowerCase() + "." + (e.getAttribute("class") || "").trim().split(/\\s+/).join(".");
      out.push({ demo: name, control: said, band: band(), first: first && box(first), firstIs: what(first),
                 lit: lights && box(lights), litIs: what(lights) });
    }
  }
  window.setTimeout = setT;
  window.clearTimeout = clearT;
  return out;
}"""


def shows(b: dict, band: list[float]) -> bool:
    """At least a line of it (or all of it, if smaller) inside the window."""
    inside = min(b["bottom"], band[1]) - max(b["top"], band[0])
    return inside >= min(SEEN, b["bottom"] - b["top"] - 1)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", PAGES)
def test_every_controls_answer_starts_on_screen(open_page, name, size):
    page = open_page(name, width=size[0], height=size[1])
    page.emulate_media(reduced_motion="reduce")
    pressed = page.evaluate(PRESS_ALL, {"skip": SKIP, "wait": 900})
    answered = [p for p in pressed if "band" in p]
    assert answered, f"{name}: no control answered anything"
    at = lambda p, k: f"{p[k + 'Is']} at {p[k]['top']}..{p[k]['bottom']}" if p[k] else "nothing"
    away = [f"{p['demo']}: “{p['control']}” → {at(p, 'first')}, highlight: {at(p, 'lit')} (window {p['band'][0]:.0f}..{p['band'][1]})"
            for p in answered if not any(p[k] and shows(p[k], p["band"]) for k in ("first", "lit"))]
    page.evaluate("() => localStorage.clear()")  # nothing a press kept is left to the next test
    assert away == [], f"{name} at {size[0]}x{size[1]}: answers off screen:\n" + "\n".join(away)
    assert page.nt_problems == [], "\n".join(page.nt_problems)
