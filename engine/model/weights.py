"""Random weights, seeded, with one planted feature: the end-of-turn token's logit is a constant that sets how long
answers run.

How the end of an answer is biased. Every token embedding carries the same value `ANCHOR` in dimension 0, and no
layer writes to dimension 0 (row 0 of every output projection is zero) or reads it (column 0 of every input
projection is zero). The other dimensions hold small random values (total square ≈ `NOISE_ENERGY`), so after the
final RMSNorm dimension 0 is almost exactly h0 = sqrt(d) · ANCHOR / sqrt(ANCHOR² + NOISE_ENERGY) at every step of
every answer. The anchor is large (ANCHOR² = 1111 · NOISE_ENERGY): every RMSNorm then scales the other dimensions
down by about 1/ANCHOR before a layer reads them, so what the layers add to the residual stream (it grows with width
and depth: with ANCHOR = 1 the 32 M model's answers ran 4–10× longer than asked) stays below 0.5 % of
NOISE_ENERGY at every size. The output row of the end-of-turn token is (end_logit / h0) in dimension 0 and zero elsewhere, so its
logit is `end_logit`; tokens that must never be written (control tokens, partial UTF-8) get −30 the same way;
every other token's row is random in dimensions 1… (dimension 0 zero), so its logit is a small random number,
sd ≈ `TEXT_LOGIT_SD`, different at every step. With the sampling stored in the model (temperature 1, no top-k,
top-p or min-p cut: plain softmax over every token), the end-of-turn token is drawn at each step with probability
  p = e^end_logit / (e^end_logit + Σ e^logit_i)  ≈  e^end_logit / (e^end_logit + n · e^(sd²/2))
over the n tokens that may be written, so an answer's length is geometric with mean 1/p (truncated by the request's
max_tokens): end_logit = ln(n · e^(sd²/2) · p / (1 − p)) gives the mean asked for.
"""

import math

import numpy as np

ANCHOR = 10.0
NOISE_ENERGY = 0.09
TEXT_LOGIT_SD = 0.5
NEVER_LOGIT = -30.0
INIT_SD = 0.02


def end_logit(sampleable: int, mean_answer_tokens: float) -> float:
    """The end-of-turn logit that makes answers end after `mean_answer_tokens` tokens on average."""
    p = 1.0 / mean_answer_tokens
    return math.log(sampleable * math.exp(TEXT_LOGIT_SD**2 / 2) * p / (1 - p))


def anchor_h0(d: int) -> float:
    """Dimension 0 after the final RMSNorm (gain 1): the share of the anchor in the hidden state's energy."""
    return math.sqrt(d) * ANCHOR / math.sqrt(ANCHOR**2 + NOISE_ENERGY)


def _normal(rng: np.random.Generator, shape: tuple[int, ...], sd: float) -> np.ndarray:
    return (rng.standard_normal(shape, dtype=np.float32) * sd).astype(np.float16)


def _reading(rng: np.random.Generator, rows: int, d: int) -> np.ndarray:
    """An input projection (rows × d) that ignores dimension 0."""
    w = _normal(rng, (rows, d), INIT_SD)
    w[:, 0] = 0
    return w


def _writing(rng: np.random.Generator, d: int, cols: int, layers: int) -> np.ndarray:
    """An output projection (d × cols) that never writes dimension 0, scaled down with depth (GPT-2's init)."""
    w = _normal(rng, (d, cols), INIT_SD / math.sqrt(2 * layers))
    w[0, :] = 0
    return w


def tensors(size, vocab: int, seed: int, eot_id: int, sampleable: list[bool], logit_end: float):
    """Yields (name, array) for every tensor of a llama-architecture model, in GGUF's names and numpy's row-major
    shapes (the output dimension first). Norm gains are float32 ones, matrices float16."""
    rng = np.random.default_rng(seed)
    d = size.embedding
    kv = size.kv_heads * size.head_dim
    embed = _normal(rng, (vocab, d), math.sqrt(NOISE_ENERGY / (d - 1)))
    embed[:, 0] = ANCHOR
    yield "token_embd.weight", embed
    for i in range(size.layers):
        yield f"blk.{i}.attn_norm.weight", np.ones(d, dtype=np.float32)
        yield f"blk.{i}.attn_q.weight", _reading(rng, d, d)
        yield f"blk.{i}.attn_k.weight", _reading(rng, kv, d)
        yield f"blk.{i}.attn_v.weight", _reading(rng, kv, d)
        yield f"blk.{i}.attn_output.weight", _writing(rng, d, d, size.layers)
        yield f"blk.{i}.ffn_norm.weight", np.ones(d, dtype=np.float32)
        yield f"blk.{i}.ffn_gate.weight", _reading(rng, size.feed_forward, d)
        yield f"blk.{i}.ffn_up.weight", _reading(rng, size.feed_forward, d)
        yield f"blk.{i}.ffn_down.weight", _writing(rng, d, size.feed_forward, size.layers)
    yield "output_norm.weight", np.ones(d, dtype=np.float32)
    # Text rows: logit sd TEXT_LOGIT_SD over the non-anchor part of the normalised state, whose square is
    # d · NOISE_ENERGY / (ANCHOR² + NOISE_ENERGY).
    text_sd = TEXT_LOGIT_SD / math.sqrt(d * NOISE_ENERGY / (ANCHOR**2 + NOISE_ENERGY))
    out = _normal(rng, (vocab, d), text_sd)
    h0 = anchor_h0(d)
    out[:, 0] = 0
    never = ~np.asarray(sampleable)
    never[eot_id] = False
    out[never, :] = 0
    out[never, 0] = NEVER_LOGIT / h0
    out[eot_id, :] = 0
    out[eot_id, 0] = logit_end / h0
    yield "output.weight", out
