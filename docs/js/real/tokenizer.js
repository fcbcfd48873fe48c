// SmolLM2's tokenizer in plain JavaScript (classic script: works from file://), equal to the one
// transformers builds from the model's GGUF.
//
// real.tokenizer.create(data) takes data.smollm2-tokenizer (docs/js/data/smollm2-tokenizer.js,
// written by scripts/site/smollm2_tokenizer_js.py; a page loads it with later:data.smollm2-tokenizer) and returns
// {encode(text, {chat, system}), decode(ids), pieces(ids)}. The steps are transformers':
// 1. lone surrogates (which no UTF-8 text holds) become U+FFFD, as TextEncoder writes them;
// 2. the special tokens written in the text are cut out whole (the longest one where two start
//    at the same place);
// 3. the rest is split by GPT-2's pattern, with letters, digits and spaces as the reference's own
//    code-point classes from the data (not the browser's, whose Unicode version varies);
// 4. each piece's UTF-8 bytes become GPT-2's 256 stand-in characters; the few bytes the vocabulary
//    has no token for are dropped, as transformers drops them (it has no unknown token);
// 5. adjacent symbols merge, lowest-ranked pair first (leftmost of equals), as tokenizers merges.
// encode never throws on text: it returns {ok: false, error: {kind, message}} for an empty prompt,
// one over MAX_TOKENS, or a value that is not a string. decode and pieces throw RangeError on a bad id.
nexttoken.define("real.tokenizer", [], function () {
  "use strict";

  var MAX_TOKENS = 1024;   // the prompt cap the page's model runs with, template included
  var COUNT_LIMIT = 8 * MAX_TOKENS; // a longer prompt is said to be "over" this, not counted to the end
  var MAX_CHARS = 1000000;          // longer text is refused unread (and stays far below POSITIONS)
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

  // Candidate merges as numbers, rank * POSITIONS + position, in a binary min-heap: the lowest rank
  // first, the leftmost of equal ranks first. Exact in a double: ranks and positions stay far below 2^26.
  var POSITIONS = 1 << 26;

  function heapPush(heap, key) {
    var i = heap.length;
    heap.push(key);
    while (i > 0) {
      var up = (i - 1) >> 1;
      if (heap[up] <= key) break;
      heap[i] = heap[up];
      i = up;
    }
    heap[i] = key;
  }

  function heapPop(heap) {
    var top = heap[0];
    var last = heap.pop();
    var size = heap.length;
    if (size) {
      var i = 0;
      for (;;) {
        var child = 2 * i + 1;
        if (child >= size) break;
        if (child + 1 < size && heap[child + 1] < heap[child]) child++;
        if (heap[child] >= last) break;
        heap[i] = heap[child];
        i = child;
      }
      heap[i] = last;
    }
    return top;
  }

  function groupDigits(n) {
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  function create(data) {
    if (!data || !Array.isArray(data.tokens) || !Array.isArray(data.merges) || !data.classes) {
      throw new Error("real.tokenizer.create: expected {tokens, merges, classes} (docs/js/data/smollm2-tokenizer.js)");
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

    // Symbols of one piece, merged as the tokenizers library merges them: the stand-ins of its bytes
    // that the vocabulary has (it drops the others), then, again and again, the adjacent pair with
    // the lowest merge rank, leftmost first. A heap of candidate pairs over a linked list of symbols
    // makes a long piece (a paragraph of CJK has no spaces) cost n log n, not n per merge applied.
    function bpe(word) {
      var hit = cache.get(word);
      if (hit) return hit;
      var sym = Array.from(word).filter(function (c) { return ids.has(c); });
      var dropped = word.length - sym.length;
      var n = sym.length;
      var next = new Int32Array(n);
      var prev = new Int32Array(n);
      for (var i = 0; i < n; i++) { next[i] = i + 1 < n ? i + 1 : -1; prev[i] = i - 1; }
      var rankAt = function (at) {
        return next[at] < 0 ? undefined : ranks.get(sym[at] + " " + sym[next[at]]);
      };
      var heap = [];
      var offer = function (at) {
        var rank = rankAt(at);
        if (rank !== undefined) heapPush(heap, rank * POSITIONS + at);
      };
      for (i = 0; i + 1 < n; i++) offer(i);
      while (heap.length) {
        var key = heapPop(heap);
        var at = key % POSITIONS;
        // Stale once either side has merged with something else: the pair there now has another rank.
        if (sym[at] === null || rankAt(at) !== (key - at) / POSITIONS) continue;
        var j = next[at];
        sym[at] += sym[j];
        sym[j] = null;
        next[at] = next[j];
        if (next[j] >= 0) prev[next[j]] = at;
        if (prev[at] >= 0) offer(prev[at]);
        offer(at);
      }
      var out = [];
      for (i = n ? 0 : -1; i >= 0; i = next[i]) out.push(ids.get(sym[i]));
      var result = { ids: out, dropped: dropped };
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
      if (text.length + (opts.system ? opts.system.length : 0) > MAX_CHARS) {
        return failure("too_long", "The prompt is over " + groupDigits(MAX_CHARS) + " characters; the model here reads at most " +
          groupDigits(MAX_TOKENS) + " tokens.", { count: null, max: MAX_TOKENS });
      }
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
        var text;
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
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  return api;
});
