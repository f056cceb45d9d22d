import assert from "node:assert/strict";
import { join } from "node:path";
import { clientLimit } from "../../../analysis/knee/client_limit.ts";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { knee } from "../../../analysis/knee/knee.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { runWindow } from "../../../analysis/goodput/policy.ts";
import { limitFromKnee } from "../../../analysis/knee/limit.ts";
import { runVerdicts } from "../../../analysis/knee/verdicts.ts";
import type { RunManifest } from "../../../schema/run_manifest.ts";
import { asShard, att, req, writeManifest, writeRun } from "../_fixture.ts";
import { fixtureManifest } from "../hand_fixture.ts";
import { END_POLICY, writeKilledRun } from "../run/_run_end_fixture.ts";
import { CLIENT_POLICY, writeClientLimitedSweep } from "./_verdict_fixture.ts";
import { SWEEP_POLICY, writeSweepRun } from "./knee_fixture.ts";

const quiet = { onWarning: () => {} };
const tmp = (name: string) => join(Deno.makeTempDirSync(), name);

Deno.test("clientLimit(): not offered, or the send lag n supports (p95 at most) longer than the planned gap", async (t) => {
  await t.step("1 of 200 not_sent is enough", () => {
    const outcomes = Array.from({ length: 200 }, (_, i) => (i === 7 ? "not_sent" : "ok"));
    const v = clientLimit({ outcomes, lags: Array(200).fill(0), plannedRps: 1 });
    assert.equal(v.limited, true);
    assert.equal(v.why, "1 of 200 not sent or shed");
  });
  await t.step("a not_sent the stop left (run_stopped) is not the client's", () => {
    const outcomes = Array.from({ length: 200 }, (_, i) => (i === 7 ? "not_sent" : "ok"));
    const errorKinds = outcomes.map((o) => (o === "not_sent" ? "run_stopped" : null));
    assert.equal(clientLimit({ outcomes, lags: Array(200).fill(0), plannedRps: 1, errorKinds }).limited, false);
  });
  await t.step("p95 is nearest rank: 100 lags, the 95th smallest decides", () => {
    // 100 lags at 20 req/s (gap 1000 / 20 = 50 ms): rank ⌈0.95 · 100⌉ = 95.
    const lags = Array.from({ length: 100 }, (_, i) => (i < 94 ? 1 : 60));
    const six = clientLimit({ outcomes: Array(100).fill("ok"), lags, plannedRps: 20 });
    // Six lags of 60: the 95th value is 60 > 50: limited.
    assert.deepEqual([six.lag?.p, six.lag?.lag_ms, six.gap_ms, six.limited], [0.95, 60, 50, true]);
    // Five lags of 60: the 95th value is 1: not limited (a pause that delays a few requests does not decide).
    const five = clientLimit({ outcomes: Array(100).fill("ok"), lags: [...lags.slice(0, 99), 1], plannedRps: 20 });
    assert.deepEqual([five.lag?.lag_ms, five.limited], [1, false]);
  });
  await t.step("a lag equal to the gap is not beyond it; never-begun requests (null lag) are not counted", () => {
    // n = 1 supports no percentile (p50 needs 7): every lag is tested, and 50 ms is not beyond 50 ms.
    const v = clientLimit({ outcomes: ["ok", "ok"], lags: [50, null], plannedRps: 20 });
    assert.deepEqual([v.lag?.n, v.lag?.p, v.lag?.lag_ms, v.limited], [1, null, 50, false]);
  });
});

Deno.test("the knee leaves client-limited levels out, and says so first", async (t) => {
  const run = await loadRun(writeClientLimitedSweep(tmp("client")), quiet);
  const r = knee([run], CLIENT_POLICY);

  await t.step("8 req/s (16 of 160 not sent) and 16 req/s (p95 lag 100 ms > 62.5 ms) are excluded", () => {
    assert.deepEqual(r.excluded.map((e) => [e.planned_rps, e.reasons]), [
      [8, ["client_limited"]],
      [16, ["client_limited"]],
    ]);
    // Its 16 unsent requests were given up 1500 ms late: 16 of 160 is 10 % > 5 %, so its p95 lag is 1500 ms too.
    assert.equal(
      r.excluded[0]!.why,
      "client-limited: 16 of 160 not sent or shed; p95 send lag 1500 ms > 125 ms gap (n = 160)",
    );
    // 16 req/s: 320 lags, rank ⌈0.95 · 320⌉ = 304 > the 300 lags of 1 ms: 100 ms; gap 1000 / 16 = 62.5 ms.
    assert.deepEqual([r.excluded[1]!.client.lag?.lag_ms, r.excluded[1]!.client.gap_ms], [100, 62.5]);
  });
  await t.step("4 req/s is kept: 80 requests support p90 (not p95, which needs 90), 1 ms ≤ its 250 ms gap", () => {
    // 80 lags, 5 of 100 ms: rank ⌈0.90 · 80⌉ = 72 ≤ the 75 lags of 1 ms: 1 ms; gap 1000 / 4 = 250 ms.
    const s4 = clientLimit({
      outcomes: Array(80).fill("ok"),
      lags: Array.from({ length: 80 }, (_, i) => (i < 5 ? 100 : 1)),
      plannedRps: 4,
    });
    assert.deepEqual([s4.lag?.p, s4.lag?.lag_ms, s4.limited], [0.9, 1, false]);
    assert.deepEqual(r.levels.map((l) => l.planned_rps), [2, 4, 6]);
  });
  await t.step("without them nothing degrades: no knee at the client's 8 req/s", () => {
    // Included, 8 req/s would read acceptance 144 / 160 = 0.9 against the baseline's 1: a departure.
    assert.equal(r.first_degrading, null);
    assert.notEqual(r.knee?.offered_rps, 8);
    assert.equal(r.no_capacity, null);
  });
  await t.step("the verdicts: the excluded levels (every answer on time: no run-level (c) line)", () => {
    assert.match(r.verdicts[0]!, /^CLIENT-LIMITED LEVELS excluded from the knee: 8 req\/s planned \(client-limited: /);
    assert.match(r.verdicts[0]!, /16 req\/s planned \(client-limited: p95 send lag 100 ms > 62\.5 ms gap \(n = 320\)/);
    assert.equal(r.verdicts.length, 1);
  });
});

Deno.test("zero accepted at every level: no capacity can be derived, and no limit", async (t) => {
  const run = await loadRun(writeSweepRun(tmp("sweep")), quiet);
  // Every answered request of the sweep takes 500 or 2000 ms: under e2e ≤ 100 ms none is accepted.
  const strict = { ...SWEEP_POLICY, classes: { qa: { ...SWEEP_POLICY.classes.qa!, e2e_ms: 100 } } };
  const r = knee([run], strict);

  await t.step("the levels accepted nothing: 40 + 80 + 160 + 320 = 600 offered", () => {
    assert.deepEqual(r.levels.map((l) => l.pooled.accepted), [0, 0, 0, 0]);
    assert.equal(
      r.no_capacity,
      "no capacity can be derived from this run: no request was accepted at any load level (0 of 600 offered " +
        "over 4 levels)",
    );
    assert.equal(r.verdicts[0], `NO CAPACITY: ${r.no_capacity}`);
  });
  await t.step("the rejection rate still departs at 8 req/s, but there is no knee", () => {
    assert.equal(r.first_degrading?.planned_rps, 8);
    assert.equal(r.knee, null);
  });
  await t.step("the limit says no capacity, never 'at least the highest rate tested'", () => {
    const limit = limitFromKnee(r, 0.2, { highestTestedRps: 16 });
    assert.equal(limit.limit_rps, null);
    assert.deepEqual(limit.choices, []);
    assert.equal(limit.note, r.no_capacity);
    assert.doesNotMatch(limit.note, /at least/);
  });
});

Deno.test("a level the end of an interrupted run cut is left out of the knee", async () => {
  const dir = writeSweepRun(tmp("cut"));
  const m = JSON.parse(Deno.readTextFileSync(join(dir, "run.json"))) as RunManifest;
  // Stopped at 75 s of 95 s: step-04 (70–90 s) is cut to 70–75 s.
  writeManifest(dir, { ...m, result: { ...m.result, status: "interrupted", ended_ms: 75_000 } });
  const r = knee([await loadRun(dir, quiet)], SWEEP_POLICY);
  assert.deepEqual(r.levels.map((l) => l.planned_rps), [2, 4, 8]);
  assert.deepEqual(r.excluded.map((e) => [e.planned_rps, e.reasons]), [[16, ["cut"]]]);
  assert.match(r.excluded[0]!.why, /the window ends inside step-04 \(at 75 s of 90 s\)/);
  assert.match(r.verdicts[0]!, /^INCOMPLETE RUN \(interrupted at 75 s of 95 s\): no request was cut off by the stop/);
  assert.match(r.verdicts[1]!, /^LEVEL CUT BY THE END OF THE RUN excluded from the knee: 16 req\/s planned/);
  // The knee stays at the first departure, 8 req/s (knee_test.ts), now on the three uncut levels.
  assert.equal(r.knee?.offered_rps, 8);
});

Deno.test("a killed run's only level is cut: the knee derives nothing", async () => {
  const r = knee([await loadRun(writeKilledRun(tmp("killed")), quiet)], END_POLICY);
  assert.equal(r.excluded.length, 1);
  assert.match(r.no_capacity!, /every load level is excluded from the knee/);
  assert.equal(r.knee, null);
});

Deno.test("runVerdicts() names the client-limited stages and a window that accepted nothing", async (t) => {
  await t.step("client-limited stages of the window, re-judged from the log, in one line", async () => {
    const run = await loadRun(writeClientLimitedSweep(tmp("client")), quiet);
    const v = runVerdicts(run, runWindow(run, CLIENT_POLICY.window), { policy: CLIENT_POLICY });
    assert.equal(v.client.run_limited, true);
    assert.equal(v.client.recorded_limited, true);
    assert.deepEqual(v.client.stages.filter((s) => s.limited).map((s) => s.stage), ["s8", "s16"]);
    // s16: 320 lags, rank ⌈0.95 · 320⌉ = 304 > the 300 lags of 1 ms: 100 ms > 1000 / 16 = 62.5 ms.
    assert.deepEqual(v.lines, [
      "CLIENT-LIMITED RUN: s8 (8 req/s): 16 of 160 not sent or shed; p95 send lag 1500 ms > 125 ms gap (n = 160); " +
      "s16 (16 req/s): p95 send lag 100 ms > 62.5 ms gap (n = 320)",
    ]);
    assert.deepEqual(v.client.flips, { late: 0, flipped: 0 });
    assert.equal(v.client.note, null);
  });
  await t.step("a killed run: the headline first, no runner verdict to report, the log re-judged", async () => {
    const run = await loadRun(writeKilledRun(tmp("killed")), quiet);
    const w = runWindow(run, END_POLICY.window);
    const v = runVerdicts(run, w, goodput(run, END_POLICY));
    assert.equal(v.lines[0], run.end.headline);
    assert.equal(v.client.recorded_limited, null);
    assert.equal(v.client.run_limited, false);
    assert.equal(v.no_capacity, null);
  });
  await t.step("nothing accepted in the window", async () => {
    const run = await loadRun(writeKilledRun(tmp("killed")), quiet);
    const none = { ...END_POLICY, classes: { qa: { ...END_POLICY.classes.qa!, e2e_ms: 10 } } };
    const v = runVerdicts(run, runWindow(run, none.window), goodput(run, none));
    // 5 offered in the clipped window (m0…m4, run_end_test.ts), none answered within 10 ms.
    assert.equal(
      v.lines[1],
      "NO CAPACITY: no capacity can be derived from this run: no request in the window was " +
        "accepted (0 of 5 offered)",
    );
  });
});

Deno.test("runVerdicts() of a sharded run: the shards' recorded verdicts named, the pooled log re-judged", async () => {
  const root = tmp("sharded");
  // Shard i of 2 holds r0000000..r0000003 with index ≡ i (mod 2); shard 1's runner reported a 7.5 ms p99 lag.
  for (const index of [0, 1]) {
    const requests = [0, 1, 2, 3].filter((i) => i % 2 === index).map((i) =>
      req({ request_id: `r000000${i}`, class: "chat", stage: "low", scheduled_ms: 10_000 + 1000 * i, shard: index })
    );
    const attempts = requests.map((r) => att({ request_id: r.request_id, sent_ms: r.scheduled_ms }));
    const base = asShard(fixtureManifest(), index, 2);
    const result = index === 1
      ? { ...base.result, client_limited: true, client_limit_reason: "p99 send lag 7.5 ms > 5 ms" }
      : base.result;
    writeRun(join(root, `shard-${index}-of-2`), { ...base, result }, { requests, attempts });
  }
  const run = await loadRun(root, quiet);
  const v = runVerdicts(run, runWindow(run, CLIENT_POLICY.window));
  assert.equal(v.client.recorded_limited, true);
  assert.equal(v.client.recorded_reason, "1 of 2 shards: shard 1 of 2: p99 send lag 7.5 ms > 5 ms");
  // Re-judged: 4 requests, every one sent with lag 0, all offered: not client-limited. The old 5 ms bar's flag is one
  // short note, not a headline.
  assert.equal(v.client.run_limited, false);
  assert.deepEqual(v.lines, [
    "client: run.json's client-limited flag (the runner's rule then) is not upheld by the log: send lag max 0 ms " +
    "(n = 4 supports no percentile)",
  ]);
});
