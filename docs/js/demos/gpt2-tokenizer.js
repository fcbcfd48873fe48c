// GPT-2's real tokenizer, live: loads its 1 MB vocabulary only when the reader asks (through
// nexttoken's loader, classic scripts that work from file://), so the page stays light until then.
nexttoken.define("demos.gpt2-tokenizer", ["ui", "later:data.gpt2-vocab", "later:gpt2.tokenizer"], function (ui, loadVocab, loadTokenizer) {
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

    function run() {
      if (!tk) return;
      ui.clear(out);
      msg.clear();
      var text = input.input.value;
      if (!text) { msg.show("Type some text first.", "error"); return; }
      if (text.length > 2000) { msg.show("That is " + text.length + " characters; this demo takes at most 2000.", "error"); return; }
      var r = tk.encode(text);
      var row = ui.el("div", { class: "nt-tokens" });
      // spaces drawn as ·, as everywhere on the site; � marks a token that holds only part of a character
      var shown = r.ids.map(function (id, i) { return (r.readable ? r.readable[i] : r.tokens[i]).replace(/ /g, "·"); });
      shown.forEach(function (label, i) { row.appendChild(ui.chip(label, r.ids[i])); });
      out.appendChild(ui.el("p", { class: "nt-small", text: r.ids.length + " tokens (a space is drawn as ·):" }));
      out.appendChild(row);
      if (shown.some(function (label) { return label.indexOf("\uFFFD") >= 0; }))
        out.appendChild(ui.el("p", { class: "nt-small", text: "A � is a token that holds only some of the bytes of one character (GPT-2's tokens are bytes, and this character takes several): the character appears only when the tokens are joined." }));
    }
  });
});
