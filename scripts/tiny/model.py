"""The tiny GPT-2-shaped model, in forward-pass order (after nanoGPT's model.py).

Names match GPT-2 and the JS runtime: wte, wpe, h[i].ln_1, attn.c_attn, attn.c_proj, ln_2,
mlp.c_fc, mlp.c_proj, ln_f; the output layer reuses wte (tied embeddings).

Every module can fill a `trace` dict with its intermediates; the export stage writes those
traces to site_data so the browser runtime can be checked against them number by number.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TinyConfig:
    vocab_size: int = 58
    n_ctx: int = 8
    n_embd: int = 8
    n_layer: int = 1
    n_head: int = 2
    d_mlp: int = 32
    ln_eps: float = 1e-5

    @property
    def d_head(self) -> int:
        return self.n_embd // self.n_head


def _put(trace: dict | None, key: str, value: torch.Tensor) -> None:
    if trace is not None:
        trace[key] = value.detach()


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg: TinyConfig):
        super().__init__()
        assert cfg.n_embd % cfg.n_head == 0
        self.n_head = cfg.n_head
        self.c_attn = nn.Linear(cfg.n_embd, 3 * cfg.n_embd)  # q, k, v for all heads at once
        self.c_proj = nn.Linear(cfg.n_embd, cfg.n_embd)  # Wo: mixes the joined heads
        self.register_buffer("mask", torch.tril(torch.ones(cfg.n_ctx, cfg.n_ctx, dtype=torch.bool)))

    def forward(self, x: torch.Tensor, trace: dict | None = None) -> torch.Tensor:
        B, T, C = x.shape
        hs = C // self.n_head
        q, k, v = self.c_attn(x).split(C, dim=2)  # each (B, T, C)
        q = q.view(B, T, self.n_head, hs).transpose(1, 2)  # (B, nh, T, hs)
        k = k.view(B, T, self.n_head, hs).transpose(1, 2)  # (B, nh, T, hs)
        v = v.view(B, T, self.n_head, hs).transpose(1, 2)  # (B, nh, T, hs)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(hs)  # (B, nh, T, T)
        masked = scores.masked_fill(~self.mask[:T, :T], float("-inf"))  # causal: only look back
        weights = F.softmax(masked, dim=-1)  # (B, nh, T, T), each row sums to 1
        heads = weights @ v  # (B, nh, T, hs)
        joined = heads.transpose(1, 2).contiguous().view(B, T, C)  # (B, T, C): heads side by side
        out = self.c_proj(joined)
        for key, val in (("q", q), ("k", k), ("v", v), ("scores", scores), ("masked_scores", masked),
                         ("attn_weights", weights), ("head_out", heads), ("attn_out", out)):
            _put(trace, key, val)
        return out


class MLP(nn.Module):
    def __init__(self, cfg: TinyConfig):
        super().__init__()
        self.c_fc = nn.Linear(cfg.n_embd, cfg.d_mlp)
        self.c_proj = nn.Linear(cfg.d_mlp, cfg.n_embd)

    def forward(self, x: torch.Tensor, trace: dict | None = None) -> torch.Tensor:
        pre = self.c_fc(x)  # (B, T, d_mlp)
        hidden = F.gelu(pre, approximate="tanh")  # GPT-2's "gelu_new"
        out = self.c_proj(hidden)  # (B, T, C)
        _put(trace, "mlp_pre", pre)
        _put(trace, "mlp_hidden", hidden)
        _put(trace, "mlp_out", out)
        return out


class Block(nn.Module):
    """Pre-LayerNorm transformer block: x + attn(ln_1(x)), then x + mlp(ln_2(x))."""

    def __init__(self, cfg: TinyConfig):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.n_embd, eps=cfg.ln_eps)
        self.attn = CausalSelfAttention(cfg)
        self.ln_2 = nn.LayerNorm(cfg.n_embd, eps=cfg.ln_eps)
        self.mlp = MLP(cfg)

    def forward(self, x: torch.Tensor, trace: dict | None = None) -> torch.Tensor:
        h = self.ln_1(x)
        _put(trace, "ln_1", h)
        x = x + self.attn(h, trace)
        _put(trace, "resid_mid", x)
        h = self.ln_2(x)
        _put(trace, "ln_2", h)
        x = x + self.mlp(h, trace)
        _put(trace, "resid_post", x)
        return x


class TinyGPT(nn.Module):
    def __init__(self, cfg: TinyConfig):
        super().__init__()
        self.cfg = cfg
        self.wte = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.wpe = nn.Embedding(cfg.n_ctx, cfg.n_embd)
        self.h = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.ln_f = nn.LayerNorm(cfg.n_embd, eps=cfg.ln_eps)

    def init_weights(self, std: float) -> None:
        """GPT-2-style init (normal weights, zero biases, unit LayerNorm), scaled for d_model 8."""
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(p)
            elif ".ln_" in name or name.startswith("ln_"):
                nn.init.ones_(p)
            else:
                nn.init.normal_(p, 0.0, std)

    def forward(self, idx: torch.Tensor, trace: dict | None = None) -> torch.Tensor:
        B, T = idx.shape
        if T > self.cfg.n_ctx:
            raise ValueError(f"{T} tokens do not fit the context window of {self.cfg.n_ctx}")
        tok = self.wte(idx)  # (B, T, C)
        pos = self.wpe(torch.arange(T, device=idx.device))  # (T, C)
        x = tok + pos  # (B, T, C): the residual stream starts here
        _put(trace, "wte", tok)
        _put(trace, "wpe", pos)
        _put(trace, "x", x)
        blocks = []
        for block in self.h:
            block_trace = {} if trace is not None else None
            x = block(x, block_trace)
            blocks.append(block_trace)
        if trace is not None:
            trace["h"] = blocks
        x = self.ln_f(x)
        _put(trace, "ln_f", x)
        logits = x @ self.wte.weight.T  # (B, T, vocab): compare with every token's embedding
        _put(trace, "logits", logits)
        _put(trace, "probs", F.softmax(logits, dim=-1))
        return logits

    def n_params(self) -> int:
        return sum(p.numel() for p in self.parameters())


# ---- the site_data layout: weights nested by module name, Linear weights (out, in) --------------------
LINEARS = ("ln_1", "attn.c_attn", "attn.c_proj", "ln_2", "mlp.c_fc", "mlp.c_proj")


def nested_weights(state: dict, cfg: TinyConfig) -> dict:
    """State dict -> the nested layout of site_data/tiny/weights.json, which the JS runtime reads."""
    def lin(prefix: str) -> dict:
        return {"weight": state[f"{prefix}.weight"].tolist(), "bias": state[f"{prefix}.bias"].tolist()}

    return {
        "wte": state["wte.weight"].tolist(),
        "wpe": state["wpe.weight"].tolist(),
        "h": [
            {
                "ln_1": lin(f"h.{i}.ln_1"),
                "attn": {"c_attn": lin(f"h.{i}.attn.c_attn"), "c_proj": lin(f"h.{i}.attn.c_proj")},
                "ln_2": lin(f"h.{i}.ln_2"),
                "mlp": {"c_fc": lin(f"h.{i}.mlp.c_fc"), "c_proj": lin(f"h.{i}.mlp.c_proj")},
            }
            for i in range(cfg.n_layer)
        ],
        "ln_f": lin("ln_f"),
    }


def state_from_nested(w: dict, dtype=torch.float32) -> dict[str, torch.Tensor]:
    """The inverse of nested_weights: weights.json's layout -> a state dict (without the mask buffers)."""
    state = {"wte.weight": w["wte"], "wpe.weight": w["wpe"],
             "ln_f.weight": w["ln_f"]["weight"], "ln_f.bias": w["ln_f"]["bias"]}
    for i, blk in enumerate(w["h"]):
        for name in LINEARS:
            part = blk
            for key in name.split("."):
                part = part[key]
            state[f"h.{i}.{name}.weight"] = part["weight"]
            state[f"h.{i}.{name}.bias"] = part["bias"]
    return {k: torch.tensor(v, dtype=dtype) for k, v in state.items()}


def from_site_data(config: dict, weights: dict) -> TinyGPT:
    """site_data/tiny/config.json and weights.json -> the model in eval mode (float32)."""
    cfg = TinyConfig(**{k: v for k, v in config["model"].items() if k in TinyConfig.__dataclass_fields__})
    model = TinyGPT(cfg)
    result = model.load_state_dict(state_from_nested(weights["weights"]), strict=False)
    if [k for k in result.missing_keys if not k.endswith("mask")] or result.unexpected_keys:
        raise ValueError(f"weights do not fit the model: {result}")
    return model.eval()
