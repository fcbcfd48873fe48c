// Demo: write a sentence. The generation loop in two lanes over the same tiny model: without a
// KV cache (keys and values recomputed for every token at every step) and with one (a prefill, then
// one new row per step). Greedy picks, so both lanes write the same text. Under the cache lane, the K
// and V caches themselves, row by row as they fill, the rows computed at this step marked.
nexttoken.define("demos.generate", ["ui", "runtime.kernels", "runtime.active", "runtime.prompts", "runtime.model", "runtime.kvcache", "explain.pass"], function (ui, kernels, active, prompts, model, kvcache, pass) {
  "use strict";

  function rowsOf(step, i, useCache) {
    var n = Array.isArray(step.window) ? step.window.length : Number(step.window);
    if (!useCache) return n;
    if (i === 0 || step.rebuilt) return n;
    return 1;
  }

  ui.start("generate", function (root, live) {
    var t = active.tiny(model);
    var m = t.model;
    var nCtx = m.config.n_ctx;
    var msg = ui.message();
    var maxNew = 6;
    var prompt = ui.textInput("Prompt", prompts.pick(root.getAttribute("data-prompt") || "the cat"), function () { prepare(); });
    var maxSlider = ui.slider("max_new_tokens", 1, nCtx, 1, maxNew, function (v) { maxNew = v; prepare(); }, String);
    var stepBtn = ui.button("Next step", function () { reveal(shown + 1); }, { primary: true });
    var allBtn = ui.button("Run to the end", function () { reveal(runs ? runs[0].steps.length : 0); });
    var resetBtn = ui.button("Reset", function () { reveal(0); });
    var lanesEl = ui.el("div", { class: "nt-lanes" });
    var status = ui.el("p", { class: "nt-small", "aria-live": "polite" });
    live.appendChild(ui.el("div", { class: "nt-controls" }, [prompt.wrap, maxSlider.wrap]));
    live.appendChild(ui.el("div", { class: "nt-controls nt-buttons" }, [stepBtn, allBtn, resetBtn]));
    live.appendChild(msg.node);
    live.appendChild(status);
    live.appendChild(lanesEl);

    var runs = null, shown = 0, base = null;

    // Both forward buttons stop together, so one note says why.
    function why(text) {
      ui.setDisabled(stepBtn, text);
      allBtn.disabled = !!text;
      allBtn.setAttribute("aria-describedby", stepBtn.getAttribute("aria-describedby"));
    }

    function prepare() {
      msg.clear();
      runs = null;
      ui.clear(lanesEl);
      var r = prompts.encode(prompt.input.value);
      if (!r.ok) { msg.show(r.message, "error"); why("Nothing to run: fix the prompt first."); status.textContent = ""; return; }
      if (r.note) msg.show(r.note, "info");
      base = r;
      var greedy = function (logits) { return kernels.argsort(logits)[0]; };
      runs = [false, true].map(function (useCache) {
        var g = kvcache.generate(m, r.ids, { maxNew: maxNew, useCache: useCache, pick: greedy });
        return { useCache: useCache, steps: g.steps, stoppedBy: g.stoppedBy };
      });
      reveal(0);
    }

    // A step's multiply-adds open to their count (js/explain/pass.js): the rows it computed are the
    // last s.rows of its window.
    function opsCell(s) {
      var text = (s.ops || 0).toLocaleString("en");
      var last = s.window.length - 1, first = s.window.length - s.rows;
      return ui.numberButton(text, function () { return pass.ops(m.config, first, last, s.ops); }, { label: "multiply-adds of this step" });
    }

    function reveal(n) {
      if (!runs) return;
      var total = runs[0].steps.length;
      shown = Math.max(0, Math.min(n, total));
      ui.clear(lanesEl);
      runs.forEach(function (run) {
        var text = ui.el("p", { class: "nt-gen-text" });
        base.tokens.forEach(function (tok) { text.appendChild(ui.chip(tok, null, "nt-prompt-tok")); });
        var body = ui.el("tbody");
        var rows = 0, ops = 0;
        run.steps.slice(0, shown).forEach(function (s, i) {
          var rw = rowsOf(s, i, run.useCache);
          rows += rw; ops += s.ops || 0;
          text.appendChild(ui.chip(t.tk.show(s.id), null, "nt-new-tok"));
          body.appendChild(ui.el("tr", null, [
            ui.el("td", { text: String(i + 1) + (run.useCache && i === 0 ? " (prefill)" : "") }),
            ui.el("td", null, [ui.el("code", { text: t.tk.show(s.id) })]),
            ui.el("td", { class: "nt-num", text: String(rw) + (s.rebuilt ? " (rebuilt)" : "") }),
            ui.el("td", { class: "nt-num" }, [opsCell(s)])]));
        });
        var table = ui.el("table", { class: "nt-table" }, [
          ui.el("thead", null, [ui.el("tr", null, [ui.el("th", { text: "step" }), ui.el("th", { text: "pick" }),
            ui.el("th", { text: "K,V rows computed" }), ui.el("th", { text: "multiply-adds" })])]), body]);
        lanesEl.appendChild(ui.el("div", { class: "nt-lane", "data-lane": run.useCache ? "cache" : "nocache" }, [
          ui.el("p", { class: "nt-lane-title", text: run.useCache ? "With a KV cache" : "Without a cache" }),
          text,
          ui.el("div", { class: "nt-table-wrap" }, [table]),
          ui.el("p", { class: "nt-totals", "data-rows": rows, "data-ops": ops,
            text: "Total: " + rows + " K,V rows, " + ops.toLocaleString("en") + " multiply-adds" }),
          run.useCache && shown > 0 ? cacheView(run.steps[shown - 1], shown - 1) : null]));
      });
      var done = shown >= total;
      why(done ? "Done: " + (runs[0].stoppedBy === "eot" ? "the model picked end-of-text." : "max_new_tokens reached.") + " Reset, or change the prompt or max_new_tokens." : "");
      if (shown === 0) status.textContent = "Ready: press Next step to run the prefill and pick the first token.";
      else if (done) status.textContent = "Stopped after " + total + " new tokens: " +
        (runs[0].stoppedBy === "eot" ? "the model picked end-of-text." : "max_new_tokens reached.");
      else status.textContent = "Step " + shown + " of at most " + maxNew + ".";
    }

    // The cache after step i: the K and V rows of the step's window (the same numbers the traced
    // forward pass gives for it), one row per position; the rows this step computed are marked.
    function cacheView(step, i) {
      var win = step.window, tr = m.forward(win), L = tr.h.length - 1;
      var explain = pass.of({ trace: tr, ids: win, config: m.config, weights: active.data.weights, show: t.tk.show });
      var fresh = i === 0 || step.rebuilt ? win.length : 1;
      var wrap = ui.el("div", { class: "nt-kv", "data-rows": win.length, "data-new": fresh });
      ["k", "v"].forEach(function (which) {
        var rowsKV = win.map(function (_, pos) { return [].concat.apply([], tr.h[L][which].map(function (hd) { return hd[pos]; })); });
        var top = ui.maxAbs(rowsKV);
        var grid = ui.el("div", { class: "nt-vecgrid nt-vecgrid-3" });
        rowsKV.forEach(function (row, pos) {
          var isNew = pos >= win.length - fresh;
          grid.appendChild(ui.el("span", { class: "nt-num", text: String(pos) }));
          grid.appendChild(ui.el("code", { class: isNew ? "nt-kv-new" : null, text: t.tk.show(win[pos]) }));
          var st = ui.strip(row, (which === "k" ? "key" : "value") + " row " + pos + (isNew ? " (new)" : ""), { top: top,
            explain: function (c) { return function () { return explain.kv(L, which, pos, c); }; } });
          if (isNew) st.classList.add("nt-kv-new");
          grid.appendChild(st);
        });
        wrap.appendChild(ui.el("p", { class: "nt-small", text: (which === "k" ? "K cache" : "V cache") + " (layer " + (L + 1) + ", both heads side by side): " +
          win.length + " of " + nCtx + " rows" + (fresh === 1 ? "; the marked row is this step's only new one." : "; all rows computed at this step (" + (i === 0 ? "prefill" : "rebuilt after a slide") + ").") }));
        wrap.appendChild(ui.el("div", { class: "nt-scroll" }, [grid]));
      });
      return wrap;
    }

    prepare();
  });
});
