import assert from "node:assert/strict";
import { join } from "node:path";
import { clientLimitCause, MOSTLY_IDLE_SHARE, parseSchedStat, startContention } from "../../runner/cpu_contention.ts";
import { type FinaliseOptions, finaliseRun } from "../../runner/finalise.ts";
import { CsvSink } from "../../runner/sinks/csv_sink.ts";
import { writeCsvSchema } from "../../runner/sinks/csv_schema.ts";
import type { CpuContention } from "../../schema/mod.ts";
import { makeManifest } from "../analysis/_fixture.ts";
import { requestRow } from "./sinks/_rows.ts";

/** makeManifest's epoch_iso (2026-01-01T00:00:00.000Z) in ms since the Unix epoch: the sinks' epoch column base. */
const FIXTURE_EPOCH_MS = Date.parse("2026-01-01T00:00:00.000Z");

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

Deno.test("parseSchedStat() takes a thread's nanoseconds on a CPU and waiting to ms", () => {
  // 2,500,000 ns on a CPU = 2.5 ms; 7,000,000 ns waiting = 7 ms; 40 timeslices.
  assert.deepEqual(parseSchedStat("2500000 7000000 40\n"), { cpuMs: 2.5, waitMs: 7, slices: 40 });
  assert.equal(parseSchedStat("1 2"), null);
});

Deno.test("the contention is measured under the run task's permissions too (no --allow-all: /proc by cat)", async () => {
  if (Deno.build.os !== "linux") return;
  const script = join(Deno.makeTempDirSync(), "c.ts");
  Deno.writeTextFileSync(
    script,
    `import { startContention } from ${JSON.stringify(new URL("../../runner/cpu_contention.ts", import.meta.url).href)};
const s = startContention();
const until = performance.now() + 30;
while (performance.now() < until) { /* spin */ }
console.log(JSON.stringify(s.stop()));`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-sys", "--allow-run=cat", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const got = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.ok(got !== null, new TextDecoder().decode(out.stderr));
  assert.ok(got.runner_main_cpu_ms + got.run_queue_wait_ms > 0);
  assert.ok(got.machine_busy_share !== null && got.load_avg_1m_max !== null);
});

Deno.test("readOwnProc() reads this process's /proc/<pid>/status under the run task's permissions (the peak RSS in run.json)", async () => {
  if (Deno.build.os !== "linux") return;
  const script = join(Deno.makeTempDirSync(), "p.ts");
  Deno.writeTextFileSync(
    script,
    `import { readOwnProc } from ${JSON.stringify(new URL("../../runner/cpu_contention.ts", import.meta.url).href)};
console.log(JSON.stringify({ pid: Deno.pid, status: readOwnProc("status") }));`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-run=cat", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const got = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.ok(got.status !== null, new TextDecoder().decode(out.stderr));
  // The status of that process, not of cat: its own pid, and a peak RSS.
  assert.match(got.status, new RegExp(`^Pid:\\s+${got.pid}$`, "m"));
  assert.match(got.status, /^VmHWM:\s+\d+ kB$/m);
});

Deno.test("clientLimitCause() weighs the run-queue wait against the wait the runner's own work causes", () => {
  // ρ = 600 / 10,000 = 0.06; own: 0.06 / 0.94 × 600 = 38.297… ms ≤ 900 ms waiting: the machine; 97.5 % → "98 %".
  assert.deepEqual(clientLimitCause(CONTENTION), {
    cause: "busy_machine",
    why: "busy machine: the runner's main thread waited 900 ms for a CPU, at least the 38 ms its own work makes due " +
      "requests wait (ρ/(1−ρ) × 600 ms on a CPU, its CPU share ρ = 6.0 %); machine CPUs 98 % busy, load average up " +
      "to 5.25 on 2 CPUs",
  });
  // ρ = 5,000 / 10,000 = 0.5: own = 1 × 5,000 = 5,000 ms; 5,000 ≥ 5,000 is the machine, 4,999 the client.
  const half = { ...CONTENTION, runner_main_cpu_ms: 5_000 };
  assert.equal(clientLimitCause({ ...half, run_queue_wait_ms: 5_000 }).cause, "busy_machine");
  const slow = clientLimitCause({ ...half, run_queue_wait_ms: 4_999, machine_busy_share: null });
  assert.deepEqual(slow, {
    cause: "slow_client",
    why: "slow client: the runner's main thread waited 4999 ms for a CPU, less than the 5000 ms its own work makes " +
      "due requests wait (ρ/(1−ρ) × 5000 ms on a CPU, its CPU share ρ = 50.0 %); load average up to 5.25 on 2 CPUs",
  });
  // ρ ≥ 1: the loop was never idle; however long it waited, its own work is the limit.
  const busy = { ...CONTENTION, runner_main_cpu_ms: 10_000, run_queue_wait_ms: 50_000 };
  assert.equal(clientLimitCause(busy).cause, "slow_client");
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

/**
 * A run folder with one request of send lag 9 ms at 1 req/s (a 1000 ms gap), and, when `behind`, one the runner did
 * not send in time: then the client was the limit.
 */
function laggedRun(behind = true) {
  const dir = Deno.makeTempDirSync({ prefix: "contention_test_" });
  const requests = CsvSink.open(dir, "requests", { epochMs: FIXTURE_EPOCH_MS });
  requests.append(requestRow({ request_id: "r1", stage: "steady", send_lag_ms: 9 }));
  if (behind) {
    requests.append(requestRow({ request_id: "r2", stage: "steady", send_lag_ms: 1200, outcome: "not_sent" }));
  }
  requests.close();
  const stages = [{ name: "steady", kind: "steady" as const, start_ms: 0, end_ms: 1000, offered_rps: 1 }];
  const base = makeManifest(stages, { run_id: "run-1" });
  writeCsvSchema(dir, "requests", { identity: { run_id: base.run_id, epoch_iso: base.epoch_iso } });
  const manifest = {
    ...base,
    plan: { ...base.plan, scheduled_requests: behind ? 2 : 1 },
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
  };
  for (
    const [contention, cause, suffix] of [
      [CONTENTION, "busy_machine", " (busy machine: the runner's main thread waited 900 ms"],
      // 10 ms < the 38 ms its own work causes.
      [{ ...CONTENTION, run_queue_wait_ms: 10 }, "slow_client", " (slow client: the runner's main thread waited 10 ms"],
      [null, null, " (cause unknown: no run-queue figures on this machine)"],
    ] as const
  ) {
    const { dir, manifest } = laggedRun();
    try {
      const { manifest: done } = await finaliseRun(dir, manifest, { ...options, contention });
      assert.equal(done.result.client_limited, true);
      assert.deepEqual(done.result.cpu_contention, contention);
      assert.equal(done.result.client_limit_cause, cause);
      assert.ok(
        done.result.client_limit_reason!.startsWith(
          `1 requests not sent (the runner fell behind its schedule)${suffix}`,
        ),
      );
      const written = JSON.parse(Deno.readTextFileSync(join(dir, "run.json")));
      assert.equal(written.result.client_limit_cause, cause);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  }
});

Deno.test("finaliseRun() gives a cause only to a client-limited run", async () => {
  // One 9 ms lag against a 1000 ms gap, nothing unsent: no verdict, so no cause, though the contention is recorded.
  const { dir, manifest } = laggedRun(false);
  try {
    const { manifest: done } = await finaliseRun(dir, manifest, {
      clock: { now: () => 1000, epochUnixMs: 0 },
      targets: [],
      serverTimeline: false,
      interrupted: false,
      retries: 0,
      retryBudgetExhausted: 0,
      retryPastDeadline: 0,
      contention: CONTENTION,
    });
    const r = done.result;
    assert.deepEqual([r.client_limited, r.client_limit_reason, r.client_limit_cause], [false, null, null]);
    assert.deepEqual(r.cpu_contention, CONTENTION);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("clientLimitCause() words the machine's part on mostly idle CPUs as its wake-up latency, same cause", () => {
  // As the first case, but the CPUs 10 % busy (< MOSTLY_IDLE_SHARE): still the machine's part, said as its latency.
  const idle = clientLimitCause({ ...CONTENTION, machine_busy_share: 0.1 });
  assert.equal(idle.cause, "busy_machine");
  assert.equal(
    idle.why,
    "the machine, though mostly idle: the runner's main thread waited 900 ms for a CPU, at least the 38 ms its own " +
      "work makes due requests wait (ρ/(1−ρ) × 600 ms on a CPU, its CPU share ρ = 6.0 %); machine CPUs 10 % busy, " +
      "load average up to 5.25 on 2 CPUs — with the CPUs this idle the wait is the machine's latency in waking and " +
      "scheduling the thread (a virtual machine's vCPUs, power states), not other programs' work",
  );
  // At the bound the wording is the busy machine's.
  assert.match(clientLimitCause({ ...CONTENTION, machine_busy_share: MOSTLY_IDLE_SHARE }).why, /^busy machine: /);
});
