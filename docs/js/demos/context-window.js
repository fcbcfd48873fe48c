// Demo: the context window. Add tokens one at a time (greedy). The whole text is one strip that never
// wraps (it scrolls, keeping the frame in view); a frame marks the window, the active model's n_ctx
// tokens, and moves when the window slides, the tokens inside numbered by their positions, which
// renumber as it moves. Beside it, what the model sees: the window's positions and what the KV cache
// holds for each (a prefill, one new row, or, on a step where the window slid, the old cache shown
// stale and rebuilt), and the model's top three next tokens from the window.
nexttoken.define("demos.context-window", ["ui", "runtime.kernels", "runtime.active", "runtime.prompts", "runtime.model", "runtime.kvcache", "explain.pass", "ui.permalink"], function (ui, kernels, active, prompts, model, kvcache, pass, permalink) {
  "use strict";
  var MAX_PROMPT = 24;

  ui.start("context-window", function (root, live) {
    var t = active.tiny(model), m = t.model, nCtx = m.config.n_ctx;
    var msg = ui.message();
    var prompt = ui.textInput("Start text", prompts.pick(root.getAttribute("data-prompt") || "the cat sat on the mat.", { maxTokens: MAX_PROMPT }), function () { prepare(); },
      { hint: "May be longer than the window (up to " + MAX_PROMPT + " tokens)." });
    var addBtn = ui.button("Add a token", function () { reveal(shown + 1); }, { primary: true });
    var resetBtn = ui.button("Reset", function () { reveal(0); });
    var track = ui.el("div", { class: "nt-window-track" });
    var frame = ui.el("div", { class: "nt-window-frame", "aria-hidden": "true" }, [ui.el("span", { class: "nt-window-label" })]);
    var strip = ui.el("div", { class: "nt-window-strip", role: "region", tabindex: "0" }, [track, frame]);
    var info = ui.el("p", { class: "nt-window-info", "aria-live": "polite" });
    var seen = ui.el("div", { class: "nt-lane nt-x-host", "data-role": "window" });
    var next = ui.el("div", { class: "nt-lane nt-x-host", "data-role": "next" });
    live.appendChild(ui.el("div", { class: "nt-controls" }, [prompt.wrap]));
    live.appendChild(ui.el("div", { class: "nt-controls nt-buttons" }, [addBtn, resetBtn]));
    live.appendChild(msg.node);
    live.appendChild(ui.el("p", { class: "nt-small nt-window-caption", text: "The whole text, one token after another; the frame is the window of " + nCtx + " positions the model sees." }));
    live.appendChild(strip);
    live.appendChild(info);
    live.appendChild(ui.el("div", { class: "nt-lanes" }, [seen, next]));

    var base = null, steps = [], stoppedBy = null, shown = 0;

    // Text with tokens in it: strings stay text, numbers are token ids, shown as code.
    function say(parts) {
      return parts.map(function (x) { return typeof x === "number" ? ui.el("code", { text: t.tk.show(x) }) : x; });
    }

    function prepare() {
      msg.clear();
      base = null; steps = [];
      var r = prompts.encode(prompt.input.value, { maxTokens: MAX_PROMPT });
      if (!r.ok) {
        msg.show(r.message, "error");
        [track, seen, next].forEach(ui.clear);
        frame.hidden = true;
        info.textContent = "";
        ui.setDisabled(addBtn, "Nothing to extend: fix the start text first.");
        return;
      }
      if (r.note) msg.show(r.note, "info");
      base = r;
      var greedy = function (logits) { return kernels.argsort(logits)[0]; };
      var g = kvcache.generate(m, r.ids, { maxNew: MAX_PROMPT, useCache: true, pick: greedy });
      steps = g.steps; stoppedBy = g.stoppedBy;
      reveal(0);
    }

    // The text after n added tokens and the step that predicts the next one: the runtime's step n
    // (its window, its cache, its logits), or past the last one a pass without a cache over the window.
    function state(n) {
      var ids = base.ids.concat(steps.slice(0, n).map(function (s) { return s.id; }));
      var start = Math.max(0, ids.length - nCtx), window = ids.slice(start), step = steps[n];
      var prevStart = n > 0 ? Math.max(0, ids.length - 1 - nCtx) : start;
      var slid = n > 0 && start > prevStart;
      if (!step) {
        var r = kvcache.stepWithoutCache(m, window);
        step = { rebuilt: slid, logits: r.logits };
      }
      return { ids: ids, start: start, prevStart: prevStart, window: window, step: step,
               kind: n === 0 ? "prefill" : step.rebuilt ? "stale" : "grew" };
    }

    function reveal(n) {
      if (!base) return;
      shown = Math.max(0, Math.min(n, steps.length));
      var s = state(shown), ids = s.ids, start = s.start, nWin = s.window.length;
      ui.clear(track);
      var chips = ids.map(function (id, i) {
        var inWin = i >= start;
        var c = ui.chip(t.tk.show(id), inWin ? "pos " + (i - start) : "gone", inWin ? "nt-in-window" : "nt-gone");
        c.setAttribute("data-index", i);
        c.setAttribute("data-id", id);
        if (inWin) c.setAttribute("data-pos", i - start);
        track.appendChild(c);
        return c;
      });
      strip.setAttribute("aria-label", "The whole text, " + ids.length + " tokens: " + ids.map(function (id) { return t.tk.show(id); }).join(" ") +
        ". The window holds the last " + nWin + ".");
      place(chips[start], chips[ids.length - 1]);
      frame.querySelector(".nt-window-label").textContent = "window: " + nWin + " of " + nCtx + " positions";

      var parts = [ids.length + " tokens; the window holds tokens " + (start + 1) + " to " + ids.length + " (counted from one), at positions 0 to " +
        (nWin - 1) + " (" + nWin + " of " + nCtx + ")."];
      if (start > 0) parts.push(start + " earlier token" + (start === 1 ? " is" : "s are") + " gone: the model cannot see " + (start === 1 ? "it" : "them") + " at all.");
      ui.clear(info);
      say([parts.join(" ")].concat(shown > 0 ? [" Added ", steps[shown - 1].id, ", the top pick of the window before."] : []))
        .forEach(function (x) { info.appendChild(typeof x === "string" ? document.createTextNode(x) : x); });
      info.setAttribute("data-window-start", start);
      info.setAttribute("data-rebuilt", s.kind === "stale" ? "1" : "0");
      drawWindow(s);
      drawNext(s);
      var done = shown >= steps.length;
      ui.setDisabled(addBtn, !done ? "" : stoppedBy === "eot" ? "The model picked end-of-text; Reset or change the start text to go on." : "Reached the demo's limit of new tokens.");
    }

    // The frame over the window's chips (it moves when they change), and the strip scrolled so that the
    // whole frame is in view, or, on a screen narrower than the window, its newest end.
    var placed = false, at = null;
    function place(first, last) {
      frame.hidden = false;
      at = [first, last];
      // built before the page shows it: measure once it is laid out
      if (!strip.isConnected) { requestAnimationFrame(function () { if (at[0] === first) place(first, last); }); return; }
      if (!placed) frame.style.transition = "none";  // the first frame appears where it belongs, unmoved
      var left = first.offsetLeft - 4, right = last.offsetLeft + last.offsetWidth + 4, view = strip.clientWidth;
      frame.style.left = left + "px";
      frame.style.width = (right - left) + "px";
      if (right - left + 16 > view || right > strip.scrollLeft + view) strip.scrollLeft = right - view + 8;
      else if (left < strip.scrollLeft) strip.scrollLeft = Math.max(0, left - 8);
      if (!placed) { void frame.offsetWidth; frame.style.transition = ""; placed = true; }
    }
    window.addEventListener("resize", function () { if (at) { placed = false; place(at[0], at[1]); } });

    // What the model sees and what its cache holds for each position of the window.
    function drawWindow(s) {
      ui.clear(seen);
      var stale = s.kind === "stale", win = s.window, shift = s.start - s.prevStart;
      var body = ui.el("tbody");
      win.forEach(function (id, pos) {
        var i = s.start + pos, was = i - s.prevStart;  // where this token stood in the window before
        var row = stale ? "rebuilt" : s.kind === "prefill" ? "prefill" : pos === win.length - 1 ? "new" : "kept", moved = stale && was < win.length;
        body.appendChild(ui.el("tr", { "data-pos": pos, "data-cache": row }, [
          ui.el("td", { class: "nt-num", text: String(pos) }),
          ui.el("td", null, [ui.el("code", { text: t.tk.show(id) })]),
          stale ? ui.el("td", { class: "nt-num" + (moved ? " nt-stale" : "") }, [moved ? "was " + was : "new"]) : null,
          ui.el("td", { class: "nt-cache-" + row }, stale && moved ? [ui.el("span", { class: "nt-stale", text: "stale" }), " rebuilt"] : [row])]));
      });
      var head = ["pos", "token"].concat(stale ? ["before the slide"] : []).concat(["K,V row"]);
      var table = ui.el("table", { class: "nt-table nt-window-table" }, [
        ui.el("thead", null, [ui.el("tr", null, head.map(function (h) { return ui.el("th", { text: h }); }))]), body]);
      var words = s.kind === "prefill" ? ["The cache starts with a prefill: all " + win.length + " rows computed at once."]
        : stale ? ["The window slid by " + (shift === 1 ? "one" : shift) + ": "].concat(s.ids.slice(s.prevStart, s.start),
          [" fell out and every token moved " + (shift === 1 ? "one position" : shift + " positions") + " to the left. Every cached K,V row was " +
           "computed for a token at its old position, so the whole cache is stale: thrown away, and all " + win.length + " rows computed again."])
        : ["The window did not slide: the cache keeps its " + (win.length - 1) + " rows and adds one, for ", win[win.length - 1], "."];
      seen.setAttribute("data-cache", s.kind);
      seen.appendChild(ui.el("p", { class: "nt-lane-title", text: "What the model sees: positions 0 to " + (win.length - 1) }));
      seen.appendChild(ui.el("p", { class: "nt-small nt-cache-note" + (stale ? " nt-stale-note" : "") }, say(words)));
      seen.appendChild(ui.el("div", { class: "nt-table-wrap" }, [table]));
    }

    // The top three next tokens, from the window (the step's logits, through the one softmax).
    function drawNext(s) {
      ui.clear(next);
      var logits = s.step.logits, probs = kernels.softmax(logits, 0, logits.length, null, 0, 1);
      var order = kernels.argsort(probs).slice(0, 3);
      var tr = m.forward(s.window), last = s.window.length - 1;
      var explain = pass.of({ trace: tr, ids: s.window, config: m.config, weights: active.data.weights, show: t.tk.show });
      next.appendChild(ui.el("p", { class: "nt-lane-title", text: "Next token, from the window" }));
      next.appendChild(ui.el("p", { class: "nt-small" }, say(["The model's top three after ", s.window[last], ", seeing only these " + s.window.length + " tokens" +
        (s.start > 0 ? " (not the " + s.start + " gone)." : ".")])));
      next.appendChild(ui.bars(order.map(function (id) {
        return { label: t.tk.show(id), value: probs[id], data: { token: t.tk.show(id), id: id, prob: probs[id] },
          text: ui.numberButton(ui.pct(probs[id]), function () { return explain.prob(id, 1, null, last); }, { label: "probability of " + t.tk.show(id) }) };
      }), { label: "top three next tokens" }));
    }

    prepare();

    // Its start text and the tokens added in the page's link; the steps as a download (js/ui/permalink.js).
    permalink.join(root, live, { model: active,
      fields: { prompt: permalink.text(ui.INPUT_MAX), added: permalink.int(0, 10 * MAX_PROMPT) },
      get: function () { return { prompt: prompt.input.value, added: shown }; },
      set: function (s) { if (s.prompt !== undefined) prompt.input.value = s.prompt; prepare(); if (s.added) reveal(s.added); },
      tables: function () {
        if (!base) throw new Error("the start text gives nothing to extend (fix it first)");
        return [{ name: "steps", columns: ["step", "id", "token", "window_length"],
          rows: steps.map(function (st, i) { return [i + 1, st.id, t.tk.show(st.id), st.window.length]; }) }];
      } });
  });
});
