import assert from "node:assert/strict";
import { join } from "node:path";
import { RetryController } from "../../runner/retry.ts";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { Watchdog, type Watched } from "../../runner/watchdog.ts";
import { RetryPolicy } from "../../schema/mod.ts";
import { type FaultMode, startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

/** Runs 2 requests (10 rps for 0.2 s) against one fault mode with the given timeouts and retry policy. */
async function runAgainst(
  mode: FaultMode,
  timeouts: Record<string, number>,
  retry: Record<string, unknown> = {},
  delayMs = 20,
) {
  const dir = Deno.makeTempDirSync();
  const srv = await startFaultServer({ tokens: 4, slowDelayMs: delayMs });
  try {
    const { dir: runDir, manifest } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()]),
      plan: constantPlan(dir, 10, 0.2),
      target: `${srv.url}/${mode}`,
      out: join(dir, "out"),
      formats: ["csv"],
      retryFile: writeJson(dir, "retry.json", { max_attempts: 2, base_ms: 5, cap_ms: 20, budget_min: 100, ...retry }),
      timeoutsFile: writeJson(dir, "timeouts.json", timeouts),
      progress: false,
      serverTimeline: false,
    });
    const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
    const attempts = await readLogCsv(join(runDir, "attempts.csv"), "attempts");
    return { requests, attempts, manifest, calls: srv.requests.length };
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("a request waiting in the target's queue longer than idle_ms is not an idle timeout", async () => {
  // The head comes after 400 ms of nothing (a queued request); idle_ms is 150, headers_ms 2000: the answer is ok.
  const t = { attempt_ms: 3000, request_ms: 4000, headers_ms: 2000, idle_ms: 150 };
  const { requests, attempts, manifest } = await runAgainst("queued", t, {}, 400);
  assert.deepEqual(requests.map((r) => r.outcome), ["ok", "ok"]);
  for (const a of attempts) {
    assert.equal(a.error_kind, null);
    assert.ok(a.headers_ms! - a.sent_ms >= 390, `head ${a.headers_ms! - a.sent_ms} ms after the send`);
  }
  assert.equal(manifest.timeouts.headers_ms, 2000, "both timeouts are in run.json");
  assert.equal(manifest.timeouts.idle_ms, 150);
});

Deno.test("no response head within headers_ms ends the attempt header_timeout, not retried by default", async () => {
  const t = { attempt_ms: 3000, request_ms: 4000, headers_ms: 200, idle_ms: 2000 };
  const { requests, attempts, manifest, calls } = await runAgainst("hang", t);
  assert.equal(manifest.retry.retry_header_timeouts, false, "the default is stated in run.json");
  assert.equal(calls, 2, "one call per request: nothing sent again into the queue");
  for (const r of requests) {
    assert.equal(r.outcome, "timeout");
    assert.equal(r.error_kind, "header_timeout");
    assert.equal(r.attempts, 1);
  }
  for (const a of attempts) {
    assert.equal(a.headers_ms, null);
    assert.equal(a.retry_reason, null);
    assert.equal(a.completed_ms, null);
  }
});

Deno.test("a header timeout is retried when the retry policy says so", async () => {
  const t = { attempt_ms: 3000, request_ms: 4000, headers_ms: 200, idle_ms: 2000 };
  const { requests, attempts, calls } = await runAgainst("hang", t, { retry_header_timeouts: true });
  assert.equal(calls, 4, "2 requests × 2 attempts");
  for (const r of requests) assert.deepEqual([r.outcome, r.error_kind, r.attempts], ["timeout", "header_timeout", 2]);
  assert.deepEqual(attempts.filter((a) => a.attempt === 1).map((a) => a.retry_reason), [
    "header_timeout",
    "header_timeout",
  ]);
});

Deno.test("silence after the head is an idle timeout, counted from the head", async () => {
  // The head comes at once, then nothing: idle_ms (200) applies, headers_ms (5000) no longer does.
  const t = { attempt_ms: 3000, request_ms: 4000, headers_ms: 5000, idle_ms: 200 };
  const { requests } = await runAgainst("hang-headers", t);
  for (const r of requests) assert.deepEqual([r.outcome, r.error_kind, r.attempts], ["timeout", "idle_timeout", 2]);
});

Deno.test("the watchdog applies the header deadline until the head, then the idle limit", () => {
  let now = 0;
  const dog = new Watchdog(() => now, 100, 1_000_000);
  const watched = (): Watched => ({
    controller: new AbortController(),
    attemptDeadlineMs: 10_000,
    requestDeadlineMs: 20_000,
    headersDeadlineMs: 500,
    lastActivityMs: 0,
    reason: null,
  });
  const queued = watched();
  const answered = watched();
  dog.watch(queued);
  dog.watch(answered);
  // At 300 ms both have been silent 300 ms > idle 100 ms, but only `answered` has its head (at 150 ms).
  answered.headersDeadlineMs = null;
  answered.lastActivityMs = 150;
  now = 300;
  dog.sweep();
  assert.equal(queued.reason, null, "waiting for the head is not idle time");
  assert.equal(answered.reason, "idle_timeout", "300 − 150 = 150 ms ≥ 100 ms of silence after the head");
  now = 500;
  dog.sweep();
  assert.equal(queued.reason, "header_timeout", "500 ms ≥ the 500 ms header deadline");
  assert.equal(queued.controller.signal.aborted, true);
  dog.stop();
});

Deno.test("the retry owner refuses a header timeout unless retry_header_timeouts is set", () => {
  const failure = { status: null, kind: "header_timeout" };
  const off = new RetryController(RetryPolicy.parse({}), () => 0.5);
  assert.deepEqual(off.decide(failure, 1), { retry: false, reason: "not_retryable" });
  const on = new RetryController(RetryPolicy.parse({ retry_header_timeouts: true }), () => 0.5);
  // Full jitter at attempt 1: 0.5 × min(5000, 100 · 2⁰) = 50 ms.
  assert.deepEqual(on.decide(failure, 1), { retry: true, reason: "header_timeout", backoffMs: 50 });
});
