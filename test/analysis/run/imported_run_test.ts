/**
 * A run imported from another tool's file, read by the analysis: loaded with the same checks as a runner's run,
 * its caveats carried into goodput's disclosure, the verdicts and the report's first lines, its lack of a time
 * window turned into null rates, and the analyses that need what only our runner records refusing it by name.
 */
import { runReportExtras } from "../../../analysis/report/report_extras.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { InputError } from "../../../schema/errors.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import type { SourceRequest, SourceRun } from "../../../importers/source.ts";
import { toContract } from "../../../importers/to_contract.ts";
import { writeImportedRun } from "../../../importers/write_run.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { scanRun } from "../../../analysis/run/scan_run.ts";
import { importCaveats, NO_TIME_WINDOW_RULE } from "../../../analysis/run/imported_run.ts";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { formatGoodput } from "../../../analysis/goodput/format_goodput.ts";
import { knee } from "../../../analysis/knee/knee.ts";
import { retries } from "../../../analysis/recovery/retries.ts";
import { buildReport } from "../../../analysis/report/report.ts";

const QUIET = { onWarning: () => {} };
const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: [] },
  classes: { imported: { e2e_ms: 1000, gates: ["output_valid", "quality_ok", "safety_ok", "auth_ok"] } },
  default: { e2e_ms: 1000, gates: [] },
};

function rec(id: string, sent: number | null, e2e: number | null, over: Partial<SourceRequest> = {}): SourceRequest {
  return {
    id,
    at: `f: ${id}`,
    stage: "closed",
    outcome: "ok",
    tool_status: null,
    http_status: null,
    scheduled_epoch_ms: null,
    sent_epoch_ms: sent === null ? null : T0 + sent,
    first_token_epoch_ms: null,
    completed_epoch_ms: null,
    ttft_ms: e2e === null ? null : 50,
    e2e_ms: e2e,
    itl_ms: null,
    input_tokens: 10,
    output_tokens: 20,
    token_source: "tool_tokenizer",
    tool_metrics: {},
    ...over,
  };
}

/**
 * Four requests sent at 0, 1000, 2000 and 3000 ms: e2e 400, 900, 1500 and a 503. Under e2e ≤ 1000 ms with every gate
 * required by the class: accepted = the two ok within 1000 (gates pass as n/a: applicable_gates is empty) = 2 of 4.
 */
function source(requests = [
  rec("a", 0, 400),
  rec("b", 1000, 900),
  rec("c", 2000, 1500),
  rec("d", 3000, null, { outcome: "error", http_status: 503, tool_status: "Service Unavailable" }),
]): SourceRun {
  return {
    tool: "aiperf",
    tool_version: "0.8.0",
    files: [{ path: "profile_export.jsonl", sha256: "cd".repeat(32), format: "profile_export.jsonl" }],
    model: "m",
    stages: [{
      name: "closed",
      rate_rps: null,
      concurrency: 4,
      start_epoch_ms: null,
      end_epoch_ms: null,
      duration_s: null,
      totals: { ok: null, error: null, cancelled: null, incomplete: null },
    }],
    requests,
    summary_only: false,
    headlines: [],
    lacks: [{ field: "scheduled_ms", consequence: "no schedule: latency from send" }],
    notes: [],
  };
}

async function imported(s: SourceRun = source()): Promise<string> {
  const dir = join(Deno.makeTempDirSync(), "run");
  await writeImportedRun(dir, toContract(s));
  return dir;
}

Deno.test("an imported run loads like a runner's, with every file verified", async (t) => {
  const dir = await imported();
  await t.step("loadRun and scanRun read it from Parquet", async () => {
    const run = await loadRun(dir, QUIET);
    assert.equal(run.requests.height, 4);
    assert.equal(run.format, "parquet");
    assert.equal(run.end.status, "complete");
    assert.equal((await scanRun(dir, QUIET)).requests.collectSync().height, 4);
  });
  await t.step("and from CSV, the same rows", async () => {
    const csv = join(Deno.makeTempDirSync(), "csv");
    Deno.mkdirSync(csv);
    for (const e of Deno.readDirSync(dir)) {
      if (!e.name.endsWith(".parquet")) Deno.copyFileSync(join(dir, e.name), join(csv, e.name));
    }
    const run = await loadRun(csv, QUIET);
    assert.equal(run.format, "csv");
    assert.equal(goodput(run, POLICY).overall.accepted, 2);
  });
  await t.step("a changed log file is refused by its sha256", async () => {
    const text = Deno.readTextFileSync(join(dir, "requests.csv"));
    Deno.writeTextFileSync(join(dir, "requests.csv"), text.replace("Service Unavailable", "Service Unavailablx"));
    const copy = join(Deno.makeTempDirSync(), "csv");
    Deno.mkdirSync(copy);
    for (const e of Deno.readDirSync(dir)) {
      if (!e.name.endsWith(".parquet")) Deno.copyFileSync(join(dir, e.name), join(copy, e.name));
    }
    await assert.rejects(
      () => loadRun(copy, QUIET),
      (e: Error) => e instanceof InputError && /the log was changed/.test(e.message),
    );
  });
  await t.step("an imported run is never sharded: shard folders holding one are refused", async () => {
    const root = Deno.makeTempDirSync();
    const a = await imported();
    Deno.renameSync(a, join(root, "shard-0-of-1"));
    await assert.rejects(() => loadRun(root, QUIET), /an imported run is one folder, never sharded/);
  });
});

Deno.test("goodput of an imported run carries the source's caveats and its gates pass as n/a", async () => {
  const run = await loadRun(await imported(), QUIET);
  const g = goodput(run, POLICY);
  // offered 4, completed 3 (a, b, c), accepted 2 (a 400 ≤ 1000, b 900 ≤ 1000; c 1500 late; d failed)
  assert.deepEqual([g.overall.offered, g.overall.completed, g.overall.accepted], [4, 3, 2]);
  // window: one stage from a's send (0) to the last recorded time (d's send at 3000; c ended at 2000 + 1500 = 3500)
  assert.equal(g.overall.measurement_seconds, 3.5);
  assert.equal(g.overall.accepted_goodput, 2 / 3.5);
  assert.deepEqual([g.overall.failures.late_e2e, g.overall.failures.error], [1, 1]);
  const d = g.disclosure;
  assert.equal(d.imported?.tool, "aiperf");
  assert.deepEqual(d.inclusion_rules.slice(0, d.imported!.caveats.length), importCaveats(run.manifest));
  assert.match(d.inclusion_rules[0]!, /^IMPORTED RUN: requests written by aiperf \(0\.8\.0\)/);
  assert.ok(d.inclusion_rules.some((r) => r === "the source lacks scheduled_ms: no schedule: latency from send"));
  // every required gate was n/a for the 3 completed requests
  assert.equal(d.gates_not_applicable.overall.quality_ok, 3);
  assert.match(formatGoodput(g), /IMPORTED RUN: requests written by aiperf/);
});

Deno.test("a durations-only import has null rates and says why", async () => {
  const s = source([rec("a", null, 400), rec("b", null, 1200)]);
  const run = await loadRun(await imported({ ...s, tool: "llmperf" }), QUIET);
  const g = goodput(run, POLICY);
  // 1 of 2 within 1000 ms; no time window: no rate, ratios stand
  assert.deepEqual([g.overall.accepted, g.overall.acceptance_rate], [1, 0.5]);
  assert.deepEqual([g.overall.accepted_goodput, g.overall.measurement_seconds], [null, null]);
  assert.deepEqual([g.by_stage[0]!.accepted_goodput, g.by_class[0]!.accepted_goodput], [null, null]);
  assert.ok(g.disclosure.inclusion_rules.includes(NO_TIME_WINDOW_RULE));
});

Deno.test("the report's first lines are an imported run's caveats", async () => {
  const run = await loadRun(await imported(), QUIET);
  const r = buildReport(run, POLICY);
  assert.match(r.verdicts[0]!, /^IMPORTED RUN: requests written by aiperf/);
  assert.ok(r.verdicts.includes("the source lacks scheduled_ms: no schedule: latency from send"));
  // The first screen (docs/verdicts.md): the verdict line, the cards, then one line per caveat, before any figure.
  const lines = r.html.indexOf('<ul class="gp-caveat-lines">');
  const first = r.html.indexOf("IMPORTED RUN", lines);
  assert.ok(lines > 0 && first > lines, "the import's caveat is one of the first screen's caveat lines");
  assert.ok(first < r.html.indexOf('class="gp-plot'), "the caveat lines stand above the figures");
});

Deno.test("the report's knee note of a closed-loop import names the run by id, not its folder", async () => {
  const dir = await imported();
  const run = await loadRun(dir, QUIET);
  const { extras } = runReportExtras(run, POLICY);
  // The one stage was run closed-loop (rate_rps null): no load level, so no knee, and the page says why.
  assert.match(extras.knee!.knee_note!, /^knee not computed: run \S+: run\.json stages has no steady or burst stage/);
  assert.ok(!extras.knee!.knee_note!.includes(dir), extras.knee!.knee_note);
});

Deno.test("analyses that need what only our runner records refuse an imported run by name", async (t) => {
  const dir = await imported();
  const run = await loadRun(dir, QUIET);
  await t.step("retries: the runner's retry policy", () => {
    assert.throws(
      () => retries(run),
      (e: Error) =>
        e instanceof InputError && e.message.includes(`${dir}: the retry analysis`) &&
        /imported from aiperf/.test(e.message),
    );
  });
  await t.step("knee: a stage the tool ran closed-loop has no planned rate, so no load level", () => {
    assert.throws(
      () => knee([run], POLICY),
      (e: Error) =>
        e instanceof InputError &&
        /have no planned rate \(imported from aiperf, which set none: closed loop\)/.test(e.message),
    );
  });
});
