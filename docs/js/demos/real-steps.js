// The same work for every token: a two-step question in the chat template, answered directly and after
// the steps written out in the assistant's turn; the right answer's probability and the model's top
// token each way, with the tokens each way reads and their multiply-adds (from the config: every
// matrix once per token, attention over the tokens before). It opens on the build's candidates
// (data.smollm2-experiments), the one its stated rule picked first; with the model loaded
// (ui.real-load), an edited question, lead-in, steps or answer runs live (two passes).
// Container: data-macs, {matrices, attention_per_key} (scripts/site/costs.py's macs).
nexttoken.define("demos.real-steps", ["ui", "store", "ui.real-badge", "ui.real-load", "real.experiments", "data.smollm2-experiments", "ui.permalink"],
  function (ui, store, badge, realLoad, lab, data, permalink) {
  "use strict";
  var el = ui.el;
  var S = data.same_work;

  function show(piece) { return String(piece).replace(/ /g, "·").replace(/\n/g, "↵"); }
  function byKey(key) { return S.candidates.filter(function (c) { return c.key === key; })[0]; }
  // A count of multiply-adds in words: "134 million", "7.6 billion".
  function macsText(n) {
    if (n >= 1e9) return (n / 1e9).toFixed(1) + " billion";
    return Math.round(n / 1e6) + " million";
  }

  ui.start("real-steps", function (root, live) {
    var cost = JSON.parse(root.getAttribute("data-macs"));
    var key = S.picked, view = null, gen = 0;
    var loader = realLoad.control(root);
    var state = badge(), sourceText = el("span", { "data-role": "steps-source-text" });
    var source = el("p", { class: "nt-source-line", "aria-live": "polite", "data-role": "steps-source" }, [state.node, sourceText]);
    var msg = ui.message();  // under Run both live: all it says answers that run
    var pick = ui.select("A stored question", S.candidates.map(function (c) {
      return { value: c.key, label: c.question + (c.key === S.picked ? " (picked by the rule)" : "") };
    }), key, function (v) { key = v; showStored(); });
    pick.input.setAttribute("data-role", "steps-pick");
    var fields = {};
    [["question", "Question (the user's turn)"], ["direct", "Asked directly: the assistant's turn starts"], ["steps", "With the steps: the assistant's turn starts"], ["answer", "The right answer's first token"]].forEach(function (f) {
      var input = el("input", { type: "text", class: "nt-input", maxlength: String(ui.INPUT_MAX), spellcheck: "false", autocomplete: "off", "data-role": "steps-" + f[0] });
      input.addEventListener("keydown", function (e) { if (e.key === "Enter") { e.preventDefault(); runLive(input); } });
      fields[f[0]] = { input: input, wrap: ui.field(f[1], input) };
    });
    var runButton = ui.button("Run both live", function () { runLive(runButton); }, { primary: false });
    runButton.setAttribute("data-role", "steps-run");
    var picture = el("div", { class: "nt-lab-steps", "data-role": "steps-picture" });
    var costLine = el("p", { class: "nt-note", "data-role": "steps-cost" });

    live.appendChild(loader.node);
    live.appendChild(source);
    live.appendChild(el("div", { class: "nt-controls" }, [pick.wrap]));
    // the fold above the picture: a run's answer comes under its button
    live.appendChild(el("details", { class: "nt-fold nt-lab-edit" }, [el("summary", { text: "Edit the question, the steps or the answer (runs live)" }),
      fields.question.wrap, fields.direct.wrap, fields.steps.wrap, fields.answer.wrap, el("div", { class: "nt-controls" }, [runButton]), msg.node]));
    live.appendChild(picture);
    live.appendChild(costLine);

    function modelReady() { ui.setDisabled(runButton, store.get("real.loaded") ? "" : "Load the model first: your question runs in it."); }
    store.subscribe("real.loaded", modelReady);

    function fill(c) {
      fields.question.input.value = c.question;
      fields.direct.input.value = c.direct.prefill;
      fields.steps.input.value = c.steps.prefill;
      fields.answer.input.value = c.answer;
    }

    function draw() {
      state.set(view.live ? "live" : "stored");
      sourceText.textContent = view.live ? "Live in this page: your question, two passes."
        : "Measured by the build with transformers (" + S.candidates.length + " questions; the menu holds them all).";
      ui.clear(picture);
      picture.appendChild(el("p", { class: "nt-lab-question" }, ["“" + view.question + "”, right answer ", el("code", { text: show(view.answer) })]));
      var rows = [["directly", view.direct], ["after the steps", view.steps]];
      picture.appendChild(ui.bars(rows.map(function (r) {
        var a = r[1];
        return { label: r[0], value: a.prob, text: ui.pct(a.prob, 1), cls: a.top.id === view.answerId ? "nt-lab-right" : null,
                 data: { prob: String(a.prob), top: a.top.piece, tokens: String(a.tokens) } };
      }), { label: "The right answer's probability each way" }));
      picture.appendChild(el("p", { class: "nt-note", text: "A solid bar: the right answer is the model's most likely next token; a pale one: another token is." }));
      var body = el("tbody");
      rows.forEach(function (r) {
        var a = r[1];
        body.appendChild(el("tr", {}, [el("td", { text: r[0] }), el("td", {}, [el("code", { class: "nt-lab-prefill", text: a.prefill || "(nothing)" })]),
          el("td", {}, [el("code", { text: show(a.top.piece) }), " " + ui.pct(a.top.prob, 1) + (a.top.id === view.answerId ? ", right" : "")]),
          el("td", { text: String(a.tokens) }), el("td", { text: macsText(lab.macs(a.tokens, cost)) })]));
      });
      picture.appendChild(el("div", { class: "nt-table-wrap", tabindex: "0", role: "region", "aria-label": "Each way's prompt, answer and cost" }, [
        el("table", { class: "nt-table" }, [el("thead", {}, [el("tr", {}, ["asked", "the assistant's turn starts", "top token", "tokens read", "multiply-adds"].map(function (h) { return el("th", { text: h }); }))]), body])]));
      costLine.textContent = "Every token costs the same " + macsText(cost.matrices) + " multiply-adds in the matrices, plus a little attention for each token before it. " +
        "The steps add " + (view.steps.tokens - view.direct.tokens) + " tokens: that is where the extra work goes.";
      modelReady();
      root.setAttribute("data-view", view.live ? "live" : "stored");
    }

    function showStored() {
      var c = byKey(key);
      view = { live: false, key: c.key, question: c.question, answer: c.answer, answerId: c.answer_id, direct: c.direct, steps: c.steps };
      fill(c);
      pick.input.value = key;
      draw();
    }

    function ask(model, question, prefill, answerId) {
      var tk = model.tokenizer, text = tk.render(question) + prefill, enc = tk.encode(text);
      if (!enc.ok) return Promise.reject(new Error(enc.error.message));
      return model.session.prefill(enc.ids, {}).then(function (out) {
        var top = lab.argmax(out.logits);
        return { prefill: prefill, ids: enc.ids, tokens: enc.ids.length, prob: lab.softmaxAt(out.logits, answerId),
                 top: { id: top, piece: tk.decode([top]), prob: lab.softmaxAt(out.logits, top) } };
      });
    }

    // from: the control the reader pressed (none when a link is restored); the picture, under the fold, is
    // then brought into view
    function runLive(from) {
      var model = store.get("real.loaded");
      if (!model) return;
      var q = fields.question.input.value, d = fields.direct.input.value, s = fields.steps.input.value, a = fields.answer.input.value;
      if (!q.trim()) { msg.show("Type a question first.", "error"); return; }
      var enc = model.tokenizer.encode(a);
      if (!enc.ok) { msg.show("The answer: " + enc.error.message, "error"); return; }
      var answerId = enc.ids[0], my = ++gen;
      msg.clear();
      if (enc.ids.length > 1) msg.show("The answer is " + enc.ids.length + " tokens; its first, “" + show(model.tokenizer.decode([answerId])) + "”, is scored.", "info");
      root.setAttribute("data-busy", "");
      Promise.all([ask(model, q, d, answerId), ask(model, q, s, answerId)]).then(function (got) {
        if (my !== gen) return;
        view = { live: true, question: q, answer: model.tokenizer.decode([answerId]), answerId: answerId, direct: got[0], steps: got[1] };
        root.removeAttribute("data-busy");
        draw();
        if (from) ui.reveal(picture, from);
        root.setAttribute("data-pass", String(my));
      }, function (err) {
        root.removeAttribute("data-busy");
        if (my === gen) msg.show(err.message + ".", "error");
      });
    }

    showStored();

    permalink.join(root, live, {
      fields: { key: permalink.one(S.candidates.map(function (c) { return c.key; })), live: permalink.flag(), q: permalink.text(600),
        direct: permalink.text(600), steps: permalink.text(600), answer: permalink.text(100) },
      get: function () {
        if (!view.live) return { key: view.key };
        return { live: "1", q: view.question, direct: view.direct.prefill, steps: view.steps.prefill, answer: fields.answer.input.value };
      },
      set: function (s) {
        if (s.key) { key = s.key; showStored(); }
        if (s.live !== "1") return "";
        if (s.q !== undefined) fields.question.input.value = s.q;
        if (s.direct !== undefined) fields.direct.input.value = s.direct;
        if (s.steps !== undefined) fields.steps.input.value = s.steps;
        if (s.answer !== undefined) fields.answer.input.value = s.answer;
        live.querySelector(".nt-lab-edit").open = true;
        if (store.get("real.loaded")) { runLive(); return ""; }
        return "This link runs its question live, which needs the model: press Load above; a stored question shows meanwhile.";
      },
      tables: function () {
        return [{ name: "answers", columns: ["way", "assistant_starts", "tokens", "answer", "answer_prob", "top_token", "top_prob"],
          rows: [["direct", view.direct.prefill, view.direct.tokens, view.answer, view.direct.prob, view.direct.top.piece, view.direct.top.prob],
                 ["steps", view.steps.prefill, view.steps.tokens, view.answer, view.steps.prob, view.steps.top.piece, view.steps.top.prob]] },
          { name: "stored_questions", columns: ["key", "question", "answer", "direct_prob", "steps_prob", "direct_top", "steps_top"],
            rows: S.candidates.map(function (c) { return [c.key, c.question, c.answer, c.direct.prob, c.steps.prob, c.direct.top.piece, c.steps.top.piece]; }) }];
      } });
  });
});
