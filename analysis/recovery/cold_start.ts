/**
 * Cold start vs steady state, reported separately: latency percentiles and
 * acceptance of the warm-up (or the first seconds of the run) beside those
 * of the steady stages.
 *
 * @module
 */
import pl from "nodejs-polars";
import type { SloPolicy } from "../../schema/slo.ts";
import { classify } from "../goodput/classify.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { type PercentileCI, percentileWithCI } from "../latency/percentile.ts";
import { policyForRun, type ResolvedWindow } from "../goodput/policy.ts";

/** Options of {@linkcode coldStart}. */
export interface ColdStartOptions {
  /** Length of the cold period when the run has no warmup stage, from the first stage's start, ms. @default {30000} */
  coldMs?: number;
  /** Percentiles of each latency. @default {[0.5, 0.95]} */
  percentiles?: number[];
}

/** Latency and acceptance of one phase. */
export interface PhaseStats {
  phase: "cold" | "steady";
  /** Half-open [start_ms, end_ms) spans on scheduled_ms. */
  intervals: [number, number][];
  description: string;
  seconds: number;
  offered: number;
  completed: number;
  accepted: number;
  acceptance_rate: number | null;
  accepted_goodput: number | null;
  /** Completed requests only (TTFT: streamed ones only): e2e and TTFT from scheduled_ms, with n and a 95 % interval. */
  e2e_ms: PercentileCI[];
  ttft_ms: PercentileCI[];
  /** Non-accepted requests by first failing reason. */
  failures: Record<string, number>;
}

/** The result of {@linkcode coldStart}. */
export interface ColdStartResult {
  rule: string;
  cold: PhaseStats;
  steady: PhaseStats | null;
  /** cold ÷ steady of each percentile's value (e2e, TTFT), and the acceptance-rate difference cold − steady. */
  ratio: { e2e: (number | null)[]; ttft: (number | null)[]; acceptance_rate_diff: number | null };
}

function phase(
  run: LoadedRun,
  policy: SloPolicy,
  name: PhaseStats["phase"],
  intervals: [number, number][],
  description: string,
  ps: number[],
): PhaseStats {
  const seconds = intervals.reduce((s, [a, b]) => s + (b - a), 0) / 1000;
  const window: ResolvedWindow = {
    kind: "range",
    intervals,
    stages: [],
    measurement_seconds: seconds,
    stage_seconds: {},
    description,
  };
  const rows = classify(run, policy, window);
  const done = rows.filter(pl.col("completed"));
  const vals = (c: string) => done.getColumn(c).dropNulls().toArray() as number[];
  const e2e = vals("e2e_ms"), ttft = vals("ttft_ms");
  const failures: Record<string, number> = {};
  for (const r of rows.filter(pl.col("reason").isNotNull()).getColumn("reason").toArray() as string[]) {
    failures[r] = (failures[r] ?? 0) + 1;
  }
  const accepted = rows.filter(pl.col("accepted")).height;
  return {
    phase: name,
    intervals,
    description,
    seconds,
    offered: rows.height,
    completed: done.height,
    accepted,
    acceptance_rate: rows.height ? accepted / rows.height : null,
    accepted_goodput: seconds > 0 ? accepted / seconds : null,
    e2e_ms: ps.map((p) => percentileWithCI(e2e, p)),
    ttft_ms: ps.map((p) => percentileWithCI(ttft, p)),
    failures,
  };
}

/** Removes the parts of `[a, b)` covered by `cut`. */
function minus([a, b]: [number, number], cut: [number, number][]): [number, number][] {
  let parts: [number, number][] = [[a, b]];
  for (const [c, d] of cut) {
    parts = parts.flatMap(([x, y]): [number, number][] =>
      d <= x || c >= y
        ? [[x, y]]
        : [...(c > x ? [[x, c] as [number, number]] : []), ...(d < y ? [[d, y] as [number, number]] : [])]
    );
  }
  return parts.filter(([x, y]) => y > x);
}

/**
 * Cold start against steady state. Cold = the run's warmup stages; when it
 * has none, the first `coldMs` from the first stage's start. Steady = the
 * steady stages minus the cold span (null when the run has none). Requests
 * are placed by scheduled_ms; acceptance follows the policy's class SLOs
 * (the policy's own window is not used here).
 *
 * @example Cold vs steady of a staged run
 * ```ts ignore
 * const r = coldStart(run, policy);
 * console.log(r.cold.e2e_ms[0].value, r.steady?.e2e_ms[0].value);
 * ```
 */
export function coldStart(run: LoadedRun, policy: SloPolicy, options: ColdStartOptions = {}): ColdStartResult {
  policy = policyForRun(policy, run, "coldStart() policy");
  const coldMs = options.coldMs ?? 30_000;
  const ps = options.percentiles ?? [0.5, 0.95];
  const stages = run.manifest.stages;
  const warm = stages.filter((s) => s.kind === "warmup");
  const t0 = stages.length ? Math.min(...stages.map((s) => s.start_ms)) : 0;
  const cold: [number, number][] = warm.length ? warm.map((s) => [s.start_ms, s.end_ms]) : [[t0, t0 + coldMs]];
  const coldDesc = warm.length
    ? `warmup stages: ${warm.map((s) => `${s.name} (${s.start_ms}–${s.end_ms} ms)`).join(", ")}`
    : `no warmup stage: the first ${coldMs} ms from the first stage start (${t0}–${t0 + coldMs} ms)`;
  const steadyIv = stages.filter((s) => s.kind === "steady")
    .flatMap((s) => minus([s.start_ms, s.end_ms], cold));
  const steadyDesc = `steady stages minus the cold span: ${
    steadyIv.map(([a, b]) => `${a}–${b} ms`).join(", ") || "none"
  }`;
  const c = phase(run, policy, "cold", cold, coldDesc, ps);
  const s = steadyIv.length ? phase(run, policy, "steady", steadyIv, steadyDesc, ps) : null;
  const div = (x: number | null, y: number | null) => (x === null || y === null || y === 0 ? null : x / y);
  return {
    rule:
      "cold = the warmup stages, else the first coldMs of the run; steady = the steady stages minus the cold span; " +
      "requests by scheduled_ms; latency over completed requests (e2e, TTFT from scheduled_ms — TTFT of the streamed " +
      "ones only: a request that was not streamed has none —, nearest rank with n " +
      "and a 95 % distribution-free interval); acceptance = accepted / offered under the policy's class SLOs",
    cold: c,
    steady: s,
    ratio: {
      e2e: c.e2e_ms.map((p, i) => div(p.value, s?.e2e_ms[i]?.value ?? null)),
      ttft: c.ttft_ms.map((p, i) => div(p.value, s?.ttft_ms[i]?.value ?? null)),
      acceptance_rate_diff: c.acceptance_rate === null || !s || s.acceptance_rate === null
        ? null
        : c.acceptance_rate - s.acceptance_rate,
    },
  };
}
