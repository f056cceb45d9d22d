import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { detectOutages } from "../../../analysis/recovery/outages.ts";
import { loadSimProfile, SimProfile } from "../../../schema/sim_profile.ts";
import { runDesignV1OnSim } from "../../support/sim_run.ts";
import { constantPlan } from "../../../testing/tiny_workload.ts";
import { failedAttempt, loadFixture, okRequest, OUTAGE_STAGES, plantedOutage, serverRow } from "./_recovery_fixture.ts";

Deno.test("detectOutages() finds a planted 503 window with its exact start and end", async (t) => {
  const { parts, server } = plantedOutage();
  const run = await loadFixture(OUTAGE_STAGES, parts, server);

  await t.step("one outage: first 503 at 30 000, first answer at 33 000; the lone 503 at 15 000 is not one", () => {
    const { outages, planned } = detectOutages(run);
    assert.equal(outages.length, 1);
    const o = outages[0]!;
    assert.equal(o.start_ms, 30_000);
    assert.equal(o.end_ms, 33_000);
    assert.equal(o.duration_ms, 3000);
    // The last 503 is the retry of the request scheduled at 32 250 (32 250 + 500).
    assert.equal(o.last_down_ms, 32_750);
    // 12 first attempts (30 000 … 32 750) + 10 retries that still fell inside (scheduled 30 000 … 32 250).
    assert.equal(o.down_attempts, 22);
    assert.equal(o.requests_hit, 12);
    assert.deepEqual(o.by_kind, { http_503: 22 });
    // Server rows overlapping [30 000, 33 000): t = 31 000, 32 000, 33 000, 8 errors each.
    assert.equal(o.server?.rows, 3);
    assert.equal(o.server?.errors, 24);
    assert.equal(planned, null);
  });

  await t.step("a longer minimum run length finds nothing", () => {
    assert.equal(detectOutages(run, { minConsecutive: 23 }).outages.length, 0);
    assert.equal(detectOutages(run, { minConsecutive: 22 }).outages.length, 1);
  });

  await t.step("planned windows of a profile are matched and place the sim clock on the run clock", () => {
    const profile = SimProfile.parse({
      name: "p",
      faults: { outages: [{ start_ms: 29_000, end_ms: 32_000, mode: "503" }] },
    });
    const byOrder = detectOutages(run, { profile }).planned!;
    assert.equal(byOrder.length, 1);
    assert.equal(byOrder[0]!.detected, 0);
    assert.equal(byOrder[0]!.implied_sim_start_ms, 1000); // 30 000 detected − 29 000 planned
    assert.equal(byOrder[0]!.run_start_ms, null);
    const placed = detectOutages(run, { profile, simStartMs: 1000 }).planned![0]!;
    assert.deepEqual([placed.run_start_ms, placed.run_end_ms, placed.detected], [30_000, 33_000, 0]);
    // A sim start that puts the window elsewhere matches nothing.
    assert.equal(detectOutages(run, { profile, simStartMs: 20_000 }).planned![0]!.detected, null);
  });
});

Deno.test("detectOutages() counts refused connections, skips timeouts and reports an outage that never ended", async () => {
  const stages = [{ name: "s", kind: "steady" as const, start_ms: 0, end_ms: 10_000, offered_rps: 2 }];
  const parts = [okRequest("a", "s", 1000)];
  // Refused at 2000, 2500, a timeout at 2700 (neutral), refused at 3000: then an answer at 3500.
  for (const [i, t] of [2000, 2500, 3000].entries()) {
    parts.push({
      r: okRequest(`x${i}`, "s", t).r,
      a: [failedAttempt(`x${i}`, 1, t, null, "connect_refused", false)],
    });
  }
  parts.push({
    r: okRequest("slow", "s", 2700).r,
    a: [failedAttempt("slow", 1, 2700, null, "attempt_timeout", false)],
  });
  parts.push(okRequest("b", "s", 3500));
  // From 6000 on every attempt is a 503 until the log ends.
  for (const t of [6000, 6100, 6200, 6300]) {
    parts.push({ r: okRequest(`y${t}`, "s", t).r, a: [failedAttempt(`y${t}`, 1, t, 503, "http_503", false)] });
  }
  const run = await loadFixture(stages, parts, [serverRow({ t_ms: 1000 })]);
  const { outages } = detectOutages(run);
  assert.equal(outages.length, 2);
  assert.deepEqual(
    outages.map((o) => [o.start_ms, o.end_ms, o.down_attempts, o.by_kind]),
    [[2000, 3500, 3, { connect_refused: 3 }], [6000, null, 4, { http_503: 4 }]],
  );
  assert.equal(outages[1]!.duration_ms, null);
  assert.equal(outages[1]!.last_down_ms, 6300);
});

Deno.test("detectOutages() finds the simulator's real 503 window where the profile put it", async () => {
  const root = new URL("../../../", import.meta.url).pathname;
  const dir = Deno.makeTempDirSync();
  const fast = await loadSimProfile(join(root, "data/sim/fast.json"));
  // 503 from 4.5 s to 6.0 s of the sim clock (which starts at onStart, before the runner's ms 0: up to a few seconds
  // earlier under `deno test`, which type-checks the dispatcher's waker worker as it starts); 20 req/s for 8 s.
  const profile = SimProfile.parse({ ...fast, faults: { outages: [{ start_ms: 4500, end_ms: 6000, mode: "503" }] } });
  let origin = 0;
  const { dir: runDir } = await runDesignV1OnSim(dir, {
    plan: constantPlan(dir, 20, 8, "outage-test"),
    simSeed: 3,
    formats: ["csv"],
    profile,
    onStart: (sim) => {
      sim.reset(); // the outage clock starts now
      origin = Date.now();
    },
  });
  const run = await loadRun(runDir, { onWarning: () => {} });
  const simStartMs = origin - Date.parse(run.manifest.epoch_iso);
  const { outages, planned } = detectOutages(run, { profile, simStartMs });
  assert.equal(outages.length, 1, JSON.stringify(outages));
  const o = outages[0]!;
  // Arrivals every 50 ms: the first 503 and the first answer after it fall within a few gaps of the planned edges
  // (the slack covers timer jitter on a shared machine and clock rounding of epoch_iso).
  assert.ok(Math.abs(o.start_ms - (simStartMs + 4500)) < 400, `start ${o.start_ms} vs ${simStartMs + 4500}`);
  assert.ok(Math.abs(o.end_ms! - (simStartMs + 6000)) < 400, `end ${o.end_ms} vs ${simStartMs + 6000}`);
  assert.ok(Object.keys(o.by_kind).every((k) => k === "http_503"));
  assert.ok(o.server !== null && o.server.errors > 0);
  assert.equal(planned![0]!.detected, 0);
  Deno.removeSync(dir, { recursive: true });
});
