import assert from "node:assert/strict";
import { join } from "node:path";
import pl from "nodejs-polars";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import { knee } from "../../../analysis/knee/knee.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { scanRun } from "../../../analysis/run/scan_run.ts";
import { completeRunEnd, runEndHeadline, splitCutOff } from "../../../analysis/run/run_end_rule.ts";
import { decideStopped } from "../../../analysis/run/run_end_decide.ts";
import { e2eDeadlines } from "../../../analysis/goodput/e2e_deadlines.ts";
import { InputError } from "../../../schema/errors.ts";
import { writeRun } from "../_fixture.ts";
import {
  END_POLICY,
  HUNG_POLICY,
  writeCompleteRun,
  writeHungRun,
  writeInterruptedRun,
  writeKilledRun,
} from "./_run_end_fixture.ts";
import { fixtureManifest, fixtureTables, POLICY } from "../hand_fixture.ts";

const quiet = { onWarning: () => {} };
const close = (a: number | null, b: number) => assert.ok(a !== null && Math.abs(a - b) < 1e-12, `${a} vs ${b}`);

Deno.test("a killed run: requests with no row are censored, and the window ends at the first of them", async (t) => {
  const dir = writeKilledRun(join(Deno.makeTempDirSync(), "killed"));
  const run = await loadRun(dir, quiet);

  await t.step("the log ends at m12's completion, 17000 ms; the window at m5's schedule, 12500 ms", () => {
    assert.equal(run.end.status, "killed");
    assert.equal(run.end.log_end_ms, 17_000);
    // Censored: before the log's end without a row: m5 (stuck, 12500) and m13 (in flight at the kill, 16500).
    assert.deepEqual(run.end.censored_ids, ["m5", "m13"]);
    assert.deepEqual([run.end.censored, run.end.restored], [2, 2]);
    // Window end = min(17000, 12500, 16500) = 12500.
    assert.equal(run.end.cut_ms, 12_500);
    assert.equal(run.end.planned_ms, 60_000);
    // Left out besides the censored: m6…m12 (7 logged rows in [12500, 17000)) + m14…m79 (66 schedule entries at or
    // after 17000) = 73.
    assert.equal(run.end.after_cut, 73);
  });
  await t.step("the two are restored from schedule.csv as aborted, marked restored_from_schedule, to name them", () => {
    const restored = run.requests.filter(pl.col("error_kind").eq(pl.lit("restored_from_schedule")));
    assert.deepEqual(restored.getColumn("request_id").toArray(), ["m5", "m13"]);
    assert.deepEqual([...new Set(restored.getColumn("outcome").toArray())], ["aborted"]);
    assert.equal(run.requests.height, 22 + 2); // 10 warm + 12 main logged, 2 restored
  });
  await t.step("stages are clipped at the window's end: main 10–12.5 s, drain dropped; run.json's plan kept", () => {
    assert.deepEqual(run.manifest.stages.map((s) => [s.name, s.start_ms, s.end_ms]), [
      ["warm", 0, 10_000],
      ["main", 10_000, 12_500],
    ]);
    assert.equal(run.end.planned_stages.length, 3);
  });
  await t.step("goodput: 4 accepted / 2.5 s over 5 offered (the censored m5 and m13 in neither)", () => {
    const g = goodput(run, END_POLICY);
    // Window: main clipped to [10000, 12500) = 2.5 s (planned 40 s).
    assert.equal(g.overall.measurement_seconds, 2.5);
    // Offered: m0…m4 = 5, every one decided; accepted: m0…m4 minus m3 (rejected) = 4.
    assert.deepEqual([g.overall.offered, g.overall.accepted], [5, 4]);
    close(g.overall.accepted_goodput, 4 / 2.5); // 1.6 /s; counting m5, m13 as failures to 17 s gave 11 / 7 = 1.571
    close(g.overall.acceptance_rate, 4 / 5); // 0.8; counting them as failures gave 11 / 14 = 0.786
    assert.equal(g.overall.failures.rejected, 1);
    assert.equal(g.overall.failures.error, 0); // no censored request counted as a failure
    assert.deepEqual(g.by_stage.map((r) => [r.stage, r.measurement_seconds]), [["main", 2.5]]);
  });
  await t.step("the disclosure states the rule and names the censored requests", () => {
    const d = goodput(run, END_POLICY).disclosure;
    assert.equal(d.run_end.cut_ms, 12_500);
    assert.deepEqual(d.run_end.censored_ids, ["m5", "m13"]);
    assert.match(d.inclusion_rules[0]!, /^INCOMPLETE RUN \(killed\): an incomplete run's log ends at the stop/);
    assert.match(d.inclusion_rules[0]!, /censored, not failed/);
    assert.match(
      d.inclusion_rules[1]!,
      /log ends at 17000 ms and the window at 12500 ms .* 2 requests censored .*: m5, m13; 73 other requests/,
    );
    assert.match(d.window.description, /its window ends at 12500 ms/);
  });
  await t.step("the headline is one line: killed, where the log ends, the censored named, the window's end", () => {
    assert.equal(
      run.end.headline,
      "INCOMPLETE RUN (killed, no final status; log ends at 17 s of 60 s): 2 requests cut off by the kill are " +
        "censored (m5, m13; 2 restored from schedule.csv); window ends at 12.5 s, where the first was scheduled",
    );
  });
  await t.step("a range window is clipped too: [5000, 30000) → [5000, 12500) = 7.5 s", () => {
    const g = goodput(run, { ...END_POLICY, window: { start_ms: 5000, end_ms: 30_000 } });
    assert.equal(g.overall.measurement_seconds, 7.5);
    // w5…w9 (5, all accepted) + m0…m4 (5, 4 accepted) = 10 offered, 9 accepted.
    assert.deepEqual([g.overall.offered, g.overall.accepted], [10, 9]);
    assert.throws(
      () => goodput(run, { ...END_POLICY, window: { start_ms: 13_000, end_ms: 30_000 } }),
      /starts at or after the end of the run's window \(12500 ms/,
    );
  });
  await t.step("scanRun gives the same end and the same numbers", async () => {
    const scanned = await scanRun(dir, quiet);
    assert.deepEqual(scanned.end, run.end);
    const g = goodput(scanned, END_POLICY);
    assert.deepEqual([g.overall.offered, g.overall.accepted, g.overall.measurement_seconds], [5, 4, 2.5]);
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

Deno.test("an interrupted run: requests aborted by the stop are censored; the window ends at the first", async (t) => {
  const dir = writeInterruptedRun(join(Deno.makeTempDirSync(), "int"));
  const run = await loadRun(dir, quiet);

  await t.step("log end = min(ended_ms 17350, first run_stopped not_sent 17500) = 17350; window end 16500", () => {
    assert.equal(run.end.status, "interrupted");
    assert.equal(run.end.log_end_ms, 17_350);
    // m13 (16500) and m14 (17000) were aborted in flight (run_stopped): censored; nothing restored.
    assert.deepEqual(run.end.censored_ids, ["m13", "m14"]);
    assert.deepEqual([run.end.censored, run.end.restored], [2, 0]);
    assert.equal(run.end.cut_ms, 16_500); // min(17350, 16500, 17000)
    // m15…m79 never started: 80 − 15 = 65; nothing decided in [16500, 17350) besides the censored.
    assert.equal(run.end.after_cut, 65);
    assert.equal(
      run.end.headline,
      "INCOMPLETE RUN (interrupted at 17.35 s of 60 s): 2 requests cut off by the stop are censored (m13, m14); " +
        "window ends at 16.5 s, where the first was scheduled",
    );
  });
  await t.step("goodput: 12 accepted / 6.5 s over 13 offered (not 12 / 7.35 s over 15)", () => {
    const g = goodput(run, END_POLICY);
    // Window: main clipped to [10000, 16500) = 6.5 s.
    assert.equal(g.overall.measurement_seconds, 6.5);
    // Offered: m0…m12 = 13; accepted: m0…m12 minus m3 = 12; m13, m14 censored: in neither.
    assert.deepEqual([g.overall.offered, g.overall.sent, g.overall.accepted], [13, 13, 12]);
    close(g.overall.accepted_goodput, 12 / 6.5); // 1.846 /s; counting m13, m14 as failures gave 12 / 7.35 = 1.633
    close(g.overall.acceptance_rate, 12 / 13); // 0.923; counting them as failures gave 12 / 15 = 0.8
    assert.equal(g.overall.failures.not_sent, 0);
    assert.equal(g.overall.failures.error, 0);
    assert.equal(g.overall.failures.rejected, 1);
  });
  await t.step("scanRun gives the same end", async () => {
    assert.deepEqual((await scanRun(dir, quiet)).end, run.end);
  });
});

Deno.test("stopped runs give the complete run's acceptance on the requests the stop did not decide", async (t) => {
  const root = Deno.makeTempDirSync();
  const complete = await loadRun(writeCompleteRun(join(root, "complete")), quiet);
  const whole = goodput(complete, END_POLICY);
  // The complete run: main's 80 requests, all accepted but m3: 79 / 80 over 40 s.
  assert.deepEqual([whole.overall.offered, whole.overall.accepted, whole.overall.measurement_seconds], [80, 79, 40]);
  assert.deepEqual([complete.end.cut_ms, complete.end.headline], [null, null]);
  for (
    const [name, dir, end, offered, accepted] of [
      // Interrupted: the window [10000, 16500) holds m0…m12: 13 offered, 12 accepted = 0.923 in both runs.
      ["interrupted", writeInterruptedRun(join(root, "int")), 16_500, 13, 12],
      // Killed: the window [10000, 12500) holds m0…m4: 5 offered, 4 accepted = 0.8 in both runs.
      ["killed", writeKilledRun(join(root, "killed")), 12_500, 5, 4],
    ] as const
  ) {
    await t.step(`${name}: the same offered, accepted and acceptance as the complete run over its window`, async () => {
      for (const stopped of [await loadRun(dir, quiet), await scanRun(dir, quiet)]) {
        const g = goodput(stopped, END_POLICY);
        const same = goodput(complete, { ...END_POLICY, window: { start_ms: 10_000, end_ms: end } });
        assert.deepEqual([g.overall.offered, g.overall.accepted], [offered, accepted]);
        assert.deepEqual([same.overall.offered, same.overall.accepted], [offered, accepted]);
        close(g.overall.acceptance_rate, same.overall.acceptance_rate!);
        close(g.overall.accepted_goodput, same.overall.accepted_goodput!);
      }
    });
  }
});

Deno.test("a complete run is not cut", async () => {
  const run = await loadRun(writeRun(join(Deno.makeTempDirSync(), "run"), fixtureManifest(), fixtureTables()), quiet);
  assert.deepEqual([run.end.status, run.end.cut_ms, run.end.headline], ["complete", null, null]);
  assert.deepEqual(run.manifest.stages, run.end.planned_stages);
  assert.equal(goodput(run, POLICY).disclosure.inclusion_rules.some((r) => /INCOMPLETE/.test(r)), false);
});

Deno.test("runEndHeadline() names the first 10 censored requests and counts the rest", () => {
  const ids = Array.from({ length: 12 }, (_, i) => `r${i}`);
  const end = {
    ...completeRunEnd([]),
    status: "interrupted" as const,
    cut_ms: 6_500,
    log_end_ms: 17_167,
    planned_ms: 60_000,
    censored: 12,
    censored_ids: ids,
  };
  assert.equal(
    runEndHeadline(end),
    "INCOMPLETE RUN (interrupted at 17.167 s of 60 s): 12 requests cut off by the stop are censored (r0, r1, r2, " +
      "r3, r4, r5, r6, r7, r8, r9 and 2 more); window ends at 6.5 s, where the first was scheduled",
  );
  assert.equal(
    runEndHeadline({ ...end, cut_ms: 17_167, censored: 0, censored_ids: [] }),
    "INCOMPLETE RUN (interrupted at 17.167 s of 60 s): no request was cut off by the stop; window ends there",
  );
});

/** The e2e limits of HUNG_POLICY: qa 3000 ms. */
const HUNG = e2eDeadlines(HUNG_POLICY, "hung.json");
const withHung = { ...quiet, deadlines: HUNG };

Deno.test("a target hung until the operator stopped it: its requests in flight past their e2e limit failed", async (t) => {
  // m70…m79 (45000…49500 ms) sent to a target that hung; SIGINT at 59500 ms, in the drain (no later arrival).
  const dir = writeHungRun(join(Deno.makeTempDirSync(), "hung"), 45_000, 59_500);
  const run = await loadRun(dir, withHung);

  await t.step("all 10 decided: at the log's end they had run 10 to 14.5 s against a 3 s limit", () => {
    // Log end = min(ended_ms 59500, no not_sent) = 59500. Elapsed: 59500 − 45000 = 14500 … 59500 − 49500 = 10000,
    // each > 3000: decided, none censored, so the window ends at the log's end.
    assert.equal(run.end.log_end_ms, 59_500);
    assert.deepEqual([run.end.decided, run.end.censored], [10, 0]);
    assert.deepEqual(run.end.decided_ids, Array.from({ length: 10 }, (_, i) => `m${70 + i}`));
    assert.equal(run.end.cut_ms, 59_500);
    assert.equal(run.end.after_cut, 0); // nothing scheduled at or after 59500
    assert.equal(run.end.deadlines, "e2e limits of SLO policy hung.json");
    assert.equal(
      run.end.headline,
      "INCOMPLETE RUN (interrupted at 59.5 s of 60 s): 10 requests cut off by the stop were already past their e2e " +
        "limit and count as failed (m70, m71, m72, m73, m74, m75, m76, m77, m78, m79); none censored; window ends " +
        "there",
    );
  });
  await t.step("goodput: 69 accepted / 40 s over 80 offered; the 10 hung requests are late_e2e failures", () => {
    const g = goodput(run, HUNG_POLICY);
    // Window: main whole, [10000, 50000) = 40 s (the drain is excluded by the policy; clipped at 59500 anyway).
    assert.equal(g.overall.measurement_seconds, 40);
    // Offered m0…m79 = 80; accepted m0…m69 minus m3 (rejected) = 69; m70…m79 not accepted.
    assert.deepEqual([g.overall.offered, g.overall.accepted], [80, 69]);
    close(g.overall.accepted_goodput, 69 / 40); // 1.725 /s
    close(g.overall.acceptance_rate, 69 / 80); // 0.8625
    assert.equal(g.overall.failures.late_e2e, 10); // named late, not "error": the stop did not decide them
    assert.equal(g.overall.failures.error, 0);
    assert.equal(g.overall.failures.rejected, 1);
  });
  await t.step(
    "without a policy the old rule: all 10 censored, the window pulled back to 45 s, the run healthy",
    async () => {
      const old = await loadRun(dir, quiet);
      assert.deepEqual([old.end.censored, old.end.decided, old.end.cut_ms, old.end.deadlines], [10, 0, 45_000, null]);
      const g = goodput(old, HUNG_POLICY);
      // Window: main [10000, 45000) = 35 s; m0…m69 = 70 offered, 69 accepted: 69 / 35 = 1.971 /s, 69 / 70 = 0.986.
      assert.deepEqual([g.overall.measurement_seconds, g.overall.offered, g.overall.accepted], [35, 70, 69]);
      close(g.overall.acceptance_rate, 69 / 70);
      assert.match(g.disclosure.inclusion_rules[1]!, /read without an SLO policy's e2e limits/);
    },
  );
  await t.step("the knee tests the level that holds the decided requests: their failures are the target's", () => {
    // main (2 req/s) ends at 50000 ms, before the window's end (59500): not cut by the window; its 10 cut-off requests
    // are decided failures, not censored, so the level is tested with 69 of 80 accepted. Read without deadlines, the
    // same level is cut: the window ends at 45000 ms, inside it.
    const k = knee([run], HUNG_POLICY);
    assert.deepEqual(k.excluded, []);
    assert.deepEqual(k.levels.map((l) => [l.planned_rps, l.pooled.offered, l.pooled.accepted]), [[2, 80, 69]]);
  });
  await t.step("the disclosure names the decided requests and where their limits came from", () => {
    const rules = goodput(run, HUNG_POLICY).disclosure.inclusion_rules;
    assert.match(rules[0]!, /already exceeds its e2e limit .* had its fate decided before the stop: it failed/);
    assert.match(
      rules[1]!,
      /10 requests cut off by the stop already past their e2e limit at the log's end \(e2e limits of SLO policy hung\.json\) failed: .*: m70, m71, m72, m73, m74, m75, m76, m77, m78, m79; 0 requests censored/,
    );
  });
  await t.step("scanRun and decideStopped on a run read without deadlines give the same end", async () => {
    assert.deepEqual((await scanRun(dir, withHung)).end, run.end);
    const later = await decideStopped(await loadRun(dir, quiet), HUNG);
    assert.deepEqual(later.end, run.end);
    assert.deepEqual(later.manifest.stages, run.manifest.stages);
    const g = goodput(await decideStopped(await scanRun(dir, quiet), HUNG), HUNG_POLICY);
    assert.deepEqual([g.overall.offered, g.overall.accepted, g.overall.failures.late_e2e], [80, 69, 10]);
  });
});

Deno.test("a stop during a hang: the requests past their limit failed, the recent ones censored", async (t) => {
  // The target hangs from m10 (15000 ms); SIGINT at 20400 ms: m10…m20 in flight, m21…m79 never started.
  const dir = writeHungRun(join(Deno.makeTempDirSync(), "mixed"), 15_000, 20_400);
  const run = await loadRun(dir, withHung);

  await t.step(
    "decided: scheduled before 20400 − 3000 = 17400 ms; censored: the rest; the window ends at 17.5 s",
    () => {
      // Log end = min(ended_ms 20400, first not_sent m21 at 20500) = 20400.
      assert.equal(run.end.log_end_ms, 20_400);
      // m10…m14 (15000…17000): 5400 … 3400 ms elapsed > 3000: decided. m15…m20 (17500…20000): 2900 … 400 ≤ 3000.
      assert.deepEqual(run.end.decided_ids, ["m10", "m11", "m12", "m13", "m14"]);
      assert.deepEqual(run.end.censored_ids, ["m15", "m16", "m17", "m18", "m19", "m20"]);
      assert.equal(run.end.cut_ms, 17_500); // min(20400, m15's 17500)
      // After the window's end besides the censored: m21…m79 = 59 (the 6 rows in [17500, 20400) are all censored).
      assert.equal(run.end.after_cut, 59);
      assert.equal(
        run.end.headline,
        "INCOMPLETE RUN (interrupted at 20.4 s of 60 s): 5 cut off by the stop already past their e2e limit count " +
          "as failed; 6 censored (m15, m16, m17, m18, m19, m20); window ends at 17.5 s, where the first censored " +
          "was scheduled",
      );
    },
  );
  await t.step(
    "goodput: 9 accepted / 7.5 s over 15 offered (without the policy: 9 / 5 s over 10, healthy)",
    async () => {
      const g = goodput(run, HUNG_POLICY);
      // Window main [10000, 17500) = 7.5 s: m0…m14 = 15 offered; accepted m0…m9 minus m3 = 9; m10…m14 late_e2e.
      assert.deepEqual([g.overall.measurement_seconds, g.overall.offered, g.overall.accepted], [7.5, 15, 9]);
      close(g.overall.accepted_goodput, 9 / 7.5); // 1.2 /s
      close(g.overall.acceptance_rate, 9 / 15); // 0.6
      assert.deepEqual([g.overall.failures.late_e2e, g.overall.failures.rejected, g.overall.failures.error], [5, 1, 0]);
      const old = goodput(await loadRun(dir, quiet), HUNG_POLICY);
      // All 11 censored: window [10000, 15000) = 5 s; m0…m9: 9 / 5 = 1.8 /s, 9 / 10 = 0.9.
      assert.deepEqual([old.overall.measurement_seconds, old.overall.offered, old.overall.accepted], [5, 10, 9]);
    },
  );
  await t.step("a class with no e2e limit cannot be decided by time: all censored, as without a policy", async () => {
    const noLimit = e2eDeadlines({ ...END_POLICY, classes: {}, default: { gates: ["output_valid"] } }, "none.json");
    const end = (await loadRun(dir, { ...quiet, deadlines: noLimit })).end;
    assert.deepEqual([end.decided, end.censored, end.cut_ms], [0, 11, 15_000]);
  });
  await t.step("scanRun gives the same end", async () => {
    assert.deepEqual((await scanRun(dir, withHung)).end, run.end);
  });
});

Deno.test("a killed run under a policy: a request with no row already past its limit failed", async () => {
  const run = await loadRun(writeKilledRun(join(Deno.makeTempDirSync(), "killed")), withHung);
  // Log end 17000 (m12's completion). m5 (12500, no row) had run 4500 ms > 3000: decided; m13 (16500): 500: censored.
  assert.deepEqual([run.end.decided_ids, run.end.censored_ids, run.end.cut_ms], [["m5"], ["m13"], 16_500]);
  // After 16500 besides m13: m14…m79, 66 schedule entries at or after 17000.
  assert.equal(run.end.after_cut, 66);
  const g = goodput(run, HUNG_POLICY);
  // Window main [10000, 16500) = 6.5 s: m0…m12 = 13 offered (m5 restored); accepted 13 − m3 − m5 = 11.
  assert.deepEqual([g.overall.measurement_seconds, g.overall.offered, g.overall.accepted], [6.5, 13, 11]);
  assert.equal(g.overall.failures.late_e2e, 1);
  assert.equal(
    run.end.headline,
    "INCOMPLETE RUN (killed, no final status; log ends at 17 s of 60 s): 1 cut off by the kill already past its " +
      "e2e limit counts as failed; 1 censored (m13); 2 restored from schedule.csv; window ends at 16.5 s, where " +
      "the first censored was scheduled",
  );
});

Deno.test("splitCutOff() decides a request only when its time at the log's end exceeds its limit", () => {
  const at = (id: string, t: number, cls = "qa") => ({
    request_id: id,
    scheduled_ms: t,
    class: cls,
    service_mode: null,
  });
  const limits = { limit: (cls: string) => (cls === "qa" ? 3000 : null), source: "test" };
  // Log end 10000: a (6999) has run 3001 > 3000: decided; b (7000) exactly 3000: censored; c has no limit: censored.
  const s = splitCutOff(10_000, [at("a", 6999), at("b", 7000), at("c", 0, "chat")], limits);
  assert.deepEqual([s.decided.map((r) => r.request_id), s.censored.map((r) => r.request_id)], [["a"], ["b", "c"]]);
});
