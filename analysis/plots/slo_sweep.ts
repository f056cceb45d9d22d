/**
 * SLO-sweep curves: acceptance rate per class as a function of one latency
 * limit, all other conditions of the policy held, the policy's limit marked.
 *
 * @module
 */
import pl from "nodejs-polars";
import type { SloPolicy } from "../../schema/slo.ts";
import { classify } from "../goodput/classify.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { classSlo, policyForRun, runWindow, withoutMetricLimit } from "../goodput/policy.ts";
import { sloSweep, type SweepCurve, sweepLimits } from "../latency/sweep.ts";
import { windowLine } from "./_disclosure.ts";
import { colour, type Figure, makeFigure, plain } from "./figure.ts";
import { sig } from "../../lib/number_format.ts";
import type { SloMetric } from "./latency_cdf.ts";

/** One class's sweep and its policy limit. */
export interface SweepSeries {
  class: string;
  curve: SweepCurve;
  /** The class's limit in the policy; null = none, or not applicable (TTFT/TPOT of a class none of whose requests was streamed). */
  limit_ms: number | null;
  /** Completed requests of the class that were not streamed (no TTFT/TPOT: the limit does not apply). @default {0} */
  not_streamed?: number;
}

/** The input of {@linkcode sloSweepFigure}. */
export interface SloSweepInput {
  metric: SloMetric;
  denominator: SloPolicy["denominator"];
  series: SweepSeries[];
  /** One line: run, window, denominator, n. */
  disclosure: string;
}

/** Options of {@linkcode sloSweepInput}. */
export interface SloSweepInputOptions {
  /** @default {"e2e_ms"} */
  metric?: SloMetric;
  /** Limits per curve (log-spaced over the observed range and the policy limit). @default {200} */
  points?: number;
}

/** Options of {@linkcode sloSweepFigure} drawn from a run. */
export interface SloSweepFigureOptions extends SloSweepInputOptions {
  /** The SLO policy whose limit on the metric is swept, every other condition held. */
  policy: SloPolicy;
}

/**
 * Sweep curves of a run under a policy, one per class. A request is
 * eligible when it passes every other condition of its class (the metric's
 * limit removed, `classify`); its latency is then the metric. A metric the
 * request does not have — TTFT or TPOT of a request that was not streamed
 * (not observable), a TPOT undefined for another reason (≤ 1 output token)
 * — means the limit does not apply to it: it passes every limit (counted as
 * 0 ms), so an unstreamed class's TTFT curve is flat, and its policy limit
 * is not marked. The denominator is the policy's, counted per class.
 */
export function sloSweepInput(run: LoadedRun, policy: SloPolicy, options: SloSweepInputOptions = {}): SloSweepInput {
  policy = policyForRun(policy, run, "sloSweepInput() policy");
  const metric = options.metric ?? "e2e_ms";
  const points = options.points ?? 200;
  const window = runWindow(run, policy.window);
  const relaxed = withoutMetricLimit(policy, metric);
  const rows = classify(run, relaxed, window);
  const classes = (rows.getColumn("class").unique().toArray() as string[]).sort();
  const den = policy.denominator;
  const perClass = classes.map((cls) => {
    const mine = rows.filter(pl.col("class").eq(pl.lit(cls)));
    const ok = mine.filter(pl.col("accepted"));
    const lat = (ok.getColumn(metric).toArray() as (number | null)[]).map((v) => v ?? 0);
    const D = den === "offered" ? mine.height : mine.filter(pl.col(den === "sent" ? "sent" : "completed")).height;
    const completed = mine.filter(pl.col("completed"));
    const unstreamed = completed.filter(pl.col("streaming").isIn(["not_streamed", "inferred_not_streamed"])).height;
    const applies = metric === "e2e_ms" || unstreamed === 0 || unstreamed < completed.height;
    return { cls, lat, D, limit: applies ? classSlo(policy, cls)[metric] ?? null : null, unstreamed };
  });
  const all = perClass.flatMap((c) => [...c.lat, ...(c.limit === null ? [] : [c.limit])]).filter((v) => v > 0);
  const lo = all.length ? Math.min(...all) * 0.8 : 1;
  const hi = all.length ? Math.max(...all) * 1.25 : 10;
  // The policy limits join the grid, so each curve's value at its class's limit is exact.
  const grid = [...sweepLimits(lo, Math.max(hi, lo * 1.01), { points, scale: "log" })];
  const limits = [...new Set([...grid, ...perClass.flatMap((c) => (c.limit === null ? [] : [c.limit]))])]
    .sort((a, b) => a - b);
  // Ineligible requests stay in the denominator D.
  const series = perClass.map((c) => ({
    class: c.cls,
    not_streamed: metric === "e2e_ms" ? 0 : c.unstreamed,
    limit_ms: c.limit,
    curve: sloSweep(c.lat, limits, { denominator: c.D, measurement_seconds: window.measurement_seconds }),
  }));
  return {
    metric,
    denominator: den,
    series,
    disclosure: windowLine(run.manifest.run_id, window.stages, window.measurement_seconds, [
      `denominator ${den}`,
      `n = ${rows.height} offered`,
    ]),
  };
}

/**
 * Acceptance rate (accepted / the denominator) per class as the metric's
 * limit varies (log x axis), one line per class; a diamond on each curve at
 * the class's policy limit shows where the policy sits. Traces: one line
 * per class plus one marker per class with a limit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sloSweep } from "../latency/sweep.ts";
 * import { sloSweepFigure } from "./slo_sweep.ts";
 * const curve = sloSweep([100, 200], [50, 150, 250], { denominator: 4, measurement_seconds: 2 });
 * const f = sloSweepFigure({ metric: "e2e_ms", denominator: "offered", disclosure: "n = 4",
 *   series: [{ class: "qa", curve, limit_ms: 150 }] });
 * assert.deepEqual(f.data[0]!.y, [0, 0.25, 0.5]);
 * assert.deepEqual(f.data[1]!.y, [0.25]);
 * ```
 */
export function sloSweepFigure(run: LoadedRun, options: SloSweepFigureOptions): Figure;
/** The figure of a prepared input (tests). */
export function sloSweepFigure(input: SloSweepInput): Figure;
export function sloSweepFigure(from: LoadedRun | SloSweepInput, options?: SloSweepFigureOptions): Figure {
  const input = "series" in from ? from : sloSweepInput(from, options!.policy, options);
  const data = input.series.flatMap((s, i) => {
    const c = s.curve;
    const line = {
      type: "scatter",
      mode: "lines",
      name: `${s.class} (${input.denominator} ${c.denominator}${
        s.not_streamed ? `; ${s.not_streamed} not streamed: limit not applicable to them` : ""
      })`,
      legendgroup: s.class,
      x: plain(c.limit_ms),
      y: plain(c.acceptance_rate),
      line: { color: colour(i) },
      hovertemplate: `${s.class}: limit %{x:.0f} ms → %{y:.1%} of ${c.denominator} ${input.denominator}<extra></extra>`,
    };
    if (s.limit_ms === null) return [line];
    // The value at the last grid point ≤ the limit: exact when the grid holds the limit (sloSweepInput's does).
    let within = 0;
    for (let k = 0; k < c.limit_ms.length && c.limit_ms[k]! <= s.limit_ms; k++) within = c.acceptance_rate[k]!;
    return [line, {
      type: "scatter",
      mode: "markers",
      name: `${s.class} policy limit ${sig(s.limit_ms)} ms`,
      legendgroup: s.class,
      showlegend: false,
      x: [s.limit_ms],
      y: [Number.isFinite(within) ? within : null],
      marker: { color: colour(i), size: 10, symbol: "diamond" },
      hovertemplate: `${s.class}: policy limit %{x} ms → %{y:.1%}<extra></extra>`,
    }];
  });
  return makeFigure({
    id: `slo-sweep-${input.metric}`,
    title: `Acceptance rate as the ${input.metric} limit varies`,
    disclosure: input.disclosure,
    notes: [
      `y = accepted / ${input.denominator} per class; a request counts at a limit when it passes every other ` +
      `condition of its class and its ${input.metric} ≤ the limit; a request without one (TTFT/TPOT of a request ` +
      "that was not streamed) passes every limit: the limit does not apply to it",
      "diamonds: each class's policy limit",
    ],
    data,
    layout: {
      xaxis: { title: { text: `${input.metric} limit (ms, log scale)` }, type: "log" },
      yaxis: { title: { text: `accepted / ${input.denominator}` }, range: [0, 1.05], tickformat: ".0%" },
    },
  });
}
