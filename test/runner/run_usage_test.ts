import assert from "node:assert/strict";
import { join } from "node:path";
import { ledger } from "../../analysis/cost/ledger.ts";
import { loadRun } from "../../analysis/run/load_run.ts";
import { NOT_REPORTED } from "../../analysis/cost/price_attempts.ts";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { SimProfile } from "../../schema/sim_profile.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import { startSim } from "../../sim/mod.ts";
import { hosted, sheetA } from "../analysis/cost/ledger_fixture.ts";
import { constantPlan, tinyCase, writeWorkload } from "../../testing/tiny_workload.ts";

Deno.test("a run against a reasoning, cache-writing simulator records both counts and the ledger prices them", async () => {
  const dir = Deno.makeTempDirSync();
  // Two classes: qa (streamed) reasons for 12 tokens; plain (not streamed) for 0 — a reasoning model reports both.
  const plainMessages = [{ role: "user" as const, content: "Say tok0 plainly" }];
  const wdir = writeWorkload(dir, [
    tinyCase(),
    tinyCase({ case_id: "plain-001", class: "plain", messages: plainMessages }),
  ], { qa: true, plain: false });
  const { workload } = await loadWorkload(wdir);
  const profile = SimProfile.parse({
    name: "reasoning",
    engine: { decode_step_ms_base: 2, decode_step_ms_per_seq: 0, cache_write_field: "cache_creation_input_tokens" },
    behaviour: { default: { accuracy: 1 }, classes: { qa: { reasoning_tokens: 12 } } },
  });
  const sim = await startSim({ port: 0, profile, workload, seed: 1, quiet: true });
  let runDir: string;
  try {
    ({ dir: runDir } = await runLoadTest({
      workload: wdir,
      plan: constantPlan(dir, 20, 0.5),
      target: sim.url,
      out: join(dir, "out"),
      formats: ["csv"],
      progress: false,
    }));
  } finally {
    await sim.stop();
  }
  const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
  const attempts = await readLogCsv(join(runDir, "attempts.csv"), "attempts");
  const classOf = new Map(requests.map((r) => [r.request_id, r.class]));
  assert.ok(
    requests.length >= 8 && requests.every((r) => r.outcome === "ok"),
    JSON.stringify(requests.map((r) => r.outcome)),
  );
  for (const a of attempts) {
    const qa = classOf.get(a.request_id) === "qa";
    assert.equal(a.reasoning_tokens, qa ? 12 : 0, a.request_id);
    // Round 0, nothing cached: the whole prompt is written to the cache (reported inside prompt_tokens).
    assert.equal(a.cache_write_tokens, a.input_tokens, a.request_id);
    assert.ok(a.output_tokens > (qa ? 12 : 0), "reasoning tokens are part of output tokens");
    assert.equal(a.token_source, "usage");
  }
  for (const r of requests) {
    const own = attempts.filter((a) => a.request_id === r.request_id);
    assert.equal(r.reasoning_tokens, own.reduce((s, a) => s + a.reasoning_tokens!, 0), r.request_id);
    assert.equal(r.cache_write_tokens, own.reduce((s, a) => s + a.cache_write_tokens!, 0), r.request_id);
  }

  const run = await loadRun(runDir, { onWarning: () => {} });
  const policy: SloPolicy = {
    denominator: "offered",
    window: { exclude_stage_kinds: [] },
    classes: {},
    default: { e2e_ms: 10_000, gates: ["output_valid", "quality_ok"] },
  };
  const price = { ...hosted(1, 0.5, 4, { rejected: false, failed: false, cancelled: true }) };
  const r = ledger(
    run,
    policy,
    sheetA({ routes: { "*": { ...price, reasoning_per_mtok: 10, cache_write_per_mtok: 1.25 } } }),
  );
  const sum = (k: "reasoning_tokens" | "cache_write_tokens") => attempts.reduce((s, a) => s + a[k]!, 0);
  const line = (detail: string) => r.lines.find((l) => l.detail === detail)!;
  assert.ok(
    Math.abs(line("reasoning tokens (part of output tokens)").quantity - sum("reasoning_tokens") / 1e6) < 1e-15,
  );
  assert.ok(Math.abs(line("input tokens, cache writes").quantity - sum("cache_write_tokens") / 1e6) < 1e-15);
  // Every write is the whole prompt: no uncached input is left at the input price, and nothing is "not reported".
  assert.equal(r.lines.find((l) => l.detail === "input tokens, uncached"), undefined);
  assert.ok(!r.lines.some((l) => l.detail === NOT_REPORTED.reasoning || l.detail === NOT_REPORTED.cache_write));
  assert.deepEqual(r.pricing.warnings.filter((w) => /not reported/.test(w)), []);
});
