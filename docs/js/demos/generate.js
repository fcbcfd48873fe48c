// Demo: write a sentence. The generation loop in two lanes over the same tiny model: without a KV
// cache (keys and values recomputed for every token at every step) and with one (a prefill, then one
// new row per step). Greedy picks, so both lanes write the same text. Each lane draws the K,V rows its
// step left behind, one per position, the rows the step computed marked (and flashing, row after row,
// unless the reader asked for reduced motion): every row in the lane without a cache, one in the
// other. Play steps on its own at the chosen speed; Pause, Next step and Reset do what they say.
nexttoken.define("demos.generate", ["ui", "runtime.kernels", "runtime.active", "runtime.prompts", "runtime.model", "runtime.kvcache", "explain.pass", "ui.permalink"], function (ui, kernels, active, prompts, model, kvcache, pass, permalink) {
  "use strict";

  var SPEEDS = [{ value: 1600, label: "slow (a step every 1.6 s)" }, { value: 800, label: "normal (every 0.8 s)" },
                { value: 300, label: "fast (every 0.3 s)" }];

  ui.start("generate", function (root, live) {
    var t = active.tiny(model);
    var m = t.model;
    var nCtx = m.config.n_ctx;
    var msg = ui.message();
    var maxNew = 6, delay = 800, timer = null;
    var prompt = ui.textInput("Prompt", prompts.pick(root.getAttribute("data-prompt") || "the cat"), function () { prepare(); });
    var maxSlider = ui.slider("max_new_tokens", 1, nCtx, 1, maxNew, function (v) { maxNew = v; prepare(); }, String);
    var speed = ui.select("Speed", SPEEDS, delay, function (v) { delay = Number(v); if (timer) { clearTimeout(timer); timer = setTimeout(tick, delay); } });
    // Play and Next step bring the two lanes' rows on screen with the buttons: the rows are what they animate
    var playBtn = ui.button("Play", function () { if (timer) pause(); else { play(); ui.reveal(lanesEl, playBtn); } }, { primary: true });
    playBtn.setAttribute("data-role", "play");
    var stepBtn = ui.button("Next step", function () { pause(); reveal(shown + 1); ui.reveal(lanesEl, stepBtn); });
    var resetBtn = ui.button("Reset", function () { pause(); reveal(0); });
    var lanesEl = ui.el("div", { class: "nt-lanes nt-gen-lanes" });
    var status = ui.el("p", { class: "nt-small", "aria-live": "polite" });
    live.appendChild(ui.el("div", { class: "nt-controls" }, [prompt.wrap, maxSlider.wrap, speed.wrap]));
    live.appendChild(ui.el("div", { class: "nt-controls nt-buttons" }, [playBtn, stepBtn, resetBtn]));
    live.appendChild(msg.node);
    live.appendChild(status);
    live.appendChild(lanesEl);

    var runs = null, shown = 0, base = null;

    function play() {
      if (!runs) return;
      if (shown >= runs[0].steps.length) reveal(0);  // at the end, Play starts again
      playBtn.textContent = "Pause";
      root.setAttribute("data-playing", "");
      tick();
    }
    function tick() {
      timer = null;
      reveal(shown + 1);
      if (runs && shown < runs[0].steps.length) timer = setTimeout(tick, delay);
      else pause();
    }
    function pause() {
      if (timer) clearTimeout(timer);
      timer = null;
      playBtn.textContent = "Play";
      root.removeAttribute("data-playing");
    }

    function prepare() {
      pause();
      msg.clear();
      runs = null;
      ui.clear(lanesEl);
      var r = prompts.encode(prompt.input.value);
      if (!r.ok) {
        msg.show(r.message, "error");
        ui.setDisabled(stepBtn, "Nothing to run: fix the prompt first.");
        playBtn.disabled = true;
        status.textContent = "";
        return;
      }
      if (r.note) msg.show(r.note, "info");
      playBtn.disabled = false;
      base = r;
      var greedy = function (logits) { return kernels.argsort(logits)[0]; };
      runs = [false, true].map(function (useCache) {
        var g = kvcache.generate(m, r.ids, { maxNew: maxNew, useCache: useCache, pick: greedy });
        return { useCache: useCache, steps: g.steps, stoppedBy: g.stoppedBy };
      });
      reveal(0);
    }

    // A step's multiply-adds open to their count (js/explain/pass.js): the rows it computed are the
    // last `fresh` of its window.
    function opsCell(s, fresh) {
      var last = s.window.length - 1;
      return ui.numberButton(ui.count(s.ops || 0), function () { return pass.ops(m.config, last + 1 - fresh, last, s.ops); },
        { label: "multiply-adds of this step" });
    }

    function reveal(n) {
      if (!runs) return;
      var total = runs[0].steps.length;
      shown = Math.max(0, Math.min(n, total));
      ui.clear(lanesEl);
      var counts = runs.map(function (run) {
        var text = ui.el("p", { class: "nt-gen-text" });
        base.tokens.forEach(function (tok) { text.appendChild(ui.chip(tok, null, "nt-prompt-tok")); });
        var body = ui.el("tbody");
        var rows = 0, ops = 0;
        run.steps.slice(0, shown).forEach(function (s, i) {
          var fresh = s.rows, why = run.useCache && i === 0 ? "prefill" : s.rebuilt ? "rebuilt" : "";
          rows += fresh; ops += s.ops || 0;
          text.appendChild(ui.chip(t.tk.show(s.id), null, "nt-new-tok"));
          body.appendChild(ui.el("tr", { class: i === shown - 1 ? "nt-gen-now" : null }, [
            ui.el("td", { class: "nt-num", text: String(i + 1) }),
            ui.el("td", null, [ui.el("code", { text: t.tk.show(s.id) })]),
            ui.el("td", { class: "nt-num" }, [String(fresh), why ? ui.el("span", { class: "nt-gen-why", text: why }) : null]),
            ui.el("td", { class: "nt-num" }, [opsCell(s, fresh)])]));
        });
        var table = ui.el("table", { class: "nt-table nt-gen-table" }, [
          ui.el("thead", null, [ui.el("tr", null, [ui.el("th", { text: "step" }), ui.el("th", { text: "pick" }),
            ui.el("th", { text: "K,V rows computed" }), ui.el("th", { text: "multiply-adds" })])]), body]);
        var last = shown > 0 ? run.steps[shown - 1] : null;
        lanesEl.appendChild(ui.el("div", { class: "nt-lane", "data-lane": run.useCache ? "cache" : "nocache" }, [
          ui.el("p", { class: "nt-lane-title", text: run.useCache ? "With a KV cache" : "Without a cache" }),
          text,
          last ? kvView(run, last, shown - 1) : ui.el("p", { class: "nt-small nt-kv-none", text: run.useCache ? "The cache is empty until the prefill." : "No K,V rows yet." }),
          ui.el("div", { class: "nt-table-wrap" }, [table]),
          ui.el("p", { class: "nt-totals", "data-rows": rows, "data-ops": ops,
            text: "Total: " + rows + " K,V rows, " + ui.count(ops) + " multiply-adds" })]));
        return last ? last.rows : 0;
      });
      var done = shown >= total;
      ui.setDisabled(stepBtn, done ? "Done: " + (runs[0].stoppedBy === "eot" ? "the model picked end-of-text." : "max_new_tokens reached.") + " Play again, Reset, or change the prompt or max_new_tokens." : "");
      if (shown === 0) status.textContent = "Ready: press Play, or Next step for the first step (the cache lane's prefill).";
      else {
        var w = runs[0].steps[shown - 1].window.length;
        status.textContent = (done ? "Stopped after " + total + " new tokens (" + (runs[0].stoppedBy === "eot" ? "the model picked end-of-text" : "max_new_tokens reached") + ")"
          : "Step " + shown + " of at most " + maxNew) + ": without a cache, all " + counts[0] + " K,V rows computed again; with the cache, " +
          (counts[1] === 1 ? "one new row (the other " + (w - 1) + " kept)." : "all " + counts[1] + " rows computed (" + (shown === 1 ? "the prefill" : "rebuilt after the window slid") + ").");
      }
    }

    // The K,V rows a lane's step left (the runtime's own cache rows, both heads side by side),
    // one row per position, K above V; the rows this step computed are marked and flash in turn.
    // Each cell opens to c_attn's projection of its row (the trace of the step's window).
    function kvView(run, step, i) {
      var win = step.window, L = step.k.length - 1, fresh = step.rows;
      var tr = m.forward(win);
      var explain = pass.of({ trace: tr, ids: win, config: m.config, weights: active.data.weights, show: t.tk.show });
      function rowOf(which, pos) { return [].concat.apply([], step[which][L].map(function (hd) { return hd[pos]; })); }
      var top = ui.maxAbs(win.map(function (_, pos) { return rowOf("k", pos).concat(rowOf("v", pos)); }));
      var grid = ui.el("div", { class: "nt-kv-rows" }, [ui.el("span", { class: "nt-vh", text: "pos" }), ui.el("span", { class: "nt-vh", text: "token" }),
        ui.el("span", { class: "nt-vh", text: "K row over V row" })]);
      win.forEach(function (id, pos) {
        var isNew = pos >= win.length - fresh, k = pos - (win.length - fresh);
        var pair = ui.el("span", { class: "nt-kv-pair" }, ["k", "v"].map(function (which) {
          var st = ui.strip(rowOf(which, pos), (which === "k" ? "key" : "value") + " row " + pos + (isNew ? " (computed at this step)" : " (kept)"),
            { top: top, explain: function (c) { return function () { return explain.kv(L, which, pos, c); }; } });
          if (isNew) st.classList.add("nt-kv-new");
          return st;
        }));
        var row = ui.el("div", { class: "nt-kv-row" + (isNew ? " nt-kv-new" : ""), "data-pos": pos, "data-id": id }, [
          ui.el("span", { class: "nt-num", text: String(pos) }), ui.el("code", { text: t.tk.show(id) }), pair]);
        if (isNew) row.style.setProperty("--k", k);
        grid.appendChild(row);
      });
      var words = !run.useCache ? "all " + win.length + " computed again at this step, and thrown away after it"
        : fresh === 1 ? "one new, " + (win.length - 1) + " kept from earlier steps"
        : "all " + win.length + " computed at this step (" + (i === 0 ? "the prefill" : "rebuilt: the window slid") + ")";
      return ui.el("div", { class: "nt-kv", "data-rows": win.length, "data-new": fresh }, [
        ui.el("p", { class: "nt-small", text: (run.useCache ? "The cache" : "The K,V rows") + " at step " + (i + 1) + " (layer " + (L + 1) + ", both heads side by side): " +
          win.length + " of " + nCtx + " rows, " + words + "." }),
        ui.legend(top, "colour scale"),
        ui.el("div", { class: "nt-scroll" }, [grid])]);
    }

    prepare();

    // Its state in the page's link, and the generation steps as a download (js/ui/permalink.js).
    permalink.join(root, live, { model: active,
      fields: { prompt: permalink.text(ui.INPUT_MAX), max: permalink.int(1, nCtx), speed: permalink.one(SPEEDS.map(function (o) { return String(o.value); })),
        step: permalink.int(0, nCtx) },
      get: function () { return { prompt: prompt.input.value, max: maxNew, speed: String(delay), step: shown }; },
      set: function (s) {
        if (s.prompt !== undefined) prompt.input.value = s.prompt;
        if (s.max !== undefined) { maxNew = s.max; maxSlider.set(s.max); }
        if (s.speed !== undefined) { delay = Number(s.speed); speed.input.value = s.speed; }
        prepare();
        if (s.step) reveal(s.step);
      },
      tables: function () {
        if (!runs) throw new Error("the prompt gives nothing to generate from (fix it first)");
        var rows = [];
        runs.forEach(function (run) {
          run.steps.forEach(function (st, i) {
            rows.push([run.useCache ? "cache" : "no cache", i + 1, st.id, t.tk.show(st.id), st.rows, st.ops || 0, st.window.length]);
          });
        });
        return [{ name: "generation-steps", columns: ["lane", "step", "id", "token", "kv_rows_computed", "multiply_adds", "window"], rows: rows }];
      } });
  });
});
