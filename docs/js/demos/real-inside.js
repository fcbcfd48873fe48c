// Inside SmolLM2, as a lab: a token the reader follows (or two, for a logit difference) through the
// answer, the logit lens, every knock-out (before and after, side by side) and the grid of every
// block's heads and MLP; the grid coloured by where each head looks, by its strongest attention, by
// what switching each part off (zero, mean, or patched from another prompt) does to the token, or by
// each part's direct share of its logit; a sweep that switches every part off in turn (real.sweep),
// with progress and Stop; any head's whole query x key pattern; the knock-out the build chose for what
// it teaches; the arithmetic of the last step.
// It shows the pass the store names (keys declared in js/nexttoken.js): "real.pass" (the live pass, from
// the panel above), else "real.stored" (the stored record real-distribution shows, measured by the
// build; the lab's measurements of it, data.smollm2-lab-<key>, come with it). It writes
// "real.knockout" (parts switched off: the panel reruns the pass), "real.prompt" (its example, for the
// panel to run), "real.target" (the token followed: the bars and the writers show it too) and
// "real.inside" (null while it is off screen, else what the panel's passes must compute for it: the lens
// at a position, the heads' kinds, the direct shares, an open head's pattern).
// Container: data-sinks, the build's sink rule ({count, of, threshold}: a head is a sink when the last
// token gives the first token more than `threshold` of its attention, the attention page's rule);
// data-sink-spread, the count on every stored prompt ({min, median, max, n}); data-prompt, the stored
// prompt it shows where no bars are on the page (its embed page), loading it itself.
// Its state is in the page's link (js/ui/permalink.js): the prompt (stored, or live), the lens position,
// the parts switched off, the open head, the click's choice, the token followed, the grid's colour,
// the method and the prompt a patch copies from. A link's prompt reaches the bars through
// "real.inside-link"; its knock-out waits for the model. Its downloads: the lens, the answer, every
// head's summary (kind, attention, effect, direct share), the open head's pattern, the sweep.
nexttoken.define("demos.real-inside", ["ui", "store", "ui.real-badge", "explain.real", "data.smollm2-knockout",
  "data.smollm2-dist-index", "later:data.smollm2-dist-*", "data.smollm2-lab-index", "later:data.smollm2-lab-*",
  "later:data.smollm2-means", "real.sweep", "real.lab", "ui.permalink"],
function (ui, store, badge, real, example, index, loadPrompt, labIndex, loadLab, loadMeans, sweep, lab, permalink) {
  "use strict";
  var el = ui.el;
  var LENS_TOP = 3, ANSWER_TOP = 3, SIDE_TOP = 5;
  var SIDE_SLOT = 6;  // the engine's cache slot for a one-off pass (the panel's is 0, the writers' 1-5, the sweep's 7)
  var KIND_WORDS = {
    first: "the first token", self: "itself", previous: "the token before it",
    induction: "the token after an earlier copy of its own token (induction)", other: "elsewhere (no one kind holds a third)",
  };
  var KIND_SHORT = { first: "first token", self: "itself", previous: "previous token", induction: "induction", other: "other" };
  var KIND_MARK = { first: "F", self: "S", previous: "P", induction: "I", other: "" };
  var METHOD_WORDS = {
    zero: "Switch off (zero): the part's output becomes zeros. It shows what the answer loses without the part; but the model never saw zeros there, so a large change can mean the stream is broken, not that the part holds the answer.",
    mean: "Mean: the part's output becomes its average over every position of the stored prompts named below. Closer to “this part says nothing about this prompt”; it still cannot say what the part computes.",
    patch: "Patch: the part's output at each position is copied from a run on another prompt of the same length. It shows which parts carry the difference between the two prompts, and nothing about what they share.",
  };

  // A token as the pages show it: a leading space as "·", a new line as "↵"; a token that is only a
  // space is written "␣", which a reader cannot mistake for a dot.
  function show(piece) {
    piece = String(piece);
    if (piece === " ") return "␣";
    return piece.replace(/ /g, "·").replace(/\n/g, "↵");
  }
  function pieceText(p) { return p && typeof p === "object" ? p.label : p; }
  function headName(l, h) { return "block " + (l + 1) + ", head " + (h + 1); }
  function partName(p) { return p[0] === "head" ? headName(p[1], p[2]) : "block " + (p[1] + 1) + "'s " + (p[0] === "mlp" ? "MLP" : "attention"); }
  function ordinal(n) { var t = n % 100, u = n % 10; return n + (t > 10 && t < 14 ? "th" : u === 1 ? "st" : u === 2 ? "nd" : u === 3 ? "rd" : "th"); }
  function same(a, b) { return !!a && !!b && a.length === b.length && Array.prototype.every.call(a, function (x, i) { return x === b[i]; }); }
  function sameKo(a, b) { return JSON.stringify(a.heads) === JSON.stringify(b.heads) && JSON.stringify(a.mlp) === JSON.stringify(b.mlp); }

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

  // A target's value as words: "·M 42.3% (rank 1, logit 15.95)", or a pair's "·Paris − ·Rome: 3.21".
  function targetWords(t, m) {
    if (!m) return "";
    if (t.ids.length === 1) return show(t.pieces[0]) + " " + ui.pct(m.prob, 1) + " (rank " + ui.count(m.rank) + ", logit " + ui.fix(m.logit, 2) + ")";
    return show(t.pieces[0]) + " − " + show(t.pieces[1]) + ": logit difference " + ui.fix(m.diff, 2) + " (" + ui.pct(m.probs[0], 1) + " and " + ui.pct(m.probs[1], 1) + ")";
  }
  function valueWords(t, v) { return t.ids.length === 1 ? ui.pct(v, 1) : ui.fix(v, 2); }
  function deltaWords(t, d) {
    return t.ids.length === 1 ? (d >= 0 ? "+" : "−") + Math.abs(d * 100).toFixed(1) + " points" : (d >= 0 ? "+" : "−") + Math.abs(d).toFixed(2);
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
      return { layer: l + 1, label: "block " + (l + 1), logits: logits, top: topOf(logits, LENS_TOP).map(function (t) { return { id: t.id, piece: name(t.id), prob: t.prob }; }) };
    });
    var answer = topOf(r.logits, ANSWER_TOP).map(function (t) { t.piece = name(t.id); return t; });
    return { live: true, text: pass.text, chat: !!pass.chat, ids: pass.ids, tokens: tokens, heads: heads, lens: lens, name: name,
             inside: pass.inside || null, lensAt: pass.inside ? pass.inside.at : T - 1, state: badge.of(pass),
             answer: answer, logits: r.logits, final: r.final || null, knockout: pass.knockout || { heads: [], mlp: [] },
             kinds: r.kinds ? lab.liveKinds(r.kinds) : null, direct: r.direct || null, pattern: r.pattern || null };
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
    return { live: false, key: d.key, text: d.text, chat: d.chat, ids: d.ids, tokens: d.tokens, heads: heads, lens: lens, answer: answer, stored: d,
             inside: true, lensAt: d.tokens.length - 1, state: "stored", knockout: { heads: [], mlp: [] } };
  }

  ui.start("real-inside", function (root, live) {
    var view = null, opened = null, mode = "open", rows = [], focus = [0, 0];
    var ko = { heads: [], mlp: [] };
    var threshold = JSON.parse(root.getAttribute("data-sinks") || "{}").threshold;
    var spread = JSON.parse(root.getAttribute("data-sink-spread") || "null");
    var msg = ui.message();
    var state_ = badge(), sourceText = el("span", { "data-role": "inside-source-text" });
    var source = el("p", { class: "nt-source-line", "data-role": "inside-source", "aria-live": "polite" }, [state_.node, sourceText]);
    var lensAt = null;  // the position the reader picked for the lens; null: the last
    // the lab: the stored record of the prompt on show (its key), the token followed, the grid's colour,
    // the method, the prompt a patch copies from, and the live sweeps run so far (by signature)
    var labRec = null, labKey = null, named = null, colour = "kinds", method = "zero", copyFrom = null;
    var swept = {}, running = null, means = null, rowCache = {}, befores = {};
    // Where no bars are on the page (its embed page), it loads the stored prompt itself.
    var alone = !document.querySelector('.nt-demo[data-demo="real-distribution"]'), own = null, ownKey = null;
    function veil(on) {
      var fallback = root.querySelector(".nt-fallback");
      live.style.minHeight = on && fallback ? fallback.offsetHeight + "px" : "";
      live.style.visibility = on ? "hidden" : "";
    }
    function showKey(key) {
      var entry = index.prompts.filter(function (pr) { return pr.key === (key || root.getAttribute("data-prompt")); })[0] || index.prompts[0];
      ownKey = entry.key;
      if (!own) veil(true);
      // the lab's record of the prompt loads beside it, so the view is drawn once, with both (drawn again when
      // the record came later, the page styled and laid the whole lab out twice); a record that cannot load
      // is asked for again by the view, which says why
      var lab = fetchLab(entry.key).catch(function () { return null; });
      loadPrompt(entry.file.replace(/^smollm2-dist-|\.js$/g, "")).then(function (got) {
        return lab.then(function () { return got; });
      }).then(function (got) {
        if (ownKey === entry.key) { own = got; follow(); }
        veil(false);
      }, function (err) { veil(false); msg.show(err.message + " (is the js/data folder beside this page?).", "error"); });
    }
    function labEntry(key) { return labIndex.prompts.filter(function (p) { return p.key === key; })[0] || null; }
    var labs = {};  // the lab's records loaded so far, by prompt
    function fetchLab(key) {
      var entry = labEntry(key);
      if (!entry) return Promise.resolve(null);
      return loadLab(entry.file.replace(/^smollm2-lab-|\.js$/g, "")).then(function (got) { labs[key] = got; return got; });
    }
    // The lab's record of a stored prompt, loaded once per prompt; the view redraws when it arrives.
    function wantLab(key) {
      if (!key || labKey === key) return;
      labKey = key;
      labRec = labs[key] || null;
      if (labRec || !labEntry(key)) return;
      fetchLab(key).then(function (got) {
        if (labKey === key) { labRec = got; render(); }
      }, function (err) { msg.show(err.message + " (is the js/data folder beside this page?).", "error"); });
    }
    // The stored prompt whose tokens the view shows (a live pass of a stored prompt's exact ids counts).
    function storedKeyOf(v) {
      if (!v) return null;
      if (!v.live) return v.key;
      var d = alone ? own : store.get("real.stored");
      return d && same(d.ids, v.ids) && !!d.chat === !!v.chat ? d.key : null;
    }

    // ---- the token followed ------------------------------------------------------------------
    // named: the reader's {ids, pieces}; else the lab's target of the stored prompt, else the live top token.
    function target() {
      if (named) return named;
      if (labRec && view && storedKeyOf(view) === labRec.key) return { ids: labRec.target.ids, pieces: labRec.target.pieces, from: "lab" };
      if (view && view.answer.length && view.answer[0].id !== undefined) return { ids: [view.answer[0].id], pieces: [view.answer[0].piece], from: "top" };
      return null;
    }
    function labTarget() {  // the stored numbers hold for the lab's own target only
      var t = target();
      return labRec && t && view && storedKeyOf(view) === labRec.key && same(t.ids, labRec.target.ids) ? labRec : null;
    }
    function metricNow() {
      var t = target();
      if (!t || !view) return null;
      if (view.live) return sweep.metric(view.logits, t);
      var L = labTarget();
      return L ? L.base : null;
    }
    var tokenIn = el("input", { type: "text", class: "nt-input nt-input-short", spellcheck: "false", autocomplete: "off", "data-role": "target", maxlength: "40" });
    var againstIn = el("input", { type: "text", class: "nt-input nt-input-short", spellcheck: "false", autocomplete: "off", "data-role": "target-vs", maxlength: "40" });
    var followBtn = ui.button("Follow", function () { setTarget(tokenIn.value, againstIn.value); });
    followBtn.setAttribute("data-role", "target-follow");
    var clearBtn = ui.button("Follow the top token", function () { tokenIn.value = againstIn.value = ""; setTarget("", ""); });
    clearBtn.setAttribute("data-role", "target-clear");
    [tokenIn, againstIn].forEach(function (i) { i.addEventListener("keydown", function (e) { if (e.key === "Enter") { e.preventDefault(); setTarget(tokenIn.value, againstIn.value); } }); });
    var targetLine = el("p", { class: "nt-readout", "data-role": "target-line", "aria-live": "polite" });
    var targetNote = el("p", { class: "nt-hint", "data-role": "target-note" });
    function oneToken(text, tk) {
      var enc = tk.encode(text);
      if (!enc.ok) throw new Error(enc.error.message);
      if (enc.ids.length !== 1) {
        throw new Error("“" + text + "” is " + enc.ids.length + " tokens here (" + enc.pieces.map(function (p) { return show(pieceText(p)); }).join(" ") +
          "): name one token" + (text[0] === " " ? "" : ", perhaps with a space before it (“ " + text + "”)"));
      }
      return { id: enc.ids[0], piece: pieceText(enc.pieces[0]) };
    }
    function setTarget(a, b) {
      var model = store.get("real.model");
      msg.clear();
      if (!a && !b) { named = null; publishTarget(); render(); return; }
      if (!model) { msg.show("Naming a token needs the model's tokenizer: load the model with the panel above first.", "warn"); return; }
      try {
        var x = oneToken(a, model.tokenizer), y = b ? oneToken(b, model.tokenizer) : null;
        if (y && y.id === x.id) throw new Error("the two tokens are the same: name two different ones for a difference");
        named = { ids: y ? [x.id, y.id] : [x.id], pieces: y ? [x.piece, y.piece] : [x.piece], text: y ? [a, b] : [a] };
      } catch (err) { msg.show(err.message + ".", "error"); return; }
      publishTarget();
      render();
    }
    function publishTarget() {
      var t = target();
      var now = t ? { ids: t.ids.slice(), pieces: t.pieces.slice(), named: !!named } : null, was = store.get("real.target");
      if (JSON.stringify(now) !== JSON.stringify(was || null)) store.set("real.target", now);
    }
    function drawTarget() {
      var t = target(), m = metricNow(), model = store.get("real.model");
      tokenIn.disabled = againstIn.disabled = !model;
      ui.setDisabled(followBtn, model ? "" : "Naming your own token needs the model's tokenizer: load the model above.");
      clearBtn.hidden = !named;
      if (!named) {
        tokenIn.placeholder = t ? t.pieces[0] : "";
        againstIn.placeholder = t && t.ids.length === 2 ? t.pieces[1] : "";
      }
      targetLine.textContent = t ? "Following " + targetWords(t, m) + (m ? "" : ": load the model to measure it on this prompt") + "." : "";
      targetNote.textContent = !t ? "" : t.from === "lab" ? (labRec.target.ids.length === 2 ? "The pair the build measured this prompt for" : "The token the build measured this prompt for") + "; with the model loaded, name your own." :
        t.from === "top" ? "The pass's most likely next token; name another (and a second, for a logit difference)." :
        t.ids.length === 2 ? "Your pair: the numbers below are the difference of their logits, first minus second." : "Your token: its probability, rank and logit in every view below.";
      root.setAttribute("data-target", t ? t.ids.join(",") : "");
    }

    // ---- the sections ------------------------------------------------------------------------
    var lensPick = el("select", { class: "nt-input", "data-role": "lens-at" });
    lensPick.addEventListener("change", function () {
      lensAt = Number(lensPick.value);
      if (view && lensAt === view.tokens.length - 1) lensAt = null;
      want(true);
    });
    var lensPickField = ui.field("Position (from 0)", lensPick);
    var lensNote = el("p", { class: "nt-note", "data-role": "lens-note" });
    var answerBox = el("div", { class: "nt-x-host", "data-role": "answer" });
    var exampleBox = el("div", { class: "nt-inside-example", "data-role": "example" });
    var sideBox = el("div", { class: "nt-inside-side", "data-role": "before-after", "aria-live": "polite" });
    var lensBox = el("div", { class: "nt-table-wrap", "data-role": "lens" });
    var offLine = el("p", { class: "nt-note", "data-role": "off", "aria-live": "polite" });
    var sinkLine = el("p", { class: "nt-note", "data-role": "sinks" });
    var colourNote = el("p", { class: "nt-note", "data-role": "colour-note" });
    var keyBox = el("div", { class: "nt-head-key", "data-role": "grid-key" });
    var grid = el("div", { class: "nt-head-grid", role: "group", "data-role": "heads",
      "aria-label": "Every head of every block and each block's MLP. Arrow keys move between them, Enter opens a head or switches it off (see the choice above)." });
    var headBox = el("div", { class: "nt-inside-head", "data-role": "head-weights", "aria-live": "polite" });
    var modeRadios = ui.radios("A click on a head", [{ value: "open", label: "opens its weights" }, { value: "off", label: "switches it off or on" }], "open",
      function (v) { mode = v; });
    var colourRadios = ui.radios("Colour the grid by", [
      { value: "kinds", label: "where each head looks" }, { value: "attention", label: "the last token's strongest attention" },
      { value: "effect", label: "a sweep: what removing it does to your token" }, { value: "direct", label: "its direct share of your token's logit" }],
    colour, function (v) { colour = v; want(false); render(); });
    colourRadios.setAttribute("data-role", "colour");
    var reset = ui.button("Switch everything back on", function () { setKnockout({ heads: [], mlp: [] }); });
    reset.setAttribute("data-role", "reset");
    var koMsg = ui.message();  // what a switch needs, said under the switches (the demo's top is screens away)
    // the sweep: the method, the prompt a patch copies from, Run and Stop, its progress
    var methodRadios = ui.radios("Method", [{ value: "zero", label: "switch off (zero)" }, { value: "mean", label: "mean" }, { value: "patch", label: "patch from another prompt" }],
      method, function (v) { method = v; render(); });
    methodRadios.setAttribute("data-role", "method");
    var copyPick = el("select", { class: "nt-input", "data-role": "copy-from" });
    copyPick.addEventListener("change", function () { copyFrom = copyPick.value || null; render(); });
    var copyField = ui.field("Copy each part from the run on", copyPick);
    var methodNote = el("p", { class: "nt-note", "data-role": "method-note" });
    var sweepBtn = ui.button("Sweep every part", function () { runSweep(); }, { primary: true });
    sweepBtn.setAttribute("data-role", "sweep");
    var stopBtn = ui.button("Stop", function () { if (running) running.handle.stop(); });
    stopBtn.setAttribute("data-role", "sweep-stop");
    stopBtn.hidden = true;
    var sweepProgress = el("progress", { class: "nt-ask-progress", max: "1", value: "0", hidden: true, "aria-label": "The sweep's progress", "data-role": "sweep-progress" });
    var sweepLine = el("p", { class: "nt-readout", "data-role": "sweep-line", "aria-live": "polite" });
    var sweepBox = el("div", { class: "nt-inside-sweep", "data-role": "sweep-box" }, [
      el("div", { class: "nt-controls" }, [methodRadios, copyField]), methodNote,
      el("div", { class: "nt-controls" }, [sweepBtn, stopBtn, sweepProgress]), sweepLine]);

    live.appendChild(source);
    live.appendChild(msg.node);
    live.appendChild(ui.section("Your token", [
      el("div", { class: "nt-controls" }, [ui.field("Token (as “ Paris”)", tokenIn), ui.field("Against (optional)", againstIn), followBtn, clearBtn]),
      targetLine, targetNote]));
    live.appendChild(ui.section("The answer, and its arithmetic", [answerBox]));
    live.appendChild(ui.section("Switch parts off: before and after", [exampleBox, sideBox]));
    live.appendChild(ui.section("Logit lens: each block's guess", [
      el("p", { class: "nt-note", "data-role": "lens-caption", text: "Each row reads the stream after one block through the final norm and the unembedding, as if the model stopped there; a cell's shade is its probability. It shows what the stream already says in the unembedding's own terms, not everything it holds: a part can carry the answer several blocks before the lens shows it (the knock-out above proves one does), because the middle blocks write in directions the unembedding barely reads. Early rows mostly show common tokens for that reason." }),
      el("div", { class: "nt-controls" }, [lensPickField]), lensNote, lensBox]));
    live.appendChild(ui.section("Every head, every MLP", [
      el("div", { class: "nt-controls" }, [colourRadios]), colourNote, keyBox, sweepBox, sinkLine,
      el("div", { class: "nt-controls" }, [modeRadios, reset]), koMsg.node, offLine, grid, headBox]));

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
    function offParts(k) {
      return k.heads.map(function (x) { return headName(x[0], x[1]); }).concat(k.mlp.map(function (l) { return "block " + (l + 1) + "'s MLP"; }));
    }
    function describeOff() {
      var parts = offParts(ko);
      return parts.length ? "Switched off: " + parts.join(", ") + "." : "Every part is on.";
    }

    // ---- the answer: the top tokens, each probability and logit opening to its arithmetic -------
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
        var logitBtn, row = view.live && rowCache[t.id];
        if (view.live && view.final && row) {
          logitBtn = ui.numberButton(ui.fix(t.logit, 2), function () {
            return real.logit(Object.assign({ final: view.final, row: row, id: t.id }, spec));
          }, { label: "logit of " + show(t.piece) });
        } else logitBtn = el("span", { text: ui.fix(t.logit, 2) });
        list.appendChild(el("li", { "data-token": t.piece, "data-prob": String(t.prob), "data-logit": String(t.logit), "data-id": t.id === undefined ? null : String(t.id) },
          [el("code", { text: show(t.piece) }), ": probability ", probBtn, ", logit ", logitBtn]));
      });
      answerBox.appendChild(el("p", { class: "nt-note", text: view.live
        ? "The live pass's most likely next tokens" + (view.knockout.heads.length || view.knockout.mlp.length ? ", with the parts below switched off" : "") + ". Open a number to see it computed."
        : "The stored pass's most likely next tokens (measured by the build). Open a probability to see the softmax over the whole vocabulary; a logit's arithmetic needs the final vector, which the live model gives." }));
      answerBox.appendChild(list);
      var t = target(), m = metricNow();
      if (t && m && !view.answer.some(function (a) { return t.ids.length === 1 && a.id === t.ids[0]; })) {
        answerBox.appendChild(el("p", { class: "nt-note", "data-role": "answer-target", text: "Your token: " + targetWords(t, m) + "." }));
      }
      if (view.live && view.final && model && model.session && model.session.row) {
        var missing = view.answer.filter(function (a) { return !rowCache[a.id]; });
        if (missing.length) {
          var shown = view;
          rows_(missing.map(function (a) { return a.id; })).then(function () { if (view === shown) drawAnswer(); }, function (err) { msg.show(err.message, "error"); });
        }
      }
    }
    // The unembedding's rows of some tokens, fetched once each.
    function rows_(ids) {
      var model = store.get("real.model"), need = ids.filter(function (id) { return !rowCache[id]; });
      return Promise.all(need.map(function (id) { return model.session.row(id); })).then(function (got) {
        need.forEach(function (id, i) { rowCache[id] = got[i]; });
        return ids.map(function (id) { return rowCache[id]; });
      });
    }

    // ---- the build's knock-out, and before / after for the parts switched off -----------------
    function drawExample() {
      var p = example.part, b = example.before[0], why = example.why, o = example.old_top_after;
      var part = headName(p.layer, p.head);
      var btn = ui.button("Run “" + example.text + "” with " + part + " off", function () {
        if (setKnockout(example.knockout)) store.set("real.prompt", { text: example.text, chat: example.chat });
      });
      btn.setAttribute("data-role", "example-run");
      ui.clear(exampleBox);
      var above = why.above.map(function (a) { return headName(a.layer, a.head) + " (" + KIND_SHORT[a.kind] + ")"; });
      exampleBox.appendChild(el("p", { "data-role": "example-why", text: "Chosen by a sweep for what it teaches. On “" + example.text + "”, " + part +
        " copies. From the last token it puts " + ui.pct(why.looks_at.weight, 1) + " of its attention on “" + show(why.looks_at.piece) + "” at position " + why.looks_at.position +
        ": the answer, read off the earlier copy. Over the whole prompt it looks mostly at " + KIND_WORDS[why.kind] + ". Switched off, “" + show(b.piece) +
        "” falls from " + ui.pct(b.prob, 1) + " to " + ui.pct(o.prob, 1) + ". Of the " + ui.count(why.of) + " heads, it ranks " + ordinal(why.rank) +
        " by that drop." + (above.length ? " Above it: " + above.join(", ") + "." : "") }));
      exampleBox.appendChild(el("p", { class: "nt-hint", text: "The rule: " + example.searched.rule + " (" + ui.count(example.searched.heads_tried) + " heads tried)." }));
      exampleBox.appendChild(sideBySide(example.before, example.after, { ids: [b.id], pieces: [b.piece] },
        { prob: b.prob, value: b.prob }, { prob: o.prob, value: o.prob }, part + " off", "stored"));
      exampleBox.appendChild(el("div", { class: "nt-controls" }, [btn]));
      var check = el("p", { class: "nt-note", "data-role": "example-check", "aria-live": "polite" });
      exampleBox.appendChild(check);
      if (view && view.live && same(view.ids, example.ids) && sameKo(view.knockout, example.knockout)) {
        var got = view.answer.filter(function (a) { return a.id === o.id; })[0], gp = got ? got.prob : sweep.metric(view.logits, { ids: [o.id] }).prob;
        check.textContent = "In this page “" + show(o.piece) + "” is now at " + ui.pct(gp, 1) + " and the top token “" + show(view.answer[0].piece) + "”" +
          (view.answer[0].id === example.after[0].id ? ", as the build found." : ", not the build's “" + show(example.after[0].piece) + "”.");
      }
      ui.setDisabled(btn, store.get("real.model") ? "" : alone ? "It runs the real model, which loads on this view's page (linked below)." : "It runs the real model: load it with the panel above first.");
    }
    // Two lists of top tokens side by side, and the target's change between them.
    function sideBySide(before, after, t, mb, ma, label, kind) {
      function list(items, title) {
        return el("div", { class: "nt-side" }, [el("p", { class: "nt-x-title", text: title }),
          ui.bars(items.map(function (it) {
            return { label: show(it.piece), value: it.prob, text: ui.pct(it.prob, 1), cls: t.ids.indexOf(it.id) >= 0 ? "nt-bar-target" : null, data: { id: it.id, prob: it.prob } };
          }), { label: title })]);
      }
      var d = ma.value - mb.value;
      return el("div", { class: "nt-side-wrap", "data-kind": kind }, [
        el("div", { class: "nt-side-by-side" }, [list(before, "Every part on"), list(after, label)]),
        el("p", { class: "nt-readout", "data-role": "side-delta", text: (t.ids.length === 1 ? "“" + show(t.pieces[0]) + "”: " : "“" + show(t.pieces[0]) + "” − “" + show(t.pieces[1]) + "”: ") +
          valueWords(t, mb.value) + " → " + valueWords(t, ma.value) + " (" + deltaWords(t, d) + ")." })]);
    }
    // The live pass with parts off, beside the same prompt with every part on (run once in SIDE_SLOT
    // when no plain pass of it is at hand).
    function drawSide() {
      ui.clear(sideBox);
      if (!view || !view.live || !(view.knockout.heads.length || view.knockout.mlp.length)) return;
      var key = view.ids.join(","), t = target(), b = befores[key];
      if (!b) {
        sideBox.appendChild(el("p", { class: "nt-note", text: "Running the prompt with every part on, to set it beside…" }));
        var model = store.get("real.model"), shown = view;
        if (model && model.session) {
          model.session.prefill(view.ids, { slot: SIDE_SLOT }).then(function (r) {
            befores[key] = r.logits;
            if (view === shown) drawSide();
          }, function (err) { msg.show(err.message, "error"); });
        }
        return;
      }
      function items(logits) { return topOf(logits, SIDE_TOP).map(function (x) { x.piece = view.name(x.id); return x; }); }
      sideBox.appendChild(sideBySide(items(b), items(view.logits), t, sweep.metric(b, t), sweep.metric(view.logits, t), offParts(view.knockout).join(", ") + " off", "live"));
    }

    // ---- the lens ---------------------------------------------------------------------------
    function leadRow(lens) {
      var last = lens[lens.length - 1].top[0], at = lens.length - 1;
      for (var i = lens.length - 1; i >= 0 && lens[i].top[0].piece === last.piece; i--) at = i;
      return at;
    }
    function drawLens() {
      var T = view.tokens.length, t = target(), L = labTarget();
      ui.clear(lensPick);
      view.tokens.forEach(function (tok, j) { lensPick.appendChild(el("option", { value: String(j), text: j + " " + show(tok) })); });
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
      var col = t ? (t.ids.length === 1 ? show(t.pieces[0]) : show(t.pieces[0]) + " − " + show(t.pieces[1])) : null;
      var head = el("tr", null, [el("th", { scope: "col", text: "after" })]);
      for (var i = 0; i < LENS_TOP; i++) head.appendChild(el("th", { scope: "col", text: "top " + (i + 1) }));
      if (col) head.appendChild(el("th", { scope: "col", text: col }));
      var body = el("tbody");
      view.lens.forEach(function (row, r) {
        var tr = el("tr", { class: r === lead ? "nt-lens-lead" : null }, [el("th", { scope: "row", text: row.label + (r === lead ? " ← first leads" : "") })]);
        row.top.forEach(function (x) {
          var td = el("td", { class: "nt-lens-cell", "data-prob": String(x.prob), "data-id": x.id === undefined ? null : String(x.id),
            title: x.piece === " " ? "a lone space: the model would write the space and the next word as two tokens" : null }, [el("code", { text: show(x.piece) }), " " + ui.pct(x.prob, 1)]);
          td.style.setProperty("--p", Math.min(1, x.prob).toFixed(3));
          tr.appendChild(td);
        });
        if (col) {
          var m = view.live ? (row.logits ? sweep.metric(row.logits, t) : null) : L ? L.lens.filter(function (x) { return x.layer === row.layer; })[0] : null;
          tr.appendChild(el("td", { class: "nt-lens-target", "data-role": "lens-target", "data-value": m ? String(m.value) : null,
            text: !m ? "—" : t.ids.length === 1 ? ui.pct(m.prob, 1) + " (rank " + ui.count(m.rank) + ")" : ui.fix(m.diff, 2) }));
        }
        body.appendChild(tr);
      });
      lensBox.appendChild(el("table", { class: "nt-table nt-lens-table", "data-at": String(view.lensAt) }, [el("thead", null, [head]), body]));
      if (col && !view.live && !L) lensNote.textContent += " Your token's column needs the model (the build stored its own token's only).";
    }

    // ---- the grid: what each cell shows in each colour ---------------------------------------
    // The effect of each part on the target (values after, per part in sweep order: heads then MLPs),
    // from a live sweep of this prompt, target, method and source, else from the build.
    function sig() {
      var t = target();
      return view && t ? JSON.stringify([view.ids, t.ids, method, method === "patch" ? copyFrom : null, method === "mean" ? "means" : null]) : "";
    }
    function pairOf(key, other) {
      var out = null;
      labIndex.pairs.forEach(function (p) {
        if (p.clean === key && p.corrupt === other) out = { values: p.noising, base: p.clean_base, target: p.target };
        if (p.corrupt === key && p.clean === other) out = { values: p.denoising, base: p.corrupt_base, target: p.target };
      });
      return out;
    }
    function effect() {
      var t = target(), s = swept[sig()];
      if (s) return { values: s.values, base: s.base, source: "live", done: s.done, total: s.total };
      var key = storedKeyOf(view);
      if (!t || !key) return null;
      if (method === "patch") {
        var pr = copyFrom && pairOf(key, copyFrom);
        return pr && same(pr.target.ids, t.ids) ? { values: pr.values, base: pr.base, source: "stored" } : null;
      }
      var L = labTarget();
      return L && L.sweeps[method] ? { values: L.sweeps[method], base: L.base, source: "stored" } : null;
    }
    function directNow() {
      var t = target();
      if (!t || !view) return null;
      if (view.live) {
        if (!view.direct) return null;
        var rs = t.ids.map(function (id) { return rowCache[id]; });
        if (rs.some(function (r) { return !r; })) {
          var shown = view;
          rows_(t.ids).then(function () { if (view === shown) render(); }, function (err) { msg.show(err.message, "error"); });
          return null;
        }
        return lab.direct(view.direct, rs, t);
      }
      var L = labTarget();
      if (!L) return null;
      var total = L.direct.embedding;
      L.direct.heads.forEach(function (r) { r.forEach(function (v) { total += v; }); });
      L.direct.mlp.forEach(function (v) { total += v; });
      return { embedding: L.direct.embedding, heads: L.direct.heads, mlp: L.direct.mlp, total: total };
    }
    function kindsNow() {
      if (!view) return null;
      if (view.live) return view.kinds;
      return labRec && storedKeyOf(view) === labRec.key ? lab.storedKinds(labRec) : null;
    }

    function cellLabel(l, h, how) {
      var c = view.heads[l] && view.heads[l][h], base = headName(l, h) + ": ";
      var state = ", " + (isOff(l, h) ? "off" : "on");
      if (colour === "attention" || !how) return base + (c ? ui.pct(c.topWeight, 1) + " on " + show(view.tokens[c.top]) + " (position " + c.top + ")" : "") + state;
      return base + how + state;
    }
    function isSink(c) { return c.first > threshold; }
    function drawGrid() {
      if (!view) return;
      var hadFocus = grid.contains(document.activeElement);
      ui.clear(grid);
      ui.clear(keyBox);
      rows = [];
      offLine.textContent = describeOff();
      var L = view.heads.length || (labRec ? labRec.kinds.kind.length : 0), H = L ? (view.heads[0] || labRec.kinds.kind[0]).length : 0;
      if (!L) { sinkLine.textContent = "Computing every head's weights for this pass…"; return; }
      var t = target(), eff = colour === "effect" ? effect() : null, dir = colour === "direct" ? directNow() : null, kinds = colour === "kinds" ? kindsNow() : null;
      if (view.heads.length) {
        var sinks = 0, all = 0;
        view.heads.forEach(function (layer) { layer.forEach(function (c) { all += 1; if (isSink(c)) sinks += 1; }); });
        sinkLine.textContent = sinks + " of " + all + " heads put more than " + ui.pct(threshold, 0) + " of the last token's attention on the first token (“" +
          show(view.tokens[0]) + "”): the sinks the attention page counts the same way, grey in the strongest-attention colouring." +
          (spread ? " The count depends on the prompt: from " + spread.min + " to " + spread.max + " of " + all + " over the " + spread.n + " stored prompts (median " + spread.median + ")." : "");
      }
      // the scale shared by every cell (and the key): the largest change, or the largest share
      var top = 0, vals = null;
      if (eff) vals = eff.values.map(function (v) { return v === null || v === undefined ? null : v - eff.base.value; });
      if (dir) vals = [].concat.apply([], dir.heads).concat(dir.mlp);
      if (vals) vals.forEach(function (v) { if (v !== null) top = Math.max(top, Math.abs(v)); });
      top = top || 1;
      drawKey(t, eff, dir, kinds, top, H);
      var head = el("div", { class: "nt-head-grid-top", "aria-hidden": "true" }, [el("span", { class: "nt-head-grid-label", text: "" })]);
      for (var hh = 0; hh < H; hh++) head.appendChild(el("span", { class: "nt-head-grid-col", text: String(hh + 1) }));
      head.appendChild(el("span", { class: "nt-head-grid-col nt-mlp-col", text: "MLP" }));
      grid.appendChild(head);
      for (var l = 0; l < L; l++) {
        var row = el("div", { class: "nt-head-grid-row" }, [el("span", { class: "nt-head-grid-label", "aria-hidden": "true", text: String(l + 1) })]);
        var cells = [];
        for (var h = 0; h < H; h++) cells.push(row.appendChild(cell(l, h, H, t, eff, dir, kinds, vals, top)));
        var m = mlpCell(l, L, H, t, eff, dir, vals, top);
        cells.push(row.appendChild(m));
        rows.push(cells);
        grid.appendChild(row);
      }
      focus = [Math.min(focus[0], rows.length - 1), Math.min(focus[1], rows[0].length - 1)];
      rows[focus[0]][focus[1]].setAttribute("tabindex", "0");
      if (hadFocus) rows[focus[0]][focus[1]].focus();
    }
    function cell(l, h, H, t, eff, dir, kinds, vals, top) {
      var c = view.heads[l] ? view.heads[l][h] : null, cls = "nt-head-cell", how = null, mark = "", v = null;
      if (colour === "attention" && c && isSink(c)) cls += " nt-sink";
      if (colour === "kinds" && kinds) {
        var k = lab.KINDS[kinds[l][h].kind];
        cls += " nt-kind-" + k;
        mark = KIND_MARK[k];
        how = "looks mostly at " + KIND_SHORT[k] + " (" + ui.pct(kinds[l][h].shares[kinds[l][h].kind], 0) + " on average)";
      }
      if ((colour === "effect" || colour === "direct") && vals) {
        v = vals[l * H + h];
        cls += " nt-diverge";
        if (v !== null && v !== undefined) how = colour === "effect" ? methodVerb() + ", " + targetShort(t) + " " + deltaWords(t, v) + " (to " + valueWords(t, eff.values[l * H + h]) + ")" :
          "adds " + ui.fix(v, 2) + " to " + targetShort(t) + "'s logit" + (t.ids.length === 2 ? " difference" : "");
      }
      if (isOff(l, h)) cls += " nt-off";
      var label = cellLabel(l, h, how);
      var b = el("button", { type: "button", class: cls, "aria-label": label, title: label, "data-layer": l, "data-head": h, tabindex: "-1", text: mark,
        "data-value": v === null ? null : String(v), "aria-expanded": opened && opened[0] === l && opened[1] === h ? "true" : "false" });
      if (colour === "attention" && c) b.style.setProperty("--a", Math.min(1, c.topWeight).toFixed(3));
      if (v !== null && v !== undefined) b.style.setProperty("--v", Math.max(-1, Math.min(1, v / top)).toFixed(3));
      b.addEventListener("click", function () { focus = [l, h]; if (mode === "off") toggleHead(l, h); else { openHead(l, h); if (opened) ui.reveal(headBox, b); } });
      return b;
    }
    function mlpCell(l, L, H, t, eff, dir, vals, top) {
      var v = vals ? vals[L * H + l] : null, how = "";
      if (v !== null && v !== undefined) how = colour === "effect" ? ": " + methodVerb() + ", " + targetShort(t) + " " + deltaWords(t, v) : ": adds " + ui.fix(v, 2) + " to " + targetShort(t) + "'s logit";
      var m = el("button", { type: "button", class: "nt-head-cell nt-mlp-cell" + (v !== null && v !== undefined ? " nt-diverge" : "") + (mlpOff(l) ? " nt-off" : ""), "data-layer": l, "data-mlp": "",
        "aria-label": "block " + (l + 1) + "'s MLP" + how + ", " + (mlpOff(l) ? "off" : "on"), title: "block " + (l + 1) + "'s MLP" + how + ": a click switches it " + (mlpOff(l) ? "on" : "off"),
        tabindex: "-1", text: "M", "data-value": v === null || v === undefined ? null : String(v) });
      if (v !== null && v !== undefined) m.style.setProperty("--v", Math.max(-1, Math.min(1, v / top)).toFixed(3));
      m.addEventListener("click", function () { focus = [l, H]; toggleMlp(l); });
      return m;
    }
    function methodVerb() { return method === "zero" ? "switched off" : method === "mean" ? "replaced by its mean" : "patched from “" + (copyText() || "") + "”"; }
    function targetShort(t) { return t.ids.length === 1 ? show(t.pieces[0]) : show(t.pieces[0]) + " − " + show(t.pieces[1]); }
    function copyText() { var e = copyFrom && index.prompts.filter(function (p) { return p.key === copyFrom; })[0]; return e ? e.text : null; }

    function drawKey(t, eff, dir, kinds, top, H) {
      var words = "";
      sweepBox.hidden = colour !== "effect";
      if (colour === "attention") words = "Each cell is one head: its colour is the largest share of attention the last token gives any token, grey when it puts more than " + ui.pct(threshold, 0) + " on the first token (a sink: a resting place, not a word it reads). The last column is each block's MLP.";
      if (colour === "kinds") {
        words = "Each head by what it looks at over the whole prompt: the kind of key that gets the largest share of its attention, averaged over the positions where that kind exists (“other” when none gets a third). The letter says the same as the colour.";
        if (kinds) {
          var counts = {};
          lab.KINDS.forEach(function (k) { counts[k] = 0; });
          kinds.forEach(function (layer) { layer.forEach(function (c) { counts[lab.KINDS[c.kind]] += 1; }); });
          lab.KINDS.forEach(function (k) {
            keyBox.appendChild(el("span", { class: "nt-key-item" }, [el("span", { class: "nt-head-cell nt-key-swatch nt-kind-" + k, "aria-hidden": "true", text: KIND_MARK[k] }),
              " " + KIND_SHORT[k] + " (" + counts[k] + ")"]));
          });
        } else words += view.live ? " Computing them for this pass…" : " The build's numbers for this prompt are loading…";
      }
      if (colour === "effect") {
        methodNote.textContent = METHOD_WORDS[method] + (method === "mean" ? " The means: " + labIndex.means_over.positions + " positions of " + labIndex.means_over.prompts.length + " stored prompts." : "");
        drawCopyPick();
        if (!t) words = "Name a token above first.";
        else if (!eff) words = view.live ? "Press Sweep: every head and every MLP is switched off in turn, " + methodVerb() + ", and each cell shows what " + targetShort(t) + " loses or gains." :
          "The build swept this prompt for its own token only" + (method === "patch" ? ", and patched only its stored pairs" : "") + ": load the model to sweep " + targetShort(t) + ".";
        else {
          words = "Each cell: " + targetShort(t) + " after that part alone is " + methodVerb() + ", against " + valueWords(t, eff.base.value) + " with every part on" +
            (eff.source === "stored" ? " (measured by the build with transformers)." : " (this page's sweep" + (eff.done < eff.total ? ", " + eff.done + " of " + eff.total + " parts so far" : "") + ").");
          diverging(t, top, "loses", "gains", function (x) { return deltaWords(t, x); });
          listTop(eff, t, H);
        }
      } else sweepBox.hidden = true;
      if (colour === "direct") {
        if (!t) words = "Name a token above first.";
        else if (!dir) words = view.live ? "Computing each part's output for this pass…" : "The build measured the direct shares of its own token only: load the model for " + targetShort(t) + ".";
        else {
          words = "Each cell: what the part's output at the last position adds to " + targetShort(t) + "'s logit" + (t.ids.length === 2 ? " difference" : "") + " directly, read through the final norm and the unembedding. " +
            "The approximation: the final norm divides the stream by its size, and that divisor is the whole pass's, held fixed; so the shares, with the embedding's " + ui.fix(dir.embedding, 2) +
            ", add up to " + ui.fix(dir.total, 2) + ", the logit, but a part's effect through the blocks after it is not counted (the sweep measures that).";
          diverging(t, top, "lowers it", "raises it", function (x) { return ui.fix(x, 2); });
        }
      }
      colourNote.textContent = words;
    }
    function diverging(t, top, neg, pos, fmt) {
      keyBox.appendChild(el("span", { class: "nt-key-item" }, [el("span", { class: "nt-head-cell nt-key-swatch nt-diverge", style: "--v:-1", "aria-hidden": "true" }), " " + neg + " (" + fmt(-top) + ")"]));
      keyBox.appendChild(el("span", { class: "nt-key-item" }, [el("span", { class: "nt-head-cell nt-key-swatch nt-diverge", style: "--v:0", "aria-hidden": "true" }), " no change"]));
      keyBox.appendChild(el("span", { class: "nt-key-item" }, [el("span", { class: "nt-head-cell nt-key-swatch nt-diverge", style: "--v:1", "aria-hidden": "true" }), " " + pos + " (" + fmt(top) + ")"]));
    }
    // The five parts whose change costs the target most (values in sweep order: L x H heads, then L MLPs).
    function listTop(eff, t, H) {
      var heads = eff.values.length / (H + 1) * H, order = [];
      eff.values.forEach(function (v, i) { if (v !== null && v !== undefined) order.push(i); });
      order.sort(function (a, b) { return eff.values[a] - eff.values[b]; });
      var names = order.slice(0, 5).map(function (i) {
        return partName(i < heads ? ["head", Math.floor(i / H), i % H] : ["mlp", i - heads]) + " (" + valueWords(t, eff.values[i]) + ")";
      });
      keyBox.appendChild(el("p", { class: "nt-hint", "data-role": "sweep-top", text: "Largest drops: " + names.join(", ") + "." }));
    }
    function drawCopyPick() {
      var key = storedKeyOf(view), opts = [];
      labIndex.pairs.forEach(function (p) {
        if (p.clean === key) opts.push(p.corrupt);
        if (p.corrupt === key) opts.push(p.clean);
      });
      index.prompts.forEach(function (p) { if (p.key !== key && opts.indexOf(p.key) < 0 && view.live) opts.push(p.key); });
      if (copyFrom && opts.indexOf(copyFrom) < 0) copyFrom = null;
      if (!copyFrom && opts.length) copyFrom = opts[0];
      ui.clear(copyPick);
      opts.forEach(function (k) {
        var e = index.prompts.filter(function (p) { return p.key === k; })[0];
        copyPick.appendChild(el("option", { value: k, text: (e.chat ? "[chat] " : "") + e.text.replace(/\n/g, " ↵ ") }));
      });
      copyPick.value = copyFrom || "";
      copyField.hidden = method !== "patch";
      if (method === "patch" && !opts.length) methodNote.textContent += " The build stored patching for its pairs (" + labIndex.pairs.map(function (p) { return "“" + promptText(p.clean) + "” and “" + promptText(p.corrupt) + "”"; }).join("; ") + "): pick one of them above, or load the model.";
    }
    function promptText(k) { var e = index.prompts.filter(function (p) { return p.key === k; })[0]; return e ? e.text : k; }

    // ---- a live sweep --------------------------------------------------------------------------
    function drawSweepControls() {
      var model = store.get("real.model"), t = target();
      stopBtn.hidden = !running;
      sweepProgress.hidden = !running;
      var why = !model ? "A sweep runs the real model: load it with the panel above first." : !view || !view.live ? "Run a prompt in the panel first." :
        !t ? "Name a token first." : running ? "A sweep is running." : method === "patch" && !copyFrom ? "Pick the prompt to copy from." : "";
      ui.setDisabled(sweepBtn, why);
    }
    function runSweep() {
      var model = store.get("real.model"), t = target();
      if (!model || !view || !view.live || !t || running) return;
      var ids = view.ids.slice(), s = sig(), specs = sweep.parts(model.config).map(function (p) { return { parts: [p], mode: method }; });
      var entry = { values: [], base: null, done: 0, total: specs.length };
      msg.clear();
      var prep = Promise.resolve({});
      if (method === "mean") prep = (means ? Promise.resolve(means) : loadMeans().then(function (d) { means = sweep.means(d); return means; })).then(function (m) { return { means: m }; });
      if (method === "patch") {
        var text = promptText(copyFrom), e = index.prompts.filter(function (p) { return p.key === copyFrom; })[0];
        var enc = model.tokenizer.encode(text, { chat: !!(e && e.chat) });
        if (!enc.ok || enc.ids.length !== ids.length) {
          msg.show("Patching copies position by position: “" + text + "” is " + (enc.ok ? enc.ids.length : "no") + " tokens, this prompt " + ids.length + ". Pick a prompt of the same length.", "error");
          return;
        }
        prep = sweep.capture(model.session, enc.ids, { slot: sweep.SLOT }).then(function (src) { return { source: src }; });
      }
      var t0 = performance.now();
      running = { sig: s, handle: { stop: function () { running.stopAsked = true; } } };
      sweepProgress.max = specs.length;
      sweepProgress.value = 0;
      drawSweepControls();
      sweepLine.textContent = "Preparing the sweep…";
      prep.then(function (ctx) {
        if (running.stopAsked) return { rows: [], stopped: true };
        var h = sweep.run(model.session, Object.assign({ ids: ids, specs: specs, target: t, onRow: function (i, row, done, total) {
          if (i < 0) { entry.base = row.metric; swept[s] = entry; return; }
          entry.values[i] = row.metric.value;
          entry.done = done;
          sweepProgress.value = done;
          sweepLine.textContent = "Swept " + done + " of " + total + " parts (" + ((performance.now() - t0) / 1000).toFixed(1) + " s)…";
          if (done % 10 === 0 || done === total) render();
        } }, ctx));
        running.handle = h;
        return h.done;
      }).then(function (res) {
        var secs = ((performance.now() - t0) / 1000).toFixed(1);
        sweepLine.textContent = res.stopped ? "Stopped after " + entry.done + " of " + entry.total + " parts (" + secs + " s): the cells swept so far are coloured." :
          "Swept all " + entry.total + " parts in " + secs + " s, each a pass of the model that reruns only the blocks from the part's own.";
        root.setAttribute("data-swept", String(entry.done));
        root.setAttribute("data-sweep-ms", String(Math.round(performance.now() - t0)));
      }, function (err) {
        msg.show(err.message + ".", "error");
        sweepLine.textContent = "The sweep stopped: see the line above.";
      }).then(function () { running = null; drawSweepControls(); render(); });
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

    // ---- a head opened: its whole pattern, and the last token's row ----------------------------
    function openHead(l, h) {
      opened = opened && opened[0] === l && opened[1] === h ? null : [l, h];
      want(false);
      drawGrid();
      drawHead();
    }
    function patternOf(l, h) {
      if (view.live) return view.pattern && view.inside && view.inside.pattern && view.inside.pattern[0] === l && view.inside.pattern[1] === h ? view.pattern : null;
      return labRec && storedKeyOf(view) === labRec.key ? lab.pattern(labRec, l, h) : null;
    }
    function drawHead() {
      ui.clear(headBox);
      if (!opened || !view || !view.heads[opened[0]]) return;
      var l = opened[0], h = opened[1], c = view.heads[l][h], T = view.tokens.length, kinds = kindsNow();
      var last = show(view.tokens[T - 1]);
      headBox.appendChild(el("p", { class: "nt-x-title", text: headName(l, h) + ": where the last token (“" + last + "”) looks" + (isOff(l, h) ? " (switched off)" : "") }));
      if (kinds) {
        var k = kinds[l][h];
        headBox.appendChild(el("p", { class: "nt-note", "data-role": "head-kind", text: "Over the whole prompt it looks mostly at " + KIND_WORDS[lab.KINDS[k.kind]] + ": " +
          lab.KINDS.map(function (name, i) { return KIND_SHORT[name] + " " + ui.pct(k.shares[i], 1); }).join(", ") + " (each averaged over the positions where that kind of token exists)." }));
      }
      var items;
      if (c.weights) {
        items = c.weights.map(function (w, j) { return { label: j + " " + show(view.tokens[j]), value: w, text: ui.pct(w, 1), data: { pos: j, weight: w } }; });
      } else {
        items = [{ label: "0 " + show(view.tokens[0]), value: c.first, text: ui.pct(c.first, 1), data: { pos: 0, weight: c.first } }];
        if (c.top !== 0) items.push({ label: c.top + " " + show(view.tokens[c.top]), value: c.topWeight, text: ui.pct(c.topWeight, 1), data: { pos: c.top, weight: c.topWeight } });
      }
      headBox.appendChild(ui.bars(items, { label: headName(l, h) + ": attention weights from the last position" }));
      if (!c.weights) {
        var rest = 1 - c.first - (c.top !== 0 ? c.topWeight : 0);
        headBox.appendChild(el("p", { class: "nt-note", text: "The last position's row as the build stored it: its weight on the first token and on the token it looks at most; the other " +
          (T - (c.top !== 0 ? 2 : 1)) + " positions share the rest (" + ui.pct(rest, 1) + "). The heat map below has every weight." }));
      }
      var pat = patternOf(l, h);
      if (pat) headBox.appendChild(heatMap(pat, T, l, h));
      else headBox.appendChild(el("p", { class: "nt-note", text: view.live ? "Computing this head's whole pattern…" : "This prompt's patterns are loading…" }));
      var t = ui.button(isOff(l, h) ? "Switch it back on" : "Switch this head off", function () { toggleHead(l, h); drawHead(); });
      t.setAttribute("data-role", "head-toggle");
      headBox.appendChild(el("div", { class: "nt-controls" }, [t]));
    }
    // Query x key: row i is where position i looks (keys 0..i), a cell's shade its weight; the diagonal
    // is "itself", the one left of it "the token before", an induction head's stripe runs one right of
    // the earlier copy's diagonal.
    function heatMap(p, T, l, h) {
      var cell = Math.max(6, Math.min(22, Math.floor(300 / T))), pad = 64, W = pad + T * cell + 4, Hh = pad + T * cell + 4;
      var s = ui.svg("svg", { viewBox: "0 0 " + W + " " + Hh, width: W, height: Hh, class: "nt-heat", role: "img", "data-role": "heat-map",
        "aria-label": headName(l, h) + ": every position's attention (rows: the position looking; columns: the position looked at)" });
      for (var i = 0; i < T; i++) {
        var lab1 = ui.svg("text", { x: pad - 4, y: pad + i * cell + cell * 0.7, "text-anchor": "end", class: "nt-heat-label" });
        lab1.textContent = show(view.tokens[i]);
        s.appendChild(lab1);
        var lab2 = ui.svg("text", { x: 0, y: 0, transform: "translate(" + (pad + i * cell + cell * 0.7) + "," + (pad - 4) + ") rotate(-60)", class: "nt-heat-label" });
        lab2.textContent = show(view.tokens[i]);
        s.appendChild(lab2);
        for (var j = 0; j <= i; j++) {
          var w = p[i * T + j], r = ui.svg("rect", { x: pad + j * cell, y: pad + i * cell, width: cell - 1, height: cell - 1, class: "nt-heat-cell", "data-q": i, "data-k": j, "data-w": w.toFixed(5) });
          r.style.setProperty("--w", Math.min(1, w).toFixed(3));
          var tt = ui.svg("title", {});
          tt.textContent = i + " " + show(view.tokens[i]) + " → " + j + " " + show(view.tokens[j]) + ": " + ui.pct(w, 1);
          r.appendChild(tt);
          s.appendChild(r);
        }
      }
      return el("figure", { class: "nt-heat-wrap" }, [s, el("figcaption", { class: "nt-hint", text: "Every position's attention, query × key: row i is where position i looks (it sees positions 0 to i); darker is more. A diagonal is a head looking at itself, the line just left of it the token before; an induction head draws a stripe one step right of where the earlier copy sits." })]);
    }

    function render() {
      if (!view) return;
      state_.set(view.state);
      sourceText.textContent = "“" + view.text + "”" + (view.chat ? " in the chat template" : "") + ", " + view.tokens.length + " tokens.";
      root.setAttribute("data-view", view.live ? "live" : "stored:" + view.key);
      wantLab(storedKeyOf(view));
      publishTarget();
      drawTarget();
      drawAnswer();
      drawExample();
      drawSide();
      drawLens();
      drawGrid();
      drawSweepControls();
      drawHead();
    }

    function follow() {
      var pass = store.get("real.pass"), stored = alone ? own : store.get("real.stored");
      if (pass && pass.result) {
        view = liveView(pass, store.get("real.model"));
        waiting = null;
        ko = { heads: view.knockout.heads.map(function (x) { return x.slice(); }), mlp: view.knockout.mlp.slice() };
        if (!ko.heads.length && !ko.mlp.length) befores[view.ids.join(",")] = view.logits;
        if (running && running.sig !== sig()) running.handle.stop();  // the prompt or its token changed under the sweep
      } else if (stored) view = storedView(stored);
      else return;
      if (opened && view.heads.length && !(view.heads[opened[0]] && view.heads[opened[0]][opened[1]])) opened = null;
      if (view.live && lensAt !== null && lensAt >= view.tokens.length - 1) { lensAt = null; want(false); }
      render();
    }
    // On screen (or nearly), the panel's passes compute what this view draws: the lens at its position
    // and the heads, and with them the heads' kinds, the parts' direct outputs and the open head's
    // pattern when the grid shows them; off screen, none (a pass then takes about half the time).
    var wanted = false;
    function want(force) {
      var next = wanted ? { at: lensAt, kinds: colour === "kinds", direct: colour === "direct", pattern: opened ? opened.slice() : null } : null, now = store.get("real.inside");
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
      if (m && linkedTarget) { var lt = linkedTarget; linkedTarget = null; tokenIn.value = lt[0]; againstIn.value = lt[1] || ""; setTarget(lt[0], lt[1] || ""); }
      if (view) render(); else drawExample();
    });
    drawExample();
    if (alone) showKey(null);
    follow();

    // ---- its state in the link, its numbers as files (js/ui/permalink.js) ----------------------
    var linked = null, waiting = null, linkedTarget = null;  // a link's parts switched off, live prompt and token, waiting for the model
    var UNFIT = "This link switches off a head or MLP the model does not have: every part stays on.";
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
        head: permalink.ints(0, 999, 2), click: permalink.one(["open", "off"]), tgt: permalink.text(40), vs: permalink.text(40),
        colour: permalink.one(["kinds", "attention", "effect", "direct"]), method: permalink.one(sweep.MODES),
        from: permalink.one(index.prompts.map(function (pr) { return pr.key; })) },
      get: function () {
        var s = { key: storedKey(), click: mode, colour: colour, method: method };
        var p = view && view.live ? view : waiting;
        if (p) { s.live = "1"; s.text = p.text; s.chat = p.chat ? "1" : "0"; }
        if (lensAt !== null) s.at = lensAt;
        var k = linked || ko;
        if (k.heads.length) s.off = [].concat.apply([], k.heads);
        if (k.mlp.length) s.mlp = k.mlp;
        if (opened) s.head = opened;
        var nt = named ? named.text : linkedTarget;
        if (nt) { s.tgt = nt[0]; if (nt[1]) s.vs = nt[1]; }
        if (method === "patch" && copyFrom) s.from = copyFrom;
        return s;
      },
      set: function (s) {
        if (s.off && s.off.length % 2) throw new Error("“off” must list a block and a head for each head");
        if (s.head && s.head.length !== 2) throw new Error("“head” must be a block and a head");
        if (s.vs && !s.tgt) throw new Error("“vs” needs a token to set against it (“tgt”)");
        var k = { heads: pairs(s.off || []), mlp: (s.mlp || []).slice() }, what = [];
        if (!fits(k)) throw new Error(UNFIT.replace(/^This link s/, "it s").replace(/\.$/, ""));
        if (s.click) { mode = s.click; modeRadios.querySelector('input[value="' + s.click + '"]').checked = true; }
        if (s.colour) { colour = s.colour; colourRadios.querySelector('input[value="' + s.colour + '"]').checked = true; }
        if (s.method) { method = s.method; methodRadios.querySelector('input[value="' + s.method + '"]').checked = true; }
        if (s.from) copyFrom = s.from;
        if (s.head) opened = s.head.slice();
        if (s.at !== undefined) lensAt = s.at;
        want(false);
        if (alone) showKey(s.key || null);
        else store.set("real.inside-link", { key: s.key, live: s.live, text: s.text, chat: s.chat });
        if (view) { if (opened && view.heads.length && !(view.heads[opened[0]] && view.heads[opened[0]][opened[1]])) opened = null; render(); }
        if (s.live === "1" && s.text) { waiting = { text: s.text, chat: s.chat === "1" }; what.push("shows SmolLM2 run live on a prompt of its own"); }
        if (s.tgt) {
          if (store.get("real.model")) { tokenIn.value = s.tgt; againstIn.value = s.vs || ""; setTarget(s.tgt, s.vs || ""); }
          else { linkedTarget = s.vs ? [s.tgt, s.vs] : [s.tgt]; what.push("follows “" + s.tgt + "”" + (s.vs ? " against “" + s.vs + "”" : "")); }
        }
        if (k.heads.length || k.mlp.length) {
          linked = k;
          what.push("switches parts off (" + offParts(k).join(", ") + ")");
        }
        if (s.at !== undefined && !(s.live === "1")) what.push("reads the lens at position " + s.at);
        if (!what.length) return "";
        if (store.get("real.model") && linked) { k = linked; linked = null; setKnockout(k); return ""; }
        return badge.needsModel(what.join(" and "), source);
      },
      tables: function () {
        if (!view) throw new Error("no pass is on show yet");
        var t = target(), lensRows = [], headRows = [], answerRows, weightRows = [], eff = effect(), dir = directNow(), kinds = kindsNow();
        var H = view.heads.length ? view.heads[0].length : 0;
        view.lens.forEach(function (row) {
          row.top.forEach(function (x, i) { lensRows.push([view.lensAt, row.layer, row.label, i + 1, x.id === undefined ? null : x.id, x.piece, x.prob]); });
        });
        view.heads.forEach(function (layer, l) {
          layer.forEach(function (c, h) {
            headRows.push([l, h, kinds ? lab.KINDS[kinds[l][h].kind] : null, c.top, view.tokens[c.top], c.topWeight, c.first, isSink(c) ? 1 : 0, isOff(l, h) ? 1 : 0,
              eff && eff.values[l * H + h] !== undefined ? eff.values[l * H + h] : null, dir ? dir.heads[l][h] : null]);
          });
        });
        answerRows = view.answer.map(function (a, i) { return [i + 1, a.id === undefined ? null : a.id, a.piece, a.prob, a.logit]; });
        var got = [{ name: "lens", columns: ["position", "layer", "after", "rank", "id", "token", "probability"], rows: lensRows },
          { name: "answer", columns: ["rank", "id", "token", "probability", "logit"], rows: answerRows },
          { name: "heads", columns: ["layer", "head", "kind", "top_position", "top_token", "top_weight", "first_weight", "sink", "off", "target_after_" + method, "direct_share"], rows: headRows }];
        if (eff || dir) {
          var L = view.heads.length;
          got.push({ name: "mlps", columns: ["layer", "target_after_" + method, "direct_share"], rows: Array.from({ length: L }, function (_, l) {
            return [l, eff && eff.values[L * H + l] !== undefined ? eff.values[L * H + l] : null, dir ? dir.mlp[l] : null];
          }) });
        }
        if (opened && view.heads[opened[0]]) {
          var c = view.heads[opened[0]][opened[1]], pat = patternOf(opened[0], opened[1]), T = view.tokens.length;
          if (pat) {
            for (var i = 0; i < T; i++) for (var j = 0; j <= i; j++) weightRows.push([opened[0], opened[1], i, view.tokens[i], j, view.tokens[j], pat[i * T + j]]);
          } else {
            var at = c.weights ? c.weights.map(function (w, j) { return [j, w]; }) : [[0, c.first]].concat(c.top !== 0 ? [[c.top, c.topWeight]] : []);
            at.forEach(function (x) { weightRows.push([opened[0], opened[1], T - 1, view.tokens[T - 1], x[0], view.tokens[x[0]], x[1]]); });
          }
          got.push({ name: "head_weights", columns: ["layer", "head", "query", "query_token", "key", "key_token", "weight"], rows: weightRows });
        }
        got.extra = { source: view.live ? "live" : "stored", prompt: { key: view.live ? undefined : view.key, text: view.text, chat: !!view.chat, tokens: view.tokens },
          lens_at: view.lensAt, knockout: { heads: ko.heads, mlp: ko.mlp }, open_head: opened,
          target: t ? { ids: t.ids, tokens: t.pieces, metric: metricNow() } : null,
          sweep: eff ? { method: method, copied_from: method === "patch" ? promptText(copyFrom) : null, source: eff.source, base: eff.base.value } : null,
          note: "layers, heads and positions count from 0; the lens's layer 0 is the embedding (stored passes only); target_after: the target's probability (a pair: its logit difference) with that part alone switched off, replaced by its mean or patched; direct_share: the part's output dotted with the target's unembedding row through the final norm, its scale held at the whole pass's" };
        return got;
      } });
  }, { after: ["real-ask", "real-distribution"] });  // it shows the prompt the distribution above has on show
});
