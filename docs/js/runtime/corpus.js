// The reader's corpus for training in the browser: judged before anything changes, the BPE learner of
// scripts/tiny/tokenizer.py (same merges, same order), and the batch of scripts/tiny/checkpoint.py.
// Loaded only on the training page, with trainer.js, when the reader presses Train.
//
// corpus.checkCorpus(text, limits)   -> {ok, lines} or {ok: false, message}; lineProblem(line, n, limits)
// corpus.promptsOf(lines)            -> the reader's model's prompts (its sentences cut short)
// corpus.learnBPE(lines, vocabSize)  -> {chars, merges} (throws Error with Python's message)
// corpus.learnUntilMerged(lines, cap) -> {chars, merges, capped} (scripts/tiny/sizing.py)
// corpus.size(lines, modelCfg, caps)  -> the reader's model sized by its corpus: {ok, config, tokenizer,
//   tk, rows, lines: [{text, ids, tokens, pieces, fits}], capped} or {ok: false, message, lines}; caps: corpus.CAPS
// corpus.tokenizerJson(chars, merges, like) -> a tokenizer.json object for tokenizer.create
// corpus.makeBatch(tk, lines, nCtx)  -> [{x, y}] one row per sentence (throws on a long sentence)
nexttoken.define("runtime.corpus", [], function () {
  "use strict";
  var EOT = "<|endoftext|>";
  // The reader's model's largest vocabulary and context (scripts/tiny/sizing.py's VOCAB_CAP, CTX_CAP).
  var CAPS = { vocab: 256, ctx: 16 };

  // ---- the corpus --------------------------------------------------------------------------
  // Python's read_corpus: strip lines, drop blanks and # comments.
  function corpusLines(text) {
    return String(text).split(/\r\n|\r|\n/).map(function (l) { return l.trim(); })
      .filter(function (l) { return l && l.charAt(0) !== "#"; });
  }

  // What is wrong with one line, in the reader's words, or null. The characters are the build's rule
  // too (scripts/tiny/settings.py, check_chars: printable ASCII without < and >), so the page always
  // takes the build's own corpus; each character outside it would also cost a vocabulary slot.
  function lineProblem(line, n, limits) {
    if (/[<>]/.test(line)) return "Line " + (n + 1) + " looks like markup (“<” or “>”): write plain sentences only.";
    for (var ch of line) {
      var code = ch.codePointAt(0);
      if (code < 32 || code > 126) {
        var name = code < 32 || code === 127 ? "a control character" : "“" + ch + "”";
        return "Line " + (n + 1) + " has " + name + " (U+" + code.toString(16).toUpperCase().padStart(4, "0") + "): use plain ASCII letters, digits, spaces and punctuation.";
      }
    }
    if (line.length > limits.maxChars) return "Line " + (n + 1) + " is " + line.length + " characters long; a line may have at most " + limits.maxChars + " (and " + limits.nCtx + " pieces): split it into sentences.";
    return null;
  }

  // The reader's text -> sentences, or one line saying what to do (the first problem found).
  function checkCorpus(text, limits) {
    var lines = corpusLines(text);
    if (!lines.length) return { ok: false, message: "The corpus is empty: write at least one sentence per line." };
    if (lines.length > limits.maxSentences) {
      return { ok: false, message: "That is " + lines.length + " sentences; the browser trains at most " + limits.maxSentences + " (the build's corpus has " + limits.builtSentences + "): remove some." };
    }
    for (var n = 0; n < lines.length; n++) {
      var problem = lineProblem(lines[n], n, limits);
      if (problem) return { ok: false, message: problem };
    }
    var words = lines.join(" ").split(/\s+/).filter(Boolean).length;
    if (words < 2) return { ok: false, message: "The corpus is one word: a model predicts the next token from the ones before, so write sentences of two or more words." };
    if (lines.length > 1 && lines.every(function (l) { return l === lines[0]; })) {
      return { ok: false, message: "The corpus is one sentence " + lines.length + " times: repeating it teaches nothing more than writing it once; write different sentences." };
    }
    return { ok: true, lines: lines };
  }

  // Prompts for the demos from the reader's sentences: each without its last word (and the
  // punctuation after it), as the build's prompts are its sentences cut short; the longest first
  // (the demos show more of a longer prompt), ties in corpus order.
  function promptsOf(lines, max) {
    var out = [];
    lines.forEach(function (l) {
      var cut = l.replace(/[^A-Za-z0-9]*$/, "").replace(/\s*\S+$/, "");
      if (cut && out.indexOf(cut) < 0) out.push(cut);
    });
    var words = function (s) { return s.split(/\s+/).length; };
    out = out.map(function (s, i) { return [s, i]; })
      .sort(function (a, b) { return words(b[0]) - words(a[0]) || a[1] - b[1]; })
      .map(function (e) { return e[0]; }).slice(0, max || 7);
    return out.length ? out : lines.slice(0, 1);
  }

  // ---- BPE, the rule of scripts/tiny/tokenizer.py ------------------------------------------
  var PRETOKENIZER = " ?[a-z]+| ?[^ a-z]| ";
  function chunks(text, pattern) { return text.match(new RegExp(pattern || PRETOKENIZER, "gu")) || []; }

  function mergePair(symbols, a, b) {
    var out = [];
    for (var i = 0; i < symbols.length; i++) {
      if (i + 1 < symbols.length && symbols[i] === a && symbols[i + 1] === b) { out.push(a + b); i++; }
      else out.push(symbols[i]);
    }
    return out;
  }

  // Most frequent adjacent pair first; a tie goes to the pair seen first in the corpus (Maps keep
  // insertion order, as Python's Counter does). Stops when no pair is left (merged) or when
  // `enough(size)` says so, asked before each merge with end-of-text + characters + merges so far.
  function merge(lines, pattern, enough) {
    var counts = new Map();
    lines.forEach(function (line) {
      chunks(line, pattern).forEach(function (c) { counts.set(c, (counts.get(c) || 0) + 1); });
    });
    var charSet = {};
    counts.forEach(function (_, c) { for (var ch of c) charSet[ch] = true; });
    var chars = Object.keys(charSet).sort(function (a, b) { return a < b ? -1 : a > b ? 1 : 0; });
    var words = new Map();
    counts.forEach(function (_, c) { words.set(c, Array.from(c)); });
    var merges = [], merged = false;
    for (;;) {
      var pairs = new Map();
      counts.forEach(function (n, c) {
        var s = words.get(c);
        for (var i = 0; i + 1 < s.length; i++) {
          var key = s[i] + "\u0000" + s[i + 1];
          pairs.set(key, (pairs.get(key) || 0) + n);
        }
      });
      if (!pairs.size) { merged = true; break; }
      if (enough(1 + chars.length + merges.length)) break;
      var best = -1, bestKey = null;
      pairs.forEach(function (n, k) { if (n > best) { best = n; bestKey = k; } });  // strict >: first wins ties
      var ab = bestKey.split("\u0000");
      merges.push(ab);
      words.forEach(function (s, c) { words.set(c, mergePair(s, ab[0], ab[1])); });
    }
    return { chars: chars, merges: merges, size: 1 + chars.length + merges.length, merged: merged };
  }

  // The build's rule (scripts/tiny/tokenizer.py): merges until end-of-text + characters + merges = vocabSize.
  function learnBPE(lines, vocabSize, pattern) {
    var r = merge(lines, pattern, function (size) { return size >= vocabSize; });
    if (1 + r.chars.length > vocabSize) {
      throw new Error("the corpus uses " + r.chars.length + " different characters; with end-of-text that is more than the vocabulary of " + vocabSize);
    }
    if (r.merged && r.size < vocabSize) {
      throw new Error("the corpus is fully merged after " + r.merges.length + " merges; vocabulary " +
        r.size + " < " + vocabSize + ": add words or lower vocab_size");
    }
    return { chars: r.chars, merges: r.merges };
  }

  // The reader's rule (scripts/tiny/sizing.py's learn_until_merged): learnBPE's merges, stopping when
  // every pre-token is one token, or when the vocabulary reaches cap (capped: pairs were left).
  function learnUntilMerged(lines, cap, pattern) {
    var r = merge(lines, pattern, function (size) { return size >= cap; });
    return { chars: r.chars, merges: r.merges, capped: !r.merged };
  }

  // The reader's corpus -> the model it sizes: vocabulary from the learner above, context the longest
  // sentence with its end marker (at most caps.ctx). Each line's pieces come back for the preview,
  // marked when they do not fit; a line that does not fit refuses the corpus, in the reader's words.
  function size(lines, mc, caps, like, createTokenizer) {
    var bpe = learnUntilMerged(lines, caps.vocab);
    var tj = tokenizerJson(bpe.chars, bpe.merges, like);
    var tk = createTokenizer(tj);
    var longest = 0, bad = null;
    var shown = lines.map(function (text, n) {
      var r = tk.encode(text);
      var ids = r.ok ? r.ids : [];
      var pieces = ids.length + 1;
      var fits = r.ok && pieces <= caps.ctx;
      if (fits) longest = Math.max(longest, pieces);
      else if (!bad) bad = "Line " + (n + 1) + " has " + pieces + " pieces with its end marker; the longest a line may have is " + caps.ctx + ": split it into shorter sentences.";
      return { text: text, ids: ids, tokens: ids.map(function (i) { return tk.show(i); }), pieces: pieces, fits: fits };
    });
    if (bad) return { ok: false, message: bad, lines: shown, capped: bpe.capped };
    var config = {};
    Object.keys(mc).forEach(function (k) { if (k !== "n_params") config[k] = mc[k]; });
    config.vocab_size = tj.vocab.length;
    config.n_ctx = longest;
    var rows = shown.map(function (l) { var ids = l.ids.concat([tk.eotId]); return { x: ids.slice(0, -1), y: ids.slice(1) }; });
    return { ok: true, config: config, tokenizer: tj, tk: tk, rows: rows, lines: shown, capped: bpe.capped, bpe: bpe };
  }

  function tokenizerJson(chars, merges, like) {
    return {
      schema_version: like ? like.schema_version : 1, eot: EOT, eot_id: 0,
      space_marker: like ? like.space_marker : "\u00b7", pretokenizer: like ? like.pretokenizer : PRETOKENIZER,
      chars: chars.slice(), merges: merges.map(function (m) { return m.slice(); }),
      vocab: [EOT].concat(chars, merges.map(function (m) { return m[0] + m[1]; }))
    };
  }

  // One row per sentence: inputs its tokens, targets the same shifted by one, ending in
  // end-of-text. checkpoint.py pads rows to one width and ignores the padded targets; padding
  // changes no loss or gradient (the causal mask keeps it from earlier positions), so rows here
  // simply have their own lengths.
  function makeBatch(tk, lines, nCtx) {
    return lines.map(function (line) {
      var r = tk.encode(line);
      if (!r.ok) throw new Error(r.error.message);
      var ids = r.ids.concat([tk.eotId]);
      if (ids.length > nCtx) throw new Error("“" + line + "” needs " + ids.length + " tokens with its end marker; the window (n_ctx) is " + nCtx);
      return { x: ids.slice(0, -1), y: ids.slice(1) };
    });
  }

  return { corpusLines: corpusLines, lineProblem: lineProblem, checkCorpus: checkCorpus, promptsOf: promptsOf, learnBPE: learnBPE, learnUntilMerged: learnUntilMerged, size: size, CAPS: CAPS, tokenizerJson: tokenizerJson, makeBatch: makeBatch };
});
