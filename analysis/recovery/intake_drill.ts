/**
 * Operator intake drills, judged from the raw log: how long after the stop
 * call new tasks were refused cleanly, what became of the tasks in flight at
 * the stop, and how long intake took to resume after the resume call.
 *
 * @module
 */
import pl from "nodejs-polars";
import type { DrillCall, DrillRecord, RunManifest } from "../../schema/mod.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { isRunnerRun, runnerManifest } from "../run/imported_run.ts";

/** The rules of every figure of {@linkcode intakeDrills}, stated in its disclosure. */
export const INTAKE_DRILL_RULES: readonly string[] = [
  "times are run ms; S = when the runner made the stop call (run.json drills[].calls), R = when it made the resume " +
  "call (none: the stop lasts to the end of the log)",
  "new task = a request whose first attempt (round 0, lowest attempt number) was sent in [S, R); it is refused " +
  "cleanly when that attempt got 429 or 503 with a Retry-After (attempts.retry_after_ms not null), served when it " +
  "got a 2xx, and not clean otherwise (a timeout, a transport error, another status, 429/503 without Retry-After)",
  "refusal lag = t* − S, where t* is the send of the first new task from which every new task sent before R was " +
  "refused cleanly (an upper bound; the lower bound is the send of the last new task before t* that was not " +
  "refused cleanly, minus S, or 0); null when the last new task before R was not refused cleanly, or there was none",
  "in flight at the stop = requests first sent before S that ended after S; a request ends at completed_ms when ok, " +
  "else at the latest time its attempts recorded, or when the runner's watchdog cut it (attempt_timeout: sent + " +
  "timeouts.attempt_ms; request_timeout: scheduled + timeouts.request_ms; header_timeout: sent + " +
  "timeouts.headers_ms; idle_timeout: last activity + timeouts.idle_ms); completed = outcome ok, failed = any other outcome; drained = the last one's end − S",
  "resume lag = the send of the first round-0 attempt (retries included) sent at or after R that got a 2xx, minus R " +
  "(an upper bound; the lower bound is the send of the last attempt refused in between, minus R, or 0); null when " +
  "no attempt sent after R was served",
];

/** One hook call as recorded, or null when the drill has no such call. */
export type DrillCallResult = DrillCall | null;

/** What one drill did, measured from the log. */
export interface IntakeDrillResult {
  name: string;
  hook: string;
  stop: DrillCall;
  resume: DrillCallResult;
  /** Requests first sent in [S, R): n and how each first attempt ended. */
  new_tasks: {
    from_ms: number;
    /** R, or null when the stop lasted to the end of the log. */
    to_ms: number | null;
    n: number;
    refused_clean: number;
    served: number;
    not_clean: number;
    /** Not-clean first attempts by error_kind (an unexplained one as `http_<status>` or `unknown`). */
    not_clean_kinds: Record<string, number>;
  };
  refusal: {
    lag_ms: number | null;
    lag_lower_ms: number | null;
    /** New tasks sent before t* that were served or not refused cleanly. */
    served_before: number;
    not_clean_before: number;
  };
  in_flight: {
    n: number;
    completed: number;
    failed: number;
    failed_outcomes: Record<string, number>;
    /** The last in-flight request's end − S; null when none was in flight. */
    drained_ms: number | null;
  };
  /** Null when the drill has no resume call. */
  resumed: { lag_ms: number | null; lag_lower_ms: number | null; refused_between: number } | null;
}

/** The result of {@linkcode intakeDrills}. */
export interface IntakeDrillReport {
  drills: IntakeDrillResult[];
  /** Why a drill could not be measured (its stop call was never made). */
  not_measured: { name: string; reason: string }[];
  rules: readonly string[];
}

interface Att {
  request_id: string;
  round: number;
  attempt: number;
  sent_ms: number;
  headers_ms: number | null;
  first_token_ms: number | null;
  last_token_ms: number | null;
  completed_ms: number | null;
  http_status: number | null;
  error_kind: string | null;
  retry_after_ms: number | null;
}

const ok2xx = (s: number | null) => s !== null && s >= 200 && s < 300;
const cleanRefusal = (a: Att) => (a.http_status === 429 || a.http_status === 503) && a.retry_after_ms !== null;

/**
 * Every drill of the run (run.json `drills`), measured from its requests and
 * attempts. A run without drills gives an empty report. Pure.
 *
 * @example A run without drills
 * ```ts ignore
 * assert.deepEqual(intakeDrills(run).drills, []);
 * ```
 */
export function intakeDrills(run: LoadedRun): IntakeDrillReport {
  const records = run.manifests.flatMap((m) => (isRunnerRun(m) ? m.drills ?? [] : []));
  const drills: IntakeDrillResult[] = [];
  const not_measured: IntakeDrillReport["not_measured"] = [];
  if (!records.length) return { drills, not_measured, rules: INTAKE_DRILL_RULES };
  const attempts = run.attempts.select(
    "request_id",
    "round",
    "attempt",
    "sent_ms",
    "headers_ms",
    "first_token_ms",
    "last_token_ms",
    "completed_ms",
    "http_status",
    "error_kind",
    "retry_after_ms",
  ).filter(pl.col("round").eq(0)).sort(["sent_ms"]).toRecords() as unknown as Att[];
  for (const d of records) {
    const stop = d.calls.find((c) => c.action === "stop");
    if (!stop || stop.called_ms === null) {
      not_measured.push({ name: d.name, reason: stop?.error ?? "the drill has no stop call" });
      continue;
    }
    drills.push(measure(run, d, stop, attempts));
  }
  return { drills, not_measured, rules: INTAKE_DRILL_RULES };
}

function measure(run: LoadedRun, d: DrillRecord, stop: DrillCall, round0: Att[]): IntakeDrillResult {
  const S = stop.called_ms!;
  const resume = d.calls.find((c) => c.action === "resume") ?? null;
  const R = resume?.called_ms ?? null;
  const before = (t: number) => R === null || t < R;
  // First attempt of each request, in send order.
  const firsts = new Map<string, Att>();
  for (const a of round0) {
    const f = firsts.get(a.request_id);
    if (!f || a.attempt < f.attempt) firsts.set(a.request_id, a);
  }
  const fresh = [...firsts.values()].filter((a) => a.sent_ms >= S && before(a.sent_ms))
    .sort((x, y) => x.sent_ms - y.sent_ms);
  const kinds: Record<string, number> = {};
  let clean = 0, served = 0;
  for (const a of fresh) {
    if (cleanRefusal(a)) clean++;
    else if (ok2xx(a.http_status)) served++;
    else {
      const k = a.error_kind ?? (a.http_status === null ? "unknown" : `http_${a.http_status}`);
      kinds[k] = (kinds[k] ?? 0) + 1;
    }
  }
  // t*: the first of the trailing run of clean refusals.
  let k = fresh.length;
  while (k > 0 && cleanRefusal(fresh[k - 1]!)) k--;
  const holds = fresh.length > 0 && k < fresh.length;
  const early = fresh.slice(0, k);
  const refusal = {
    lag_ms: holds ? fresh[k]!.sent_ms - S : null,
    lag_lower_ms: holds ? (k > 0 ? fresh[k - 1]!.sent_ms - S : 0) : null,
    served_before: holds ? early.filter((a) => ok2xx(a.http_status)).length : 0,
    not_clean_before: holds ? early.filter((a) => !ok2xx(a.http_status) && !cleanRefusal(a)).length : 0,
  };
  return {
    name: d.name,
    hook: d.hook,
    stop,
    resume,
    new_tasks: {
      from_ms: S,
      to_ms: R,
      n: fresh.length,
      refused_clean: clean,
      served,
      not_clean: fresh.length - clean - served,
      not_clean_kinds: kinds,
    },
    refusal,
    in_flight: inFlight(run, S),
    resumed: resume === null ? null : resumedAfter(R, round0),
  };
}

/** Round-0 attempts sent at or after R: the first served one, and the refusals before it. */
function resumedAfter(R: number | null, round0: Att[]): NonNullable<IntakeDrillResult["resumed"]> {
  if (R === null) return { lag_ms: null, lag_lower_ms: null, refused_between: 0 };
  const after = round0.filter((a) => a.sent_ms >= R);
  const i = after.findIndex((a) => ok2xx(a.http_status));
  if (i < 0) return { lag_ms: null, lag_lower_ms: null, refused_between: after.length };
  return { lag_ms: after[i]!.sent_ms - R, lag_lower_ms: i > 0 ? after[i - 1]!.sent_ms - R : 0, refused_between: i };
}

/** Requests first sent before S that ended after it, and how they ended. */
function inFlight(run: LoadedRun, S: number): IntakeDrillResult["in_flight"] {
  const cand = run.requests
    .filter(pl.col("first_sent_ms").lt(S).and(pl.col("outcome").neq(pl.lit("ok")).or(pl.col("completed_ms").gt(S))))
    .select("request_id", "scheduled_ms", "outcome", "completed_ms")
    .toRecords() as unknown as { request_id: string; scheduled_ms: number; outcome: string; completed_ms: number }[];
  const failedIds = cand.filter((r) => r.outcome !== "ok").map((r) => r.request_id);
  const ends = failedEnds(run, failedIds, new Map(cand.map((r) => [r.request_id, r.scheduled_ms])));
  const out: IntakeDrillResult["in_flight"] = { n: 0, completed: 0, failed: 0, failed_outcomes: {}, drained_ms: null };
  let last = -Infinity;
  for (const r of cand) {
    const end = r.outcome === "ok" ? r.completed_ms : ends.get(r.request_id) ?? -Infinity;
    if (!(end > S)) continue;
    out.n++;
    last = Math.max(last, end);
    if (r.outcome === "ok") out.completed++;
    else {
      out.failed++;
      out.failed_outcomes[r.outcome] = (out.failed_outcomes[r.outcome] ?? 0) + 1;
    }
  }
  out.drained_ms = out.n ? last - S : null;
  return out;
}

/** When each failed request ended: its attempts' latest recorded time, or when the watchdog cut an attempt. */
function failedEnds(run: LoadedRun, ids: string[], scheduled: Map<string, number>): Map<string, number> {
  const ends = new Map<string, number>();
  if (!ids.length) return ends;
  const t = runnerManifest(run, "the intake drill's failed-request ends (the runner's timeouts)").timeouts;
  const rows = run.attempts.filter(pl.col("request_id").isIn(ids))
    .select("request_id", "sent_ms", "headers_ms", "first_token_ms", "last_token_ms", "completed_ms", "error_kind")
    .toRecords() as unknown as (Omit<Att, "round" | "attempt" | "http_status" | "retry_after_ms">)[];
  for (const a of rows) {
    const seen = Math.max(
      ...[a.sent_ms, a.headers_ms, a.first_token_ms, a.last_token_ms, a.completed_ms].filter((v) => v !== null),
    );
    const cut = watchdogCut(a.error_kind?.split("+")[0] ?? null, a.sent_ms, seen, scheduled.get(a.request_id)!, t);
    ends.set(a.request_id, Math.max(ends.get(a.request_id) ?? -Infinity, seen, cut));
  }
  return ends;
}

/** When the runner's watchdog ended an attempt of kind `kind` (−∞ when it did not). */
function watchdogCut(
  kind: string | null,
  sent: number,
  lastSeen: number,
  scheduled: number,
  t: RunManifest["timeouts"],
): number {
  if (kind === "attempt_timeout") return sent + t.attempt_ms;
  if (kind === "request_timeout") return scheduled + t.request_ms;
  if (kind === "header_timeout") return sent + t.headers_ms;
  if (kind === "idle_timeout") return lastSeen + t.idle_ms;
  return -Infinity;
}
