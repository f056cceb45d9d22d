import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../../support/run_cli.ts";
import { auditHeadline, type HeadlineRow, type HeadlineSource } from "../../../analysis/audit/headline_audit.ts";
import { headlineRecipe, percentileBy } from "../../../analysis/audit/tool_rules.ts";
import { InputError } from "../../../schema/errors.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PEERS = fileURLToPath(new URL("../../../../shared/data/peers/", import.meta.url));
const importCli = (...args: string[]) =>
  runCli(join(ROOT, "importers/cli.ts"), args, ["--allow-read", "--allow-write"]);
const auditCli = (...args: string[]) =>
  runCli(join(ROOT, "analysis/cli/audit.ts"), args, ["--allow-read", "--allow-ffi", "--allow-env", "--allow-sys"]);

Deno.test("percentileBy: numpy's linear interpolation and the closest-rank methods", () => {
  const xs = [10, 20, 30, 40];
  // linear: h = (4 − 1) · 0.5 = 1.5 → 20 + 0.5 · (30 − 20) = 25
  assert.equal(percentileBy(xs, 0.5, "linear"), 25);
  // nearest rank: ⌈0.5 · 4⌉ = 2 → the 2nd = 20; lower x[⌊1.5⌋] = 20; higher x[⌈1.5⌉] = 30
  assert.equal(percentileBy(xs, 0.5, "nearest_rank"), 20);
  assert.equal(percentileBy(xs, 0.5, "lower"), 20);
  assert.equal(percentileBy(xs, 0.5, "higher"), 30);
  // linear p99: h = 3 · 0.99 = 2.97 → 30 + 0.97 · 10 = 39.7
  assert.ok(Math.abs(percentileBy(xs, 0.99, "linear") - 39.7) < 1e-12);
});

Deno.test("headlineRecipe: a key the table does not know is not recomputed", () => {
  assert.equal(headlineRecipe("aiperf", "records.ttst.p50"), null);
  assert.equal(headlineRecipe("vllm-bench-serve", "request_goodput"), null);
  assert.equal(headlineRecipe("aiperf", "records.ttft.p99")?.kind, "latency_percentile");
});

const row = (ok: boolean, sent: number, first: number | null, done: number | null, out = 5): HeadlineRow => ({
  stage: "s",
  ok,
  scheduled_ms: sent - 100,
  sent_ms: sent,
  first_token_ms: first,
  completed_ms: done,
  output_tokens: ok ? out : null,
});
// Three successful requests and one cancelled; the window runs 0 → 4000 ms (first send → last response).
const SRC: HeadlineSource = {
  tool: "aiperf",
  tool_version: null,
  headlines: [
    { key: "records.request_throughput.avg", stage: "s", value: 0.75, unit: "requests/sec", definition: "d" },
    { key: "records.ttft.p50", stage: "s", value: 200, unit: "ms", definition: "d" },
  ],
  stages: [{ name: "s", tool_duration_s: 4.0001, totals: { ok: 3, error: 0 } }],
  rows: [
    row(true, 0, 100, 1000),
    row(true, 1000, 1200, 2000),
    row(true, 2000, 2300, 4000),
    row(false, 3000, null, null),
  ],
  scheduled_from: "schedule",
  absolute_times: true,
  lacks: [],
};

Deno.test("auditHeadline: a request rate under the tool's rules, under ours, and the choices that reproduce it", () => {
  const r = auditHeadline(SRC, { headline: "records.request_throughput.avg", stage: null }, {
    value: 0.5,
    policy: "p.json",
  });
  // tool: 3 successful / (4000 − 0) ms = 0.75 req/s
  assert.equal(r.recomputed?.value, 0.75);
  assert.equal(r.recomputed?.match, true);
  // ours: 4 offered / 4 s = 1; accepted goodput as given
  assert.deepEqual(r.ours.map((c) => c.value), [1, 0.5]);
  // compared at the published precision: "0.75" stands for ±0.005; the tool's duration "4.0001" for ±0.00005 s,
  // 0.75 × 0.00005 / 4.0001 = 9.37e-6; arithmetic 0.75e-12 → allowed 0.00500937
  assert.equal(r.comparison.rule, "published_precision");
  assert.ok(Math.abs(r.comparison.allowed - (0.005 + 0.75 * 0.00005 / 4.0001 + 0.75e-12)) < 1e-15);
  // windows: tool 4.0001 s, send 4 s, schedule (−100 → 4000) 4.1 s → successful 3/4.0001 = 0.74998 (rounds to 0.75),
  // 0.75, 3/4.1 = 0.7317 (off); every record 1, 1, 0.9756 (off) → 2 of 6 reproduce
  assert.equal(r.searched, 6);
  assert.deepEqual(r.reproducing.map((c) => c.value), [3 / 4.0001, 0.75]);
  assert.equal(r.verdict, "reproduced");
});

Deno.test("auditHeadline: the published text decides the precision; a stated tolerance replaces it", () => {
  const claim = { headline: "records.ttft.p50", stage: "s" };
  // TTFTs from send 100, 200, 300 → linear p50 = 200; times have no grid (hand rows), arithmetic 200e-12
  // "200.4" stands for ±0.05: |200 − 200.4| = 0.4 > 0.05 + 2e-10 → not reproduced
  assert.equal(auditHeadline(SRC, { ...claim, value: 200.4, value_text: "200.4" }).verdict, "not_reproduced");
  // "2.0e2" stands for ±5 (2 significant digits): 200 reproduces it
  const coarse = auditHeadline(SRC, { ...claim, value: 200, value_text: "2.0e2" });
  assert.equal(coarse.comparison.published.half_unit, 5);
  assert.equal(coarse.verdict, "reproduced");
  // stated tolerance: relative 0.01 × 200.4 = 2.004 ≥ 0.4 → reproduced within that tolerance, and it says so
  const stated = auditHeadline(SRC, { ...claim, value: 200.4, value_text: "200.4", tolerance: { relative: 0.01 } });
  assert.equal(stated.comparison.rule, "stated_tolerance");
  assert.equal(stated.verdict, "reproduced");
  // the import's own value (200, as the import holds it) when the claim gives none
  assert.equal(auditHeadline(SRC, claim).comparison.published.from, "import");
});

Deno.test("auditHeadline: a headline the import does not hold, with no value given, is an input error", () => {
  assert.throws(
    () => auditHeadline(SRC, { headline: "records.ttft.p99", stage: null, file: "c.json" }),
    (e: Error) =>
      e instanceof InputError &&
      /^c\.json: headline "records\.ttft\.p99" at stage "s" is not in the import; it holds 2 headline\(s\): records\.ttft\.p50, /
        .test(e.message),
  );
  // the short form without "records." names the same headline
  const short = auditHeadline(SRC, { headline: "ttft.p50", stage: null });
  assert.equal(short.key, "records.ttft.p50");
  assert.equal(short.claimed, 200);
});

Deno.test("auditHeadline: a TTFT percentile moves with the method and the clock's start", () => {
  const r = auditHeadline(SRC, { headline: "records.ttft.p50", stage: "s" });
  // from send, successful: TTFTs 100, 200, 300 → linear h = 2 · 0.5 = 1 → 200
  assert.equal(r.recomputed?.value, 200);
  // ours: nearest rank ⌈0.5 · 3⌉ = 2 → 200; offered: [100, 200, 300, ∞] → ⌈0.5 · 4⌉ = 2 → 200;
  // from schedule (100 ms earlier): 200, 300, 400 → nearest rank 300
  assert.deepEqual(r.ours.map((c) => c.value), [200, 200, 300]);
});

Deno.test("auditHeadline: a summary-only source is checked against the tool's own numbers only", () => {
  const r = auditHeadline({ ...SRC, rows: null }, { headline: "records.request_throughput.avg", stage: "s" });
  assert.equal(r.recomputed, null);
  assert.match(r.why_not!, /summary-only source has no per-request data/);
  // the tool's totals: 3 ok / 4.0001 s = 0.74998 — at the published "0.75" (±0.005) it agrees
  assert.equal(r.consistency[0]!.value, 3 / 4.0001);
  assert.equal(r.consistency[0]!.match, true);
  assert.equal(r.verdict, "not_recomputed");
  assert.match(r.why_not!, /it is checked against the tool's own other numbers only$/);
  // a key with no number of the tool's to check it against: the reason says so, not "compared"
  const p = auditHeadline({ ...SRC, rows: null }, { headline: "records.ttft.p50", stage: "s" });
  assert.match(p.why_not!, /the tool writes no other number it can be checked against$/);
});

// LLMPerf: durations only (every request placed at 0), no tool duration; three records without error, one with.
const dur = (ok: boolean, ttft: number | null, e2e: number, out: number): HeadlineRow => ({
  stage: "concurrency 5",
  ok,
  scheduled_ms: 0,
  sent_ms: 0,
  first_token_ms: ttft,
  completed_ms: e2e,
  output_tokens: out,
});
const LLMPERF_SRC: HeadlineSource = {
  tool: "llmperf",
  tool_version: "results format 2023-08-31",
  headlines: [
    { key: "results_mean_output_throughput_token_per_s", stage: null, value: 0.5, unit: "tokens/s", definition: "d" },
    { key: "results_num_completed_requests_per_min", stage: null, value: 1.5, unit: "req/min", definition: "d" },
  ],
  stages: [{ name: "concurrency 5", tool_duration_s: null, totals: { ok: 3, error: 1 } }],
  rows: [dur(true, 100, 1000, 10), dur(true, 200, 2000, 20), dur(true, 400, 4000, 30), dur(false, null, 500, 3)],
  scheduled_from: "none",
  absolute_times: false,
  lacks: [],
};

Deno.test("auditHeadline: LLMPerf's per-minute rate over the window its output-token rate implies", () => {
  const r = auditHeadline(LLMPERF_SRC, { headline: "results_num_completed_requests_per_min", stage: null });
  // window = output tokens of the records without error / the tool's token rate = (10 + 20 + 30) / 0.5 = 120 s;
  // 3 successful / 120 s × 60 = 1.5 per minute
  assert.equal(r.recomputed?.value, 1.5);
  assert.equal(r.recomputed?.match, true);
  // ours: 4 offered / 120 s × 60 = 2; no window over the rows (durations only: that would be the longest, 4 s)
  assert.equal(r.ours[0]!.value, 2);
  // windows searched: the tool's duration (none) and the implied 120 s, × 2 denominators = 4; only 3/120×60 matches
  assert.equal(r.searched, 4);
  assert.deepEqual(r.reproducing.map((c) => c.value), [1.5]);
  // and the other way: 60 tokens / (3 / 1.5 × 60 = 120 s) = 0.5 tokens/s
  const t = auditHeadline(LLMPERF_SRC, { headline: "results_mean_output_throughput_token_per_s", stage: null });
  assert.equal(t.recomputed?.value, 0.5);
});

Deno.test("auditHeadline: LLMPerf's error count, and its latencies in seconds over records without error", () => {
  const e = auditHeadline(LLMPERF_SRC, { headline: "results_number_errors", stage: null, value: 1 });
  // one record with an error_code; the tool's own error total is 1
  assert.equal(e.recomputed?.value, 1);
  assert.equal(e.consistency[0]!.value, 1);
  const p = auditHeadline(LLMPERF_SRC, {
    headline: "results_end_to_end_latency_s_quantiles_p50",
    stage: null,
    value: 2,
  });
  // e2e of the records without error: 1000, 2000, 4000 ms → linear h = 2 · 0.5 = 1 → 2000 ms = 2 s
  assert.equal(p.recomputed?.value, 2);
  // offered, nearest rank: [1000, 2000, 4000, ∞] → ⌈0.5 · 4⌉ = 2 → 2 s
  assert.equal(p.ours[1]!.value, 2);
  const m = auditHeadline(LLMPERF_SRC, { headline: "results_ttft_s_mean", stage: null, value: 0.7 / 3 });
  // (100 + 200 + 400) / 3 ms = 233.33 ms = 0.23333 s
  assert.ok(Math.abs(m.recomputed!.value! - 0.7 / 3) < 1e-12);
  // the per-request ITL mean is not in the rows: not recomputed
  assert.equal(headlineRecipe("llmperf", "results_inter_token_latency_s_quantiles_p50"), null);
});

Deno.test("deno task import + audit: a peer's published headline, end to end", async (t) => {
  const tmp = Deno.makeTempDirSync();
  const claims = join(ROOT, "data/claims");

  await t.step("AIPerf run1: request_throughput and ttft p99 are reproduced from the per-request records", async () => {
    const dir = join(tmp, "aiperf");
    const i = await importCli(
      "--from",
      "aiperf",
      `${PEERS}aiperf/run1/profile_export.jsonl`,
      `${PEERS}aiperf/run1/profile_export_aiperf.json`,
      "--out",
      dir,
    );
    assert.equal(i.code, 0, i.stderr);
    const a = await auditCli(dir, "--claim", join(claims, "aiperf-run1-request-throughput.json"), "--json");
    assert.equal(a.code, 0, a.stderr);
    const r = JSON.parse(a.stdout);
    // python3: 89 lines without error; (max response − min send) = 9.317788951 s → 89 / 9.317788951 = 9.551622
    assert.equal(r.recomputed.n, 89);
    assert.ok(Math.abs(r.recomputed.value - 9.551622) < 1e-4);
    // ours: 100 records offered / 9.3177888 s = 10.73216
    assert.ok(Math.abs(r.ours[0].value - 10.73216) < 1e-3);
    const p = JSON.parse(
      (await auditCli(dir, "--claim", join(claims, "aiperf-run1-ttft-p99.json"), "--json")).stdout,
    );
    // python3: numpy.percentile(ttft of the 89 successful, 99) = 3833.38940004 (the tool's 3833.3894000399996)
    assert.ok(Math.abs(p.recomputed.value - 3833.3894) < 1e-2);
    assert.equal(p.recomputed.match, true);
    // nearest rank ⌈0.99 · 89⌉ = 89 → the largest TTFT, 3853.857423 (the tool's max)
    assert.ok(Math.abs(p.ours[0].value - 3853.857) < 1e-2);
  });

  await t.step("GuideLLM stripped: 1 of 47 records kept, the headline is not reproduced from them", async () => {
    const dir = join(tmp, "guidellm");
    const i = await importCli(
      "--from",
      "guidellm",
      `${PEERS}guidellm/f1dfdc6_main/benchmarks_stripped.json`,
      "--out",
      dir,
    );
    assert.equal(i.code, 0, i.stderr);
    const a = await auditCli(dir, "--claim", join(claims, "guidellm-stripped-request-rate.json"));
    assert.equal(a.code, 0, a.stderr);
    // 1 record / 29.997201 s = 0.0333364 is over a sample: NOT RECOMPUTED, never "not reproduced"
    assert.match(a.stdout, /^AUDIT: NOT RECOMPUTED — .*keeps 1 successful record\(s\) of the 46 the tool counted/);
    assert.match(a.stdout, /0\.03333644313152216 +1 +over a sample/);
    assert.doesNotMatch(a.stdout, /NOT REPRODUCED/);
    // the tool's totals: 46 / 29.997201442718506 = 1.5334763840500194, not the 1.5481806532737452 it prints
    assert.match(a.stdout, /46 \/ 29\.997201442718506 s +1\.5334763840500194 +46 +differs/);
  });

  await t.step("vLLM summary only: request_throughput against completed / duration", async () => {
    const dir = join(tmp, "vllm");
    const file = `${PEERS}vllm-bench-serve/llm-d-benchmark_fixture/vllm_benchmark_results.json`;
    assert.equal((await importCli("--from", "vllm-bench-serve", file, "--out", dir)).code, 0);
    const a = await auditCli(dir, "--claim", join(claims, "vllm-fixture-request-throughput.json"), "--json");
    assert.equal(a.code, 0, a.stderr);
    const r = JSON.parse(a.stdout);
    assert.equal(r.recomputed, null);
    // completed 198 / duration 39.0063 s = 5.076103 (the tool's 5.0761)
    assert.ok(Math.abs(r.consistency[0].value - 5.076103) < 1e-5);
    assert.equal(r.consistency[0].match, true);
  });

  await t.step("LLMPerf bedrock_70b: p50/p99 TTFT and e2e, the counts and the per-minute rate reproduced", async () => {
    const dir = join(tmp, "llmperf");
    const i = await importCli(
      "--from",
      "llmperf",
      `${PEERS}llmperf/individual/bedrock_70b.json`,
      `${PEERS}llmperf/summary/bedrock_70b.json`,
      "--out",
      dir,
    );
    assert.equal(i.code, 0, i.stderr);
    const audit = async (claim: string) => {
      const a = await auditCli(dir, "--claim", claim, "--json");
      assert.equal(a.code, 0, a.stderr);
      return JSON.parse(a.stdout);
    };
    // python3: ok = [r for r in json.load(individual) if r["error_code"] is None] → 101 of 150;
    // numpy.percentile([r["end_to_end_latency_s"] for r in ok], 50) = 6.989185308999367 (the summary's p50)
    const e2e = await audit(join(claims, "llmperf-bedrock70b-e2e-p50.json"));
    assert.equal(e2e.recomputed.n, 101);
    assert.ok(Math.abs(e2e.recomputed.value - 6.989185308999367) < 1e-9);
    assert.equal(e2e.recomputed.match, true);
    // numpy.percentile([r["ttft_s"] for r in ok], 99) = 0.686971139999514 (the summary's p99)
    const ttft = await audit(join(claims, "llmperf-bedrock70b-ttft-p99.json"));
    assert.ok(Math.abs(ttft.recomputed.value - 0.686971139999514) < 1e-9);
    // offered, nearest rank: 49 of 150 never succeeded (∞) > 1 % → no finite p99
    assert.equal(ttft.ours[1].value, null);
    // sum(number_output_tokens of ok) = 15125; 15125 / 62.867056292903534 = 240.58705611300138 s;
    // 101 / 240.58705611300138 × 60 = 25.18838751305755 (the summary's results_num_completed_requests_per_min)
    const rate = await audit(join(claims, "llmperf-bedrock70b-completed-per-min.json"));
    assert.ok(Math.abs(rate.recomputed.value - 25.18838751305755) < 1e-9);
    assert.equal(rate.recomputed.match, true);
    // ours: 150 offered / 240.587 s × 60 = 37.40848
    assert.ok(Math.abs(rate.ours[0].value - 37.40848) < 1e-4);
    // the summary's p90s, the counts (value from the imported summary, no claim file): 101 completed, 49 errors
    for (
      const [key, want] of [
        ["results_ttft_s_quantiles_p50", 0.38771994699891366], // numpy.percentile(ttft of ok, 50)
        ["results_ttft_s_quantiles_p90", 0.4904335050014197], // numpy.percentile(ttft of ok, 90)
        ["results_end_to_end_latency_s_quantiles_p90", 7.6169411320006475], // numpy.percentile(e2e of ok, 90)
        ["results_end_to_end_latency_s_quantiles_p99", 8.09341601000051], // numpy.percentile(e2e of ok, 99)
        ["results_num_completed_requests", 101], // len(ok)
        ["results_number_errors", 49], // 150 − 101
      ] as const
    ) {
      const file = join(tmp, `${key}.json`);
      Deno.writeTextFileSync(file, JSON.stringify({ headline: key, source: "the imported summary", run: dir }));
      const r = await audit(file);
      assert.ok(Math.abs(r.recomputed.value - want) < 1e-9, `${key}: ${r.recomputed.value}`);
      assert.equal(r.recomputed.match, true, key);
    }
  });

  await t.step("a headline claim with no import folder: exit 2", async () => {
    const a = await auditCli("--claim", join(claims, "vllm-fixture-request-throughput.json"));
    assert.equal(a.code, 2);
    assert.match(a.stderr, /a headline claim needs its import folder/);
  });
  Deno.removeSync(tmp, { recursive: true });
});
