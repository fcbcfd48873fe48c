// A reader's prompt for the tiny model: text -> ids, or one reader-facing line saying what is wrong.
nexttoken.define("runtime.prompts", ["runtime.active", "ui"], function (active, ui) {
  "use strict";

  // Text from a reader -> ids, or a reader-facing message. Upper case is folded (the tiny
  // vocabulary has only lower-case letters); everything else outside it is reported by name.
  function encode(text, opts) {
    opts = opts || {};
    var t = active.tiny(), MAX_CHARS = ui.MAX_CHARS;
    var nCtx = t.config.model.n_ctx;
    var maxTokens = opts.maxTokens || nCtx;
    var raw = String(text);
    if (raw.length > MAX_CHARS) {
      return { ok: false, message: "That is " + raw.length + " characters; the demos take at most " + MAX_CHARS + " (the model's window is only " + nCtx + " tokens)." };
    }
    var lowered = raw.toLowerCase();
    var note = lowered !== raw ? "Folded to lower case: the tiny model has no capital letters." : "";
    if (!lowered.trim()) return { ok: false, message: "Type a prompt first: the model needs at least one token." };
    var r = t.tk.encode(lowered);
    if (!r.ok) {
      var e = r.error || {};
      if (e.kind === "empty") return { ok: false, message: "Type a prompt first: the model needs at least one token." };
      var ch = e.char !== undefined ? e.char : "?";
      var code = ch && ch.codePointAt ? "U+" + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0") : "";
      return { ok: false, message: "The tiny model's vocabulary has no “" + ch + "” (" + code + ", at character " + ((e.index || 0) + 1) + "). It knows only the lower-case letters, spaces and “.” of its training sentences." };
    }
    if (r.ids.length > maxTokens) {
      return { ok: false, message: "That is " + r.ids.length + " tokens; this demo takes at most " + maxTokens + " (the model's context window is " + nCtx + ")." };
    }
    return { ok: true, ids: r.ids, tokens: r.ids.map(function (id) { return t.tk.show(id); }), note: note, text: lowered };
  }

  return { encode: encode };
});
