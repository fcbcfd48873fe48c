"""The reader's model, sized by the reader's corpus: the Python definition the browser follows.

docs/js/runtime/corpus.js (sizes, the learner) and trainer.js (starting weights) implement the
same rules; tests/tiny/test_sized_parity.py checks them against this module and PyTorch.

- vocabulary: end-of-text + the corpus's characters + merges (the rule of tokenizer.learn_bpe)
  until every pre-token is one token, or VOCAB_CAP;
- context: the longest sentence's tokens with its end marker, at most CTX_CAP;
- width, heads, MLP and layers: the built model's;
- starting weights: a seeded generator with integer arithmetic only (mulberry32), normals as the
  sum of 12 uniforms minus 6 (exact in float64), scaled by init_std: no library random numbers and
  no transcendental functions, so Python and JavaScript agree bit for bit.
"""
from __future__ import annotations

import collections

from scripts.tiny.tokenizer import _merge_pair, chunks

VOCAB_CAP = 256
CTX_CAP = 16
MASK = 0xFFFFFFFF


def learn_until_merged(lines: list[str], cap: int = VOCAB_CAP) -> dict:
    """{chars, merges, capped}: learn_bpe's merges (same pair counts, same first-seen tie rule),
    stopping when no pre-token has two symbols left or the vocabulary reaches cap."""
    counts = collections.Counter(c for line in lines for c in chunks(line))
    chars = sorted({ch for chunk in counts for ch in chunk})
    words = {chunk: list(chunk) for chunk in counts}
    merges: list[tuple[str, str]] = []
    capped = False
    while True:
        pairs: collections.Counter = collections.Counter()
        for chunk, n in counts.items():
            symbols = words[chunk]
            for pair in zip(symbols, symbols[1:]):
                pairs[pair] += n
        if not pairs:
            break
        if 1 + len(chars) + len(merges) >= cap:
            capped = True
            break
        best = max(pairs.values())
        a, b = next(p for p, n in pairs.items() if n == best)
        merges.append((a, b))
        words = {chunk: _merge_pair(symbols, a, b) for chunk, symbols in words.items()}
    return {"chars": chars, "merges": merges, "capped": capped}


def model_sizes(built: dict, vocab_size: int, n_ctx: int) -> dict:
    """The built model's config with the corpus's vocabulary and context."""
    return dict(built, vocab_size=vocab_size, n_ctx=n_ctx)


class Mulberry32:
    """mulberry32 on unsigned 32-bit integers; trainer.js's seededWeights uses the same steps."""

    def __init__(self, seed: int):
        self.state = seed & MASK

    def next_u32(self) -> int:
        self.state = (self.state + 0x6D2B79F5) & MASK
        z = self.state
        z = ((z ^ (z >> 15)) * (z | 1)) & MASK
        z = (z ^ ((z + (((z ^ (z >> 7)) * (z | 61)) & MASK)) & MASK)) & MASK
        return (z ^ (z >> 14)) & MASK

    def normal(self) -> float:
        """Irwin-Hall: the sum of 12 uniforms k / 2**32 minus 6 (mean 0, variance 1); every partial
        sum is exact in float64."""
        s = 0.0
        for _ in range(12):
            s += self.next_u32() / 4294967296.0
        return s - 6.0


def seeded_weights(cfg: dict, seed: int, std: float) -> dict:
    """Starting weights in the nested layout of weights.json (float64): normal(0, std) weights and
    embeddings, zero biases, unit LayerNorm gains, drawn in that layout's order (row-major)."""
    rng = Mulberry32(seed)
    C, F, V, T = cfg["n_embd"], cfg["d_mlp"], cfg["vocab_size"], cfg["n_ctx"]

    def normal(rows: int, cols: int) -> list[list[float]]:
        return [[std * rng.normal() for _ in range(cols)] for _ in range(rows)]

    def linear(n_out: int, n_in: int) -> dict:
        return {"weight": normal(n_out, n_in), "bias": [0.0] * n_out}

    def norm() -> dict:
        return {"weight": [1.0] * C, "bias": [0.0] * C}

    wte = normal(V, C)
    wpe = normal(T, C)
    h = []
    for _ in range(cfg["n_layer"]):
        ln_1 = norm()
        attn = {"c_attn": linear(3 * C, C), "c_proj": linear(C, C)}
        ln_2 = norm()
        mlp = {"c_fc": linear(F, C), "c_proj": linear(C, F)}
        h.append({"ln_1": ln_1, "attn": attn, "ln_2": ln_2, "mlp": mlp})
    return {"wte": wte, "wpe": wpe, "h": h, "ln_f": norm()}
