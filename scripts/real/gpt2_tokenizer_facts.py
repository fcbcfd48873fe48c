"""Stage: facts about GPT-2's real tokenizer, computed from site_data/gpt2/tokenizer/.

Writes site_data/gpt2/tokenizer_facts.json (the ids and pieces the pages quote, the pieces of " Marseille", and the make-up of
the 50,257-entry vocabulary) and site_data/gpt2/tokenizer_parity.json (ids that transformers gives
for a varied corpus; tests/js/gpt2-tokenizer.test.js replays them against the browser tokenizer).
transformers loads the two files from the folder, so nothing touches the network.
"""
from __future__ import annotations

from pathlib import Path

from scripts.core.io import CONFIG, SCHEMA_VERSION, SITE_DATA, StageError, read_json, read_text, rel, run_main, sha256_file, validate, write_json_atomic

TOKENIZER_DIR = SITE_DATA / "gpt2" / "tokenizer"
CONFIG_FILE = CONFIG / "gpt2_tokenizer.json"


def byte_tokens() -> set[str]:
    """GPT-2's 256 byte symbols: printable bytes stand for themselves, the rest are shifted past 255."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    shifted = [256 + n for n in range(256 - len(keep))]
    return {chr(c) for c in keep + shifted}


def read_merges(path: Path) -> list[tuple[str, str]]:
    lines = read_text(path).split("\n")
    if not lines[0].startswith("#version"):
        raise StageError(f"{rel(path)}: first line should be the '#version' header, is {lines[0]!r}")
    merges = []
    for n, line in enumerate(lines[1:], start=2):
        if not line:
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise StageError(f"{rel(path)}:{n}: a merge is two symbols separated by one space, got {line!r}")
        merges.append((parts[0], parts[1]))
    return merges


def vocabulary_make_up(vocab: dict[str, int], merges: list[tuple[str, str]]) -> dict:
    """Split the vocabulary into byte tokens, merge results and special tokens; fail if anything is left."""
    ids = sorted(vocab.values())
    if ids != list(range(len(vocab))):
        raise StageError(f"{rel(TOKENIZER_DIR / 'vocab.json')}: ids are not 0..{len(vocab) - 1} without gaps")
    bytes_ = byte_tokens()
    merged = {a + b for a, b in merges}
    missing = sorted(t for t in merged if t not in vocab)
    if missing:
        raise StageError(f"{rel(TOKENIZER_DIR / 'merges.txt')}: merge results not in vocab.json: {missing[:5]}")
    n_bytes = sum(t in vocab for t in bytes_)
    special = sorted(t for t in vocab if t not in bytes_ and t not in merged)
    total = n_bytes + len(merges) + len(special)
    if total != len(vocab) or len(merged) != len(merges):
        raise StageError(f"{rel(TOKENIZER_DIR)}: {n_bytes} byte tokens + {len(merges)} merges + {len(special)} "
                         f"special tokens does not make the {len(vocab)} vocabulary entries")
    return {"vocab_size": len(vocab), "byte_tokens": n_bytes, "merges": len(merges),
            "special_tokens": special, "special_ids": [vocab[t] for t in special]}


def load_tokenizer(folder: Path = TOKENIZER_DIR):
    from transformers import GPT2TokenizerFast

    for name in ("vocab.json", "merges.txt"):
        if not (folder / name).is_file():
            raise StageError(f"{rel(folder / name)}: file not found")
    return GPT2TokenizerFast.from_pretrained(folder)


def facts(tok, cfg: dict, vocab: dict[str, int], merges: list[tuple[str, str]]) -> dict:
    ids = tok.encode(cfg["ids_of"])
    piece_ids = tok.encode(cfg["pieces_of"])
    pieces = tok.convert_ids_to_tokens(piece_ids)
    first_pieces = [tok.decode([i]) for i in tok.encode(cfg["first_piece_of"])]
    return {
        "schema_version": SCHEMA_VERSION,
        "ids_of": {"text": cfg["ids_of"], "ids": ids, "tokens": [tok.decode([i]) for i in ids]},
        "pieces_of": {"text": cfg["pieces_of"], "n_pieces": len(pieces),
                      "pieces": [tok.convert_tokens_to_string([p]) for p in pieces], "ids": piece_ids},
        # The pages name the first piece of a word that GPT-2 splits (" Marseille"): computed here, since
        # the published measurements quote only its probability.
        "first_piece": {"text": cfg["first_piece_of"], "pieces": first_pieces},
        "vocabulary": vocabulary_make_up(vocab, merges),
        "files": {name: sha256_file(TOKENIZER_DIR / name) for name in ("vocab.json", "merges.txt")},
    }


def parity(tok, corpus: list[str]) -> dict:
    # transformers reads "<|endoftext|>" inside text as the special token (id 50256), not as text;
    # the corpus includes it so that the browser tokenizer is held to the same behaviour.
    return {"schema_version": SCHEMA_VERSION, "tokenizer": "transformers GPT2TokenizerFast",
            "cases": [{"text": t, "ids": tok.encode(t)} for t in corpus]}


def main() -> None:
    cfg = read_json(CONFIG_FILE)
    vocab = read_json(TOKENIZER_DIR / "vocab.json")
    merges = read_merges(TOKENIZER_DIR / "merges.txt")
    tok = load_tokenizer()
    out_facts = facts(tok, cfg, vocab, merges)
    out_parity = parity(tok, cfg["parity_corpus"])
    validate(out_facts, "gpt2_tokenizer_facts", "tokenizer_facts.json")
    write_json_atomic(SITE_DATA / "gpt2" / "tokenizer_facts.json", out_facts)
    write_json_atomic(SITE_DATA / "gpt2" / "tokenizer_parity.json", out_parity)
    v = out_facts["vocabulary"]
    print(f"gpt2 tokenizer: {out_facts['ids_of']['ids']}; {out_facts['pieces_of']['n_pieces']} pieces; "
          f"{v['vocab_size']} = {v['byte_tokens']} + {v['merges']} + {len(v['special_tokens'])}; "
          f"{len(out_parity['cases'])} parity strings")


if __name__ == "__main__":
    run_main(main)
