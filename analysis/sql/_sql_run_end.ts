/**
 * How a run read by the SQL path ended (analysis/run/run_end_rule.ts): a
 * complete run has no cut; an interrupted one ends at the earliest cut of its
 * shards, each the earlier of `result.ended_ms` and the first request never
 * started because of the stop, and its window ends at the first request the
 * stop cut off (censored) when that is earlier — found by DuckDB, with the
 * censored requests and those the window's end leaves out. (A killed run is
 * refused before this: `sql_run.ts`.)
 *
 * @module
 */
import { type ImportedManifest, isImported } from "../../schema/imported_manifest.ts";
import type { RunManifest } from "../../schema/run_manifest.ts";
import {
  byScheduled,
  clipManifests,
  completeRunEnd,
  interruptedCut,
  type RunEnd,
  runEndHeadline,
  windowEnd,
} from "../run/run_end_rule.ts";
import type { SqlEngine } from "./duckdb.ts";
import { sqlDouble, sqlString } from "./_sql_text.ts";
import type { TableSource } from "./views.ts";

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
  const cutOff = "outcome = 'aborted' AND COALESCE(error_kind = 'run_stopped', false) AND " +
    `scheduled_ms < ${sqlDouble(logEnd)}`;
  const rows = await engine.query(
    `SELECT request_id, CAST(scheduled_ms AS DOUBLE) AS scheduled_ms FROM requests WHERE ${cutOff}`,
  );
  const censored = rows.map((r) => ({ request_id: String(r.request_id), scheduled_ms: Number(r.scheduled_ms) }))
    .sort(byScheduled);
  const cut = windowEnd(logEnd, censored);
  const [n] = await engine.query(
    `SELECT COUNT(*) AS after_cut FROM requests WHERE scheduled_ms >= ${sqlDouble(cut)} AND NOT (${cutOff})`,
  );
  const first = censored[0];
  const body = {
    status: "interrupted" as const,
    cut_ms: cut,
    log_end_ms: logEnd,
    planned_ms: completeRunEnd(planned_stages).planned_ms,
    rule: `${cuts.map((c) => c.rule).join("; ")}${cuts.length > 1 ? `; the earliest: ${logEnd} ms` : ""}` +
      (first
        ? `; the window ends at the first censored request, ${first.request_id} scheduled at ${first.scheduled_ms} ms`
        : "; no request censored: the window ends there"),
    planned_stages,
    after_cut: Number(n?.after_cut ?? 0),
    censored: censored.length,
    censored_ids: censored.map((c) => c.request_id),
    restored: 0,
  };
  const end: RunEnd = { ...body, headline: runEndHeadline(body) };
  return { end, manifests: clipManifests([...manifests], end) };
}
