// The logit lens: what the model would answer if the residual stream stopped after the
// embeddings, after attention, or after the MLP, each sent through ln_f and the unembedding
// exactly as the real last stage is; a stage-by-position table beside the real answer. Follows
// the knock-outs of knockout.js when both are on a page.
(function () {
  "use strict";
  var U = window.NTUI;
  var NAMES = { embeddings: "after the embeddings", attention: "after attention", mlp: "after the MLP" };

  U.start("lens", function (root, live) {
    var t = U.tiny();
    var m = t.model;
    if (!m) throw new Error("the model script did not load");
    var msg = U.message();
    var prompt = U.textInput("Prompt", root.getAttribute("data-prompt") || (t.config.prompts || ["the cat sat on the"])[0], function () { run(); });
    var out = U.el("div", { class: "nt-lens nt-x-host", "aria-live": "polite" });
    live.appendChild(U.el("div", { class: "nt-controls" }, [prompt.wrap]));
    live.appendChild(msg.node);
    live.appendChild(out);
    document.addEventListener("nt-knockout", function () { run(); });

    // make(id) -> the explanation of the shown probability (explain.js), when that script is on the page
    function cell(tag, probs, make) {
      var id = U.argsort(probs)[0], text = U.pct(probs[id]);
      var num = window.NTX && make ? window.NTX.button(text, function () { return make(id); }, { cls: "nt-small" })
        : U.el("span", { class: "nt-small", text: text });
      return U.el(tag, { "data-token": t.tk.show(id), "data-prob": probs[id] }, [U.el("code", { text: t.tk.show(id) }), " ", num]);
    }

    function run() {
      var t0 = performance.now();
      msg.clear();
      U.clear(out);
      var r = U.encodePrompt(prompt.input.value);
      if (!r.ok) { msg.show(r.message, "error"); return; }
      if (r.note) msg.show(r.note, "info");
      var ko = (window.NT && window.NT.knockoutState) || null;
      var res = m.lens(r.ids, ko ? { knockout: ko } : undefined);
      var off = ko && (ko.mlp || ko.heads.length);
      var table = U.el("table", { class: "nt-lens-table" });
      table.appendChild(U.el("caption", { text: "Top next token at each position if the pass stopped at each stage" +
        (off ? " (with the knock-outs chosen above)" : "") }));
      var head = U.el("tr", {}, [U.el("th", { scope: "col", text: "stage" })]);
      r.tokens.forEach(function (tok, i) { head.appendChild(U.el("th", { scope: "col", text: "after " + tok + " (" + i + ")" })); });
      table.appendChild(U.el("thead", {}, [head]));
      var body = U.el("tbody");
      var nl = m.config.n_layer;
      var cfg = m.config, w = window.NTData.tiny.weights, trace = res.trace;
      res.stages.forEach(function (st) {
        var name = NAMES[st.name] + (nl > 1 && st.layer !== null ? " (block " + (st.layer + 1) + ")" : "");
        var tr = U.el("tr", { "data-stage": st.name }, [U.el("th", { scope: "row", text: name })]);
        // the stage's residual rows in the trace, and the same array in the snippet's numpy trace
        var key = st.name === "attention" ? "resid_mid" : "resid_post";
        var rows = st.layer === null ? trace.x : trace.h[st.layer][key];
        var py = st.layer === null ? "tr[\"x\"]" : "tr[\"h\"][" + st.layer + "][\"" + key + "\"]";
        st.probs.forEach(function (p, i) {
          tr.appendChild(cell("td", p, function (id) {
            return window.NTX.explain.lens(cfg, w, r.ids, Array.from(rows[i]), i, id, t.tk.show(id), NAMES[st.name], py);
          }));
        });
        body.appendChild(tr);
      });
      var real = U.el("tr", { "data-stage": "answer", class: "nt-lens-answer" }, [U.el("th", { scope: "row", text: "the model's answer" })]);
      res.probs.forEach(function (p, i) {
        real.appendChild(cell("td", p, function (id) {
          return window.NTX.explain.prob(cfg, r.ids, Array.from(trace.logits[i]), id, t.tk.show(id), 1, null, i);
        }));
      });
      body.appendChild(real);
      table.appendChild(body);
      out.appendChild(U.el("div", { class: "nt-table-wrap" }, [table]));
      out.appendChild(U.el("p", { class: "nt-small", text: "The last stage is the real pass: with " + nl + " block" + (nl > 1 ? "s" : "") +
        ", stopping after the last MLP is not stopping at all, so its row equals the answer." }));
      root.setAttribute("data-ms", (performance.now() - t0).toFixed(2));
    }
    run();
  });
})();
