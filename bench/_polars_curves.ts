/**
 * The analysis benchmark's polars path for the SLO curves: per class, the
 * e2e latencies of the window's requests that passed every non-latency
 * condition (outcome ok, `completed_ms` set, every required gate that
 * applies to the request true: `analysis/goodput/_gates.ts`),
 * counted at each of 1,000 limits with `sloSweep`.
 *
 * @module
 */
import pl from "nodejs-polars";
import { GATE_ORDER } from "../analysis/goodput/classify.ts";
import type { GoodputResult } from "../analysis/goodput/goodput.ts";
import { classSlo, resolveWindow } from "../analysis/goodput/policy.ts";
import { gateApplies } from "../analysis/goodput/_gates.ts";
import { sloSweep } from "../analysis/latency/sweep.ts";
import type { AnyManifest } from "../schema/imported_manifest.ts";
import type { SloPolicy } from "../schema/slo.ts";
import { type BenchResult, curveLimits } from "./_plain_goodput.ts";

/**
 * The e2e curve of every class of `table`. `classify()` keeps only the first
 * failing reason, so a late request that also failed a gate cannot be told
 * apart from its output: the eligible latencies are selected here in polars
 * and copied out per class as Float64Arrays.
 * `streaming` runs the query on polars' streaming engine (for a `scanRun`).
 */
export function polarsCurves(
  requests: pl.LazyDataFrame,
  manifest: AnyManifest,
  policy: SloPolicy,
  table: GoodputResult,
  streaming = false,
): BenchResult["curves"] {
  const window = resolveWindow(manifest.stages, policy.window);
  const inWindow = window.intervals
    .map(([a, b]) => pl.col("scheduled_ms").gtEq(a).and(pl.col("scheduled_ms").lt(b)))
    .reduce((x, y) => x.or(y));
  const q = requests
    .select("class", "outcome", "scheduled_ms", "completed_ms", "applicable_gates", ...GATE_ORDER)
    .filter(inWindow.and(pl.col("outcome").eq(pl.lit("ok"))).and(pl.col("completed_ms").isNotNull()))
    .select(
      "class",
      pl.col("completed_ms").minus(pl.col("scheduled_ms")).alias("e2e_ms"),
      "applicable_gates",
      ...GATE_ORDER,
    );
  const df = streaming ? q.collectSync({ engine: "streaming" }) : q.collectSync();
  const parts = new Map<string, Float64Array>();
  for (const part of df.partitionBy("class")) {
    // Within one class the required gates are fixed: a plain AND of those columns (per-row class lookups cost ~4×).
    const cls = String(part.getColumn("class").get(0));
    const gates = classSlo(policy, cls).gates;
    const ok = gates.reduce((acc, g) => acc.and(gateApplies(g).not().or(pl.col(g).fillNull(false))), pl.lit(true));
    const e2e = part.lazy().filter(ok).select("e2e_ms").collectSync().getColumn("e2e_ms");
    // No nulls (completed_ms was filtered non-null): the typed copy is ~50× faster than toArray().
    parts.set(cls, e2e.toTypedArray() as Float64Array);
  }
  const curves: BenchResult["curves"] = {};
  for (const row of table.by_class) {
    const c = sloSweep(parts.get(row.class) ?? [], curveLimits(policy, row.class), {
      denominator: row[policy.denominator],
      measurement_seconds: window.measurement_seconds,
    });
    curves[row.class] = { limit_ms: c.limit_ms, accepted: c.accepted };
  }
  return curves;
}
