import assert from "node:assert/strict";
import { coldStart } from "../../../analysis/recovery/cold_start.ts";
import type { Stage } from "../../../schema/plan.ts";
import { req } from "../_fixture.ts";
import { loadFixture, okRequest, QA_POLICY } from "./_recovery_fixture.ts";

/**
 * One request a second for 35 s. 0–9 s: e2e 1100 + 100·i ms (all late for the 1000 ms SLO); 10–29 s: 500 ms, but
 * the one at 15 s times out; 30–34 s (a burst, in neither phase): 900 ms.
 */
function parts() {
  return Array.from({ length: 35 }, (_, i) => {
    const t = i * 1000;
    if (t === 15_000) {
      return { r: req({ request_id: "timeout", class: "qa", stage: "x", scheduled_ms: t, outcome: "timeout" }), a: [] };
    }
    return okRequest(`r${i}`, "x", t, i < 10 ? 1100 + 100 * i : i < 30 ? 500 : 900);
  });
}

const WARM: Stage[] = [
  { name: "warm", kind: "warmup", start_ms: 0, end_ms: 10_000, offered_rps: 1 },
  { name: "main", kind: "steady", start_ms: 10_000, end_ms: 30_000, offered_rps: 1 },
  { name: "spike", kind: "burst", start_ms: 30_000, end_ms: 35_000, offered_rps: 1 },
];

function checkNumbers(r: ReturnType<typeof coldStart>): void {
  // Cold: 10 offered and completed, none accepted (all late). e2e sorted 1100 … 2000: p50 = 5th = 1500, p95 = 10th.
  assert.deepEqual([r.cold.offered, r.cold.completed, r.cold.accepted, r.cold.acceptance_rate], [10, 10, 0, 0]);
  assert.deepEqual(r.cold.e2e_ms.map((p) => [p.value, p.n]), [[1500, 10], [2000, 10]]);
  assert.deepEqual(r.cold.failures, { late_e2e: 10 });
  // Steady: 20 offered, the timeout lost: 19 completed and accepted; 19 / 20 s.
  assert.deepEqual([r.steady!.offered, r.steady!.completed, r.steady!.accepted], [20, 19, 19]);
  assert.equal(r.steady!.acceptance_rate, 19 / 20);
  assert.equal(r.steady!.accepted_goodput, 19 / 20);
  assert.deepEqual(r.steady!.e2e_ms.map((p) => p.value), [500, 500]);
  assert.deepEqual(r.steady!.failures, { timeout: 1 });
  // TTFT is 100 ms everywhere: ratio 1. e2e: 1500 / 500 = 3, 2000 / 500 = 4.
  assert.deepEqual(r.ratio.e2e, [3, 4]);
  assert.deepEqual(r.ratio.ttft, [1, 1]);
  assert.equal(r.ratio.acceptance_rate_diff, 0 - 19 / 20);
}

Deno.test("coldStart() separates the warm-up stage from the steady stages", async () => {
  const r = coldStart(await loadFixture(WARM, parts(), null), QA_POLICY);
  assert.deepEqual(r.cold.intervals, [[0, 10_000]]);
  assert.deepEqual(r.steady!.intervals, [[10_000, 30_000]]);
  assert.match(r.cold.description, /warmup stages: warm/);
  checkNumbers(r);
});

Deno.test("coldStart() without a warmup stage takes the first coldMs as cold, cut out of the steady stage", async () => {
  const stages: Stage[] = [
    { name: "main", kind: "steady", start_ms: 0, end_ms: 30_000, offered_rps: 1 },
    { name: "spike", kind: "burst", start_ms: 30_000, end_ms: 35_000, offered_rps: 1 },
  ];
  const run = await loadFixture(stages, parts(), null);
  const r = coldStart(run, QA_POLICY, { coldMs: 10_000 });
  assert.deepEqual(r.cold.intervals, [[0, 10_000]]);
  assert.deepEqual(r.steady!.intervals, [[10_000, 30_000]]);
  checkNumbers(r);
  // The default cold span is 30 s: it covers the whole steady stage, which leaves no steady phase.
  const wide = coldStart(run, QA_POLICY);
  assert.equal(wide.steady, null);
  assert.deepEqual(wide.ratio.e2e, [null, null]);
});
