"""Stage 2: train the tiny model on the corpus.

Produces build/tiny/train.pt: final weights, weight snapshots along the way and the loss curve.
Full-batch Adam on the 12 sentences, seeded and single-threaded so that one machine gives the
same bytes every time. Every position predicts its next token at once; the causal mask inside
attention keeps each position from seeing its answer.
"""
from __future__ import annotations

import os
import time

import numpy as np
import torch
import torch.nn.functional as F

from scripts.core.io import BUILD, StageError, rel, run_main
from scripts.tiny.model import TinyConfig, TinyGPT
from scripts.tiny import settings
from scripts.tiny.tokenizer import load_tokenizer

CHECKPOINT = BUILD / "tiny" / "train.pt"
IGNORE = -1


def make_batch(tok, lines: list[str], n_ctx: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs are a sentence's tokens, targets the same shifted by one and ending in end-of-text.

    Shorter sentences are padded at the end; padded targets are ignored by the loss, and the
    causal mask keeps padding from reaching earlier positions.
    """
    rows = []
    for line in lines:
        ids = tok.encode(line) + [tok.eot_id]
        if len(ids) > n_ctx:  # settings.load() has said why already; this guards direct callers
            raise StageError(f"sentence {line!r} needs {len(ids)} tokens with its end marker; n_ctx is {n_ctx}")
        rows.append(ids)
    width = max(len(r) for r in rows) - 1
    x = torch.full((len(rows), width), tok.eot_id, dtype=torch.long)
    y = torch.full((len(rows), width), IGNORE, dtype=torch.long)
    for i, ids in enumerate(rows):
        x[i, : len(ids) - 1] = torch.tensor(ids[:-1])
        y[i, : len(ids) - 1] = torch.tensor(ids[1:])
    return x, y


def snapshot_steps(steps: int, n: int) -> list[int]:
    """Roughly geometric steps, so the fast early fall of the loss gets most snapshots."""
    picked = sorted({0, steps, *np.unique(np.round(np.geomspace(1, steps, n - 1)).astype(int)).tolist()})
    while len(picked) < n:  # geomspace rounding collides early on; fill with evenly spaced steps
        gaps = [(b - a, a, b) for a, b in zip(picked, picked[1:])]
        _, a, b = max(gaps)
        picked = sorted({*picked, (a + b) // 2})
    return picked[:n - 1] + [steps] if len(picked) > n else picked


def train(cfg: TinyConfig, tcfg: dict, lines: list[str], tok) -> dict:
    torch.manual_seed(tcfg["seed"])
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    model = TinyGPT(cfg)
    model.init_weights(tcfg["init_std"])
    x, y = make_batch(tok, lines, cfg.n_ctx)
    opt = torch.optim.Adam(model.parameters(), lr=tcfg["lr"], betas=tuple(tcfg["betas"]))
    keep = set(snapshot_steps(tcfg["steps"], tcfg["n_snapshots"]))
    snapshots, losses = [], []

    def loss_now() -> torch.Tensor:
        logits = model(x)
        return F.cross_entropy(logits.reshape(-1, cfg.vocab_size), y.reshape(-1), ignore_index=IGNORE)

    start = time.perf_counter()
    for step in range(tcfg["steps"] + 1):
        loss = loss_now()
        losses.append(loss.item())
        if step in keep:
            snapshots.append({"step": step, "loss": loss.item(),
                              "state": {k: v.detach().clone() for k, v in model.state_dict().items()}})
        if step == tcfg["steps"]:
            break
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    seconds = time.perf_counter() - start
    return {"state": model.state_dict(), "snapshots": snapshots, "losses": losses, "seconds": seconds}


def load_checkpoint(path=CHECKPOINT) -> dict:
    if not os.path.exists(path):
        raise StageError(f"{rel(path)}: file not found (run `python -m scripts.tiny.checkpoint` first)")
    try:
        return torch.load(path, weights_only=False)
    except Exception as exc:  # torch raises many types for a damaged file
        raise StageError(f"{rel(path)}: corrupt checkpoint ({exc})") from None


def main() -> None:
    s = settings.load()
    cfg = TinyConfig(**s.model)
    tok = load_tokenizer()
    if tok.vocab != s.tokenizer.vocab:
        raise StageError("site_data/tiny/tokenizer.json is not the tokenizer the corpus gives: run the tokenizer step first")
    lines = s.corpus
    config = s.raw
    result = train(cfg, config["training"], lines, tok)
    result["config"] = config
    CHECKPOINT.parent.mkdir(parents=True, exist_ok=True)
    tmp = CHECKPOINT.with_suffix(".pt.tmp")
    torch.save(result, tmp)
    os.replace(tmp, CHECKPOINT)
    print(f"train: {config['training']['steps']} steps in {result['seconds']:.1f} s, "
          f"loss {result['losses'][0]:.3f} -> {result['losses'][-1]:.3f}, {len(result['snapshots'])} snapshots")


if __name__ == "__main__":
    run_main(main)
