/**
 * Every file of ../shared/data/peers/ imported: a per-request file becomes a run that loadRun reads and goodput and
 * the latency table count; a summary becomes claims. Expected numbers are derived from the raw files with python3
 * (the derivation beside each), never from the importer.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SloPolicy } from "../../schema/slo.ts";
import { Claim } from "../../schema/claim.ts";
import { ImportedClaims } from "../../schema/imported_claims.ts";
import { readSource } from "../../importers/sources/mod.ts";
import type { SourceTool } from "../../importers/source.ts";
import { toContract } from "../../importers/to_contract.ts";
import { toClaims } from "../../importers/to_claims.ts";
import { writeClaims } from "../../importers/write_claims.ts";
import { writeImportedRun } from "../../importers/write_run.ts";
import { loadRun } from "../../analysis/run/load_run.ts";
import { goodput } from "../../analysis/goodput/goodput.ts";
import { runWindow } from "../../analysis/goodput/policy.ts";
import { latencyInWindow } from "../../analysis/latency/latency.ts";
import { runVerdicts } from "../../analysis/knee/verdicts.ts";
import { loadClaim } from "../../analysis/audit/claim.ts";
import { audit } from "../../analysis/audit/audit.ts";
import { isImported } from "../../schema/imported_manifest.ts";

const PEERS = fileURLToPath(new URL("../../../shared/data/peers/", import.meta.url));
const QUIET = { onWarning: () => {} };

/** Gates not required (the tools check none), one e2e limit for every request, every stage in the window. */
const policy = (e2e_ms: number): SloPolicy => ({
  denominator: "offered",
  window: { exclude_stage_kinds: [] },
  classes: {},
  default: { e2e_ms, gates: [] },
});

async function importRun(tool: SourceTool, files: string[]) {
  const dir = join(Deno.makeTempDirSync(), "run");
  await writeImportedRun(dir, toContract(await readSource(tool, files.map((f) => PEERS + f))));
  return await loadRun(dir, QUIET);
}

interface PerRequestCase {
  tool: SourceTool;
  files: string[];
  outcomes: Record<string, number>;
  limit: number;
  accepted: number;
  p50: number;
  p99: number;
  /** false: durations only, rates null. */
  rates: boolean;
}

/*
 * Derived with python3 (nr(v, p) = sorted(v)[ceil(p·len(v)) − 1], the nearest rank):
 * - aiperf run1: L = [json.loads(l) for l in open(f)]; ok = [l for l in L if l["error"] is None] → 100 records, 89 ok,
 *   11 with error code 499 (RequestCancellationError → aborted); e2e = metrics.request_latency.value of ok (no
 *   schedule: from the send); nr(e2e, .5) = 9097.345014999999, nr(e2e, .99) = 9299.772642; sum(e ≤ 9000) = 31.
 * - aiperf inferencex (0.8): 196 records, none failed or cancelled; e2e = (request_end_ns − request_start_ns) / 1e6;
 *   nr(e2e, .5) = 9408.376876, nr(e2e, .99) = 176369.86272; sum(e ≤ 20000) = 133.
 * - guidellm stripped (both commits, JSON and YAML): 1 successful record kept; e2e from the schedule =
 *   (end_time − scheduler_info.targeted_start_time) · 1000 = 692.0020580291748 (≤ 1000: accepted).
 * - llmperf groq_70b: 150 records, error_code None for all; e2e = end_to_end_latency_s · 1000;
 *   nr(e2e, .5) = 804.2427469044924, nr(e2e, .99) = 1002.5317929685116; sum(e ≤ 1000) = 148.
 * - llmperf bedrock_70b: 150 records, 101 ok, 49 with error_code −100 (no HTTP status → transport_error);
 *   nr(e2e, .5) = 6989.185308999367, nr(e2e, .99) = 8093.41601000051; sum(e ≤ 7000) = 56.
 */
const CASES: PerRequestCase[] = [
  {
    tool: "aiperf",
    files: ["aiperf/run1/profile_export.jsonl"],
    outcomes: { ok: 89, aborted: 11 },
    limit: 9000,
    accepted: 31,
    p50: 9097.345014999999,
    p99: 9299.772642,
    rates: true,
  },
  {
    tool: "aiperf",
    files: ["aiperf/inferencex_kimik2.7_conc1/profile_export.jsonl"],
    outcomes: { ok: 196 },
    limit: 20000,
    accepted: 133,
    p50: 9408.376876,
    p99: 176369.86272,
    rates: true,
  },
  ...["a1fe883", "f1dfdc6_main"].flatMap((c) =>
    ["json", "yaml"].map((ext): PerRequestCase => ({
      tool: "guidellm",
      files: [`guidellm/${c}/benchmarks_stripped.${ext}`],
      outcomes: { ok: 1 },
      limit: 1000,
      accepted: 1,
      p50: 692.0020580291748,
      p99: 692.0020580291748,
      rates: true,
    }))
  ),
  {
    tool: "llmperf",
    files: ["llmperf/individual/groq_70b.json"],
    outcomes: { ok: 150 },
    limit: 1000,
    accepted: 148,
    p50: 804.2427469044924,
    p99: 1002.5317929685116,
    rates: false,
  },
  {
    tool: "llmperf",
    files: ["llmperf/individual/bedrock_70b.json", "llmperf/summary/bedrock_70b.json"],
    outcomes: { ok: 101, transport_error: 49 },
    limit: 7000,
    accepted: 56,
    p50: 6989.185308999367,
    p99: 8093.41601000051,
    rates: false,
  },
];

Deno.test("every per-request file of shared/data/peers imports into a run that goodput and latency read", async (t) => {
  for (const c of CASES) {
    await t.step(`${c.tool}: ${c.files[0]}`, async () => {
      const run = await importRun(c.tool, c.files);
      const n = Object.values(c.outcomes).reduce((a, b) => a + b, 0);
      assert.equal(run.requests.height, n);
      const counts = Object.fromEntries(
        (run.requests.groupBy("outcome").len().toRecords() as { outcome: string; len: number }[])
          .map((r) => [r.outcome, Number(r.len)]),
      );
      assert.deepEqual(counts, c.outcomes);
      const g = goodput(run, policy(c.limit));
      assert.deepEqual([g.overall.offered, g.overall.accepted], [n, c.accepted]);
      // accepted / offered, and a rate only where the source has a time window
      assert.equal(g.overall.acceptance_rate, c.accepted / n);
      if (c.rates) assert.equal(g.overall.accepted_goodput, c.accepted / g.overall.measurement_seconds!);
      else assert.deepEqual([g.overall.accepted_goodput, g.overall.measurement_seconds], [null, null]);
      // the caveats head the disclosure
      assert.equal(g.disclosure.imported?.tool, c.tool);
      assert.match(g.disclosure.inclusion_rules[0]!, new RegExp(`^IMPORTED RUN: requests written by ${c.tool}`));
      assert.ok(g.disclosure.imported!.lacks.some((l) => l.field === "gates"));
      const rows = latencyInWindow(run, runWindow(run, policy(c.limit).window));
      const e2e = (p: number) =>
        rows.find((r) => r.class === null && r.stage === null && r.metric === "e2e_ms" && r.p === p)!;
      // Epoch ms near 1.8e12 resolve 2.4e-4 ms: equal within 1e-3 ms.
      assert.ok(Math.abs(e2e(0.5).value! - c.p50) < 1e-3, `p50 ${e2e(0.5).value} vs ${c.p50}`);
      assert.ok(Math.abs(e2e(0.99).value! - c.p99) < 1e-3, `p99 ${e2e(0.99).value} vs ${c.p99}`);
      assert.match(e2e(0.5).inclusion, new RegExp(`IMPORTED from ${c.tool}`));
      // the verdicts (the report's first lines) start with the source
      assert.match(runVerdicts(run, runWindow(run, policy(c.limit).window), g).lines[0]!, /^IMPORTED RUN/);
    });
  }
  await t.step("a stripped GuideLLM file keeps 1 of the 47 requests it counted, and the run says so", async () => {
    const run = await importRun("guidellm", ["guidellm/a1fe883/benchmarks_stripped.json"]);
    const m = run.manifest;
    assert.ok(isImported(m));
    // request_totals in the file: successful 46, incomplete 1 (python: b["request_totals"])
    assert.deepEqual([m.stages[0]!.tool_totals.ok, m.stages[0]!.tool_totals.incomplete], [46, 1]);
    assert.ok(m.lacks.some((l) => l.field === "requests (sampled)"));
    // with a schedule (targeted_start_time): latency from it, send lag recorded
    assert.equal(m.timeline.scheduled_from, "schedule");
  });
});

/*
 * Claims per summary file: the headlines that are TTFT/TPOT/e2e percentiles, counted with python3 over the raw keys:
 * vLLM fixture: keys ^(p[\d.]+|median)_(ttft|tpot|e2el)_ms$ → 33 (p99_ttft_ms 114.7431); legacy → 6 (no e2el);
 * AIPerf run1 JSON: records.{ttft,request_latency}.pNN → 16 (records.ttft.p99 3833.3894000399996); its CSV:
 * rows "Time to First Token (ms)" and "Request Latency (ms)" × p columns → 16; inferencex JSON: 18 profiling + 18 in
 * warmup_metrics → 36; its CSV → 18; GuideLLM v2: 2 benchmarks × 2 metrics × (11 percentiles + median) → 48
 * (benchmarks[0] TTFT p99 11.686325073242188 ms); LLMPerf summaries: results_{ttft_s,end_to_end_latency_s}_quantiles_pNN
 * → 12 each (bedrock e2e p99 8.09341601000051 s); inference-perf: successes.latency.{request_latency,
 * time_to_first_token}.{pX,median} → 22 each (stage_0 e2e p99 0.49334994919016023 s); MLPerf: 6 percentiles × (e2e,
 * first token) → 12 in the summary (99.00 percentile latency 30354675329 ns) and 12 in the detail log.
 */
const CLAIM_CASES: { tool: SourceTool; file: string; claims: number; check?: [string, number] }[] = [
  {
    tool: "vllm-bench-serve",
    file: "vllm-bench-serve/llm-d-benchmark_fixture/vllm_benchmark_results.json",
    claims: 33,
    check: ["p99_ttft_ms", 114.7431],
  },
  {
    tool: "vllm-bench-serve",
    file: "vllm-bench-serve/legacy_benchmark_serving_py/benchmark_2025-05-11_23-00-27.json",
    claims: 6,
  },
  {
    tool: "aiperf",
    file: "aiperf/run1/profile_export_aiperf.json",
    claims: 16,
    check: ["records.ttft.p99", 3833.3894000399996],
  },
  { tool: "aiperf", file: "aiperf/run1/profile_export_aiperf.csv", claims: 16 },
  { tool: "aiperf", file: "aiperf/inferencex_kimik2.7_conc1/profile_export_aiperf.json", claims: 36 },
  { tool: "aiperf", file: "aiperf/inferencex_kimik2.7_conc1/profile_export_aiperf.csv", claims: 18 },
  {
    tool: "guidellm",
    file: "guidellm/llm-d-benchmark_fixture/guidellm_report_v2.json",
    claims: 48,
    check: ["benchmarks[0].metrics.time_to_first_token_ms.successful.percentiles.p99", 11.686325073242188],
  },
  { tool: "llmperf", file: "llmperf/summary/groq_70b.json", claims: 12 },
  {
    tool: "llmperf",
    file: "llmperf/summary/bedrock_70b.json",
    claims: 12,
    check: ["results_end_to_end_latency_s_quantiles_p99", 8093.41601000051],
  },
  {
    tool: "inference-perf",
    file: "inference-perf/kubecon-na-2025_vllm+batch_size/stage_0_lifecycle_metrics.json",
    claims: 22,
    check: ["successes.latency.request_latency.p99", 493.34994919016023],
  },
  {
    tool: "inference-perf",
    file: "inference-perf/kubecon-na-2025_vllm+batch_size/summary_lifecycle_metrics.json",
    claims: 22,
  },
  {
    tool: "mlperf-loadgen",
    file: "mlperf-inference/AMD_8xMI300X_llama2-70b-99.9_Interactive_run_1/mlperf_log_summary.txt",
    claims: 12,
    check: ["99.00 percentile latency (ns)", 30354.675329],
  },
  {
    tool: "mlperf-loadgen",
    file: "mlperf-inference/AMD_8xMI300X_llama2-70b-99.9_Interactive_run_1/mlperf_log_detail.txt",
    claims: 12,
  },
];

Deno.test("every summary file of shared/data/peers becomes claims, its latency percentiles audit claim files", async (t) => {
  for (const c of CLAIM_CASES) {
    await t.step(`${c.tool}: ${c.file}`, async () => {
      const source = await readSource(c.tool, [PEERS + c.file]);
      assert.equal(source.summary_only, true);
      const dir = join(Deno.makeTempDirSync(), "claims");
      const written = writeClaims(dir, toClaims(source));
      // claims.json holds every headline of the tool, as read
      const onDisk = ImportedClaims.parse(JSON.parse(Deno.readTextFileSync(join(dir, "claims.json"))));
      assert.equal(onDisk.headlines.length, source.headlines.length);
      assert.deepEqual(onDisk.headlines.map((h) => h.key), source.headlines.map((h) => h.key));
      const mapped = written.headlines.filter((h) => h.claim !== null);
      assert.equal(mapped.length, c.claims);
      // each one is an audit claim file on disk, which the audit reads
      for (const h of mapped) Claim.parse(JSON.parse(Deno.readTextFileSync(join(dir, h.claim!.file))));
      const first = await loadClaim(join(dir, mapped[0]!.claim!.file));
      assert.equal(first.metric, "latency_percentile");
      if (c.check) {
        const [key, ms] = c.check;
        const h = mapped.find((x) => x.key === key)!;
        // the value in ms (s × 1000, ns × 1e-6), within float rounding
        assert.ok(Math.abs(h.claim!.claim.value - ms) < 1e-9 * Math.max(1, ms), `${key}: ${h.claim!.claim.value}`);
      }
      // every other headline says why it is not a claim
      for (const h of written.headlines.filter((x) => x.claim === null)) assert.ok(h.why_not);
    });
  }
});

Deno.test("a summary's claim audited on the per-request import of the same benchmark (LLMPerf bedrock_70b)", async () => {
  const run = await importRun("llmperf", ["llmperf/individual/bedrock_70b.json"]);
  const dir = join(Deno.makeTempDirSync(), "claims");
  const claims = writeClaims(dir, toClaims(await readSource("llmperf", [PEERS + "llmperf/summary/bedrock_70b.json"])));
  const h = claims.headlines.find((x) => x.key === "results_end_to_end_latency_s_quantiles_p50")!;
  const claim = await loadClaim(join(dir, h.claim!.file));
  const r = audit(run, claim, { policy: policy(10_000) });
  // python3: summary results_end_to_end_latency_s_quantiles_p50 = 6.989185308999367 s (pandas' linear quantile of the
  // 101 records without error); nearest-rank p50 of the same 101 e2e values = the 51st = 6989.185308999367 ms
  assert.equal(r.stated.value, 6989.185308999367);
  assert.equal(r.stated.match, true);
  assert.equal(r.stated.latency!.n, 101);
});

Deno.test("an import whose rows break the contract (times backwards, a count below 0) is refused before anything is written", async () => {
  const file = PEERS + "llmperf/individual/bedrock_70b.json";
  const run = toContract(await readSource("llmperf", [file]));
  const done = run.requests.find((r) => r.completed_ms !== null)!;
  const answered = run.attempts.find((a) => a.first_token_ms !== null && a.last_token_ms !== null)!;
  const bad = {
    ...run,
    requests: run.requests.map((r) => r === done ? { ...r, completed_ms: r.scheduled_ms - 1 } : r),
    attempts: run.attempts.map((a) =>
      a === answered ? { ...a, last_token_ms: a.first_token_ms! - 0.5, output_tokens: -3 } : a
    ),
  };
  const dir = join(Deno.makeTempDirSync(), "run");
  await assert.rejects(() => writeImportedRun(dir, bad), (e: Error) => {
    const text = e.message;
    assert.match(text, /bedrock_70b\.json: rows the contract does not allow: nothing written/);
    assert.match(
      text,
      new RegExp(
        `bedrock_70b\\.json → requests: completed_ms: 1 rows before their scheduled_ms \\(e\\.g\\. request_id "${done.request_id}"\\)`,
      ),
    );
    assert.match(text, /→ attempts: last_token_ms: 1 rows before their first_token_ms/);
    assert.match(
      text,
      new RegExp(
        `→ attempts: 1 rows the contract does not allow \\(e\\.g\\. request_id "${answered.request_id}": output_tokens: `,
      ),
    );
    return true;
  });
  assert.throws(() => Deno.statSync(dir), Deno.errors.NotFound, "nothing written");
  // The source as it is: in order, written.
  await writeImportedRun(dir, run);
});
