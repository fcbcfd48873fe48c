"""Facts the pages quote that are derived from site_data while the site builds (not stored there):
corpus counts, the corpus's loss floor, embedding similarities, the initial values, decode cost.
Each check that the data and this account agree stops the build with a PluginError."""
from __future__ import annotations

import itertools
import math
from collections import Counter

from mkdocs.exceptions import PluginError

from scripts.core.shapes import gpt2_param_breakdown
from scripts.tiny.tokenizer import Tokenizer, learn_bpe, show


def encode(tok: dict, text: str) -> list[str]:
    """Text -> tokens as the pages show them (' cat' -> '·cat'), by the tokenizer itself."""
    t = Tokenizer.from_json(tok)
    return [t.show(i) for i in t.encode(text)]


def merge_counts(tok: dict, corpus: list[str], n: int) -> list[dict]:
    """The first n merges as the tokenizer learned them: how often each pair stood side by side, and in
    which words. Relearned with the tokenizer's own loop; merges that differ from tokenizer.json stop the build."""
    trace: list = []
    _, merges = learn_bpe(corpus, len(tok["vocab"]), trace)
    if [list(m) for m in merges] != [list(m) for m in tok["merges"]]:
        raise PluginError("numbers hook: relearning the merges from the corpus does not give tokenizer.json's")
    return [{"merge": [show(a) for a in t["pair"]], "count": t["count"], "words": sorted(show(c) for c in t["chunks"])}
            for t in trace[:n]]


def corpus_floor(sequences: list[list[str]]) -> dict:
    """The lowest mean loss any model can reach on the corpus: the entropy of the corpus's own next-token choices.

    Each sequence is a sentence's tokens followed by end-of-text, scored as training scores it (every
    position predicts the next token from the tokens before it in its sentence; the mean runs over all
    predictions). For each prefix, the best possible prediction is how often each token follows it in
    the corpus; scoring every target by that frequency gives the floor."""
    after = Counter()
    prefixes = Counter()
    for seq in sequences:
        for i in range(1, len(seq)):
            prefixes[tuple(seq[:i])] += 1
            after[tuple(seq[:i + 1])] += 1
    losses = [-math.log(after[tuple(seq[:i + 1])] / prefixes[tuple(seq[:i])])
              for seq in sequences for i in range(1, len(seq))]
    return {"loss": sum(losses) / len(losses), "n_predictions": len(losses),
            "n_uncertain": sum(1 for x in losses if x > 0)}


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def wte_similarity(wte: list[list[float]], vocab: list[str], words: list[str], a: str, b: str) -> dict:
    """Cosine similarity of trained token-embedding rows: the two subjects `a` and `b` (·cat, ·dog), the
    mean over every pair of the corpus's word tokens, and the words nearest to `a`."""
    row = {show(t): wte[i] for i, t in enumerate(vocab)}
    pairs = [cosine(row[x], row[y]) for x, y in itertools.combinations(words, 2)]
    near = sorted(((cosine(row[a], row[w]), w) for w in words if w != a), reverse=True)
    return {"cat_dog": cosine(row[a], row[b]), "mean": sum(pairs) / len(pairs),
            "n_words": len(words), "nearest_to_cat": [{"token": w, "cos": c} for c, w in near[:3]]}


def tied_rows(summary: dict, traces: dict, wte: list[list[float]], vocab: list[str]) -> dict:
    """Why the tied table keeps the subject prompts' answers apart (·mat and ·rug): each answer's logit
    is the final vector · its row, so the gap between the two logits is the final vector · the
    difference of the rows. Per subject prompt: both logits and the pick's probability (from its
    trace); and the two rows' cosine against the two subjects' (·cat, ·dog)."""
    names = [show(v) for v in vocab]
    prompts = summary["roles"]["subject"]
    picks = [summary["picks"][p] for p in prompts]
    a, b = picks[0]["id"], picks[1]["id"]
    if a == b:
        raise PluginError(f"numbers hook: the subject prompts {prompts} both pick {names[a]}; the embeddings page needs two answers")
    subjects = [traces[p]["ids"][summary["roles"]["subject_position"]] for p in prompts]
    rows = []
    for p, pick in zip(prompts, picks):
        logits = traces[p]["logits"][-1]
        if max(range(len(logits)), key=logits.__getitem__) != pick["id"]:
            raise PluginError(f"numbers hook: the trace of {p!r} does not pick {pick['token']} as summary.json says")
        rows.append({"prompt": p, "subject": names[traces[p]["ids"][summary["roles"]["subject_position"]]],
                     "logit_a": logits[a], "logit_b": logits[b], "gap": logits[a] - logits[b], "prob": pick["prob"]})
    return {"a": names[a], "b": names[b], "cos": cosine(wte[a], wte[b]), "subject_cos": cosine(wte[subjects[0]], wte[subjects[1]]),
            "subjects": [names[i] for i in subjects], "prompts": rows}


def init_values(snapshot: dict) -> dict:
    """What training starts from, read off the step-0 snapshot: every bias's value and every LayerNorm gain's."""
    if snapshot["step"] != 0:
        raise PluginError(f"numbers hook: the first snapshot is step {snapshot['step']}, not the initial weights")
    w = snapshot["weights"]
    norms = [blk[k] for blk in w["h"] for k in ("ln_1", "ln_2")] + [w["ln_f"]]
    linears = [blk[part][k] for blk in w["h"] for part, k in
               (("attn", "c_attn"), ("attn", "c_proj"), ("mlp", "c_fc"), ("mlp", "c_proj"))]
    biases = {x for p in norms + linears for x in p["bias"]}
    gains = {x for p in norms for x in p["weight"]}
    if len(biases) != 1 or len(gains) != 1:
        raise PluginError(f"numbers hook: initial biases {sorted(biases)[:3]} or LayerNorm gains {sorted(gains)[:3]} are not all equal")
    return {"bias": biases.pop(), "ln_gain": gains.pop()}


def decode_cost(c: dict) -> dict:
    """Multiply-adds of one cached decode step at context length n for a model shaped like `c`, as in
    scripts/site/figures.py's kv_cache figure: projections 4*d^2 and MLP 2*d*d_mlp per layer and token,
    attention over n cached rows 2*n*d per layer, logits V*d. Returns how much a step at the end of the
    window costs against one at its start, and the length where attention's share equals the rest of a layer."""
    d, L, V, ff, T = c["n_embd"], c["n_layer"], c["vocab_size"], c["d_mlp"], c["n_ctx"]

    def step(n: int) -> float:
        return L * (4 * d * d + 2 * d * ff) + L * 2 * n * d + V * d

    return {"growth": step(T) / step(1), "crossover": (4 * d * d + 2 * d * ff) // (2 * d)}


def derived_facts(cfg: dict, summary: dict, training: dict) -> dict:
    """Small derived numbers (counts over the corpus, snapshot totals) that the prose quotes."""
    corpus = cfg["corpus"]
    lead = summary["roles"]["verbs"].split()  # the prompt whose next words the verbs fact counts
    after_the_cat = Counter()
    for s in corpus:
        words = s.rstrip(".").split()
        for i in range(len(words) - len(lead)):
            if words[i:i + len(lead)] == lead:
                after_the_cat[words[i + len(lead)]] += 1
    words = sorted({w for s in corpus for w in s.rstrip(".").split()})
    snaps = training["snapshots"]
    m = cfg["model"]
    d, L, V, T, F = m["n_embd"], m["n_layer"], m["vocab_size"], m["n_ctx"], m["d_mlp"]
    params = gpt2_param_breakdown(V, T, d, L, F)
    if sum(params.values()) != m["n_params"]:
        raise PluginError(f"numbers hook: parameter breakdown {params} does not add up to n_params {m['n_params']}")
    # softmax of the toy scores worked by hand, checked against the build's own numbers at T = 1
    toy = summary["toy_softmax"]
    exps = [math.exp(z) for z in toy["scores"]]
    by_hand = [e / sum(exps) for e in exps]
    at_1 = next(e["probs"] for e in toy["by_temperature"] if e["t"] == 1)
    if any(abs(a - b) > 1e-6 for a, b in zip(by_hand, at_1)):
        raise PluginError(f"numbers hook: softmax by hand {by_hand} differs from summary.json's {at_1}")
    starts = Counter(s.split()[1] for s in corpus if s.split()[0] == "the")
    corpus_set = set(corpus)
    fp = training["final_positions"]
    seen = [p["mean"] for p in fp if p["sentence"] in corpus_set]
    unseen = [p for p in fp if p["sentence"] not in corpus_set]
    return {
        "params": params,
        "after_first_the": dict(starts.most_common()),
        "n_start_the": sum(starts.values()),
        "final_seen_mean": sum(seen) / len(seen),
        "final_unseen_mean": sum(p["mean"] for p in unseen) / len(unseen),
        "final_unseen": unseen,
        "final_seen": [p for p in fp if p["sentence"] in corpus_set],
        "n_sentences": len(corpus),
        "after_the_cat": dict(after_the_cat.most_common()),
        "after_the_cat_total": sum(after_the_cat.values()),
        "corpus_words": words,
        "n_corpus_words": len(words),
        "n_snapshots": len(snaps),
        "loss_drop": snaps[0]["corpus_loss"] - snaps[-1]["corpus_loss"],
        "toy_by_hand": {"exps": exps, "total": sum(exps), "probs": by_hand},
    }


def corpus_facts(cfg: dict, summary: dict, tok: dict, training: dict, wte: list) -> dict:
    """Facts about the corpus and the trained rows, computed with the tokenizer replayed here."""
    corpus = cfg["corpus"]
    seqs = [encode(tok, s) + [tok["eot"]] for s in corpus]
    by_sentence = {p["sentence"]: p["targets"] for p in training["final_positions"]}
    for s, seq in zip(corpus, seqs):
        if by_sentence.get(s) != seq[1:]:
            raise PluginError(f"numbers hook: the tokenizer replay gives {seq} for {s!r}; training scored {by_sentence.get(s)}")
    merged = {a + b for a, b in tok["merges"]}
    special = [show(v) for v in tok["vocab"] if v not in tok["chars"] and v not in merged]
    if len(tok["chars"]) + len(tok["merges"]) + len(special) != len(tok["vocab"]):
        raise PluginError("numbers hook: characters + merges + special tokens do not make the vocabulary")
    words = sorted({t for seq in seqs for t in seq if t.startswith("·") and len(t) > 1})
    roles = summary["roles"]
    subjects = [encode(tok, p)[roles["subject_position"]] for p in roles["subject"]]  # ·cat, ·dog
    return {
        "corpus_tokens": seqs,
        "special_tokens": special,
        "first_merge_counts": merge_counts(tok, corpus, len(summary["first_merges"])),
        "floor": corpus_floor(seqs),
        "similarity": wte_similarity(wte, tok["vocab"], words, *subjects),
        "init": init_values(training["snapshots"][0]),
    }


