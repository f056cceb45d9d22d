import assert from "node:assert/strict";
import { join } from "node:path";
import pl from "nodejs-polars";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { scanRun } from "../../../analysis/run/scan_run.ts";
import { InputError } from "../../../schema/errors.ts";
import { writeRun } from "../_fixture.ts";
import { END_POLICY, writeInterruptedRun, writeKilledRun } from "./_run_end_fixture.ts";
import { fixtureManifest, fixtureTables, POLICY } from "../hand_fixture.ts";

const quiet = { onWarning: () => {} };
const close = (a: number | null, b: number) => assert.ok(a !== null && Math.abs(a - b) < 1e-12, `${a} vs ${b}`);

Deno.test("a killed run is measured up to the last flushed evidence, its unlogged requests restored", async (t) => {
  const dir = writeKilledRun(join(Deno.makeTempDirSync(), "killed"));
  const run = await loadRun(dir, quiet);

  await t.step("the cut is the latest time in the log: m12's completion, 16000 + 1000 = 17000 ms", () => {
    assert.equal(run.end.status, "killed");
    assert.equal(run.end.cut_ms, 17_000);
    assert.equal(run.end.planned_ms, 60_000);
    // Schedule entries at or after 17000: m14…m79 = 80 − 14 = 66.
    assert.equal(run.end.after_cut, 66);
    // Before the cut without a row: m5 (stuck) and m13 (in flight at the kill).
    assert.equal(run.end.restored, 2);
    assert.equal(run.end.unresolved, 2);
  });
  await t.step("the two are restored from schedule.csv as aborted, marked restored_from_schedule", () => {
    const restored = run.requests.filter(pl.col("error_kind").eq(pl.lit("restored_from_schedule")));
    assert.deepEqual(restored.getColumn("request_id").toArray(), ["m5", "m13"]);
    assert.deepEqual([...new Set(restored.getColumn("outcome").toArray())], ["aborted"]);
    assert.equal(run.requests.height, 22 + 2); // 10 warm + 12 main logged, 2 restored
  });
  await t.step("stages are clipped at the cut: main 10–17 s, drain dropped; run.json's plan kept in end", () => {
    assert.deepEqual(run.manifest.stages.map((s) => [s.name, s.start_ms, s.end_ms]), [
      ["warm", 0, 10_000],
      ["main", 10_000, 17_000],
    ]);
    assert.equal(run.end.planned_stages.length, 3);
  });
  await t.step("goodput: 11 accepted / 7 s, denominator 14 (not 11 / 40 s over 12 logged rows)", () => {
    const g = goodput(run, END_POLICY);
    // Window: main clipped to [10000, 17000) = 7 s (planned 40 s).
    assert.equal(g.overall.measurement_seconds, 7);
    // Offered: m0…m13 = 14 (12 logged + m5 and m13 restored); m14 at 17000 is at the cut: left out.
    assert.equal(g.overall.offered, 14);
    // Accepted: the 12 logged main rows minus m3 (rejected) = 11.
    assert.equal(g.overall.accepted, 11);
    close(g.overall.accepted_goodput, 11 / 7); // 1.5714 /s; dividing by the planned 40 s gave 0.275
    close(g.overall.acceptance_rate, 11 / 14);
    assert.equal(g.overall.failures.rejected, 1);
    assert.equal(g.overall.failures.error, 2); // the two restored rows: not accepted
    assert.deepEqual(g.by_stage.map((r) => [r.stage, r.measurement_seconds]), [["main", 7]]);
  });
  await t.step("the disclosure states the rule and what it did", () => {
    const d = goodput(run, END_POLICY).disclosure;
    assert.equal(d.run_end.cut_ms, 17_000);
    assert.match(
      d.inclusion_rules[0]!,
      /^INCOMPLETE RUN \(killed\): an incomplete run's window ends where its log ends/,
    );
    assert.match(d.inclusion_rules[1]!, /66 requests scheduled at or after it left out .* 2 scheduled before it/);
    assert.match(d.window.description, /the log ends at 17000 ms \(incomplete run\)/);
  });
  await t.step("the headline says killed, no final status, 17 s of 60 s", () => {
    assert.equal(
      run.end.headline,
      'INCOMPLETE RUN, killed: no final status (run.json result.status is "running"); its log ends at 17 s of 60 s ' +
        "planned. Every window ends there: 66 requests scheduled after it are in neither numerator nor denominator; " +
        "2 scheduled before it were still in flight when the run ended and count as not accepted, 2 of them restored " +
        "from schedule.csv (no row in the log).",
    );
  });
  await t.step("a range window is clipped too: [5000, 30000) → [5000, 17000) = 12 s", () => {
    const g = goodput(run, { ...END_POLICY, window: { start_ms: 5000, end_ms: 30_000 } });
    assert.equal(g.overall.measurement_seconds, 12);
    // w5…w9 (5, all accepted) + m0…m13 (14, 11 accepted) = 19 offered, 16 accepted.
    assert.deepEqual([g.overall.offered, g.overall.accepted], [19, 16]);
    assert.throws(
      () => goodput(run, { ...END_POLICY, window: { start_ms: 20_000, end_ms: 30_000 } }),
      /starts at or after the end of the log \(17000 ms/,
    );
  });
  await t.step("scanRun gives the same numbers", async () => {
    const g = goodput(await scanRun(dir, quiet), END_POLICY);
    assert.deepEqual([g.overall.offered, g.overall.accepted, g.overall.measurement_seconds], [14, 11, 7]);
  });
  await t.step("a changed schedule is refused (strict) or read with a loud warning (warn)", async () => {
    const file = join(dir, "schedule.csv");
    Deno.writeTextFileSync(file, Deno.readTextFileSync(file).replace("m13,16500", "m13,16501"));
    await assert.rejects(
      () => loadRun(dir, quiet),
      (e) => e instanceof InputError && /schedule\.csv: sha256 .* plan\.schedule_sha256/.test(e.message),
    );
    const seen: string[] = [];
    await loadRun(dir, { verify: "warn", onWarning: (w) => seen.push(w) });
    assert.ok(seen.some((w) => /^UNVERIFIED SCHEDULE: .*schedule\.csv/.test(w)));
  });
});

Deno.test("an interrupted run ends where the stop cut it; its never-started requests are left out", async (t) => {
  const run = await loadRun(writeInterruptedRun(join(Deno.makeTempDirSync(), "int")), quiet);

  await t.step("cut = min(ended_ms 17350, first run_stopped not_sent at 17500) = 17350 ms", () => {
    assert.equal(run.end.status, "interrupted");
    assert.equal(run.end.cut_ms, 17_350);
    // m15…m79 never started: 80 − 15 = 65, all at or after the cut.
    assert.equal(run.end.after_cut, 65);
    // m13 and m14 were aborted in flight (run_stopped); nothing restored: every request has a row.
    assert.deepEqual([run.end.unresolved, run.end.restored], [2, 0]);
    assert.match(run.end.headline!, /^INCOMPLETE RUN, interrupted at 17\.35 s of 60 s planned/);
  });
  await t.step("goodput: 12 accepted / 7.35 s over 15 offered (not 12 / 40 s over 80)", () => {
    const g = goodput(run, END_POLICY);
    // Window: main clipped to [10000, 17350) = 7.35 s.
    assert.equal(g.overall.measurement_seconds, 7.35);
    // Offered: m0…m14 = 15; accepted: m0…m12 minus m3 = 12; m13, m14 aborted: error.
    assert.deepEqual([g.overall.offered, g.overall.sent, g.overall.accepted], [15, 15, 12]);
    close(g.overall.accepted_goodput, 12 / 7.35); // 1.633 /s; the planned 40 s gave 0.3
    close(g.overall.acceptance_rate, 12 / 15); // 0.8; over all 80 rows (65 never sent) it read 0.15
    assert.equal(g.overall.failures.not_sent, 0);
    assert.equal(g.overall.failures.error, 2);
    assert.equal(g.overall.failures.rejected, 1);
  });
});

Deno.test("a complete run is not cut", async () => {
  const run = await loadRun(writeRun(join(Deno.makeTempDirSync(), "run"), fixtureManifest(), fixtureTables()), quiet);
  assert.deepEqual([run.end.status, run.end.cut_ms, run.end.headline], ["complete", null, null]);
  assert.deepEqual(run.manifest.stages, run.end.planned_stages);
  assert.equal(goodput(run, POLICY).disclosure.inclusion_rules.some((r) => /INCOMPLETE/.test(r)), false);
});
