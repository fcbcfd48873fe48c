// The tiny model's tokenizer: letter-level BPE, the same steps as scripts/tiny/tokenizer.py.
//
// tokenizer.create(tokJson) takes the active model's tokenizer (store.get("model").tokenizer) and returns tk with
//   vocab (token strings by id), eotId, show(id), encode(text), mergeSteps(text), decode(ids).
// encode and mergeSteps never throw on text: they return {ok: false, error: {kind, char, index,
// message}} with kind "empty" or "unknown_char"; show and decode throw RangeError on a bad id.
nexttoken.define("runtime.tokenizer", [], function () {
  "use strict";

  function create(tokJson) {
    var vocab = tokJson.vocab.slice();
    var eotId = tokJson.eot_id;
    var marker = tokJson.space_marker;
    var chars = {};
    tokJson.chars.forEach(function (c) { chars[c] = true; });
    var idOf = {};
    vocab.forEach(function (t, i) { idOf[t] = i; });
    // "a\u0000b" -> rank: a pair key that no token string can contain.
    var rank = {};
    tokJson.merges.forEach(function (m, r) { rank[m[0] + "\u0000" + m[1]] = r; });

    function checkId(id) {
      if (!(Number.isInteger(id) && id >= 0 && id < vocab.length)) {
        throw new RangeError("token id " + id + " is not in the vocabulary (0 to " + (vocab.length - 1) + ")");
      }
    }

    function show(id) {
      checkId(id);
      return vocab[id].split(" ").join(marker);
    }

    function showText(s) { return s.split(" ").join(marker); }

    // The first character outside the vocabulary, as an error, or null. Positions count code
    // points (as Python does), so an emoji is one character; `offset` is the UTF-16 index for slicing.
    function check(text) {
      if (typeof text !== "string" || text.length === 0) {
        return { kind: "empty", char: null, index: null, offset: null,
                 message: "The text is empty: type at least one character." };
      }
      var index = 0, offset = 0;
      for (var ch of text) {
        if (!chars[ch]) {
          var code = "U+" + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
          return {
            kind: "unknown_char", char: ch, index: index, offset: offset,
            message: "The character \u201c" + ch + "\u201d at position " + (index + 1) + " (" + code +
              ") is not in the tiny vocabulary: the tiny tokenizer starts from only the " +
              tokJson.chars.length + " characters of its training sentences, " +
              "so it cannot encode anything else. GPT-2 starts from 256 bytes, so any text encodes."
          };
        }
        index += 1;
        offset += ch.length;
      }
      return null;
    }

    // Python's re.findall with tokenizer.json's pattern: a new RegExp per call, since /g keeps state;
    // /u matches by code point as Python does, so an emoji is one symbol, not two surrogate halves.
    function chunks(text) {
      return text.match(new RegExp(tokJson.pretokenizer, "gu")) || [];
    }

    // One pre-token -> the symbols after every merge, lowest rank first (GPT-2's BPE loop).
    // Each applied merge joins every occurrence of the pair, left to right, as _merge_pair does.
    function mergeChunk(chunk, onStep) {
      var symbols = Array.from(chunk);
      onStep(null, null, symbols);
      while (symbols.length > 1) {
        var best = Infinity, a = null, b = null;
        for (var i = 0; i + 1 < symbols.length; i++) {
          var r = rank[symbols[i] + "\u0000" + symbols[i + 1]];
          if (r !== undefined && r < best) { best = r; a = symbols[i]; b = symbols[i + 1]; }
        }
        if (a === null) break;
        var out = [];
        for (var j = 0; j < symbols.length; j++) {
          if (j + 1 < symbols.length && symbols[j] === a && symbols[j + 1] === b) { out.push(a + b); j++; }
          else out.push(symbols[j]);
        }
        symbols = out;
        onStep([a, b], best, symbols);
      }
      return symbols;
    }

    function encode(text) {
      var error = check(text);
      if (error) return { ok: false, error: error };
      var ids = [];
      chunks(text).forEach(function (c) {
        mergeChunk(c, function () {}).forEach(function (s) { ids.push(idOf[s]); });
      });
      return { ok: true, ids: ids, tokens: ids.map(show) };
    }

    function mergeSteps(text) {
      var error = check(text);
      if (error) return { ok: false, chunks: [], error: error };
      return {
        ok: true,
        error: null,
        chunks: chunks(text).map(function (c) {
          var steps = [];
          mergeChunk(c, function (pair, r, symbols) {
            steps.push({ merge: pair && pair.map(showText), rank: r, symbols: symbols.map(showText) });
          });
          return { text: showText(c), steps: steps };
        })
      };
    }

    function decode(ids) {
      return ids.map(function (id) { checkId(id); return id === eotId ? "" : vocab[id]; }).join("");
    }

    return { vocab: vocab, eotId: eotId, eot: tokJson.eot, chars: tokJson.chars.slice(),
             show: show, encode: encode, mergeSteps: mergeSteps, decode: decode };
  }

  return { create: create };
});
