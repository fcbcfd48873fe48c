// Shared pieces of the demos: DOM and SVG helpers (text only, never innerHTML), strips of cells,
// bars, chart ticks, labelled controls, messages, numbers that open to their
// arithmetic (the explanations of js/explain/), each demo's start, and loading the scripts of a demo
// the page defers.
nexttoken.define("ui", ["load"], function (load) {
  "use strict";

  // A text field's own bound, far above every demo's limit (runtime/prompts.js's MAX_CHARS), so a long
  // prompt gets the demo's message rather than a silent cut.
  var INPUT_MAX = 600;

  // el("div", {class: "x", "aria-live": "polite"}, [child, "text"]): text always via text nodes.
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v === null || v === undefined || v === false) return;
        if (k === "text") node.textContent = String(v);
        else if (k === "on") Object.keys(v).forEach(function (ev) { node.addEventListener(ev, v[ev]); });
        else node.setAttribute(k, v === true ? "" : String(v));
      });
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    });
    return node;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

  var SVGNS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs) {
    var n = document.createElementNS(SVGNS, tag);
    Object.keys(attrs || {}).forEach(function (k) { n.setAttribute(k, attrs[k]); });
    return n;
  }

  // Same rule as the pages' pct filter (scripts/site/hooks/numbers.py).
  function pct(p, digits) {
    digits = digits === undefined ? 1 : digits;
    var v = p * 100;
    var floor = Math.pow(10, -digits);
    if (v > 0 && v < floor) return "under " + floor + "%";
    if (v < 100 && Number(v.toFixed(digits)) >= 100) return "over " + Number((100 - floor).toFixed(digits)) + "%";
    return v.toFixed(digits) + "%";
  }

  // A whole number with thousands commas ("49,152"). Not toLocaleString: its first call starts the
  // browser's locale data, some 13 ms (50 on a throttled phone) in the task that first draws a demo.
  function count(n) { return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }

  // x to d decimals (2 unless given) with a real minus sign (U+2212), never "−0.00".
  function fix(x, d) {
    var t = Number(x).toFixed(d === undefined ? 2 : d);
    return Number(t) === 0 ? t.replace("-", "") : t.replace("-", "−");
  }

  // A vector as a strip of cells: orange positive, blue negative, opacity by size on the scale
  // opts.top (shared by quantities that are added, so wte + wpe = input can be checked by eye; see
  // legend()), else the strip's own largest |value|. The numbers are in the title (hover), the
  // aria-label and shown on focus. With opts.explain(i) -> make, each cell is a button that opens
  // its arithmetic (numberButton).
  function strip(values, label, opts) {
    opts = opts || {};
    var digits = opts.digits === undefined ? 2 : opts.digits;
    var top = opts.top || 0;
    if (!top) values.forEach(function (v) { top = Math.max(top, Math.abs(v)); });
    top = top || 1;
    var text = values.map(function (v) { return fix(v, digits); }).join(", ");
    var open = !!opts.explain;
    var s = el("span", open ? { class: "nt-strip nt-strip-open", role: "group", "aria-label": label } : {
      class: "nt-strip" + (opts.block ? " nt-strip-wrap" : ""), role: "img", tabindex: "0",
      "aria-label": label + ": " + text, "data-values": label + ": " + text
    });
    values.forEach(function (v, i) {
      var cls = "nt-cell " + (v >= 0 ? "nt-pos" : "nt-neg");
      var c = open ? numberButton(fix(v, digits), opts.explain(i), { cls: cls, label: label + ", cell " + i, hideText: true })
        : el("span", { class: cls, title: i + ": " + fix(v, digits) });
      if (open) c.title = i + ": " + fix(v, digits);
      c._v = v;  // the exact number: an opened line lights the cells holding the numbers it reads
      c.style.setProperty("--a", Math.min(1, Math.abs(v) / top).toFixed(3));
      s.appendChild(c);
    });
    return s;
  }

  // The colour key of strips drawn on one scale: -top (blue) .. 0 .. +top (orange).
  function legend(top, what) {
    return el("p", { class: "nt-legend" }, [
      el("span", { text: (what ? what + ": " : "") + "−" + fix(top, 1) }),
      el("span", { class: "nt-legend-ramp", "aria-hidden": "true" }),
      el("span", { text: "+" + fix(top, 1) }),
      el("span", { class: "nt-hint", text: " one scale for every strip here" })]);
  }

  function maxAbs(rows) {
    var top = 0;
    rows.forEach(function (r) { r.forEach(function (v) { top = Math.max(top, Math.abs(v)); }); });
    return top || 1;
  }

  function chip(text, sub, cls) {
    return el("span", { class: "nt-chip" + (cls ? " " + cls : "") }, [
      sub !== undefined && sub !== null ? el("span", { class: "nt-chip-id", text: sub }) : null,
      el("code", { text: text })
    ]);
  }

  // Horizontal bars: items [{label, value, text (string or node), cls, rowCls, data}]. Without
  // opts.axis, value is 0..1 of the track. With opts.axis = {lo, hi} (lo <= 0 <= hi), value is signed
  // and drawn from a zero line, with ticks under the bars. The list is one grid (subgrid rows), so
  // labels of any length (<|endoftext|>) keep the bars aligned.
  function bars(items, opts) {
    opts = opts || {};
    var ax = opts.axis, span = ax ? (ax.hi - ax.lo) || 1 : 1;
    var list = el("ol", { class: "nt-bars" + (ax ? " nt-bars-axis" : ""), "aria-label": opts.label || "bars" });
    if (ax) list.style.setProperty("--zero", ((0 - ax.lo) / span * 100).toFixed(2) + "%");
    items.forEach(function (it) {
      var fill = el("span", { class: "nt-bar-fill" + (it.cls ? " " + it.cls : "") + (ax && it.value < 0 ? " nt-bar-neg" : "") });
      if (ax) {
        fill.style.left = ((Math.min(0, it.value) - ax.lo) / span * 100).toFixed(2) + "%";
        fill.style.width = (Math.abs(it.value) / span * 100).toFixed(2) + "%";
      } else fill.style.width = (Math.max(0, Math.min(1, it.value)) * 100).toFixed(2) + "%";
      var li = el("li", { class: "nt-bar" + (it.rowCls ? " " + it.rowCls : "") }, [
        el("code", { class: "nt-bar-label", text: it.label }),
        el("span", { class: "nt-bar-track", "aria-hidden": "true" }, [fill]),
        typeof it.text === "object" ? el("span", { class: "nt-bar-value" }, [it.text]) : el("span", { class: "nt-bar-value", text: it.text })
      ]);
      if (it.data) Object.keys(it.data).forEach(function (k) { li.setAttribute("data-" + k, it.data[k]); });
      list.appendChild(li);
    });
    if (ax) {
      var ticks = el("span", { class: "nt-bar-ticks" });
      niceTicks(ax.lo, ax.hi).forEach(function (v) {
        var tk = el("span", { class: "nt-tick" + (v === 0 ? " nt-tick-zero" : ""), text: String(v).replace("-", "−") });
        tk.style.left = ((v - ax.lo) / span * 100).toFixed(2) + "%";
        ticks.appendChild(tk);
      });
      list.appendChild(el("li", { class: "nt-bar nt-bar-axis", "aria-hidden": "true" }, [el("span"), ticks, el("span", { class: "nt-hint", text: opts.axisLabel || "" })]));
    }
    return list;
  }

  // The tick step for a span: 1, 2 or 5 times a power of ten, the smallest that needs at most
  // `most` steps (so at most most + 1 ticks).
  function tickStep(span, most) {
    var raw = span / most || 1, p = Math.pow(10, Math.floor(Math.log10(raw))), step = p;
    [1, 2, 5, 10].some(function (m) { step = m * p; return m * p >= raw * (1 - 1e-9); });
    return step;
  }
  // Round tick values covering lo..hi, 0 always among them.
  function niceTicks(lo, hi) {
    var step = tickStep(hi - lo, 4), out = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(Number(v.toFixed(6)));
    return out;
  }

  // A button that cannot act says why, under its row (a disabled button takes no focus, so a title
  // alone would not reach keyboard or touch readers). why = "" enables it.
  function setDisabled(btn, why) {
    btn.disabled = !!why;
    var note = btn._why;
    if (!note) {
      note = btn._why = el("span", { class: "nt-why nt-hint", id: nextId("why") });
      btn.parentNode.appendChild(note);  // under the row of buttons, not between them
      btn.setAttribute("aria-describedby", note.id);
    }
    note.textContent = why || "";
    note.hidden = !why;
  }

  var uid = 0;
  function nextId(prefix) { uid += 1; return "nt-" + prefix + "-" + uid; }

  function field(labelText, input, hint) {
    var id = input.id || nextId("f");
    input.id = id;
    return el("div", { class: "nt-field" }, [
      el("label", { for: id, text: labelText }), input,
      hint ? el("span", { class: "nt-hint", text: hint }) : null
    ]);
  }

  function textInput(labelText, value, onChange, opts) {
    opts = opts || {};
    var input = el("input", {
      type: "text", value: value, spellcheck: "false", autocomplete: "off", autocapitalize: "off",
      maxlength: String(opts.maxLength || INPUT_MAX), class: "nt-input", "data-role": opts.role || "prompt"
    });
    var timer = null;
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { onChange(input.value); }, 150);
    });
    input.addEventListener("keydown", function (e) {
      if (e.key === "Enter") { e.preventDefault(); clearTimeout(timer); onChange(input.value); }
    });
    return { wrap: field(labelText, input, opts.hint), input: input };
  }

  function slider(labelText, min, max, step, value, onInput, format) {
    var input = el("input", { type: "range", min: min, max: max, step: step, value: value, class: "nt-range" });
    var out = el("output", { class: "nt-range-value" });
    function show() {
      var t = format ? format(Number(input.value)) : input.value;
      out.textContent = t;
      input.setAttribute("aria-valuetext", t);
    }
    input.addEventListener("input", function () { show(); onInput(Number(input.value)); });
    show();
    var wrap = field(labelText, input);
    wrap.appendChild(out);
    out.setAttribute("for", input.id);
    return { wrap: wrap, input: input, out: out, set: function (v) { input.value = v; show(); } };
  }

  function button(text, onClick, opts) {
    opts = opts || {};
    var b = el("button", { type: "button", class: "nt-button" + (opts.primary ? " nt-primary" : ""), text: text });
    b.addEventListener("click", onClick);
    return b;
  }

  function checkbox(labelText, checked, onChange) {
    var input = el("input", { type: "checkbox" });
    input.checked = !!checked;
    input.id = nextId("c");
    input.addEventListener("change", function () { onChange(input.checked); });
    return { wrap: el("div", { class: "nt-field nt-check" }, [input, el("label", { for: input.id, text: labelText })]), input: input };
  }

  function radios(legend, options, value, onChange) {
    var name = nextId("r");
    var fs = el("fieldset", { class: "nt-radios" }, [el("legend", { text: legend })]);
    options.forEach(function (o) {
      var input = el("input", { type: "radio", name: name, value: o.value, id: name + "-" + o.value });
      input.checked = String(o.value) === String(value);
      input.addEventListener("change", function () { if (input.checked) onChange(o.value); });
      fs.appendChild(el("span", { class: "nt-radio" }, [input, el("label", { for: input.id, text: o.label })]));
    });
    return fs;
  }

  function select(labelText, options, value, onChange) {
    var s = el("select", { class: "nt-select" });
    options.forEach(function (o) {
      var opt = el("option", { value: o.value, text: o.label });
      if (String(o.value) === String(value)) opt.selected = true;
      s.appendChild(opt);
    });
    s.addEventListener("change", function () { onChange(s.value); });
    return { wrap: field(labelText, s), input: s };
  }

  // A message line (role=status): kind "error" | "warn" | "info".
  function message() {
    var m = el("p", { class: "nt-msg", role: "status", "aria-live": "polite" });
    m.hidden = true;  // nothing to say yet (a styled empty line would still take room)
    return {
      node: m,
      show: function (text, kind) { m.textContent = text; m.className = "nt-msg nt-" + (kind || "info"); m.hidden = !text; },
      clear: function () { m.textContent = ""; m.hidden = true; }
    };
  }

  function reducedMotion() {
    return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  // ---- an answer where the reader is looking -----------------------------------------------------
  // reveal(node, from): the reader pressed a control (from) and its answer (node) is drawn away from the
  // window, below it or above it out of sight. The page scrolls, gently (at once for reduced motion), just
  // enough that the answer's top and a good part of it show, keeping the control in the window where both
  // fit (where they cannot, the answer wins). Nothing moves when enough of the answer already shows. Call it
  // from a reader's press only, never from a redraw the reader did not ask for (typing, a link restored).
  function reveal(node, from) {
    if (!node || !node.isConnected) return;
    var header = document.querySelector(".md-header"), top = 0, bottom = window.innerHeight, pad = 12;
    if (header) top = Math.max(0, header.getBoundingClientRect().bottom);
    var r = node.getBoundingClientRect();
    if (!r.height) return;  // not drawn
    var want = Math.min(r.height, (bottom - top) * 0.6), least = Math.min(r.height, 48), by = 0;
    if (r.top + want > bottom - pad) by = r.top + want - (bottom - pad);                     // below: up it comes
    else if (r.top < top + pad && r.bottom < top + want) by = r.top - (top + pad);          // above, out of sight
    if (!by) return;
    if (from && from.isConnected) {
      var f = from.getBoundingClientRect();
      if (by > 0) by = Math.max(Math.min(by, f.top - (top + pad)), r.top + least - (bottom - pad));
      else by = Math.min(Math.max(by, f.bottom - (bottom - pad)), r.bottom - least - top);
    }
    if (by) window.scrollBy({ top: by, behavior: reducedMotion() ? "instant" : "smooth" });
  }

  // ---- each demo's start: when its container nears the screen ------------------------------------
  // ui.start(name, build, opts) registers every .nt-demo[data-demo=name] on the page. The page's first
  // container builds at once (every page opens on its demo, so the first paint shows it, not its fallback)
  // without asking where it is: a layout read while the page is still parsing lays the whole page out an
  // extra time, the largest task of a page's load. The others build when they come within about a screen
  // of it (an IntersectionObserver, whose first report follows the first layout), when focus
  // moves into them, or when an in-page link leads into them, so the first load does only the work
  // the reader can see. opts.after = [names]: demos whose published state this one reads when it
  // builds (the page's earlier containers of those names build first). Building fills a fresh live
  // area and hides the static fallback; if it fails, the fallback stays and a message says why.
  var waiting = [];  // containers not yet built, {root, name, build, after}
  var watcher = null;
  var NEAR = "100% 0px 100% 0px";  // a screen above and below

  function buildOne(item) {
    var root = item.root, name = item.name;
    var live = el("div", { class: "nt-live" });
    var fallback = root.querySelector(".nt-fallback");
    try {
      item.build(root, live);
      root.insertBefore(live, root.firstChild);
      if (fallback) fallback.hidden = true;
      root.classList.add("nt-ready");
      root.setAttribute("data-ready", "");  // the quality report times demo start-up by this
    } catch (err) {
      var m = el("p", { class: "nt-msg nt-error", role: "status",
        text: "This demo could not start (" + (err && err.message ? err.message : err) + "); the static numbers below are what it would compute." });
      root.insertBefore(m, root.firstChild);
      if (window.console) console.warn("nexttoken demo " + name + ":", err);
    }
  }

  function before(a, b) { return !!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING); }

  // Build the container now (a no-op when it is built or unknown), after the earlier ones it follows.
  function wake(root) {
    var at = -1;
    waiting.forEach(function (w, i) { if (w.root === root) at = i; });
    if (at < 0) return false;
    var item = waiting.splice(at, 1)[0];
    if (watcher) watcher.unobserve(root);
    waiting.filter(function (w) { return item.after.indexOf(w.name) >= 0 && before(w.root, root); })
      .forEach(function (w) { wake(w.root); });
    buildOne(item);
    return true;
  }

  // Containers that came near build one per task, in page order, so no one task does them all.
  function nearing(entries) {
    entries.filter(function (e) { return e.isIntersecting; }).map(function (e) { return e.target; })
      .sort(function (a, b) { return before(a, b) ? -1 : 1; })
      .forEach(function (root) { setTimeout(function () { wake(root); }, 0); });
  }

  // The first control of a built demo, or the demo itself, takes the focus, so it is not lost with the
  // fallback it was in.
  function refocus(root) {
    var live = root.querySelector(".nt-live");
    var first = live && live.querySelector("a[href], button:not([disabled]), input:not([disabled]), select, textarea, [tabindex]:not([tabindex='-1'])");
    if (!first) { root.setAttribute("tabindex", "-1"); first = root; }
    first.focus();
  }

  // Focus decides too. Arriving in a fallback (a link in it), the demo builds and the focus moves into
  // it. Anywhere else, the containers within a screen of the focused element build at once, so the next
  // Tab (or Shift+Tab) lands in a built demo, never past one still waiting for its observer; deferred
  // ones within two screens start loading, so they are built by the time Tab gets there.
  function focused(e) {
    var t = e.target;
    if (!t || !t.getBoundingClientRect) return;
    var root = t.closest(".nt-demo");
    if (root && fetchScripts(root, true)) return;
    if (root && wake(root)) { refocus(root); return; }
    var r = t.getBoundingClientRect(), h = window.innerHeight;
    waiting.filter(function (w) {
      var q = w.root.getBoundingClientRect();
      return q.top < r.bottom + h && q.bottom > r.top - h;
    }).forEach(function (w) { wake(w.root); });
    deferred.filter(function (d) {
      var q = d.root.getBoundingClientRect();
      return q.top < r.bottom + 2 * h && q.bottom > r.top - 2 * h;
    }).forEach(function (d) { fetchScripts(d.root, false); });
  }

  function hashTarget() {
    var id;
    try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return null; }  // a malformed link is no anchor
    return (id && id.length < 200 && document.getElementById(id)) || null;
  }

  // An in-page link to an id in (or on) a container builds it before the browser scrolls there.
  function linked() {
    var target = hashTarget();
    var root = target && target.closest(".nt-demo");
    if (root && fetchScripts(root, true)) return;
    if (root && wake(root)) target.scrollIntoView();
  }

  function watch() {
    if (watcher !== null) return;
    watcher = typeof IntersectionObserver === "function" ? new IntersectionObserver(nearing, { rootMargin: NEAR }) : false;
    document.addEventListener("focusin", focused);
    window.addEventListener("hashchange", linked);
  }

  function start(name, build, opts) {
    opts = opts || {};
    function run() {
      watch();
      var roots = document.querySelectorAll('.nt-demo[data-demo="' + name + '"]');
      Array.prototype.forEach.call(roots, function (root) {
        if (root.hasAttribute("data-ready")) return;
        var item = { root: root, name: name, build: build, after: opts.after || [] };
        waiting.push(item);
        var asked = wanted.indexOf(root);
        if (asked >= 0) {  // focus or a link asked for it while its scripts loaded
          wanted.splice(asked, 1);
          var inside = root.contains(document.activeElement), target = hashTarget();
          wake(root);
          if (inside) refocus(root);
          else if (target && root.contains(target)) target.scrollIntoView();
        } else if (!watcher || root === document.querySelector(".nt-demo")) wake(root);  // no observer (an old browser): every demo at once
        else watcher.observe(root);
      });
      linked();
    }
    // Pages load demo scripts at the end of <body>, so their containers are already parsed: start
    // at once rather than wait for DOMContentLoaded (which waits for the page's every script). Once: the
    // theme's bundle, started late, is sent a second DOMContentLoaded (partials/javascripts/bundle.html).
    var ready = document.readyState !== "loading" || document.querySelector('.nt-demo[data-demo="' + name + '"]');
    if (ready) run();
    else document.addEventListener("DOMContentLoaded", run, { once: true });
  }

  // ---- demos the page defers: their scripts load when the container nears -----------------------
  // A container the build marked data-later="name ..." (front matter `demos: [later:NAME]`, a demo far
  // down its page) has no scripts of its own on the page. They load, in order, through the one loader
  // when it comes within two screens (so it is ready before the one-screen build above), when focus
  // comes near or into it, or when a link leads into it; the demo's script then calls start as any
  // other. If one cannot load, the fallback stays and a message says why.
  var FAR = "200% 0px 200% 0px";
  var deferred = [];  // {root, names}: containers whose scripts have not been asked for
  var wanted = [];    // containers focus or a link asked for while their scripts loaded
  var fetcher = null;

  function fetchScripts(root, want) {
    var at = -1;
    deferred.forEach(function (d, i) { if (d.root === root) at = i; });
    if (at < 0) return false;
    var names = deferred.splice(at, 1)[0].names;
    if (fetcher) fetcher.unobserve(root);
    if (want) wanted.push(root);
    // Not before the page is parsed: its own scripts (which a later demo's may need, as the experiments page's
    // demos need real.experiments) are still to run while the parser waits on one of them.
    var parsed = document.readyState !== "loading" ? Promise.resolve() : new Promise(function (resolve) {
      document.addEventListener("DOMContentLoaded", resolve, { once: true });
    });
    names.reduce(function (done, name) { return done.then(function () { return load(name); }); }, parsed)
      .catch(function (err) {
        root.insertBefore(el("p", { class: "nt-msg nt-error", role: "status",
          text: "This demo could not load (" + (err && err.message ? err.message : err) + "); the static numbers below are what it would compute." }), root.firstChild);
      });
    return true;
  }

  function defer() {
    var roots = document.querySelectorAll(".nt-demo[data-later]");
    if (!roots.length) return;
    watch();
    fetcher = typeof IntersectionObserver === "function" ? new IntersectionObserver(function (entries) {
      entries.forEach(function (e) { if (e.isIntersecting) fetchScripts(e.target, false); });
    }, { rootMargin: FAR }) : null;
    Array.prototype.forEach.call(roots, function (root) {
      deferred.push({ root: root, names: root.getAttribute("data-later").split(" ") });
      if (fetcher) fetcher.observe(root);
      else fetchScripts(root, false);
    });
    linked();
  }
  if (typeof document !== "undefined") defer();

  function section(title, children) {
    return el("section", { class: "nt-stage" }, [el("h3", { class: "nt-stage-title", text: title })].concat(children || []));
  }

  // ---- numbers that open: a button, and the panel of its section showing the arithmetic ----------
  // ex = {kind, title, formula, lines, snippet, download, pct, noWeights, setup}, an explanation of
  // js/explain/ (setup: what the snippet needs, said instead of a weights file to download).
  var OPS = { sum: " + ", mul: " × ", div: " ÷ ", sub: " − " };
  var FUNCS = { exp: "exp", sqrt: "√", gelu: "GELU", mean: "mean", var: "var", ln: "ln" };
  // One term: its name (a token, a position, an index) small before it; a negative term after an
  // operator in brackets ("− (−0.9670)"); a fold as "N others, together 0.0000".
  function term(t, name, bracket, fold) {
    var v = el("span", { class: "nt-x-t", text: t });
    var neg = bracket && t.charAt(0) === "−";
    return el("span", { class: "nt-x-term" + (fold ? " nt-x-fold" : "") }, [
      fold ? el("span", { class: "nt-x-tn", text: name + ", together" }) : name ? el("span", { class: "nt-x-tn", text: name }) : null,
      neg ? "(" : null, v, neg ? ")" : null]);
  }
  // The lines as one table: label | the terms | = result, each line a row (subgrid), so results align.
  function render(ex, shown) {
    var dl = ex.download;
    var box = el("div", { class: "nt-x-body", "data-kind": ex.kind });
    box.appendChild(el("p", { class: "nt-x-title", text: ex.title }));
    box.appendChild(el("p", { class: "nt-x-formula", text: ex.formula }));
    var list = el("ol", { class: "nt-x-lines" });
    ex.lines.forEach(function (ln) {
      var li = el("li", { class: "nt-x-line", "data-op": ln.op }, [el("span", { class: "nt-x-label", text: ln.label + ": " })]);
      if (ln.fold) li.setAttribute("data-fold", ln.fold.count);
      var expr = el("span", { class: "nt-x-expr" });
      var last = ln.terms.length - 1;
      var terms = ln.terms.map(function (t, k) { return term(t, ln.names && ln.names[k], !!OPS[ln.op] && k > 0, ln.fold && k === last); });
      if (OPS[ln.op]) terms.forEach(function (t, k) { if (k) expr.appendChild(document.createTextNode(OPS[ln.op])); expr.appendChild(t); });
      else {
        expr.appendChild(document.createTextNode(FUNCS[ln.op] + "("));
        terms.forEach(function (t, k) { if (k) expr.appendChild(document.createTextNode(", ")); expr.appendChild(t); });
        expr.appendChild(document.createTextNode(")"));
      }
      li.appendChild(expr);
      li.appendChild(el("span", { class: "nt-x-res" }, ["= ", el("span", { class: "nt-x-eq", text: ln.eq })]));
      li._values = ln.values || [];
      list.appendChild(li);
    });
    box.appendChild(list);
    box.appendChild(el("p", { class: "nt-x-shown" }, ["Shown as ", el("strong", { class: "nt-x-shown-value", text: shown }),
      ex.pct ? " (the last line × 100, rounded)." : ex.noWeights ? " (the last line)." : " (the last line, rounded)."]));
    var pre = el("pre", { class: "nt-x-code" }, [el("code", { text: ex.snippet })]);
    box.appendChild(el("details", { class: "nt-x-repro" }, [
      el("summary", { text: ex.noWeights || ex.setup ? "Reproduce it in Python" : "Reproduce it in Python (numpy)" }),
      el("p", { class: "nt-small" }, ex.setup ? [ex.setup] : ex.noWeights ? ["It counts from the model's sizes alone and prints the last line's number."]
        : ["Save ", el("a", { href: dl.href, download: dl.name, text: dl.text }), " next to the script; it prints the last line's number."]),
      pre]));
    return box;
  }

  // The cells of `host` holding any of `values` (exact numbers, zero left out: a knocked-out part is
  // all zeros) get class `cls`, the others lose it.
  function lightCells(host, values, cls) {
    var set = new Set(values.filter(function (v) { return v !== 0; }));
    Array.prototype.forEach.call(host.querySelectorAll(".nt-cell"), function (c) {
      c.classList.toggle(cls, c._v !== undefined && set.has(c._v));
    });
  }
  // An open panel lights the cells its lines read (nt-x-used); pointing at a line lights its own (nt-x-lit).
  function lightPanel(host, panel) {
    var all = [];
    Array.prototype.forEach.call(panel.querySelectorAll(".nt-x-line"), function (li) {
      all = all.concat(li._values || []);
      li.addEventListener("mouseenter", function () { lightCells(host, li._values || [], "nt-x-lit"); });
      li.addEventListener("mouseleave", function () { lightCells(host, [], "nt-x-lit"); });
    });
    lightCells(host, all, "nt-x-used");
  }

  // A number as a button that opens its arithmetic in the panel of its section (.nt-stage/.nt-lane,
  // or the nearest .nt-x-host), placed under the part of the section that holds the number. make() builds the explanation only when opened. opts.hideText: a
  // coloured cell whose number is in its label and title.
  function numberButton(text, make, opts) {
    opts = opts || {};
    var b = el("button", { type: "button", class: "nt-x-num" + (opts.cls ? " " + opts.cls : ""), "aria-expanded": "false",
      "aria-label": opts.label ? opts.label + ": " + text + ", show how it is computed" : null, "data-shown": text,
      text: opts.hideText ? null : text });
    b.addEventListener("click", function () {
      var host = b.closest(".nt-x-host, .nt-stage, .nt-lane") || b.parentNode;
      var panel = host.querySelector(":scope > .nt-x-panel");
      var open = b.getAttribute("aria-expanded") === "true";
      Array.prototype.forEach.call(host.querySelectorAll(".nt-x-num[aria-expanded=true]"), function (o) { o.setAttribute("aria-expanded", "false"); });
      lightCells(host, [], "nt-x-used");
      lightCells(host, [], "nt-x-lit");
      if (open) { if (panel) panel.hidden = true; return; }
      if (!panel) {
        panel = el("div", { class: "nt-x-panel", id: nextId("x"), role: "region", "aria-label": "How the number is computed" });
        host.appendChild(panel);
      }
      // right after the part of its section the number sits in (a lane's heat map, a stage's strip), not at
      // the section's foot a screen below it; a section laid out in columns keeps it at its foot
      var at = b, cs = getComputedStyle(host);
      while (at.parentNode && at.parentNode !== host) at = at.parentNode;
      if (at.parentNode === host && at !== panel && (cs.display === "block" || cs.display === "flow-root" ||
          (cs.display === "flex" && cs.flexDirection === "column"))) host.insertBefore(panel, at.nextSibling);
      var ex = make();
      clear(panel).appendChild(render(ex, b.getAttribute("data-shown")));  // relabel() may have changed it
      panel.setAttribute("aria-label", "How it is computed: " + ex.title);  // each open panel a region of its own name
      lightPanel(host, panel);
      panel.hidden = false;
      b.setAttribute("aria-controls", panel.id);
      b.setAttribute("aria-expanded", "true");
      reveal(panel, b);
    });
    b._label = opts.label;
    return b;
  }

  // The same button showing another number (a cursor moved): new text, and any open panel closes.
  function relabel(b, text) {
    if (!b.classList.contains("nt-cell")) b.textContent = text;
    b.setAttribute("data-shown", text);
    if (b._label) b.setAttribute("aria-label", b._label + ": " + text + ", show how it is computed");
    if (b.getAttribute("aria-expanded") === "true") b.click();
  }

  return {
    el: el, clear: clear, svg: svg, pct: pct, count: count, fix: fix, strip: strip, legend: legend, maxAbs: maxAbs, chip: chip, bars: bars,
    tickStep: tickStep, niceTicks: niceTicks, setDisabled: setDisabled, field: field,
    textInput: textInput, slider: slider, button: button, checkbox: checkbox, radios: radios,
    select: select, message: message, numberButton: numberButton, relabel: relabel,
    reducedMotion: reducedMotion, reveal: reveal, start: start, section: section, INPUT_MAX: INPUT_MAX
  };
});
