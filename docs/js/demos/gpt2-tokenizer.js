// GPT-2's real tokenizer, live: loads its 1 MB vocabulary only when the reader asks (a classic
// <script> added on demand, so it works from file:// and keeps the page light until then).
(function () {
  "use strict";
  var U = window.NTUI;
  var here = document.currentScript && document.currentScript.src;
  var jsRoot = here ? new URL("../", here).href : "js/";

  function load(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = src;
      s.onload = resolve;
      s.onerror = function () { reject(new Error("could not load " + src)); };
      document.body.appendChild(s);
    });
  }

  U.start("gpt2-tokenizer", function (root, live) {
    var msg = U.message();
    var tk = null;
    var out = U.el("div", { class: "nt-output", "aria-live": "polite" });
    var input = U.textInput("Text for GPT-2's tokenizer", root.getAttribute("data-text") || "", function () { run(); }, { role: "text" });
    var loadBtn = U.button("Load GPT-2's tokenizer (about 1 MB)", function () {
      loadBtn.disabled = true;
      msg.show("Loading GPT-2's vocabulary…", "info");
      var chain = window.NT && window.NT.data && window.NT.data.gpt2Vocab ? Promise.resolve() : load(jsRoot + "data/gpt2-vocab.js");
      chain.then(function () { return window.NT.gpt2Tokenizer ? null : load(jsRoot + "gpt2/gpt2-tokenizer.js"); })
        .then(function () {
          tk = window.NT.gpt2Tokenizer.create(window.NT.data.gpt2Vocab);
          msg.clear();
          loadBtn.hidden = true;
          input.input.disabled = false;
          run();
        })
        .catch(function (e) { msg.show("GPT-2's tokenizer could not load: " + e.message, "error"); loadBtn.disabled = false; });
    }, { primary: true });
    input.input.disabled = true;
    live.appendChild(U.el("div", { class: "nt-controls" }, [input.wrap, loadBtn]));
    live.appendChild(msg.node);
    live.appendChild(out);

    function run() {
      if (!tk) return;
      U.clear(out);
      msg.clear();
      var text = input.input.value;
      if (!text) { msg.show("Type some text first.", "error"); return; }
      if (text.length > 2000) { msg.show("That is " + text.length + " characters; this demo takes at most 2000.", "error"); return; }
      var r = tk.encode(text);
      var row = U.el("div", { class: "nt-tokens" });
      r.ids.forEach(function (id, i) { row.appendChild(U.chip(r.readable ? r.readable[i] : r.tokens[i], id)); });
      out.appendChild(U.el("p", { class: "nt-small", text: r.ids.length + " tokens:" }));
      out.appendChild(row);
    }
  });
})();
