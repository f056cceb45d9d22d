import assert from "node:assert/strict";
import type { EndMessage } from "../../../runner/workers/protocol.ts";
import {
  formatWorkersSummary,
  startSkewMs,
  type WorkerOutcome,
  workersVerdict,
} from "../../../runner/workers/workers_summary.ts";

const end = (over: Partial<EndMessage>): EndMessage => ({
  type: "end",
  dir: "d",
  status: "complete",
  epoch_iso: "2026-12-01T12:00:00.003Z",
  start_iso: "2026-12-01T12:00:00.000Z",
  offered: 10,
  by_outcome: { ok: 10 },
  not_sent: 0,
  client_shed: 0,
  send_lag_p99_ms: 0.5,
  send_lag_max_ms: 0.9,
  client_limited: false,
  client_limit_reason: null,
  runner_cpu_ms: 100,
  ...over,
});

const outcome = (worker: number, code: number, over: Partial<WorkerOutcome> = {}): WorkerOutcome => ({
  worker,
  shard: { index: worker, count: 3 },
  code,
  end: end({}),
  aborted: false,
  lastError: null,
  ...over,
});

Deno.test("startSkewMs() is the worker's ms 0 minus the shared start", () => {
  // 12:00:00.003 − 12:00:00.000 = 3 ms late; 11:59:59.999 − 12:00:00.000 = 1 ms early
  assert.equal(startSkewMs(end({})), 3);
  assert.equal(startSkewMs(end({ epoch_iso: "2026-12-01T11:59:59.999Z" })), -1);
  assert.equal(startSkewMs(end({ start_iso: null })), null);
});

Deno.test("workersVerdict()", async (t) => {
  await t.step("every worker exited 0: exit 0, nothing to say", () => {
    assert.deepEqual(workersVerdict([outcome(0, 0), outcome(1, 0)]), { exitCode: 0, message: null });
  });
  await t.step("failed workers sharing one code keep it, and each is named with its last error", () => {
    const v = workersVerdict([
      outcome(0, 3, { lastError: "no request succeeded: 0 of 10" }),
      outcome(1, 0),
      outcome(2, 3),
    ]);
    assert.equal(v.exitCode, 3);
    assert.equal(
      v.message,
      "2 of 3 workers failed: worker 0 (shard-0-of-3) exited 3: no request succeeded: 0 of 10; " +
        "worker 2 (shard-2-of-3) exited 3",
    );
  });
  await t.step("mixed codes: exit 1; workers stopped before the start are not failures", () => {
    const v = workersVerdict([outcome(0, 4), outcome(1, 1), outcome(2, 5, { aborted: true, end: null })]);
    assert.equal(v.exitCode, 1);
    assert.equal(
      v.message,
      "2 of 3 workers failed: worker 0 (shard-0-of-3) exited 4; worker 1 (shard-1-of-3) exited 1; " +
        "1 stopped before the start, their folders removed",
    );
  });
});

Deno.test("formatWorkersSummary() adds the workers' counts up and keeps the largest lag and skew", () => {
  const text = formatWorkersSummary("out/r", [
    outcome(0, 0),
    outcome(1, 0, {
      end: end({
        offered: 12,
        by_outcome: { ok: 9, not_sent: 3 },
        not_sent: 3,
        send_lag_max_ms: 7.25,
        epoch_iso: "2026-12-01T12:00:00.011Z",
        client_limited: true,
        runner_cpu_ms: 250.4,
      }),
    }),
    outcome(2, 1, { end: null }),
  ]);
  const lines = text.split("\n");
  // all: offered 10 + 12 = 22, ok 10 + 9 = 19, not_sent 0 + 3 = 3; lag max max(0.9, 7.25) = 7.25;
  // skew max(3, 11) = 11 ms; cpu 100 + 250.4 = 350.4 → 350. The worker without an end line adds nothing.
  const all = lines.find((l) => l.startsWith("all"))!.split(/\s+/);
  assert.deepEqual(all, ["all", "22", "19", "3", "0", "per", "worker", "7.25", "11", "350"]);
  const third = lines.find((l) => l.startsWith("2 "))!.split(/\s+/);
  assert.deepEqual(third, ["2", "shard-2-of-3", "1", "no", "end", "-", "-", "-", "-", "-", "-", "-", "-"]);
  assert.ok(lines.includes("client: THE CLIENT WAS THE LIMIT in 1 of 2 workers (their run.json result says why)"));
});
