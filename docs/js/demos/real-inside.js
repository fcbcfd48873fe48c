// Inside SmolLM2: the logit lens across the blocks, the grid of every block's heads (each cell the
// head's strongest attention from the last position; opened, its weights over the prompt's tokens),
// switching heads and MLPs off, the build-found knock-out that changes an answer, and the arithmetic
// of the last step (a logit, a probability). It shows the pass the store names (keys declared in
// js/nexttoken.js): "real.pass" (the live pass, from the panel above), else "real.stored" (the stored
// record real-distribution shows, measured by the build). It writes "real.knockout" (parts switched
// off: the panel reruns the pass), "real.prompt" (its example, for the panel to run) and "real.inside"
// (null while it is off screen, else {at}: the panel's passes then compute the lens, at position `at`,
// and the heads). Container: data-sinks, the build's sink count on “The cat sat on the” ({count, of,
// threshold}): a head is a sink when the last token gives the first token more than `threshold` of
// its attention (the attention page's rule); data-prompt, the stored prompt it shows where no bars
// are on the page (its embed page), loading it itself.
// Its state is in the page's link (js/ui/permalink.js): the prompt (stored, or live: then a link
// says it needs the model and offers the Load button), the lens position, the parts switched off,
// the open head and the click's choice. A link's prompt reaches the bars through "real.inside-link"
// ({key, live, text, chat}: they show it as a link to them would); its knock-out waits for the model.
// Its downloads: the lens table, the open head's weights, every head's summary and the answer.
nexttoken.define("demos.real-inside", ["ui", "store", "ui.real-badge", "explain.real", "data.smollm2-knockout",
  "data.smollm2-dist-index", "later:data.smollm2-dist-*", "ui.permalink"], function (ui, store, badge, real, example, index, loadPrompt, permalink) {
  "use strict";
  var el = ui.el;
  var LENS_TOP = 3, ANSWER_TOP = 3;

  function show(piece) { return String(piece).replace(/ /g, "·").replace(/\n/g, "↵"); }
  function pieceText(p) { return p && typeof p === "object" ? p.label : p; }
  function headName(l, h) { return "block " + (l + 1) + ", head " + (h + 1); }

  // The n largest of an array of logits, with their softmax probabilities over all of it.
  function topOf(logits, n) {
    var V = logits.length, mx = -Infinity, i, z = 0, best = [];
    for (i = 0; i < V; i++) if (logits[i] > mx) mx = logits[i];
    for (i = 0; i < V; i++) {
      z += Math.exp(logits[i] - mx);
      if (best.length < n || logits[i] > logits[best[best.length - 1]]) {
        best.push(i);
        best.sort(function (a, b) { return logits[b] - logits[a]; });
        if (best.length > n) best.pop();
      }
    }
    return best.map(function (id) { return { id: id, logit: logits[id], prob: Math.exp(logits[id] - mx) / z }; });
  }

  // A view: what the section draws, from a live pass or a stored prompt.
  function liveView(pass, model) {
    var r = pass.result, tk = model && model.tokenizer;
    var tokens = (pass.pieces || []).map(pieceText);
    function name(id) { return tk ? pieceText(tk.pieces([id])[0]) : "#" + id; }
    var T = pass.ids.length, heads = [];
    (r.heads || []).forEach(function (flat) {
      var H = flat.length / T, row = [];
      for (var h = 0; h < H; h++) {
        var w = Array.prototype.slice.call(flat, h * T, (h + 1) * T), top = 0;
        for (var j = 1; j < T; j++) if (w[j] > w[top]) top = j;
        row.push({ weights: w, top: top, topWeight: w[top], first: w[0] });
      }
      heads.push(row);
    });
    var lens = (r.lens || []).map(function (logits, l) {
      return { layer: l + 1, label: "block " + (l + 1), top: topOf(logits, LENS_TOP).map(function (t) { return { id: t.id, piece: name(t.id), prob: t.prob }; }) };
    });
    var answer = topOf(r.logits, ANSWER_TOP).map(function (t) { t.piece = name(t.id); return t; });
    return { live: true, text: pass.text, chat: !!pass.chat, ids: pass.ids, tokens: tokens, heads: heads, lens: lens,
             inside: pass.inside || null, lensAt: pass.inside ? pass.inside.at : T - 1, state: badge.of(pass),
             answer: answer, logits: r.logits, final: r.final || null, knockout: pass.knockout || { heads: [], mlp: [] } };
  }

  function storedView(d) {
    var heads = d.attention.layers.map(function (layer) {
      return layer.first.map(function (first, h) {
        return { weights: null, top: layer.top_pos[h], topWeight: layer.top_weight[h], first: first };
      });
    });
    var lens = d.lens.map(function (row) {
      return { layer: row.layer, label: row.layer === 0 ? "embedding" : "block " + row.layer,
               top: row.pieces.slice(0, LENS_TOP).map(function (p, i) { return { id: row.ids ? row.ids[i] : undefined, piece: p, prob: row.probs[i] }; }) };
    });
    var answer = d.head.pieces.slice(0, ANSWER_TOP).map(function (p, i) { return { rank: i, id: d.head.ids[i], piece: p, prob: d.head.probs[i], logit: d.head.logits[i] }; });
    return { live: false, key: d.key, text: d.text, chat: d.chat, tokens: d.tokens, heads: heads, lens: lens, answer: answer, stored: d,
             inside: true, lensAt: d.tokens.length - 1, state: "stored",
             knockout: { heads: [], mlp: [] } };
  }

  ui.start("real-inside", function (root, live) {
    var view = null, opened = null, mode = "open", rows = {}, focus = [0, 0];
    var ko = { heads: [], mlp: [] };
    var threshold = JSON.parse(root.getAttribute("data-sinks") || "{}").threshold;
    var msg = ui.message();
    var state_ = badge(), sourceText = el("span", { "data-role": "inside-source-text" });
    var source = el("p", { class: "nt-source-line", "data-role": "inside-source", "aria-live": "polite" }, [state_.node, sourceText]);
    var lensAt = null;  // the position the reader picked for the lens; null: the last
    // Where no bars are on the page (its embed page), it loads the stored prompt itself.
    var alone = !document.querySelector('.nt-demo[data-demo="real-distribution"]'), own = null, ownKey = null;
    // Until its first prompt arrives the view waits unseen, in the fallback's room: drawn as the data came,
    // its sections would slide down under the reader's eyes.
    function veil(on) {
      var fallback = root.querySelector(".nt-fallback");
      live.style.minHeight = on && fallback ? fallback.offsetHeight + "px" : "";
      live.style.visibility = on ? "hidden" : "";
    }
    function showKey(key) {
      var entry = index.prompts.filter(function (pr) { return pr.key === (key || root.getAttribute("data-prompt")); })[0] || index.prompts[0];
      ownKey = entry.key;
      if (!own) veil(true);
      loadPrompt(entry.file.replace(/^smollm2-dist-|\.js$/g, "")).then(function (got) {
        if (ownKey === entry.key) { own = got; follow(); }
        veil(false);
      }, function (err) { veil(false); msg.show(err.message + " (is the js/data folder beside this page?).", "error"); });
    }
    var lensPick = el("select", { class: "nt-input", "data-role": "lens-at" });
    lensPick.addEventListener("change", function () {
      lensAt = Number(lensPick.value);
      if (view && lensAt === view.tokens.length - 1) lensAt = null;
      if (wanted) want(true);
    });
    var lensPickField = ui.field("Position (from 0)", lensPick);
    var lensNote = el("p", { class: "nt-note", "data-role": "lens-note" });
    var answerBox = el("div", { class: "nt-x-host", "data-role": "answer" });
    var exampleBox = el("div", { class: "nt-inside-example", "data-role": "example" });
    var lensBox = el("div", { class: "nt-table-wrap", "data-role": "lens" });
    var offLine = el("p", { class: "nt-note", "data-role": "off", "aria-live": "polite" });
    var sinkLine = el("p", { class: "nt-note", "data-role": "sinks" });
    var grid = el("div", { class: "nt-head-grid", role: "group", "data-role": "heads",
      "aria-label": "Every head of every block and each block's MLP. Arrow keys move between them, Enter opens a head or switches it off (see the choice above)." });
    var headBox = el("div", { class: "nt-inside-head", "data-role": "head-weights", "aria-live": "polite" });
    var modeRadios = ui.radios("A click on a head", [{ value: "open", label: "opens its weights" }, { value: "off", label: "switches it off or on" }], "open",
      function (v) { mode = v; });
    var reset = ui.button("Switch everything back on", function () { setKnockout({ heads: [], mlp: [] }); });
    reset.setAttribute("data-role", "reset");
    var koMsg = ui.message();  // what a switch needs, said under the switches (the demo's top is screens away)

    live.appendChild(source);
    live.appendChild(msg.node);
    live.appendChild(ui.section("The answer, and its arithmetic", [answerBox]));
    live.appendChild(ui.section("Switch parts off: one that changes the answer", [exampleBox]));
    live.appendChild(ui.section("Logit lens: each block's guess", [
      el("p", { class: "nt-note", text: "Each row reads the stream after one block through the final norm and the unembedding, as if the model stopped there; a cell's shade is its probability. Early blocks mostly guess spaces and punctuation: the stream has not yet gathered what the prompt says, so the commonest tokens win." }),
      el("div", { class: "nt-controls" }, [lensPickField]), lensNote, lensBox]));
    live.appendChild(ui.section("Every head, from the last position", [
      el("p", { class: "nt-note", text: "Each cell is one head: its colour is the largest share of attention the last token gives any token, grey when the head puts more than " + ui.pct(threshold, 0) + " on the first token (a sink: a resting place, not a word it reads). The last column is the block's MLP." }),
      sinkLine, el("div", { class: "nt-controls" }, [modeRadios, reset]), koMsg.node, offLine, grid, headBox]));

    function isOff(l, h) { return ko.heads.some(function (x) { return x[0] === l && x[1] === h; }); }
    function mlpOff(l) { return ko.mlp.indexOf(l) >= 0; }

    function setKnockout(next) {
      var model = store.get("real.model");
      if (!model) {
        koMsg.show("Switching a part off reruns the real model: " + (alone ? "it loads on this view's page (linked below)." : "load it with the panel above first."), "warn");
        return false;
      }
      koMsg.clear();
      ko = { heads: next.heads.map(function (x) { return [x[0], x[1]]; }), mlp: next.mlp.slice() };
      drawGrid();
      store.set("real.knockout", { heads: ko.heads.map(function (x) { return x.slice(); }), mlp: ko.mlp.slice() });
      return true;
    }
    function toggleHead(l, h) {
      var heads = ko.heads.filter(function (x) { return !(x[0] === l && x[1] === h); });
      if (!isOff(l, h)) heads.push([l, h]);
      heads.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
      setKnockout({ heads: heads, mlp: ko.mlp });
    }
    function toggleMlp(l) {
      var mlp = ko.mlp.filter(function (x) { return x !== l; });
      if (!mlpOff(l)) mlp.push(l);
      mlp.sort(function (a, b) { return a - b; });
      setKnockout({ heads: ko.heads, mlp: mlp });
    }

    function describeOff() {
      var parts = ko.heads.map(function (x) { return headName(x[0], x[1]); })
        .concat(ko.mlp.map(function (l) { return "block " + (l + 1) + "'s MLP"; }));
      return parts.length ? "Switched off: " + parts.join(", ") + "." : "Every part is on.";
    }

    // ---- the answer: the top tokens, each probability and logit opening to its arithmetic -------
    var rowCache = {};
    function drawAnswer() {
      ui.clear(answerBox);
      if (!view) return;
      var model = store.get("real.model");
      var list = el("ol", { class: "nt-inside-answer" });
      view.answer.forEach(function (t) {
        var spec = { ids: view.ids || [], knockout: view.knockout, piece: "“" + show(t.piece) + "”", weightsFile: example.weights_file };
        var probBtn = ui.numberButton(ui.pct(t.prob, 2), function () {
          return real.prob(view.live ? Object.assign({ logits: view.logits, id: t.id }, spec) : Object.assign({ stored: view.stored, rank: t.rank }, spec));
        }, { label: "probability of " + show(t.piece) });
        var logitBtn;
        var row = view.live && rowCache[t.id];
        if (view.live && view.final && row) {
          logitBtn = ui.numberButton(ui.fix(t.logit, 2), function () {
            return real.logit(Object.assign({ final: view.final, row: row, id: t.id }, spec));
          }, { label: "logit of " + show(t.piece) });
        } else {
          logitBtn = el("span", { text: ui.fix(t.logit, 2) });
        }
        list.appendChild(el("li", { "data-token": t.piece, "data-prob": String(t.prob), "data-logit": String(t.logit), "data-id": t.id === undefined ? null : String(t.id) },
          [el("code", { text: show(t.piece) }), ": probability ", probBtn, ", logit ", logitBtn]));
      });
      answerBox.appendChild(el("p", { class: "nt-note", text: view.live
        ? "The live pass's most likely next tokens" + (view.knockout.heads.length || view.knockout.mlp.length ? ", with the parts below switched off" : "") + ". Open a number to see it computed."
        : "The stored pass's most likely next tokens (measured by the build). Open a probability to see the softmax over the whole vocabulary; a logit's arithmetic needs the final vector, which the live model gives." }));
      answerBox.appendChild(list);
      // the rows of the top tokens, for the logit's arithmetic, fetched once per token
      if (view.live && view.final && model && model.session && model.session.row) {
        var missing = view.answer.filter(function (t) { return !rowCache[t.id]; });
        if (missing.length) {
          var shown = view;
          Promise.all(missing.map(function (t) { return model.session.row(t.id); })).then(function (got) {
            missing.forEach(function (t, i) { rowCache[t.id] = got[i]; });
            if (view === shown) drawAnswer();
          }, function (err) { msg.show(err.message, "error"); });
        }
      }
    }

    // ---- the build-found example ------------------------------------------------------------
    function drawExample() {
      var p = example.part, b = example.before[0], a = example.after[0], o = example.old_top_after;
      var part = p.kind === "head" ? headName(p.layer, p.head) : "block " + (p.layer + 1) + "'s MLP";
      var btn = ui.button("Run “" + example.text + "” with " + part + " off", function () {
        if (setKnockout(example.knockout)) store.set("real.prompt", { text: example.text, chat: example.chat });
      });
      btn.setAttribute("data-role", "example-run");
      ui.clear(exampleBox);
      exampleBox.appendChild(el("p", { text: "Found by the build with transformers: on “" + example.text +
        "”, switching off " + part + " moves the most likely next token from “" + show(b.piece) + "” (" + ui.pct(b.prob, 1) + ") to “" + show(a.piece) +
        "” (" + ui.pct(a.prob, 1) + "); “" + show(o.piece) + "” falls to " + ui.pct(o.prob, 1) + ". The search tried " + ui.count(example.searched.parts_tried) +
        " parts (" + example.searched.order + ", over the prompts " + example.searched.prompts.map(function (k) { return "“" + k + "”"; }).join(", ") + ") and stopped at the first that changed an answer." }));
      exampleBox.appendChild(el("div", { class: "nt-controls" }, [btn]));
      var check = el("p", { class: "nt-note", "data-role": "example-check", "aria-live": "polite" });
      exampleBox.appendChild(check);
      if (view && view.live && same(view.ids, example.ids) && sameKo(view.knockout, example.knockout)) {
        var got = view.answer[0];
        check.textContent = "In this page the top token is now “" + show(got.piece) + "” at " + ui.pct(got.prob, 1) +
          (got.id === a.id ? ", as the build found." : ", not the build's “" + show(a.piece) + "”.");
      }
      ui.setDisabled(btn, store.get("real.model") ? "" : alone ? "It runs the real model, which loads on this view's page (linked below)." : "It runs the real model: load it with the panel above first.");
    }
    function same(a, b) { return a && b && a.length === b.length && a.every(function (x, i) { return x === b[i]; }); }
    function sameKo(a, b) { return JSON.stringify(a.heads) === JSON.stringify(b.heads) && JSON.stringify(a.mlp) === JSON.stringify(b.mlp); }

    // ---- the lens ---------------------------------------------------------------------------
    // The first block from which the top guess is the final one: where the final answer first leads.
    function leadRow(lens) {
      var last = lens[lens.length - 1].top[0], at = lens.length - 1;
      for (var i = lens.length - 1; i >= 0 && lens[i].top[0].piece === last.piece; i--) at = i;
      return at;
    }
    function drawLens() {
      var T = view.tokens.length;
      ui.clear(lensPick);
      view.tokens.forEach(function (t, j) { lensPick.appendChild(el("option", { value: String(j), text: j + " " + show(t) })); });
      lensPick.value = String(view.lensAt);
      lensPick.disabled = !view.live;
      if (!view.live) lensPickField.title = "The build stored the lens at the last position: load the model to read another.";
      else lensPickField.removeAttribute("title");
      ui.clear(lensBox);
      if (!view.lens.length) {
        lensNote.textContent = view.live ? "Computing the lens for this pass…" : "";
        return;
      }
      var lead = leadRow(view.lens);
      lensNote.textContent = "After “" + show(view.tokens[view.lensAt]) + "” (position " + view.lensAt + " of " + T + " tokens). “" +
        show(view.lens[view.lens.length - 1].top[0].piece) + "”, the last block's guess, first leads after " + view.lens[lead].label + " (marked)." +
        (view.live ? "" : " The build stored the lens at the last position only: load the model to pick another.");
      var head = el("tr", null, [el("th", { scope: "col", text: "after" })]);
      for (var i = 0; i < LENS_TOP; i++) head.appendChild(el("th", { scope: "col", text: "top " + (i + 1) }));
      var body = el("tbody");
      view.lens.forEach(function (row, r) {
        var tr = el("tr", { class: r === lead ? "nt-lens-lead" : null }, [el("th", { scope: "row", text: row.label + (r === lead ? " ← first leads" : "") })]);
        row.top.forEach(function (t) {
          var td = el("td", { class: "nt-lens-cell", "data-prob": String(t.prob), "data-id": t.id === undefined ? null : String(t.id) }, [el("code", { text: show(t.piece) }), " " + ui.pct(t.prob, 1)]);
          td.style.setProperty("--p", Math.min(1, t.prob).toFixed(3));
          tr.appendChild(td);
        });
        body.appendChild(tr);
      });
      lensBox.appendChild(el("table", { class: "nt-table nt-lens-table", "data-at": String(view.lensAt) }, [el("thead", null, [head]), body]));
    }

    // ---- the grid ---------------------------------------------------------------------------
    function cellLabel(l, h) {
      var c = view.heads[l][h];
      return headName(l, h) + ": " + ui.pct(c.topWeight, 1) + " on " + show(view.tokens[c.top]) + " (position " + c.top + "), " + (isOff(l, h) ? "off" : "on");
    }
    function isSink(c) { return c.first > threshold; }
    function drawGrid() {
      if (!view) return;
      var hadFocus = grid.contains(document.activeElement);
      ui.clear(grid);
      rows = [];
      offLine.textContent = describeOff();
      if (!view.heads.length) { sinkLine.textContent = "Computing every head's weights for this pass…"; return; }
      var sinks = 0, all = 0;
      view.heads.forEach(function (layer) { layer.forEach(function (c) { all += 1; if (isSink(c)) sinks += 1; }); });
      sinkLine.textContent = sinks + " of " + all + " heads put more than " + ui.pct(threshold, 0) + " of the last token's attention on the first token (“" +
        show(view.tokens[0]) + "”): the grey cells, the sinks the attention page counts the same way.";
      // column numbers (heads, then the MLP): seen, not read; each button's name says its head
      var top = el("div", { class: "nt-head-grid-top", "aria-hidden": "true" }, [el("span", { class: "nt-head-grid-label", text: "" })]);
      view.heads[0].forEach(function (_, h) { top.appendChild(el("span", { class: "nt-head-grid-col", text: String(h + 1) })); });
      top.appendChild(el("span", { class: "nt-head-grid-col nt-mlp-col", text: "MLP" }));
      grid.appendChild(top);
      view.heads.forEach(function (layer, l) {
        var row = el("div", { class: "nt-head-grid-row" }, [el("span", { class: "nt-head-grid-label", "aria-hidden": "true", text: String(l + 1) })]);
        var cells = [];
        layer.forEach(function (c, h) {
          var b = el("button", { type: "button", class: "nt-head-cell" + (isSink(c) ? " nt-sink" : "") + (isOff(l, h) ? " nt-off" : ""),
            "aria-label": cellLabel(l, h), title: cellLabel(l, h), "data-layer": l, "data-head": h, tabindex: "-1",
            "aria-expanded": opened && opened[0] === l && opened[1] === h ? "true" : "false" });
          b.style.setProperty("--a", Math.min(1, c.topWeight).toFixed(3));
          b.addEventListener("click", function () { focus = [l, h]; if (mode === "off") toggleHead(l, h); else openHead(l, h); });
          cells.push(b);
          row.appendChild(b);
        });
        var m = el("button", { type: "button", class: "nt-head-cell nt-mlp-cell" + (mlpOff(l) ? " nt-off" : ""), "data-layer": l, "data-mlp": "",
          "aria-label": "block " + (l + 1) + "'s MLP, " + (mlpOff(l) ? "off" : "on"), title: "block " + (l + 1) + "'s MLP: a click switches it " + (mlpOff(l) ? "on" : "off"),
          tabindex: "-1", text: "M" });
        m.addEventListener("click", function () { focus = [l, layer.length]; toggleMlp(l); });
        cells.push(m);
        row.appendChild(m);
        rows.push(cells);
        grid.appendChild(row);
      });
      focus = [Math.min(focus[0], rows.length - 1), Math.min(focus[1], rows[0].length - 1)];
      rows[focus[0]][focus[1]].setAttribute("tabindex", "0");
      if (hadFocus) rows[focus[0]][focus[1]].focus();
    }
    grid.addEventListener("keydown", function (e) {
      if (!rows.length) return;
      var r = focus[0], c = focus[1], last = rows[0].length - 1;
      if (e.key === "ArrowRight") c = Math.min(last, c + 1);
      else if (e.key === "ArrowLeft") c = Math.max(0, c - 1);
      else if (e.key === "ArrowDown") r = Math.min(rows.length - 1, r + 1);
      else if (e.key === "ArrowUp") r = Math.max(0, r - 1);
      else if (e.key === "Home") c = 0;
      else if (e.key === "End") c = last;
      else return;
      e.preventDefault();
      rows[focus[0]][focus[1]].setAttribute("tabindex", "-1");
      focus = [r, c];
      rows[r][c].setAttribute("tabindex", "0");
      rows[r][c].focus();
    });

    function openHead(l, h) {
      opened = opened && opened[0] === l && opened[1] === h ? null : [l, h];
      drawGrid();
      drawHead();
    }
    function drawHead() {
      ui.clear(headBox);
      if (!opened || !view || !view.heads[opened[0]]) return;
      var l = opened[0], h = opened[1], c = view.heads[l][h], T = view.tokens.length;
      var last = show(view.tokens[T - 1]);
      headBox.appendChild(el("p", { class: "nt-x-title", text: headName(l, h) + ": where the last token (“" + last + "”) looks" + (isOff(l, h) ? " (switched off)" : "") }));
      var items;
      if (c.weights) {
        items = c.weights.map(function (w, j) {
          return { label: j + " " + show(view.tokens[j]), value: w, text: ui.pct(w, 1), data: { pos: j, weight: w } };
        });
      } else {
        items = [{ label: "0 " + show(view.tokens[0]), value: c.first, text: ui.pct(c.first, 1), data: { pos: 0, weight: c.first } }];
        if (c.top !== 0) items.push({ label: c.top + " " + show(view.tokens[c.top]), value: c.topWeight, text: ui.pct(c.topWeight, 1), data: { pos: c.top, weight: c.topWeight } });
      }
      headBox.appendChild(ui.bars(items, { label: headName(l, h) + ": attention weights from the last position" }));
      if (!c.weights) {
        var rest = 1 - c.first - (c.top !== 0 ? c.topWeight : 0);
        headBox.appendChild(el("p", { class: "nt-note", text: "The build stored this head's weight on the first token and on the token it looks at most; the other " +
          (T - (c.top !== 0 ? 2 : 1)) + " positions share the rest (" + ui.pct(rest, 1) + "). With the model loaded, every position's weight is shown." }));
      }
      var t = ui.button(isOff(l, h) ? "Switch it back on" : "Switch this head off", function () { toggleHead(l, h); drawHead(); });
      t.setAttribute("data-role", "head-toggle");
      headBox.appendChild(el("div", { class: "nt-controls" }, [t]));
    }

    function render() {
      if (!view) return;
      state_.set(view.state);
      sourceText.textContent = "“" + view.text + "”" + (view.chat ? " in the chat template" : "") + ", " + view.tokens.length + " tokens.";
      root.setAttribute("data-view", view.live ? "live" : "stored:" + view.key);
      drawAnswer();
      drawExample();
      drawLens();
      drawGrid();
      drawHead();
    }

    function follow() {
      var pass = store.get("real.pass"), stored = alone ? own : store.get("real.stored");
      if (pass && pass.result) {
        view = liveView(pass, store.get("real.model"));
        waiting = null;
        ko = { heads: view.knockout.heads.map(function (x) { return x.slice(); }), mlp: view.knockout.mlp.slice() };
      } else if (stored) view = storedView(stored);
      else return;
      if (opened && view.heads.length && !(view.heads[opened[0]] && view.heads[opened[0]][opened[1]])) opened = null;  // kept while the heads compute
      if (view.live && lensAt !== null && lensAt >= view.tokens.length - 1) { lensAt = null; if (wanted) want(false); }  // a shorter prompt: its last position
      render();
    }
    // On screen (or nearly), the panel's passes compute the lens and heads this view draws; off
    // screen, they are left out (a pass then takes about half the time).
    var wanted = false;
    function want(force) {
      var next = wanted ? { at: lensAt } : null, now = store.get("real.inside");
      if (force || JSON.stringify(next) !== JSON.stringify(now || null)) store.set("real.inside", next);
    }
    if (typeof IntersectionObserver === "function") {
      new IntersectionObserver(function (entries) {
        var on = entries[entries.length - 1].isIntersecting;
        if (on !== wanted) { wanted = on; want(false); }
      }, { rootMargin: "200px 0px" }).observe(root);
    } else { wanted = true; want(false); }
    store.subscribe("real.pass", follow);
    store.subscribe("real.stored", follow);
    store.subscribe("real.model", function (m) {
      if (m && linked) { var k = linked; linked = null; if (fits(k)) setKnockout(k); else msg.show(UNFIT, "warn"); }
      if (view) drawExample();
    });
    drawExample();
    if (alone) showKey(null);
    follow();

    // ---- its state in the link, its numbers as files (js/ui/permalink.js) ----------------------
    var linked = null, waiting = null;  // a link's parts switched off and live prompt, waiting for the model
    var UNFIT = "This link switches off a head or MLP the model does not have: every part stays on.";
    // the parts a link names exist in the pass on show (the stored and the live model are the same shape)
    function fits(k) {
      if (!view || !view.heads.length) return true;
      var L = view.heads.length, H = view.heads[0].length;
      return k.heads.every(function (x) { return x[0] < L && x[1] < H; }) && k.mlp.every(function (l) { return l < L; });
    }
    function pairs(flat) { var out = []; for (var i = 0; i + 1 < flat.length; i += 2) out.push([flat[i], flat[i + 1]]); return out; }
    function storedKey() { var d = view && view.stored ? view.stored : alone ? own : store.get("real.stored"); return d ? d.key : undefined; }
    permalink.join(root, live, {
      fields: { key: permalink.one(index.prompts.map(function (pr) { return pr.key; })), live: permalink.flag(), text: permalink.text(2000),
        chat: permalink.flag(), at: permalink.int(0, 8191), off: permalink.ints(0, 999, 600), mlp: permalink.ints(0, 999, 300),
        head: permalink.ints(0, 999, 2), click: permalink.one(["open", "off"]) },
      get: function () {
        var s = { key: storedKey(), click: mode };
        var p = view && view.live ? view : waiting;
        if (p) { s.live = "1"; s.text = p.text; s.chat = p.chat ? "1" : "0"; }
        if (lensAt !== null) s.at = lensAt;
        var k = linked || ko;
        if (k.heads.length) s.off = [].concat.apply([], k.heads);
        if (k.mlp.length) s.mlp = k.mlp;
        if (opened) s.head = opened;
        return s;
      },
      set: function (s) {
        if (s.off && s.off.length % 2) throw new Error("“off” must list a block and a head for each head");
        if (s.head && s.head.length !== 2) throw new Error("“head” must be a block and a head");
        var k = { heads: pairs(s.off || []), mlp: (s.mlp || []).slice() }, what = [];
        if (!fits(k)) throw new Error(UNFIT.replace(/^This link s/, "it s").replace(/\.$/, ""));
        if (s.click) { mode = s.click; modeRadios.querySelector('input[value="' + s.click + '"]').checked = true; }
        if (s.head) opened = s.head.slice();
        if (s.at !== undefined) { lensAt = s.at; if (wanted) want(false); }
        // the prompt: the bars above show it (a live one waits in the panel's box); alone, this view loads it
        if (alone) showKey(s.key || null);
        else store.set("real.inside-link", { key: s.key, live: s.live, text: s.text, chat: s.chat });
        if (view) { if (opened && view.heads.length && !(view.heads[opened[0]] && view.heads[opened[0]][opened[1]])) opened = null; render(); }
        if (s.live === "1" && s.text) { waiting = { text: s.text, chat: s.chat === "1" }; what.push("shows SmolLM2 run live on a prompt of its own"); }
        if (k.heads.length || k.mlp.length) {
          linked = k;
          what.push("switches parts off (" + k.heads.map(function (x) { return headName(x[0], x[1]); })
            .concat(k.mlp.map(function (l) { return "block " + (l + 1) + "'s MLP"; })).join(", ") + ")");
        }
        if (s.at !== undefined && !(s.live === "1")) what.push("reads the lens at position " + s.at);
        if (!what.length) return "";
        if (store.get("real.model") && linked) { k = linked; linked = null; setKnockout(k); return ""; }
        return badge.needsModel(what.join(" and "), source);
      },
      tables: function () {
        if (!view) throw new Error("no pass is on show yet");
        var lensRows = [], headRows = [], answerRows, weightRows = [];
        view.lens.forEach(function (row) {
          row.top.forEach(function (t, i) { lensRows.push([view.lensAt, row.layer, row.label, i + 1, t.id === undefined ? null : t.id, t.piece, t.prob]); });
        });
        view.heads.forEach(function (layer, l) {
          layer.forEach(function (c, h) { headRows.push([l, h, c.top, view.tokens[c.top], c.topWeight, c.first, isSink(c) ? 1 : 0, isOff(l, h) ? 1 : 0]); });
        });
        answerRows = view.answer.map(function (t, i) { return [i + 1, t.id === undefined ? null : t.id, t.piece, t.prob, t.logit]; });
        var got = [{ name: "lens", columns: ["position", "layer", "after", "rank", "id", "token", "probability"], rows: lensRows },
          { name: "answer", columns: ["rank", "id", "token", "probability", "logit"], rows: answerRows },
          { name: "heads", columns: ["layer", "head", "top_position", "top_token", "top_weight", "first_weight", "sink", "off"], rows: headRows }];
        if (opened && view.heads[opened[0]]) {
          var c = view.heads[opened[0]][opened[1]];
          var at = c.weights ? c.weights.map(function (w, j) { return [j, w]; }) : [[0, c.first]].concat(c.top !== 0 ? [[c.top, c.topWeight]] : []);
          at.forEach(function (x) { weightRows.push([opened[0], opened[1], x[0], view.tokens[x[0]], x[1]]); });
          got.push({ name: "head_weights", columns: ["layer", "head", "position", "token", "weight"], rows: weightRows });
        }
        got.extra = { source: view.live ? "live" : "stored", prompt: { key: view.live ? undefined : view.key, text: view.text, chat: !!view.chat, tokens: view.tokens },
          lens_at: view.lensAt, knockout: { heads: ko.heads, mlp: ko.mlp }, open_head: opened,
          note: "layers, heads and positions count from 0; the lens's layer 0 is the embedding (stored passes only)" };
        return got;
      } });
  }, { after: ["real-ask", "real-distribution"] });  // it shows the prompt the distribution above has on show
});
