"""scripts/site/smollm2_tokenizer_js.py on made-up GGUF metadata: what it writes, and the one-line
failures for a file whose tokenizer docs/js/real/tokenizer.js does not implement."""
from __future__ import annotations

import json

import pytest

from scripts.core.io import StageError
from scripts.site import smollm2_tokenizer_js as gen

CLASSES = {"letter": [[65, 90], [97, 122]], "number": [[48, 57]], "space": [[9, 13], [32, 32]]}
TEMPLATE = ("{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
            "{{ '<s>system\nDefault<e>\n' }}{% endif %}{{'<s>' + message['role'] + '\n' + message['content'] + '<e>\n'}}"
            "{% endfor %}{% if add_generation_prompt %}{{ '<s>assistant\n' }}{% endif %}")


def metadata(**over) -> dict:
    alphabet = list(gen.bytes_to_unicode().values())
    tokens = ["<s>", "<e>", "<x>"] + alphabet + ["ab", "abc"]
    meta = {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "smollm", "tokenizer.ggml.tokens": tokens,
            "tokenizer.ggml.token_type": [3, 3, 4] + [1] * (len(tokens) - 3), "tokenizer.ggml.merges": ["a b", "ab c"],
            "tokenizer.ggml.bos_token_id": 0, "tokenizer.ggml.eos_token_id": 1, "tokenizer.chat_template": TEMPLATE}
    meta.update(over)
    return meta


def test_writes_tokens_merges_special_and_the_template_cut_around_the_messages():
    data = gen.tokenizer_data(metadata(), CLASSES, "x.gguf")
    assert data["special"] == {"<s>": 0, "<e>": 1} and data["added"] == {"<x>": 2}
    assert data["merges"] == ["a b", "ab c"] and data["classes"] == CLASSES
    assert data["chat"]["system_user"] == ["<s>system\n", "<e>\n<s>user\n", "<e>\n<s>assistant\n"]
    assert data["chat"]["user"] == ["<s>system\nDefault<e>\n<s>user\n", "<e>\n<s>assistant\n"]
    text = gen.tokenizer_js(data, "x.gguf")
    assert json.loads(text.split("function () { return ", 1)[1].rstrip().removesuffix("; });")) == data
    assert text.count("\n") == 2 and 'nexttoken.define("data.smollm2-tokenizer", [], ' in text


def test_a_token_outside_the_byte_alphabet_is_respelled_as_its_utf8_bytes():
    meta = metadata()
    meta["tokenizer.ggml.tokens"] = meta["tokenizer.ggml.tokens"] + ["€"]  # not a stand-in character
    meta["tokenizer.ggml.token_type"] = meta["tokenizer.ggml.token_type"] + [1]
    table = gen.bytes_to_unicode()
    assert gen.tokenizer_data(meta, CLASSES, "x.gguf")["tokens"][-1] == "".join(table[b] for b in "€".encode())


@pytest.mark.parametrize("over, words", [
    ({"tokenizer.ggml.pre": "llama-bpe"}, "pre-tokenizer 'llama-bpe'"),
    ({"tokenizer.ggml.model": "llama"}, "tokenizer 'llama'"),
    ({"tokenizer.ggml.merges": ["a b", "q zz"]}, "merge 1"),
    ({"tokenizer.chat_template": "{{ messages[0]['content'] | upper }}"}, "does not copy each message"),
    ({"tokenizer.chat_template": "{% for m in messages %}{{ m['content'][:3] }}{% endfor %}"}, "chat template"),
    ({"tokenizer.chat_template": "{% if %}"}, "not a valid Jinja2 template"),
])
def test_a_file_the_js_cannot_follow_fails_in_one_line_naming_it(over, words):
    with pytest.raises(StageError) as err:
        gen.tokenizer_data(metadata(**over), CLASSES, "x.gguf")
    message = str(err.value)
    assert message.startswith("x.gguf: ") and words in message and "\n" not in message
