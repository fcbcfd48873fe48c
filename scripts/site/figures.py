"""Draw the site's figures from site_data/ into docs/assets/figures/ (SVG) with alt text in alt.json.

    python -m scripts.site.figures [--out DIR]

Needs only matplotlib and numpy (the site build may run without torch). Output is byte-for-byte
reproducible: fixed hash salt, no date metadata, text kept as text (drawn in the page's sans-serif).
Backgrounds are transparent, and each figure is drawn twice: `name.svg` with dark ink for the light
scheme and `name-dark.svg` with light ink for the dark one (the page shows the one of its scheme). Colours are Okabe-Ito (orange/blue, colour-blind safe) and cividis.
Each figure's alt text is made from the same numbers it draws; a figure whose data this build does
not have (GPT-2's head grid without measured weights) is skipped and alt.json says why.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import numpy as np  # noqa: E402

from scripts.core.io import ROOT, SITE_DATA, StageError, read_json, rel, run_main, write_text_atomic  # noqa: E402
from scripts.real.page_variables import load_real_models  # noqa: E402
from scripts.tiny.tokenizer import show  # noqa: E402

OUT = ROOT / "docs" / "assets" / "figures"
# Ink (text, axes, ticks) per page scheme: near the theme's own text colours, each over 7:1 on its background.
VARIANTS = {"": "#333333", "-dark": "#d5d8de"}
ORANGE, BLUE, SKY, VERMILLION = "#E69F00", "#0072B2", "#56B4E9", "#D55E00"
NAMES = {"gpt2": "GPT-2 small", "smollm2": "SmolLM2-135M-Instruct"}

matplotlib.rcParams.update({
    "svg.hashsalt": "nexttoken",
    # Text stays text (the page's sans-serif draws it): files a fraction of the size of glyph paths.
    "svg.fonttype": "none",
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "figure.facecolor": "none", "axes.facecolor": "none", "savefig.transparent": True,
    "axes.spines.top": False, "axes.spines.right": False,
    "path.simplify": True,  # drops points that change nothing at this size (deterministic)
})


def ink_params(ink: str) -> dict:
    return {"text.color": ink, "axes.labelcolor": ink, "axes.edgecolor": ink, "xtick.color": ink,
            "ytick.color": ink, "axes.titlecolor": ink}


def ink() -> str:
    return matplotlib.rcParams["text.color"]


class Out:
    """Where figures go, and the scheme variant being drawn (a suffix to each file's name)."""

    def __init__(self, path: Path, suffix: str = "") -> None:
        self.path, self.suffix = path, suffix


def save(fig, out: Out, name: str) -> None:
    path = out.path / f"{name}{out.suffix}.svg"
    fig.savefig(path, format="svg", metadata={"Date": None}, bbox_inches="tight")
    plt.close(fig)


def top_bars(out: Out, name: str, model: str, bars: list[dict], status: str, prompt: str) -> str:
    bars = [b for b in bars if "prob" in b]
    fig, ax = plt.subplots(figsize=(6, 0.35 * len(bars) + 1))
    y = np.arange(len(bars))[::-1]
    ax.barh(y, [b["prob"] * 100 for b in bars], color=ORANGE)
    ax.set_yticks(y, [show(b["token"]) for b in bars])
    for yi, b in zip(y, bars):
        ax.text(b["prob"] * 100, yi, f" {b['prob']:.1%}", va="center")
    ax.set_xlabel("probability of coming next (%)")
    ax.set_title(f"{NAMES[model]} after “{prompt}” ({status})")
    save(fig, out, name)
    listed = ", ".join(f"“{b['token'].strip()}” {b['prob']:.1%}" for b in bars)
    return f"Bar chart, {NAMES[model]} ({status}): the most likely next tokens after “{prompt}”: {listed}."


def temperatures(out: Out, toy: dict) -> str:
    scores = toy["scores"]
    rows = sorted(toy["by_temperature"], key=lambda r: r["t"])
    fig, ax = plt.subplots(figsize=(6, 3))
    width = 0.8 / len(rows)
    colours = [VERMILLION, ORANGE, SKY]
    for i, r in enumerate(rows):
        x = np.arange(len(scores)) + (i - (len(rows) - 1) / 2) * width
        ax.bar(x, [p * 100 for p in r["probs"]], width, label=f"T = {r['t']:g}", color=colours[i % len(colours)])
    ax.set_xticks(range(len(scores)), [f"score {s:g}" for s in scores])
    ax.set_ylabel("probability (%)")
    ax.legend(frameon=False, labelcolor=ink())
    ax.set_title("Softmax of the same scores at three temperatures")
    save(fig, out, "softmax_temperatures")
    parts = "; ".join(f"T = {r['t']:g}: " + ", ".join(f"{p:.1%}" for p in r["probs"]) for r in rows)
    return (f"Grouped bar chart: softmax of the scores {', '.join(f'{s:g}' for s in scores)} at three "
            f"temperatures ({parts}). Lower temperature sharpens, higher flattens.")


def head_grid(out: Out, name: str, model: str, grid: list[list[float]], sink: dict, prompt: str) -> str:
    g = np.asarray(grid)
    fig, ax = plt.subplots(figsize=(0.3 * g.shape[1] + 2, 0.18 * g.shape[0] + 1.2))
    im = ax.imshow(g, cmap="cividis", vmin=0, vmax=1, aspect="auto", interpolation="nearest")
    ax.set_xlabel("head")
    ax.set_ylabel("layer")
    # heads and layers are counted from one on every page (the data count from zero)
    ax.set_xticks(range(g.shape[1]), [str(h + 1) for h in range(g.shape[1])])
    rows = range(0, g.shape[0], 1 if g.shape[0] <= 12 else 5)
    ax.set_yticks(rows, [str(r + 1) for r in rows])
    cb = fig.colorbar(im, ax=ax)
    cb.set_label("weight on the first token")
    cb.outline.set_edgecolor(ink())
    ax.set_title(f"{NAMES[model]}: last token's attention to the first")
    save(fig, out, name)
    return (f"Grid of {g.shape[0]} layers by {g.shape[1]} heads of {NAMES[model]} for “{prompt}”, each cell "
            f"coloured by how much of the last token's attention goes to the first token: {sink['count']} of "
            f"{sink['of']} heads put more than {sink['threshold']:.0%} there (an attention sink).")


def kv_cache(out: Out, c: dict) -> str:
    """Multiply-adds of one decode step at context length n, with and without a KV cache (GPT-2 small).

    Per token and layer the projections cost 4*d^2 (q, k, v, out) and the MLP 2*d*d_ff; attending
    over n positions costs 2*n*d (scores and the weighted sum); the logits cost V*d for the last
    token. Without a cache the step recomputes all n tokens (causal attention: sum of 1..n).
    """
    d, L, V = c["d_model"], c["n_layer"], c["vocab_size"]
    ff = c["d_ff"]
    n = np.arange(1, c["n_ctx"] + 1, dtype=np.float64)
    per_token = L * (4 * d * d + 2 * d * ff)
    cached = per_token + L * 2 * n * d + V * d
    uncached = n * per_token + L * 2 * d * n * (n + 1) / 2 + V * d
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(n, uncached / 1e9, color=VERMILLION, label="without KV cache (recompute every token)")
    ax.plot(n, cached / 1e9, color=BLUE, label="with KV cache (one new token)")
    ax.set_xlabel("tokens in the context")
    ax.set_ylabel("multiply-adds per step (billions)")
    ax.legend(frameon=False, labelcolor=ink())
    ax.set_title(f"Cost of one decode step, GPT-2 small shape ({L} layers, d = {d})")
    save(fig, out, "kv_cache_cost")
    return (f"Line chart: multiply-adds for one decode step of a model shaped like GPT-2 small, as the context "
            f"grows to {c['n_ctx']:,} tokens. With a KV cache the step stays near {cached[0] / 1e9:.2f} billion "
            f"({cached[-1] / 1e9:.2f} billion at {c['n_ctx']:,}); without it the cost grows with the length, to "
            f"{uncached[-1] / 1e9:.0f} billion at {c['n_ctx']:,} tokens, {uncached[-1] / cached[-1]:.0f} times more.")


def loss_curve(out: Out, training: dict) -> str:
    loss = training["loss_curve"]
    snaps = [s["step"] for s in training["snapshots"]]
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.plot(range(len(loss)), loss, color=BLUE, label="training loss")
    ax.plot(snaps, [loss[s] for s in snaps], "o", ms=3.5, color=ORANGE, label="saved snapshots")
    ax.set_xscale("symlog", linthresh=10)  # the loss falls fastest early, where most snapshots are
    ax.set_xlim(0, len(loss) - 1)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("training step (linear to 10, log scale above)")
    ax.set_ylabel("loss: mean cross-entropy (nats)")
    ax.legend(frameon=False, labelcolor=ink())
    ax.set_title("The tiny model learning its 12 sentences" if training.get("n_train_sentences") == 12
                 else "The tiny model learning")
    save(fig, out, "tiny_loss_curve")
    return (f"Line chart: the tiny model's training loss falls from {loss[0]:.2f} at step 0 to {loss[-1]:.2f} "
            f"after {len(loss) - 1:,} {training['optimizer']} steps; dots mark the {len(snaps)} saved snapshots "
            f"replayed in the training view.")


def tiny_attention(out: Out, traces: list[dict], prompts: list[str]) -> str:
    by_prompt = {t["prompt"]: t for t in traces}
    missing = [p for p in prompts if p not in by_prompt]
    if missing:
        raise StageError(f"{rel(SITE_DATA / 'tiny/traces.json')}: no trace for {missing}")
    n_head = len(by_prompt[prompts[0]]["h"][0]["attn_weights"])
    fig, axes = plt.subplots(len(prompts), n_head, figsize=(3 * n_head + 1, 3.3 * len(prompts)),
                             gridspec_kw={"hspace": 0.55, "wspace": 0.35})
    alt = []
    for r, p in enumerate(prompts):
        t = by_prompt[p]
        for h in range(n_head):
            w = np.asarray(t["h"][0]["attn_weights"][h])
            ax = axes[r][h]
            im = ax.imshow(w, cmap="cividis", vmin=0, vmax=1, interpolation="nearest")
            ax.set_xticks(range(len(t["tokens"])), t["tokens"], rotation=45, ha="right")
            ax.set_yticks(range(len(t["tokens"])), t["tokens"])
            ax.set_title(f"“{p}”, head {h + 1}", fontsize=9)
            last = w[-1]
            k, k2 = (int(i) for i in np.argsort(-last)[:2])
            alt.append(f"for “{p}” head {h + 1} sends {last[k]:.1%} of the last token's attention to {t['tokens'][k]}"
                       f" and {last[k2]:.1%} to {t['tokens'][k2]}")
    fig.colorbar(im, ax=axes, shrink=0.6, label="attention weight").outline.set_edgecolor(ink())
    save(fig, out, "tiny_attention")
    return ("Heat maps of the tiny model's two attention heads (rows: the token looking, columns: the token "
            "looked at; later positions are masked): " + "; ".join(alt) + ".")


def cumulative(out: Out, name: str, model: str, cum: list[float], top_p: dict, prompt: str) -> str:
    ranks = np.arange(1, len(cum) + 1)
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.plot(ranks, cum, color=BLUE)
    ax.axhline(top_p["p"], color=ink(), lw=0.8, ls="--")
    ax.axvline(top_p["kept"], color=ORANGE, lw=1.2)
    ax.text(top_p["kept"], 0.05, f" top-p {top_p['p']:g} keeps {top_p['kept']:,}", color=ORANGE)
    ax.set_xscale("log")
    ax.set_ylim(0, 1)
    ax.set_xlabel("tokens, most likely first (log scale)")
    ax.set_ylabel("cumulative probability")
    ax.set_title(f"{NAMES[model]} after “{prompt}”")
    save(fig, out, name)
    return (f"Curve of cumulative probability against rank for {NAMES[model]} after “{prompt}”: the top token "
            f"holds {cum[0]:.1%}, and {top_p['kept']:,} tokens are needed to reach {top_p['p']:g}, where top-p cuts.")


def logit_hist(out: Out, name: str, model: str, logits: dict, prompt: str) -> str:
    h = logits["histogram"]
    edges = np.asarray(h["edges"])
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.bar(edges[:-1], h["counts"], width=h["bin_width"], align="edge", color=SKY, edgecolor="none")
    ax.set_yscale("log")
    ax.set_xlabel("logit")
    ax.set_ylabel("tokens (log scale)")
    ax.set_title(f"{NAMES[model]}: all {logits['n']:,} logits after “{prompt}”")
    save(fig, out, name)
    return (f"Histogram of the {logits['n']:,} logits {NAMES[model]} gives after “{prompt}”: they lie between "
            f"{logits['min']:.1f} and {logits['max']:.1f} (mean {logits['mean']:.1f}); only the few at the far "
            f"right get visible probability.")


def draw_all(out: Path, site_data: Path = SITE_DATA) -> dict[str, str]:
    out.mkdir(parents=True, exist_ok=True)
    alt: dict[str, str] = {}
    for suffix, colour in VARIANTS.items():
        with matplotlib.rc_context(ink_params(colour)):
            alt = draw_variant(Out(out, suffix), site_data)
    write_text_atomic(out / "alt.json", json.dumps(alt, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
    return alt


def draw_variant(out: Out, site_data: Path) -> dict[str, str]:
    """Every figure in the current ink; returns the alt texts (the same for both variants)."""
    ctx = load_real_models(site_data)
    summary = read_json(site_data / "tiny" / "summary.json")
    alt: dict[str, str] = {}
    measured, heads = {}, {}
    for model in ("gpt2", "smollm2"):
        path = site_data / model / "measurements.json"
        if path.exists():
            m = read_json(path)
            measured[model] = next(p for p in m["prompts"] if p["key"] == m["main_prompt"])
            # every head's weight on the first token, stored once, with the prompt's whole distribution
            dist = read_json(site_data / model / "distributions" / f"{m['main_prompt']}.json")
            heads[model] = [layer["first"] for layer in dist["attention"]["layers"]]
    for model in ("gpt2", "smollm2"):
        bars = ctx[model]["top_bars"]
        prompt = measured[model]["text"] if model in measured else "The cat sat on the"
        alt[f"top_bars_{model}"] = top_bars(out, f"top_bars_{model}", model, bars["value"], bars["status"], prompt)
    alt["softmax_temperatures"] = temperatures(out, summary["toy_softmax"])
    for model in ("gpt2", "smollm2"):
        if model in measured:
            p = measured[model]
            alt[f"sink_grid_{model}"] = head_grid(out, f"sink_grid_{model}", model, heads[model], p["sink_heads"], p["text"])
            alt[f"cumulative_{model}"] = cumulative(out, f"cumulative_{model}", model, p["cumulative"], p["top_p"], p["text"])
            alt[f"logit_histogram_{model}"] = logit_hist(out, f"logit_histogram_{model}", model, p["logits"], p["text"])
        else:
            for fig in ("sink_grid", "cumulative", "logit_histogram"):
                alt[f"{fig}_{model}"] = f"unavailable: {NAMES[model]} was not measured by this build (no weights)"
    alt["kv_cache_cost"] = kv_cache(out, {k: v["value"] for k, v in ctx["gpt2"]["config"].items()})
    alt["tiny_loss_curve"] = loss_curve(out, read_json(site_data / "tiny" / "training.json"))
    alt["tiny_attention"] = tiny_attention(out, read_json(site_data / "tiny" / "traces.json")["traces"],
                                           summary["roles"]["subject"])
    return alt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT, help="output folder (default docs/assets/figures)")
    args = ap.parse_args()
    alt = draw_all(args.out)
    drawn = sum(not a.startswith("unavailable") for a in alt.values())
    print(f"figures: {drawn} drawn, {len(alt) - drawn} unavailable, in {rel(args.out)}")


if __name__ == "__main__":
    run_main(main)
