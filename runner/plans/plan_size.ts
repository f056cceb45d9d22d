/**
 * The bound on a plan's size, checked before any arrival is generated. A schedule is built whole in memory before
 * the run (measured: about 200 bytes per planned request, bench/plan_size_bench.ts), so a schema-valid plan of
 * 1,000,000 req/s for a day (8.64e10 requests) would exhaust memory before printing anything.
 *
 * A plan may plan at most {@linkcode MAX_PLANNED_REQUESTS} requests. Its expected count is computed from the plan
 * alone: rate × duration for constant (exactly ⌈rate × duration⌉) and Poisson arrivals; for gamma arrivals of shape
 * k < 1 also the renewal excess (1/k − 1)/2 (a gamma process started at ms 0 front-loads arrivals: with k = 1e-9 almost
 * every gap is 0); the sum over stages (staged) or steps and repeats (sweep); at most the plan's `max_requests`. A trace is parsed whole whatever its
 * `duration_s` or `max_requests`, so its count is its rows (non-empty lines, less a CSV header), read as a stream.
 * Random arrivals can exceed their expected count; generation stops one past the bound and refuses the plan then.
 *
 * @module
 */
import { resolve } from "node:path";
import type { PlanSpecParsed } from "../../schema/plan.ts";
import { sweepSteps } from "./sweep.ts";

/**
 * Most requests one plan may schedule: ten million, the most that `r` + 7-digit request ids number in order
 * (r0000000 … r9999999), and about 2 GB of schedule in memory at the measured 200 bytes per request.
 */
export const MAX_PLANNED_REQUESTS = 10_000_000;

/** A plan's expected number of requests and the field that sets it. */
export interface PlanSize {
  /** Expected arrivals (rows, for a trace). */
  requests: number;
  /** The plan field(s) the count comes from, e.g. `arrivals.rate_rps × arrivals.duration_s`. */
  field: string;
  /** The largest stage or step and its count, when there are several. */
  largest?: { name: string; requests: number };
}

/**
 * Expected arrivals of a renewal process started at ms 0 at `rate` for `seconds`: rate × seconds, plus for gamma gaps
 * of shape k < 1 the renewal excess (CV² − 1)/2 = (1/k − 1)/2 (E[N(t)] = t/μ + (CV² − 1)/2 + o(1)).
 */
function expected(rate: number, seconds: number, burstiness?: number): number {
  const k = burstiness ?? 1;
  return rate * seconds + (k < 1 ? (1 / k - 1) / 2 : 0);
}

const fmt = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 0 });

/** Non-empty lines of a file, read in chunks (never the whole file at once). */
async function countRows(path: string): Promise<number> {
  using file = await Deno.open(path);
  const buf = new Uint8Array(1 << 20);
  let rows = 0;
  let inLine = false;
  for (let n = await file.read(buf); n !== null; n = await file.read(buf)) {
    for (let i = 0; i < n; i++) {
      const b = buf[i]!;
      if (b === 10) {
        if (inLine) rows++;
        inLine = false;
      } else if (b !== 13 && b !== 32 && b !== 9) inLine = true;
    }
  }
  return inLine ? rows + 1 : rows;
}

/**
 * The expected size of a plan (see the module doc), or null for a closed loop (no schedule). Reads only a trace
 * file, and that as a stream; a trace that cannot be read counts 0 (generation names the file then).
 *
 * @example A staged plan: 10 req/s × 60 s + 100 req/s × 30 s = 3,600 requests
 * ```ts
 * import { planSize } from "./plan_size.ts";
 * import { PlanSpec } from "../../schema/plan.ts";
 * import assert from "node:assert/strict";
 * const spec = PlanSpec.parse({ name: "s", arrivals: { process: "staged", stages: [
 *   { name: "warm", kind: "warmup", process: "constant", rate_rps: 10, duration_s: 60 },
 *   { name: "peak", kind: "steady", process: "poisson", rate_rps: 100, duration_s: 30 },
 * ] } });
 * const size = await planSize(spec, ".");
 * assert.equal(size?.requests, 3600);
 * assert.deepEqual(size?.largest, { name: "peak", requests: 3000 });
 * ```
 */
export async function planSize(spec: PlanSpecParsed, planDir: string): Promise<PlanSize | null> {
  const a = spec.arrivals;
  let size: PlanSize;
  if (a.process === "closed") return null;
  if (a.process === "trace") {
    let rows = 0;
    try {
      rows = await countRows(resolve(planDir, a.file));
    } catch {
      return { requests: 0, field: "arrivals.file" };
    }
    const header = a.format === "azure_csv" || a.format === "csv" ? 1 : 0;
    // The whole trace is parsed and sorted before duration_s or max_requests cut it: its rows are its size.
    return { requests: Math.max(0, rows - header), field: "arrivals.file" };
  }
  if (a.process === "constant") {
    size = { requests: Math.ceil(a.rate_rps * a.duration_s), field: "arrivals.rate_rps × arrivals.duration_s" };
  } else if (a.process === "poisson") {
    size = { requests: expected(a.rate_rps, a.duration_s), field: "arrivals.rate_rps × arrivals.duration_s" };
  } else if (a.process === "gamma") {
    const field = "arrivals.rate_rps × arrivals.duration_s (+ (1/burstiness − 1)/2)";
    size = { requests: expected(a.rate_rps, a.duration_s, a.burstiness), field };
  } else {
    const parts = a.process === "staged"
      ? a.stages.map((s) => ({
        name: s.name,
        requests: expected(s.rate_rps, s.duration_s, s.process === "gamma" ? s.burstiness : undefined),
      }))
      : sweepSteps(a).map((s) => ({
        name: s.name,
        requests: expected(s.rate_rps, a.step_duration_s, a.step_process === "gamma" ? a.burstiness : undefined),
      }));
    const field = a.process === "staged"
      ? "arrivals.stages (Σ rate_rps × duration_s)"
      : "arrivals.start_rps…max_rps × step_duration_s × repeats (Σ over steps)";
    const largest = parts.reduce((m, p) => (p.requests > m.requests ? p : m), { name: "", requests: -1 });
    size = { requests: parts.reduce((s, p) => s + p.requests, 0), field, largest };
  }
  if (spec.max_requests !== undefined && spec.max_requests < size.requests) {
    return { requests: spec.max_requests, field: "max_requests" };
  }
  return size;
}

/**
 * The problem with a plan whose expected size is over `max` (one line naming the file, the field and the bound), or
 * null when it fits.
 */
export async function planSizeProblem(
  spec: PlanSpecParsed,
  planFile: string,
  planDir: string,
  max = MAX_PLANNED_REQUESTS,
): Promise<string | null> {
  const size = await planSize(spec, planDir);
  if (size === null || size.requests <= max) return null;
  const largest = size.largest ? `; the largest, "${size.largest.name}", alone ${fmt(size.largest.requests)}` : "";
  const what = size.field === "arrivals.file" ? "trace rows" : "expected requests";
  const fix = size.field === "arrivals.file"
    ? "use a shorter trace file (duration_s and max_requests cut it only after it is read whole)"
    : "lower the rate or the duration, set max_requests, or split it into plans run one after another";
  return `${planFile}: ${size.field}: ${fmt(size.requests)} ${what}${largest} > ${
    fmt(max)
  }, the most one plan may schedule (the schedule is built in memory before the run); ${fix}`;
}
