/**
 * How a run read by the SQL path ended (analysis/run/run_end_rule.ts): a
 * complete run has no cut; an interrupted one ends at the earliest cut of its
 * shards, each the earlier of `result.ended_ms` and the first request never
 * started because of the stop — found by DuckDB, with the requests the cut
 * leaves out and those the stop left unresolved. (A killed run is refused
 * before this: `sql_run.ts`.)
 *
 * @module
 */
import { type ImportedManifest, isImported } from "../../schema/imported_manifest.ts";
import type { RunManifest } from "../../schema/run_manifest.ts";
import { clipManifests, completeRunEnd, interruptedCut, type RunEnd, runEndHeadline } from "../run/run_end_rule.ts";
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
  const cut = Math.min(...cuts.map((c) => c.cut));
  const [n] = await engine.query(
    `SELECT SUM(CASE WHEN scheduled_ms >= ${sqlDouble(cut)} THEN 1 ELSE 0 END) AS after_cut, ` +
      `SUM(CASE WHEN scheduled_ms < ${sqlDouble(cut)} AND outcome = 'aborted' AND error_kind = 'run_stopped' ` +
      "THEN 1 ELSE 0 END) AS unresolved FROM requests",
  );
  const body = {
    status: "interrupted" as const,
    cut_ms: cut,
    planned_ms: completeRunEnd(planned_stages).planned_ms,
    rule: `${cuts.map((c) => c.rule).join("; ")}${cuts.length > 1 ? `; the earliest: ${cut} ms` : ""}`,
    planned_stages,
    after_cut: Number(n?.after_cut ?? 0),
    unresolved: Number(n?.unresolved ?? 0),
    restored: 0,
  };
  const end: RunEnd = { ...body, headline: runEndHeadline(body) };
  return { end, manifests: clipManifests([...manifests], end) };
}
