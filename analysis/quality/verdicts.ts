import { readQuality } from "../../schema/quality_file.ts";
import { type QualityRow, sourceKind } from "../../schema/quality.ts";
import type { QualityTable } from "../../schema/quality_file.ts";
import type { LoadedRun } from "../run/loaded_run.ts";

/** A run's quality verdicts, read and checked, indexed for the analysis. */
export interface RunQuality {
  /** The run folder the table was read from (`RUN/quality/`). */
  dir: string;
  /** The table as read: its manifest (parts, rubrics) and every verdict row. */
  table: QualityTable;
  /** Every verdict row (the table's), in part order. */
  rows: QualityRow[];
  /** The class of every request of the run. */
  class_of: ReadonlyMap<string, string>;
  /** The judge models with verdicts (`judge:<model>` → `<model>`), sorted. */
  judges: string[];
  /** The human raters (`human:<rater>` → `<rater>`), sorted. */
  raters: string[];
  /** The adjudicators (`adjudicated:<rater>` → `<rater>`), sorted. */
  adjudicators: string[];
  /** The classes scored by a rubric of the table, or holding a verdict that is not inline: the open-ended ones. */
  classes: string[];
}

/** The names after the kind's prefix, sorted (`judge:m` → `m`). */
function namesOf(rows: readonly QualityRow[], kind: string): string[] {
  return [...new Set(rows.filter((r) => sourceKind(r.source) === kind).map((r) => r.source.slice(kind.length + 1)))]
    .sort();
}

/**
 * {@linkcode RunQuality} from a table already read, and the run's request → class pairs. Pure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runQualityOf } from "./verdicts.ts";
 * const row = (request_id: string, source: string, pass: boolean) => ({
 *   run_id: "r", request_id, source, rubric_id: "x", rubric_sha256: "0".repeat(64), scores: "{}", pass,
 *   rationale: null, time_spent_ms: null, judged_epoch_ms: 0, input_tokens: null, output_tokens: null, calls: null,
 * });
 * const rows = [row("a", "judge:m1", true), row("a", "human:ann", true), row("b", "adjudicated:lee", false)];
 * const q = runQualityOf("RUN", { manifest: { rubrics: [] } as never, rows, rubrics: new Map() }, [["a", "qa"], ["b", "qa"]]);
 * assert.deepEqual([q.judges, q.raters, q.adjudicators, q.classes], [["m1"], ["ann"], ["lee"], ["qa"]]);
 * ```
 */
export function runQualityOf(
  dir: string,
  table: QualityTable,
  requestClasses: Iterable<readonly [string, string]>,
): RunQuality {
  const class_of = new Map(requestClasses);
  const present = new Set(class_of.values());
  const classes = new Set<string>();
  for (const r of table.manifest.rubrics) for (const c of r.applies_to.classes) classes.add(c);
  for (const r of table.rows) {
    const c = class_of.get(r.request_id);
    if (c !== undefined && r.source !== "inline") classes.add(c);
  }
  return {
    dir,
    table,
    rows: table.rows,
    class_of,
    judges: namesOf(table.rows, "judge"),
    raters: namesOf(table.rows, "human"),
    adjudicators: namesOf(table.rows, "adjudicated"),
    // A rubric may name a class this run did not draw: only the run's own classes are listed.
    classes: [...classes].filter((c) => present.has(c)).sort(),
  };
}

/**
 * Reads the quality table of an opened run (`RUN/quality/`, schema/quality_file.ts `readQuality`): checked against
 * the run's request ids and run.json `workload.rubric_hashes` when the run froze its rubrics. Null when the run has no
 * quality table. A bad table is an `InputError` naming file, row and field (exit 2 in the CLIs).
 *
 * @example
 * ```ts ignore
 * const quality = await loadRunQuality(await loadRun("out/run-1"));
 * console.log(quality?.judges, quality?.raters);
 * ```
 */
export async function loadRunQuality(run: LoadedRun): Promise<RunQuality | null> {
  const ids = run.requests.getColumn("request_id").toArray() as string[];
  const classes = run.requests.getColumn("class").toArray() as string[];
  const workload = run.manifest.workload as { rubric_hashes?: Record<string, string> };
  const table = await readQuality(run.dir, {
    runId: run.manifest.run_id,
    requestIds: new Set(ids),
    ...(workload.rubric_hashes ? { rubricHashes: workload.rubric_hashes } : {}),
  });
  if (!table) return null;
  return runQualityOf(run.dir, table, ids.map((id, i) => [id, classes[i]!] as const));
}
