"""Ablations of a real model with transformers hooks: the one Python implementation of switching a
part off, replacing it by its mean, or patching it from another run, and of the measurements built
on them (a sweep over parts, direct logit attribution, attention patterns and what heads look at).
The browser's counterpart is docs/js/real/sweep.js over docs/js/real/engine.js; the parity tests
compare the two (tests/real/test_ablation_smollm2.py).

Parts (layers and heads count from 0):
    ("head", layer, head)   one attention head: its slice of the output projection's input (z)
    ("mlp", layer)          one block's MLP: its output, added to the residual stream
    ("attn", layer)         every head of one block (the block's whole attention)
Modes, each an `Ablation(parts, mode, means=None, source=None)`:
    "zero"   the part's output is replaced by zeros (today's knock-out; the engine's opts.knockout)
    "mean"   by its mean output over a stated set of prompts (`Means`, from `means()`): the same
             vector at every position
    "patch"  position by position, by its output in another run of the same length (`Capture`, from
             `capture()` of that run): the part then carries the other prompt's information
A target is one token, or two for a logit difference: `Target((id,))` or `Target((a, b))`.

    capture(model, ids) -> Capture        every head's z and MLP's output at every position, the logits
    means(model, id_lists) -> Means       each head's z and MLP's output averaged over every position
    means_record(Means) -> dict, means_from_record(dict) -> Means: the shipped form (base64 float32)
    last_logits(model, ids, ablation=None) -> numpy float64 (vocab,): the last position's logits
    all_logits(model, ids, ablation=None) -> numpy float64 (T, vocab): every position's logits
    batch_logits(model, ids, ablations, chunk=64) -> (len(ablations), vocab): one batched pass per chunk,
                                          batch row i with ablations[i] applied (None: the plain run)
    metric(logits, target) -> dict        {"value", "prob", "logit", "rank"} (one token; value = prob) or
                                          {"value", "diff", "probs", "logits", "ranks"} (a pair; value = diff)
    sweep(model, ids, target, parts=None, mode="zero", means=None, source=None, progress=None) ->
        {"base": metric, "rows": [{"part", "metric", "delta"}]}: each part alone, delta = value - base value
    all_parts(model, attn=False) -> every head (block-major), then every MLP, then (attn) every block's attention
    target_lens(model, ids, target) -> [metric of the target read off the stream after each block (0: the
                                          embedding) through the final norm and the unembedding]
    direct_logits(model, ids, target) -> each head's, MLP's and the embedding's direct contribution to the
                                          target's logit at the last position (see its docstring: the
                                          final norm's scale is held at the whole pass's value)
    attention_patterns(model, ids) -> numpy (n_layer, n_head, T, T): every head's weights, query x key
    head_kinds(patterns, ids) -> (n_layer, n_head, 5) shares and the kind of each head (KINDS)

Every pass is float32 eager attention with no cache, as scripts/real/measurements.py measures.
Llama blocks (SmolLM2) and GPT-2 blocks both work, except `direct_logits` (RMSNorm models only).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from scripts.core.io import StageError

KINDS = ("first", "self", "previous", "induction", "other")


# ---- the model's parts ---------------------------------------------------------------------------

def blocks(model):
    """The transformer blocks of a llama-style (model.layers) or GPT-2 (transformer.h) model."""
    base = getattr(model, "model", None) or model.transformer
    return base.layers if hasattr(base, "layers") else base.h


def final_norm(model):
    base = getattr(model, "model", None) or model.transformer
    return base.norm if hasattr(base, "norm") else base.ln_f


def out_proj(block):
    """The attention's output projection, whose input is every head's z side by side."""
    return block.self_attn.o_proj if hasattr(block, "self_attn") else block.attn.c_proj


def shape(model) -> tuple[int, int, int, int]:
    """(n_layer, n_head, head size, n_embd) from the model's config."""
    c = model.config
    n_head = getattr(c, "num_attention_heads", None) or c.n_head
    n_embd = getattr(c, "hidden_size", None) or c.n_embd
    n_layer = getattr(c, "num_hidden_layers", None) or c.n_layer
    return n_layer, n_head, n_embd // n_head, n_embd


def all_parts(model, attn: bool = False) -> list[tuple]:
    n_layer, n_head, _, _ = shape(model)
    out: list[tuple] = [("head", l, h) for l in range(n_layer) for h in range(n_head)]
    out += [("mlp", l) for l in range(n_layer)]
    if attn:
        out += [("attn", l) for l in range(n_layer)]
    return out


def check_part(model, part: Sequence) -> tuple:
    n_layer, n_head, _, _ = shape(model)
    kind = part[0] if part else None
    ok = kind in ("head", "mlp", "attn") and len(part) == (3 if kind == "head" else 2) and \
        all(isinstance(x, int) for x in part[1:]) and 0 <= part[1] < n_layer and (kind != "head" or 0 <= part[2] < n_head)
    if not ok:
        raise StageError(f"ablation part {tuple(part)} is not (\"head\", layer 0-{n_layer - 1}, head 0-{n_head - 1}), "
                         f"(\"mlp\", layer) or (\"attn\", layer)")
    return tuple(part)


def part_name(part: Sequence) -> str:
    """A part as the pages name it (blocks and heads from 1)."""
    if part[0] == "head":
        return f"block {part[1] + 1}, head {part[2] + 1}"
    return f"block {part[1] + 1}'s {'MLP' if part[0] == 'mlp' else 'attention'}"


# ---- what a run keeps, what an ablation replaces --------------------------------------------------

@dataclass
class Capture:
    """One run's parts: z[layer] (T, n_head, head size) and mlp[layer] (T, n_embd), float32; its ids and
    last-position logits (float64)."""
    ids: list[int]
    z: list[np.ndarray]
    mlp: list[np.ndarray]
    logits: np.ndarray


@dataclass
class Means:
    """Each part's mean output over `positions` positions of the prompts it was taken on:
    z[layer] (n_head, head size), mlp[layer] (n_embd)."""
    z: list[np.ndarray]
    mlp: list[np.ndarray]
    positions: int
    prompts: list[str] = field(default_factory=list)


@dataclass
class Ablation:
    parts: list[tuple]
    mode: str = "zero"
    means: Means | None = None
    source: Capture | None = None

    def check(self, model, T: int) -> None:
        self.parts = [check_part(model, p) for p in self.parts]
        if self.mode not in ("zero", "mean", "patch"):
            raise StageError(f"ablation mode {self.mode!r} is not zero, mean or patch")
        if self.mode == "mean" and self.means is None:
            raise StageError("a mean ablation needs the parts' means (ablation.means)")
        if self.mode == "patch":
            if self.source is None:
                raise StageError("a patch needs the run it copies from (ablation.capture of it)")
            if len(self.source.ids) != T:
                raise StageError(f"a patch copies position by position: its source has {len(self.source.ids)} tokens, this prompt {T}")

    def replacements(self, model, T: int) -> tuple[dict, dict]:
        """{layer: [(head, (T, hd) array)]} and {layer: (T, n_embd) array}: what each part becomes."""
        n_layer, n_head, hd, n_embd = shape(model)
        heads: dict[int, list] = {}
        mlps: dict[int, np.ndarray] = {}
        for part in self.parts:
            kind, layer = part[0], part[1]
            if kind == "mlp":
                if self.mode == "zero":
                    mlps[layer] = np.zeros((T, n_embd), np.float32)
                elif self.mode == "mean":
                    mlps[layer] = np.broadcast_to(self.means.mlp[layer], (T, n_embd))
                else:
                    mlps[layer] = self.source.mlp[layer]
                continue
            for h in ([part[2]] if kind == "head" else range(n_head)):
                if self.mode == "zero":
                    r = np.zeros((T, hd), np.float32)
                elif self.mode == "mean":
                    r = np.broadcast_to(self.means.z[layer][h], (T, hd))
                else:
                    r = self.source.z[layer][:, h, :]
                heads.setdefault(layer, []).append((h, r))
        return heads, mlps


def _hooks(model, T: int, rows: list[tuple[int, Ablation]]) -> list:
    """Forward hooks applying each (batch row, ablation); returns the handles to remove."""
    import torch

    _, _, hd, _ = shape(model)
    per_layer_heads: dict[int, list] = {}
    per_layer_mlp: dict[int, list] = {}
    for b, ab in rows:
        heads, mlps = ab.replacements(model, T)
        for layer, reps in heads.items():
            per_layer_heads.setdefault(layer, []).extend((b, h, torch.from_numpy(np.ascontiguousarray(r, np.float32))) for h, r in reps)
        for layer, r in mlps.items():
            per_layer_mlp.setdefault(layer, []).append((b, torch.from_numpy(np.ascontiguousarray(r, np.float32))))
    handles = []
    for layer, block in enumerate(blocks(model)):
        if layer in per_layer_heads:
            def pre(m, args, reps=per_layer_heads[layer]):
                x = args[0].clone()
                for b, h, r in reps:
                    x[b, :, h * hd:(h + 1) * hd] = r
                return (x,) + tuple(args[1:])
            handles.append(out_proj(block).register_forward_pre_hook(pre))
        if layer in per_layer_mlp:
            def post(m, args, out, reps=per_layer_mlp[layer]):
                out = out.clone()
                for b, r in reps:
                    out[b] = r
                return out
            handles.append(block.mlp.register_forward_hook(post))
    return handles


def _run(model, batch_ids, hooks_rows, T: int, **kw):
    import torch

    handles = _hooks(model, T, hooks_rows)
    try:
        with torch.no_grad():
            return model(torch.tensor(batch_ids), use_cache=False, **kw)
    finally:
        for h in handles:
            h.remove()


def last_logits(model, ids: list[int], ablation: Ablation | None = None) -> np.ndarray:
    """The last position's logits (float64) with `ablation` applied (None: the plain run)."""
    return batch_logits(model, ids, [ablation])[0]


def all_logits(model, ids: list[int], ablation: Ablation | None = None) -> np.ndarray:
    """Every position's logits (T, vocab), float64, with `ablation` applied (None: the plain run)."""
    if ablation is not None:
        ablation.check(model, len(ids))
    out = _run(model, [ids], [(0, ablation)] if ablation is not None else [], len(ids))
    return out.logits[0].double().numpy()


def batch_logits(model, ids: list[int], ablations: Sequence[Ablation | None], chunk: int = 64) -> np.ndarray:
    """The last position's logits for each ablation (None: none), `chunk` runs in one batched pass.
    On a llama model the runs are grouped by the first block they change, and each group starts at
    that block from the plain run's stream (the blocks before it compute the same either way)."""
    T = len(ids)
    for ab in ablations:
        if ab is not None:
            ab.check(model, T)
    out = np.zeros((len(ablations), 0))
    if not len(ablations):
        return out
    if not hasattr(getattr(model, "model", None), "rotary_emb"):  # GPT-2: every run from the start
        rows = []
        for start in range(0, len(ablations), chunk):
            group = ablations[start:start + chunk]
            res = _run(model, [ids] * len(group), [(b, ab) for b, ab in enumerate(group) if ab is not None], T)
            rows.append(res.logits[:, -1].double().numpy())
        return np.concatenate(rows)
    streams = _streams(model, ids)
    first = [min(p[1] for p in ab.parts) if ab is not None and ab.parts else 0 for ab in ablations]
    got: dict[int, np.ndarray] = {}
    for layer in sorted(set(first)):
        which = [i for i, f in enumerate(first) if f == layer]
        for start in range(0, len(which), chunk):
            group = which[start:start + chunk]
            logits = _tail(model, streams[layer], layer, len(group), [(b, ablations[i]) for b, i in enumerate(group) if ablations[i] is not None], T)
            for b, i in enumerate(group):
                got[i] = logits[b]
    return np.stack([got[i] for i in range(len(ablations))])


def _streams(model, ids: list[int]) -> list:
    """The plain run's residual stream entering each block: (1, T, n_embd) each."""
    import torch

    seen: list = []
    handles = [b.register_forward_pre_hook(lambda m, args: seen.append(args[0].detach().clone())) for b in blocks(model)]
    try:
        with torch.no_grad():
            model.model(torch.tensor([ids]), use_cache=False)
    finally:
        for h in handles:
            h.remove()
    return seen


def _tail(model, stream, layer: int, B: int, hooks_rows, T: int) -> np.ndarray:
    """Blocks `layer`.. of a llama model on B copies of `stream` (the residual entering that block),
    with the hooks of hooks_rows applied, then the final norm and the unembedding: (B, vocab) of the
    last position. The decoder layers are called as LlamaModel.forward calls them."""
    import torch
    from transformers.masking_utils import create_causal_mask

    base = model.model
    handles = _hooks(model, T, hooks_rows)
    try:
        with torch.no_grad():
            pos = torch.arange(T).unsqueeze(0)
            hidden = stream.expand(B, -1, -1).contiguous()
            mask = create_causal_mask(config=model.config, inputs_embeds=hidden, attention_mask=None,
                                      past_key_values=None, position_ids=pos)
            pe = base.rotary_emb(hidden, position_ids=pos)
            for block in base.layers[layer:]:
                hidden = block(hidden, attention_mask=mask, position_embeddings=pe, position_ids=pos,
                               past_key_values=None, use_cache=False)
            return model.lm_head(base.norm(hidden[:, -1])).double().numpy()
    finally:
        for h in handles:
            h.remove()


def capture(model, ids: list[int]) -> Capture:
    """Every head's z (the output projection's input, per head) and every MLP's output, at every position."""
    import torch

    _, n_head, hd, _ = shape(model)
    z: list = []
    mlp: list = []
    handles = []
    for block in blocks(model):
        handles.append(out_proj(block).register_forward_pre_hook(
            lambda m, args: z.append(args[0][0].detach().float().numpy().reshape(len(ids), n_head, hd).copy())))
        handles.append(block.mlp.register_forward_hook(
            lambda m, args, out: mlp.append(out[0].detach().float().numpy().copy())))
    try:
        with torch.no_grad():
            out = model(torch.tensor([ids]), use_cache=False)
    finally:
        for h in handles:
            h.remove()
    return Capture(ids=list(ids), z=z, mlp=mlp, logits=out.logits[0, -1].double().numpy())


def means(model, id_lists: Iterable[list[int]], names: Sequence[str] = ()) -> Means:
    """Each head's z and each MLP's output averaged over every position of every prompt (float64 sums)."""
    zs = mlps = None
    n = 0
    for ids in id_lists:
        c = capture(model, ids)
        if zs is None:
            zs = [np.zeros(a.shape[1:]) for a in c.z]
            mlps = [np.zeros(a.shape[1:]) for a in c.mlp]
        for l in range(len(c.z)):
            zs[l] += c.z[l].astype(np.float64).sum(axis=0)
            mlps[l] += c.mlp[l].astype(np.float64).sum(axis=0)
        n += len(ids)
    if not n:
        raise StageError("means need at least one prompt")
    return Means(z=[(a / n).astype(np.float32) for a in zs], mlp=[(a / n).astype(np.float32) for a in mlps],
                 positions=n, prompts=list(names))


def means_record(m: Means) -> dict[str, Any]:
    """The means as the browser reads them (real.sweep's means): float32 arrays in base64, layer-major."""
    import base64

    z = np.stack(m.z).astype("<f4")      # (n_layer, n_head, hd)
    mlp = np.stack(m.mlp).astype("<f4")  # (n_layer, n_embd)
    return {"n_layer": int(z.shape[0]), "n_head": int(z.shape[1]), "d_head": int(z.shape[2]), "n_embd": int(mlp.shape[1]),
            "prompts": list(m.prompts), "positions": m.positions,
            "z": base64.b64encode(z.tobytes()).decode("ascii"), "mlp": base64.b64encode(mlp.tobytes()).decode("ascii")}


def means_from_record(rec: dict) -> Means:
    import base64

    L, H, hd, C = rec["n_layer"], rec["n_head"], rec["d_head"], rec["n_embd"]
    z = np.frombuffer(base64.b64decode(rec["z"]), "<f4").reshape(L, H, hd)
    mlp = np.frombuffer(base64.b64decode(rec["mlp"]), "<f4").reshape(L, C)
    return Means(z=list(z), mlp=list(mlp), positions=rec["positions"], prompts=list(rec["prompts"]))


# ---- targets and their metric --------------------------------------------------------------------

@dataclass(frozen=True)
class Target:
    """One token id (its probability is the value) or two (the logit difference first - second is)."""
    ids: tuple[int, ...]

    def __post_init__(self):
        if len(self.ids) not in (1, 2) or (len(self.ids) == 2 and self.ids[0] == self.ids[1]):
            raise StageError(f"a target is one token or two different ones, not {self.ids}")


def _log_softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max()
    return x - np.log(np.exp(x).sum())


def metric(logits: np.ndarray, target: Target) -> dict[str, Any]:
    """The target's numbers in one logit vector; rank 1 is the most likely token."""
    logits = np.asarray(logits, np.float64)
    lp = _log_softmax(logits)
    ranks = [int((logits > logits[i]).sum()) + 1 for i in target.ids]
    if len(target.ids) == 1:
        i = target.ids[0]
        return {"value": float(np.exp(lp[i])), "prob": float(np.exp(lp[i])), "logit": float(logits[i]), "rank": ranks[0]}
    a, b = target.ids
    return {"value": float(logits[a] - logits[b]), "diff": float(logits[a] - logits[b]),
            "probs": [float(np.exp(lp[a])), float(np.exp(lp[b]))], "logits": [float(logits[a]), float(logits[b])], "ranks": ranks}


def sweep(model, ids: list[int], target: Target, parts: Sequence[tuple] | None = None, mode: str = "zero",
          means: Means | None = None, source: Capture | None = None,
          progress: Callable[[int, int], None] | None = None, chunk: int = 64) -> dict[str, Any]:
    """Each part ablated alone (mode zero, mean or patch), the target's metric after, and its change."""
    parts = list(parts) if parts is not None else all_parts(model)
    base = metric(last_logits(model, ids), target)
    rows = []
    for start in range(0, len(parts), chunk):
        group = parts[start:start + chunk]
        got = batch_logits(model, ids, [Ablation([p], mode, means, source) for p in group], chunk=chunk)
        for p, lg in zip(group, got):
            m = metric(lg, target)
            rows.append({"part": list(p), "metric": m, "delta": m["value"] - base["value"]})
        if progress:
            progress(min(start + chunk, len(parts)), len(parts))
    return {"base": base, "rows": rows, "mode": mode}


# ---- direct logit attribution --------------------------------------------------------------------

def direct_logits(model, ids: list[int], target: Target) -> dict[str, Any]:
    """Each part's direct contribution to the target's logit (or to the pair's difference) at the last
    position: its output vector there, times the final norm's scale, dotted with the target's row of
    the unembedding. The approximation: the final RMSNorm divides the whole stream by its root mean
    square; that divisor is taken from the whole pass and held fixed, so the parts' contributions
    plus the embedding's add up to the logit, but a part's effect through later blocks (and through
    the divisor) is left out.
    Returns {"embedding": float, "heads": (n_layer, n_head), "mlp": (n_layer,), "logit": float (the
    pass's own value), "scale": float (1 / rms of the final stream)}."""
    import torch

    norm = final_norm(model)
    if getattr(norm, "bias", None) is not None:
        raise StageError("direct_logits reads an RMSNorm model (SmolLM2); this one normalises with LayerNorm")
    n_layer, n_head, hd, n_embd = shape(model)
    cap = capture(model, ids)
    with torch.no_grad():
        emb = model.get_input_embeddings().weight[ids[-1]].double().numpy()
        unembed = model.get_output_embeddings().weight.double().numpy()
        gamma = norm.weight.double().numpy()
        eps = getattr(norm, "variance_epsilon", None) or getattr(norm, "eps", 1e-5)
        w_o = [out_proj(b).weight.double().numpy() for b in blocks(model)]  # (n_embd, n_embd): out x in
    heads = np.zeros((n_layer, n_head, n_embd))
    for l in range(n_layer):
        z = cap.z[l][-1].astype(np.float64)  # (n_head, hd) at the last position
        for h in range(n_head):
            heads[l, h] = w_o[l][:, h * hd:(h + 1) * hd] @ z[h]
    mlp = np.stack([m[-1].astype(np.float64) for m in cap.mlp])
    stream = emb + heads.sum(axis=(0, 1)) + mlp.sum(axis=0)
    scale = 1.0 / np.sqrt(np.mean(stream ** 2) + eps)
    row = unembed[target.ids[0]] - (unembed[target.ids[1]] if len(target.ids) == 2 else 0)
    u = gamma * row * scale
    logit = metric(cap.logits, target)
    return {"embedding": float(emb @ u), "heads": heads @ u, "mlp": mlp @ u, "scale": float(scale),
            "logit": logit["value"] if len(target.ids) == 2 else logit["logit"]}


def target_lens(model, ids: list[int], target: Target) -> list[dict[str, Any]]:
    """The target's numbers read off the stream at the last position through the final norm and the
    unembedding (the logit lens): row 0 the embedding, row l the stream after block l."""
    import torch

    rows: list = []
    handles = [blocks(model)[0].register_forward_pre_hook(lambda m, args: rows.append(args[0][0, -1].detach().clone()))]
    handles += [b.register_forward_hook(lambda m, a, out: rows.append((out[0] if isinstance(out, tuple) else out)[0, -1].detach().clone()))
                for b in blocks(model)]
    try:
        with torch.no_grad():
            model(torch.tensor([ids]), use_cache=False)
            logits = [model.get_output_embeddings()(final_norm(model)(r)).double().numpy() for r in rows]
    finally:
        for h in handles:
            h.remove()
    return [{"layer": l} | metric(lg, target) for l, lg in enumerate(logits)]


# ---- where heads look ----------------------------------------------------------------------------

def attention_patterns(model, ids: list[int]) -> np.ndarray:
    """Every head's attention weights, (n_layer, n_head, T query, T key), float64."""
    import torch

    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True, use_cache=False)
    return np.stack([a[0].double().numpy() for a in out.attentions])


def kind_masks(ids: Sequence[int]) -> np.ndarray:
    """(5, T, T) masks of the keys each query position's kinds cover, one kind per key (the first that
    applies, in KINDS order): the first token, the query itself, the token before it, the token after
    an earlier occurrence of the query's token (induction), every other key."""
    T = len(ids)
    m = np.zeros((len(KINDS), T, T), bool)
    for i in range(T):
        for j in range(i + 1):
            if j == 0:
                k = 0
            elif j == i:
                k = 1
            elif j == i - 1:
                k = 2
            elif ids[j - 1] == ids[i]:
                k = 3
            else:
                k = 4
            m[k, i, j] = True
    return m


def head_kinds(patterns: np.ndarray, ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """What each head looks at: (n_layer, n_head, 5) shares of its attention on each kind of key
    (KINDS), averaged over the query positions after the first where that kind of key exists (the
    first position sees only itself), and (n_layer, n_head) the index of each head's kind: the
    largest share, except that a share under a third makes the head "other"."""
    m = kind_masks(ids)
    n_layer, n_head, T, _ = patterns.shape
    shares = np.zeros((n_layer, n_head, len(KINDS)))
    for k in range(len(KINDS)):
        rows = [i for i in range(1, T) if m[k, i].any()]
        if rows:
            shares[:, :, k] = (patterns[:, :, rows, :] * m[k, rows][None, None]).sum(axis=-1).mean(axis=-1)
    kind = shares.argmax(axis=-1)
    kind[shares.max(axis=-1) < 1 / 3] = KINDS.index("other")
    return shares, kind
