"""A byte-level BPE tokenizer trained on the design workload's own text, in the form GGUF stores it."""

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

# The chat markers (ChatML) and the tool-call tags of the chat template. `<|im_end|>` ends a turn: the model's
# end-of-sequence and end-of-turn token. `<|endoftext|>` pads; no BOS token is added to a prompt.
END_OF_TEXT = "<|endoftext|>"
TURN_START = "<|im_start|>"
TURN_END = "<|im_end|>"
SPECIAL_TOKENS = [END_OF_TEXT, TURN_START, TURN_END, "<tool_call>", "</tool_call>", "<tool_response>",
                  "</tool_response>"]
# GGUF token types (llama.cpp's llama_token_type): a normal token, and a control token that is not printed.
NORMAL, CONTROL = 1, 3


@dataclass
class TrainedTokenizer:
    tokens: list[str]  # by id, in the byte-level alphabet (GPT-2's bytes-to-unicode map)
    merges: list[str]  # "left right", in the order the trainer made them
    types: list[int]
    special: dict[str, int]  # special token text → id
    corpus_sha256: str
    corpus_chars: int


def corpus_texts(workload_json: Path) -> tuple[list[str], str]:
    """Every message text and tool definition of a workload file, in file order, and the file's sha256."""
    raw = workload_json.read_bytes()
    doc = json.loads(raw)
    texts: list[str] = []
    for case in doc["cases"]:
        for message in case["messages"]:
            content = message.get("content")
            if isinstance(content, str):
                texts.append(content)
        for tool in case.get("tools") or []:
            texts.append(json.dumps(tool, sort_keys=True))
        for response in case.get("tool_responses") or []:
            texts.append(json.dumps(response, sort_keys=True))
    return texts, hashlib.sha256(raw).hexdigest()


def train(workload_json: Path, vocab_size: int) -> TrainedTokenizer:
    """Trains the BPE merges until the vocabulary (special tokens included) has `vocab_size` entries.

    Deterministic: the trainer breaks ties between equally frequent pairs by the pair itself, so the same corpus
    gives the same merges in any process (checked by test/engine/model_test.ts).
    """
    texts, digest = corpus_texts(workload_json)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size - len(SPECIAL_TOKENS),
        min_frequency=1,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[],
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer)
    model = json.loads(tok.to_str())["model"]
    by_id = sorted(model["vocab"].items(), key=lambda kv: kv[1])
    tokens = [t for t, _ in by_id]
    if len(tokens) != vocab_size - len(SPECIAL_TOKENS):
        raise RuntimeError(f"the corpus gave {len(tokens)} tokens, fewer than the {vocab_size - len(SPECIAL_TOKENS)} "
                           "wanted: a larger corpus or a smaller vocabulary is needed")
    merges = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
    special = {s: len(tokens) + i for i, s in enumerate(SPECIAL_TOKENS)}
    return TrainedTokenizer(
        tokens=tokens + SPECIAL_TOKENS,
        merges=merges,
        types=[NORMAL] * len(tokens) + [CONTROL] * len(SPECIAL_TOKENS),
        special=special,
        corpus_sha256=digest,
        corpus_chars=sum(len(t) for t in texts),
    )


def _byte_decoder() -> dict[str, int]:
    """The inverse of GPT-2's bytes-to-unicode map: each printable stand-in character → its byte."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    chars = printable[:]
    n = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(printable, chars)}


_BYTES = _byte_decoder()


def token_bytes(token: str) -> bytes:
    """The bytes a byte-level token stands for."""
    return bytes(_BYTES[c] for c in token)


def sampleable(tokenizer: TrainedTokenizer) -> list[bool]:
    """Which tokens the model may emit: normal tokens whose bytes are complete UTF-8 text without control characters
    (a newline or a tab allowed). Random weights would otherwise write half characters (invalid UTF-8 in a JSON
    answer) and, now and then, a tool-call tag followed by noise that the server's tool-call parser rejects."""
    out = []
    for token, kind in zip(tokenizer.tokens, tokenizer.types):
        if kind != NORMAL:
            out.append(False)
            continue
        try:
            text = token_bytes(token).decode("utf-8")
        except UnicodeDecodeError:
            out.append(False)
            continue
        out.append(all(ch in "\n\t" or ord(ch) >= 32 for ch in text) and ord(text[0]) != 127)
    return out
