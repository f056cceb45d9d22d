/**
 * The analysis benchmark's plain-TypeScript reference: the goodput table
 * (overall, by class, by stage, by class × stage, with the failure breakdown)
 * and the e2e SLO curves as loops over column arrays, following the rules of
 * `analysis/goodput/classify.ts` and `analysis/goodput/goodput.ts` without polars.
 *
 * @module
 */
import { ATTEMPT_COLUMNS, REQUEST_COLUMNS } from "../analysis/goodput/_classify_lazy.ts";
import type { LoadedRun } from "../analysis/run/loaded_run.ts";
import { FAILURE_ORDER, type FailureReason, GATE_ORDER } from "../analysis/goodput/classify.ts";
import type { GoodputRow } from "../analysis/goodput/goodput.ts";
import { classSlo, resolveWindow } from "../analysis/goodput/policy.ts";
import { sweepLimits } from "../analysis/latency/sweep.ts";
import type { Gate, SloPolicy } from "../schema/slo.ts";

/** The columns the computation reads, as plain arrays (polars nulls stay null). */
export interface Columns {
  req: Record<string, (string | number | boolean | null)[]>;
  att: Record<string, (string | number | boolean | null)[]>;
}

// The same columns the polars path reads (only which columns: the computation below is independent of it).
const REQ_COLS = REQUEST_COLUMNS;
const ATT_COLS = ATTEMPT_COLUMNS;

/** Copies the needed columns of a loaded run out of its polars frames. */
export function columnsOf(run: LoadedRun): Columns {
  const req: Columns["req"] = {};
  for (const c of REQ_COLS) req[c] = run.requests.getColumn(c).toArray() as Columns["req"][string];
  const att: Columns["att"] = {};
  for (const c of ATT_COLS) att[c] = run.attempts.getColumn(c).toArray() as Columns["att"][string];
  return { req, att };
}

/** The table of `goodput()` without its disclosure, plus accepted counts of each class's e2e curve. */
export interface BenchResult {
  overall: GoodputRow;
  by_class: (GoodputRow & { class: string })[];
  by_stage: (GoodputRow & { stage: string })[];
  by_class_stage: (GoodputRow & { class: string; stage: string })[];
  /** Per class: the limits and the accepted count at each. */
  curves: Record<string, { limit_ms: Float64Array; accepted: Float64Array }>;
}

/** The curve's limits for a class: `sweepLimits` from 0 to twice its e2e limit (20 s without one), 1,000 points. */
export function curveLimits(policy: SloPolicy, cls: string, points = 1000): Float64Array {
  return sweepLimits(0, 2 * (classSlo(policy, cls).e2e_ms ?? 10_000), { points });
}

/** Row of counts: offered, sent, completed, accepted, then one per failure reason. */
const NBASE = 4;
const newCounts = () => new Float64Array(NBASE + FAILURE_ORDER.length);

/** GoodputRow from counts, with the same formulas as `analysis/goodput/goodput.ts`. */
export function rowOf(c: Float64Array, seconds: number | null, den: SloPolicy["denominator"]): GoodputRow {
  const [offered, sent, completed, accepted] = [c[0]!, c[1]!, c[2]!, c[3]!];
  const d = { offered, sent, completed }[den];
  const failures = Object.fromEntries(FAILURE_ORDER.map((f, k) => [f, c[NBASE + k]!])) as Record<FailureReason, number>;
  return {
    offered,
    sent,
    completed,
    accepted,
    measurement_seconds: seconds,
    accepted_goodput: seconds ? accepted / seconds : null,
    acceptance_rate: offered ? accepted / offered : null,
    slo_miss_rate: d ? (d - accepted) / d : null,
    failures,
  };
}

const over = (v: number | null, lim: number | null) => lim !== null && (v === null || v > lim);
const REASON_INDEX = new Map(FAILURE_ORDER.map((f, k) => [f, NBASE + k]));

/** Counts accepted latencies ≤ each limit in ascending `sorted` (upper bound by binary search). */
export function countCurve(sorted: Float64Array, limits: Float64Array): Float64Array {
  const out = new Float64Array(limits.length);
  for (let i = 0; i < limits.length; i++) {
    const x = limits[i]!;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    out[i] = lo;
  }
  return out;
}

/** The goodput table and e2e curves by loops over `cols` (see the module doc). */
export function plainGoodput(run: LoadedRun, cols: Columns, policy: SloPolicy): BenchResult {
  const window = resolveWindow(run.manifest.stages, policy.window);
  const { req, att } = cols;
  const n = req.request_id!.length;
  const index = new Map<string, number>();
  const rid = req.request_id as string[];
  for (let i = 0; i < n; i++) index.set(rid[i]!, i);

  // TPOT: the highest-numbered answered attempt of each request's last round.
  const lastRound = new Int32Array(n).fill(-1);
  const best = new Int32Array(n).fill(-1);
  const aRid = att.request_id as string[], aRound = att.round as number[], aAttempt = att.attempt as number[];
  const aFt = att.first_token_ms as (number | null)[], aLt = att.last_token_ms as (number | null)[];
  const aOut = att.output_tokens as number[], aItl = att.itl_p50_ms as (number | null)[];
  const aStreamed = att.streamed as unknown as (boolean | null)[];
  // An attempt's streaming: recorded (1.1), else inferred (1.0): a whole body at once (first = last token, no gap, ≥ 2).
  const attemptStreamed = (j: number) => aStreamed[j] ?? !(aFt[j] === aLt[j] && aItl[j] === null && aOut[j]! >= 2);
  const rowOfAttempt = new Int32Array(aRid.length);
  for (let j = 0; j < aRid.length; j++) {
    const i = index.get(aRid[j]!) ?? -1;
    rowOfAttempt[j] = i;
    if (i >= 0 && aRound[j]! > lastRound[i]!) lastRound[i] = aRound[j]!;
  }
  for (let j = 0; j < aRid.length; j++) {
    const i = rowOfAttempt[j]!;
    if (i < 0 || aRound[j] !== lastRound[i] || aFt[j] === null || aLt[j] === null) continue;
    const b = best[i]!;
    if (b < 0 || aAttempt[j]! > aAttempt[b]!) best[i] = j;
  }

  const cls = req.class as string[], stage = req.stage as string[], outcome = req.outcome as string[];
  const sched = req.scheduled_ms as number[];
  const ft = req.first_token_ms as (number | null)[], done = req.completed_ms as (number | null)[];
  const gates = GATE_ORDER.map((g) => req[g] as (boolean | null)[]);
  const reqStreamed = req.streamed as (boolean | null)[];
  const applicable = (req.applicable_gates as (string | null)[]).map((a) => (a === null ? null : a.split(",")));
  // A required gate counts when it applies to the request (listed; not recorded = applies) and then must be true.
  const gateOk = (i: number, g: number) =>
    !(applicable[i] === null || applicable[i]!.includes(GATE_ORDER[g]!)) || gates[g]![i] === true;
  const slos = new Map<string, { e2e: number | null; ttft: number | null; tpot: number | null; gates: boolean[] }>();
  const sloOf = (c: string) => {
    let s = slos.get(c);
    if (!s) {
      const p = classSlo(policy, c);
      s = {
        e2e: p.e2e_ms ?? null,
        ttft: p.ttft_ms ?? null,
        tpot: p.tpot_ms ?? null,
        gates: GATE_ORDER.map((g: Gate) => p.gates.includes(g)),
      };
      slos.set(c, s);
    }
    return s;
  };
  const groups = new Map<string, Float64Array>();
  const counts = (key: string) => {
    let c = groups.get(key);
    if (!c) groups.set(key, c = newCounts());
    return c;
  };
  const eligible = new Map<string, number[]>();
  const intervals = window.intervals;
  for (let i = 0; i < n; i++) {
    const t = sched[i]!;
    let inside = false;
    for (const [a, b] of intervals) if (t >= a && t < b) inside = true;
    if (!inside) continue;
    const c = cls[i]!, s = stage[i]!, o = outcome[i]!;
    const slo = sloOf(c);
    const e2e = done[i] === null ? null : done[i]! - t;
    const j = best[i]!;
    const attStreamed = j >= 0 ? attemptStreamed(j) : null;
    // TTFT and TPOT exist only for a streamed request (unknown: the 1.0 rule, streamed).
    const observable = reqStreamed[i] ?? attStreamed ?? true;
    const ttft = !observable || ft[i] === null ? null : ft[i]! - t;
    const tpot = observable && attStreamed && aOut[j]! > 1 && aLt[j]! > aFt[j]!
      ? (aLt[j]! - aFt[j]!) / (aOut[j]! - 1)
      : null;
    let reason: FailureReason | null = null;
    if (o === "rejected" || o === "client_shed" || o === "not_sent" || o === "timeout") reason = o;
    else if (o !== "ok") reason = "error";
    else if (over(e2e, slo.e2e)) reason = "late_e2e";
    else if (observable && over(ttft, slo.ttft)) reason = "late_ttft";
    else if (tpot !== null && over(tpot, slo.tpot)) reason = "slow_tpot";
    else {
      for (let g = 0; g < GATE_ORDER.length; g++) {
        if (slo.gates[g] && !gateOk(i, g)) {
          reason = `gate_${GATE_ORDER[g]!}`;
          break;
        }
      }
    }
    // Curve eligibility: every non-latency condition (outcome ok, each required gate that applies true).
    if (o === "ok" && e2e !== null && slo.gates.every((req, g) => !req || gateOk(i, g))) {
      let e = eligible.get(c);
      if (!e) eligible.set(c, e = []);
      e.push(e2e);
    }
    const sent = o !== "not_sent" && o !== "client_shed";
    for (const key of ["", `c\u0000${c}`, `s\u0000${s}`, `cs\u0000${c}\u0000${s}`]) {
      const k = counts(key);
      k[0]!++;
      if (sent) k[1]!++;
      if (o === "ok") k[2]!++;
      if (reason === null) k[3]!++;
      else k[REASON_INDEX.get(reason)!]!++;
    }
  }

  const den = policy.denominator;
  const secs = (st: string) => window.stage_seconds[st] ?? null;
  const keysOf = (prefix: string) =>
    [...groups.keys()].filter((k) => k.startsWith(prefix + "\u0000")).map((k) => k.split("\u0000").slice(1));
  const cmp = (a: string[], b: string[]) => {
    for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k]! < b[k]! ? -1 : 1;
    return 0;
  };
  const overall = rowOf(groups.get("") ?? newCounts(), window.measurement_seconds, den);
  const by_class = keysOf("c").sort(cmp).map(([c]) => ({
    class: c!,
    ...rowOf(groups.get(`c\u0000${c}`)!, window.measurement_seconds, den),
  }));
  const order = new Map(run.manifest.stages.map((s, i) => [s.name, i]));
  const stages = [...new Set([...keysOf("s").map(([s]) => s!), ...window.stages])]
    .sort((a, b) => (order.get(a) ?? Infinity) - (order.get(b) ?? Infinity));
  const by_stage = stages.map((s) => ({ stage: s, ...rowOf(groups.get(`s\u0000${s}`) ?? newCounts(), secs(s), den) }));
  const by_class_stage = keysOf("cs").sort(cmp).map(([c, s]) => ({
    class: c!,
    stage: s!,
    ...rowOf(groups.get(`cs\u0000${c}\u0000${s}`)!, secs(s!), den),
  }));
  const curves: BenchResult["curves"] = {};
  for (const row of by_class) {
    const limit_ms = curveLimits(policy, row.class);
    const sorted = Float64Array.from(eligible.get(row.class) ?? []).sort();
    curves[row.class] = { limit_ms, accepted: countCurve(sorted, limit_ms) };
  }
  return { overall, by_class, by_stage, by_class_stage, curves };
}
