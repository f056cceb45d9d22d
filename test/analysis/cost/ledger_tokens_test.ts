import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { ledger } from "../../../analysis/cost/ledger.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { NOT_REPORTED } from "../../../analysis/cost/price_attempts.ts";
import type { LedgerLine } from "../../../analysis/cost/price_lines.ts";
import type { HostedPrice } from "../../../schema/prices.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { hosted, LEDGER_POLICY, ledgerTables, sheetA, writeLedgerRun } from "./ledger_fixture.ts";

const close = (a: number | null | undefined, b: number, what: string) =>
  assert.ok(a != null && Math.abs(a - b) < 1e-12, `${what}: ${a} ≠ ${b}`);

const find = (lines: LedgerLine[], item: string, route: string, detail: string) => {
  const hit = lines.filter((l) => l.item === item && l.route === route && l.detail === detail);
  assert.equal(hit.length, 1, `one ${item}/${route}/"${detail}" line, got ${hit.length}`);
  return hit[0]!;
};

/**
 * The hand-worked run (ledger_fixture.ts) with reasoning and cache-write counts, as
 * `request/attempt: [reasoning, cache writes]`: a1/0 [200, 300], a2/1 (its retry) [100, 0], h1/1 (the fallback on
 * backup) [50, 100]; every other attempt null (not reported: a4 served, a5 cancelled, a2/0 and h1/0 failed).
 */
function tokenRun(): string {
  const counts: Record<string, [number, number]> = { "a1/0": [200, 300], "a2/1": [100, 0], "h1/1": [50, 100] };
  const t = ledgerTables();
  t.attempts = t.attempts.map((a) => {
    const c = counts[`${a.request_id}/${a.attempt}`];
    return c ? { ...a, reasoning_tokens: c[0], cache_write_tokens: c[1] } : a;
  });
  return writeLedgerRun(t);
}

/** hosted: input 1, cached 0.5, output 4, reasoning 10, cache writes 1.25 per Mtok; backup: no separate prices. */
const apart = (over: Partial<HostedPrice> = {}) =>
  sheetA({
    routes: {
      hosted: {
        ...hosted(1, 0.5, 4, { rejected: false, failed: true, cancelled: true }),
        reasoning_per_mtok: 10,
        cache_write_per_mtok: 1.25,
        ...over,
      },
      backup: sheetA().routes.backup!,
    },
  });

Deno.test("ledger() prices reasoning tokens inside output and cache writes inside input, each token once", async (t) => {
  const run = await loadRun(tokenRun(), { onWarning: () => {} });
  const r = ledger(run, LEDGER_POLICY, apart());
  const l = r.lines;

  await t.step("first attempts on hosted, line by line", () => {
    // a1 served [1000 in / 200 cached / 500 out; 200 reasoning, 300 writes]:
    //   uncached 1000 − 200 − 300 = 500 × 1 = 0.0005; writes 300 × 1.25 = 0.000375; cached 200 × 0.5 = 0.0001;
    //   output 500 − 200 = 300 × 4 = 0.0012; reasoning 200 × 10 = 0.002.
    close(find(l, "provider_or_gpu", "hosted", "input tokens, uncached").amount, 0.0005, "a1 uncached");
    close(find(l, "provider_or_gpu", "hosted", "input tokens, cache writes").amount, 0.000375, "a1 writes");
    close(find(l, "provider_or_gpu", "hosted", "input tokens, cached").amount, 0.0001, "a1 cached");
    close(find(l, "provider_or_gpu", "hosted", "output tokens, excluding reasoning").amount, 0.0012, "a1 output");
    const reasoning = find(l, "provider_or_gpu", "hosted", "reasoning tokens (part of output tokens)");
    assert.deepEqual([reasoning.quantity, reasoning.unit_price], [200 / 1e6, 10]);
    close(reasoning.amount, 0.002, "a1 reasoning");
    // Not reported: a4 served (600 in, 300 out) → 0.0006 input, 300 × 4 = 0.0012 output at the plain prices.
    close(find(l, "provider_or_gpu", "hosted", NOT_REPORTED.cache_write).amount, 0.0006, "a4 input");
    close(find(l, "provider_or_gpu", "hosted", NOT_REPORTED.reasoning).amount, 0.0012, "a4 output");
    // a2/0 (1000 in) and h1/0 (700 in) failed, charged: 1700 × 1 = 0.0017; a5 cancelled: 500 in, 100 out × 4.
    close(
      find(l, "provider_or_gpu", "hosted", `${NOT_REPORTED.cache_write} (failed, charged)`).amount,
      0.0017,
      "failed",
    );
    close(
      find(l, "provider_or_gpu", "hosted", `${NOT_REPORTED.cache_write} (cancelled, charged)`).amount,
      0.0005,
      "a5",
    );
    close(find(l, "provider_or_gpu", "hosted", `${NOT_REPORTED.reasoning} (cancelled, charged)`).amount, 0.0004, "a5");
    // 0.0005 + 0.000375 + 0.0001 + 0.0012 + 0.002 + 0.0006 + 0.0012 + 0.0017 + 0.0005 + 0.0004 = 0.008575: the plain
    // ledger's 0.0073 + 300 writes × (1.25 − 1) + 200 reasoning × (10 − 4) = 0.0073 + 0.000075 + 0.0012.
    close(r.overall.cost.provider_or_gpu, 0.008575, "provider_or_gpu");
  });

  await t.step("retries: a2's retry splits its 100 reasoning tokens; the fallback's route prices nothing apart", () => {
    // a2/1 [1000 / 0 / 400; 100 reasoning, 0 writes]: 1000 × 1 = 0.001 (a 0 write makes no line);
    // 300 × 4 = 0.0012; 100 × 10 = 0.001. h1/1 on backup: 700 × 2 + 200 × 8 = 0.003, its 50 reasoning inside output.
    close(find(l, "retries", "hosted", "input tokens, uncached").amount, 0.001, "retry input");
    assert.ok(!l.some((x) => x.item === "retries" && x.detail === "input tokens, cache writes"));
    close(find(l, "retries", "hosted", "output tokens, excluding reasoning").amount, 0.0012, "retry output");
    close(find(l, "retries", "hosted", "reasoning tokens (part of output tokens)").amount, 0.001, "retry reasoning");
    close(find(l, "retries", "backup", "output tokens").amount, 0.0016, "fallback output as before");
    // 0.0032 + 0.003 = 0.0062.
    close(r.overall.cost.retries, 0.0062, "retries");
    // Charged tokens are counted once whatever the split: 7000, as in the plain ledger.
    assert.equal(r.overall.naive.tokens, 7000);
  });

  await t.step("null counts are warned about, never billed as 0", () => {
    // Reasoning: charged attempts on hosted with output > 0: a1, a2/1, a4, a5 → 4, of which a4 and a5 lack the count.
    // Cache writes: charged attempts with uncached input: a1, a2/0, a2/1, a4, a5, h1/0 → 6; all but a1 and a2/1 lack it.
    assert.deepEqual(r.pricing.warnings, [
      `route hosted: reasoning_per_mtok is set but 2 of 4 charged attempts have no reasoning-token count (not ` +
      `reported by the target): their output tokens are billed at output_per_mtok (line "${NOT_REPORTED.reasoning}")`,
      `route hosted: cache_write_per_mtok is set but 4 of 6 charged attempts have no cache-write count (not reported ` +
      `by the target): their uncached input is billed at input_per_mtok (line "${NOT_REPORTED.cache_write}")`,
    ]);
    assert.ok(r.pricing.rules.some((s) => /each token once/.test(s)));
  });

  await t.step("without separate prices the counts change nothing: the plain ledger's lines and 0.0129", async () => {
    const plain = ledger(run, LEDGER_POLICY, sheetA());
    const base = ledger(await loadRun(writeLedgerRun(), { onWarning: () => {} }), LEDGER_POLICY, sheetA());
    close(plain.overall.naive.model_bill, 0.0129, "model bill");
    assert.deepEqual(plain.lines, base.lines);
    assert.deepEqual(plain.pricing.warnings, []);
  });

  await t.step("a context tier and the batch tier apply to reasoning and cache writes", () => {
    const tier = {
      above_input_tokens: 900,
      input_per_mtok: 2,
      cached_input_per_mtok: 1,
      output_per_mtok: 8,
      reasoning_per_mtok: 20,
      cache_write_per_mtok: null,
    };
    const b = ledger(run, LEDGER_POLICY, apart({ context_tiers: [tier], service_tier: "batch", batch_discount: 0.5 }));
    // a1 (1000 input, above 900): reasoning 200 × 20 × 0.5 = 0.002; writes at the tier's input price (null):
    // 300 × 2 × 0.5 = 0.0003.
    const suffix = ", input above 900 tokens, batch tier";
    close(
      find(b.lines, "provider_or_gpu", "hosted", `reasoning tokens (part of output tokens)${suffix}`).amount,
      0.002,
      "r",
    );
    close(find(b.lines, "provider_or_gpu", "hosted", `input tokens, cache writes${suffix}`).amount, 0.0003, "w");
  });
});

Deno.test("a contract 1.0 log priced with a reasoning price says the count was not recorded", async () => {
  const root = fileURLToPath(new URL("../../testdata/contract-1.0/", import.meta.url));
  const run = await loadRun(root, { onWarning: () => {} });
  const policy: SloPolicy = { ...LEDGER_POLICY, window: { exclude_stage_kinds: ["warmup", "drain"] }, classes: {} };
  const sheet = sheetA({
    routes: {
      "*": { ...hosted(1, 0.5, 4, { rejected: false, failed: true, cancelled: true }), reasoning_per_mtok: 10 },
    },
  });
  const r = ledger(run, policy, sheet);
  assert.ok(
    r.pricing.warnings.some((w) =>
      /^route selfhosted: reasoning_per_mtok is set but (\d+) of \1 charged attempts have no reasoning-token count \(not recorded: the log is contract 1\.0/
        .test(w)
    ),
    r.pricing.warnings.join("\n"),
  );
  // Every output token is still billed, at the output price: nothing is priced as 0.
  const out = r.lines.find((l) => l.detail === NOT_REPORTED.reasoning)!;
  close(out.unit_price, 4, "output price");
  assert.ok(out.quantity > 0);
});
