"""Generate docs/js/data/smollm2-tokenizer.js (data.smollm2-tokenizer): SmolLM2's tokenizer and chat template, from its GGUF.

Read with `gguf` (no torch), so `make site` can write it: the vocabulary in GPT-2's byte alphabet,
the merges in rank order, the special tokens (the file's control and user-defined tokens, which
transformers keeps whole), the pre-tokenizer's letter, digit and space classes (stage
smollm2_pretokenizer), and the chat template cut into the literal text around the system and user
messages. docs/js/real/tokenizer.js builds the tokenizer from it; the page loads it only when the
reader asks for the real model (about 1 MB).
"""
from __future__ import annotations

import json
import re

from scripts.core.io import CONFIG, ROOT, SITE_DATA, StageError, read_json, rel, run_main, write_text_atomic
from scripts.real.loading import package_folder
from scripts.site.demos import data_script

OUT = ROOT / "docs" / "js" / "data" / "smollm2-tokenizer.js"
CLASSES = SITE_DATA / "smollm2" / "pretokenizer_classes.json"
# llama.cpp's token types (gguf.TokenType): the ones transformers adds as whole tokens.
CONTROL, USER_DEFINED = 3, 4
# The tokenizer.js pattern is GPT-2's ByteLevel split, which is what transformers' GGUF converter
# gives these pre-tokenizer names (it has no split of its own for them).
BYTE_LEVEL_PRE = ("smollm", "gpt-2", "default")


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte -> printable character table (printable Latin-1 bytes keep their code point)."""
    keep = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    table, shifted = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + shifted)
            shifted += 1
    return table


def gguf_path():
    spec = read_json(CONFIG / "real_models.json")["models"]["smollm2"]
    path = package_folder(spec["module"]) / spec["gguf_file"]
    if not path.is_file():
        raise StageError(f"{rel(path)}: file not found (make pipeline-deps installs {spec['package']})")
    return path


def read_metadata(path) -> dict:
    """The tokenizer's fields of a GGUF, as Python values."""
    from gguf import GGUFReader

    try:
        reader = GGUFReader(path)
    except (OSError, ValueError) as exc:
        raise StageError(f"{rel(path)}: not a readable GGUF ({exc})") from None
    return {k: f.contents() for k, f in reader.fields.items() if k.startswith("tokenizer.")}


def chat_parts(template: str, special: dict[str, str], source: str) -> dict[str, list[str]]:
    """The template's text around the messages, for a system + user turn and a user turn alone, each
    ending in the generation prompt, rendered as transformers renders it (sandboxed Jinja2 with
    trim_blocks and lstrip_blocks).

    Rendered twice with different stand-ins: the parts must agree, so the template copies the
    messages verbatim (no escaping, trimming or branching on their text) and joining parts and
    messages in the page gives exactly what transformers' apply_chat_template gives."""
    import jinja2.ext
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    try:
        compiled = env.from_string(template)
    except jinja2.TemplateError as exc:
        raise StageError(f"{source}: tokenizer.chat_template is not a valid Jinja2 template ({exc})") from None

    def cut(roles: list[str], marks: list[str]) -> list[str]:
        messages = [{"role": r, "content": m} for r, m in zip(roles, marks)]
        text = compiled.render(messages=messages, add_generation_prompt=True, **special)
        parts = re.split("|".join(map(re.escape, marks)), text)
        if len(parts) != len(marks) + 1 or [m for m in marks if text.count(m) != 1]:
            raise StageError(f"{source}: the chat template does not copy each message once, verbatim")
        return parts

    out = {}
    for name, roles in (("system_user", ["system", "user"]), ("user", ["user"])):
        first = cut(roles, [f"\x00{r.upper()}-A\x00" for r in roles])
        if first != cut(roles, [f"\x01{r}-b\x01" for r in roles]):
            raise StageError(f"{source}: the chat template's text depends on the messages' own text")
        out[name] = first
    return out


def tokenizer_data(meta: dict, classes: dict, source: str) -> dict:
    model, pre = meta.get("tokenizer.ggml.model"), meta.get("tokenizer.ggml.pre")
    if model != "gpt2" or pre not in BYTE_LEVEL_PRE:
        raise StageError(f"{source}: tokenizer {model!r} with pre-tokenizer {pre!r}; "
                         f"docs/js/real/tokenizer.js does byte-level BPE with GPT-2's split ({', '.join(BYTE_LEVEL_PRE)})")
    spelling = bytes_to_unicode()
    alphabet = set(spelling.values())
    raw = list(meta["tokenizer.ggml.tokens"])
    types = list(meta.get("tokenizer.ggml.token_type") or [1] * len(raw))
    # As transformers does: a token outside the byte alphabet is written as its UTF-8 bytes' stand-ins.
    tokens = [t if set(t) <= alphabet else "".join(spelling[b] for b in t.encode("utf-8")) for t in raw]
    if len(set(tokens)) != len(tokens):
        raise StageError(f"{source}: the vocabulary lists a token twice")
    # transformers skips a control token outside the byte alphabet (a llama.cpp mislabel).
    special = {t: i for i, (t, k) in enumerate(zip(raw, types)) if k == CONTROL and set(t) <= alphabet}
    added = {t: i for i, (t, k) in enumerate(zip(raw, types)) if k == USER_DEFINED}
    merges = list(meta.get("tokenizer.ggml.merges") or [])
    known = set(tokens)
    for rank, m in enumerate(merges):
        a, _, b = m.partition(" ")
        if not (a and b and a in known and b in known and a + b in known):
            raise StageError(f"{source}: merge {rank} ({m!r}) is not two vocabulary tokens joining into a third")

    def token(key: str):
        i = meta.get(f"tokenizer.ggml.{key}")
        return None if i is None else raw[int(i)]

    names = {"bos_token": token("bos_token_id"), "eos_token": token("eos_token_id")}
    template = meta.get("tokenizer.chat_template")
    return {
        "tokens": tokens, "merges": merges, "special": special, "added": added,
        "bos_id": meta.get("tokenizer.ggml.bos_token_id"), "eos_id": meta.get("tokenizer.ggml.eos_token_id"),
        "add_bos": bool(meta.get("tokenizer.ggml.add_bos_token", False)),
        "add_eos": bool(meta.get("tokenizer.ggml.add_eos_token", False)),
        "classes": {k: classes[k] for k in ("letter", "number", "space")},
        "chat": chat_parts(template, names, source) if template else None,
    }


def tokenizer_js(data: dict, source: str) -> str:
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return data_script(OUT.name, body, f"Generated by scripts/site/smollm2_tokenizer_js.py from {source} (SmolLM2, Apache-2.0). Do not edit.")


def main() -> None:
    path = gguf_path()
    source = path.name
    data = tokenizer_data(read_metadata(path), read_json(CLASSES), source)
    text = tokenizer_js(data, source)
    write_text_atomic(OUT, text)
    print(f"smollm2 tokenizer js: wrote {rel(OUT)} ({len(text.encode()) / 1e6:.2f} MB: "
          f"{len(data['tokens'])} tokens, {len(data['merges'])} merges, {len(data['special'])} special)")


if __name__ == "__main__":
    run_main(main)
