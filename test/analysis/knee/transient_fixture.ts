import type { AttemptRow, RequestRow } from "../../../schema/events.ts";
import type { Stage } from "../../../schema/plan.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { answered, makeManifest, writeRun } from "../_fixture.ts";

/**
 * A hand-built sweep for the persistence rule: five 10 s steady steps at 20,
 * 24, 28, 32 and 36 req/s, back to back from 0 ms, arrivals evenly spaced
 * (whole ms), one class `qa` (e2e ≤ 1000 ms, TTFT ≤ 300 ms). Every request is
 * ok, one attempt of 10 input + 20 output tokens, TTFT 100 ms, headers at
 * +50 ms, e2e 500 ms — unless an option changes it. No server timeline.
 */
export const TRANSIENT_STAGES: Stage[] = [20, 24, 28, 32, 36].map((rps, i) => ({
  name: `step-0${i + 1}`,
  kind: "steady",
  start_ms: i * 10_000,
  end_ms: (i + 1) * 10_000,
  offered_rps: rps,
}));

/** The fixture's policy: one class, qa. */
export const TRANSIENT_POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: ["warmup", "drain"] },
  classes: { qa: { e2e_ms: 1000, ttft_ms: 300, gates: ["output_valid", "quality_ok"] } },
  default: { e2e_ms: 1000, gates: ["output_valid"] },
};

/** Options of {@linkcode writeTransientRun}. */
export interface TransientOptions {
  runId?: string;
  /** Bursts of late requests: those scheduled in [from_s, to_s) of the stage take 1500 ms (e2e > 1000: not accepted). */
  late?: { stage: string; from_s: number; to_s: number }[];
  /** From this stage on every request takes 900 ms: slower than the baseline, still inside its SLO. */
  slowFrom?: string;
}

/** Writes the sweep into `dir` (CSV, with run.json `files` hashes) and returns `dir`. */
export function writeTransientRun(dir: string, options: TransientOptions = {}): string {
  const runId = options.runId ?? "transient-fixture";
  const requests: RequestRow[] = [];
  const attempts: AttemptRow[] = [];
  const slowFrom = options.slowFrom ? TRANSIENT_STAGES.findIndex((s) => s.name === options.slowFrom) : Infinity;
  TRANSIENT_STAGES.forEach((s, k) => {
    const n = s.offered_rps * 10;
    for (let i = 0; i < n; i++) {
      const t = Math.round(s.start_ms + (i * 10_000) / n);
      const late = (options.late ?? []).some((w) =>
        w.stage === s.name && t >= s.start_ms + w.from_s * 1000 && t < s.start_ms + w.to_s * 1000
      );
      const e2e = late ? 1500 : k >= slowFrom ? 900 : 500;
      const id = `${s.name}-${i}`;
      const a = answered({ run_id: runId, request_id: id, class: "qa", stage: s.name, scheduled_ms: t }, e2e);
      requests.push(a.request);
      attempts.push(a.attempt);
    }
  });
  return writeRun(dir, makeManifest(TRANSIENT_STAGES, { run_id: runId }), { requests, attempts });
}
