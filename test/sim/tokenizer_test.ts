import assert from "node:assert/strict";
import { fillerPieces, padPieces } from "../../sim/filler.ts";
import { simTokenizer } from "../../sim/tokenizer.ts";

Deno.test("token pieces rebuild the text, one piece per o200k_base token", async (t) => {
  const tok = simTokenizer();
  for (
    const text of [
      "Plain ASCII text, with punctuation.",
      "Emoji 🦩🦩 and accents: naïve café, Ünïcödé.",
      "漢字とカタカナのテスト",
      "<|endoftext|> is ordinary text here",
    ]
  ) {
    await t.step(text, () => {
      const p = tok.pieces(text);
      assert.equal(p.join(""), text);
      assert.equal(p.length, tok.count(text));
      assert.ok(p.every((s) => !s.includes("\uFFFD")), "no half characters are streamed");
    });
  }
});

Deno.test("padPieces() pads to exactly the target and never shortens", () => {
  const tok = simTokenizer();
  const p = padPieces("Short answer.", 77, tok);
  assert.equal(p.length, 77);
  assert.ok(p.join("").startsWith("Short answer. "));
  const long = "word ".repeat(50).trim();
  assert.deepEqual(padPieces(long, 10, tok), tok.pieces(long));
  assert.equal(fillerPieces(64, tok).length, 64);
});
