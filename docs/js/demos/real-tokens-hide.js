// What tokens hide: a letter-counting question (the word's tokens, the model's answer, the true
// count), a number cut into one token per digit, and one sentence in several languages (words,
// tokens, tokens per word, the multiply-adds of reading it). It opens on the build's numbers
// (data.smollm2-experiments); typed words, numbers and sentences need only SmolLM2's tokenizer
// (ui.real-load's, 1 MB, no weights); the model's answer to a typed word needs the model (greedy
// decoding, as the build's).
// Container: data-macs, {matrices, attention_per_key} (scripts/site/costs.py's macs).
nexttoken.define("demos.real-tokens-hide", ["ui", "store", "ui.real-badge", "ui.real-load", "real.experiments", "data.smollm2-experiments", "ui.permalink"],
  function (ui, store, badge, realLoad, lab, data, permalink) {
  "use strict";
  var el = ui.el;
  var T = data.tokens, LT = T.letters;
  var STOP = ["<|im_end|>", "<|endoftext|>"];
  var SLOT = 1;  // the engine's cache slot the greedy answer grows in (the page's passes use slot 0)

  function show(piece) { return String(piece).replace(/ /g, "·").replace(/\n/g, "↵"); }
  function chips(box, pieces) { ui.clear(box); pieces.forEach(function (p) { box.appendChild(ui.chip(show(p))); }); return box; }
  // A count of multiply-adds in words: "134 million", "7.6 billion".
  function macsText(n) { return n >= 1e9 ? (n / 1e9).toFixed(1) + " billion" : Math.round(n / 1e6) + " million"; }

  ui.start("real-tokens-hide", function (root, live) {
    var cost = JSON.parse(root.getAttribute("data-macs"));
    var loader = realLoad.control(root);
    var state = badge(), sourceText = el("span", { "data-role": "hide-source-text" });
    var source = el("p", { class: "nt-source-line", "aria-live": "polite", "data-role": "hide-source" }, [state.node, sourceText]);
    // each section's message, under its own controls
    var lettersMsg = ui.message(), numberMsg = ui.message(), sentenceMsg = ui.message();
    var letters = { live: false, word: LT.word, letter: LT.letter, question: LT.question, wordPieces: LT.word_pieces, answer: LT.answer.text, count: LT.count };
    var number = { live: false, text: T.number.text, pieces: T.number.pieces };
    var yours = null, gen = 0;

    // letters
    var wordIn = el("input", { type: "text", class: "nt-input", value: LT.word, maxlength: "40", spellcheck: "false", autocomplete: "off", "data-role": "hide-word" });
    var letterIn = el("input", { type: "text", class: "nt-input nt-lab-letter", value: LT.letter, maxlength: "1", spellcheck: "false", autocomplete: "off", "data-role": "hide-letter" });
    var ask = ui.button("Ask the model", askLetters);
    ask.setAttribute("data-role", "hide-ask");
    var wordChips = el("div", { class: "nt-chips", "data-role": "hide-word-tokens" });
    var answerLine = el("p", { class: "nt-lab-readout", "data-role": "hide-answer", "aria-live": "polite" });
    // digits
    var numberIn = el("input", { type: "text", class: "nt-input", value: T.number.text, maxlength: "200", spellcheck: "false", autocomplete: "off", "data-role": "hide-number" });
    var numberChips = el("div", { class: "nt-chips", "data-role": "hide-number-tokens" });
    var numberNote = el("p", { class: "nt-note", "data-role": "hide-number-note" });
    // languages
    var langBox = el("div", { "data-role": "hide-languages" });
    var sentenceIn = el("input", { type: "text", class: "nt-input", maxlength: "300", spellcheck: "false", autocomplete: "off", "data-role": "hide-sentence",
      placeholder: "a sentence in any language, then Enter" });

    [wordIn, letterIn].forEach(function (i) { i.addEventListener("keydown", function (e) { if (e.key === "Enter") { e.preventDefault(); askLetters(); } }); });
    numberIn.addEventListener("keydown", function (e) { if (e.key === "Enter") { e.preventDefault(); tokenizeNumber(); } });
    sentenceIn.addEventListener("keydown", function (e) { if (e.key === "Enter") { e.preventDefault(); tokenizeSentence(true); } });

    live.appendChild(loader.node);
    live.appendChild(source);
    live.appendChild(ui.section("Letters inside a token", [
      el("div", { class: "nt-controls" }, [ui.field("Word", wordIn), ui.field("Letter", letterIn), ask]), lettersMsg.node, wordChips, answerLine]));
    // the box above the bars: a sentence added shows as their last row, under the box
    live.appendChild(ui.section("Languages: the same sentence, other costs", [ui.field("Add your own sentence", sentenceIn), sentenceMsg.node, langBox]));
    live.appendChild(ui.section("Numbers, one token per digit", [ui.field("A number or a sentence with numbers (Enter)", numberIn), numberMsg.node, numberChips, numberNote]));

    function modelReady() { ui.setDisabled(ask, store.get("real.loaded") ? "" : "Load the model first: it answers in this page."); }
    store.subscribe("real.loaded", modelReady);

    function drawLetters() {
      chips(wordChips, letters.wordPieces);
      var right = /\d+/.exec(letters.answer);
      answerLine.textContent = "Asked “" + letters.question + "”, the model answers “" + letters.answer.trim() + "”. The word is " +
        letters.wordPieces.length + (letters.wordPieces.length === 1 ? " token" : " tokens") + " to the model; the letter “" + letters.letter +
        "” stands in it " + letters.count + (letters.count === 1 ? " time." : " times.") + (right && Number(right[0]) === letters.count ? " This time it is right." : "");
    }
    function drawNumber() {
      chips(numberChips, number.pieces);
      var digits = (number.text.match(/\d/g) || []).length;
      numberNote.textContent = number.pieces.length + " tokens for " + number.text.length + " characters, " + digits + " of them digits: each digit is a token of its own.";
    }
    function drawLanguages() {
      var rows = T.languages.map(function (l) { return { language: l.language, text: l.text, words: l.words, tokens: l.ids.length, pieces: l.pieces }; });
      if (yours) rows.push(yours);
      var top = Math.max.apply(null, rows.map(function (r) { return r.tokens / r.words; }));
      ui.clear(langBox);
      langBox.appendChild(ui.bars(rows.map(function (r) {
        var per = r.tokens / r.words;
        return { label: r.language, value: per / top, text: ui.fix(per, 2), data: { tokens: String(r.tokens), words: String(r.words) }, rowCls: r.yours ? "nt-lab-yours" : null };
      }), { label: "Tokens per word, by language" }));
      var body = el("tbody");
      rows.forEach(function (r) {
        body.appendChild(el("tr", {}, [el("td", { text: r.language }), el("td", { class: "nt-lab-sentence", text: r.text }), el("td", { text: String(r.words) }),
          el("td", { text: String(r.tokens) }), el("td", { text: macsText(lab.macs(r.tokens, cost)) })]));
      });
      langBox.appendChild(el("div", { class: "nt-table-wrap", tabindex: "0", role: "region", "aria-label": "Each language's sentence, words, tokens and multiply-adds" }, [
        el("table", { class: "nt-table" }, [el("thead", {}, [el("tr", {}, ["language", "sentence", "words", "tokens", "multiply-adds"].map(function (h) { return el("th", { text: h }); }))]), body])]));
      langBox.appendChild(el("p", { class: "nt-note", text: "The bars: tokens per word. Words are counted at spaces." }));
    }
    function draw() {
      var isLive = letters.live || number.live || !!yours;
      state.set(isLive ? "live" : "stored");
      sourceText.textContent = isLive ? "Live in this page: what you typed, with SmolLM2's own tokenizer" + (letters.live ? " and model." : ".")
        : "Measured by the build with transformers (its tokenizer and, for the answer, the model).";
      drawLetters();
      drawNumber();
      drawLanguages();
      modelReady();
      root.setAttribute("data-view", isLive ? "live" : "stored");
    }

    function fail(msg) {
      return function (err) { root.removeAttribute("data-busy"); msg.show((err && err.message ? err.message : String(err)) + ".", "error"); };
    }
    function labels(tk, ids) { return tk.pieces(ids).map(function (p) { return p.text === null ? "[" + p.label + "]" : p.text; }); }

    function askLetters() {
      var model = store.get("real.loaded");
      if (!model) return;
      var word = wordIn.value.trim(), letter = letterIn.value;
      if (!word || /\s/.test(word)) { lettersMsg.show("Type one word, without spaces.", "error"); return; }
      if (letter.length !== 1) { lettersMsg.show("Type one letter.", "error"); return; }
      var tk = model.tokenizer, question = LT.template.replace("{letter}", letter).replace("{word}", word);
      var enc = tk.encode(question, { chat: true });
      if (!enc.ok) { lettersMsg.show(enc.error.message, "error"); return; }
      var my = ++gen, stop = STOP.map(function (s) { return tk.encode(s).ids[0]; }), got = [];
      lettersMsg.clear();
      root.setAttribute("data-busy", "");
      answerLine.textContent = "The model is answering…";
      // its own cache slot, so another demo's pass between two steps leaves this answer's cache alone
      function step(out) {
        if (my !== gen) return null;
        var id = lab.argmax(out.logits);
        got.push(id);
        if (stop.indexOf(id) >= 0 || got.length >= LT.max_new) return got;
        return model.session.decode(id, { slot: SLOT }).then(step);
      }
      model.session.prefill(enc.ids, { slot: SLOT }).then(step).then(function (ids) {
        if (!ids) return;
        var word_ = tk.encode(" " + word);
        letters = { live: true, word: word, letter: letter, question: question, wordPieces: labels(tk, word_.ids),
                    answer: tk.decode(ids.filter(function (i) { return stop.indexOf(i) < 0; })), ids: ids, count: lab.count(word, letter) };
        root.removeAttribute("data-busy");
        draw();
        root.setAttribute("data-pass", String(my));
      }).then(null, fail(lettersMsg));
    }

    function tokenizeNumber() {
      var text = numberIn.value;
      realLoad.tokenizer().then(function (tk) {
        var enc = tk.encode(text);
        if (!enc.ok) { numberMsg.show(enc.error.message, "error"); return; }
        numberMsg.clear();
        number = { live: true, text: text, pieces: labels(tk, enc.ids) };
        draw();
      }, fail(numberMsg));
    }

    // pressed: the reader pressed Enter (not a link restored): the new row, the bars' last, is brought into view
    function tokenizeSentence(pressed) {
      var text = sentenceIn.value.trim();
      if (!text) { sentenceMsg.show("Type a sentence first.", "error"); return; }
      realLoad.tokenizer().then(function (tk) {
        var enc = tk.encode(text);
        if (!enc.ok) { sentenceMsg.show(enc.error.message, "error"); return; }
        sentenceMsg.clear();
        yours = { language: "yours", text: text, words: text.split(/\s+/).length, tokens: enc.ids.length, pieces: labels(tk, enc.ids), yours: true };
        draw();
        if (pressed) ui.reveal(langBox.querySelector(".nt-lab-yours"), sentenceIn);
      }, fail(sentenceMsg));
    }

    draw();

    permalink.join(root, live, {
      fields: { word: permalink.text(40), letter: permalink.text(1), number: permalink.text(200), sentence: permalink.text(300) },
      get: function () {
        var s = {};
        if (letters.live) { s.word = letters.word; s.letter = letters.letter; }
        if (number.live) s.number = number.text;
        if (yours) s.sentence = yours.text;
        return s;
      },
      set: function (s) {
        if (s.number !== undefined) { numberIn.value = s.number; tokenizeNumber(); }
        if (s.sentence !== undefined) { sentenceIn.value = s.sentence; tokenizeSentence(); }
        if (s.word === undefined) return "";
        wordIn.value = s.word;
        if (s.letter !== undefined) letterIn.value = s.letter;
        if (store.get("real.loaded")) { askLetters(); return ""; }
        return "This link asks the model about “" + s.word + "”, which needs the model: press Load above; the stored answer shows meanwhile.";
      },
      tables: function () {
        var rows = T.languages.map(function (l) { return [l.language, l.text, l.words, l.ids.length, lab.macs(l.ids.length, cost)]; });
        if (yours) rows.push(["yours", yours.text, yours.words, yours.tokens, lab.macs(yours.tokens, cost)]);
        return [{ name: "languages", columns: ["language", "sentence", "words", "tokens", "multiply_adds"], rows: rows },
          { name: "letters", columns: ["question", "word_tokens", "answer", "true_count"], rows: [[letters.question, letters.wordPieces.join("|"), letters.answer, letters.count]] },
          { name: "number", columns: ["text", "tokens"], rows: [[number.text, number.pieces.join("|")]] }];
      } });
  });
});
