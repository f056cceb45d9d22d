import assert from "node:assert/strict";
import { join } from "node:path";
import {
  clientLimitCause,
  parseLoadAvg,
  parseProcStat,
  parseSchedStat,
  startContention,
} from "../../runner/cpu_contention.ts";
import { type FinaliseOptions, finaliseRun } from "../../runner/finalise.ts";
import { CsvSink } from "../../runner/sinks/csv_sink.ts";
import { writeCsvSchema } from "../../runner/sinks/csv_schema.ts";
import type { CpuContention } from "../../schema/mod.ts";
import { makeManifest } from "../analysis/_fixture.ts";
import { requestRow } from "./sinks/_rows.ts";

const CONTENTION: CpuContention = {
  source: "test",
  window_ms: 10_000,
  runner_main_cpu_ms: 600,
  run_queue_wait_ms: 900,
  run_queue_waits: 3000,
  machine_busy_share: 0.975,
  cpus: 2,
  load_avg_1m_mean: 4.1,
  load_avg_1m_max: 5.25,
};

Deno.test("the /proc readers take nanoseconds to ms, busy jiffies apart from idle and iowait, the 1-min load", () => {
  // 2,500,000 ns on a CPU = 2.5 ms; 7,000,000 ns waiting = 7 ms; 40 timeslices.
  assert.deepEqual(parseSchedStat("2500000 7000000 40\n"), { cpuMs: 2.5, waitMs: 7, slices: 40 });
  assert.equal(parseSchedStat("1 2"), null);
  // user 100 + nice 0 + system 50 + irq 5 + softirq 5 + steal 0 = 160 busy; + idle 800 + iowait 40 = 1000 in all.
  assert.deepEqual(parseProcStat("cpu  100 0 50 800 40 5 5 0 7 0\n"), { busy: 160, total: 1000 });
  assert.equal(parseProcStat("intr 1 2 3"), null);
  assert.equal(parseLoadAvg("6.27 8.28 9.23 7/162 31658\n"), 6.27);
  assert.equal(parseLoadAvg(""), null);
});

Deno.test("clientLimitCause() names a busy machine when the run-queue wait is at least the runner's own CPU time", () => {
  // 900 ms waiting ≥ 600 ms on a CPU → busy machine; busy share 0.975 → "98 %".
  assert.deepEqual(clientLimitCause(CONTENTION), {
    cause: "busy_machine",
    why: "busy machine: the runner's main thread waited 900 ms for a CPU against 600 ms on one (run-queue wait ≥ " +
      "its own CPU time); machine CPUs 98 % busy, load average up to 5.25 on 2 CPUs",
  });
  // Equal counts as the machine: 600 ≥ 600.
  assert.equal(clientLimitCause({ ...CONTENTION, run_queue_wait_ms: 600 }).cause, "busy_machine");
  // 599 < 600: the runner's own work.
  const slow = clientLimitCause({ ...CONTENTION, run_queue_wait_ms: 599, machine_busy_share: null });
  assert.equal(slow.cause, "slow_client");
  assert.equal(
    slow.why,
    "slow client: the runner's main thread ran 600 ms and waited 599 ms for a CPU (run-queue wait < its own CPU " +
      "time); load average up to 5.25 on 2 CPUs",
  );
  assert.equal(clientLimitCause({ ...CONTENTION, runner_main_cpu_ms: 0, run_queue_wait_ms: 0 }).cause, null);
  assert.deepEqual(clientLimitCause(null), {
    cause: null,
    why: "cause unknown: no run-queue figures on this machine",
  });
});

Deno.test("startContention() measures this thread's run-queue wait and CPU on Linux", async () => {
  const s = startContention({ periodMs: 20 });
  // Keep the thread busy for 60 ms so that its on-CPU time grows.
  const until = performance.now() + 60;
  while (performance.now() < until) { /* spin */ }
  await new Promise((r) => setTimeout(r, 50));
  const c = s.stop();
  if (Deno.build.os !== "linux") return assert.equal(c, null);
  assert.ok(c !== null);
  // Spinning, the thread is always either on a CPU or waiting for one: the two add up to the 60 ms (less up to a
  // scheduler tick not yet accounted), however busy the machine is.
  const ran = c.runner_main_cpu_ms, waited = c.run_queue_wait_ms;
  assert.ok(ran + waited >= 45, `on a CPU ${ran} ms + waiting ${waited} ms during a 60 ms spin`);
  assert.ok(c.window_ms >= 110);
  assert.ok(c.load_avg_1m_max !== null && c.load_avg_1m_mean !== null && c.load_avg_1m_max >= c.load_avg_1m_mean);
  assert.ok(c.machine_busy_share !== null && c.machine_busy_share >= 0 && c.machine_busy_share <= 1);
});

/** A run folder with one request of send lag 9 ms (over the 5 ms limit): the client was the limit. */
function laggedRun() {
  const dir = Deno.makeTempDirSync({ prefix: "contention_test_" });
  const requests = CsvSink.open(dir, "requests");
  requests.append(requestRow({ request_id: "r1", stage: "steady", send_lag_ms: 9 }));
  requests.close();
  const stages = [{ name: "steady", kind: "steady" as const, start_ms: 0, end_ms: 1000, offered_rps: 1 }];
  const base = makeManifest(stages, { run_id: "run-1" });
  writeCsvSchema(dir, "requests", { identity: { run_id: base.run_id, epoch_iso: base.epoch_iso } });
  const manifest = {
    ...base,
    plan: { ...base.plan, scheduled_requests: 1 },
    runner: { ...base.runner, formats: ["csv" as const] },
  };
  return { dir, manifest };
}

Deno.test("finaliseRun() writes the contention and the client limit's cause into run.json result", async () => {
  const options: FinaliseOptions = {
    clock: { now: () => 1000, epochUnixMs: 0 },
    targets: [],
    serverTimeline: false,
    interrupted: false,
    retries: 0,
    retryBudgetExhausted: 0,
    retryPastDeadline: 0,
    lagLimitMs: 5,
  };
  for (
    const [contention, cause, suffix] of [
      [CONTENTION, "busy_machine", " (busy machine: the runner's main thread waited 900 ms"],
      [{ ...CONTENTION, run_queue_wait_ms: 10 }, "slow_client", " (slow client: the runner's main thread ran 600 ms"],
      [null, null, " (cause unknown: no run-queue figures on this machine)"],
    ] as const
  ) {
    const { dir, manifest } = laggedRun();
    try {
      const { manifest: done } = await finaliseRun(dir, manifest, { ...options, contention });
      assert.equal(done.result.client_limited, true);
      assert.deepEqual(done.result.cpu_contention, contention);
      assert.equal(done.result.client_limit_cause, cause);
      // One lag of 9 ms: p99 = 9 > 5.
      assert.ok(done.result.client_limit_reason!.startsWith(`p99 send lag 9.00 ms > 5 ms${suffix}`));
      const written = JSON.parse(Deno.readTextFileSync(join(dir, "run.json")));
      assert.equal(written.result.client_limit_cause, cause);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  }
});
