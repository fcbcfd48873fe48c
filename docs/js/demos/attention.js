// Demo: attention decides. Two prompts with the same last token; in one head, each token is joined to
// the tokens it looks at by lines as wide as the weights (the last token's drawn in full at first),
// the bars below read out the chosen token's weights and scores, then what they gather and the
// model's top next tokens.
nexttoken.define("demos.attention", ["ui", "runtime.kernels", "store", "runtime.active", "runtime.prompts", "runtime.model", "explain.pass", "attention-lines", "ui.permalink"], function (ui, kernels, store, active, prompts, model, pass, attnLines, permalink) {
  "use strict";

  function signed(x, d) { return ui.fix(x, d).replace("-", "\u2212"); }

  ui.start("attention", function (root, live) {
    var t = active.tiny(model);
    var m = t.model;
    // The page names the built model's subject head; the reader's own model has its own (train-yours.js's summary).
    var own = active.data.yours && active.data.summary && active.data.summary.subject_head;
    var head = own ? own.head : Number(root.getAttribute("data-head") || 0);
    var lanes = [];
    var wrap = ui.el("div", { class: "nt-lanes" });
    var options = [];
    for (var hd = 0; hd < m.config.n_head; hd++) options.push({ value: hd, label: "head " + (hd + 1) });
    var headPick = ui.radios("Which head", options, head, function (v) { head = Number(v); lanes.forEach(function (l) { l.run(); }); });

    // A reader's model: the page's prompt where it reads it, else its own prompts, one per lane.
    function ownPrompt(attr, k) {
      var text = root.getAttribute(attr) || "", mine = t.config.prompts || [];
      return prompts.pick(text) === text ? text : mine[k % Math.max(1, mine.length)] || "";
    }
    ["data-prompt-a", "data-prompt-b"].forEach(function (attr, k) {
      var lane = { msg: ui.message(), out: ui.el("div", { class: "nt-lane-out nt-x-host", "aria-live": "polite" }) };
      lane.prompt = ui.textInput("Prompt " + (k === 0 ? "A" : "B"), active.data.yours ? ownPrompt(attr, k) : root.getAttribute(attr) || "", function () { lane.run(); });
      lane.run = function () {
        lane.msg.clear();
        ui.clear(lane.out);
        var r = prompts.encode(lane.prompt.input.value);
        if (!r.ok) { lane.sel = undefined; lane.msg.show(r.message, "error"); return; }
        if (r.note) lane.msg.show(r.note, "info");
        var tr = m.forward(r.ids, { knockout: store.get("knockout") || null });
        var last = r.ids.length - 1, explain = pass.of({ trace: tr, ids: r.ids, config: m.config, weights: active.data.weights, show: t.tk.show });
        if (tr.knockout.heads[head]) lane.msg.show("Head " + (head + 1) + " is switched off by the knock-out below: it still computes these weights, but its output is set to zero.", "info");
        var W = tr.h[0].attn_weights[head];
        var readout = ui.el("div", { class: "nt-attn-readout" });
        var picture = attnLines.create({ tokens: r.tokens, weights: W, selected: last, label: "head " + (head + 1),
          onSelect: function (i) { readOut(i); } });
        lane.out.appendChild(ui.el("p", { class: "nt-small", text: "Where each token looks in head " + (head + 1) +
          ": a line from each token to itself and to every earlier one, as wide as its weight. Pick a token on the left (or hover one) to see its lines." }));
        lane.out.appendChild(picture.node);
        lane.out.appendChild(readout);

        // The chosen position's weights and scores as bars, then what they gather: each visible
        // position's value vector, scaled by its weight, summed.
        function readOut(i) {
          lane.sel = i;
          lane.pick = function (k) { picture.select(k, true); readOut(k); };
          lane.shown = { tokens: r.tokens, W: W, scores: tr.h[0].scores[head] };
          ui.clear(readout);
          var w = W[i];
          readout.appendChild(ui.el("p", { class: "nt-small", text: "Attention from " + r.tokens[i] + " (position " + i + "), head " + (head + 1) + ": weight, then score." }));
          readout.appendChild(ui.bars(r.tokens.slice(0, i + 1).map(function (tok, j) {
            return { label: tok, value: w[j], rowCls: "nt-attn-col", data: { token: tok, weight: w[j], i: i, j: j },
              text: ui.el("span", { class: "nt-attn-nums" }, [
                ui.numberButton(ui.pct(w[j]), function () { return explain.weight(0, head, i, j); }, { cls: "nt-attn-pct", label: "weight of " + r.tokens[i] + " on " + tok }),
                ui.numberButton(signed(tr.h[0].scores[head][i][j], 2), function () { return explain.score(0, head, i, j); },
                  { cls: "nt-attn-score", label: "score of " + r.tokens[i] + " on " + tok })]) };
          }), { label: "attention weights from " + r.tokens[i] + ", head " + (head + 1) }));
          var V = tr.h[0].v[head], out = tr.h[0].head_out[head][i];
          var top = ui.maxAbs(V.slice(0, i + 1).concat([out]));
          var mixGrid = ui.el("div", { class: "nt-vecgrid nt-vecgrid-3" }, [ui.el("span", { class: "nt-vh", text: "token" }),
            ui.el("span", { class: "nt-vh", text: "weight" }), ui.el("span", { class: "nt-vh", text: "value vector v" })]);
          r.tokens.slice(0, i + 1).forEach(function (tok, j) {
            mixGrid.appendChild(ui.el("code", { text: tok }));
            mixGrid.appendChild(ui.el("span", { class: "nt-num" }, [ui.numberButton(ui.pct(w[j]), function () {
              return explain.weight(0, head, i, j); }, { label: "weight of " + r.tokens[i] + " on " + tok })]));
            mixGrid.appendChild(ui.strip(V[j], "value vector of " + tok, { top: top }));
          });
          mixGrid.appendChild(ui.el("span", { class: "nt-vh", text: "= mix" }));
          mixGrid.appendChild(ui.el("span", { class: "nt-num", text: "Σ weight × v" }));
          mixGrid.appendChild(ui.strip(out, "the head's output at " + r.tokens[i], { top: top,
            explain: function (d) { return function () { return explain.mix(0, head, i, d); }; } }));
          readout.appendChild(ui.el("p", { class: "nt-small", text: "What it gathers: the value vectors, mixed by those weights (open a cell of the mix)." }));
          readout.appendChild(ui.legend(top, "colour scale"));
          readout.appendChild(ui.el("div", { class: "nt-scroll" }, [mixGrid]));
        }
        // a rerun of the same prompt (a knock-out changed) keeps the chosen token
        var keep = lane.sel !== undefined && lane.text === r.text && lane.sel <= last ? lane.sel : last;
        lane.text = r.text;
        if (keep !== last) picture.select(keep, true);
        readOut(keep);

        var probs = tr.probs[last];
        var order = kernels.argsort(probs).slice(0, 3);
        lane.out.appendChild(ui.el("p", { class: "nt-small", text: "Most likely next tokens, after " + r.tokens[last] + ":" }));
        lane.out.appendChild(ui.bars(order.map(function (id) {
          return { label: t.tk.show(id), value: probs[id], data: { next: t.tk.show(id), prob: probs[id] },
            text: ui.numberButton(ui.pct(probs[id]), function () { return explain.prob(id, 1, null, last); },
              { label: "probability of " + t.tk.show(id) }) };
        }), { label: "next-token probabilities" }));
        lane.out.appendChild(ui.el("p", { class: "nt-pick" }, ["Answer: ", ui.el("code", { class: "nt-pick-token", text: t.tk.show(order[0]) })]));
      };
      lanes.push(lane);
      wrap.appendChild(ui.el("div", { class: "nt-lane", "data-lane": k === 0 ? "a" : "b" }, [lane.prompt.wrap, lane.msg.node, lane.out]));
    });
    live.appendChild(ui.el("div", { class: "nt-controls" }, [headPick]));
    live.appendChild(wrap);
    lanes.forEach(function (l) { l.run(); });
    store.subscribe("knockout", function () { lanes.forEach(function (l) { l.run(); }); });

    // Its state in the page's link (both prompts, the head, each lane's chosen token), and the head's
    // weights in both lanes as a download (js/ui/permalink.js).
    var nCtx = m.config.n_ctx;
    permalink.join(root, live, { model: active,
      fields: { a: permalink.text(ui.INPUT_MAX), b: permalink.text(ui.INPUT_MAX), head: permalink.int(0, m.config.n_head - 1),
        ia: permalink.int(0, nCtx - 1), ib: permalink.int(0, nCtx - 1) },
      get: function () { return { a: lanes[0].prompt.input.value, b: lanes[1].prompt.input.value, head: head, ia: lanes[0].sel, ib: lanes[1].sel }; },
      set: function (s) {
        if (s.a !== undefined) lanes[0].prompt.input.value = s.a;
        if (s.b !== undefined) lanes[1].prompt.input.value = s.b;
        if (s.head !== undefined) {
          head = s.head;
          var radio = headPick.querySelector('input[value="' + head + '"]');
          if (radio) radio.checked = true;
        }
        lanes.forEach(function (l, k) {
          l.sel = undefined;
          l.run();
          var at = k === 0 ? s.ia : s.ib;
          if (at !== undefined && l.sel !== undefined && at < l.shown.tokens.length) l.pick(at);
        });
      },
      tables: function () {
        var rows = [];
        lanes.forEach(function (l, k) {
          if (l.sel === undefined) return;
          var x = l.shown;
          x.W.forEach(function (row, i) {
            for (var j = 0; j <= i; j++) rows.push([k === 0 ? "A" : "B", head + 1, i, j, x.tokens[i], x.tokens[j], row[j], x.scores[i][j]]);
          });
        });
        if (!rows.length) throw new Error("neither prompt gives attention to export (fix them first)");
        return [{ name: "attention-weights", columns: ["lane", "head", "query_pos", "key_pos", "query_token", "key_token", "weight", "score"], rows: rows }];
      } });
  });
});
