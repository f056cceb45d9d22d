/**
 * How a run read by the SQL path ended (analysis/run/run_end_rule.ts): a
 * complete run has no cut; an interrupted one ends at the earliest cut of its
 * shards, each the earlier of `result.ended_ms` and the first request never
 * started because of the stop, and its window ends at the first request the
 * stop cut off (censored) when that is earlier — found by DuckDB, with the
 * censored requests and those the window's end leaves out. (A killed run is
 * refused before this: `sql_run.ts`.) Under `deadlines`, a request cut off
 * by the stop already past its e2e limit failed and is not censored.
 *
 * @module
 */
import { type ImportedManifest, isImported } from "../../schema/imported_manifest.ts";
import type { RunManifest } from "../../schema/run_manifest.ts";
import {
  clipManifests,
  clipStages,
  completeRunEnd,
  type CutOffRequest,
  type E2eDeadlines,
  interruptedCut,
  type RunEnd,
  stoppedEnd,
} from "../run/run_end_rule.ts";
import type { SqlEngine } from "./duckdb.ts";
import { sqlDouble, sqlString } from "./_sql_text.ts";
import type { TableSource } from "./views.ts";

type SqlManifest = RunManifest | ImportedManifest;

/**
 * The run's end and its manifests with their stages clipped at the cut.
 * `sources` are the requests sources of `dirs`, in the same order; the view
 * `requests` must exist.
 */
export async function sqlRunEnd(
  engine: SqlEngine,
  dirs: readonly string[],
  manifests: readonly (RunManifest | ImportedManifest)[],
  sources: readonly TableSource[],
  deadlines?: E2eDeadlines,
): Promise<{ end: RunEnd; manifests: (RunManifest | ImportedManifest)[] }> {
  const planned_stages = manifests[0]!.stages;
  const cuts: { cut: number; rule: string }[] = [];
  for (const [k, m] of manifests.entries()) {
    if (isImported(m) || m.result.status !== "interrupted") continue;
    const s = sources[k]!;
    const [first] = await engine.query(
      `SELECT MIN(scheduled_ms) AS t FROM read_parquet(${sqlString(s.path)}, hive_partitioning = ${s.hive}, ` +
        "union_by_name = true) WHERE outcome = 'not_sent' AND error_kind = 'run_stopped'",
    );
    const t = first?.t;
    cuts.push(interruptedCut(dirs[k]!, m.result.ended_ms, t === null || t === undefined ? null : Number(t)));
  }
  if (!cuts.length) return { end: completeRunEnd(planned_stages), manifests: [...manifests] };
  const logEnd = Math.min(...cuts.map((c) => c.cut));
  const rule = `${cuts.map((c) => c.rule).join("; ")}${cuts.length > 1 ? `; the earliest: ${logEnd} ms` : ""}`;
  const end = await sqlStoppedEnd(engine, { log_end_ms: logEnd, log_end_rule: rule, planned_stages }, deadlines);
  return { end, manifests: clipManifests([...manifests], end) };
}

/** The end of an interrupted run whose log ends at `log.log_end_ms`, found by DuckDB (`stoppedEnd`). */
async function sqlStoppedEnd(
  engine: SqlEngine,
  log: Pick<RunEnd, "planned_stages"> & { log_end_ms: number; log_end_rule: string },
  deadlines: E2eDeadlines | undefined,
): Promise<RunEnd> {
  const logEnd = log.log_end_ms;
  return stoppedEnd(
    {
      ...log,
      status: "interrupted",
      planned_ms: completeRunEnd(log.planned_stages).planned_ms,
      restored: 0,
      beyond: await sqlBetween(engine, logEnd, Infinity),
      between: (ms) => sqlBetween(engine, ms, logEnd),
    },
    await sqlCutOff(engine, logEnd),
    deadlines,
  );
}

/** The requests scheduled in [from, to). */
async function sqlBetween(engine: SqlEngine, from: number, to: number): Promise<number> {
  const below = Number.isFinite(to) ? ` AND scheduled_ms < ${sqlDouble(to)}` : "";
  const [n] = await engine.query(`SELECT COUNT(*) AS n FROM requests WHERE scheduled_ms >= ${sqlDouble(from)}${below}`);
  return Number(n?.n ?? 0);
}

/** The requests the stop cut off (aborted in flight, error_kind run_stopped), scheduled before the log's end. */
async function sqlCutOff(engine: SqlEngine, logEnd: number): Promise<CutOffRequest[]> {
  const rows = await engine.query(
    "SELECT request_id, CAST(scheduled_ms AS DOUBLE) AS scheduled_ms, class, service_mode FROM requests " +
      "WHERE outcome = 'aborted' AND COALESCE(error_kind = 'run_stopped', false) AND " +
      `scheduled_ms < ${sqlDouble(logEnd)}`,
  );
  return rows.map((r) => ({
    request_id: String(r.request_id),
    scheduled_ms: Number(r.scheduled_ms),
    class: String(r.class),
    service_mode: r.service_mode === null || r.service_mode === undefined ? null : String(r.service_mode),
  }));
}

/**
 * An opened SQL run with the requests its stop cut off decided by
 * `deadlines` (as `decideStopped` does for the polars readers): those already
 * past their e2e limit at the log's end failed and stay in the window; the
 * window ends at the first still censored. Its end and stages are
 * recomputed; the input is not changed. A complete or imported run is
 * returned as it is.
 */
export async function decideSqlRun<
  R extends { engine: SqlEngine; end: RunEnd; manifest: SqlManifest; manifests: SqlManifest[] },
>(run: R, deadlines: E2eDeadlines): Promise<R> {
  const e = run.end;
  if (e.cut_ms === null || e.log_end_ms === null || e.log_end_rule === null) return run;
  const log = { log_end_ms: e.log_end_ms, log_end_rule: e.log_end_rule, planned_stages: e.planned_stages };
  const end = await sqlStoppedEnd(run.engine, log, deadlines);
  const manifests = run.manifests.map((m) =>
    isImported(m) ? m : { ...m, stages: clipStages(e.planned_stages, end.cut_ms!) }
  );
  return { ...run, end, manifests, manifest: manifests[0]! };
}
