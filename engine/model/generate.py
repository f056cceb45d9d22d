"""Writes a llama-architecture GGUF model with seeded random weights, a BPE tokenizer trained on the design
workload's text and a ChatML chat template, and beside it a sidecar JSON with the file's sha256 and every
parameter that made it.

    python engine/model/generate.py --size tiny --seed 1 --corpus data/workloads/design-v1/workload.json --out DIR

The same size, seed, generator version and corpus give the same bytes (test/engine/model_test.ts checks it). The
answers are noise: the weights are random. What is real is the compute (the matrix shapes of a llama model of that
size), the KV cache, the tokenizer and the chat template — and answers that end on their own (weights.py says how).
"""

import argparse
import hashlib
import json
import sys
import time
from importlib.metadata import version
from pathlib import Path

import gguf

import weights
from sizes import CONTEXT_LENGTH, SIZES, VOCAB_SIZE
from template import CHAT_TEMPLATE
from tokenizer import END_OF_TEXT, TURN_END, sampleable, train

# Bumped whenever a change here changes the bytes written for the same size and seed.
GENERATOR_VERSION = "2"
DEFAULT_MEAN_ANSWER_TOKENS = 96


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def model_name(size: str, seed: int) -> str:
    return f"goodput-random-llama-{size}-s{seed}-g{GENERATOR_VERSION}"


def write(size_name: str, seed: int, corpus: Path, out_dir: Path, mean_answer_tokens: float) -> dict:
    started = time.perf_counter()
    size = SIZES[size_name]
    tok = train(corpus, VOCAB_SIZE)
    trained = time.perf_counter()
    allowed = sampleable(tok)
    eot = tok.special[TURN_END]
    logit_end = weights.end_logit(sum(allowed), mean_answer_tokens)
    name = model_name(size_name, seed)
    path = out_dir / f"{name}.gguf"
    partial = path.with_suffix(".gguf.partial")
    out_dir.mkdir(parents=True, exist_ok=True)

    w = gguf.GGUFWriter(str(partial), "llama")
    w.add_name(name)
    w.add_description("random weights (noise answers); real llama compute, tokenizer and chat template")
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    w.add_context_length(CONTEXT_LENGTH)
    w.add_embedding_length(size.embedding)
    w.add_block_count(size.layers)
    w.add_feed_forward_length(size.feed_forward)
    w.add_head_count(size.heads)
    w.add_head_count_kv(size.kv_heads)
    w.add_rope_dimension_count(size.head_dim)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(VOCAB_SIZE)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("gpt-2")
    w.add_token_list(tok.tokens)
    w.add_token_types(tok.types)
    w.add_token_merges(tok.merges)
    w.add_bos_token_id(tok.special[END_OF_TEXT])
    w.add_eos_token_id(eot)
    w.add_eot_token_id(eot)
    w.add_pad_token_id(tok.special[END_OF_TEXT])
    w.add_add_bos_token(False)
    w.add_chat_template(CHAT_TEMPLATE)
    # Plain softmax sampling unless a request asks otherwise: the answer-length arithmetic in weights.py holds for it.
    w.add_sampling_temp(1.0)
    w.add_sampling_top_k(0)
    w.add_sampling_top_p(1.0)
    w.add_sampling_min_p(0.0)
    for tensor_name, array in weights.tensors(size, VOCAB_SIZE, seed, eot, allowed, logit_end):
        w.add_tensor(tensor_name, array)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    partial.replace(path)
    written = time.perf_counter()

    sidecar = {
        "generator": "engine/model/generate.py",
        "generator_version": GENERATOR_VERSION,
        "name": name,
        "size": size_name,
        "seed": seed,
        "file": path.name,
        "sha256": file_sha256(path),
        "bytes": path.stat().st_size,
        "architecture": {"kind": "llama", "context_length": CONTEXT_LENGTH, "vocab_size": VOCAB_SIZE,
                         **size.describe()},
        "tensor_type": "f16 (norm gains f32)",
        "tokenizer": {
            "kind": "byte-level BPE (GPT-2 pre-tokenizer)",
            "vocab_size": VOCAB_SIZE,
            "merges": len(tok.merges),
            "special_tokens": tok.special,
            "corpus": str(corpus),
            "corpus_sha256": tok.corpus_sha256,
            "corpus_chars": tok.corpus_chars,
            "sampleable_tokens": sum(allowed),
        },
        "chat_template": "ChatML with Hermes-style tool calls (engine/model/template.py)",
        "end_of_turn": {
            "token": TURN_END,
            "mean_answer_tokens": mean_answer_tokens,
            "logit": logit_end,
            "text_logit_sd": weights.TEXT_LOGIT_SD,
            "rule": "geometric answer length: the end-of-turn token is drawn with probability 1/mean at each step "
                    "under the model's own sampling (temperature 1, no top-k/top-p/min-p)",
        },
        "sampling": {"temperature": 1.0, "top_k": 0, "top_p": 1.0, "min_p": 0.0},
        "packages": {p: version(p) for p in ("gguf", "tokenizers", "numpy")},
        "python": sys.version.split()[0],
        "seconds": {"tokenizer": round(trained - started, 3), "total": round(written - started, 3)},
    }
    (out_dir / f"{name}.json").write_text(json.dumps(sidecar, indent=2) + "\n")
    return sidecar


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", choices=sorted(SIZES), required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--corpus", type=Path, required=True, help="the workload.json whose texts train the tokenizer")
    p.add_argument("--out", type=Path, required=True, help="the folder for NAME.gguf and NAME.json")
    p.add_argument("--mean-answer-tokens", type=float, default=DEFAULT_MEAN_ANSWER_TOKENS)
    a = p.parse_args()
    if a.mean_answer_tokens <= 1:
        p.error("--mean-answer-tokens must be more than 1")
    sidecar = write(a.size, a.seed, a.corpus, a.out, a.mean_answer_tokens)
    print(json.dumps({k: sidecar[k] for k in ("name", "file", "sha256", "bytes", "seconds")}))


if __name__ == "__main__":
    main()
