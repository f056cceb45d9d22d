import assert from "node:assert/strict";
import { join } from "node:path";
import { getEncoding } from "js-tiktoken";
import { MAX_TOKENIZED_CHARS, MAX_TOKENIZER_WORK, tokenizerRefusal } from "../../runner/token_caps.ts";
import { countTokens, stopTokenCounter } from "../../runner/tokens.ts";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

/** o200k_base's own pre-token pattern, as the worker uses it. */
const O200K = (getEncoding("o200k_base") as unknown as { patStr: string }).patStr;

Deno.test("tokenizerRefusal bounds BPE work by Σ (piece bytes)² and the text by its length", async (t) => {
  await t.step("one piece at the bound is counted, one byte more is not", () => {
    // "x" × 2048 is one letter piece of 2048 bytes: work 2048² = 4,194,304 = MAX_TOKENIZER_WORK.
    assert.equal(MAX_TOKENIZER_WORK, 4_194_304);
    assert.equal(tokenizerRefusal("x".repeat(2048), O200K), null);
    // 2049² = 4,198,401 > 4,194,304.
    assert.equal(tokenizerRefusal("x".repeat(2049), O200K), "BPE work 4198401 > 4194304");
  });
  await t.step("pieces are measured in UTF-8 bytes", () => {
    // "é" is 2 bytes: 1024 of them are 2048 bytes (at the bound); 1025 are 2050 bytes, 2050² = 4,202,500.
    assert.equal(tokenizerRefusal("é".repeat(1024), O200K), null);
    assert.equal(tokenizerRefusal("é".repeat(1025), O200K), "BPE work 4202500 > 4194304");
  });
  await t.step("the 16,000-character run of one character is refused", () => {
    // 16,000² = 256,000,000.
    assert.equal(tokenizerRefusal("x".repeat(16_000), O200K), "BPE work 256000000 > 4194304");
  });
  await t.step("prose is counted up to the length bound", () => {
    // "ab " × 262,144 = 786,432 chars; pieces "ab", " ab", …: work 4 + 9 × 262,143 = 2,359,291 ≤ bound.
    assert.equal(tokenizerRefusal("ab ".repeat(262_144), O200K), null);
    // 1,048,577 chars > MAX_TOKENIZED_CHARS = 1,048,576, refused before any piece is measured.
    assert.equal(MAX_TOKENIZED_CHARS, 1_048_576);
    assert.equal(tokenizerRefusal("a".repeat(1_048_577), O200K), "1048577 chars > 1048576");
  });
});

Deno.test("countTokens refuses a pathological text at once and still counts ordinary and special-token text", async () => {
  try {
    // Warm the worker (building the encoder takes about a second) so the timing below is the count alone.
    assert.equal(await countTokens("hello world"), 2); // o200k: "hello", " world"
    const t0 = performance.now();
    assert.equal(await countTokens("x".repeat(16_000)), null);
    const ms = performance.now() - t0;
    assert.ok(ms < 1000, `refused in ${ms} ms (encoding it takes minutes)`);
    // A target's "<|endoftext|>" is ordinary text to count, not an exception that would leave the count unanswered.
    const n = await countTokens("<|endoftext|>");
    assert.ok(n !== null && n > 1, `counted as ${n} ordinary tokens`);
  } finally {
    stopTokenCounter();
  }
});

Deno.test("an answer without usage over the tokenizer bound keeps 0 tokens, token_source null, counted in run.json's tokenizer", async () => {
  const dir = Deno.makeTempDirSync();
  const srv = await startFaultServer({ tokens: 2 });
  try {
    const t0 = performance.now();
    const { dir: runDir, manifest } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()], { qa: false }),
      plan: constantPlan(dir, 10, 0.3),
      target: `${srv.url}/no-usage-one-char`,
      out: join(dir, "out"),
      formats: ["csv"],
      timeoutsFile: writeJson(dir, "timeouts.json", { attempt_ms: 5000, request_ms: 10_000, idle_ms: 5000 }),
      progress: false,
      serverTimeline: false,
    });
    const ms = performance.now() - t0;
    const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
    const attempts = await readLogCsv(join(runDir, "attempts.csv"), "attempts");
    assert.equal(requests.length, 3);
    // The answers themselves are fine; only their token count is not made.
    assert.ok(requests.every((r) => r.outcome === "ok"), requests.map((r) => r.error_kind).join());
    assert.ok(attempts.every((a) => a.token_source === null && a.output_tokens === 0 && a.input_tokens === 0));
    assert.ok(requests.every((r) => r.output_tokens === 0));
    assert.equal(manifest.tokenizer.attempts_not_counted, 3);
    assert.equal(manifest.tokenizer.max_chars, MAX_TOKENIZED_CHARS);
    assert.equal(manifest.tokenizer.max_work, MAX_TOKENIZER_WORK);
    assert.equal(manifest.result.status, "complete");
    // Three 16,000-character counts would take 259 s each; the run ends in seconds.
    assert.ok(ms < 15_000, `run took ${ms} ms`);
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
