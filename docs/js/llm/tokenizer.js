// SmolLM2's tokenizer in plain JavaScript (classic script: works from file://), equal to the one
// transformers builds from the model's GGUF.
//
// nexttoken.llm.tokenizer.create(data) takes nexttoken.data.smollm2Tokenizer
// (docs/js/data/smollm2-tokenizer.js, written by scripts/site/smollm2_tokenizer_js.py) and returns
// {encode(text, {chat, system}), decode(ids), pieces(ids)}. The steps are transformers':
// 1. lone surrogates (which no UTF-8 text holds) become U+FFFD, as TextEncoder writes them;
// 2. the special tokens written in the text are cut out whole (the longest one where two start
//    at the same place);
// 3. the rest is split by GPT-2's pattern, with letters, digits and spaces as the reference's own
//    code-point classes from the data (not the browser's, whose Unicode version varies);
// 4. each piece's UTF-8 bytes become GPT-2's 256 stand-in characters; the few bytes the vocabulary
//    has no token for are dropped, as transformers drops them (it has no unknown token);
// 5. adjacent symbols merge, lowest-ranked merge first.
// encode never throws on text: it returns {ok: false, error: {kind, message}} for an empty prompt,
// one over MAX_TOKENS, or a value that is not a string. decode and pieces throw RangeError on a bad id.
(function () {
  "use strict";

  var MAX_TOKENS = 1024;   // the prompt cap the page's model runs with, template included
  var COUNT_LIMIT = 8 * MAX_TOKENS; // a longer prompt is said to be "over" this, not counted to the end
  var CACHE_LIMIT = 20000; // words remembered between calls

  // Byte -> stand-in character (bytes_to_unicode): printable Latin-1 bytes keep their code point,
  // the other 68 are shifted to 256 and up, so every token is a printable string.
  function byteTable() {
    var byteToChar = new Array(256);
    var charToByte = new Map();
    var shifted = 0;
    for (var b = 0; b < 256; b++) {
      var keep = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
      byteToChar[b] = String.fromCharCode(keep ? b : 256 + shifted++);
      charToByte.set(byteToChar[b], b);
    }
    return { byteToChar: byteToChar, charToByte: charToByte };
  }

  function classBody(ranges) {
    return ranges.map(function (r) {
      var lo = "\\u{" + r[0].toString(16) + "}";
      return r[1] > r[0] ? lo + "-\\u{" + r[1].toString(16) + "}" : lo;
    }).join("");
  }

  // GPT-2's split, which transformers' ByteLevel pre-tokenizer applies: contractions, letters,
  // digits, other symbols (each run may take one leading space), and spaces (a run of spaces before
  // a word leaves its last one to that word).
  function splitPattern(classes) {
    var L = classBody(classes.letter);
    var N = classBody(classes.number);
    var S = classBody(classes.space);
    return new RegExp(
      "'s|'t|'re|'ve|'m|'ll|'d| ?[" + L + "]+| ?[" + N + "]+| ?[^" + S + L + N + "]+" +
      "|[" + S + "]+(?![^" + S + "])|[" + S + "]+", "gu");
  }

  function escapeRegExp(s) {
    return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }

  // Lone surrogates -> U+FFFD; returns the text and how many were replaced.
  function wellFormed(text) {
    var replaced = 0;
    var out = "";
    var from = 0;
    for (var i = 0; i < text.length; i++) {
      var c = text.charCodeAt(i);
      if (c < 0xD800 || c > 0xDFFF) continue;
      if (c <= 0xDBFF && i + 1 < text.length) {
        var next = text.charCodeAt(i + 1);
        if (next >= 0xDC00 && next <= 0xDFFF) { i++; continue; }
      }
      out += text.slice(from, i) + "\uFFFD";
      from = i + 1;
      replaced++;
    }
    return { text: replaced ? out + text.slice(from) : text, replaced: replaced };
  }

  function groupDigits(n) {
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  function create(data) {
    if (!data || !Array.isArray(data.tokens) || !Array.isArray(data.merges) || !data.classes) {
      throw new Error("llm.tokenizer.create: expected {tokens, merges, classes} (docs/js/data/smollm2-tokenizer.js)");
    }
    var tokens = data.tokens;
    var whole = Object.assign({}, data.special || {}, data.added || {});
    var specialIds = new Set(Object.keys(data.special || {}).map(function (t) { return data.special[t]; }));
    var ids = new Map();
    tokens.forEach(function (t, i) { ids.set(t, i); });
    var ranks = new Map();
    data.merges.forEach(function (m, i) { ranks.set(m, i); });
    var table = byteTable();
    var pattern = splitPattern(data.classes);
    var encoder = new TextEncoder();
    var strict = new TextDecoder("utf-8", { fatal: true });
    var lenient = new TextDecoder("utf-8");
    var cache = new Map();
    var names = Object.keys(whole).sort(function (a, b) { return b.length - a.length; });
    // A capturing group, so split() leaves the tokens it cut at the odd indices.
    var wholeSplit = names.length ? new RegExp("(" + names.map(escapeRegExp).join("|") + ")") : null;

    // Symbols of one piece, merged: the stand-ins of its bytes that the vocabulary has (transformers
    // drops the others), then the lowest-ranked adjacent pair merged, every occurrence left to right.
    function bpe(word) {
      var hit = cache.get(word);
      if (hit) return hit;
      var parts = Array.from(word).filter(function (c) { return ids.has(c); });
      var dropped = word.length - parts.length;
      while (parts.length > 1) {
        var best = -1;
        var bestRank = Infinity;
        for (var i = 0; i < parts.length - 1; i++) {
          var r = ranks.get(parts[i] + " " + parts[i + 1]);
          if (r !== undefined && r < bestRank) { bestRank = r; best = i; }
        }
        if (best < 0) break;
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
      var result = { ids: parts.map(function (t) { return ids.get(t); }), dropped: dropped };
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(word, result);
      return result;
    }

    // Both stop once `out` holds more than `limit` ids, so a pasted book costs no more than a page.
    function encodeOrdinary(text, out, counts, limit) {
      pattern.lastIndex = 0;
      var m;
      while (out.length <= limit && (m = pattern.exec(text)) !== null) {
        var bytes = encoder.encode(m[0]);
        var mapped = "";
        for (var k = 0; k < bytes.length; k++) mapped += table.byteToChar[bytes[k]];
        var r = bpe(mapped);
        for (var q = 0; q < r.ids.length; q++) out.push(r.ids[q]);
        counts.dropped += r.dropped;
      }
    }

    function encodeText(text, counts, limit) {
      var out = [];
      var chunks = wholeSplit ? text.split(wholeSplit) : [text];
      for (var i = 0; i < chunks.length && out.length <= limit; i++) {
        if (i % 2 === 1) out.push(whole[chunks[i]]);
        else if (chunks[i]) encodeOrdinary(chunks[i], out, counts, limit);
      }
      return out;
    }

    // The chat template's text around the messages (data.chat, cut by the generator from the GGUF's
    // template), ending in the generation prompt; without a system message the template's own.
    function render(user, system) {
      if (!data.chat) return null;
      if (system === undefined || system === null) return data.chat.user[0] + user + data.chat.user[1];
      var parts = data.chat.system_user;
      return parts[0] + system + parts[1] + user + parts[2];
    }

    function failure(kind, message, extra) {
      return { ok: false, error: Object.assign({ kind: kind, message: message }, extra || {}) };
    }

    function encode(text, opts) {
      opts = opts || {};
      if (typeof text !== "string") return failure("not_text", "The prompt must be text.");
      if (opts.system !== undefined && opts.system !== null && typeof opts.system !== "string") {
        return failure("not_text", "The system message must be text.");
      }
      if (text.length === 0) return failure("empty", "Type a prompt first: it is empty.");
      var user = wellFormed(text);
      var system = opts.system === undefined || opts.system === null ? null : wellFormed(opts.system);
      var full = opts.chat ? render(user.text, system && system.text) : user.text;
      if (full === null) return failure("no_template", "This model's files hold no chat template.");
      var counts = { dropped: 0 };
      var out = encodeText(full, counts, COUNT_LIMIT);
      if (data.add_bos && data.bos_id !== null && data.bos_id !== undefined) out.unshift(data.bos_id);
      if (data.add_eos && data.eos_id !== null && data.eos_id !== undefined) out.push(data.eos_id);
      if (out.length > MAX_TOKENS) {
        var over = out.length > COUNT_LIMIT;
        return failure("too_long", "The prompt is " + (over ? "over " + groupDigits(COUNT_LIMIT) : groupDigits(out.length)) +
          " tokens; the model here reads at most " + groupDigits(MAX_TOKENS) + ".",
          { count: over ? null : out.length, max: MAX_TOKENS });
      }
      if (out.length === 0) {
        return failure("empty", "The prompt has no character the model has a token for.", { dropped: counts.dropped });
      }
      return {
        ok: true, ids: out, pieces: pieces(out), text: full,
        replaced: user.replaced + (system ? system.replaced : 0), dropped: counts.dropped, error: null,
      };
    }

    function bytesOf(id) {
      if (!Number.isInteger(id) || id < 0 || id >= tokens.length) {
        throw new RangeError("token id " + id + " is not in the vocabulary (0 to " + (tokens.length - 1) + ")");
      }
      var t = tokens[id];
      var out = new Uint8Array(t.length);
      for (var i = 0; i < t.length; i++) out[i] = table.charToByte.get(t[i]);
      return out;
    }

    function hex(bytes) {
      return Array.from(bytes, function (b) { return "0x" + b.toString(16).toUpperCase().padStart(2, "0"); }).join(" ");
    }

    // Each token as stored, as its bytes, and as text when its bytes are whole UTF-8 characters;
    // a token holding part of a character is labelled by its bytes, never by a made-up character.
    function pieces(idList) {
      return Array.from(idList, function (id) {
        var bytes = bytesOf(id);
        var text = null;
        try { text = strict.decode(bytes); } catch (e) { text = null; }
        return {
          id: id, token: tokens[id], bytes: Array.from(bytes), text: text,
          label: text === null ? hex(bytes) : text, special: specialIds.has(id),
        };
      });
    }

    // transformers' decode: every token's bytes joined, then read as UTF-8, each broken sequence
    // as one U+FFFD; special tokens as their text.
    function decode(idList) {
      var chunks = Array.from(idList, bytesOf);
      var total = chunks.reduce(function (n, c) { return n + c.length; }, 0);
      var all = new Uint8Array(total);
      var at = 0;
      chunks.forEach(function (c) { all.set(c, at); at += c.length; });
      return lenient.decode(all);
    }

    return {
      encode: encode, decode: decode, pieces: pieces, render: render,
      vocabSize: tokens.length, bosId: data.bos_id, eosId: data.eos_id, maxTokens: MAX_TOKENS,
    };
  }

  var api = { create: create, MAX_TOKENS: MAX_TOKENS, wellFormed: wellFormed };
  if (typeof window !== "undefined") {
    window.nexttoken = window.nexttoken || {};
    window.nexttoken.llm = window.nexttoken.llm || {};
    window.nexttoken.llm.tokenizer = api;
  }
  if (typeof module !== "undefined" && module.exports) module.exports = api;
})();
