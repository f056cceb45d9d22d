/**
 * One latency percentile per class per stage, with its confidence interval
 * as error bars and n on hover.
 *
 * @module
 */
import { percentLabel } from "../latency/_percentile_checks.ts";
import { LATENCY_INCLUSION, type LatencyMetric, type LatencyRow } from "../latency/latency.ts";
import { DEFAULT_SUPPORT_CONFIDENCE, earlyStoppingMinSamples, supportRuleText } from "../latency/early_stopping.ts";
import { colour, type Figure, makeFigure } from "./figure.ts";
import { sig } from "../../lib/number_format.ts";

/** Options of {@linkcode latencyPercentilesFigure}. */
export interface LatencyPercentilesOptions {
  /** @default {"e2e_ms"} */
  metric?: LatencyMetric;
  /** The percentile as a fraction; must be one of the table's. @default {0.99} */
  p?: number;
  /** Stage order on the x axis (e.g. the run's stage order); stages not listed follow. @default {[]} */
  stages?: string[];
  /** The window in words, for the disclosure. @default {"as computed"} */
  window?: string;
  /** The run, for the disclosure. @default {undefined} */
  run_id?: string;
}

/**
 * Bars of the chosen percentile of `metric` for each class (one trace per
 * class) in each stage, error bars from the distribution-free CI (open above
 * when no order statistic bounds it), n on hover; a bar whose n does not
 * meet MLPerf LoadGen's early-stopping rule (its confidence in the
 * disclosure) is UNSUPPORTED: drawn hollow and hatched, the n it has and
 * the n the rule needs on hover, and the legend's title says what hatched
 * means.
 * Input: the rows of `latencyTable` (or `latencyInWindow`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { latencyPercentilesFigure } from "./latency_percentiles.ts";
 * const row = { class: "qa", stage: "low", metric: "e2e_ms" as const, p: 0.99, value: 900, n: 500, excluded: 0,
 *   excluded_not_streamed: 0, confidence: 0.95, lower: 850, upper: 990, support_confidence: 0.99, bound: 995,
 *   supported: true, note: null, window: null,
 *   inclusion: "" };
 * const f = latencyPercentilesFigure([row]);
 * assert.equal(f.data.length, 1);
 * assert.match(f.disclosure, /n = 500/);
 * assert.match(f.disclosure, /early-stopping rule at 99 % one-sided confidence/);
 * ```
 */
export function latencyPercentilesFigure(rows: LatencyRow[], options: LatencyPercentilesOptions = {}): Figure {
  const metric = options.metric ?? "e2e_ms";
  const p = options.p ?? 0.99;
  const picked = rows.filter((r) => r.metric === metric && r.p === p && r.class !== null && r.stage !== null);
  if (!picked.length && rows.length && !rows.some((r) => r.p === p)) {
    throw new RangeError(
      `latencyPercentilesFigure: p ${p} is not in the table (has ${[...new Set(rows.map((r) => r.p))]})`,
    );
  }
  const order = options.stages ?? [];
  const seen = [...new Set(picked.map((r) => r.stage!))];
  const stages = [...order.filter((s) => seen.includes(s)), ...seen.filter((s) => !order.includes(s)).sort()];
  const classes = [...new Set(picked.map((r) => r.class!))].sort();
  const pct = `${percentLabel(p)}`;
  const conf = picked[0]?.confidence ?? 0.95;
  const support = picked[0]?.support_confidence ?? DEFAULT_SUPPORT_CONFIDENCE;
  const n = picked.reduce((s, r) => s + r.n, 0);
  const unsupported = picked.filter((r) => !r.supported && r.value !== null).length;
  const notStreamed = picked.reduce((s, r) => s + (r.excluded_not_streamed ?? 0), 0);
  const need = earlyStoppingMinSamples(p, 0, { confidence: support });
  const data = classes.map((cls, i) => {
    const byStage = new Map(picked.filter((r) => r.class === cls).map((r) => [r.stage!, r]));
    const cells = stages.map((s) => byStage.get(s) ?? null);
    const weak = cells.map((r) => r !== null && !r.supported);
    const c = colour(i);
    return {
      type: "bar",
      name: cls,
      x: stages,
      y: cells.map((r) => r?.value ?? null),
      // An UNSUPPORTED bar is hollow and hatched in the class's colour: visibly not a supported estimate.
      marker: {
        color: weak.map((w) => (w ? "rgba(255,255,255,0)" : c)),
        line: { color: c, width: weak.map((w) => (w ? 1.5 : 0)) },
        pattern: { shape: weak.map((w) => (w ? "/" : "")), fgcolor: c, fillmode: "overlay", size: 6, solidity: 0.25 },
      },
      error_y: {
        type: "data",
        symmetric: false,
        array: cells.map((r) => (r?.value != null && r.upper !== null ? r.upper - r.value : 0)),
        arrayminus: cells.map((r) => (r?.value != null && r.lower !== null ? r.value - r.lower : 0)),
      },
      customdata: cells.map((r) => [
        r?.n ?? 0,
        sig(r?.lower ?? null),
        r && r.upper !== null ? sig(r.upper) : "∞",
        r && !r.supported ? ` UNSUPPORTED: n = ${r.n}, the rule needs n ≥ ${need} (hatched, hollow)` : "",
      ]),
      hovertemplate: `${cls} %{x}: ${pct} = %{y:.1f} ms, n = %{customdata[0]}, ${conf * 100} % CI ` +
        "[%{customdata[1]}, %{customdata[2]}]%{customdata[3]}<extra></extra>",
    };
  });
  return makeFigure({
    id: `latency-${metric}-${pct}`,
    title: `${pct} ${metric} per class per stage`,
    disclosure:
      `${options.run_id ? `run ${options.run_id}; ` : ""}window ${
        options.window ?? "as computed"
      }; n = ${n} requests with a ${metric}${
        notStreamed ? ` (${notStreamed} completed not streamed: no ${metric}, excluded)` : ""
      }; ` +
      `${conf * 100} % distribution-free CI; ${supportRuleText([p], { confidence: support })}${
        unsupported ? `; ${unsupported} bars UNSUPPORTED (n too small: hatched, hollow)` : ""
      }`,
    notes: [
      `${metric}: ${LATENCY_INCLUSION[metric]}`,
      "nearest-rank percentile; error bars are the confidence interval, open above when no sample bounds it",
      `a hatched, hollow bar is UNSUPPORTED: its n is below the ${need} samples the early-stopping rule needs for ` +
      `${pct} at ${sig(support * 100)} % one-sided confidence, so the value is not a supported estimate`,
    ],
    data,
    layout: {
      barmode: "group",
      legend: {
        orientation: "h",
        y: -0.18,
        title: { text: `class${unsupported ? ` (hatched, hollow = UNSUPPORTED: n < ${need})` : ""}` },
      },
      xaxis: { title: { text: "stage" }, type: "category" },
      yaxis: { title: { text: `${pct} ${metric} (ms)` }, rangemode: "tozero" },
    },
  });
}
