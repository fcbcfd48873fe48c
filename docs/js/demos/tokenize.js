// Demo: tokenization of an unseen word, merge by merge. Words are taken as mid-sentence words
// (with their leading space, drawn ·) unless "start of text" is ticked.
nexttoken.define("demos.tokenize", ["ui", "runtime.active"], function (ui, active) {
  "use strict";

  ui.start("tokenize", function (root, live) {
    var t = active.tiny();
    // The page's word is the built model's; a reader's model starts from the longest word of its
    // first sentence when it cannot read that one.
    function startText(text) {
      if (!active.data.yours || t.tk.encode(" " + text).ok) return text;
      var words = (t.config.corpus[0] || "").split(/[^A-Za-z]+/).filter(Boolean);
      return words.reduce(function (a, b) { return b.length > a.length ? b : a; }, "") || text;
    }
    var msg = ui.message();
    var startOfText = false;
    var input = ui.textInput("Word or text", startText(root.getAttribute("data-text") || "cats"), function () { prepare(); },
      { hint: "Try cats, dogs, bats or a sentence.", role: "text" });
    var sot = ui.checkbox("start of text (no leading space)", false, function (v) { startOfText = v; prepare(); });
    var stepSlider = ui.slider("Merges applied", 0, 0, 1, 0, function (v) { show(v); }, function (v) { return String(v); });
    var prev = ui.button("Previous merge", function () { show(cur - 1); });
    var next = ui.button("Next merge", function () { show(cur + 1); }, { primary: true });
    var all = ui.button("All merges", function () { show(total); });
    var out = ui.el("div", { class: "nt-output", "aria-live": "polite" });
    live.appendChild(ui.el("div", { class: "nt-controls" }, [input.wrap, sot.wrap]));
    live.appendChild(ui.el("div", { class: "nt-controls nt-buttons" }, [stepSlider.wrap, prev, next, all]));
    live.appendChild(msg.node);
    live.appendChild(out);
    if (active.data.yours) {
      live.appendChild(ui.el("p", { class: "nt-small", text: "Your model's vocabulary: " + t.tk.vocab.length + " tokens, in the order they were learned." }));
      live.appendChild(ui.el("div", { class: "nt-vocab", "data-role": "vocab" }, t.tk.vocab.map(function (_, id) { return ui.chip(t.tk.show(id), String(id)); })));
    }

    var chunks = [], total = 0, cur = 0, final = null;

    function prepare() {
      msg.clear();
      chunks = []; total = 0; final = null;
      var raw = input.input.value;
      if (raw.length > ui.MAX_CHARS) { fail("That is " + raw.length + " characters; this demo takes at most " + ui.MAX_CHARS + "."); return; }
      var lowered = t.tk.encode(raw).ok ? raw : raw.toLowerCase();  // fold only what the vocabulary lacks
      if (!lowered.trim()) { fail("Type a word first."); return; }
      if (lowered !== raw) msg.show("Folded to lower case: the tiny model has no capital letters.", "info");
      var text = startOfText ? lowered.replace(/^\s+/, "") : (/^\s/.test(lowered) ? lowered : " " + lowered);
      var r = t.tk.mergeSteps(text);
      if (!r.ok) {
        var e = r.error || {};
        fail(e.kind === "unknown_char"
          ? "The tiny vocabulary has no “" + e.char + "” (character " + ((e.index || 0) + 1) + "): it has only the characters of its training sentences, and no byte fallback."
          : (e.message || "This text cannot be tokenized."));
        return;
      }
      chunks = r.chunks;
      chunks.forEach(function (c) { total += c.steps.length - 1; });
      var enc = t.tk.encode(text);
      final = enc.ok ? enc : null;
      stepSlider.input.max = String(total);
      show(total);
    }

    function fail(text) {
      msg.show(text, "error");
      ui.clear(out);
      stepSlider.input.max = "0";
      stepSlider.set(0);
      ui.setDisabled(prev, "");
      prev.disabled = true;  // the error message above says why; the note under Next repeats it
      ui.setDisabled(next, "Nothing to merge: fix the text first.");
      all.disabled = true;
      all.setAttribute("aria-describedby", next.getAttribute("aria-describedby"));
    }

    function show(n) {
      cur = Math.max(0, Math.min(total, n));
      stepSlider.set(cur);
      // A disabled button says why (next and all share one note: they stop together).
      ui.setDisabled(prev, cur === 0 ? "No earlier step: this is the text split into single characters." : "");
      ui.setDisabled(next, cur === total ? "No more merges apply: these are the final tokens." : "");
      all.disabled = cur === total;
      all.setAttribute("aria-describedby", next.getAttribute("aria-describedby"));
      ui.clear(out);
      var left = cur, applied = [];
      var row = ui.el("div", { class: "nt-tokens nt-merge-row" });
      chunks.forEach(function (c) {
        var k = Math.min(left, c.steps.length - 1);
        left -= k;
        for (var i = 1; i <= k; i++) applied.push(c.steps[i]);
        c.steps[k].symbols.forEach(function (s) { row.appendChild(ui.chip(s, null, "nt-symbol")); });
        row.appendChild(ui.el("span", { class: "nt-chunk-gap", "aria-hidden": "true" }));
      });
      out.appendChild(ui.el("p", { class: "nt-small", text: "Symbols after " + cur + " of " + total + " merges:" }));
      out.appendChild(row);
      if (applied.length) {
        var last = applied[applied.length - 1];
        out.appendChild(ui.el("p", { class: "nt-small" }, ["Last merge: ", ui.el("code", { text: last.merge[0] }), " + ",
          ui.el("code", { text: last.merge[1] }), " (learned as merge number " + (last.rank + 1) + ")"]));
      } else {
        out.appendChild(ui.el("p", { class: "nt-small", text: "Start: every character is its own symbol." }));
      }
      if (cur === total && final) {
        var res = ui.el("p", { class: "nt-result" }, ["Tokens: "]);
        final.ids.forEach(function (id, i) {
          if (i) res.appendChild(document.createTextNode(" + "));
          res.appendChild(ui.el("code", { class: "nt-final-token", "data-id": id, text: t.tk.show(id) }));
        });
        res.appendChild(document.createTextNode("  (ids " + final.ids.join(", ") + ")"));
        out.appendChild(res);
      }
    }

    prepare();
  });
});
