// GPT-2's byte-level BPE tokenizer in plain JavaScript (classic script: works from file://).
//
// gpt2.tokenizer.create(vocabData) takes data.gpt2-vocab (docs/js/data/gpt2-vocab.js:
// {tokens, merges, special}) and returns {encode(text), decode(ids)}. The steps are GPT-2's own:
// split the text with GPT-2's pre-tokenizer pattern, turn each piece's UTF-8 bytes into the 256
// printable stand-in characters (bytes_to_unicode), then merge adjacent symbols lowest rank first.
// tests/js/gpt2-tokenizer.test.js checks it against ids from transformers.
nexttoken.define("gpt2.tokenizer", [], function () {
  "use strict";

  // The pattern of GPT-2's encoder.py: contractions, letters, digits, other symbols, and spaces
  // (a run of spaces leaves its last one to start the next word).
  var PATTERN = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

  // Byte -> stand-in character: printable Latin-1 bytes keep their code point, the other 68 bytes
  // are shifted to 256 and up so that every token is a printable string.
  function bytesToUnicode() {
    var keep = [];
    var b;
    for (b = 33; b <= 126; b++) keep.push(b);
    for (b = 161; b <= 172; b++) keep.push(b);
    for (b = 174; b <= 255; b++) keep.push(b);
    var byteToChar = new Array(256);
    var charToByte = {};
    var shifted = 0;
    for (b = 0; b < 256; b++) {
      var code = keep.indexOf(b) >= 0 ? b : 256 + shifted++;
      byteToChar[b] = String.fromCharCode(code);
      charToByte[byteToChar[b]] = b;
    }
    return { byteToChar: byteToChar, charToByte: charToByte };
  }

  function escapeRegExp(s) {
    return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }

  function create(vocabData) {
    if (!vocabData || !vocabData.tokens || !vocabData.merges) {
      throw new Error("gpt2Tokenizer.create: expected {tokens, merges} (docs/js/data/gpt2-vocab.js)");
    }
    var tokens = vocabData.tokens;
    var special = vocabData.special || {};
    var ids = new Map();
    tokens.forEach(function (t, i) { ids.set(t, i); });
    var ranks = new Map();
    vocabData.merges.forEach(function (m, i) { ranks.set(m, i); });
    var table = bytesToUnicode();
    var encoder = new TextEncoder();
    var cache = new Map();
    var specialNames = Object.keys(special);
    // transformers treats a special token written in the text as that token, not as characters.
    var specialSplit = specialNames.length
      ? new RegExp("(" + specialNames.map(escapeRegExp).join("|") + ")")
      : null;

    function bpe(word) {
      if (cache.has(word)) return cache.get(word);
      var parts = Array.from(word);
      while (parts.length > 1) {
        var best = -1;
        var bestRank = Infinity;
        for (var i = 0; i < parts.length - 1; i++) {
          var r = ranks.get(parts[i] + " " + parts[i + 1]);
          if (r !== undefined && r < bestRank) { bestRank = r; best = i; }
        }
        if (best < 0) break;
        // Merge every occurrence of the best pair, left to right, as GPT-2's bpe() does.
        var a = parts[best];
        var b = parts[best + 1];
        var merged = [];
        for (var j = 0; j < parts.length; j++) {
          if (j < parts.length - 1 && parts[j] === a && parts[j + 1] === b) {
            merged.push(a + b);
            j++;
          } else {
            merged.push(parts[j]);
          }
        }
        parts = merged;
      }
      cache.set(word, parts);
      return parts;
    }

    function toBytes(token) {
      return Array.from(token).map(function (c) { return table.charToByte[c]; });
    }

    // The token as a person would read it: its bytes decoded as UTF-8 (a token holding only part
    // of a character shows U+FFFD, as transformers' decode does).
    function readable(token) {
      if (Object.prototype.hasOwnProperty.call(special, token)) return token;
      return new TextDecoder().decode(new Uint8Array(toBytes(token)));
    }

    function encodeOrdinary(text, out) {
      var pieces = text.match(PATTERN) || [];
      pieces.forEach(function (piece) {
        var mapped = Array.from(encoder.encode(piece), function (byte) { return table.byteToChar[byte]; }).join("");
        bpe(mapped).forEach(function (t) {
          var id = ids.get(t);
          if (id === undefined) throw new Error("gpt2Tokenizer: no id for token " + JSON.stringify(t));
          out.push(id);
        });
      });
    }

    function encode(text) {
      var out = [];
      var chunks = specialSplit ? String(text).split(specialSplit) : [String(text)];
      chunks.forEach(function (chunk, i) {
        // split() with a capturing group puts the special tokens at the odd indices
        if (i % 2 === 1) out.push(special[chunk]);
        else if (chunk) encodeOrdinary(chunk, out);
      });
      var shown = out.map(function (id) { return tokens[id]; });
      return { ids: out, tokens: shown, readable: shown.map(readable),
               bytes: shown.map(function (t) { return Object.prototype.hasOwnProperty.call(special, t) ? null : toBytes(t); }) };
    }

    function decode(idList) {
      var bytes = [];
      var text = "";
      var decoder = new TextDecoder();
      idList.forEach(function (id) {
        var t = tokens[id];
        if (t === undefined) throw new Error("gpt2Tokenizer.decode: id " + id + " is outside the vocabulary");
        if (Object.prototype.hasOwnProperty.call(special, t)) {
          text += decoder.decode(new Uint8Array(bytes)) + t;
          bytes = [];
        } else {
          bytes.push.apply(bytes, toBytes(t));
        }
      });
      return text + decoder.decode(new Uint8Array(bytes));
    }

    return { encode: encode, decode: decode, vocabSize: tokens.length };
  }

  return { create: create, bytesToUnicode: bytesToUnicode };
});
