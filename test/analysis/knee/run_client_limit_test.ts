import assert from "node:assert/strict";
import { join } from "node:path";
import { SloPolicy } from "../../../schema/slo.ts";
import type { AttemptRow, RequestRow } from "../../../schema/events.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { runWindow } from "../../../analysis/goodput/policy.ts";
import { latencyFlips, runClientLimit } from "../../../analysis/knee/run_client_limit.ts";
import { kneeVerdicts, runVerdicts } from "../../../analysis/knee/verdicts.ts";
import { att, makeManifest, req, writeRun } from "../_fixture.ts";

const quiet = { onWarning: () => {} };

/** e2e ≤ 3000 ms and TTFT ≤ 1000 ms, output_valid required; every request in the window. */
const POLICY = SloPolicy.parse({
  window: { exclude_stage_kinds: [] },
  default: { e2e_ms: 3000, ttft_ms: 1000, gates: ["output_valid"] },
});

/**
 * Issue 28's idle-machine run: 23 requests at 2 req/s (500 ms apart, one steady stage of 11.5 s), sent 0.2, 0.4, …,
 * 4.4 ms late (22 of them) and the last 5.08 ms late; TTFT 100 ms and e2e 500 ms after the scheduled time, except
 * what `last` sets for the last one. run.json says what the old rule said: p99 of 23 = the 23rd, 5.08 ms > 5 ms.
 */
async function idleRun(name: string, last: Partial<RequestRow> = {}) {
  const requests: RequestRow[] = [], attempts: AttemptRow[] = [];
  for (let i = 0; i < 23; i++) {
    const t = 500 * i, lag = i === 22 ? 5.08 : +(0.2 * (i + 1)).toFixed(1);
    const row = req({
      request_id: `r${String(i).padStart(2, "0")}`,
      class: "qa",
      stage: "s",
      scheduled_ms: t,
      send_lag_ms: lag,
      first_sent_ms: t + lag,
      first_token_ms: t + 100,
      completed_ms: t + 500,
      ...(i === 22 ? last : {}),
    });
    requests.push(row);
    attempts.push(att({
      request_id: row.request_id,
      sent_ms: t + lag,
      headers_ms: t + 50,
      first_token_ms: row.first_token_ms,
      last_token_ms: row.completed_ms,
      completed_ms: row.completed_ms,
      output_tokens: 10,
    }));
  }
  const m = makeManifest([{ name: "s", kind: "steady", start_ms: 0, end_ms: 11_500, offered_rps: 2 }]);
  m.result = {
    ...m.result,
    offered: 23,
    send_lag_p99_ms: 5.08,
    send_lag_max_ms: 5.08,
    client_limited: true,
    client_limit_reason: "p99 send lag 5.08 ms > 5 ms",
  };
  const dir = writeRun(join(Deno.makeTempDirSync(), name), m, { requests, attempts });
  return await loadRun(dir, quiet);
}

Deno.test("the re-judged client verdict: 23 requests on an idle machine are not client-limited", async () => {
  const run = await idleRun("idle");
  const v = runVerdicts(run, runWindow(run, POLICY.window), { policy: POLICY });
  // (a) every request sent; (b) n = 23 supports p75 (17 ≤ 23 < 44), the ⌈0.75 × 23⌉ = 18th smallest lag 3.6 ms
  // ≤ the 500 ms gap; (c) every request answered in 500 ms: none late.
  assert.equal(v.client.run_limited, false);
  assert.deepEqual(v.client.flips, { late: 0, flipped: 0 });
  assert.deepEqual(v.client.stages.map((s) => [s.lag?.p, s.lag?.lag_ms, s.gap_ms, s.limited]), [[
    0.75,
    3.6,
    500,
    false,
  ]]);
  // run.json's flag (the old 5 ms bar) differs: one short note, no headline.
  assert.deepEqual(v.lines, [
    "client: run.json's client-limited flag (the runner's rule then) is not upheld by the log: send lag p75 3.6 ms " +
    "(n = 23), max 5.08 ms",
  ]);
  assert.equal(v.client.recorded_limited, true);
});

Deno.test("the re-judged client verdict: (c) a request late only by its own send lag, both sides", async (t) => {
  await t.step("e2e 3004 ms against 3000 ms, 5.08 ms of it the client's: flipped, client-limited", async () => {
    // 3004 > 3000: late_e2e; 3004 − 5.08 = 2998.92 ≤ 3000: accepted had it been sent on time.
    const run = await idleRun("flip-e2e", { completed_ms: 11_000 + 3004 });
    const w = runWindow(run, POLICY.window);
    assert.deepEqual(latencyFlips(run, POLICY, w), { late: 1, flipped: 1 });
    const v = runVerdicts(run, w, { policy: POLICY });
    assert.equal(v.client.run_limited, true);
    assert.deepEqual(v.lines, ["CLIENT-LIMITED RUN: 1 of 1 late request late only by its own send lag"]);
    // The knee says the same of the run (its levels carry (a) and (b)).
    assert.deepEqual(kneeVerdicts([run], [], null, POLICY), v.lines);
  });
  await t.step("e2e 3006 ms: 3006 − 5.08 = 3000.92 > 3000, late without the lag too: not the client's", async () => {
    const run = await idleRun("late-anyway", { completed_ms: 11_000 + 3006 });
    const w = runWindow(run, POLICY.window);
    assert.deepEqual(latencyFlips(run, POLICY, w), { late: 1, flipped: 0 });
    assert.equal(runVerdicts(run, w, { policy: POLICY }).client.run_limited, false);
    assert.deepEqual(kneeVerdicts([run], [], null, POLICY), []);
  });
  await t.step("TTFT 1003 ms against 1000 ms, 5.08 ms of it the client's: flipped", async () => {
    // 1003 > 1000: late_ttft; 1003 − 5.08 = 997.92 ≤ 1000.
    const run = await idleRun("flip-ttft", { first_token_ms: 11_000 + 1003, completed_ms: 11_000 + 1500 });
    assert.deepEqual(latencyFlips(run, POLICY, runWindow(run, POLICY.window)), { late: 1, flipped: 1 });
  });
  await t.step("late by less than its lag but failing a gate: not accepted either way, not the client's", async () => {
    const run = await idleRun("gate", { completed_ms: 11_000 + 3004, output_valid: false });
    assert.deepEqual(latencyFlips(run, POLICY, runWindow(run, POLICY.window)), { late: 1, flipped: 0 });
  });
  await t.step("without a policy (c) is not judged", async () => {
    const run = await idleRun("no-policy", { completed_ms: 11_000 + 3004 });
    const j = runClientLimit(run, runWindow(run, POLICY.window), null);
    assert.deepEqual([j?.limited, j?.flips], [false, null]);
  });
});
