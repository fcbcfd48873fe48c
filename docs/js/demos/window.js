// Demo: the context window. Add tokens one at a time (greedy); past n_ctx tokens the window slides,
// the oldest tokens are gone, every position shifts, and the KV cache must be rebuilt.
(function () {
  "use strict";
  var U = window.NTUI;
  var MAX_PROMPT = 24;

  U.start("window", function (root, live) {
    var t = U.tiny();
    var m = t.model;
    if (!m || !window.NT.kv) throw new Error("the model or KV-cache script did not load");
    var nCtx = m.config.n_ctx;
    var msg = U.message();
    var prompt = U.textInput("Start text", root.getAttribute("data-prompt") || "the cat sat on the mat.", function () { prepare(); },
      { hint: "May be longer than the window (up to " + MAX_PROMPT + " tokens)." });
    var addBtn = U.button("Add a token", function () { reveal(shown + 1); }, { primary: true });
    var resetBtn = U.button("Reset", function () { reveal(0); });
    var strip = U.el("div", { class: "nt-tokens nt-window-strip", "aria-live": "polite" });
    var info = U.el("p", { class: "nt-window-info", "aria-live": "polite" });
    live.appendChild(U.el("div", { class: "nt-controls" }, [prompt.wrap]));
    live.appendChild(U.el("div", { class: "nt-controls nt-buttons" }, [addBtn, resetBtn]));
    live.appendChild(msg.node);
    live.appendChild(strip);
    live.appendChild(info);

    var base = null, steps = [], stoppedBy = null, shown = 0;

    function prepare() {
      msg.clear();
      base = null; steps = [];
      var r = U.encodePrompt(prompt.input.value, { maxTokens: MAX_PROMPT });
      if (!r.ok) { msg.show(r.message, "error"); U.clear(strip); info.textContent = ""; U.setDisabled(addBtn, "Nothing to extend: fix the start text first."); return; }
      if (r.note) msg.show(r.note, "info");
      base = r;
      var greedy = function (logits) { return U.argsort(logits)[0]; };
      var g = window.NT.kv.generate(m, r.ids, { maxNew: MAX_PROMPT, useCache: true, pick: greedy });
      steps = g.steps; stoppedBy = g.stoppedBy;
      reveal(0);
    }

    function reveal(n) {
      if (!base) return;
      shown = Math.max(0, Math.min(n, steps.length));
      var ids = base.ids.concat(steps.slice(0, shown).map(function (s) { return s.id; }));
      var start = Math.max(0, ids.length - nCtx);
      U.clear(strip);
      ids.forEach(function (id, i) {
        var inWin = i >= start;
        var c = U.chip(t.tk.show(id), inWin ? "pos " + (i - start) : "gone", inWin ? "nt-in-window" : "nt-gone");
        c.setAttribute("data-index", i);
        if (i === start) c.classList.add("nt-window-start");
        strip.appendChild(c);
      });
      var s = shown > 0 ? steps[shown - 1] : null;
      var parts = [ids.length + " tokens; the window holds positions " + start + " to " + (ids.length - 1) + " (" + Math.min(nCtx, ids.length) + " of " + nCtx + ")."];
      if (start > 0) parts.push(start + " earlier token" + (start === 1 ? " is" : "s are") + " gone: the model cannot see " + (start === 1 ? "it" : "them") + " at all.");
      if (s) parts.push("Last step picked " + t.tk.show(s.id) + (s.rebuilt ? "; the window had slid, so every position shifted and the cache was rebuilt." : "; the cache grew by one row."));
      info.textContent = parts.join(" ");
      info.setAttribute("data-window-start", start);
      info.setAttribute("data-rebuilt", s && s.rebuilt ? "1" : "0");
      var done = shown >= steps.length;
      U.setDisabled(addBtn, !done ? "" : stoppedBy === "eot" ? "The model picked end-of-text; Reset or change the start text to go on." : "Reached the demo's limit of new tokens.");
    }

    prepare();
  });
})();
