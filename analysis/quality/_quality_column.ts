/**
 * The run as a quality source sees it: the requests' `quality_ok` of some classes replaced, and the gate made to apply
 * to them. Private to analysis/quality/.
 *
 * @module
 */
import pl from "nodejs-polars";
import type { LoadedRun } from "../run/loaded_run.ts";

/** A class's replacement verdict of each request: true, false, or null (not known: fails a required gate). */
export type QualityOverride = (requestId: string) => boolean | null;

/**
 * `run` with `quality_ok` of every request of the classes in `overrides` replaced by the override's verdict, and
 * `quality_ok` added to its `applicable_gates` (a rubric applies to every answer of its class, whatever the inline
 * check did; a null list already means every gate applies). Other classes' rows are unchanged; `run` is not changed.
 */
export function withQualityColumn(run: LoadedRun, overrides: ReadonlyMap<string, QualityOverride>): LoadedRun {
  if (!overrides.size) return run;
  const ids = run.requests.getColumn("request_id").toArray() as string[];
  const classes = run.requests.getColumn("class").toArray() as string[];
  const quality = run.requests.getColumn("quality_ok").toArray() as (boolean | null)[];
  const applicable = run.requests.getColumn("applicable_gates").toArray() as (string | null)[];
  const q = quality.slice(), a = applicable.slice();
  for (let i = 0; i < ids.length; i++) {
    const override = overrides.get(classes[i]!);
    if (!override) continue;
    q[i] = override(ids[i]!);
    const listed = a[i] ?? null;
    if (listed !== null && !listed.split(",").includes("quality_ok")) {
      a[i] = listed ? `${listed},quality_ok` : "quality_ok";
    }
  }
  const requests = run.requests.withColumns(
    pl.Series("quality_ok", q, pl.Bool),
    pl.Series("applicable_gates", a, pl.Utf8),
  );
  return { ...run, requests };
}
