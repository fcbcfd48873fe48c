// Surprise, token by token: a text's tokens, each tinted by its loss (how surprised the model was to
// see it, -ln p, on one scale for every text), the text's perplexity (e to the mean loss), and its
// most surprising tokens with what the model expected there. It opens on the build's texts
// (data.smollm2-experiments); with the model loaded (ui.real-load), any pasted text runs live (one
// pass, the engine's every-position summary, opts.every).
nexttoken.define("demos.real-surprise", ["ui", "store", "ui.real-badge", "ui.real-load", "real.experiments", "data.smollm2-experiments", "ui.permalink"],
  function (ui, store, badge, realLoad, lab, data, permalink) {
  "use strict";
  var el = ui.el;
  var S = data.surprise, TOP = S.top;
  var MAX_TOKENS = 400;
  // One scale for every text: the largest loss among the stored texts (a live text past it is drawn at full tint).
  var SCALE = Math.max.apply(null, S.texts.map(function (t) { return Math.max.apply(null, t.losses); }));

  function show(piece) { return String(piece).replace(/ /g, "·").replace(/\n/g, "↵"); }

  ui.start("real-surprise", function (root, live) {
    var key = S.texts[0].key, view = null, gen = 0;
    var loader = realLoad.control(root);
    var state = badge(), sourceText = el("span", { "data-role": "surprise-source-text" });
    var source = el("p", { class: "nt-source-line", "aria-live": "polite", "data-role": "surprise-source" }, [state.node, sourceText]);
    var msg = ui.message();  // under Run it live: all it says answers that run
    var choices = el("div", { class: "nt-choices", role: "group", "aria-label": "Stored texts (measured by the build)" });
    var buttons = S.texts.map(function (t) {
      var b = ui.button(t.label, function () { key = t.key; showStored(); });
      b.setAttribute("data-key", t.key);
      choices.appendChild(b);
      return b;
    });
    var box = el("textarea", { class: "nt-input", rows: "3", spellcheck: "false", autocomplete: "off", "data-role": "surprise-text" });
    var runButton = ui.button("Run it live", function () { runLive(runButton); });
    runButton.setAttribute("data-role", "surprise-run");
    box.addEventListener("keydown", function (e) { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); runLive(box); } });
    var tokens = el("p", { class: "nt-lab-tinted", "data-role": "surprise-tokens", tabindex: "0", role: "region", "aria-label": "The text's tokens, tinted by loss" });
    var summary = el("p", { class: "nt-lab-readout", "data-role": "surprise-summary", "aria-live": "polite" });
    var worstBox = el("div", { class: "nt-table-wrap", "data-role": "surprise-worst" });

    live.appendChild(loader.node);
    live.appendChild(source);
    live.appendChild(choices);
    // the box above the tinted text: a run's answer comes under its button
    live.appendChild(ui.field("Your text (Enter runs it; Shift+Enter for a new line)", box));
    live.appendChild(el("div", { class: "nt-controls" }, [runButton]));
    live.appendChild(msg.node);
    live.appendChild(tokens);
    live.appendChild(el("p", { class: "nt-legend" }, [el("span", { text: "loss 0 (expected)" }), el("span", { class: "nt-lab-ramp", "aria-hidden": "true" }),
      el("span", { text: ui.fix(SCALE, 1) + " nats or more (a surprise)" })]));
    live.appendChild(summary);
    live.appendChild(worstBox);

    function modelReady() { ui.setDisabled(runButton, store.get("real.loaded") ? "" : "Load the model first: your text runs in it."); box.disabled = !store.get("real.loaded"); }
    store.subscribe("real.loaded", modelReady);

    function draw() {
      state.set(view.live ? "live" : "stored");
      sourceText.textContent = view.live ? "Live in this page: your text, " + view.pieces.length + " tokens."
        : "Measured by the build with transformers: " + view.label.toLowerCase() + ", " + view.pieces.length + " tokens.";
      buttons.forEach(function (b) { b.setAttribute("aria-pressed", String(!view.live && b.getAttribute("data-key") === view.key)); });
      ui.clear(tokens);
      view.pieces.forEach(function (p, i) {
        var loss = i ? view.losses[i - 1] : null, exp = i ? view.expected[i - 1] : null;
        var span = el("span", { class: "nt-lab-tok" + (i ? "" : " nt-lab-tok-first"), text: p,
          title: i ? "loss " + ui.fix(loss, 2) + " nats; expected “" + show(exp.piece) + "” (" + ui.pct(exp.prob, 1) + ")" : "the first token: nothing before it to predict it" });
        if (i) { span.style.setProperty("--a", Math.min(1, loss / SCALE).toFixed(3)); span.setAttribute("data-loss", String(loss)); }
        tokens.appendChild(span);
      });
      summary.textContent = "Perplexity " + ui.fix(view.perplexity, 1) + ": on average the model was as unsure as a fair pick among " +
        ui.fix(view.perplexity, 1) + " tokens (mean loss " + ui.fix(view.mean, 2) + " nats over " + view.losses.length + " tokens).";
      ui.clear(worstBox);
      var table = el("table", { class: "nt-table" }, [el("thead", {}, [el("tr", {}, ["token", "loss", "the model expected", "its probability"].map(function (h) { return el("th", { text: h }); }))])]);
      var body = el("tbody");
      lab.worst(view.losses, TOP).forEach(function (t) {
        body.appendChild(el("tr", { "data-loss": String(view.losses[t]) }, [el("td", {}, [el("code", { text: show(view.pieces[t + 1]) })]), el("td", { text: ui.fix(view.losses[t], 2) + " nats" }),
          el("td", {}, [el("code", { text: show(view.expected[t].piece) })]), el("td", { text: ui.pct(view.expected[t].prob, 1) })]));
      });
      table.appendChild(body);
      worstBox.appendChild(el("p", { class: "nt-note", text: "The " + TOP + " most surprising tokens:" }));
      worstBox.appendChild(table);
      modelReady();
      root.setAttribute("data-view", view.live ? "live" : "stored");
    }

    function showStored() {
      var t = S.texts.filter(function (x) { return x.key === key; })[0];
      view = { live: false, key: t.key, label: t.label, text: t.text, pieces: t.pieces, losses: t.losses, expected: t.expected,
               mean: t.mean_loss, perplexity: t.perplexity };
      box.value = t.text;
      draw();
    }

    // from: the control the reader pressed (none when a link is restored); the tinted text, under it, is
    // then brought into view
    function runLive(from) {
      var model = store.get("real.loaded");
      if (!model) return;
      var enc = model.tokenizer.encode(box.value);
      if (!enc.ok) { msg.show(enc.error.message, "error"); return; }
      if (enc.ids.length < 2) { msg.show("Type at least two tokens: the first one has nothing before it to be predicted from.", "error"); return; }
      if (enc.ids.length > MAX_TOKENS) { msg.show("That is " + enc.ids.length + " tokens; this view reads at most " + MAX_TOKENS + ".", "error"); return; }
      var my = ++gen, text = box.value;
      msg.clear();
      root.setAttribute("data-busy", "");
      model.session.prefill(enc.ids, { every: 1 }).then(function (out) {
        if (my !== gen) return;
        var got = lab.perToken(out.every, enc.ids.length), tk = model.tokenizer;
        view = { live: true, text: text, ids: enc.ids, pieces: enc.pieces.map(function (p) { return p.text === null ? "[" + p.label + "]" : p.text; }),
                 losses: got.losses, expected: got.expected.slice(0, -1).map(function (e) { return { id: e[0].id, piece: tk.decode([e[0].id]), prob: e[0].prob }; }),
                 mean: lab.mean(got.losses), perplexity: lab.perplexity(got.losses) };
        root.removeAttribute("data-busy");
        draw();
        if (from) ui.reveal(tokens, from);
        root.setAttribute("data-pass", String(my));
      }, function (err) {
        root.removeAttribute("data-busy");
        if (my === gen) msg.show(err.message + ".", "error");
      });
    }

    showStored();

    permalink.join(root, live, {
      fields: { key: permalink.one(S.texts.map(function (t) { return t.key; })), text: permalink.text(1500) },
      get: function () { return view.live ? { text: view.text } : { key: view.key }; },
      set: function (s) {
        if (s.key) { key = s.key; showStored(); }
        if (s.text === undefined) return "";
        box.value = s.text;
        if (store.get("real.loaded")) { runLive(); return ""; }
        return "This link runs its text live, which needs the model: press Load above; a stored text shows meanwhile.";
      },
      tables: function () {
        return [{ name: "tokens", columns: ["position", "token", "loss_nats", "expected", "expected_prob"],
          rows: view.pieces.map(function (p, i) { return [i, p, i ? view.losses[i - 1] : null, i ? view.expected[i - 1].piece : null, i ? view.expected[i - 1].prob : null]; }) }];
      } });
  });
});
