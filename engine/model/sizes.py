"""The model sizes: llama-architecture hyper-parameters and their parameter counts."""

from dataclasses import asdict, dataclass

# Every size shares the tokenizer, so the vocabulary is fixed here.
VOCAB_SIZE = 4096
# Long enough for the design workload's longest prompts (~11k tokens) several times over; llama-server's -c may be
# smaller or larger (it warns above this).
CONTEXT_LENGTH = 65536


@dataclass(frozen=True)
class Size:
    """One size: width, depth, heads (grouped-query attention: kv_heads ≤ heads) and feed-forward width."""

    embedding: int
    layers: int
    heads: int
    kv_heads: int
    feed_forward: int

    @property
    def head_dim(self) -> int:
        return self.embedding // self.heads

    def parameters(self, vocab: int = VOCAB_SIZE) -> int:
        """Every weight in the file: embeddings, output, attention, feed-forward and norms (untied output)."""
        d, kv = self.embedding, self.kv_heads * self.head_dim
        attention = d * d * 2 + d * kv * 2  # q and output: d×d; k and v: d×kv
        feed_forward = 3 * d * self.feed_forward  # gate, up, down
        per_layer = attention + feed_forward + 2 * d  # two RMSNorm gains
        return 2 * vocab * d + self.layers * per_layer + d  # + the final norm

    def describe(self) -> dict:
        return {**asdict(self), "head_dim": self.head_dim, "parameters": self.parameters()}


SIZES: dict[str, Size] = {
    # 4096·256·2 + 6·(256·256·4 + 3·256·1024 + 512) + 256 = 2,097,152 + 6,294,528 + 256 = 8,391,936
    "tiny": Size(embedding=256, layers=6, heads=4, kv_heads=4, feed_forward=1024),
    # 4096·512·2 + 8·(512·512·2 + 512·256·2 + 3·512·1792 + 1024) + 512 = 4,194,304 + 28,319,744 + 512 = 32,514,560
    "small": Size(embedding=512, layers=8, heads=8, kv_heads=4, feed_forward=1792),
    # 4096·768·2 + 12·(768·768·2 + 768·256·2 + 3·768·3072 + 1536) + 768 = 6,291,456 + 103,827,456 + 768 = 110,119,680
    "medium": Size(embedding=768, layers=12, heads=12, kv_heads=4, feed_forward=3072),
}
