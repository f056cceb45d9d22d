import assert from "node:assert/strict";
import { join } from "node:path";
import { formatIntakeDrills } from "../../../analysis/recovery/format_intake_drill.ts";
import { intakeDrills } from "../../../analysis/recovery/intake_drill.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { AttemptRow, DrillRecord, RequestRow } from "../../../schema/mod.ts";
import { att, makeManifest, req, writeRun } from "../_fixture.ts";

/**
 * A hand-built drill (all times run ms). The runner called the stop hook at S = 3000 (answered 3004) and the resume
 * hook at R = 6000 (answered 6002); timeouts: attempt 2000, request 5000, idle 1000 ms.
 */
const DRILLS: DrillRecord[] = [
  {
    kind: "intake_stop",
    name: "operator-stop",
    hook: "POST http://127.0.0.1:9/admin/intake",
    calls: [
      { action: "stop", planned_ms: 3000, called_ms: 3000, answered_ms: 3004, status: 200, ok: true, error: null },
      { action: "resume", planned_ms: 6000, called_ms: 6000, answered_ms: 6002, status: 200, ok: true, error: null },
    ],
  },
  {
    kind: "intake_stop",
    name: "late",
    hook: "POST http://127.0.0.1:9/admin/intake",
    calls: [{
      action: "stop",
      planned_ms: 9000,
      called_ms: null,
      answered_ms: null,
      status: null,
      ok: false,
      error: "not called: the run ended before its time",
    }],
  },
];

type Row = { r: RequestRow; a: AttemptRow[] };
type Sent = Partial<AttemptRow> & { sent_ms: number };

/** A request first sent at `t` (= scheduled) with `outcome`, and its attempts. */
const task = (
  id: string,
  t: number,
  outcome: RequestRow["outcome"],
  a: Sent[],
  over: Partial<RequestRow> = {},
): Row => ({
  r: req({ request_id: id, class: "qa", stage: "s", scheduled_ms: t, outcome, ...over }),
  a: a.map((x, i) => att({ request_id: id, attempt: i + 1, ...x })),
});
const refused = (sent: number, status: number, retryAfter: number | null): Sent => ({
  sent_ms: sent,
  headers_ms: sent + 2,
  completed_ms: null,
  http_status: status,
  error_kind: `http_${status}`,
  retry_after_ms: retryAfter,
});
const served = (sent: number, end: number): Sent => ({
  sent_ms: sent,
  headers_ms: sent + 5,
  first_token_ms: sent + 10,
  last_token_ms: end,
  completed_ms: end,
});

const ROWS: Row[] = [
  // Before the stop.
  task("f1", 2000, "ok", [served(2000, 3500)], { completed_ms: 3500 }), // in flight: ends 3500 > S, completed
  task("f2", 2500, "ok", [served(2500, 2900)], { completed_ms: 2900 }), // ended 2900 < S: not in flight
  // A timed-out attempt with nothing recorded after its send: cut at 2800 + attempt_ms 2000 = 4800 → in flight, failed.
  task("f3", 2800, "timeout", [{ sent_ms: 2800, http_status: null, error_kind: "attempt_timeout" }]),
  task("f4", 1000, "http_error", [refused(1000, 500, null)]), // answered 1002: not in flight
  // Cut mid-stream: its last token at 3200 > S → in flight, failed.
  task("f5", 2900, "transport_error", [{
    sent_ms: 2900,
    headers_ms: 2950,
    first_token_ms: 3000,
    last_token_ms: 3200,
    error_kind: "stream_cut",
  }]),
  // A tool task: round 0 before the stop, round 1 after it (not a new task): in flight, completed at 3450.
  {
    r: req({ request_id: "f6", class: "qa", stage: "s", scheduled_ms: 2600, completed_ms: 3450, rounds: 2 }),
    a: [
      att({ request_id: "f6", attempt: 1, ...served(2600, 2800) }),
      att({ request_id: "f6", round: 1, attempt: 1, ...served(3100, 3400) }),
    ],
  },
  // New tasks in [S, R) = [3000, 6000).
  task("n1", 3010, "ok", [served(3010, 3300)], { completed_ms: 3300 }), // served: the stop had not taken hold
  task("n2", 3100, "http_error", [refused(3100, 503, null)]), // 503 without Retry-After: not clean
  task("n3", 3250, "http_error", [refused(3250, 503, 1000)]), // clean: t* (every later new task is clean)
  task("n4", 3500, "rejected", [refused(3500, 429, 2000)]), // clean
  // Clean, then retried at 5000 (not a new task) and at 6005, just after R: still refused.
  task("n5", 4000, "http_error", [refused(4000, 503, 1000), refused(5000, 503, 1000), refused(6005, 503, 1000)]),
  task("n6", 5500, "http_error", [refused(5500, 503, 0)]), // Retry-After: 0 is still a Retry-After
  // After the resume call.
  task("n7", 6010, "http_error", [refused(6010, 503, 1000)]), // refused 10 ms after R
  task("n8", 6200, "ok", [served(6200, 6400)], { completed_ms: 6400 }), // the first served send after R
];

async function drillRun(drills: DrillRecord[]) {
  const manifest = makeManifest([{ name: "s", kind: "steady", start_ms: 0, end_ms: 7000, offered_rps: 2 }], {
    timeouts: { attempt_ms: 2000, request_ms: 5000, headers_ms: 1000, idle_ms: 1000 },
    drills,
  });
  const dir = writeRun(join(Deno.makeTempDirSync(), "run"), manifest, {
    requests: ROWS.map((x) => x.r),
    attempts: ROWS.flatMap((x) => x.a),
  });
  return await loadRun(dir, { onWarning: () => {} });
}

Deno.test("intakeDrills() measures a hand-built drill", async (t) => {
  const report = intakeDrills(await drillRun(DRILLS));
  const d = report.drills[0]!;
  await t.step("new tasks first sent in [3000, 6000): n1 served, n2 not clean, n3 n4 n5 n6 refused cleanly", () => {
    assert.deepEqual(d.new_tasks, {
      from_ms: 3000,
      to_ms: 6000,
      n: 6,
      refused_clean: 4,
      served: 1,
      not_clean: 1,
      not_clean_kinds: { http_503: 1 },
    });
  });
  await t.step("refused cleanly from n3: 3250 − 3000 = 250 ms, at least n2's 3100 − 3000 = 100 ms", () => {
    assert.deepEqual(d.refusal, { lag_ms: 250, lag_lower_ms: 100, served_before: 1, not_clean_before: 1 });
  });
  await t.step("in flight at the stop: f1 f6 completed, f3 (cut at 4800) and f5 failed; drained 4800 − 3000", () => {
    assert.deepEqual(d.in_flight, {
      n: 4,
      completed: 2,
      failed: 2,
      failed_outcomes: { timeout: 1, transport_error: 1 },
      drained_ms: 1800,
    });
  });
  await t.step(
    "resumed at n8: 6200 − 6000 = 200 ms, at least n7's 6010 − 6000 = 10 ms; n5's 6005 and n7 refused",
    () => {
      assert.deepEqual(d.resumed, { lag_ms: 200, lag_lower_ms: 10, refused_between: 2 });
    },
  );
  await t.step("a drill whose stop was never called is reported as not measured", () => {
    assert.deepEqual(report.not_measured, [{ name: "late", reason: "not called: the run ended before its time" }]);
  });
  await t.step("the text section says each figure with its bounds", () => {
    const text = formatIntakeDrills(report)!;
    assert.match(text, /new tasks sent while stopped \(3000\.0 ms to 6000\.0 ms\): 6: 4 refused cleanly/);
    assert.match(text, /refused cleanly from 250\.0 ms after the stop call \(between 100\.0 ms and 250\.0 ms\)/);
    assert.match(text, /in flight at the stop: 4: 2 completed, 2 failed \(timeout=1 transport_error=1\)/);
    assert.match(text, /intake resumed 200\.0 ms after the resume call \(between 10\.0 ms and 200\.0 ms\)/);
    assert.match(text, /^ {2}late: not measured: not called/m);
  });
});

Deno.test("intakeDrills() without a resume call: the stop runs to the end and a served task means never clean", async () => {
  const stopOnly: DrillRecord = { ...DRILLS[0]!, calls: [DRILLS[0]!.calls[0]!] };
  const d = intakeDrills(await drillRun([stopOnly])).drills[0]!;
  // New tasks now run to the end of the log: n1–n6 plus n7 (clean) and n8 (served, the last one).
  assert.deepEqual([d.new_tasks.to_ms, d.new_tasks.n, d.new_tasks.refused_clean, d.new_tasks.served], [null, 8, 5, 2]);
  assert.deepEqual(d.refusal, { lag_ms: null, lag_lower_ms: null, served_before: 0, not_clean_before: 0 });
  assert.equal(d.resumed, null);
  assert.match(formatIntakeDrills(intakeDrills(await drillRun([stopOnly])))!, /NOT refused cleanly/);
});

Deno.test("intakeDrills() of a run without drills is empty and analyze prints no section", async () => {
  const report = intakeDrills(await drillRun([]));
  assert.deepEqual([report.drills, report.not_measured], [[], []]);
  assert.equal(formatIntakeDrills(report), null);
});
