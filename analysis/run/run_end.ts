/**
 * How a run ended, and where its log ends: the cut that every window of an
 * incomplete run stops at.
 *
 * @module
 */
import pl from "nodejs-polars";
import { InputError } from "../../schema/errors.ts";
import { type AnyManifest, type AnyStage, isRunnerRun } from "../../schema/imported_manifest.ts";
import { RESTORED_KIND, restoreFromSchedule } from "./_restore_rows.ts";

export { RESTORED_KIND };

/** How a run ended (run.json `result.status`), where its log ends, and what the cut leaves out. */
export interface RunEnd {
  /**
   * `complete`; `interrupted`: stopped (SIGINT) and finalised; `killed`: run.json still says `running` (no final
   * status); `recording`: a production recording still open (production_run.ts), cut at its last flush.
   */
  status: "complete" | "interrupted" | "killed" | "recording";
  /** Where the log ends, ms since the run epoch (the earliest over shards); null for a complete run. */
  cut_ms: number | null;
  /** The planned end: the end of run.json's last stage, ms. */
  planned_ms: number;
  /** How `cut_ms` was found, in words. */
  rule: string;
  /** run.json's stages as planned: a loaded run's `manifest.stages` are clipped at `cut_ms`. */
  planned_stages: AnyStage[];
  /** Requests scheduled at or after the cut (never started, or not logged): in neither numerator nor denominator. */
  after_cut: number;
  /**
   * Requests scheduled before the cut whose outcome the end of the run decided, not the target: in flight at the
   * stop (outcome aborted, error_kind run_stopped) or, in a killed run, restored from the schedule. Not accepted.
   */
  unresolved: number;
  /** Of `unresolved`: rows restored from schedule.csv (error_kind `restored_from_schedule`). */
  restored: number;
  /** The warning every command prints first; null for a complete run. */
  headline: string | null;
}

/** The cut rule, stated in the disclosure and the docs. */
export const RUN_END_RULE =
  "an incomplete run's window ends where its log ends (the cut): interrupted (run.json result.status " +
  '"interrupted"): the earlier of result.ended_ms and the scheduled_ms of the first request never started ' +
  'because of the stop (outcome not_sent, error_kind run_stopped); killed (result.status still "running", no final ' +
  "status): the latest time recorded in any row of requests, attempts or tools (the last flushed evidence); " +
  "several shards: the earliest cut. A request scheduled at or after the cut is in neither the numerator nor the " +
  "denominator; every request scheduled before it stays in the denominator: a killed run's requests that have no " +
  "row (in flight at the kill, or finished after the last flush) are restored from the saved schedule.csv as " +
  `outcome aborted, error_kind ${RESTORED_KIND}, and count as not accepted, like the requests an interrupt ` +
  "aborted in flight. Stage seconds are clipped at the cut; stages after it drop out";

/** One shard's tables, as opened. */
export interface ShardScans {
  dir: string;
  manifest: AnyManifest;
  requests: pl.LazyDataFrame;
  attempts: pl.LazyDataFrame;
  tools: pl.LazyDataFrame;
}

const TIMES = {
  requests: ["scheduled_ms", "first_sent_ms", "first_token_ms", "completed_ms"],
  attempts: ["sent_ms", "headers_ms", "first_token_ms", "last_token_ms", "completed_ms"],
  tools: ["started_ms", "ended_ms"],
} as const;

const num = (df: pl.DataFrame, c: string): number | null => {
  const v = df.getColumn(c).get(0);
  return v === null || v === undefined ? null : Number(v);
};

/** The latest time in any row of the shard's tables (null when they hold no row). */
async function lastEvidence(s: ShardScans): Promise<number | null> {
  let latest: number | null = null;
  for (const t of ["requests", "attempts", "tools"] as const) {
    const cols = TIMES[t];
    const df = await s[t].select(...cols.map((c) => pl.col(c).cast(pl.Float64).max().alias(c))).collect();
    for (const c of cols) {
      const v = num(df, c);
      if (v !== null && (latest === null || v > latest)) latest = v;
    }
  }
  return latest;
}

const stoppedBy = (kind: string) => pl.col("error_kind").eq(pl.lit(kind));

/** The shard's own cut, and the rule that gave it. An imported run is a finished source file: complete. */
async function shardCut(s: ShardScans): Promise<{ cut: number | null; rule: string }> {
  if (!isRunnerRun(s.manifest)) return { cut: null, rule: "complete" };
  const status = s.manifest.result.status;
  if (status === "complete") return { cut: null, rule: "complete" };
  const first = await s.requests.filter(pl.col("outcome").eq(pl.lit("not_sent")).and(stoppedBy("run_stopped")))
    .select(pl.col("scheduled_ms").cast(pl.Float64).min().alias("t")).collect();
  const stopped = num(first, "t");
  const byStop = stopped === null ? "" : `, first request never started because of the stop ${stopped} ms`;
  if (status === "interrupted") {
    const ended = s.manifest.result.ended_ms;
    const cut = Math.min(ended, stopped ?? Infinity);
    return { cut, rule: `${s.dir}: interrupted: min(result.ended_ms ${ended} ms${byStop}) = ${cut} ms` };
  }
  const seen = await lastEvidence(s);
  const cut = Math.min(seen ?? 0, stopped ?? Infinity);
  return {
    cut,
    rule: `${s.dir}: killed: latest time in the log ${seen === null ? "none (no row: 0)" : `${seen} ms`}${byStop}` +
      ` → ${cut} ms`,
  };
}

async function count(lf: pl.LazyDataFrame, where: pl.Expr): Promise<number> {
  return Number((await lf.filter(where).select(pl.len().alias("n")).collect()).getColumn("n").get(0) ?? 0);
}

const secs = (ms: number) => `${+(ms / 1000).toFixed(3)} s`;

/**
 * The end of a complete run over `stages`: no cut, nothing left out. For
 * runs built in code (a `LoadedRun` literal).
 */
export function completeRunEnd(stages: AnyStage[]): RunEnd {
  return {
    status: "complete",
    cut_ms: null,
    planned_ms: Math.max(0, ...stages.map((s) => s.end_ms)),
    rule: 'complete (run.json result.status "complete"): the window is the plan\'s',
    planned_stages: stages,
    after_cut: 0,
    unresolved: 0,
    restored: 0,
    headline: null,
  };
}

/** The first line of every command on an incomplete run; null for a complete one. */
export function runEndHeadline(end: Omit<RunEnd, "headline">): string | null {
  if (end.cut_ms === null) return null;
  const how = end.status === "killed"
    ? `killed: no final status (run.json result.status is "running"); its log ends at ${secs(end.cut_ms)} of ` +
      `${secs(end.planned_ms)} planned`
    : `interrupted at ${secs(end.cut_ms)} of ${secs(end.planned_ms)} planned (run.json result.status "interrupted")`;
  const restored = end.restored ? `, ${end.restored} of them restored from schedule.csv (no row in the log)` : "";
  return `INCOMPLETE RUN, ${how}. Every window ends there: ${end.after_cut} requests scheduled after it are in ` +
    `neither numerator nor denominator; ${end.unresolved} scheduled before it were still in flight when the run ` +
    `ended and count as not accepted${restored}.`;
}

/**
 * Finds how an opened run ended and where its log ends ({@linkcode RUN_END_RULE}),
 * with the rows to restore in each killed shard (null where nothing is restored).
 * `check` verifies a schedule file's sha256 as the run's `verify` mode says.
 */
async function findRunEnd(
  shards: ShardScans[],
  check: (file: string, want: string) => Promise<void>,
  warning: (m: string) => void,
): Promise<{ end: RunEnd; restored: (pl.DataFrame | null)[] }> {
  const planned_stages = shards[0]!.manifest.stages;
  const planned_ms = completeRunEnd(planned_stages).planned_ms;
  const cuts = await Promise.all(shards.map(shardCut));
  const known = cuts.filter((c): c is { cut: number; rule: string } => c.cut !== null);
  if (!known.length) return { end: completeRunEnd(planned_stages), restored: shards.map(() => null) };
  const killed = shards.some((s) => isRunnerRun(s.manifest) && s.manifest.result.status === "running");
  const status = killed ? "killed" as const : "interrupted" as const;
  const cut = Math.min(...known.map((c) => c.cut));
  let after = 0, unresolved = 0, restoredN = 0;
  const restored: (pl.DataFrame | null)[] = [];
  for (const s of shards) {
    const r = isRunnerRun(s.manifest) && s.manifest.result.status === "running"
      ? await restoreFromSchedule(s.dir, s.manifest, s.requests, cut, check, warning)
      : { rows: null, after_cut: null };
    restored.push(r.rows);
    restoredN += r.rows?.height ?? 0;
    after += r.after_cut ?? await count(s.requests, pl.col("scheduled_ms").gtEq(cut));
    unresolved += await count(
      s.requests,
      pl.col("scheduled_ms").lt(cut).and(pl.col("outcome").eq(pl.lit("aborted"))).and(stoppedBy("run_stopped")),
    );
  }
  const rule = `${known.map((c) => c.rule).join("; ")}${known.length > 1 ? `; the earliest: ${cut} ms` : ""}`;
  const end = {
    status,
    cut_ms: cut,
    planned_ms,
    rule,
    planned_stages,
    after_cut: after,
    unresolved: unresolved + restoredN,
    restored: restoredN,
  };
  return { end: { ...end, headline: runEndHeadline(end) }, restored };
}

/**
 * How an opened run (its shard folders, manifests and scanned tables) ended.
 * A killed shard's restored rows are joined to its `requests` scan, in place,
 * so every reader sees one denominator. A schedule whose sha256 differs from
 * run.json is refused, or read with a loud warning when `verify` is `warn`.
 */
export async function endOpenedRun(
  dirs: string[],
  manifests: AnyManifest[],
  shards: { table: string; scan: pl.LazyDataFrame }[][],
  o: { verify: "strict" | "warn"; warning: (m: string) => void; hash: (file: string) => Promise<string> },
): Promise<RunEnd> {
  const scanOf = (k: number, t: string) => shards[k]!.find((x) => x.table === t)!.scan;
  const check = async (file: string, want: string) => {
    const got = await o.hash(file);
    if (got === want) return;
    const msg = `${file}: sha256 ${got} does not match run.json plan.schedule_sha256 ${want}: the schedule was changed`;
    if (o.verify === "warn") o.warning(`UNVERIFIED SCHEDULE: ${msg}`);
    else throw new InputError(msg);
  };
  const found = await findRunEnd(
    dirs.map((dir, k) => ({
      dir,
      manifest: manifests[k]!,
      requests: scanOf(k, "requests"),
      attempts: scanOf(k, "attempts"),
      tools: scanOf(k, "tools"),
    })),
    check,
    o.warning,
  );
  for (const [k, rows] of found.restored.entries()) {
    if (!rows?.height) continue;
    const t = shards[k]!.find((x) => x.table === "requests")!;
    t.scan = pl.concat([t.scan, rows.lazy()], { how: "vertical" });
  }
  return found.end;
}

/**
 * The manifests with their stages clipped at the run's cut (unchanged for a complete run; an imported run is one; a
 * production recording's stages are clipped when it is opened, production_run.ts).
 */
export function clipManifests(manifests: AnyManifest[], end: RunEnd): AnyManifest[] {
  const cut = end.cut_ms;
  return cut === null
    ? manifests
    : manifests.map((m) => (isRunnerRun(m) ? { ...m, stages: clipStages(m.stages, cut) } : m));
}

/**
 * The run's stages clipped at `endMs`: a stage that starts at or after it
 * drops out, one that spans it ends there. Stage seconds then count only
 * time the log covers.
 *
 * @example A 60 s plan cut at 17 s keeps warm-up whole and 7 s of the steady stage
 * ```ts
 * import { clipStages } from "./run_end.ts";
 * import assert from "node:assert/strict";
 * const stages = [
 *   { name: "warm", kind: "warmup" as const, start_ms: 0, end_ms: 10_000, offered_rps: 1 },
 *   { name: "main", kind: "steady" as const, start_ms: 10_000, end_ms: 55_000, offered_rps: 4 },
 *   { name: "drain", kind: "drain" as const, start_ms: 55_000, end_ms: 60_000, offered_rps: 0 },
 * ];
 * assert.deepEqual(clipStages(stages, 17_000).map((s) => [s.name, s.end_ms]), [["warm", 10_000], ["main", 17_000]]);
 * ```
 */
export function clipStages<S extends { start_ms: number; end_ms: number }>(stages: readonly S[], endMs: number): S[] {
  return stages.filter((s) => s.start_ms < endMs).map((s) => (s.end_ms > endMs ? { ...s, end_ms: endMs } : s));
}
