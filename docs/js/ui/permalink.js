// A demo's state in the page's URL fragment, and the row of share controls under it (Copy link, Embed,
// Download CSV / JSON). A demo joins with a few lines at the end of its build:
//
//   permalink.join(root, live, { fields: {prompt: permalink.text(200), T: permalink.num(0, 2)},
//     get: function () { return {prompt: ..., T: ...}; },   // the state on show
//     set: function (s) { ... },                            // apply a checked state (any subset of fields);
//                                                           // may return one line to say (a model to load)
//     model: active,                                        // optional: the tiny model in use (built | yours);
//                                                           // on the reader's, a line says the text is the built one's
//     tables: function () { return [{name, columns, rows}]; } });  // optional: what the downloads hold
//
// The fragment reads #nt=1&d=<demo>[&n=<index>]&v=<site version>[&m=<model>]&<field>=<value>...: one
// demo's state at a time, the last one the reader changed, written with replaceState (no history
// entries) a moment after any input, change or click inside the demo. This file is all a page loads
// first; reading a link (js/ui/share.js: checks, messages, the buttons' work) and the downloads
// (js/ui/export.js) load only when a link or a button asks for them.
nexttoken.define("ui.permalink", ["ui", "later:ui.share"], function (ui, loadShare) {
  "use strict";

  var meta = document.querySelector('meta[name="nt-version"]');
  var VERSION = meta ? meta.getAttribute("content") : "", WAIT_MS = 300;

  // Field kinds: what a value may be; js/ui/share.js checks a link's values against them.
  function kind(k, a, b, most) { return { kind: k, a: a, b: b, most: most }; }
  function write(f, v) { return f.kind === "num" ? String(Number(Number(v).toFixed(6))) : f.kind === "ints" ? v.join(".") : String(v); }

  function indexOf(root) {
    return Array.prototype.indexOf.call(document.querySelectorAll('.nt-demo[data-demo="' + root.getAttribute("data-demo") + '"]'), root);
  }

  function fragment(root, spec) {
    var s = spec.get(), n = indexOf(root), parts = ["nt=1", "d=" + root.getAttribute("data-demo")];
    if (n > 0) parts.push("n=" + n);
    if (VERSION) parts.push("v=" + VERSION);
    if (spec.model) parts.push("m=" + spec.model.which);
    Object.keys(spec.fields).forEach(function (k) {
      if (s[k] !== undefined && s[k] !== null) parts.push(k + "=" + encodeURIComponent(write(spec.fields[k], s[k])));
    });
    return parts.join("&");
  }

  // The link the page was opened with, if it is a demo's: that demo is brought on screen, so it builds
  // first (js/ui.js builds the demos near the view).
  var opened = /^#nt=/.test(location.hash) ? location.hash : "";
  var named = /[#&]d=([a-z0-9-]{1,40})(&|$)/.exec(opened), at = /&n=(\d{1,2})(&|$)/.exec(opened);
  var target = named && document.querySelectorAll('.nt-demo[data-demo="' + named[1] + '"]')[at ? Number(at[1]) : 0];
  if (target) target.scrollIntoView();

  function join(root, live, spec) {
    // nt, d, n, v and m are the link's own keys: a demo field of that name would be read as one of them
    Object.keys(spec.fields).forEach(function (k) {
      if (["nt", "d", "n", "v", "m"].indexOf(k) >= 0) throw new Error(root.getAttribute("data-demo") + ": a link field may not be named " + k);
    });
    // A demo on the reader's model (js/runtime/active.js) says so where the reader is looking.
    if (spec.model && spec.model.which === "yours") {
      live.insertBefore(ui.el("p", { class: "nt-small nt-yours-note", "data-role": "yours-note",
        text: "Your model (switched on under the page's title): the text around this demo describes the built model." }), live.firstChild);
    }
    var item = { root: root, live: live, spec: spec, VERSION: VERSION, index: indexOf(root), target: target, opened: opened,
                 fragment: function () { return fragment(root, spec); } };
    function act(what) {
      return function () {
        loadShare().then(function (share) { share[what](item); },
          function (err) { item.box.appendChild(ui.el("p", { class: "nt-msg nt-error", role: "status", text: "This could not start (" + err.message + ")." })); });
      };
    }
    item.box = ui.el("div", { class: "nt-share", role: "group", "aria-label": "Share this demo" }, [
      ui.button("Copy link", act("copyLink")), ui.button("Embed", act("embed")),
      spec.tables ? ui.button("Download CSV", act("csv")) : null, spec.tables ? ui.button("Download JSON", act("json")) : null]);
    live.appendChild(item.box);

    var timer = null;
    function later(e) {
      if (item.box.contains(e.target) || (item.picked && item.picked === e.target)) return;
      clearTimeout(timer);
      timer = setTimeout(function () {
        try { history.replaceState(history.state, "", "#" + fragment(root, spec)); } catch (err) { /* a sandboxed frame: Copy link still works */ }
      }, WAIT_MS);
    }
    ["input", "change", "click", "keyup"].forEach(function (ev) { live.addEventListener(ev, later); });
    if (opened) act("restore")();
  }

  return {
    join: join,
    num: function (lo, hi) { return kind("num", lo, hi); }, int: function (lo, hi) { return kind("int", lo, hi); },
    text: function (most) { return kind("text", 0, most); }, one: function (choices) { return kind("one", choices); },
    flag: function () { return kind("one", ["0", "1"]); }, ints: function (lo, hi, most) { return kind("ints", lo, hi, most); }
  };
});
