// The three writers (docs/js/runtime/decoding.js) on a random 2-block llama (the engine in Node,
// wrapped as a session): their cached runs equal the same searches recomputed from scratch, beam
// search finds the best of its candidates, a seed reproduces a sample, end tokens and Stop end a text,
// bad settings are one line.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..");
globalThis.window = globalThis;
require(path.join(ROOT, "docs/js/nexttoken.js"));
for (const f of ["kernels", "sampling", "decoding"]) require(path.join(ROOT, "docs/js/runtime", f + ".js"));
const decoding = globalThis.nexttoken.runtime.decoding;
const llama = require("./random-llama.js");

const randomLlama = () => llama.randomLlama({ vocab: 60, seed: 5, scale: 1.2, n_ctx: 256 });

// The engine as workers.js's session presents it (one call at a time), counting its calls, the
// rows of its steps and the copies they carry.
function session(m = randomLlama()) {
  const calls = { prefill: 0, step: 0, rows: 0, copy: 0, carried: 0 };
  return {
    calls,
    prefill: (ids, o) => { calls.prefill++; return m.prefill(ids, o); },
    step: (list, o) => { calls.step++; calls.rows += list.length; calls.carried += ((o && o.copies) || []).length; return m.step(list, o); },
    copySlot: async (a, b) => { calls.copy++; return m.copySlot(a, b); },
  };
}

// A session with no cache at all: every call runs the slot's whole text again in a fresh model.
function uncached() {
  const texts = {};
  const full = async (slot) => (await randomLlama().prefill(texts[slot], {})).logits;
  return {
    prefill: async (ids, o) => { texts[o.slot] = Array.from(ids); return { logits: await full(o.slot) }; },
    step: async (list, o) => {
      for (const [a, b] of (o && o.copies) || []) texts[b] = texts[a].slice();
      const out = [];
      for (const [slot, id] of list) { texts[slot].push(id); out.push({ logits: await full(slot), length: texts[slot].length }); }
      return out;
    },
    copySlot: async (a, b) => { texts[b] = texts[a].slice(); return { length: texts[b].length }; },
  };
}

const PROMPT = [7, 3, 41, 12, 5];
const SAMPLING = { T: 1, k: 0, p: 1, seed: 7 };

test("the cached writers equal the same searches without a cache", async () => {
  const opts = { maxNew: 10, sampling: SAMPLING };
  const a = await decoding.write(session(), PROMPT, opts).done;
  const b = await decoding.write(uncached(), PROMPT, opts).done;
  for (const w of ["greedy", "sample"]) {
    assert.equal(a[w].ids.length, 10);
    assert.deepEqual(a[w].ids, b[w].ids, w);
    assert.equal(a[w].why, "length");
  }
  assert.deepEqual(a.beam.best.ids, b.beam.best.ids);
  assert.deepEqual(a.beam.finished.map((x) => x.ids), b.beam.finished.map((x) => x.ids));
  for (let i = 0; i < decoding.BEAMS; i++) assert.ok(Math.abs(a.beam.finished[i].sum - b.beam.finished[i].sum) < 1e-4);
  // beam search here is not greedy in disguise: the finished beams differ from one another
  assert.equal(new Set(a.beam.finished.map((x) => x.ids.join())).size, decoding.BEAMS);
});

test("greedy takes the top token at every step; over two tokens beam search finds the best pair of its first three", async () => {
  const m = randomLlama();
  const lp = async (ids) => decoding.logSoftmax((await randomLlama().prefill(ids, {})).logits);
  const got = await decoding.write(session(m), PROMPT, { maxNew: 2, writers: ["greedy", "beam"] }).done;
  const first = await lp(PROMPT), top = decoding.topK(first, decoding.BEAMS);
  assert.equal(got.greedy.ids[0], top[0]);
  assert.equal(got.greedy.ids[1], decoding.topK(await lp([...PROMPT, top[0]]), 1)[0]);
  let best = null;
  for (const t of top) {
    const second = await lp([...PROMPT, t]);
    for (let u = 0; u < second.length; u++) {
      const s = first[t] + second[u];
      if (!best || s > best.s) best = { s, ids: [t, u] };
    }
  }
  assert.deepEqual(got.beam.best.ids, best.ids);
  assert.ok(Math.abs(got.beam.best.score - best.s / 2) < 1e-9);
  const greedySum = first[got.greedy.ids[0]] + (await lp([...PROMPT, got.greedy.ids[0]]))[got.greedy.ids[1]];
  assert.ok(got.beam.best.sum >= greedySum - 1e-12);
});

test("a seed reproduces a sample; another seed writes another", async () => {
  const run = (seed) => decoding.write(session(), PROMPT, { maxNew: 12, writers: ["sample"], sampling: { ...SAMPLING, seed } }).done;
  const [a, b, c] = [await run(3), await run(3), await run(4)];
  assert.deepEqual(a.sample.ids, b.sample.ids);
  assert.notDeepEqual(a.sample.ids, c.sample.ids);
  // temperature 0 is greedy, whatever the seed
  const cold = await decoding.write(session(), PROMPT, { maxNew: 6, sampling: { T: 0, seed: 9 }, writers: ["sample", "greedy"] }).done;
  assert.deepEqual(cold.sample.ids, cold.greedy.ids);
});

test("an end token ends a writer's text, and beam search sets it aside as finished", async () => {
  const plain = await decoding.write(session(), PROMPT, { maxNew: 8, writers: ["greedy", "beam"] }).done;
  const end = plain.greedy.ids[2];
  const got = await decoding.write(session(), PROMPT, { maxNew: 8, writers: ["greedy", "beam"], ends: [end] }).done;
  assert.deepEqual(got.greedy.ids, plain.greedy.ids.slice(0, plain.greedy.ids.indexOf(end) + 1));
  assert.equal(got.greedy.why, "end");
  for (const b of got.beam.finished) {
    assert.ok(b.ids.indexOf(end) < 0 || b.ids.indexOf(end) === b.ids.length - 1, "nothing is written after an end token");
    assert.equal(b.why, b.ids[b.ids.length - 1] === end ? "end" : "length");
    assert.ok(Math.abs(b.score - b.sum / b.ids.length) < 1e-12);
  }
  assert.ok(got.beam.finished.some((b) => b.why === "end"));
  for (let i = 1; i < got.beam.finished.length; i++) assert.ok(got.beam.finished[i - 1].score >= got.beam.finished[i].score);
});

test("Stop ends every writer within one engine call, and says so", async () => {
  const s = session();
  let updates = 0;
  const h = decoding.write(s, PROMPT, { maxNew: 40, sampling: SAMPLING, onUpdate: () => { if (++updates === 4) h.stop(); } });
  const got = await h.done;
  for (const w of ["greedy", "sample", "beam"]) assert.equal(got[w].why, "stopped", w);
  assert.ok(got.greedy.ids.length < 40 && got.beam.steps < 40);
  const before = s.calls.step;
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(s.calls.step, before);
});

test("bad settings are one line; repeats marks a run written before", async () => {
  for (const [opts, message] of [[{ maxNew: 0 }, "the length must be a whole number of tokens from 1 to 64"],
    [{ maxNew: 65 }, "the length must be a whole number of tokens from 1 to 64"], [{ maxNew: 2.5 }, "the length must be a whole number of tokens from 1 to 64"],
    [{ maxNew: 3, writers: [] }, "pick at least one way to write"], [{ maxNew: 3, writers: ["top"] }, "there is no writer called top"]]) {
    await assert.rejects(decoding.write(session(), PROMPT, opts).done, { message });
  }
  // prompt 1 2 3 4, then 9 1 2 3 4 5: the run 1 2 3 4 comes back at the fifth new token
  assert.deepEqual(decoding.repeats([1, 2, 3, 4, 9, 1, 2, 3, 4, 5], 4), [false, false, false, false, true, false]);
});

test("a writer's token is published before the engine computes what follows it, one token at a time", async () => {
  const s = session(), seen = [];
  const onUpdate = (name, st) => seen.push({ name, n: st.ids.length, decodes: s.calls.step, done: st.done });
  await decoding.write(s, PROMPT, { writers: ["greedy"], maxNew: 5, sampling: SAMPLING, onUpdate }).done;
  // token n is shown while decode n runs (n - 1 finished); the last once more, when the writer is done
  const first = seen.filter((u, i) => i === 0 || u.n !== seen[i - 1].n);
  assert.deepEqual(first.map((u) => u.n), [1, 2, 3, 4, 5]);
  assert.deepEqual(first.map((u) => u.decodes), [0, 1, 2, 3, 4]);
  assert.ok(seen[seen.length - 1].done);
});

test("one engine call a round reads every writer's tokens: greedy's, the sample's and each running beam's", async () => {
  const s = session();
  const got = await decoding.write(s, PROMPT, { maxNew: 10, sampling: SAMPLING }).done;
  // the first token of each comes from the prompt's pass; then a step for each later round
  assert.equal(s.calls.step, Math.max(got.greedy.ids.length, got.sample.ids.length, got.beam.steps) - 1);
  assert.ok(s.calls.rows > 2 * s.calls.step, `${s.calls.rows} rows in ${s.calls.step} steps: the beams ride along`);
  assert.equal(s.calls.prefill, 1);
  // the prompt's copies to the other writers and the beams' forks ride with the steps: no call of their own
  assert.equal(s.calls.copy, 0);
  assert.ok(s.calls.carried >= 2 + decoding.BEAMS - 1, `${s.calls.carried} copies carried`);
});

test("writers that start from the panel's slot copy its cache and run only the tokens it lacks, with the same text", async () => {
  const m = randomLlama(), s = session(m), ran = [];
  const prefill = s.prefill;
  s.prefill = async (ids, o) => { const out = await prefill(ids, o); ran.push(out.reused || 0); return out; };
  await m.prefill(PROMPT.slice(0, 4), {});  // slot 0: the panel's pass of a prompt one token shorter
  const opts = { writers: ["greedy", "beam"], maxNew: 6, sampling: SAMPLING, from: 0 };
  const a = await decoding.write(s, PROMPT, opts).done;
  assert.deepEqual(ran, [4]);
  const b = await decoding.write(session(), PROMPT, { ...opts, from: undefined }).done;
  assert.deepEqual(a.greedy.ids, b.greedy.ids);
  assert.deepEqual(a.beam.best.ids, b.beam.best.ids);
  m.use(0);
  assert.equal(m.length, 4, "the panel's slot is untouched");
});
