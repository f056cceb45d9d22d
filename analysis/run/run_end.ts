/**
 * How a run ended, where its log ends, which requests the stop cut off
 * (censored), and where every window of an incomplete run ends.
 *
 * @module
 */
import pl from "nodejs-polars";
import { type AnyManifest, isRunnerRun } from "../../schema/imported_manifest.ts";
import { logEndsEarly } from "../../schema/run_manifest.ts";
import { restoreFromSchedule } from "./_restore_rows.ts";
import { checkSavedSchedule, scheduleCheck } from "./_schedule_check.ts";
import { count, countBetween, cutOffRows } from "./_cut_off_rows.ts";
import {
  type CensoredRequest,
  clipManifests,
  clipStages,
  completeRunEnd,
  type CutOffRequest,
  type E2eDeadlines,
  interruptedCut,
  RESTORED_KIND,
  RUN_END_RULE,
  type RunEnd,
  runEndHeadline,
  splitCutOff,
  stoppedEnd,
  windowEnd,
} from "./run_end_rule.ts";

export {
  type CensoredRequest,
  clipManifests,
  clipStages,
  completeRunEnd,
  type CutOffRequest,
  type E2eDeadlines,
  interruptedCut,
  RESTORED_KIND,
  RUN_END_RULE,
  type RunEnd,
  runEndHeadline,
  splitCutOff,
  windowEnd,
};

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
  if (status === "interrupted") return interruptedCut(s.dir, s.manifest.result.ended_ms, stopped);
  const byStop = stopped === null ? "" : `, first request never started because of the stop ${stopped} ms`;
  const seen = await lastEvidence(s);
  const cut = Math.min(seen ?? 0, stopped ?? Infinity);
  return {
    cut,
    rule:
      `${s.dir}: ${killedBy(s.manifest)}: latest time in the log ${
        seen === null ? "none (no row: 0)" : `${seen} ms`
      }${byStop}` +
      ` → ${cut} ms`,
  };
}

/** How a shard whose log ends early ended, in words: killed, or stopped by a failed log write (status `write_failed`). */
function killedBy(m: AnyManifest): string {
  if (!isRunnerRun(m) || m.result.status !== "write_failed") return "killed";
  const w = m.result.write_error;
  return `stopped by a failed log write (write_failed${w ? `: ${w.file}, ${w.code ?? w.message}` : ""})`;
}

/** A run whose log ends early because a shard's runner stopped on a failed log write: that shard's words. */
function endedBy(manifests: AnyManifest[]): { ended_by?: string } {
  const w = manifests.find((m) => isRunnerRun(m) && m.result.status === "write_failed");
  return w ? { ended_by: killedBy(w) } : {};
}

/**
 * Finds how an opened run ended, where its log ends and where its window
 * ends ({@linkcode RUN_END_RULE}), with the rows to restore in each killed
 * shard (null where nothing is restored). `check` verifies a schedule file's
 * sha256 as the run's `verify` mode says; `deadlines` decide the requests cut
 * off by the stop that were already past their e2e limit.
 */
async function findRunEnd(
  shards: ShardScans[],
  check: (file: string, want: string) => Promise<void>,
  warning: (m: string) => void,
  deadlines: E2eDeadlines | undefined,
): Promise<{ end: RunEnd; restored: (pl.DataFrame | null)[] }> {
  const planned_stages = shards[0]!.manifest.stages;
  const planned_ms = completeRunEnd(planned_stages).planned_ms;
  const cuts = await Promise.all(shards.map(shardCut));
  const known = cuts.filter((c): c is { cut: number; rule: string } => c.cut !== null);
  if (!known.length) return { end: completeRunEnd(planned_stages), restored: shards.map(() => null) };
  // A run stopped by a failed log write (`write_failed`) is read as a killed one: its log ends where the disk filled.
  const killed = shards.some((s) => isRunnerRun(s.manifest) && logEndsEarly(s.manifest.result));
  const logEnd = Math.min(...known.map((c) => c.cut));
  const restored: (pl.DataFrame | null)[] = [];
  const rows: pl.LazyDataFrame[] = [];
  let beyond = 0;
  const cutOffs: CutOffRequest[] = [];
  for (const s of shards) {
    const r = isRunnerRun(s.manifest) && logEndsEarly(s.manifest.result)
      ? await restoreFromSchedule(s.dir, s.manifest, s.requests, logEnd, check, warning)
      : { rows: null, after_cut: null };
    restored.push(r.rows);
    rows.push(withRestored(s.requests, r.rows));
    // Past the log's end: the schedule's entries where there is one (a killed shard logs only some of them).
    beyond += r.after_cut ?? await count(s.requests, pl.col("scheduled_ms").gtEq(logEnd));
    cutOffs.push(...await cutOffRows(rows.at(-1)!, logEnd));
  }
  const end = await stoppedEnd(
    {
      status: killed ? "killed" : "interrupted",
      ...endedBy(shards.map((s) => s.manifest)),
      log_end_ms: logEnd,
      log_end_rule: `${known.map((c) => c.rule).join("; ")}${known.length > 1 ? `; the earliest: ${logEnd} ms` : ""}`,
      planned_ms,
      planned_stages,
      restored: restored.reduce((n, rows) => n + (rows?.height ?? 0), 0),
      beyond,
      between: async (ms) =>
        (await Promise.all(rows.map((r) => countBetween(r, ms, logEnd)))).reduce((a, b) => a + b, 0),
    },
    cutOffs,
    deadlines,
  );
  return { end, restored };
}

const withRestored = (requests: pl.LazyDataFrame, rows: pl.DataFrame | null): pl.LazyDataFrame =>
  rows?.height ? pl.concat([requests, rows.lazy()], { how: "vertical" }) : requests;

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
  o: {
    verify: "strict" | "warn";
    warning: (m: string) => void;
    hash: (file: string) => Promise<string>;
    deadlines?: E2eDeadlines | undefined;
  },
): Promise<RunEnd> {
  const scanOf = (k: number, t: string) => shards[k]!.find((x) => x.table === t)!.scan;
  const check = scheduleCheck(o);
  // Every shard's saved schedule is tamper evidence too, whether or not the run's end reads it: checked here for a
  // shard whose log is whole (a killed shard's is checked where its rows are restored from it).
  await Promise.all(
    dirs.map((dir, k) => {
      const m = manifests[k]!;
      return isRunnerRun(m) && logEndsEarly(m.result) ? undefined : checkSavedSchedule(dir, m, check);
    }),
  );
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
    o.deadlines,
  );
  for (const [k, rows] of found.restored.entries()) {
    const t = shards[k]!.find((x) => x.table === "requests")!;
    t.scan = withRestored(t.scan, rows);
  }
  return found.end;
}
