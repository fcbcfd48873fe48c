"""Draw the site's figures from site_data/ into docs/assets/figures/ (SVG) with alt text in alt.json.

    python -m scripts.site.figures [--out DIR]

Needs only matplotlib and numpy (the site build may run without torch). Output is byte-for-byte
reproducible: fixed hash salt, no date metadata, text kept as text (drawn in the page's sans-serif).
Backgrounds are transparent, and each figure is drawn twice: `name.svg` with dark ink for the light
scheme and `name-dark.svg` with light ink for the dark one (the page shows the one of its scheme). Colours,
fonts and axes are the site's (STYLE.md): the values' orange/blue pair of each scheme (Okabe-Ito, colour-blind
safe), grids of weights shaded from the page's paper to the positive value (as the demos' heat maps), the
page's sans, no top/right spines, a faint grid along the values.
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
# Per page scheme: the ink (text, axes, ticks; near the theme's own text colours, each over 7:1 on its
# background) and the values' pair, the same as docs/css/nexttoken.css's --nt-pos / --nt-neg (STYLE.md).
VARIANTS = {
    "": {"ink": "#333333", "pos": "#d55e00", "neg": "#0072b2", "mid": "#8a8f98", "paper": "#fcfbf8"},
    "-dark": {"ink": "#d5d8de", "pos": "#f28e2b", "neg": "#56b4e9", "mid": "#8a8f98", "paper": "#181a20"},
}
PALETTE = dict(VARIANTS[""])  # the variant being drawn (draw_all switches it)
NAMES = {"gpt2": "GPT-2 small", "smollm2": "SmolLM2-135M-Instruct"}

matplotlib.rcParams.update({
    "svg.hashsalt": "nexttoken",
    # Text stays text (the page's sans-serif draws it): files a fraction of the size of glyph paths.
    "svg.fonttype": "none",
    # The page's sans: DejaVu (matplotlib's own, so the layout is the same on every machine) where it is
    # installed, as it is the system font there, else the reader's system sans.
    "font.family": ["sans-serif"],
    "font.sans-serif": ["DejaVu Sans", "Segoe UI", "Roboto", "Helvetica Neue", "Liberation Sans"],
    "font.size": 10, "axes.titlesize": 10.5, "axes.titleweight": "bold", "axes.titlelocation": "left",
    "axes.labelsize": 9.5, "xtick.labelsize": 9, "ytick.labelsize": 9,
    "axes.linewidth": 0.8, "xtick.major.width": 0.8, "ytick.major.width": 0.8,
    "xtick.major.size": 3, "ytick.major.size": 3, "legend.fontsize": 9,
    "axes.grid": True, "axes.grid.axis": "y", "grid.linewidth": 0.6, "grid.alpha": 0.25, "axes.axisbelow": True,
    "figure.facecolor": "none", "axes.facecolor": "none", "savefig.transparent": True,
    "axes.spines.top": False, "axes.spines.right": False,
    "path.simplify": True,  # drops points that change nothing at this size (deterministic)
})


def ink_params(ink: str) -> dict:
    return {"text.color": ink, "axes.labelcolor": ink, "axes.edgecolor": ink, "xtick.color": ink,
            "ytick.color": ink, "axes.titlecolor": ink, "grid.color": ink}


def pos() -> str:
    return PALETTE["pos"]


def neg() -> str:
    return PALETTE["neg"]


def ink() -> str:
    return matplotlib.rcParams["text.color"]


def framed(ax) -> None:
    """A grid of weights boxed all round: its cells at 0 are the page's paper, so its edges need a line."""
    for side in ("top", "right"):
        ax.spines[side].set_visible(True)


def weights_map() -> matplotlib.colors.Colormap:
    """A weight from 0 to 1: the page's paper at 0 (nothing there), the positive value at 1 (STYLE.md)."""
    return matplotlib.colors.LinearSegmentedColormap.from_list("nt-weights", [PALETTE["paper"], PALETTE["pos"]])


class Out:
    """Where figures go, and the scheme variant being drawn (a suffix to each file's name)."""

    def __init__(self, path: Path, suffix: str = "") -> None:
        self.path, self.suffix = path, suffix


def save(fig, out: Out, name: str, tight: bool = True) -> None:
    """tight=False keeps the figure's own size: charts shown side by side keep one scale."""
    path = out.path / f"{name}{out.suffix}.svg"
    fig.savefig(path, format="svg", metadata={"Date": None}, bbox_inches="tight" if tight else None)
    plt.close(fig)


# The top-bars charts' frame, in inches: the same for both models.
BARS_W_IN, LEFT_IN, ROW_IN, TOP_IN, BOTTOM_IN = 6.0, 1.05, 0.32, 0.42, 0.58


def top_bars(out: Out, name: str, model: str, bars: list[dict], status: str, prompt: str, top: float) -> str:
    """The most likely next tokens as bars. The two models' charts sit side by side on a page, so both are
    drawn at one width, with the same margins, row height and axis up to `top` percent: a bar is as thick and
    as long for the same probability in either. A token whose probability the source did not publish keeps
    its row, named, with no bar and a note saying so."""
    rows = len(bars)
    height = ROW_IN * rows + TOP_IN + BOTTOM_IN
    fig, ax = plt.subplots(figsize=(BARS_W_IN, height))
    fig.subplots_adjust(left=LEFT_IN / BARS_W_IN, right=1 - 0.25 / BARS_W_IN, top=1 - TOP_IN / height,
                        bottom=BOTTOM_IN / height)
    y = np.arange(rows)[::-1]
    known = [(yi, b) for yi, b in zip(y, bars) if "prob" in b]
    ax.barh([yi for yi, _ in known], [b["prob"] * 100 for _, b in known], color=pos(), height=0.7)
    ax.set_yticks(y, [show(b["token"]) for b in bars])
    for yi, b in zip(y, bars):
        if "prob" in b:
            ax.text(b["prob"] * 100, yi, f" {b['prob']:.1%}", va="center", fontsize=9)
        else:
            ax.text(0, yi, " probability not published", va="center", fontsize=9, fontstyle="italic")
    ax.set_ylim(-0.6, rows - 0.4)
    ax.set_xlim(0, top)
    ax.grid(axis="x")
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("probability of coming next (%)")
    ax.set_title(f"{NAMES[model]} after “{prompt}” ({status})",
                 x=-(LEFT_IN - 0.1) / (BARS_W_IN - LEFT_IN - 0.25))  # from the figure's left edge
    save(fig, out, name, tight=False)
    listed = ", ".join(f"“{b['token'].strip()}” {b['prob']:.1%}" for b in bars if "prob" in b)
    unpublished = [b["token"].strip() for b in bars if "prob" not in b]
    rest = (f"; then {', '.join(f'“{t}”' for t in unpublished)}, whose probabilities were not published"
            if unpublished else "")
    return f"Bar chart, {NAMES[model]} ({status}): the most likely next tokens after “{prompt}”: {listed}{rest}."


def temperatures(out: Out, toy: dict) -> str:
    scores = toy["scores"]
    rows = sorted(toy["by_temperature"], key=lambda r: r["t"])
    fig, ax = plt.subplots(figsize=(6, 3))
    width = 0.8 / len(rows)
    colours = [neg(), PALETTE["mid"], pos()]  # cold to hot
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
    im = ax.imshow(g, cmap=weights_map(), vmin=0, vmax=1, aspect="auto", interpolation="nearest")
    ax.grid(False)
    framed(ax)
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


def kv_cost(c: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Multiply-adds of one decode step at context length n = 1..n_ctx, with and without a KV cache.

    Per token and layer the projections cost 4*d^2 (q, k, v, out) and the MLP 2*d*d_mlp; attending
    over n positions costs 2*n*d (scores and the weighted sum); the logits cost V*d for the last
    token. Without a cache the step recomputes all n tokens (causal attention: sum of 1..n).
    """
    d, L, V, ff = c["n_embd"], c["n_layer"], c["vocab_size"], c["d_mlp"]
    n = np.arange(1, c["n_ctx"] + 1, dtype=np.float64)
    per_token = L * (4 * d * d + 2 * d * ff)
    cached = per_token + L * 2 * n * d + V * d
    uncached = n * per_token + L * 2 * d * n * (n + 1) / 2 + V * d
    return n, cached, uncached


def kv_axes(both, alone, c: dict) -> None:
    """Left, the two costs on a log axis (labelled so); right, the cached step alone on a zero-based axis.
    On one linear axis up to the uncached step's hundreds of billions the cached line lay flat on zero, and
    the growth the page quotes for it (facts.decode.growth) could not be seen."""
    n, cached, uncached = kv_cost(c)
    both.plot(n, uncached / 1e9, color=pos(), label="without KV cache\n(recompute every token)")
    both.plot(n, cached / 1e9, color=neg(), label="with KV cache\n(one new token)")
    both.set_yscale("log")
    both.set_ylim(cached.min() / 1e9 / 4, uncached.max() / 1e9 * 3)
    both.set_xlim(0, n[-1])
    both.set_xlabel("tokens in the context")
    both.set_ylabel("multiply-adds per step\n(billions, log scale)")
    both.legend(frameon=False, labelcolor=ink(), loc="upper left")
    both.set_title("Both, on a log scale")
    alone.plot(n, cached / 1e9, color=neg())
    alone.set_ylim(0, cached.max() / 1e9 * 1.15)
    alone.set_xlim(0, n[-1])
    alone.set_xlabel("tokens in the context")
    alone.set_ylabel("billions, from zero")
    alone.set_title(f"With the cache: × {cached[-1] / cached[0]:.2f}")


def kv_cache(out: Out, c: dict) -> str:
    n, cached, uncached = kv_cost(c)
    fig, (both, alone) = plt.subplots(1, 2, figsize=(7.6, 3.2), gridspec_kw={"width_ratios": [1.35, 1], "wspace": 0.45})
    kv_axes(both, alone, c)
    fig.suptitle(f"Cost of one decode step, GPT-2 small shape ({c['n_layer']} layers, d = {c['n_embd']})",
                 x=0.06, ha="left", fontweight="bold", fontsize=10.5, y=1.04)
    save(fig, out, "kv_cache_cost")
    return (f"Two line charts of the multiply-adds for one decode step of a model shaped like GPT-2 small, as the "
            f"context grows to {c['n_ctx']:,} tokens. On a log scale, both: without a KV cache the cost grows with "
            f"the length, to {uncached[-1] / 1e9:.0f} billion at {c['n_ctx']:,} tokens, {uncached[-1] / cached[-1]:.0f} "
            f"times the cached step. From zero, the cached step alone: from {cached[0] / 1e9:.2f} billion to "
            f"{cached[-1] / 1e9:.2f} billion, {cached[-1] / cached[0]:.2f} times.")


def loss_curve(out: Out, training: dict) -> str:
    loss = training["loss_curve"]
    snaps = [s["step"] for s in training["snapshots"]]
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.plot(range(len(loss)), loss, color=neg(), label="training loss")
    ax.plot(snaps, [loss[s] for s in snaps], "o", ms=3.5, color=pos(), label="saved snapshots")
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
            im = ax.imshow(w, cmap=weights_map(), vmin=0, vmax=1, interpolation="nearest")
            ax.grid(False)
            framed(ax)
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
    ax.plot(ranks, cum, color=neg())
    ax.axhline(top_p["p"], color=ink(), lw=0.8, ls="--")
    ax.axvline(top_p["kept"], color=pos(), lw=1.2)
    ax.text(top_p["kept"], 0.05, f" top-p {top_p['p']:g} keeps {top_p['kept']:,}", color=ink())
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
    ax.bar(edges[:-1], h["counts"], width=h["bin_width"], align="edge", color=neg(), edgecolor="none")
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
    for suffix, colours in VARIANTS.items():
        PALETTE.update(colours)
        with matplotlib.rc_context(ink_params(colours["ink"])):
            alt = draw_variant(Out(out, suffix), site_data)
    PALETTE.update(VARIANTS[""])
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
    top = 1.25 * max(b.get("prob", 0) * 100 for m in ("gpt2", "smollm2") for b in ctx[m]["top_bars"]["value"])
    for model in ("gpt2", "smollm2"):
        bars = ctx[model]["top_bars"]
        prompt = measured[model]["text"] if model in measured else "The cat sat on the"
        alt[f"top_bars_{model}"] = top_bars(out, f"top_bars_{model}", model, bars["value"], bars["status"], prompt, top)
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
