import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../../support/run_cli.ts";
import { exportInferencePerf } from "../../../testing/peer_exports/inference_perf.ts";
import { headlineRecipe } from "../../../analysis/audit/tool_rules.ts";
import { req } from "../_fixture.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PEERS = fileURLToPath(new URL("../../../../shared/data/peers/", import.meta.url));
const importCli = (...args: string[]) =>
  runCli(join(ROOT, "importers/cli.ts"), args, ["--allow-read", "--allow-write"]);
const auditCli = (...args: string[]) =>
  runCli(join(ROOT, "analysis/cli/audit.ts"), args, ["--allow-read", "--allow-ffi", "--allow-env", "--allow-sys"]);

// No real per-request file of inference-perf exists in ../shared/data/peers (its reports only): the rules are tested
// on a file our exporter writes from four hand-made rows (ms: sent → first token → completed).
const ROWS = [
  req({ request_id: "a", class: "c", stage: "s", scheduled_ms: 0, first_token_ms: 100, completed_ms: 1000 }),
  req({
    request_id: "b",
    class: "c",
    stage: "s",
    scheduled_ms: 500,
    first_token_ms: 700,
    completed_ms: 2500,
    output_tokens: 20,
  }),
  req({
    request_id: "c",
    class: "c",
    stage: "s",
    scheduled_ms: 1000,
    first_token_ms: 1400,
    completed_ms: 3500,
    output_tokens: 30,
  }),
  req({ request_id: "d", class: "c", stage: "s", scheduled_ms: 1500, outcome: "http_error", http_status: 503 }),
];

Deno.test("headlineRecipe: inference-perf's report keys, in seconds, numpy percentiles over successes", () => {
  const r = headlineRecipe("inference-perf", "successes.latency.time_to_first_token.p90");
  assert.equal(r?.kind, "latency_percentile");
  assert.equal(r?.rules.to_ms, 1000);
  assert.match(r!.rules.text, /needs per_request_lifecycle_metrics\.json/);
  assert.equal(headlineRecipe("inference-perf", "successes.latency.inter_token_latency.p90"), null);
  assert.equal(headlineRecipe("inference-perf", "load_summary.achieved_rate"), null);
});

Deno.test("deno task audit: inference-perf's rate, counts and latencies from an exported per-request file", async (t) => {
  const tmp = Deno.makeTempDirSync();
  const file = join(tmp, "per_request_lifecycle_metrics.json");
  Deno.writeTextFileSync(file, exportInferencePerf(ROWS));
  const dir = join(tmp, "import");
  const i = await importCli("--from", "inference-perf", file, "--out", dir);
  assert.equal(i.code, 0, i.stderr);
  const audit = async (headline: string, value: number) => {
    const claim = join(tmp, "claim.json");
    Deno.writeTextFileSync(claim, JSON.stringify({ headline, value, source: "hand-derived" }));
    const a = await auditCli(dir, "--claim", claim, "--json");
    assert.equal(a.code, 0, a.stderr);
    return JSON.parse(a.stdout);
  };
  const cases: [string, number, string][] = [
    // 3 successful / (max end 3500 − min start 0) ms = 3 / 3.5 s
    ["successes.throughput.requests_per_sec", 3 / 3.5, "3 / 3.5 s"],
    // (10 + 20 + 30) output tokens / 3.5 s
    ["successes.throughput.output_tokens_per_sec", 60 / 3.5, "60 / 3.5 s"],
    ["successes.count", 3, "a, b, c"],
    ["failures.count", 1, "d (503)"],
    // TTFT 100, 200, 400 ms → linear h = 2 · 0.5 = 1 → 200 ms = 0.2 s
    ["successes.latency.time_to_first_token.median", 0.2, "0.2 s"],
    // e2e 1000, 2000, 2500 ms → linear p90: h = 2 · 0.9 = 1.8 → 2000 + 0.8 · 500 = 2400 ms = 2.4 s
    ["successes.latency.request_latency.p90", 2.4, "2.4 s"],
    // mean e2e (1000 + 2000 + 2500) / 3 = 1833.33 ms
    ["successes.latency.request_latency.mean", 5.5 / 3, "1.8333 s"],
  ];
  for (const [key, want, what] of cases) {
    await t.step(`${key} = ${what}`, async () => {
      const r = await audit(key, want);
      assert.ok(Math.abs(r.recomputed.value - want) < 1e-9, `${key}: ${r.recomputed.value}`);
      assert.equal(r.recomputed.match, true);
    });
  }
  await t.step("under ours: every record offered, 4 / 3.5 s", async () => {
    const r = await audit("successes.throughput.requests_per_sec", 3 / 3.5);
    assert.ok(Math.abs(r.ours[0].value - 4 / 3.5) < 1e-9);
  });
  await t.step("a real report alone (summary only): not recomputed, the per-request file is needed", async () => {
    const report = join(tmp, "report");
    const f = `${PEERS}inference-perf/kubecon-na-2025_vllm+batch_size/stage_0_lifecycle_metrics.json`;
    assert.equal((await importCli("--from", "inference-perf", f, "--out", report)).code, 0);
    const claim = join(tmp, "report-claim.json");
    Deno.writeTextFileSync(claim, JSON.stringify({ headline: "successes.count", stage: "stage_0", source: "report" }));
    const a = await auditCli(report, "--claim", claim, "--json");
    assert.equal(a.code, 0, a.stderr);
    const r = JSON.parse(a.stdout);
    assert.equal(r.recomputed, null);
    assert.match(r.why_not, /summary-only source has no per-request data/);
    assert.match(r.tool_rules, /needs per_request_lifecycle_metrics\.json/);
    // jq '.successes.count' stage_0_lifecycle_metrics.json = 60, the stage's successful total
    assert.equal(r.consistency[0].value, 60);
    assert.equal(r.consistency[0].match, true);
  });
  Deno.removeSync(tmp, { recursive: true });
});
