// Ask the real model: a button that loads the model's browser copy (its size written by the build
// from the files this copy holds), a progress bar, then a text box whose prompt, raw or wrapped in
// the chat template, runs through the model in the page's worker as the reader types (a pass still
// running is cancelled). The bars, the cuts and the draw are demos.real-distribution's.
// Store (read by the page's other real-model demos):
//   "llm"          null until loaded, then {session, tokenizer, config, model, name}
//   "llm.pass"     the live pass {text, chat, ids, pieces, result, knockout, model, name, ms}; null while a
//                  stored prompt shows (real-distribution sets it so when the reader picks one)
//   "llm.knockout" read: {heads: [[layer, head]...], mlp: [layer...]}; the pass reruns with it
//   "llm.stored"   read: the stored prompt on show, {key, text, chat}, copied into the text box
//   "llm.prompt"   read: {text, chat} another demo asks the panel to run (real-inside's example)
// Container: data-models, the copies the build found ({model: {bytes, files, arch}}; {} when none).
nexttoken.define("demos.real-ask", ["ui", "store", "later:llm.engine", "later:llm.loader", "later:llm.runtime",
  "later:llm.tokenizer", "later:data.smollm2-tokenizer", "later:gpt2.tokenizer", "later:data.gpt2-vocab", "ui.permalink"],
  function (ui, store, loadEngine, loadLoader, loadRuntime, loadTokenizer, loadTokenizerData, loadGpt2Tokenizer, loadGpt2Vocab, permalink) {
  "use strict";

  var el = ui.el;
  var NAMES = { smollm2: "SmolLM2-135M-Instruct", gpt2: "GPT-2 small" };
  var DEBOUNCE_MS = 250;  // typing pauses this long before the pass starts; Enter starts it at once

  function mb(bytes) { return (bytes / 1e6).toFixed(1) + " MB"; }
  function show(text) { return text.replace(/ /g, "·").replace(/\n/g, "↵"); }
  function showPiece(pc) { return pc.text === null ? "[" + pc.label + "]" : show(pc.text); }

  // GPT-2's tokenizer (js/gpt2/tokenizer.js) behind the same encode/pieces as SmolLM2's; no chat template.
  function gpt2Tokenizer(tk, cap) {
    function pieces(ids) {
      return Array.from(ids, function (id) {
        var text = tk.decode([id]);
        var whole = text.indexOf("\uFFFD") < 0;
        return { id: id, text: whole ? text : null, label: whole ? text : "part of a character", special: false };
      });
    }
    return {
      pieces: pieces,
      encode: function (text, opts) {
        if (typeof text !== "string") return { ok: false, error: { kind: "not_text", message: "The prompt must be text." } };
        if (!text) return { ok: false, error: { kind: "empty", message: "Type a prompt first: it is empty." } };
        if (opts && opts.chat) return { ok: false, error: { kind: "no_template", message: "GPT-2 has no chat template: switch it off." } };
        var ids = tk.encode(text).ids;
        if (ids.length > cap) return { ok: false, error: { kind: "too_long", message: "The prompt is " + ids.length + " tokens; GPT-2 here reads at most " + cap + "." } };
        return { ok: true, ids: ids, pieces: pieces(ids), text: text };
      },
    };
  }

  ui.start("real-ask", function (root, live) {
    var copies = {};
    try { copies = JSON.parse(root.getAttribute("data-models") || "{}"); } catch (e) { copies = {}; }
    var models = Object.keys(NAMES).filter(function (m) { return copies[m]; });
    var state = { model: models[0] || null, session: null, tokenizer: null, gen: 0, running: 0, timer: null,
      knockout: { heads: [], mlp: [] }, controller: null };

    var status = el("p", { class: "nt-msg nt-info nt-ask-status", role: "status", "aria-live": "polite", "data-role": "ask-status" });
    var loadButton = ui.button("", function () { if (state.controller) state.controller.abort(); else open(); }, { primary: true });
    loadButton.setAttribute("data-role", "ask-load");
    var progress = el("progress", { class: "nt-ask-progress", max: "1", value: "0", "data-role": "ask-progress", hidden: true,
      "aria-label": "Loading the model" });
    var choice = models.length > 1 ? ui.radios("Model", models.map(function (m) {
      return { value: m, label: NAMES[m] + " (" + mb(copies[m].bytes) + ")" };
    }), state.model, function (v) { state.model = v; if (!state.session) labelButton(); }) : null;

    var box = el("textarea", { class: "nt-input nt-ask-box", rows: "2", spellcheck: "false", autocomplete: "off",
      autocapitalize: "off", "data-role": "ask-prompt" });
    var boxField = ui.field("Your prompt (Enter runs it; Shift+Enter starts a new line)", box);
    var chat = ui.checkbox("Wrap it in the chat template (your text as the user's message, the template's own system message)", false, function () { changed(true); });
    chat.input.setAttribute("data-role", "ask-chat");
    var runButton = ui.button("Run", function () { changed(true); });
    runButton.setAttribute("data-role", "ask-run");
    var msg = ui.message();
    msg.node.setAttribute("data-role", "ask-msg");
    var tokensNote = el("p", { class: "nt-note", "data-role": "ask-count", hidden: true });
    // a long prompt's tokens scroll in their own box, which takes focus so keys can scroll it
    var tokensBox = el("div", { class: "nt-chips nt-ask-tokens", "data-role": "ask-tokens", tabindex: "0", role: "region",
      "aria-label": "The prompt's tokens and their ids" });

    live.appendChild(el("div", { class: "nt-controls nt-ask-load" }, [choice, loadButton, progress]));
    live.appendChild(status);
    live.appendChild(boxField);
    live.appendChild(el("div", { class: "nt-controls" }, [chat.wrap, runButton]));
    live.appendChild(msg.node);
    live.appendChild(tokensNote);
    live.appendChild(tokensBox);
    msg.clear();

    var WAIT = "Load the model first: your prompt runs in it, in this page.";
    function labelButton() {
      if (!state.model) {
        loadButton.textContent = "The model is not in this copy of the site";
        ui.setDisabled(loadButton, "This copy was built without the model's files (make site MODEL=none); the stored prompts below still work.");
        status.textContent = "Showing stored prompts only: measured by the build, nothing to load.";
        return;
      }
      loadButton.textContent = "Load " + NAMES[state.model] + " (" + mb(copies[state.model].bytes) + ")";
      ui.setDisabled(loadButton, "");
      status.textContent = "Nothing loaded yet: the bars below are stored. Loading reads " + mb(copies[state.model].bytes) +
        " from this copy of the site (" + copies[state.model].files + " files) and sends nothing anywhere.";
    }
    function needModel(why) {
      box.disabled = chat.input.disabled = !!why;
      ui.setDisabled(runButton, why);
      box.setAttribute("aria-describedby", runButton.getAttribute("aria-describedby"));
    }
    labelButton();
    needModel(WAIT);
    function tokenizerFor(model) {
      if (model === "gpt2") {
        return Promise.all([loadGpt2Tokenizer(), loadGpt2Vocab()]).then(function (got) { return gpt2Tokenizer(got[0].create(got[1]), 1024); });
      }
      return Promise.all([loadTokenizer(), loadTokenizerData()]).then(function (got) { return got[0].create(got[1]); });
    }

    function open() {
      var model = state.model, name = NAMES[model], t0 = performance.now();
      var controller = state.controller = new AbortController();
      msg.clear();
      progress.hidden = false;
      progress.value = 0;
      loadButton.textContent = "Stop loading";
      if (choice) Array.prototype.forEach.call(choice.querySelectorAll("input"), function (i) { i.disabled = true; });
      status.textContent = "Loading " + name + ": reading its files.";
      needModel("The model is loading: the text box opens when it is ready.");
      // the engine, then its loader and the worker's runtime; the tokenizer alongside
      var scripts = loadEngine().then(loadLoader).then(loadRuntime);
      Promise.all([scripts, tokenizerFor(model)]).then(function (got) {
        return got[0].open({ base: root.getAttribute("data-base") || "js/data/llm/", model: model, signal: controller.signal,
          onProgress: function (done, total, file) {
            progress.max = total;
            progress.value = done;
            progress.setAttribute("aria-valuetext", mb(done) + " of " + mb(total));
            status.textContent = "Loading " + name + ": " + mb(done) + " of " + mb(total) + " checked (" + file + ").";
          } }).then(function (session) { return [session, got[1]]; });
      }).then(function (got) {
        state.controller = null;
        state.fromLink = false;
        state.session = got[0];
        state.tokenizer = got[1];
        progress.hidden = true;
        loadButton.textContent = name + " is loaded";
        ui.setDisabled(loadButton, "");
        loadButton.disabled = true;
        chat.input.disabled = false;
        if (model === "gpt2") ui.setDisabled(chat.input, "GPT-2 has no chat template.");
        needModel("");
        if (model === "gpt2") chat.input.disabled = true;
        status.textContent = name + " is loaded (" + ((performance.now() - t0) / 1000).toFixed(1) + " s) and runs in this page: type a prompt.";
        root.setAttribute("data-llm", model);
        store.set("llm", { session: state.session, tokenizer: state.tokenizer, config: state.session.config, model: model, name: name });
        var stored = store.get("llm.stored");
        if (!box.value && stored && !(stored.chat && model === "gpt2")) { box.value = stored.text; chat.input.checked = stored.chat; }
        if (box.value) changed(true);
      }, function (err) {
        state.controller = null;
        progress.hidden = true;
        if (choice) Array.prototype.forEach.call(choice.querySelectorAll("input"), function (i) { i.disabled = false; });
        labelButton();
        needModel(WAIT);
        msg.show((err && err.message ? err.message : String(err)) + ".", "error");
      });
    }

    // The tokens of the prompt as the model reads them, each with its id; in the chat template, the
    // template's own tokens (those outside the bytes of the reader's text) are marked.
    function utf8(s) { return new TextEncoder().encode(s).length; }
    function showTokens(enc) {
      ui.clear(tokensBox);
      tokensNote.hidden = !enc.ok;
      if (!enc.ok) { tokensNote.textContent = ""; return; }
      var wrapped = chat.input.checked && state.tokenizer.render, from = 0, to = Infinity, at = 0, template = 0;
      if (wrapped) {  // the template around a stand-in: the reader's bytes lie between its two sides
        var r = state.tokenizer.render("\u0000"), cut = r.indexOf("\u0000");
        from = utf8(r.slice(0, cut));
        to = utf8(enc.text) - utf8(r.slice(cut + 1));
      }
      enc.pieces.forEach(function (pc) {
        var n = pc.bytes ? pc.bytes.length : 0, mine = !wrapped || (at >= from && at + n <= to);
        at += n;
        if (!mine) template += 1;
        tokensBox.appendChild(ui.chip(showPiece(pc), String(pc.id), mine ? null : "nt-template"));
      });
      tokensNote.textContent = enc.ids.length + " tokens, each with its id (· is a leading space, ↵ a new line)" +
        (wrapped ? "; the " + template + " with a dashed border are the chat template's, around the " + (enc.ids.length - template) + " of your text." : ".") +
        (enc.replaced ? " " + enc.replaced + (enc.replaced === 1 ? " broken character became" : " broken characters became") + " U+FFFD." : "") +
        (enc.dropped ? " " + enc.dropped + (enc.dropped === 1 ? " byte has" : " bytes have") + " no token and " + (enc.dropped === 1 ? "was" : "were") + " dropped." : "");
    }

    // The prompt changed: tokens at once; the pass after a pause (now: at once), cancelling one that runs.
    function changed(now) {
      if (!state.session) return;
      clearTimeout(state.timer);
      if (state.running) { state.gen += 1; state.session.cancel(); }
      var text = box.value, enc = state.tokenizer.encode(text, { chat: chat.input.checked });
      showTokens(enc);
      if (!enc.ok) { msg.show(enc.error.message, "error"); return; }
      msg.clear();
      if (now) run(text, enc);
      else state.timer = setTimeout(function () { run(text, enc); }, DEBOUNCE_MS);
    }

    function run(text, enc) {
      var gen = state.gen += 1, t0 = performance.now(), knockout = state.knockout, ids = enc.ids;
      state.running = gen;
      root.setAttribute("data-busy", "");
      status.textContent = "Running " + NAMES[state.model] + " on " + ids.length + " tokens…";
      state.session.prefill(ids, { lens: true, heads: true, final: true, knockout: knockout }).then(function (result) {
        if (gen !== state.gen) return;
        state.running = 0;
        root.removeAttribute("data-busy");
        var ms = performance.now() - t0;
        status.textContent = NAMES[state.model] + " read " + ids.length + " tokens in " + (ms / 1000).toFixed(2) + " s in this page.";
        store.set("llm.pass", { text: text, chat: chat.input.checked, ids: ids, pieces: enc.pieces, result: result,
          knockout: knockout, model: state.model, name: NAMES[state.model], ms: ms });
        root.setAttribute("data-pass", String(gen));
      }, function (err) {
        if (gen !== state.gen) return;  // a newer prompt replaced it
        state.running = 0;
        root.removeAttribute("data-busy");
        if (err.message === "cancelled") return;
        msg.show(err.message + ".", "error");
        status.textContent = "The pass stopped: see the line below.";
      });
    }

    box.addEventListener("input", function () { state.fromLink = false; changed(false); });
    box.addEventListener("keydown", function (e) {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); changed(true); }
    });

    function setKnockout(k) {
      state.knockout = { heads: (k && k.heads) || [], mlp: (k && k.mlp) || [] };
      if (state.session && box.value) changed(true);
    }
    // A stored prompt on show: its text in the box (Enter runs it live), and no pass on the way.
    function showStored(s) {
      if (!s || state.fromLink) return;  // a link's prompt waits in the box for the model
      if (state.running && state.session) { state.gen += 1; state.session.cancel(); state.running = 0; root.removeAttribute("data-busy"); }
      clearTimeout(state.timer);
      if (state.model === "gpt2" && s.chat) return;
      box.value = s.text;
      chat.input.checked = s.chat;
      if (state.session) {
        var enc = state.tokenizer.encode(s.text, { chat: s.chat });
        showTokens(enc);
        status.textContent = "A stored prompt is on show (measured by the build). Press Enter in the box to run it live.";
      }
    }
    store.subscribe("llm.knockout", setKnockout);
    store.subscribe("llm.stored", showStored);
    // built after the demos below it (the reader came back up): what they have published so far
    setKnockout(store.get("llm.knockout"));
    showStored(store.get("llm.stored"));
    store.subscribe("llm.prompt", function (s) {
      if (!s || !state.session) return;
      box.value = s.text;
      chat.input.checked = !!s.chat && state.model !== "gpt2";
      changed(true);
    });
    store.set("llm", store.get("llm") || null);

    // Its model, prompt and template in the page's link (js/ui/permalink.js); a link's prompt waits in
    // the box for the reader to load the model, which runs it.
    permalink.join(root, live, {
      fields: { model: permalink.one(Object.keys(NAMES)), text: permalink.text(2000), chat: permalink.flag() },
      get: function () { return { model: state.model || undefined, text: box.value, chat: chat.input.checked ? "1" : "0" }; },
      set: function (s) {
        if (s.model && models.indexOf(s.model) >= 0 && !state.session) {
          state.model = s.model;
          if (choice) choice.querySelector('input[value="' + s.model + '"]').checked = true;
          labelButton();
        }
        if (s.text !== undefined) box.value = s.text;
        if (s.chat !== undefined) chat.input.checked = s.chat === "1";
        state.fromLink = !!s.text && !state.session;
        if (s.model && models.indexOf(s.model) < 0) return "This link runs " + NAMES[s.model] + " live, which this copy of the site does not hold: its prompt is in the box, the stored prompts below still work.";
        if (state.session) { changed(true); return ""; }
        if (!state.model) return s.text ? "This link's prompt needs a model this copy of the site does not hold: it is in the box; the stored prompts below still work." : "";
        return s.text ? "This link runs " + NAMES[state.model] + " on its prompt in this page, which needs the model: press " + loadButton.textContent + " above to run it." : "";
      } });
  });
});
