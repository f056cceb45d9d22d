import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { importLitellm } from "../../../analysis/cost/import_litellm.ts";
import { ledger } from "../../../analysis/cost/ledger.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { loadPriceSheet } from "../../../analysis/cost/price_sheet.ts";
import type { HostedPrice } from "../../../schema/prices.ts";
import { runCli } from "../../support/run_cli.ts";
import { LEDGER_POLICY, writeLedgerRun } from "./ledger_fixture.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** The real LiteLLM snapshot (dated 2026-07-24 in ../shared/data/README.md), referenced, never copied. */
const MAP_FILE = "../shared/data/prices/litellm_model_prices_and_context_window.json";
const map = JSON.parse(Deno.readTextFileSync(join(ROOT, MAP_FILE))) as Record<string, unknown>;
const opts = { as_of: "2026-07-24", file: MAP_FILE };
const only = (model: string): HostedPrice => {
  const p = importLitellm(map, model, opts).routes["*"]!;
  assert.equal(p.kind, "hosted");
  return p as HostedPrice;
};

Deno.test("importLitellm() reads the real LiteLLM snapshot's field names", async (t) => {
  await t.step("gpt-4o-mini: per-token prices, cache reads, batch discount, priority tier", () => {
    // Snapshot: input_cost_per_token 1.5e-07, cache_read_input_token_cost 7.5e-08, output_cost_per_token 6e-07,
    // *_batches 7.5e-08 / 3e-07 (half), *_priority 2.5e-07 / 1e-06 (5/3 ×).
    const p = only("gpt-4o-mini");
    assert.deepEqual(
      [p.provider, p.model, p.input_per_mtok, p.cached_input_per_mtok, p.output_per_mtok],
      ["openai", "gpt-4o-mini", 0.15, 0.075, 0.6],
    );
    assert.equal(p.batch_discount, 0.5);
    assert.equal(p.tier_multipliers.priority, 1.666666667);
    assert.deepEqual(p.context_tiers, []);
  });

  await t.step("claude-sonnet-4-5: cache writes, and the prices above 200k input tokens", () => {
    // input 3e-06 → 6e-06, cache read 3e-07 → 6e-07, output 1.5e-05 → 2.25e-05 above 200k tokens;
    // cache_creation_input_token_cost 3.75e-06 → 7.5e-06 above 200k. No reasoning price: null (billed as output).
    const p = only("claude-sonnet-4-5");
    assert.deepEqual([p.input_per_mtok, p.cached_input_per_mtok, p.output_per_mtok], [3, 0.3, 15]);
    assert.deepEqual([p.cache_write_per_mtok, p.reasoning_per_mtok], [3.75, null]);
    assert.deepEqual(p.context_tiers, [
      {
        above_input_tokens: 200_000,
        input_per_mtok: 6,
        cached_input_per_mtok: 0.6,
        output_per_mtok: 22.5,
        reasoning_per_mtok: null,
        cache_write_per_mtok: 7.5,
      },
    ]);
    assert.equal(p.batch_discount, null);
    // 1-hour cache writes cannot be told from 5-minute ones in the log: listed as not used.
    const notes = importLitellm(map, "claude-sonnet-4-5", opts).notes;
    assert.match(
      notes,
      /Fields used: [^.]*cache_creation_input_token_cost, cache_creation_input_token_cost_above_200k_tokens/,
    );
    assert.match(notes, /not used [^:]*: cache_creation_input_token_cost_above_1hr, /);
  });

  await t.step("a reasoning price apart from output (dashscope/qwen-plus-2025-07-14)", () => {
    // output_cost_per_token 1.2e-06, output_cost_per_reasoning_token 4e-06.
    const p = only("dashscope/qwen-plus-2025-07-14");
    assert.deepEqual([p.output_per_mtok, p.reasoning_per_mtok, p.cache_write_per_mtok], [1.2, 4, null]);
  });

  await t.step("tiered_pricing ranges (dashscope/qwen-flash)", () => {
    // range [0, 256000]: 5e-08 / 4e-07; [256000, 1e6]: 2.5e-07 / 2e-06.
    const p = only("dashscope/qwen-flash");
    assert.deepEqual([p.input_per_mtok, p.output_per_mtok], [0.05, 0.4]);
    assert.deepEqual(p.context_tiers, [
      {
        above_input_tokens: 256_000,
        input_per_mtok: 0.25,
        cached_input_per_mtok: null,
        output_per_mtok: 2,
        reasoning_per_mtok: null,
        cache_write_per_mtok: null,
      },
    ]);
  });

  await t.step("a batch discount that differs by token kind is kept per kind", () => {
    // azure/us/gpt-4.1-nano-2025-04-14: input 1.1e-07 → 6e-08 batched, output 4.4e-07 → 2.2e-07.
    const d = only("azure/us/gpt-4.1-nano-2025-04-14").batch_discount;
    assert.ok(d !== null && typeof d === "object");
    assert.ok(Math.abs(0.11 * (1 - d.input) - 0.06) < 1e-9);
    assert.equal(d.output, 0.5);
  });

  await t.step("an embedding model and an unknown key are input errors", () => {
    assert.throws(() => importLitellm(map, "text-embedding-3-small", opts), /mode is "embedding"/);
    assert.throws(
      () => importLitellm(map, "gpt-4o-minii", opts),
      (e: Error) => e.name === "InputError" && /no model/.test(e.message),
    );
  });

  await t.step("end to end: the imported sheet prices a run", async () => {
    const sheet = importLitellm(map, "gpt-4o-mini", opts);
    const r = ledger(await loadRun(writeLedgerRun(), { onWarning: () => {} }), LEDGER_POLICY, sheet);
    // a1: 800 uncached × 0.15 + 200 cached × 0.075 + 500 out × 0.6 per Mtok = 0.00012 + 0.000015 + 0.0003.
    const cached = r.lines.find((l) => l.detail === "input tokens, cached")!;
    assert.ok(Math.abs(cached.amount - 0.000015) < 1e-15);
    // The model bill under gpt-4o-mini with the importer's assumed terms (429 and failed not charged, cancelled
    // charged): uncached input a1 800 + a2 retry 1000 + a4 600 + a5 500 + h1 fallback 700 = 3600 × 0.15 = 0.00054;
    // cached 0.000015; output 500 + 400 + 300 + 100 + 200 = 1500 × 0.6 = 0.0009 → 0.001455.
    assert.ok(Math.abs(r.overall.naive.model_bill - 0.001455) < 1e-12, String(r.overall.naive.model_bill));
    assert.ok(r.pricing.warnings.some((w) => /priced as model gpt-4o-mini; the log's attempts name sim$/.test(w)));
    assert.match(r.pricing.price_sheet.source, /snapshot dated 2026-07-24/);
  });

  await t.step("the source quotes a local map by its file name, a URL whole", () => {
    const local = importLitellm(map, "gpt-4o-mini", opts).source;
    assert.match(local, /\(BerriAI, MIT licence\), litellm_model_prices_and_context_window\.json, key/);
    const url = "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json";
    assert.ok(importLitellm(map, "gpt-4o-mini", { ...opts, file: url }).source.includes(`, ${url}, key`));
  });
});

Deno.test("import_prices CLI reproduces data/prices/litellm-gpt-4o-mini.json", async () => {
  const out = join(Deno.makeTempDirSync(), "sheet.json");
  const res = await runCli(
    "analysis/cli/import_prices.ts",
    [
      "--litellm",
      MAP_FILE,
      "--model",
      "gpt-4o-mini",
      "--as-of",
      "2026-07-24",
      "--out",
      out,
    ],
    ["-A"],
    { cwd: ROOT },
  );
  assert.equal(res.code, 0, res.stderr);
  assert.equal(Deno.readTextFileSync(out), Deno.readTextFileSync(join(ROOT, "data/prices/litellm-gpt-4o-mini.json")));
  assert.equal((await loadPriceSheet(out)).as_of, "2026-07-24");
  const bad = await runCli("analysis/cli/import_prices.ts", ["--litellm", MAP_FILE, "--model", "gpt-4o-mini"], ["-A"], {
    cwd: ROOT,
  });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--as-of DATE is required/);
  assert.doesNotMatch(bad.stderr, /at .*\.ts:\d+/);
});
