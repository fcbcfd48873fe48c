// Native llama.cpp (node-llama-cpp's prebuilt CPU binary) on the same GGUF and the same token ids as
// bench_real: for each thread count, a 6-token prefill, a decode step at 6, a long prefill and a decode
// step at its end, each the median of `runs`. Prints one JSON object.
//   node llama_cpp.mjs GGUF IDS.json THREADS(1,2) RUNS
// IDS.json: {"ids": [...], "long": [...]} (bench_real's prompt and its 512-token text).
import fs from "node:fs";
import { getLlama } from "node-llama-cpp";

const [gguf, idsFile, threadList, runsArg] = process.argv.slice(2);
const { ids, long } = JSON.parse(fs.readFileSync(idsFile, "utf8"));
const runs = Number(runsArg || 3);
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const now = () => performance.now();

const llama = await getLlama({ gpu: false, build: "never", progressLogs: false, logLevel: "error" });
const t0 = now();
const model = await llama.loadModel({ modelPath: gguf, gpuLayers: 0 });
const load = now() - t0;
const out = { binary: "node-llama-cpp prebuilt CPU", load, threads: {} };
for (const threads of threadList.split(",").map(Number)) {
  const context = await model.createContext({ contextSize: 1024, batchSize: 512, threads, sequences: 1 });
  const seq = context.getSequence();
  // a prompt's prefill (up to its first sampled token: the logits computed), then `steps` greedy
  // decode steps, each feeding the token sampled before, timed one by one
  async function pass(prompt, steps) {
    await seq.clearHistory();
    const gen = seq.evaluate(prompt, { temperature: 0 });
    let a = now();
    await gen.next();
    const prefill = now() - a, decode = [];
    for (let i = 0; i < steps; i++) {
      a = now();
      await gen.next();
      decode.push(now() - a);
    }
    await gen.return();
    return { prefill, decode };
  }
  const prefill6 = [], decode6 = [];
  for (let r = 0; r < runs; r++) { const p = await pass(ids, 1); prefill6.push(p.prefill); decode6.push(p.decode[0]); }
  const lp = await pass(long.slice(0, long.length - runs), runs);
  out.threads[threads] = { prefill6: med(prefill6), decode6: med(decode6), prefill_long: lp.prefill, decode512: med(lp.decode) };
  await context.dispose();
}
await model.dispose();
console.log(JSON.stringify(out));
