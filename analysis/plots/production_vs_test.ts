/**
 * A production recording's latency beside its load test's: per class, TTFT and e2e percentiles, one bar per run.
 *
 * @module
 */
import { sig } from "../../lib/number_format.ts";
import type { LatencyComparison, LatencySide, ProductionVsTestResult } from "../compare/production_vs_test.ts";
import { type Figure, makeFigure, type Trace } from "./figure.ts";

/** The two runs' colours in every comparison figure: production blue, the load test grey. */
export const RUN_COLOURS = { production: "#1f77b4", test: "#7f7f7f" } as const;

const pLabel = (p: number) => `p${+(p * 100).toFixed(1)}`;

/**
 * Two panels, TTFT and e2e: for each class (then all) and percentile a pair of bars, the production recording and the
 * load test, error bars from each percentile's distribution-free confidence interval (open above when no sample
 * bounds it), n on hover; a bar whose n cannot support its percentile is hollow.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { productionVsTestFigure } from "./production_vs_test.ts";
 * const s = (value: number, n: number) => ({ value, n, lower: value - 1, upper: value + 1, supported: true });
 * const latency = ["ttft_ms", "e2e_ms"].map((metric) => ({ class: null, metric, p: 0.5,
 *   production: s(200, 10), test: s(150, 12), difference_ms: 50 }));
 * const f = productionVsTestFigure({ latency, production: { run_id: "prod" }, test: { run_id: "lt" },
 *   disclosure: { denominator: "offered", windows: { production: "all", test: "all" } } } as never);
 * assert.equal(f.data.length, 4); // two runs × two panels
 * assert.deepEqual(f.data[2]!.y, [200]);
 * ```
 */
export function productionVsTestFigure(result: ProductionVsTestResult): Figure {
  const metrics = ["ttft_ms", "e2e_ms"] as const;
  const data: Trace[] = metrics.flatMap((metric, k) => {
    const rows = result.latency.filter((r) => r.metric === metric);
    const x = rows.map((r) => `${r.class ?? "all"} ${pLabel(r.p)}`);
    return (["production", "test"] as const).map((run): Trace => {
      const cells = rows.map((r: LatencyComparison): LatencySide => r[run]);
      const c = RUN_COLOURS[run];
      return {
        type: "bar",
        name: run === "production" ? `production (${result.production.run_id})` : `load test (${result.test.run_id})`,
        legendgroup: run,
        showlegend: k === 0,
        x,
        y: cells.map((s) => s.value),
        xaxis: k === 0 ? "x" : "x2",
        yaxis: k === 0 ? "y" : "y2",
        marker: {
          color: cells.map((s) => (s.supported ? c : "rgba(255,255,255,0)")),
          line: { color: c, width: cells.map((s) => (s.supported ? 0 : 1.5)) },
        },
        error_y: {
          type: "data",
          symmetric: false,
          array: cells.map((s) => (s.value !== null && s.upper !== null ? s.upper - s.value : 0)),
          arrayminus: cells.map((s) => (s.value !== null && s.lower !== null ? s.value - s.lower : 0)),
        },
        customdata: cells.map((
          s,
        ) => [
          s.n,
          sig(s.lower),
          s.upper === null ? "∞" : sig(s.upper),
          s.supported ? "" : " (n too small: unsupported)",
        ]),
        hovertemplate: `${run === "production" ? "production" : "load test"} %{x} ${metric}: %{y:.1f} ms, n = ` +
          "%{customdata[0]}, 95 % CI [%{customdata[1]}, %{customdata[2]}]%{customdata[3]}<extra></extra>",
      };
    });
  });
  const n = (run: "production" | "test") =>
    result.latency.filter((r) => r.class === null && r.metric === "e2e_ms").map((r) => r[run].n)[0] ?? 0;
  const d = result.disclosure;
  return makeFigure({
    id: "production-vs-test-latency",
    title: "Latency: the production recording beside its load test, per class",
    disclosure: `production ${result.production.run_id} (window ${d.windows.production}; n = ${n("production")} ` +
      `completed) vs load test ${result.test.run_id} (window ${d.windows.test}; n = ${n("test")} completed); ` +
      "nearest-rank percentiles, 95 % distribution-free CI; each run timed from its own scheduled_ms",
    notes: [
      "production: from the user's action (the click) to the paint of the complete answer; load test: from the " +
      "planned arrival to the complete answer as the runner received it",
      "a hollow bar: n is too small to support the percentile (MLPerf LoadGen's early-stopping rule)",
    ],
    data,
    layout: {
      barmode: "group",
      xaxis: { domain: [0, 0.47], type: "category", title: { text: "TTFT: class, percentile" } },
      xaxis2: { domain: [0.53, 1], type: "category", anchor: "y2", title: { text: "e2e: class, percentile" } },
      yaxis: { title: { text: "TTFT (ms)" }, rangemode: "tozero" },
      yaxis2: { title: { text: "e2e (ms)" }, anchor: "x2", rangemode: "tozero" },
    },
  });
}
