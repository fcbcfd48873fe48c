// Ask the real model: a button that loads the model's browser copy (its size written by the build
// from the files this copy holds), a progress bar, then a text box whose prompt, raw or wrapped in
// the chat template, runs through the model in the page's worker as the reader types: only the
// newest prompt's pass is ever published (an older one still running is cancelled, or left to end
// unseen when the new prompt shares most of its tokens), and each pass keeps the cached positions it
// shares with the last (the engine's opts.reuse), so a typed character runs only the tokens after
// it. The bars, the cuts and the draw are demos.real-distribution's.
// Store (its keys declared in js/nexttoken.js): it writes "real.model" (null until loaded) and
// "real.pass" (the live pass); it reads "real.knockout" (the pass reruns with it), "real.stored" (the
// stored prompt on show: with the model loaded, it runs live), "real.prompt" (a prompt another demo
// asks it to run), "real.linked" (a link's live prompt) and "real.inside" (what the inside view needs: the lens and heads are computed only
// then, the lens at its position).
// Container: data-models, the copies the build found ({model: {bytes, weights, files, arch}}; {} when none).
nexttoken.define("demos.real-ask", ["ui", "store", "ui.real-badge", "later:real.workers",
  "later:real.tokenizer", "later:data.smollm2-tokenizer", "later:gpt2.tokenizer", "later:data.gpt2-vocab", "ui.permalink"],
  function (ui, store, badge, loadRuntime, loadTokenizer, loadTokenizerData, loadGpt2Tokenizer, loadGpt2Vocab, permalink) {
  "use strict";

  var el = ui.el;
  var NAMES = { smollm2: "SmolLM2-135M-Instruct", gpt2: "GPT-2 small" };
  var DEBOUNCE_MS = 150;  // typing pauses this long before the pass starts; Enter starts it at once

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
    var state = { model: models[0] || null, session: null, tokenizer: null, gen: 0, flight: null, next: null, timer: null,
      knockout: { heads: [], mlp: [] }, controller: null };

    var state_ = badge();
    var statusText = el("span", { "data-role": "ask-status-text" });
    var status = el("p", { class: "nt-ask-status", role: "status", "aria-live": "polite", "data-role": "ask-status" }, [state_.node, statusText]);
    var loadButton = ui.button("", function () { if (state.controller) state.controller.abort(); else open(); }, { primary: true });
    loadButton.setAttribute("data-role", "ask-load");
    var progress = el("progress", { class: "nt-ask-progress", max: "1", value: "0", "data-role": "ask-progress", hidden: true,
      "aria-label": "Loading the model" });
    var choice = models.length > 1 ? ui.radios("Model", models.map(function (m) {
      return { value: m, label: NAMES[m] + " (" + mb(copies[m].weights) + " of weights)" };
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
        say("stored", "This copy of the site holds no model: the stored prompts below still work.");
        return;
      }
      var c = copies[state.model];
      loadButton.textContent = "Load " + NAMES[state.model] + " (" + mb(c.weights) + " of weights)";
      ui.setDisabled(loadButton, "");
      say("stored", "Load the model to run your own prompt. It reads " + mb(c.bytes) + " of files from this copy of the site (its " +
        mb(c.weights) + " of weights, written as text) and sends nothing anywhere.");
    }
    function say(st, text) { state_.set(st); statusText.textContent = text; }
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
      say("stored", "Loading " + name + ": reading its files.");
      needModel("The model is loading: the text box opens when it is ready.");
      // the workers' host (it loads the engine and the checked loader it needs); the tokenizer alongside
      Promise.all([loadRuntime(), tokenizerFor(model)]).then(function (got) {
        return got[0].open({ base: root.getAttribute("data-base") || "js/data/real/", model: model, signal: controller.signal,
          onStop: lost,
          onProgress: function (done, total) {
            progress.max = total;
            progress.value = done;
            progress.setAttribute("aria-valuetext", mb(done) + " of " + mb(total) + " of weights");
            say("stored", "Loading " + name + ": " + mb(done) + " of its " + mb(total) + " of weights read and checked.");
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
        say("live", name + " is loaded (" + ((performance.now() - t0) / 1000).toFixed(1) + " s): type a prompt.");
        root.setAttribute("data-real-model", model);
        store.set("real.model", { session: state.session, tokenizer: state.tokenizer, config: state.session.config, model: model, name: name });
        var stored = store.get("real.stored");
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

    // The loaded model stopped by itself (its worker crashed or went silent): its one line stays, and
    // Load is offered again.
    function lost(err) {
      if (!state.session) return;
      state.session = null;
      state.flight = null;
      root.removeAttribute("data-real-model");
      root.removeAttribute("data-busy");
      if (choice) Array.prototype.forEach.call(choice.querySelectorAll("input"), function (i) { i.disabled = false; });
      labelButton();
      needModel(WAIT);
      store.set("real.model", null);
      msg.show(err.message + ".", "error");
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

    // The prompt changed: tokens at once; the pass after a pause (now: at once). Whatever pass runs is
    // of an older prompt from here on (gen moves on, so its answer is dropped, never shown): it is
    // cancelled, unless the new prompt shares most of its tokens with the same knock-out, when letting
    // it end leaves its positions in the cache for the new pass to keep (state.next waits for it).
    // From the keystroke on, the status and data-busy say a pass is on its way.
    function changed(now) {
      if (!state.session) return;
      clearTimeout(state.timer);
      state.timer = null;
      state.next = null;
      state.gen += 1;
      var text = box.value, enc = state.tokenizer.encode(text, { chat: chat.input.checked }), f = state.flight;
      if (f && !f.cancelled && !(enc.ok && f.knockout === state.knockout && shared(f.ids, enc.ids) * 2 >= f.ids.length)) {
        f.cancelled = true;
        state.session.cancel();
      }
      showTokens(enc);
      if (!enc.ok) {
        root.removeAttribute("data-busy");
        if (state.said) say(state.said[0], state.said[1]);
        msg.show(enc.error.message, "error");
        return;
      }
      msg.clear();
      root.setAttribute("data-busy", "");
      say(badge.of({ knockout: state.knockout }), "Running " + NAMES[state.model] + " on " + enc.ids.length + " tokens…");
      if (now) launch(text, enc);
      else state.timer = setTimeout(function () { state.timer = null; launch(text, enc); }, DEBOUNCE_MS);
    }
    function shared(a, b) {
      var n = 0;
      while (n < a.length && n < b.length && a[n] === b[n]) n++;
      return n;
    }
    // One pass at a time from the panel: a new one waits for the one still running to end.
    function launch(text, enc) {
      if (state.flight) state.next = { text: text, enc: enc };
      else run(text, enc);
    }
    function ended() {
      state.flight = null;
      var n = state.next;
      state.next = null;
      if (n) run(n.text, n.enc);
    }

    // What the inside view needs (store "real.inside": null while it is closed, else {at}): the lens
    // (at position `at`, the last when null) and every head's weights; no view, none of them.
    function insideWanted() {
      var want = store.get("real.inside");
      return want ? { at: want.at === null || want.at === undefined ? null : want.at } : null;
    }
    function run(text, enc) {
      var gen = state.gen += 1, t0 = performance.now(), knockout = state.knockout, ids = enc.ids, inside = insideWanted();
      if (inside && inside.at !== null && inside.at >= ids.length) inside.at = null;
      state.flight = { ids: ids, knockout: knockout, cancelled: false };
      root.setAttribute("data-busy", "");
      say(badge.of({ knockout: knockout }), "Running " + NAMES[state.model] + " on " + ids.length + " tokens…");
      var opts = { final: true, knockout: knockout, reuse: true, keep: true };  // keep: a knock-out reruns only its blocks
      if (inside) { opts.lens = true; opts.heads = true; if (inside.at !== null) opts.lensAt = inside.at; }
      state.session.prefill(ids, opts).then(function (result) {
        if (gen !== state.gen) { ended(); return; }  // a newer prompt replaced it
        state.flight = null;
        root.removeAttribute("data-busy");
        var ms = performance.now() - t0;
        var kept = result.from !== undefined ? " (" + (result.from === 1 ? "block 0" : "blocks 0 to " + (result.from - 1)) +
          " kept from the last pass: the change starts in block " + result.from + ")" : result.reused ? " (the first " + result.reused + " reused from the last prompt's cache)" : "";
        state.said = [badge.of({ knockout: knockout }), NAMES[state.model] + " read " + ids.length + " tokens in " + (ms / 1000).toFixed(2) + " s" + kept + "."];
        say(state.said[0], state.said[1]);
        state.last = { text: text, enc: enc };
        store.set("real.pass", { text: text, chat: chat.input.checked, ids: ids, pieces: enc.pieces, result: result,
          knockout: knockout, model: state.model, name: NAMES[state.model], ms: ms,
          inside: inside ? { at: inside.at === null ? ids.length - 1 : inside.at } : null });
        insideChanged(store.get("real.inside"));  // the inside view opened or moved while this pass ran
        root.setAttribute("data-pass", String(gen));
      }, function (err) {
        if (gen !== state.gen) { ended(); return; }
        state.flight = null;
        root.removeAttribute("data-busy");
        if (err.message === "cancelled") return;
        msg.show(err.message + ".", "error");
        statusText.textContent = "The pass stopped: see the line below.";
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
    // A stored prompt on show: its text in the box; with the model loaded, it runs live at once.
    function showStored(s) {
      if (!s || state.fromLink) return;  // a link's prompt waits in the box for the model
      if (state.model === "gpt2" && s.chat) return;
      if (state.session && state.last && state.last.text === s.text && chat.input.checked === !!s.chat && !state.flight) return;
      box.value = s.text;
      chat.input.checked = !!s.chat;
      if (state.session) changed(true);
    }
    // The inside view opened, or its lens moved to another position: the last prompt runs again with
    // what it needs (a pass is computed only with what a view on screen shows).
    function insideChanged(want) {
      var pass = store.get("real.pass");
      if (!want || !state.session || !pass || state.flight || state.timer) return;
      var at = want.at === null || want.at === undefined || want.at >= pass.ids.length ? pass.ids.length - 1 : want.at;  // as run() clamps it
      if (pass.inside && pass.inside.at === at) return;
      if (state.last) run(state.last.text, state.last.enc);
    }
    store.subscribe("real.knockout", setKnockout);
    store.subscribe("real.stored", showStored);
    store.subscribe("real.inside", insideChanged);
    // built after the demos below it (the reader came back up): what they have published so far
    setKnockout(store.get("real.knockout"));
    showStored(store.get("real.stored"));
    // A link to the bars that names a live prompt: it waits in the box until the model is loaded.
    store.subscribe("real.linked", function (s) {
      if (!s) return;
      box.value = s.text;
      chat.input.checked = !!s.chat && state.model !== "gpt2";
      if (state.session) changed(true); else state.fromLink = true;
    });
    store.subscribe("real.prompt", function (s) {
      if (!s || !state.session) return;
      box.value = s.text;
      chat.input.checked = !!s.chat && state.model !== "gpt2";
      changed(true);
    });
    store.set("real.model", store.get("real.model") || null);

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
