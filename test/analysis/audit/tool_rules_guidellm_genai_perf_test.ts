import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readGuidellm } from "../../../importers/sources/guidellm.ts";
import { readGenaiPerf } from "../../../importers/sources/genai_perf.ts";
import { headlineRecipe, percentileBy, ruleEntry } from "../../../analysis/audit/tool_rules.ts";
import type { HeadlineRow } from "../../../analysis/audit/headline_types.ts";
import { asHeadlineSource, recompute } from "./_rules_support.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** The real GuideLLM 0.8.0.dev18 report (../shared/data/peers/README.md), read in place. */
const GUIDELLM_08 = join(ROOT, "../shared/data/peers/guidellm/llm-d-benchmark_fixture/guidellm_report_v2.json");
const GENAI = join(ROOT, "test/fixtures/genai_perf");

const e2eRow = (stage: string, seconds: number): HeadlineRow => ({
  stage,
  ok: true,
  scheduled_ms: 0,
  sent_ms: 0,
  first_token_ms: null,
  completed_ms: seconds * 1000,
  output_tokens: null,
});

Deno.test("GuideLLM 0.8 rules on llm-d's real 0.8.0.dev18 report: percentiles by nearest rank, not linear", async (t) => {
  const run = await readGuidellm([GUIDELLM_08]);
  const src = asHeadlineSource(run);
  await t.step("the version read picks the GuideLLM 0.4 – 0.8 entry and its inverse-CDF method", () => {
    assert.equal(run.tool_version, "0.8.0.dev18");
    const r = headlineRecipe(
      "guidellm",
      "benchmarks[0].metrics.request_latency.successful.percentiles.p75",
      "0.8.0.dev18",
    );
    assert.equal(r?.kind, "latency_percentile");
    assert.equal(r?.kind === "latency_percentile" && r.method, "inverse_cdf");
    assert.equal(r!.rules.entry, "rule entry GuideLLM 0.4 – 0.8 (version read from the file: 0.8.0.dev18)");
  });
  // Each benchmark holds 2 successful requests: their latencies are the file's own min and max, so the distribution is
  // known exactly from the real file, and each published percentile can be recomputed from it.
  for (const [i, stage] of [[0, "constant@2"], [1, "constant@4"]] as const) {
    await t.step(`benchmarks[${i}] (${stage}): p50, median, p75, p99 from the 2 latencies`, () => {
      const k = (s: string) => `benchmarks[${i}].metrics.request_latency.successful.${s}`;
      const value = (s: string) => run.headlines.find((h) => h.key === k(s))!.value!;
      assert.equal(value("count"), 2);
      const rows = [e2eRow(stage, value("min")), e2eRow(stage, value("max"))];
      const withRows = { ...src, rows };
      for (
        const [s, want] of [["percentiles.p50", "min"], ["median", "min"], ["percentiles.p75", "max"], [
          "percentiles.p99",
          "max",
        ]] as const
      ) {
        // nearest rank over n = 2: p50 → x₍⌈1⌉₎ = the smaller; p75, p99 → x₍2₎ = the larger (the file's values)
        const r = recompute(withRows, k(s), stage, 1e-12);
        assert.equal(value(s), value(want), `the file: ${k(s)} = its ${want}`);
        assert.ok(Math.abs(r.recomputed!.value! - value(s)) < 1e-12, k(s));
        assert.equal(r.recomputed!.match, true, k(s));
      }
      // linear (numpy's default, the old rule) would give the mean for p50: (min + max) / 2 ≠ the file's p50
      const linear = percentileBy([value("min"), value("max")], 0.5, "linear");
      assert.ok(Math.abs(linear - value("percentiles.p50")) > 1e-4);
    });
  }
  await t.step("requests_per_second's mean = successful / the benchmark's duration (2 / 5.01964807510376 s)", () => {
    const r = recompute(src, "benchmarks[0].metrics.requests_per_second.successful.mean", "constant@2", 1e-12);
    // summary only: checked against its own totals: 2 / 5.01964807510376 = 0.39843430656414264 (the file's mean)
    assert.equal(r.recomputed, null);
    assert.equal(r.consistency[0]!.match, true);
  });
});

Deno.test("percentileBy: GuideLLM's inverse CDF is the first value whose running probability reaches p", () => {
  // [10, 20, 20, 30]: distinct 10, 20, 30 with weights 1/4, 2/4, 1/4 → running 0.25, 0.75, 1
  const xs = [10, 20, 20, 30];
  assert.equal(percentileBy(xs, 0.25, "inverse_cdf"), 10); // 0.25 ≥ 0.25 at the first
  assert.equal(percentileBy(xs, 0.5, "inverse_cdf"), 20);
  assert.equal(percentileBy(xs, 0.76, "inverse_cdf"), 30);
  assert.equal(percentileBy(xs, 0.75, "inverse_cdf_each"), 20); // 0.25 + 0.25 + 0.25 = 0.75 ≥ 0.75 at the third
  // LoadGen: index ⌊4 · 0.5⌋ = 2 → 20; ⌊4 · 0.99⌋ = 3 → 30
  assert.equal(percentileBy(xs, 0.5, "index_floor"), 20);
  assert.equal(percentileBy(xs, 0.99, "index_floor"), 30);
});

Deno.test("ruleEntry: GuideLLM versions and a version past the known entries", () => {
  assert.equal(ruleEntry("guidellm", "0.3.0")!.entry.label, "GuideLLM < 0.4");
  assert.equal(ruleEntry("guidellm", "0.8.1")!.entry.label, "GuideLLM 0.4 – 0.8");
  const c = ruleEntry("guidellm", "1.2.0")!;
  assert.equal(c.entry.label, "GuideLLM 0.4 – 0.8");
  assert.match(c.caveat!, /^guidellm 1\.2\.0 is outside the known rule entries: the nearest, GuideLLM 0\.4 – 0\.8/);
});

Deno.test("GenAI-Perf summary exports (fixture from its exporter tests): read, and its rule entry", async (t) => {
  const run = await readGenaiPerf([
    join(GENAI, "profile_export_genai_perf.json"),
    join(GENAI, "profile_export_genai_perf.csv"),
  ]);
  await t.step("headlines from both files, summary only, what it lacks", () => {
    assert.equal(run.tool, "genai-perf");
    assert.equal(run.summary_only, true);
    const v = (key: string) => run.headlines.find((h) => h.key === key)?.value;
    // time_to_first_token [7, 8, 9] ms: numpy.percentile p99 = 8 + 0.98 · (9 − 8) = 8.98
    assert.equal(v("time_to_first_token.p99"), 8.98);
    assert.equal(v("Time To First Token (ms)/p99"), 8.98);
    assert.equal(v("request_throughput.avg"), 123);
    assert.equal(v("Request Throughput (per sec)"), 123);
    assert.equal(run.stages[0]!.totals.ok, 3);
    assert.deepEqual(run.lacks.map((l) => l.field), [
      "per-request records",
      "scheduled_ms",
      "failed requests",
      "token counts",
      "gates",
    ]);
  });
  await t.step("its recipes: linear percentiles from the send; rates over first request → last response", () => {
    const p = headlineRecipe("genai-perf", "time_to_first_token.p99", null);
    assert.equal(p?.kind === "latency_percentile" && p.method, "linear");
    assert.equal(p!.rules.entry, "rule entry GenAI-Perf (no version in the file)");
    // the documented values recomputed under that method: [7, 8, 9] → 8.98
    assert.ok(Math.abs(percentileBy([7, 8, 9], 0.99, "linear") - 8.98) < 1e-12);
    assert.equal(
      headlineRecipe("genai-perf", "request_throughput.avg", null)?.rules.window,
      "first_send_to_last_response",
    );
  });
});
