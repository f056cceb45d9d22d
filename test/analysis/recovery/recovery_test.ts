import assert from "node:assert/strict";
import { recovery } from "../../../analysis/recovery/recovery.ts";
import { loadFixture, OUTAGE_STAGES, plantedOutage, QA_POLICY } from "./_recovery_fixture.ts";

Deno.test("recovery() gives the planted outage its worked-out recovery times", async (t) => {
  const { parts, server } = plantedOutage();
  const run = await loadFixture(OUTAGE_STAGES, parts, server);
  const before = run.requests.clone();
  const report = recovery(run, QA_POLICY);
  assert.equal(report.events.length, 1);
  const e = report.events[0]!;
  const level = (m: string) => e.levels.find((l) => l.metric === m)!;

  await t.step("the event is the detected outage, 30 000 → 33 000", () => {
    assert.deepEqual([e.kind, e.name, e.start_ms, e.end_ms, e.ended], ["outage", "outage-1", 30_000, 33_000, true]);
  });

  await t.step("server queue: baseline 0; 6 at 33–35 s, 0 from 36 s → back 3000 ms after the end", () => {
    const q = level("server_queue_len");
    assert.deepEqual(
      [q.baseline_samples, q.baseline_median, q.baseline_upper, q.peak, q.peak_ms],
      [10, 0, 0, 6, 33_000],
    );
    assert.deepEqual([q.recovered_ms, q.recovered_after_end_ms], [36_000, 3000]);
  });

  await t.step("server running: baseline 2; 8 up to 36 s → back at 37 s (4000 ms)", () => {
    const r = level("server_running");
    assert.deepEqual([r.baseline_upper, r.recovered_ms, r.recovered_after_end_ms], [2, 37_000, 4000]);
  });

  await t.step("client in flight: 2 at baseline; the 2000 ms backlog keeps it above until 38 s (5000 ms)", () => {
    // At 37 000: slow 35 250, 35 500, 35 750 (each in flight for 2000 ms) + healthy 36 750, 37 000 = 5 > 2.
    // At 38 000 and 39 000: only the two healthy requests of the last 400 ms.
    const f = level("client_in_flight");
    assert.deepEqual([f.baseline_upper, f.recovered_ms, f.recovered_after_end_ms], [2, 38_000, 5000]);
    // At 35 000: slow 33 250 … 35 000 = 8 in flight, the peak.
    assert.deepEqual([f.peak, f.peak_ms], [8, 35_000]);
  });

  await t.step("latency: requests scheduled 33–36 s are late (2000 > 1000); back at 36 000", () => {
    assert.equal(e.latency.baseline_share, 1); // 40 requests in [20 000, 30 000), all 400 ms
    assert.equal(e.latency.baseline_n, 40);
    assert.deepEqual([e.latency.recovered_ms, e.latency.recovered_after_end_ms], [36_000, 3000]);
  });

  await t.step("recovered = the latest: in-flight at 38 000, 5000 ms after the end", () => {
    assert.deepEqual([e.recovered_ms, e.recovered_after_end_ms, e.not_recovered], [38_000, 5000, []]);
  });

  await t.step("during: 10 lost to 503s, 2 rescued by their retry; after: 20 ok, 8 accepted", () => {
    assert.deepEqual(e.during, {
      from_ms: 30_000,
      to_ms: 33_000,
      offered: 12,
      ok: 2,
      accepted: 2, // 32 500 and 32 750: retried at 33 000 / 33 250, e2e 900 ≤ 1000
      rescued_by_retry: 2,
      lost: 10,
      lost_by_outcome: { http_error: 10 },
    });
    // [33 000, 38 000): 20 requests; 12 late (33 000 … 35 750), 8 accepted (36 000 … 37 750).
    assert.deepEqual(
      [e.after.offered, e.after.ok, e.after.accepted, e.after.lost, e.after.to_ms],
      [20, 20, 8, 0, 38_000],
    );
    assert.equal(e.server_during?.errors, 24);
    assert.equal(e.stayed_lost, true);
  });

  await t.step(
    "options: a 15 s baseline window holds 15 samples; a hold of 3 still finds the queue back at 36 000",
    () => {
      // hold 3 from 36 000 still holds (0, 0, 0); a 15 s baseline window takes in 15 samples.
      const q = recovery(run, QA_POLICY, { hold: 3, baselineMs: 15_000 }).events[0]!.levels[0]!;
      assert.deepEqual([q.baseline_samples, q.recovered_ms], [15, 36_000]);
      assert.ok(report.rules.some((r) => /2 consecutive samples/.test(r)));
    },
  );

  await t.step("the run's frames are not changed", () => {
    assert.ok(run.requests.frameEqual(before, true));
  });
});

Deno.test("recovery() says what never recovered when the queue stays up to the end", async () => {
  const { parts, server } = plantedOutage();
  // The queue never drains after the outage.
  const stuck = server.map((r) => ((r.t_ms as number) >= 33_000 ? { ...r, queue_len: 6 } : r));
  const e = recovery(await loadFixture(OUTAGE_STAGES, parts, stuck), QA_POLICY).events[0]!;
  assert.deepEqual(e.not_recovered, ["server_queue_len"]);
  assert.equal(e.recovered_ms, null);
  assert.equal(e.stayed_lost, true);
  // "after" then runs to the end of the run: every request scheduled from 33 000 to 59 750.
  assert.equal(e.after.offered, (60_000 - 33_000) / 250);
});
