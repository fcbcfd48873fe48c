// Demo: the context window. Add tokens one at a time (greedy); past n_ctx tokens the window slides,
// the oldest tokens are gone, every position shifts, and the KV cache must be rebuilt.
nexttoken.define("demos.context-window", ["ui", "runtime.kernels", "runtime.active", "runtime.prompts", "runtime.model", "runtime.kvcache"], function (ui, kernels, active, prompts, model, kvcache) {
  "use strict";
  var MAX_PROMPT = 24;

  ui.start("context-window", function (root, live) {
    var t = active.tiny(model), m = t.model, nCtx = m.config.n_ctx;
    var msg = ui.message();
    var prompt = ui.textInput("Start text", prompts.pick(root.getAttribute("data-prompt") || "the cat sat on the mat."), function () { prepare(); },
      { hint: "May be longer than the window (up to " + MAX_PROMPT + " tokens)." });
    var addBtn = ui.button("Add a token", function () { reveal(shown + 1); }, { primary: true });
    var resetBtn = ui.button("Reset", function () { reveal(0); });
    var strip = ui.el("div", { class: "nt-tokens nt-window-strip", "aria-live": "polite" });
    var info = ui.el("p", { class: "nt-window-info", "aria-live": "polite" });
    live.appendChild(ui.el("div", { class: "nt-controls" }, [prompt.wrap]));
    live.appendChild(ui.el("div", { class: "nt-controls nt-buttons" }, [addBtn, resetBtn]));
    live.appendChild(msg.node);
    live.appendChild(strip);
    live.appendChild(info);

    var base = null, steps = [], stoppedBy = null, shown = 0;

    function prepare() {
      msg.clear();
      base = null; steps = [];
      var r = prompts.encode(prompt.input.value, { maxTokens: MAX_PROMPT });
      if (!r.ok) { msg.show(r.message, "error"); ui.clear(strip); info.textContent = ""; ui.setDisabled(addBtn, "Nothing to extend: fix the start text first."); return; }
      if (r.note) msg.show(r.note, "info");
      base = r;
      var greedy = function (logits) { return kernels.argsort(logits)[0]; };
      var g = kvcache.generate(m, r.ids, { maxNew: MAX_PROMPT, useCache: true, pick: greedy });
      steps = g.steps; stoppedBy = g.stoppedBy;
      reveal(0);
    }

    function reveal(n) {
      if (!base) return;
      shown = Math.max(0, Math.min(n, steps.length));
      var ids = base.ids.concat(steps.slice(0, shown).map(function (s) { return s.id; }));
      var start = Math.max(0, ids.length - nCtx);
      ui.clear(strip);
      ids.forEach(function (id, i) {
        var inWin = i >= start;
        var c = ui.chip(t.tk.show(id), inWin ? "pos " + (i - start) : "gone", inWin ? "nt-in-window" : "nt-gone");
        c.setAttribute("data-index", i);
        if (i === start) c.classList.add("nt-window-start");
        strip.appendChild(c);
      });
      var s = shown > 0 ? steps[shown - 1] : null;
      var parts = [ids.length + " tokens; the window holds tokens " + (start + 1) + " to " + ids.length + " (counted from one), at positions 0 to " +
        (Math.min(nCtx, ids.length) - 1) + " (" + Math.min(nCtx, ids.length) + " of " + nCtx + ")."];
      if (start > 0) parts.push(start + " earlier token" + (start === 1 ? " is" : "s are") + " gone: the model cannot see " + (start === 1 ? "it" : "them") + " at all.");
      if (s) parts.push("Last step picked " + t.tk.show(s.id) + (s.rebuilt ? "; the window had slid, so every position shifted and the cache was rebuilt." : "; the cache grew by one row."));
      info.textContent = parts.join(" ");
      info.setAttribute("data-window-start", start);
      info.setAttribute("data-rebuilt", s && s.rebuilt ? "1" : "0");
      var done = shown >= steps.length;
      ui.setDisabled(addBtn, !done ? "" : stoppedBy === "eot" ? "The model picked end-of-text; Reset or change the start text to go on." : "Reached the demo's limit of new tokens.");
    }

    prepare();
  });
});
