/**
 * The round trip: the sample run data/runs/explore (our runner against the simulator: 527 requests, 512 ok, 15
 * http_error), exported to each peer tool's per-request format (testing/peer_exports/) and imported back, gives the
 * same goodput and latency percentiles as the original — or, where the format cannot carry something, the documented
 * difference: a format without a schedule measures from the send (its numbers equal ours computed from first_sent_ms),
 * a format without HTTP status turns http_error into transport_error, a format of durations only has no rates.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RequestRow } from "../../schema/events.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { isImported } from "../../schema/imported_manifest.ts";
import { readSource } from "../../importers/sources/mod.ts";
import type { SourceTool } from "../../importers/source.ts";
import { toContract } from "../../importers/to_contract.ts";
import { writeImportedRun } from "../../importers/write_run.ts";
import { exportAiperf } from "../../testing/peer_exports/aiperf.ts";
import { exportGeneric } from "../../testing/peer_exports/generic.ts";
import { exportGuidellm } from "../../testing/peer_exports/guidellm.ts";
import { exportInferencePerf } from "../../testing/peer_exports/inference_perf.ts";
import { exportLlmperf } from "../../testing/peer_exports/llmperf.ts";
import { exportVllmBench } from "../../testing/peer_exports/vllm_bench.ts";
import { loadRun } from "../../analysis/run/load_run.ts";
import type { LoadedRun } from "../../analysis/run/loaded_run.ts";
import { goodput } from "../../analysis/goodput/goodput.ts";
import { runWindow } from "../../analysis/goodput/policy.ts";
import { latencyInWindow } from "../../analysis/latency/latency.ts";
import { exploreRows } from "../testing/peer_exports/_explore_rows.ts";

const EXPLORE = new URL("../../data/runs/explore", import.meta.url).pathname;
const QUIET = { onWarning: () => {} };
/** The stated SLO: e2e ≤ 3000 ms, gates not required (the tools check none), every stage, offered denominator. */
const LIMIT = 3000;
const POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: [] },
  classes: {},
  default: { e2e_ms: LIMIT, gates: [] },
};
const PS = [0.5, 0.95, 0.99];

/** The nearest rank (the analysis's definition), computed here apart from it: sorted[ceil(p·n) − 1]. */
function nearestRank(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.max(1, Math.ceil(p * s.length - 1e-9)) - 1]!;
}

function e2eRows(run: LoadedRun) {
  const rows = latencyInWindow(run, runWindow(run, POLICY.window));
  return PS.map((p) => rows.find((r) => r.class === null && r.stage === null && r.metric === "e2e_ms" && r.p === p)!);
}

interface Format {
  name: string;
  tool: SourceTool;
  /** The files to write (name → text). */
  files: (
    rows: RequestRow[],
    epoch_iso: string,
    attempts: Parameters<typeof exportLlmperf>[1],
  ) => Record<string, string>;
  /** The format keeps the schedule: latency from it, as ours; else from the send. */
  schedule: boolean;
  /** What our 15 http_error rows become: the format keeps the HTTP status, or not (transport_error). */
  failed: "http_error" | "transport_error";
  /** The format has times: rates are recomputed; false: durations only, rates null. */
  rates: boolean;
}

const FORMATS: Format[] = [
  {
    name: "GuideLLM benchmarks.json",
    tool: "guidellm",
    files: (r, epoch_iso) => ({ "benchmarks.json": exportGuidellm(r, { epoch_iso }) }),
    schedule: true,
    failed: "transport_error",
    rates: true,
  },
  {
    name: "GuideLLM benchmarks.yaml",
    tool: "guidellm",
    files: (r, epoch_iso) => ({ "benchmarks.yaml": exportGuidellm(r, { epoch_iso, format: "yaml" }) }),
    schedule: true,
    failed: "transport_error",
    rates: true,
  },
  {
    name: "AIPerf profile_export.jsonl (0.8)",
    tool: "aiperf",
    files: (r, epoch_iso) => ({ "profile_export.jsonl": exportAiperf(r, { epoch_iso }) }),
    schedule: false,
    failed: "http_error",
    rates: true,
  },
  {
    name: "AIPerf profile_export.jsonl (early)",
    tool: "aiperf",
    files: (r, epoch_iso) => ({ "profile_export.jsonl": exportAiperf(r, { epoch_iso, form: "early" }) }),
    schedule: false,
    failed: "http_error",
    rates: true,
  },
  {
    name: "vLLM bench serve --save-detailed (start_times)",
    tool: "vllm-bench-serve",
    files: (r, epoch_iso) => ({ "vllm.json": exportVllmBench(r, { epoch_iso }) }),
    schedule: false,
    failed: "transport_error",
    rates: true,
  },
  {
    name: "vLLM bench serve v0.10 (no start_times)",
    tool: "vllm-bench-serve",
    files: (r, epoch_iso) => ({ "vllm.json": exportVllmBench(r, { epoch_iso, form: "v0.10" }) }),
    schedule: false,
    failed: "transport_error",
    rates: false,
  },
  {
    name: "LLMPerf individual_responses.json",
    tool: "llmperf",
    files: (r, _e, o) => ({ "individual_responses.json": exportLlmperf(r, o) }),
    schedule: false,
    failed: "http_error",
    rates: false,
  },
  {
    name: "inference-perf per_request_lifecycle_metrics.json",
    tool: "inference-perf",
    files: (r, _e, o) => ({ "per_request_lifecycle_metrics.json": exportInferencePerf(r, o) }),
    schedule: false,
    failed: "http_error",
    rates: true,
  },
  {
    name: "generic CSV with its mapping",
    tool: "generic",
    files: (r, epoch_iso) => {
      const g = exportGeneric(r, epoch_iso);
      return { "requests.csv": g.csv, "mapping.json": g.mapping };
    },
    schedule: false,
    failed: "http_error",
    rates: true,
  },
];

Deno.test("the explore run exported to each peer format and imported back gives our goodput and percentiles", async (t) => {
  const { requests, attempts, epoch_iso } = await exploreRows();
  const original = await loadRun(EXPLORE, QUIET);
  const g0 = goodput(original, POLICY);
  const ok = requests.filter((r) => r.outcome === "ok");
  const fromSchedule = ok.map((r) => r.completed_ms! - r.scheduled_ms);
  const fromSend = ok.map((r) => r.completed_ms! - r.first_sent_ms!);
  await t.step("the original: 527 offered, 512 ok, 15 http_error; accepted = ok with e2e ≤ 3000 ms", () => {
    assert.deepEqual([g0.overall.offered, g0.overall.completed], [527, 512]);
    assert.equal(requests.filter((r) => r.outcome === "http_error").length, 15);
    // counted here from the rows, apart from goodput()
    assert.equal(g0.overall.accepted, fromSchedule.filter((e) => e <= LIMIT).length);
    const e2e = e2eRows(original);
    for (const [i, p] of PS.entries()) assert.equal(e2e[i]!.value, nearestRank(fromSchedule, p));
  });
  for (const f of FORMATS) {
    await t.step(f.name, async () => {
      const dir = Deno.makeTempDirSync();
      const files = Object.entries(f.files(requests, epoch_iso, { attempts })).map(([name, text]) => {
        Deno.writeTextFileSync(join(dir, name), text);
        return join(dir, name);
      });
      const out = join(dir, "run");
      await writeImportedRun(out, toContract(await readSource(f.tool, files)));
      const run = await loadRun(out, QUIET);
      assert.ok(isImported(run.manifest));
      const g = goodput(run, POLICY);
      // every request was sent, so every one is in the export and back
      assert.deepEqual([g.overall.offered, g.overall.completed], [527, 512]);
      const failed = (run.requests.getColumn("outcome").toArray() as string[]).filter((o) => o !== "ok");
      assert.deepEqual([failed.length, new Set(failed)], [15, new Set([f.failed])]);
      // a format with the schedule gives our numbers; one without, ours measured from first_sent_ms
      const e2e = f.schedule ? fromSchedule : fromSend;
      assert.equal(run.manifest.timeline.scheduled_from, f.schedule ? "schedule" : f.rates ? "send" : "none");
      assert.equal(g.overall.accepted, e2e.filter((e) => e <= LIMIT).length);
      if (f.schedule) assert.equal(g.overall.accepted, g0.overall.accepted);
      const rows = e2eRows(run);
      for (const [i, p] of PS.entries()) {
        // GuideLLM's epoch seconds and AIPerf's epoch ns keep ~2.4e-4 ms at 1.8e12 ms: equal within 1e-3 ms
        assert.ok(Math.abs(rows[i]!.value! - nearestRank(e2e, p)) < 1e-3, `p${p * 100}: ${rows[i]!.value}`);
      }
      if (f.rates) {
        // rates over the imported stages' windows (importers/_stages.ts): accepted / the window's seconds
        const seconds = run.manifest.stages.reduce((s, st) => s + (st.end_ms - st.start_ms), 0) / 1000;
        assert.ok(Math.abs(g.overall.measurement_seconds! - seconds) < 1e-9);
        assert.equal(g.overall.accepted_goodput, g.overall.accepted / g.overall.measurement_seconds!);
      } else {
        assert.deepEqual([g.overall.accepted_goodput, g.overall.measurement_seconds], [null, null]);
      }
    });
  }
});
