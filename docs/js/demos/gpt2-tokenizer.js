// GPT-2's real tokenizer, live: loads its 1 MB vocabulary only when the reader asks (through
// nexttoken's loader, classic scripts that work from file://), so the page stays light until then.
nexttoken.define("demos.gpt2-tokenizer", ["ui", "later:data.gpt2-vocab", "later:gpt2.tokenizer", "ui.permalink"], function (ui, loadVocab, loadTokenizer, permalink) {
  "use strict";

  ui.start("gpt2-tokenizer", function (root, live) {
    var msg = ui.message();
    var tk = null;
    var out = ui.el("div", { class: "nt-output", "aria-live": "polite" });
    var input = ui.textInput("Text for GPT-2's tokenizer", root.getAttribute("data-text") || "", function () { run(); }, { role: "text" });
    var size = root.getAttribute("data-size");
    var loadBtn = ui.button("Load GPT-2's tokenizer" + (size ? " (" + size + ")" : ""), function () {
      loadBtn.disabled = true;
      msg.show("Loading GPT-2's vocabulary…", "info");
      Promise.all([loadVocab(), loadTokenizer()])
        .then(function (got) {
          tk = got[1].create(got[0]);
          msg.clear();
          loadBtn.hidden = true;
          input.input.disabled = false;
          run();
        })
        .catch(function (e) { msg.show("GPT-2's tokenizer could not load: " + e.message, "error"); loadBtn.disabled = false; });
    }, { primary: true });
    input.input.disabled = true;
    live.appendChild(ui.el("div", { class: "nt-controls" }, [input.wrap, loadBtn]));
    live.appendChild(msg.node);
    live.appendChild(out);

    // Its text in the page's link (a link's text waits for the Load button); the tokens as a download (js/ui/permalink.js).
    permalink.join(root, live, {
      fields: { text: permalink.text(2000) },
      get: function () { return { text: input.input.value }; },
      set: function (s) {
        if (s.text === undefined) return "";
        input.input.value = s.text;
        if (tk) { run(); return ""; }
        return "This link's text is in the box: load GPT-2's tokenizer to see its tokens.";
      },
      tables: function () {
        if (!tk) throw new Error("GPT-2's tokenizer is not loaded yet (press Load)");
        var r = tk.encode(input.input.value);
        return [{ name: "gpt2-tokens", columns: ["position", "id", "token"], rows: r.ids.map(function (id, i) { return [i, id, r.readable[i]]; }) }];
      } });

    function run() {
      if (!tk) return;
      ui.clear(out);
      msg.clear();
      var text = input.input.value;
      if (!text) { msg.show("Type some text first.", "error"); return; }
      if (text.length > 2000) { msg.show("That is " + text.length + " characters; this demo takes at most 2000.", "error"); return; }
      var r = tk.encode(text);
      var row = ui.el("div", { class: "nt-tokens" });
      var labels = r.ids.map(function (_, i) { return label(r.readable[i], r.bytes[i]); });
      labels.forEach(function (lb, i) { row.appendChild(ui.chip(lb.text, r.ids[i], lb.partial ? "nt-chip-bytes" : null)); });
      out.appendChild(ui.el("p", { class: "nt-small", text: r.ids.length + " tokens (a space is drawn as ·):" }));
      out.appendChild(row);
      // runs of tokens that each hold part of a character, and the characters their bytes make together
      var runs = [], run = null;
      labels.forEach(function (lb, i) {
        if (lb.partial) {
          if (!run) runs.push(run = { labels: [], bytes: [] });
          run.labels.push(lb.text);
          run.bytes = run.bytes.concat(r.bytes[i]);
        } else run = null;
      });
      if (runs.length) {
        var list = ui.el("ul", { class: "nt-small nt-byte-runs" });
        runs.forEach(function (rn) {
          var joined = new TextDecoder().decode(new Uint8Array(rn.bytes)).replace(/ /g, "·");
          list.appendChild(ui.el("li", {}, rn.labels.map(function (t, k) {
            return ui.el("span", {}, [k ? " + " : "", ui.el("code", { text: t })]);
          }).concat([" = ", ui.el("code", { text: joined })])));
        });
        out.appendChild(ui.el("p", { class: "nt-small", text: "Tokens shown as bytes (0x…) hold only part of a character: GPT-2's tokens are bytes, " +
          "this character takes several, and it appears only when they are joined:" }));
        out.appendChild(list);
      }
    }

    // A token as the site shows it: spaces as ·; a token whose bytes are not whole UTF-8 characters
    // as its leading spaces and then its bytes in hex.
    var strict = new TextDecoder("utf-8", { fatal: true });
    function label(text, bytes) {
      try {
        if (bytes) strict.decode(new Uint8Array(bytes));
        return { text: text.replace(/ /g, "·"), partial: false };
      } catch (e) { /* not whole characters: shown as bytes below */ }
      var k = 0;
      while (k < bytes.length && bytes[k] === 0x20) k++;
      return { text: "·".repeat(k) + bytes.slice(k).map(function (b) { return "0x" + b.toString(16).toUpperCase().padStart(2, "0"); }).join(" "), partial: true };
    }
  });
});
