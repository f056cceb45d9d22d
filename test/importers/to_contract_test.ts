import assert from "node:assert/strict";
import { InputError } from "../../schema/errors.ts";
import { RequestRow } from "../../schema/events.ts";
import { IMPORTED_CLASS } from "../../schema/imported_manifest.ts";
import type { SourceRequest, SourceRun } from "../../importers/source.ts";
import { contractOutcome, toContract } from "../../importers/to_contract.ts";

/** A source request with every time null; `over` sets what a case needs. */
function rec(id: string, over: Partial<SourceRequest> = {}): SourceRequest {
  return {
    id,
    at: `f.json: ${id}`,
    stage: "s1",
    outcome: "ok",
    tool_status: null,
    http_status: null,
    scheduled_epoch_ms: null,
    sent_epoch_ms: null,
    first_token_epoch_ms: null,
    completed_epoch_ms: null,
    ttft_ms: null,
    e2e_ms: null,
    itl_ms: null,
    input_tokens: 10,
    output_tokens: 5,
    token_source: "server_usage",
    tool_metrics: {},
    ...over,
  };
}

function source(requests: SourceRequest[], over: Partial<SourceRun> = {}): SourceRun {
  return {
    tool: "guidellm",
    tool_version: "0.3.0",
    files: [{ path: "f.json", sha256: "ab".repeat(32), format: "benchmarks.json" }],
    model: "m",
    stages: [],
    requests,
    summary_only: false,
    headlines: [],
    lacks: [],
    notes: [],
    ...over,
  };
}

const T0 = Date.parse("2026-01-01T00:00:00.000Z");

Deno.test("contractOutcome() maps the four source outcomes onto the contract's", async (t) => {
  const cases: [SourceRequest["outcome"], number | null, string][] = [
    ["ok", null, "ok"],
    ["ok", 200, "ok"],
    ["error", 429, "rejected"],
    ["error", 503, "http_error"],
    ["error", 400, "http_error"],
    ["error", null, "transport_error"],
    ["cancelled", null, "aborted"],
    ["cancelled", 499, "aborted"],
    ["incomplete", null, "aborted"],
  ];
  for (const [outcome, http_status, want] of cases) {
    await t.step(`${outcome} with HTTP ${http_status} → ${want}`, () => {
      assert.equal(contractOutcome({ outcome, http_status }), want);
    });
  }
});

Deno.test("toContract() places epoch times on the run's clock from the earliest time, floored to the ms", () => {
  // Two requests with a schedule: r1 scheduled at T0 + 1000.4, sent 2.5 ms late; r2 scheduled at T0 + 1500.4.
  const run = toContract(source([
    rec("r1", {
      scheduled_epoch_ms: T0 + 1000.4,
      sent_epoch_ms: T0 + 1002.9,
      first_token_epoch_ms: T0 + 1100.4,
      completed_epoch_ms: T0 + 1800.4,
      ttft_ms: 97.5,
      e2e_ms: 797.5,
      itl_ms: [10, 30, 20, 40],
    }),
    rec("r2", {
      outcome: "error",
      http_status: 503,
      tool_status: "Service Unavailable",
      scheduled_epoch_ms: T0 + 1500.4,
      sent_epoch_ms: T0 + 1500.4,
      completed_epoch_ms: T0 + 1510.4,
      input_tokens: null,
      output_tokens: null,
    }),
  ]));
  const m = run.manifest;
  // ms 0 = floor(T0 + 1000.4) = T0 + 1000 → 2026-01-01T00:00:01.000Z
  assert.equal(m.epoch_iso, "2026-01-01T00:00:01.000Z");
  assert.equal(m.timeline.kind, "epoch");
  assert.equal(m.timeline.scheduled_from, "schedule");
  const [r1, r2] = run.requests;
  // Epoch ms near 1.8e12 are floats with a resolution of 2^-12 ≈ 2.4e-4 ms: equal within 1e-3 ms.
  const near = (a: number | null, b: number) => assert.ok(a !== null && Math.abs(a - b) < 1e-3, `${a} vs ${b}`);
  // r1: scheduled 1000.4 − 1000 = 0.4; sent 2.9; send lag 2.9 − 0.4 = 2.5; first token 100.4; completed 800.4
  near(r1!.scheduled_ms, 0.4);
  near(r1!.first_sent_ms, 2.9);
  near(r1!.send_lag_ms, 2.5);
  near(r1!.first_token_ms, 100.4);
  near(r1!.completed_ms, 800.4);
  assert.deepEqual([r1!.outcome, r1!.error_kind, r1!.class, r1!.applicable_gates], ["ok", null, IMPORTED_CLASS, ""]);
  assert.deepEqual([r1!.output_valid, r1!.quality_ok, r1!.safety_ok, r1!.auth_ok, r1!.schema_ok], [
    null,
    null,
    null,
    null,
    null,
  ]);
  // r2 failed: no completed_ms on the request (ok answers only); its attempt ended at 1510.4 − 1000 = 510.4
  assert.equal(r2!.completed_ms, null);
  assert.deepEqual([r2!.outcome, r2!.http_status, r2!.error_kind], ["http_error", 503, "source: Service Unavailable"]);
  // missing token counts are written 0 and the lacks say how many
  assert.deepEqual([r2!.input_tokens, r2!.output_tokens], [0, 0]);
  const tokens = m.lacks.find((l) => l.field === "token counts (some records)");
  assert.match(tokens!.consequence, /^1 record\(s\) without input tokens and 1 without output tokens/);
  const [a1, a2] = run.attempts;
  near(a2!.completed_ms, 510.4);
  // gaps 10, 30, 20, 40: sorted 10 20 30 40, median (20 + 30) / 2 = 25, max 40
  assert.deepEqual([a1!.itl_p50_ms, a1!.itl_max_ms, a1!.token_source, a1!.round, a1!.attempt], [25, 40, "usage", 0, 1]);
  near(a1!.last_token_ms, 800.4);
  for (const r of run.requests) RequestRow.parse(r);
});

Deno.test("toContract() takes the send time for scheduled_ms when the tool keeps no schedule, and says so", () => {
  const run = toContract(source([
    rec("r1", { sent_epoch_ms: T0 + 5, ttft_ms: 20, e2e_ms: 100 }),
    rec("r2", { sent_epoch_ms: T0 + 55, ttft_ms: 30, e2e_ms: 300 }),
  ]));
  const [r1, r2] = run.requests;
  // origin floor(T0 + 5) = T0 + 5: r1 at 0 (first token 0 + 20, completed 0 + 100), r2 at 50 (80, 350)
  assert.deepEqual([r1!.scheduled_ms, r1!.first_sent_ms, r1!.first_token_ms, r1!.completed_ms], [0, 0, 20, 100]);
  assert.deepEqual([r2!.scheduled_ms, r2!.first_token_ms, r2!.completed_ms], [50, 80, 350]);
  // no schedule: send lag not recorded
  assert.equal(r1!.send_lag_ms, null);
  assert.equal(run.manifest.timeline.scheduled_from, "send");
  const lack = run.manifest.lacks.find((l) => l.field === "scheduled_ms");
  assert.match(lack!.consequence, /latency runs from send and coordinated omission is possible/);
  // one stage s1, from the first scheduled request (0) to the last recorded time (r2's completion, 350)
  assert.deepEqual(run.manifest.stages.map((s) => [s.name, s.kind, s.start_ms, s.end_ms]), [["s1", "steady", 0, 350]]);
});

Deno.test("toContract() places a durations-only source at ms 0 with no time window, never inventing one", () => {
  const run = toContract(source([
    rec("#0", { ttft_ms: 200, e2e_ms: 900 }),
    rec("#1", { outcome: "error", http_status: null, tool_status: "-100 Output too few tokens" }),
  ], { tool: "llmperf" }));
  const m = run.manifest;
  assert.deepEqual([m.timeline.kind, m.timeline.rates, m.timeline.epoch_known], ["durations_only", false, false]);
  assert.equal(m.epoch_iso, "1970-01-01T00:00:00.000Z");
  const [ok, bad] = run.requests;
  assert.deepEqual([ok!.scheduled_ms, ok!.first_sent_ms, ok!.first_token_ms, ok!.completed_ms], [0, 0, 200, 900]);
  assert.deepEqual([bad!.outcome, bad!.error_kind, bad!.completed_ms], [
    "transport_error",
    "source: -100 Output too few tokens",
    null,
  ]);
  // the window holds both (half-open: it ends after its last scheduled request at 0): [0, 900)
  assert.deepEqual(m.stages.map((s) => [s.start_ms, s.end_ms]), [[0, 900]]);
  assert.ok(m.lacks.some((l) => l.field === "time window" && /no rate can be recomputed/.test(l.consequence)));
});

Deno.test("toContract() puts clock times (no epoch) at differences from the earliest one", () => {
  const run = toContract(source([
    rec("a", { sent_clock_ms: 5000, ttft_ms: 10, e2e_ms: 40 }),
    rec("b", { sent_clock_ms: 5100, ttft_ms: 15, e2e_ms: 60 }),
  ], { tool: "vllm-bench-serve" }));
  // origin 5000: a at 0 (10, 40), b at 100 (115, 160)
  assert.deepEqual(run.requests.map((r) => [r.scheduled_ms, r.first_token_ms, r.completed_ms]), [[0, 10, 40], [
    100,
    115,
    160,
  ]]);
  assert.equal(run.manifest.timeline.kind, "clock");
  assert.equal(run.manifest.epoch_iso, "1970-01-01T00:00:00.000Z");
  assert.ok(run.manifest.lacks.some((l) => l.field === "epoch"));
});

Deno.test("toContract() gives each stage a window that holds its requests, contiguous with the next", () => {
  const st = (name: string, start: number, end: number, rate: number | null) => ({
    name,
    rate_rps: rate,
    concurrency: null,
    start_epoch_ms: T0 + start,
    end_epoch_ms: T0 + end,
    duration_s: (end - start) / 1000,
    totals: { ok: 1, error: 0, cancelled: null, incomplete: 0 },
  });
  const run = toContract(source([
    // scheduled 1 ms before its stage's stated start; completes after the next stage began
    rec("w", { stage: "warmup", scheduled_epoch_ms: T0 + 0, sent_epoch_ms: T0 + 1, completed_epoch_ms: T0 + 1500 }),
    rec("x", { stage: "c@2", scheduled_epoch_ms: T0 + 1000, sent_epoch_ms: T0 + 1000, completed_epoch_ms: T0 + 3000 }),
  ], { stages: [st("warmup", 1, 900, null), st("c@2", 1000, 2000, 2)] }));
  // origin T0: warmup [min(1, 0) = 0, next start 1000); c@2 [1000, max(2000, 3000) = 3000)
  assert.deepEqual(
    run.manifest.stages.map((s) => [s.name, s.kind, s.start_ms, s.end_ms, s.offered_rps]),
    [["warmup", "warmup", 0, 1000, null], ["c@2", "steady", 1000, 3000, 2]],
  );
  assert.deepEqual(run.manifest.stages[1]!.tool_totals, { ok: 1, error: 0, cancelled: null, incomplete: 0 });
});

Deno.test("toContract() refuses a summary, duplicate request ids and a record with no time among timed ones", async (t) => {
  await t.step("a summary becomes claims, not a run", () => {
    assert.throws(
      () => toContract(source([], { summary_only: true })),
      (e: Error) =>
        e instanceof InputError && /no per-request records \(a summary\): it becomes aggregate claims/.test(e.message),
    );
  });
  await t.step("a request id used twice names both records", () => {
    assert.throws(
      () => toContract(source([rec("r", { sent_epoch_ms: T0 }), rec("r", { sent_epoch_ms: T0 + 1 })])),
      (e: Error) => e instanceof InputError && /request id "r": f.json: r; f.json: r/.test(e.message),
    );
  });
  await t.step("an untimed record among timed ones is named", () => {
    assert.throws(
      () => toContract(source([rec("r1", { sent_epoch_ms: T0 }), rec("r2")])),
      (e: Error) => e instanceof InputError && /f.json: r2: no send or scheduled time/.test(e.message),
    );
  });
});
