import assert from "node:assert/strict";
import { join } from "node:path";
import { formatRecovery } from "../../../analysis/recovery/format_recovery.ts";
import { recovery } from "../../../analysis/recovery/recovery.ts";
import type { Stage } from "../../../schema/plan.ts";
import { loadSimProfile } from "../../../schema/sim_profile.ts";
import { loadFixture, okRequest, QA_POLICY, serverRow } from "./_recovery_fixture.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;

/** warm 0–10 s, steady 10–20 s, a 10 s burst 20–30 s, steady 30–50 s. */
const STAGES: Stage[] = [
  { name: "warm", kind: "warmup", start_ms: 0, end_ms: 10_000, offered_rps: 1 },
  { name: "low", kind: "steady", start_ms: 10_000, end_ms: 20_000, offered_rps: 1 },
  { name: "burst", kind: "burst", start_ms: 20_000, end_ms: 30_000, offered_rps: 1 },
  { name: "after", kind: "steady", start_ms: 30_000, end_ms: 50_000, offered_rps: 1 },
];

/** One request a second; the queue is 10 from 21 s to 34 s; warming and serving replicas as given (t → value). */
function timeline(warming: (t: number) => number, replicas: (t: number) => number) {
  const parts = Array.from({ length: 50 }, (_, i) => okRequest(`r${i}`, "s", i * 1000));
  const server = Array.from({ length: 50 }, (_, i) => {
    const t = (i + 1) * 1000;
    return serverRow({
      t_ms: t,
      queue_len: t >= 21_000 && t <= 34_000 ? 10 : 0,
      oldest_queued_ms: t >= 21_000 && t <= 34_000 ? 4000 : 0,
      replicas_warming: warming(t),
      replicas: replicas(t),
    });
  });
  return { parts, server };
}

const between = (a: number, b: number, inside: number, outside: number) => (t: number) =>
  t >= a && t <= b ? inside : outside;

Deno.test("a replica that serves only after the burst ended is 'scaled too late'", async (t) => {
  // Requested at 23 s (warming 0 → 1), serving at 35 s: 5 s after the 30 s end of the burst.
  const { parts, server } = timeline(between(23_000, 34_000, 1, 0), (x) => (x >= 35_000 ? 2 : 1));
  const run = await loadFixture(STAGES, parts, server);
  const profile = await loadSimProfile(join(ROOT, "data/sim/autoscale-late.json"));
  const report = recovery(run, QA_POLICY, { profile });
  const b = report.autoscaling.bursts[0]!;

  await t.step("verdict and timings", () => {
    assert.equal(report.autoscaling.observed, true);
    assert.equal(b.verdict, "scaled_too_late");
    assert.equal(b.queue_upper, 0); // the queue was 0 in the 10 s before the burst
    assert.equal(b.queue_rise_ms, 21_000);
    assert.equal(b.detect_ms, 23_000);
    assert.equal(b.time_to_detect_ms, 3000); // 23 000 − 20 000
    assert.equal(b.detect_after_queue_rise_ms, 2000); // 23 000 − 21 000
    assert.equal(b.serving_ms, 35_000);
    assert.equal(b.allocate_and_warm_ms, 12_000); // 35 000 − 23 000
    assert.equal(b.serving_after_end_ms, 5000); // 35 000 − 30 000
  });

  await t.step("the replica changes and the profile's delays are reported", () => {
    assert.deepEqual(report.autoscaling.changes.map((c) => [c.t_ms, c.replicas_to, c.warming_to]), [
      [23_000, 1, 1],
      [35_000, 2, 0],
    ]);
    assert.deepEqual(b.planned, {
      detection_delay_ms: 2000,
      provisioning_delay_ms: 30_000,
      loading_ms: 10_000,
      cold_ms: 3000,
    });
  });

  await t.step("where requests waited until the replica served (20 s → 35 s)", () => {
    assert.deepEqual([b.waiting.from_ms, b.waiting.to_ms], [20_000, 35_000]);
    assert.equal(b.waiting.server_queue_max, 10);
    assert.equal(b.waiting.server_oldest_queued_max_ms, 4000);
    assert.equal(b.waiting.requests, 15); // scheduled 20 000 … 34 000
    assert.equal(b.waiting.headers_wait_p50_ms, 50);
  });

  await t.step("the text report says so", () => {
    const text = formatRecovery({ recovery: report });
    assert.match(text, /burst burst \(20\.0 s–30\.0 s\): SCALED TOO LATE/);
    assert.match(text, /serving at 35\.0 s: allocate \+ warm-up 12000 ms; 5000 ms after the burst end/);
  });
});

Deno.test("autoscaling verdicts: in time, requested but never served, no scale-up", async (t) => {
  await t.step("serving at 27 s, inside the burst: in time", async () => {
    const { parts, server } = timeline(between(23_000, 26_000, 1, 0), (x) => (x >= 27_000 ? 2 : 1));
    const b = recovery(await loadFixture(STAGES, parts, server), QA_POLICY).autoscaling.bursts[0]!;
    assert.deepEqual([b.verdict, b.serving_ms, b.serving_after_end_ms], ["in_time", 27_000, -3000]);
    assert.equal(b.planned, null);
  });

  await t.step("a replica requested but still warming when the run ends: scaled too late, never served", async () => {
    const { parts, server } = timeline((x) => (x >= 23_000 ? 1 : 0), () => 1);
    const b = recovery(await loadFixture(STAGES, parts, server), QA_POLICY).autoscaling.bursts[0]!;
    assert.deepEqual([b.verdict, b.detect_ms, b.serving_ms, b.allocate_and_warm_ms], [
      "scaled_too_late",
      23_000,
      null,
      null,
    ]);
    assert.equal(b.waiting.to_ms, 50_001); // no serving: the search runs to the end of the timeline
  });

  await t.step("replicas constant and none warming: no scale-up, autoscaling not observed", async () => {
    const { parts, server } = timeline(() => 0, () => 1);
    const r = recovery(await loadFixture(STAGES, parts, server), QA_POLICY).autoscaling;
    assert.equal(r.observed, false);
    assert.equal(r.bursts[0]!.verdict, "no_scale_up");
    assert.equal(r.bursts[0]!.queue_rise_ms, 21_000);
  });
});
