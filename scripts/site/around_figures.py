"""The "Around the pick" page's static figures, drawn as HTML and inline SVG from the page's numbers
(scripts/site/costs.py's `around`), so they follow both colour schemes through the site's CSS variables
(docs/css/explainers.css) and need no script. Each function returns one <figure>; the page calls it where a
table stood. Axes are zero-based and linear unless the figure says "log scale" on the axis itself.
Pure: no file is read here."""
from __future__ import annotations

import html
import math
import struct


def _e(s) -> str:
    return html.escape(str(s), quote=True)


def _num(x: float, digits: int = 1) -> str:
    """x with thousands commas and a real minus sign (U+2212), as the pages' numbers."""
    return f"{x:,.{digits}f}".replace("-", "\u2212")


def _bar(label: str, value: float, top: float, text: str, cls: str = "") -> str:
    width = 100 * value / top if top else 0
    return (f'<div class="nt-ar-row{(" " + cls) if cls else ""}" data-value="{value!r}">'
            f'<span class="nt-ar-label">{_e(label)}</span>'
            f'<span class="nt-ar-track"><span class="nt-ar-fill" style="width:{width:.3f}%"></span></span>'
            f'<span class="nt-ar-value">{_e(text)}</span></div>')


def bytes_figure(weights: dict, names: dict, counts: dict, file_mb: float, badges: str = "") -> str:
    """Bytes per weight: each model's weights at each width, in MB, on one zero-based scale, with the
    SmolLM2 file the pages run (mixed widths) beside them. `badges`: the weight counts' source markers."""
    top = max(w["mb"] for key in ("gpt2", "smollm2") for w in weights[key])
    groups = []
    for key in ("gpt2", "smollm2"):
        rows = [_bar(f"{w['bits']} bits", w["mb"], top, f"{_num(w['mb'])} MB") for w in weights[key]]
        if key == "smollm2":
            rows.append(_bar("its file", file_mb, top, f"{_num(file_mb)} MB", "nt-ar-file"))
        groups.append(f'<div class="nt-ar-group" data-model="{key}"><p class="nt-ar-title">{_e(names[key])}: '
                      f'{counts[key]:,} weights</p>{"".join(rows)}</div>')
    return ('<figure class="nt-ar-fig nt-ar-bytes" data-figure="bytes">' + "".join(groups) +
            '<figcaption>Megabytes (MB) to store every weight at 32, 16, 8 and 4 bits; the bars share one scale '
            'that starts at zero. "Its file" is the SmolLM2 file these pages run, whose tensors mix widths '
            '(the table below). Weight counts: ' + badges + '</figcaption></figure>')


def lora_figure(lo: dict, badges: str = "") -> str:
    """Weights trained per attention matrix of one layer: all of them (full fine-tuning) against a LoRA
    update of rank r, r·(in + out), on one zero-based scale."""
    top = max(r["full"] for r in lo["rows"])
    rows = []
    for r in lo["rows"]:
        rows.append(_bar(f"{r['name']}: all", r["full"], top, f"{r['full']:,}"))
        rows.append(_bar(f"{r['name']}: LoRA", r["lora"], top, f"{r['lora']:,}", "nt-ar-file"))
    return ('<figure class="nt-ar-fig nt-ar-lora" data-figure="lora"><div class="nt-ar-group">' + "".join(rows) +
            f'</div><figcaption>Weights trained in each attention matrix of one SmolLM2 layer: every weight, or a LoRA '
            f'update of rank {lo["rank"]}. The bars share one scale that starts at zero. {badges}</figcaption></figure>')


def _float16_parts(raw: bytes) -> dict:
    """A little-endian float16's sign, exponent and fraction bits, and its value rebuilt from them."""
    u = int.from_bytes(raw, "little")
    bits = f"{u:016b}"
    sign, exp, frac = int(bits[0]), int(bits[1:6], 2), int(bits[6:], 2)
    value = struct.unpack("<e", raw)[0]
    if 0 < exp < 31 and not math.isclose((-1) ** sign * 2.0 ** (exp - 15) * (1 + frac / 1024), value, rel_tol=1e-12):
        raise ValueError(f"float16 {raw.hex()}: sign, exponent and fraction do not give {value}")
    return {"bits": bits, "sign": sign, "exp": exp, "frac": frac, "value": value}


def _bits(bits: str, cls: str) -> str:
    """A run of bits as one box (one element for the run, not one per bit: the page stays light)."""
    return f'<span class="nt-ar-bit {cls}">{bits}</span>'


def q4_block_figure(q: dict) -> str:
    """One real Q4_1 block, bit by bit: the scale and the minimum as float16 (sign, exponent, fraction),
    then each code byte split into its high and low 4 bits, each code with the weight d·q + m it gives."""
    b = q["block"]
    raw = bytes.fromhex(b["bytes_hex"])
    half = q["nibble_bytes"]
    heads = []
    for name, sym, chunk, val in (("scale", "d", raw[0:2], b["d"]), ("minimum", "m", raw[2:4], b["m"])):
        f = _float16_parts(chunk)
        if not math.isclose(f["value"], val, rel_tol=1e-6, abs_tol=1e-9):
            raise ValueError(f"the block's {name} {val} is not its bytes {chunk.hex()}")
        heads.append(
            f'<div class="nt-ar-half" data-part="{sym}"><p class="nt-ar-title">the {name} {sym}: bytes '
            f'<code>{chunk.hex()}</code>, read as {int.from_bytes(chunk, "little"):04x}</p>'
            f'<p class="nt-ar-bits" aria-hidden="true">{_bits(f["bits"][0], "nt-ar-sign")}{_bits(f["bits"][1:6], "nt-ar-exp")}'
            f'{_bits(f["bits"][6:], "nt-ar-frac")}</p>'
            f'<p class="nt-ar-note">sign {f["sign"]}, exponent {f["exp"]} − 15, fraction 1 + {f["frac"]}/1024: '
            f'{sym} = {_num(f["value"], 8)}</p></div>')
    cells = []
    for p in b["pairs"]:
        j = p["j"]
        lo, hi = b["w"][j], b["w"][j + half]
        cells.append(
            f'<li class="nt-ar-byte" data-j="{j}"><span class="nt-ar-j">byte {j} <code>{p["hex"]}</code></span>'
            f'<span class="nt-ar-bits" aria-hidden="true">{_bits(format(p["high"], "04b"), "nt-ar-hi")}{_bits(format(p["low"], "04b"), "nt-ar-lo")}</span>'
            f'<span class="nt-ar-code nt-ar-hi-t">high {p["high"]}: w<sub>{j + half}</sub> = {_num(hi, 5)}</span>'
            f'<span class="nt-ar-code nt-ar-lo-t">low {p["low"]}: w<sub>{j}</sub> = {_num(lo, 5)}</span></li>')
    return ('<figure class="nt-ar-fig nt-ar-q4" data-figure="q4_1">'
            f'<div class="nt-ar-halves">{"".join(heads)}</div>'
            f'<ol class="nt-ar-bytes-list" start="0">{"".join(cells)}</ol>'
            f'<figcaption>The block\'s {len(raw)} bytes, bit by bit. The first four hold d and m as float16 (sign, '
            f'five exponent bits, ten fraction bits); each of the other {half} holds two {q["code_bits"]}-bit codes, '
            f'the low bits for weight j and the high bits for weight j + {half}; each weight is d · code + m.</figcaption></figure>')


# The roofline's axes: powers of ten wide enough for the points and the chip's ridge.
def _decades(lo: float, hi: float) -> tuple[int, int]:
    return math.floor(math.log10(lo)), math.ceil(math.log10(hi))


def roofline_figure(mem: dict) -> str:
    """The roofline of the published chip: attainable operations a second against operations per byte
    read, min(peak, bandwidth × intensity), on log scales; SmolLM2's decode step at batch 1 (4-bit file
    and float32) and at the batch where reading and arithmetic take the same time."""
    peak, bw = mem["chip_tflops"] * 1e12, mem["chip_gb_s"] * 1e9
    points = [("float32 weights, one reader", mem["intensity_f32"]),
              ("its 4-bit file, one reader", mem["intensity"]),
              (f"a batch of {round(mem['batch_even'])} readers", mem["intensity"] * round(mem["batch_even"]))]
    x0, x1 = _decades(min(i for _, i in points) / 2, mem["chip_ratio"] * 20)
    y0, y1 = _decades(bw * min(i for _, i in points) / 1e12 / 2, mem["chip_tflops"] * 2)
    W, H, L, R, T, B = 520, 320, 66, 24, 14, 46

    def X(i: float) -> float:
        return L + (math.log10(i) - x0) / (x1 - x0) * (W - L - R)

    def Y(tf: float) -> float:
        return T + (y1 - math.log10(tf)) / (y1 - y0) * (H - T - B)

    parts = []
    for k in range(x0, x1 + 1):
        parts.append(f'<line class="nt-ar-grid" x1="{X(10**k):.1f}" x2="{X(10**k):.1f}" y1="{T}" y2="{H - B}"/>'
                     f'<text class="nt-ar-tick" x="{X(10**k):.1f}" y="{H - B + 16}" text-anchor="middle">{10.0**k:g}</text>')
    for k in range(y0, y1 + 1):
        parts.append(f'<line class="nt-ar-grid" x1="{L}" x2="{W - R}" y1="{Y(10**k):.1f}" y2="{Y(10**k):.1f}"/>'
                     f'<text class="nt-ar-tick" x="{L - 6}" y="{Y(10**k) + 4:.1f}" text-anchor="end">{10.0**k:g}</text>')
    ridge = mem["chip_ratio"]
    xs = [10.0 ** x0, ridge, 10.0 ** x1]
    roof = " ".join(f"{X(i):.1f},{Y(min(peak, bw * i) / 1e12):.1f}" for i in xs)
    parts.append(f'<polyline class="nt-ar-roof" points="{roof}"/>')
    parts.append(f'<line class="nt-ar-ridge" x1="{X(ridge):.1f}" x2="{X(ridge):.1f}" y1="{Y(mem["chip_tflops"]):.1f}" y2="{H - B}"/>'
                 f'<text class="nt-ar-tick" x="{X(ridge) + 5:.1f}" y="{H - B - 6}">ridge {ridge:.0f}</text>')
    parts.append(f'<text class="nt-ar-lab" x="{W - R:.1f}" y="{Y(mem["chip_tflops"]) + 18:.1f}" text-anchor="end">'
                 f'arithmetic: {mem["chip_tflops"]:.0f}</text>')
    mid = 10 ** ((x0 + 2 * math.log10(ridge)) / 3)
    angle = -math.degrees(math.atan2(Y(bw * mid / 1e12) - Y(bw * mid * 10 / 1e12), X(mid * 10) - X(mid)))
    parts.append(f'<text class="nt-ar-lab" x="{X(mid):.1f}" y="{Y(bw * mid / 1e12) - 8:.1f}" text-anchor="middle" '
                 f'transform="rotate({angle:.1f} {X(mid):.1f} {Y(bw * mid / 1e12) - 8:.1f})">'
                 f'memory: {mem["chip_gb_s"]:,.0f} GB/s</text>')
    items = []
    for n, (label, i) in enumerate(points, 1):
        tf = min(peak, bw * i) / 1e12
        parts.append(f'<circle class="nt-ar-pt" cx="{X(i):.1f}" cy="{Y(tf):.1f}" r="5" data-intensity="{i!r}" data-tflops="{tf!r}"/>'
                     f'<text class="nt-ar-lab nt-ar-key" x="{X(i) + 9:.1f}" y="{Y(tf) + 15:.1f}">{n}</text>')
        items.append(f'<li>{_e(label)}: {_num(i)} operations per byte, at most {_num(tf)} trillion a second</li>')
    parts.append(f'<text class="nt-ar-axis" x="{(L + W - R) / 2:.0f}" y="{H - 8}" text-anchor="middle">'
                 'operations per byte read (log scale)</text>'
                 f'<text class="nt-ar-axis" transform="rotate(-90)" x="{-(T + H - B) / 2:.0f}" y="14" text-anchor="middle">'
                 'trillion operations a second (log)</text>')
    desc = (f"Roofline of the {mem['chip']}: below {ridge:.0f} operations per byte the memory bandwidth ({mem['chip_gb_s']:,.0f} GB/s) "
            f"limits the speed, above it the arithmetic ({mem['chip_tflops']:.0f} trillion float16 operations a second) does. "
            f"SmolLM2's decode step for one reader does {_num(mem['intensity'])} operations per byte of its file, "
            f"so it reaches at most {_num(bw * mem['intensity'] / 1e12)} of the {mem['chip_tflops']:.0f}.")
    return ('<figure class="nt-ar-fig nt-ar-roofline" data-figure="roofline">'
            f'<svg viewBox="0 0 {W} {H}" role="img" aria-label="{_e(desc)}">{"".join(parts)}</svg>'
            f'<ol class="nt-ar-points">{"".join(items)}</ol>'
            f'<figcaption>{_e(desc)} Both axes are logarithmic: each grid line is ten times the one before.</figcaption></figure>')

