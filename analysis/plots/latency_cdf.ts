/**
 * Latency CDFs per class against each class's SLO limit.
 *
 * @module
 */
import pl from "nodejs-polars";
import type { SloPolicy } from "../../schema/slo.ts";
import { classify } from "../goodput/classify.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { classSlo, policyForRun, runWindow } from "../goodput/policy.ts";
import { thin, windowLine } from "./_disclosure.ts";
import { colour, type Figure, makeFigure, plain } from "./figure.ts";
import { sig } from "../../lib/number_format.ts";

/** A latency metric with an SLO limit. */
export type SloMetric = "e2e_ms" | "ttft_ms" | "tpot_ms";

/** One class's curve: its completed requests' latencies and its offered count (the y denominator). */
export interface CdfSeries {
  class: string;
  /** Latencies of the class's completed requests (any order). */
  values: ArrayLike<number>;
  /** Requests of the class offered in the window: y = share of these. */
  offered: number;
  /** The class's SLO limit for the metric; null = none, or not applicable (no completed request was streamed). */
  limit_ms: number | null;
  /** Completed requests of the class that were not streamed: no TTFT or TPOT (not observable), not drawn. @default {0} */
  not_streamed?: number;
}

/** The input of {@linkcode latencyCdfFigure}. */
export interface LatencyCdfInput {
  metric: SloMetric;
  series: CdfSeries[];
  /** One line: run, window, n. */
  disclosure: string;
}

const LIMIT_KEY = { e2e_ms: "e2e_ms", ttft_ms: "ttft_ms", tpot_ms: "tpot_ms" } as const;

/**
 * The CDF input of a run under a policy: per class, the metric of every
 * completed request scheduled in the policy window (TTFT and TPOT of the
 * streamed ones only, as `classify` gives them), the class's offered count,
 * its SLO limit (for TTFT/TPOT: null when none of its completed requests was
 * streamed, where the limit does not apply) and how many were not streamed.
 */
export function latencyCdfInput(run: LoadedRun, policy: SloPolicy, metric: SloMetric = "e2e_ms"): LatencyCdfInput {
  policy = policyForRun(policy, run, "latencyCdfInput() policy");
  const window = runWindow(run, policy.window);
  const rows = classify(run, policy, window);
  const classes = (rows.getColumn("class").unique().toArray() as string[]).sort();
  const unstreamed = pl.col("streaming").isIn(["not_streamed", "inferred_not_streamed"]);
  const series = classes.map((cls) => {
    const mine = rows.filter(pl.col("class").eq(pl.lit(cls)));
    const completed = mine.filter(pl.col("completed"));
    const done = completed.filter(pl.col(metric).isNotNull());
    const notStreamed = metric === "e2e_ms" ? 0 : completed.filter(unstreamed).height;
    const applies = notStreamed === 0 || notStreamed < completed.height;
    return {
      class: cls,
      values: Float64Array.from(done.getColumn(metric).toArray() as number[]),
      offered: mine.height,
      limit_ms: applies ? classSlo(policy, cls)[LIMIT_KEY[metric]] ?? null : null,
      not_streamed: notStreamed,
    };
  });
  const hidden = series.reduce((n, s) => n + s.not_streamed, 0);
  const line = windowLine(run.manifest.run_id, window.stages, window.measurement_seconds, [
    `n = ${rows.height} offered`,
    ...(hidden ? [`${hidden} completed not streamed: no ${metric} (not observable)`] : []),
    `y = share of offered (denominator offered, whatever the policy's)`,
  ]);
  return { metric, series, disclosure: line };
}

/** Options of {@linkcode latencyCdfFigure}. */
export interface LatencyCdfOptions {
  /** Points drawn per curve at most (evenly thinned by rank, ends kept). @default {400} */
  maxPoints?: number;
}

/** Options of {@linkcode latencyCdfFigure} drawn from a run. */
export interface LatencyCdfFigureOptions extends LatencyCdfOptions {
  /** The SLO policy: its window, classes and each class's limit. */
  policy: SloPolicy;
  /** @default {"e2e_ms"} */
  metric?: SloMetric;
}

/**
 * One step curve per class: share of the class's offered requests whose
 * metric is ≤ x (log x axis). A curve tops out at completed / offered, so
 * failures show as the gap below 1. Each class's SLO limit is a dashed
 * vertical line in the class's colour; its label (the share within it, in
 * the same colour) stands in a column right of the plot.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { latencyCdfFigure } from "./latency_cdf.ts";
 * const f = latencyCdfFigure({ metric: "e2e_ms", disclosure: "n = 4",
 *   series: [{ class: "qa", values: [100, 300, 200], offered: 4, limit_ms: 250 }] });
 * assert.deepEqual(f.data[0]!.y, [0.25, 0.5, 0.75]);
 * assert.match(JSON.stringify(f.layout.annotations), /50 % within/);
 * ```
 */
export function latencyCdfFigure(run: LoadedRun, options: LatencyCdfFigureOptions): Figure;
/** The figure of a prepared input (tests). */
export function latencyCdfFigure(input: LatencyCdfInput, options?: LatencyCdfOptions): Figure;
export function latencyCdfFigure(
  from: LoadedRun | LatencyCdfInput,
  options: LatencyCdfOptions | LatencyCdfFigureOptions = {},
): Figure {
  const input = "series" in from
    ? from
    : latencyCdfInput(from, (options as LatencyCdfFigureOptions).policy, (options as LatencyCdfFigureOptions).metric);
  const max = options.maxPoints ?? 400;
  const shapes: Record<string, unknown>[] = [];
  const annotations: Record<string, unknown>[] = [];
  // A class without a value (none completed, or none streamed for TTFT/TPOT) has no curve: plotly would draw nothing.
  const empty = input.series.filter((s) => !s.values.length);
  const data = input.series.flatMap((s, i) => {
    if (!s.values.length) return [];
    const sorted = Float64Array.from(s.values).sort();
    const idx = thin(sorted.length, max);
    const c = colour(i);
    if (s.limit_ms !== null) {
      let within = 0;
      while (within < sorted.length && sorted[within]! <= s.limit_ms) within++;
      const share = s.offered ? within / s.offered : null;
      shapes.push({
        type: "line",
        xref: "x",
        yref: "paper",
        x0: s.limit_ms,
        x1: s.limit_ms,
        y0: 0,
        y1: 1,
        line: { dash: "dash", color: c, width: 1.5 },
      });
      // The labels stand in one column right of the plot: never on each other, never on a curve.
      annotations.push({
        x: 1,
        y: 1,
        xref: "paper",
        yref: "paper",
        showarrow: false,
        xanchor: "left",
        yanchor: "top",
        xshift: 10,
        yshift: 0 - 16 * annotations.length, // (0 − 0 is +0: no -0 in the JSON)
        font: { color: c, size: 11 },
        text: `${s.class} SLO ${sig(s.limit_ms)} ms: ${share === null ? "-" : sig(share * 100, 3)} % within`,
      });
    }
    return [{
      type: "scatter",
      mode: "lines",
      name: `${s.class} (n = ${s.offered}${s.not_streamed ? `; ${s.not_streamed} not streamed, not drawn` : ""})`,
      line: { shape: "hv", color: c },
      x: plain(idx.map((k) => sorted[k]!)),
      y: idx.map((k) => (s.offered ? (k + 1) / s.offered : null)),
      hovertemplate: `${s.class}: %{y:.1%} of ${s.offered} offered ≤ %{x:.1f} ms<extra></extra>`,
    }];
  });
  return makeFigure({
    id: `cdf-${input.metric}`,
    title: `${input.metric} CDF per class against the SLO`,
    disclosure: input.disclosure,
    notes: [
      `x = ${input.metric} of completed requests (outcome ok); y = share of the class's offered requests in the window`,
      "a curve ends at completed / offered: the gap below 1 is requests that never completed",
      "dashed lines: each class's SLO limit (inclusive), labelled right of the plot in the class's colour; TTFT/TPOT exist only for streamed requests: a class none of " +
      "whose completed requests was streamed has no curve and no limit line (its limit does not apply)",
      ...(empty.length
        ? [
          `no curve: ${
            empty.map((s) =>
              `${s.class} (${s.not_streamed ? `${s.not_streamed} completed, not streamed` : "none completed"})`
            )
              .join(", ")
          }`,
        ]
        : []),
    ],
    data,
    layout: {
      // Room right of the plot for the longest SLO label (11 px text, ≈ 6.5 px a character, with a margin).
      margin: {
        r: annotations.length ? 30 + Math.ceil(6.5 * Math.max(...annotations.map((a) => String(a.text).length))) : 30,
      },
      xaxis: { title: { text: `${input.metric} (ms, log scale)` }, type: "log" },
      yaxis: { title: { text: "share of offered requests" }, range: [0, 1.05], tickformat: ".0%" },
      shapes,
      annotations,
    },
  });
}
