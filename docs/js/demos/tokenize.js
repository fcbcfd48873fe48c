// Demo: tokenization of an unseen word, merge by merge. Words are taken as mid-sentence words
// (with their leading space, drawn ·) unless "start of text" is ticked.
(function () {
  "use strict";
  var U = window.NTUI;

  U.start("tokenize", function (root, live) {
    var t = U.tiny();
    var msg = U.message();
    var startOfText = false;
    var input = U.textInput("Word or text", root.getAttribute("data-text") || "cats", function () { prepare(); },
      { hint: "Try cats, dogs, bats or a sentence.", role: "text" });
    var sot = U.checkbox("start of text (no leading space)", false, function (v) { startOfText = v; prepare(); });
    var stepSlider = U.slider("Merges applied", 0, 0, 1, 0, function (v) { show(v); }, function (v) { return String(v); });
    var prev = U.button("Previous merge", function () { show(cur - 1); });
    var next = U.button("Next merge", function () { show(cur + 1); }, { primary: true });
    var all = U.button("All merges", function () { show(total); });
    var out = U.el("div", { class: "nt-output", "aria-live": "polite" });
    live.appendChild(U.el("div", { class: "nt-controls" }, [input.wrap, sot.wrap]));
    live.appendChild(U.el("div", { class: "nt-controls nt-buttons" }, [stepSlider.wrap, prev, next, all]));
    live.appendChild(msg.node);
    live.appendChild(out);

    var chunks = [], total = 0, cur = 0, final = null;

    function prepare() {
      msg.clear();
      chunks = []; total = 0; final = null;
      var raw = input.input.value;
      if (raw.length > U.MAX_CHARS) { fail("That is " + raw.length + " characters; this demo takes at most " + U.MAX_CHARS + "."); return; }
      var lowered = raw.toLowerCase();
      if (!lowered.trim()) { fail("Type a word first."); return; }
      if (lowered !== raw) msg.show("Folded to lower case: the tiny model only knows lower-case letters.", "info");
      var text = startOfText ? lowered.replace(/^\s+/, "") : (/^\s/.test(lowered) ? lowered : " " + lowered);
      var r = t.tk.mergeSteps(text);
      if (!r.ok) {
        var e = r.error || {};
        fail(e.kind === "unknown_char"
          ? "The tiny vocabulary has no “" + e.char + "” (character " + ((e.index || 0) + 1) + "): it has only the lower-case letters, spaces and “.” of its training sentences, and no byte fallback."
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
      U.clear(out);
      stepSlider.input.max = "0";
      stepSlider.set(0);
      U.setDisabled(prev, "");
      prev.disabled = true;  // the error message above says why; the note under Next repeats it
      U.setDisabled(next, "Nothing to merge: fix the text first.");
      all.disabled = true;
      all.setAttribute("aria-describedby", next.getAttribute("aria-describedby"));
    }

    function show(n) {
      cur = Math.max(0, Math.min(total, n));
      stepSlider.set(cur);
      // A disabled button says why (next and all share one note: they stop together).
      U.setDisabled(prev, cur === 0 ? "No earlier step: this is the text split into single characters." : "");
      U.setDisabled(next, cur === total ? "No more merges apply: these are the final tokens." : "");
      all.disabled = cur === total;
      all.setAttribute("aria-describedby", next.getAttribute("aria-describedby"));
      U.clear(out);
      var left = cur, applied = [];
      var row = U.el("div", { class: "nt-tokens nt-merge-row" });
      chunks.forEach(function (c) {
        var k = Math.min(left, c.steps.length - 1);
        left -= k;
        for (var i = 1; i <= k; i++) applied.push(c.steps[i]);
        c.steps[k].symbols.forEach(function (s) { row.appendChild(U.chip(s, null, "nt-symbol")); });
        row.appendChild(U.el("span", { class: "nt-chunk-gap", "aria-hidden": "true" }));
      });
      out.appendChild(U.el("p", { class: "nt-small", text: "Symbols after " + cur + " of " + total + " merges:" }));
      out.appendChild(row);
      if (applied.length) {
        var last = applied[applied.length - 1];
        out.appendChild(U.el("p", { class: "nt-small" }, ["Last merge: ", U.el("code", { text: last.merge[0] }), " + ",
          U.el("code", { text: last.merge[1] }), " (learned as merge number " + (last.rank + 1) + ")"]));
      } else {
        out.appendChild(U.el("p", { class: "nt-small", text: "Start: every character is its own symbol." }));
      }
      if (cur === total && final) {
        var res = U.el("p", { class: "nt-result" }, ["Tokens: "]);
        final.ids.forEach(function (id, i) {
          if (i) res.appendChild(document.createTextNode(" + "));
          res.appendChild(U.el("code", { class: "nt-final-token", "data-id": id, text: t.tk.show(id) }));
        });
        res.appendChild(document.createTextNode("  (ids " + final.ids.join(", ") + ")"));
        out.appendChild(res);
      }
    }

    prepare();
  });
})();
