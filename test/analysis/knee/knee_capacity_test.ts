import assert from "node:assert/strict";
import { join } from "node:path";
import { knee, type KneeResult } from "../../../analysis/knee/knee.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { loadSimProfile, type SimProfile } from "../../../schema/sim_profile.ts";
import { SloPolicy } from "../../../schema/slo.ts";
import { runLoadTest } from "../../../runner/run.ts";
import { tinyCase, writeJson, writeWorkload } from "../../../testing/tiny_workload.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const SIM_CLI = join(ROOT, "sim/cli.ts");
/** Every answer is the reference padded to exactly this many tokens (sim/filler.ts), so n is fixed. */
const OUTPUT_TOKENS = 20;
/**
 * Sweep shape, in multiples of the designed capacity: 0.5, 0.7, 0.9, 1.1, 1.3, 1.5, 1.7 (7 levels of 7 s). No level
 * sits at ρ = 1, where whether a step sheds a request or two is down to scheduling noise; the level just above the
 * capacity is 10 % over it, so it saturates clearly. A finer grid (steps of 0.12) put a level 6 % over capacity: it
 * sometimes accepted fewer requests than the next level, and that dip let Kneedle's threshold reset and skip the
 * true knee for the next bend (22 % off in one of six runs).
 */
const SPAN = { from: 0.5, step: 0.2, to: 1.7 };
const STEP_S = 7;
const DRAIN_S = 1;
const TOLERANCE = 0.15;
/**
 * The planted stall: the engine makes no progress for 4 s from 9.5 s after the simulator's clock is reset, which the
 * runner does just before ms 0 of the run (`atStart`), so it falls 1.5–5.5 s into step-02 (8–15 s: 0.7 × capacity,
 * below it). A transient of that size moved the knee 25 % low before departures had to persist.
 */
const STALL = { start_ms: 9_500, end_ms: 13_500 };
const STALL_STEP = { name: "step-02", start_ms: 8_000, end_ms: 15_000 };

/**
 * A profile's designed capacity in req/s for answers of `n` tokens, from its engine parameters:
 *
 *   capacity = replicas × M × 1000 / (n × (decode_step_ms_base + decode_step_ms_per_seq × M) + M × prefill_overhead_ms)
 *
 * with M = max_running_seqs. Saturated, every replica runs M sequences; each holds its slot for n steps (one token
 * per step), so M / n requests finish per step, and a step costs the decode of a full batch plus the prefill of the
 * M / n requests that join it. The formula holds only for what these profiles are: prefill independent of prompt
 * length, no cold start, fixed replicas, no faults, no rate limits — checked before it is used.
 */
function designedCapacity(p: SimProfile, n: number): number {
  const e = p.engine, M = e.max_running_seqs;
  assert.equal(e.prefill_ms_per_token, 0, `${p.name}: prefill must not depend on the prompt`);
  assert.equal(p.cold_start.slowdown, 1, `${p.name}: no cold start`);
  assert.equal(p.autoscaler.enabled, false, `${p.name}: no autoscaling`);
  assert.ok(
    p.replicas.min === p.replicas.initial && p.replicas.max === p.replicas.initial,
    `${p.name}: fixed replicas`,
  );
  assert.deepEqual(
    [p.faults.error_rate, p.faults.outages.length, p.faults.stalls.length, p.rate_limits],
    [0, 0, 0, undefined],
  );
  assert.ok(e.max_kv_tokens >= M * (n + 1024), `${p.name}: KV room must not bind before the batch does`);
  const stepMs = n * (e.decode_step_ms_base + e.decode_step_ms_per_seq * M) + M * e.prefill_overhead_ms;
  return (p.replicas.initial * M * 1000) / stepMs;
}

/** Generous latency limits: a request is accepted unless it was shed, so goodput measures served capacity only. */
const POLICY = SloPolicy.parse({
  denominator: "offered",
  window: { exclude_stage_kinds: ["warmup", "drain"] },
  default: { e2e_ms: 4000, ttft_ms: 4000, gates: ["output_valid", "quality_ok"] },
});

interface Measured {
  profile: string;
  /** The profile's name, with "+stall" when the stall was planted. */
  label: string;
  capacity: number;
  report: KneeResult;
  clientLimited: boolean;
  why: string | null;
  /** The runner's p99 send lag, ms. */
  lagP99: number | null;
  /** Where the planted stall lay in run ms (from the simulator's reset origin and the run's epoch), or null. */
  stall: { start_ms: number; end_ms: number } | null;
}

async function sweepProfile(dir: string, name: string, stalled: boolean): Promise<Measured> {
  const profile = await loadSimProfile(join(ROOT, `data/sim/${name}.json`));
  const capacity = designedCapacity(profile, OUTPUT_TOKENS);
  const label = stalled ? `${name}+stall` : name;
  const runDir = join(dir, label);
  await Deno.mkdir(runDir);
  // The capacity is the profile's own; the stalled run uses a copy with the stall planted.
  const simProfile = stalled
    ? writeJson(runDir, "profile.json", { ...profile, faults: { ...profile.faults, stalls: [STALL] } })
    : join(ROOT, `data/sim/${name}.json`);
  // max_output_tokens above n: the answer is never cut, and n alone sets the slot time.
  const workload = writeWorkload(runDir, [tinyCase({ expected_output_tokens: OUTPUT_TOKENS, max_output_tokens: 64 })], {
    qa: false,
  });
  const plan = writeJson(runDir, "sweep.json", {
    name: `knee-${name}`,
    seed: 11,
    arrivals: {
      process: "sweep",
      start_rps: SPAN.from * capacity,
      step: { kind: "linear", step_rps: SPAN.step * capacity },
      // A hair above the last level so that rounding cannot drop the last step.
      max_rps: (SPAN.to + SPAN.step / 10) * capacity,
      step_duration_s: STEP_S,
      drain_s: DRAIN_S,
      // Constant arrivals: below capacity nothing waits, so any degradation is the capacity's.
      step_process: "constant",
    },
  });
  // One attempt: a shed request stays shed instead of coming back as extra load in a later step.
  const retry = writeJson(runDir, "retry.json", { max_attempts: 1 });
  const timeouts = writeJson(runDir, "timeouts.json", { request_ms: 10_000, attempt_ms: 10_000 });
  const sim = await spawnSim(simProfile, workload);
  let origin: number | null = null;
  try {
    const run = await runLoadTest({
      workload,
      plan,
      target: sim.url,
      out: join(runDir, "out"),
      formats: ["csv"],
      retryFile: retry,
      timeoutsFile: timeouts,
      progress: false,
      // At ≤ 17 req/s arrivals are ≥ 59 ms apart: a send up to 50 ms late still keeps its place in the schedule,
      // while the runner's 5 ms default flags the scheduling noise of a loaded 2-core machine (p99 14–20 ms seen).
      lagLimitMs: 50,
      signal: AbortSignal.timeout(80_000),
      // The stall windows count from the reset: reset just before ms 0, and keep the origin to place the stall.
      atStart: stalled
        ? async () => {
          origin = await resetSim(sim.url);
        }
        : undefined,
    });
    const loaded = await loadRun(run.dir, { onWarning: () => {} });
    const epoch = Date.parse(run.manifest.epoch_iso);
    return {
      profile: name,
      label,
      capacity,
      report: knee([loaded], POLICY),
      clientLimited: run.manifest.result.client_limited,
      why: run.manifest.result.client_limit_reason,
      lagP99: run.manifest.result.send_lag_p99_ms,
      stall: origin === null
        ? null
        : { start_ms: origin + STALL.start_ms - epoch, end_ms: origin + STALL.end_ms - epoch },
    };
  } finally {
    await sim.stop();
  }
}

/** `POST /sim/reset`: the simulator's fault windows count from now; returns its origin (Unix ms). */
async function resetSim(url: string): Promise<number> {
  const res = await fetch(`${url}/sim/reset`, { method: "POST", signal: AbortSignal.timeout(5000) });
  const body = await res.json();
  assert.ok(res.ok && typeof body.origin_unix_ms === "number", JSON.stringify(body));
  return body.origin_unix_ms;
}

/**
 * The simulator in its own process, as a real target is: its step timers do not wait behind the runner's sends,
 * parsing and log writing on one event loop. `--duration-s` ends it should the test die before stopping it.
 */
async function spawnSim(profile: string, workload: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SIM_CLI, "--port", "0", "--profile", profile, "--workload", workload, "--seed", "1"]
      .concat(["--quiet", "--duration-s", "120"]),
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  const url = text.trim();
  const stop = async () => {
    await reader.cancel();
    child.kill("SIGTERM");
    await child.status;
  };
  if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(url)) {
    await stop();
    throw new Error(`the simulator did not print its URL: ${JSON.stringify(text)}`);
  }
  return { url, stop };
}

function summary(m: Measured): string {
  const k = m.report.knee;
  const levels = m.report.levels.map((l) =>
    `${l.pooled.offered_rps.toFixed(2)}→${l.pooled.accepted_goodput.toFixed(2)}`
  );
  const transients = m.report.transients.map((t) =>
    `${t.signal}@${t.planned_rps.toFixed(2)}${
      t.where.map((w) => (w.out_of_line_s ?? []).map(([a, b]) => ` ${a}–${b} s`).join("")).join("")
    }`
  );
  const dips = m.report.kneedle.excluded.map((e) => e.offered_rps.toFixed(2));
  return `${m.label}: capacity ${m.capacity.toFixed(2)} req/s, knee ${k?.offered_rps.toFixed(2) ?? "none"} (${
    k?.source ?? "-"
  }${k?.signal ? ` ${k.signal}` : ""}), kneedle ${
    m.report.kneedle.result?.knee?.toFixed(2) ?? "none"
  }, first departure ${m.report.first_degrading?.offered_rps.toFixed(2) ?? "none"} [${
    m.report.first_degrading?.signals.join(", ") ?? ""
  }]; offered→goodput ${levels.join(" ")}; transients [${transients.join(", ")}]; left off Kneedle [${
    dips.join(", ")
  }]; p99 send lag ${m.lagP99?.toFixed(1) ?? "-"} ms${m.clientLimited ? " (run client-limited)" : ""}${
    m.stall ? `; stall at ${m.stall.start_ms.toFixed(0)}–${m.stall.end_ms.toFixed(0)} ms` : ""
  }`;
}

Deno.test("the reported knee of a simulator sweep lies within 15 % of the profile's designed capacity, with or without a 4 s stall in one step", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "knee_capacity_" });
  try {
    // All four sweeps at once — each profile as it is and with the stall — each 56 s (7 × (7 s + 1 s drain)) at
    // ≤ 17 req/s, ≤ 51 req/s together: the runner's p99 send lag stays at a few ms. (One after another, the second pair
    // ran beside the suite's headless-browser test and lagged by 600 ms.)
    const measured = await Promise.all(
      [false, true].flatMap((stalled) => ["capacity-a", "capacity-b"].map((p) => sweepProfile(dir, p, stalled))),
    );
    for (const m of measured) console.log(summary(m));

    await t.step("the two profiles are designed for clearly different capacities", () => {
      const [a, b] = measured.map((m) => m.capacity) as [number, number];
      assert.ok(b / a > 1.5, `${a} vs ${b}`);
    });
    for (const m of measured) {
      await t.step(`${m.label}: the sweep spans 0.5–1.7 × capacity and no level was client-limited`, () => {
        const rates = m.report.levels.map((l) => l.planned_rps / m.capacity);
        assert.equal(rates.length, 7, `${rates}`);
        assert.ok(Math.abs(rates[0]! - SPAN.from) < 1e-6 && Math.abs(rates.at(-1)! - SPAN.to) < 1e-6, `${rates}`);
        // The knee's own rule (analysis/knee/client_limit.ts): a level is left out when a request was not sent or shed,
        // or its p95 send lag passed the mean gap between its arrivals (≥ 59 ms here). The run-level verdict's fixed
        // limit (50 ms at p99 here) is stricter than the knee needs: an idle 2-core CI machine once reached a p99 of
        // 106 ms with its CPUs 8 % busy (the scheduler's wake-up latency), every level still valid for the knee.
        assert.deepEqual(m.report.excluded.map((e) => e.why), [], `run verdict: ${m.why ?? "kept up"}`);
      });
      await t.step(`${m.label}: |knee − capacity| / capacity ≤ ${TOLERANCE}`, () => {
        const knee = m.report.knee;
        assert.ok(knee, `no knee: ${summary(m)}`);
        const error = Math.abs(knee.offered_rps - m.capacity) / m.capacity;
        assert.ok(error <= TOLERANCE, `off by ${(error * 100).toFixed(1)} %: ${summary(m)}`);
      });
      await t.step(`${m.label}: past the knee, accepted goodput levels off at the designed capacity`, () => {
        // The formula itself, checked on the plateau: the highest accepted goodput of any level. It runs a little
        // over capacity because requests queued or running at a step's end are served in its drain.
        const peak = Math.max(...m.report.levels.map((l) => l.pooled.accepted_goodput));
        const error = Math.abs(peak - m.capacity) / m.capacity;
        assert.ok(error <= TOLERANCE, `peak ${peak} off by ${(error * 100).toFixed(1)} %: ${summary(m)}`);
      });
      if (!m.stall) continue;
      await t.step(`${m.label}: the stall lay in ${STALL_STEP.name} and is reported there as a transient`, () => {
        const s = m.stall!;
        assert.ok(s.start_ms >= STALL_STEP.start_ms && s.end_ms <= STALL_STEP.end_ms, summary(m));
        const level = m.report.levels[1]!;
        assert.deepEqual(level.pooled.parts.map((p) => p.stage), [STALL_STEP.name]);
        // Seconds of the step the stall covered, at least in part.
        const from = Math.floor((s.start_ms - STALL_STEP.start_ms) / 1000);
        const to = Math.ceil((s.end_ms - STALL_STEP.start_ms) / 1000);
        const here = m.report.transients.filter((x) => x.planned_rps === level.planned_rps);
        assert.ok(
          here.some((x) => x.signal === "acceptance_rate"),
          `acceptance at ${level.planned_rps} req/s should be a transient: ${summary(m)}`,
        );
        for (const x of here.filter((x) => x.where[0]!.out_of_line_s !== null)) {
          const spans = x.where[0]!.out_of_line_s!;
          assert.ok(
            spans.some(([a, b]) => a < to && b > from),
            `${x.signal} out of line at ${spans}, stall ${from}–${to} s`,
          );
        }
      });
      await t.step(`${m.label}: Kneedle reads the goodput curve without the stalled step's dip`, () => {
        // (A level on the plateau a hair under an earlier one may be left out too: that moves no knee.)
        const left = m.report.kneedle.excluded.map((e) => e.offered_rps);
        assert.ok(left.includes(m.report.levels[1]!.pooled.offered_rps), summary(m));
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
