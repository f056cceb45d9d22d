/**
 * Accepted goodput against offered load, one point per load level, with the
 * knee and the production limits (knee minus a stated headroom) marked.
 *
 * @module
 */
import type { AnyStage } from "../../schema/imported_manifest.ts";
import type { GoodputResult } from "../goodput/goodput.ts";
import { disclosureLine } from "./_disclosure.ts";
import { roundDown } from "../latency/round_display.ts";
import { type Figure, makeFigure } from "./figure.ts";
import { sig } from "../../lib/number_format.ts";

/** A knee or limit label: rounded down, never up. */
const down = (rps: number): string => String(roundDown(rps));
/** A headroom as a percentage label. */
const pct = (h: number): string => `${sig(h * 100)} %`;

/** One load level: a stage of a staged run, or one run of a sweep. */
export interface LoadLevel {
  label: string;
  /** Measured offered load: offered requests / seconds. */
  offered_rps: number;
  accepted_goodput: number | null;
  /** Requests offered at this level. */
  n: number;
}

/**
 * The input of {@linkcode goodputVsLoadFigure}. `knee_rps` and `limits` come
 * from a knee analysis; the figure only marks them (null / empty = not marked).
 */
export interface LoadCurveInput {
  levels: LoadLevel[];
  /** Offered load where degradation starts; null when not computed or not found. */
  knee_rps: number | null;
  /** What degraded at the knee, for the label (e.g. "p99 e2e"). @default {undefined} */
  knee_signal?: string;
  /**
   * Why there is no knee, for the title when `knee_rps` is null (e.g. "no knee found in 6 load levels").
   * @default {"knee not computed"}
   */
  knee_note?: string;
  /** Production limits: the knee minus an explicit headroom (0.2 = 20 %), one line each. */
  limits: { headroom: number; rps: number }[];
  /**
   * The headroom the user chose: its limit is drawn solid and labelled "chosen", the others dotted.
   * null = none chosen (no limit applied; the lines are choices). @default {null}
   */
  headroom?: number | null;
  /** One line: denominator, window, n. */
  disclosure: string;
}

/**
 * Load levels from a staged run's goodput: one level per steady or burst
 * stage of the window, offered load measured as offered / stage seconds,
 * in order of offered load. Knee and limits are left empty for a knee
 * analysis to fill.
 */
export function loadCurveFromGoodput(result: GoodputResult, stages: readonly AnyStage[]): LoadCurveInput {
  const kinds = new Map(stages.map((s) => [s.name, s.kind]));
  // The knee's load levels: warm-up, recovery and drain stages answer a backlog or a cold start, not their own rate.
  const levels = result.by_stage
    .filter((r) => LEVEL_KINDS.has(kinds.get(r.stage) ?? "drain") && r.measurement_seconds)
    .map((r) => ({
      label: r.stage,
      offered_rps: r.offered / r.measurement_seconds!,
      accepted_goodput: r.accepted_goodput,
      n: r.offered,
    }))
    .sort((a, b) => a.offered_rps - b.offered_rps);
  return {
    levels,
    knee_rps: null,
    limits: [],
    disclosure: disclosureLine(result.disclosure, [
      "one point per steady or burst stage (warm-up, recovery and drain stages are not load levels)",
    ]),
  };
}

const LEVEL_KINDS: ReadonlySet<string> = new Set(["steady", "burst"]);

/** Options of {@linkcode goodputVsLoadFigure} drawn from a goodput result. */
export interface GoodputVsLoadOptions {
  /** The run's stages (`run.manifest.stages`): their kinds say which are load levels. */
  stages: AnyStage[];
}

/**
 * Accepted goodput (y) against offered load (x): the measured levels, the
 * line where every offered task is accepted, the knee (dashed) and each
 * limit (dotted) as vertical lines with labels. Two traces.
 *
 * @example Two levels, a knee and a 20 % headroom limit
 * ```ts
 * import assert from "node:assert/strict";
 * import { goodputVsLoadFigure } from "./goodput_vs_load.ts";
 * const f = goodputVsLoadFigure({
 *   levels: [{ label: "a", offered_rps: 2, accepted_goodput: 2, n: 20 }, { label: "b", offered_rps: 8, accepted_goodput: 5, n: 80 }],
 *   knee_rps: 6, limits: [{ headroom: 0.2, rps: 4.8 }], disclosure: "n = 100",
 * });
 * assert.equal(f.data.length, 2);
 * assert.equal((f.layout.shapes as unknown[]).length, 2);
 * ```
 */
export function goodputVsLoadFigure(result: GoodputResult, options: GoodputVsLoadOptions): Figure;
/** A route of `compareRouteCosts`: its load curve with the knee and the production limits marked. */
export function goodputVsLoadFigure(route: { curve: LoadCurveInput }): Figure;
/** The figure of a prepared input (the report, tests). */
export function goodputVsLoadFigure(input: LoadCurveInput): Figure;
export function goodputVsLoadFigure(
  from: GoodputResult | { curve: LoadCurveInput } | LoadCurveInput,
  options?: GoodputVsLoadOptions,
): Figure {
  const input = "overall" in from
    ? loadCurveFromGoodput(from, options?.stages ?? [])
    : "curve" in from
    ? from.curve
    : from;
  const levels = [...input.levels].sort((a, b) => a.offered_rps - b.offered_rps);
  const maxX = Math.max(1e-9, ...levels.map((l) => l.offered_rps), input.knee_rps ?? 0);
  const shapes: Record<string, unknown>[] = [];
  const annotations: Record<string, unknown>[] = [];
  const vline = (x: number, dash: string, color: string, text: string, y: number, width = 2) => {
    shapes.push({
      type: "line",
      xref: "x",
      yref: "paper",
      x0: x,
      x1: x,
      y0: 0,
      y1: 1,
      line: { dash, color, width },
    });
    // A white ground keeps a label legible where it crosses the next line.
    annotations.push({
      x,
      y,
      xref: "x",
      yref: "paper",
      text,
      showarrow: false,
      xanchor: "left",
      bgcolor: "rgba(255,255,255,0.85)",
      font: { color },
    });
  };
  if (input.knee_rps !== null) {
    const what = input.knee_signal ? ` (${input.knee_signal})` : "";
    vline(input.knee_rps, "dash", "#d62728", `knee ${down(input.knee_rps)} rps${what}`, 1);
  }
  const chosen = input.headroom ?? null;
  input.limits.forEach((l, i) => {
    const y = 0.93 - 0.07 * i;
    if (l.headroom === chosen) {
      vline(l.rps, "solid", "#1a6e1a", `<b>limit ${down(l.rps)} rps (headroom ${pct(l.headroom)}, chosen)</b>`, y, 3);
    } else vline(l.rps, "dot", "#2ca02c", `limit ${down(l.rps)} rps (headroom ${pct(l.headroom)})`, y);
  });
  const knee = input.knee_rps === null ? input.knee_note ?? "knee not computed" : `knee ${down(input.knee_rps)} rps`;
  const atChosen = input.limits.find((l) => chosen !== null && l.headroom === chosen);
  const limit = atChosen
    ? `; limit ${down(atChosen.rps)} rps at the chosen ${pct(atChosen.headroom)} headroom`
    : chosen === null && input.limits.length
    ? "; no headroom chosen"
    : "";
  return makeFigure({
    id: "goodput-vs-load",
    title: `Accepted goodput vs offered load (${knee}${limit})`,
    disclosure: input.disclosure,
    notes: [
      "offered load = offered requests / seconds of the level; accepted goodput = accepted requests / the same seconds",
      "the grey line is accepted = offered: the distance below it is load that was offered but not accepted",
      "the limit is the knee minus the headroom the user chose; the tool never picks the margin: the limit at the " +
      "chosen headroom is the solid line marked chosen, the dotted lines are other choices; with no headroom chosen " +
      "every line is a choice and no limit is applied",
      "knee and limit labels are rounded down to 4 significant digits, never up; the lines stand at the exact values",
    ],
    data: [
      {
        type: "scatter",
        mode: "lines+markers+text",
        name: "accepted goodput",
        x: levels.map((l) => l.offered_rps),
        y: levels.map((l) => l.accepted_goodput),
        text: levels.map((l) => l.label),
        textposition: "top left",
        customdata: levels.map((l) => [l.label, l.n]),
        hovertemplate:
          "%{customdata[0]}: offered %{x:.3f} rps, accepted %{y:.3f}/s, n = %{customdata[1]}<extra></extra>",
      },
      {
        type: "scatter",
        mode: "lines",
        name: "accepted = offered",
        x: [0, maxX * 1.05],
        y: [0, maxX * 1.05],
        line: { color: "#aaaaaa", dash: "dash" },
        hoverinfo: "skip",
      },
    ],
    layout: {
      xaxis: { title: { text: "offered load (requests/s)" }, rangemode: "tozero" },
      yaxis: { title: { text: "accepted goodput (tasks/s)" }, rangemode: "tozero" },
      shapes,
      annotations,
    },
  });
}
