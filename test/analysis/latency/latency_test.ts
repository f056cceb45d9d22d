import assert from "node:assert/strict";
import pl from "nodejs-polars";
import { completeRunEnd } from "../../../analysis/run/run_end.ts";
import { type LatencyMetric, type LatencyRow, latencyTable } from "../../../analysis/latency/latency.ts";
import type { LoadedRun } from "../../../analysis/run/loaded_run.ts";
import type { RequestRow } from "../../../schema/events.ts";
import { att, req } from "../_fixture.ts";
import type { RunManifest } from "../../../schema/mod.ts";

/** The shared fixture row, but with no send times unless the case sets them (send lag and server wait are measured). */
const request = (o: Parameters<typeof req>[0]): RequestRow => req({ send_lag_ms: null, first_sent_ms: null, ...o });

/**
 * Six requests. Per request (ttft = first_token − scheduled, e2e = completed − scheduled,
 * tpot = (last − first token)/(out − 1) of the answered attempt of the last round,
 * server wait = headers − sent of the first attempt):
 * r1 A steady ok:       ttft 200, e2e 500, tpot (1400−1200)/10 = 20, lag 1, wait 1100−1001 = 99, rounds 1
 * r2 A steady ok:       ttft 100, e2e 900, tpot (2871−2700)/9 = 19 (round 1, attempt 2; attempt 1 got no tokens),
 *                       lag 2, wait 2050−2002 = 48 (round 0), tool 150 (1 call), rounds 2
 * r3 B steady timeout:  only lag 3, wait 3300−3003 = 297
 * r4 B warm ok:         ttft 120, e2e 300, tpot excluded (1 output token), lag 0.5, wait 550−500.5 = 49.5, rounds 1
 * r5 A steady not_sent: nothing
 * r6 B steady ok:       ttft 90, e2e 600, tpot (5490−5090)/40 = 10, lag 4, wait 5050−5004 = 46, tool 50 (2 calls), rounds 1
 */
function fixture(): LoadedRun {
  const requests = [
    request({
      request_id: "r1",
      class: "A",
      stage: "steady",
      scheduled_ms: 1000,
      send_lag_ms: 1,
      first_token_ms: 1200,
      completed_ms: 1500,
    }),
    request({
      request_id: "r2",
      class: "A",
      stage: "steady",
      scheduled_ms: 2000,
      send_lag_ms: 2,
      first_token_ms: 2100,
      completed_ms: 2900,
      rounds: 2,
      attempts: 3,
      tool_calls: 1,
      tool_ms: 150,
    }),
    request({
      request_id: "r3",
      class: "B",
      stage: "steady",
      scheduled_ms: 3000,
      send_lag_ms: 3,
      first_token_ms: 3400,
      outcome: "timeout",
    }),
    request({
      request_id: "r4",
      class: "B",
      stage: "warm",
      scheduled_ms: 500,
      send_lag_ms: 0.5,
      first_token_ms: 620,
      completed_ms: 800,
    }),
    request({
      request_id: "r5",
      class: "A",
      stage: "steady",
      scheduled_ms: 4000,
      outcome: "not_sent",
      attempts: 0,
      rounds: 0,
    }),
    request({
      request_id: "r6",
      class: "B",
      stage: "steady",
      scheduled_ms: 5000,
      send_lag_ms: 4,
      first_token_ms: 5090,
      completed_ms: 5600,
      tool_calls: 2,
      tool_ms: 50,
    }),
  ];
  // Out of order on purpose: the first/last attempt must come from round and attempt, not row order.
  const attempts = [
    att({
      request_id: "r2",
      round: 1,
      attempt: 2,
      sent_ms: 2600,
      headers_ms: 2650,
      first_token_ms: 2700,
      last_token_ms: 2871,
      output_tokens: 10,
    }),
    att({
      request_id: "r2",
      round: 1,
      attempt: 1,
      sent_ms: 2400,
      headers_ms: 2500,
      http_status: 503,
      error_kind: "http_503",
    }),
    att({
      request_id: "r2",
      round: 0,
      attempt: 1,
      sent_ms: 2002,
      headers_ms: 2050,
      first_token_ms: 2100,
      last_token_ms: 2200,
      output_tokens: 5,
    }),
    att({
      request_id: "r1",
      round: 0,
      attempt: 1,
      sent_ms: 1001,
      headers_ms: 1100,
      first_token_ms: 1200,
      last_token_ms: 1400,
      output_tokens: 11,
    }),
    att({
      request_id: "r3",
      round: 0,
      attempt: 1,
      sent_ms: 3003,
      headers_ms: 3300,
      first_token_ms: 3400,
      error_kind: "timeout",
    }),
    att({
      request_id: "r4",
      round: 0,
      attempt: 1,
      sent_ms: 500.5,
      headers_ms: 550,
      first_token_ms: 620,
      last_token_ms: 700,
      output_tokens: 1,
    }),
    att({
      request_id: "r6",
      round: 0,
      attempt: 1,
      sent_ms: 5004,
      headers_ms: 5050,
      first_token_ms: 5090,
      last_token_ms: 5490,
      output_tokens: 41,
    }),
  ];
  return {
    dir: "fixture",
    // latencyTable reads only the tables; the manifest is not consulted.
    manifest: {} as unknown as RunManifest,
    manifests: [],
    format: "csv",
    requests: pl.DataFrame(requests),
    attempts: pl.DataFrame(attempts),
    tools: pl.DataFrame({ request_id: [] as string[] }),
    server: null,
    phases: pl.DataFrame({ request_id: [] as string[] }),
    end: completeRunEnd([]),
    warnings: [],
  };
}

function row(
  rows: LatencyRow[],
  cls: string | null,
  stage: string | null,
  metric: LatencyMetric,
  p: number,
): LatencyRow {
  const found = rows.filter((r) => r.class === cls && r.stage === stage && r.metric === metric && r.p === p);
  assert.equal(found.length, 1, `one row for ${cls}/${stage}/${metric}/p${p}`);
  return found[0]!;
}

Deno.test("latencyTable() computes every metric from the raw log", async (t) => {
  const rows = latencyTable(fixture());
  await t.step("overall values and n (nearest rank)", () => {
    // ttft [90, 100, 120, 200]: p50 rank 2 → 100, p95 rank ceil(3.8) = 4 → 200
    assert.deepEqual([row(rows, null, null, "ttft_ms", 0.5).value, row(rows, null, null, "ttft_ms", 0.5).n], [100, 4]);
    assert.equal(row(rows, null, null, "ttft_ms", 0.95).value, 200);
    // e2e [300, 500, 600, 900] → p50 500; tpot [10, 19, 20] → p50 rank 2 → 19
    assert.equal(row(rows, null, null, "e2e_ms", 0.5).value, 500);
    assert.deepEqual([row(rows, null, null, "tpot_ms", 0.5).value, row(rows, null, null, "tpot_ms", 0.5).n], [19, 3]);
    assert.equal(row(rows, null, null, "tpot_ms", 0.99).value, 20);
    // send lag [0.5, 1, 2, 3, 4] (the timeout counts, not_sent does not) → p50 rank 3 → 2
    assert.deepEqual([row(rows, null, null, "send_lag_ms", 0.5).value, row(rows, null, null, "send_lag_ms", 0.5).n], [
      2,
      5,
    ]);
    // server wait [46, 48, 49.5, 99, 297] → p50 49.5, p99 297
    assert.equal(row(rows, null, null, "server_wait_ms", 0.5).value, 49.5);
    assert.equal(row(rows, null, null, "server_wait_ms", 0.99).value, 297);
    // tool [50, 150] over requests with tool calls → p50 rank 1 → 50
    assert.deepEqual([row(rows, null, null, "tool_ms", 0.5).value, row(rows, null, null, "tool_ms", 0.5).n], [50, 2]);
    // rounds of completed requests [1, 1, 1, 2] → p50 1, p95 2
    assert.deepEqual([row(rows, null, null, "rounds", 0.5).value, row(rows, null, null, "rounds", 0.95).value], [1, 2]);
  });
  await t.step("groups by class, stage and class × stage", () => {
    // 1 overall + 2 classes + 2 stages + 3 class×stage (A/steady, B/steady, B/warm), × 7 metrics × 3 percentiles
    assert.equal(rows.length, 8 * 7 * 3);
    assert.equal(row(rows, "A", null, "ttft_ms", 0.99).value, 200); // A: [100, 200]
    assert.equal(row(rows, "B", null, "ttft_ms", 0.5).value, 90); // B: [90, 120]
    assert.equal(row(rows, null, "warm", "e2e_ms", 0.5).value, 300); // warm: r4 only
    assert.deepEqual([
      row(rows, "B", "steady", "send_lag_ms", 0.5).value,
      row(rows, "B", "steady", "send_lag_ms", 0.5).n,
    ], [
      3,
      2,
    ]);
    assert.equal(row(rows, "A", "steady", "tool_ms", 0.5).n, 1);
    assert.equal(row(rows, "B", "warm", "tpot_ms", 0.5).n, 0); // one output token: no TPOT
    assert.equal(row(rows, "B", "warm", "tpot_ms", 0.5).value, null);
  });
  await t.step("each row discloses window, inclusion rule and support", () => {
    const r = row(rows, null, null, "ttft_ms", 0.5);
    assert.equal(r.window, null);
    assert.match(r.inclusion, /completed requests/);
    // Binomial(4, 0.5): F(0) = 1/16 > 0.025 → no lower rank; F(3) = 15/16 < 0.975 → no upper rank.
    // Supported (LoadGen early stopping, 99 %): 0.5^n ≤ 0.01 from n = 7 (0.5^7 = 0.0078; 0.5^6 = 0.0156).
    assert.deepEqual([r.lower, r.upper, r.supported, r.bound, r.support_confidence], [null, null, false, null, 0.99]);
    assert.match(r.note ?? "", /99 % one-sided confidence needs at least 7 samples/);
    assert.match(row(rows, null, null, "tpot_ms", 0.5).inclusion, /output_tokens − 1/);
  });
});

Deno.test("latencyTable() honours window and confidence", async (t) => {
  await t.step("window [900, 4500) drops r4 and r6", () => {
    const window = { start_ms: 900, end_ms: 4500 };
    const rows = latencyTable(fixture(), { window, percentiles: [0.5] });
    // r1, r2, r3, r5 remain: overall, A, B, steady, A/steady, B/steady = 6 groups × 7 metrics; no warm stage
    assert.equal(rows.length, 6 * 7);
    assert.equal(rows.filter((r) => r.stage === "warm").length, 0);
    assert.deepEqual([row(rows, "B", null, "ttft_ms", 0.5).n, row(rows, "B", null, "send_lag_ms", 0.5).value], [0, 3]);
    const ttft = row(rows, null, null, "ttft_ms", 0.5);
    assert.deepEqual([ttft.value, ttft.n, ttft.window], [100, 2, window]); // [100, 200]
    assert.equal(row(rows, null, null, "send_lag_ms", 0.5).n, 3); // r1, r2, r3
  });
  await t.step("confidence 0.5 gives a bounded p50 from 5 samples", () => {
    // Binomial(5, 0.5), α/2 = 0.25: F(1) = 6/32 ≤ 0.25 < F(2) = 16/32 → l = 2;
    // F(2) = 0.5 < 0.75 ≤ F(3) = 26/32 → u = 4. Send lag [0.5, 1, 2, 3, 4] → [1, 3].
    // Supported at 99 %: 0.5^5 = 0.031 > 0.01 → no (7 samples needed).
    const r = row(latencyTable(fixture(), { confidence: 0.5 }), null, null, "send_lag_ms", 0.5);
    assert.deepEqual([r.lower, r.value, r.upper, r.supported, r.confidence], [1, 2, 3, false, 0.5]);
  });
  await t.step("supportConfidence 0.9 supports the p50 of the same 5 samples, bounded by the maximum", () => {
    // One-sided 90 %: P[X ≤ k | 5, 0.5] ≤ 0.1: k = 0 → 1/32 = 0.031 ✓, k = 1 → 6/32 = 0.19 ✗ → no sample above the
    // bound tolerated: bound = x(5) = 4 ms of [0.5, 1, 2, 3, 4].
    const r = row(latencyTable(fixture(), { supportConfidence: 0.9 }), null, null, "send_lag_ms", 0.5);
    assert.deepEqual([r.supported, r.bound, r.support_confidence, r.confidence], [true, 4, 0.9, 0.95]);
  });
  await t.step("a window without requests gives only the overall rows, each with n = 0", () => {
    const rows = latencyTable(fixture(), { window: { start_ms: 0, end_ms: 100 } }); // first request is at 500
    assert.equal(rows.length, 7 * 3);
    assert.ok(rows.every((r) => r.class === null && r.stage === null && r.n === 0 && r.value === null && !r.supported));
  });
  await t.step("an empty window is refused", () => {
    assert.throws(() => latencyTable(fixture(), { window: { start_ms: 5, end_ms: 5 } }), RangeError);
  });
});
