/**
 * What the figures do so that nothing is clipped or drawn over at 1280 px: wrapped subtitles with room above the
 * plot, stage names in rows, SLO labels in a column, "all" on its own panel; and what they mark: unsupported
 * percentiles hatched and hollow, the chosen headroom among the limit lines, why there is no knee.
 */
import { latencyRow } from "../_fixture.ts";
import assert from "node:assert/strict";
import { FAILURE_REASONS } from "../../../schema/slo.ts";
import { failuresFigure } from "../../../analysis/plots/failures.ts";
import { makeFigure, titleBlockHeight, wrapWords } from "../../../analysis/plots/figure.ts";
import { goodputVsLoadFigure } from "../../../analysis/plots/goodput_vs_load.ts";
import { latencyCdfFigure } from "../../../analysis/plots/latency_cdf.ts";
import { latencyPercentilesFigure } from "../../../analysis/plots/latency_percentiles.ts";
import { stageLabelRows, timelineFigure } from "../../../analysis/plots/timeline.ts";
import type { GoodputResult, GoodputRow } from "../../../analysis/goodput/goodput.ts";

type Note = { text: string; x: number; y: number; xref: string; xanchor: string; yshift?: number; xshift?: number };
const notes = (layout: Record<string, unknown>) => (layout.annotations ?? []) as Note[];
type Line = { x0: number; line: { dash: string; width: number; color: string } };
const lines = (layout: Record<string, unknown>) => (layout.shapes ?? []) as Line[];

Deno.test("makeFigure() cuts the subtitle into lines and makes room for them above the plot", () => {
  // 3 words of 50 characters: 50 + 1 + 50 = 101 ≤ 120 share a line, the third starts the next.
  const w = "x".repeat(50);
  assert.deepEqual(wrapWords(`${w} ${w} ${w}`), [`${w} ${w}`, w]);
  // A word longer than the line stays whole; the lines joined with spaces give the text back.
  const long = `${"y".repeat(130)} z`;
  assert.deepEqual(wrapWords(long), ["y".repeat(130), "z"]);
  assert.equal(wrapWords(long).join(" "), long);
  const f = makeFigure({ id: "f", title: "T", disclosure: `${w} ${w} ${w}`, notes: [], data: [], layout: {} });
  assert.equal(f.layout.title.subtitle.text, `${w} ${w}<br>${w}`);
  // Top margin: the title block of 2 subtitle lines (12 + 26 + 2 × 16 = 70) and a 20 px gap.
  assert.equal(titleBlockHeight(2), 70);
  assert.deepEqual(f.layout.margin, { t: 90, r: 30, b: 60, l: 70 });
  // A spec's margin keys replace the defaults one by one.
  const wide = makeFigure({
    id: "g",
    title: "T",
    disclosure: "n",
    notes: [],
    data: [],
    layout: { margin: { l: 290 } },
  });
  assert.deepEqual(wide.layout.margin, { t: 74, r: 30, b: 60, l: 290 }); // 12 + 26 + 16 + 20
});

Deno.test("stageLabelRows() puts a stage name in the first row where it clears the name before it", () => {
  const stage = (name: string, kind: "warmup" | "steady" | "burst" | "drain", s: number, e: number) => ({
    name,
    kind,
    start_ms: s * 1000,
    end_ms: e * 1000,
    offered_rps: 1,
  });
  // 100 s over the 800 px the layout assumes: 8 px a second. "warmup" (its kind is its name: no suffix) is
  // 6 × 6.5 + 8 = 47 px = 5.875 s wide; "low (steady)" 12 × 6.5 + 8 = 86 px = 10.75 s; "peak (burst)" the same.
  const stages = [
    stage("warmup", "warmup", 0, 5),
    stage("low", "steady", 5, 12),
    stage("pause", "drain", 12, 14),
    stage("peak", "burst", 14, 100),
  ];
  const rows = stageLabelRows({ seconds: Array.from({ length: 100 }, (_, i) => i), stages, server: null });
  // warmup row 0 (ends 5.875); low at 5 s: row 0 is busy until 5.875 → row 1 (ends 15.75); the drain is not
  // labelled; peak at 14 s: row 0 is free (5.875 ≤ 14).
  assert.deepEqual(rows, [
    { start_s: 0, text: "warmup", row: 0 },
    { start_s: 5, text: "low (steady)", row: 1 },
    { start_s: 14, text: "peak (burst)", row: 0 },
  ]);
  const f = timelineFigure({
    seconds: [0, 1],
    offered: [1, 1],
    completed: [1, 1],
    accepted: [1, 1],
    in_flight: [0, 0],
    server: null,
    stages,
    outages: [],
    disclosure: "n = 2",
  });
  // Above the plot, 13 px a row; the top margin holds the title block (1 line: 54) and 2 rows + 12 px.
  assert.deepEqual(notes(f.layout).map((a) => [a.text, a.y, a.yshift]), [
    ["warmup", 1, 2],
    ["low (steady)", 1, 15],
    ["peak (burst)", 1, 2],
  ]);
  assert.equal((f.layout.margin as { t: number }).t, 54 + 26 + 12);
});

Deno.test("latencyCdfFigure() labels the SLO lines in one column right of the plot", () => {
  const f = latencyCdfFigure({
    metric: "e2e_ms",
    disclosure: "n = 8",
    series: [
      { class: "qa", values: [100, 200], offered: 4, limit_ms: 150 },
      { class: "json", values: [100, 300], offered: 4, limit_ms: 150 }, // the same limit: labels must not collide
    ],
  });
  assert.deepEqual(notes(f.layout).map((a) => [a.text, a.x, a.xref, a.xanchor, a.yshift]), [
    ["qa SLO 150 ms: 25 % within", 1, "paper", "left", 0], // 1 of 4 offered ≤ 150
    ["json SLO 150 ms: 25 % within", 1, "paper", "left", -16],
  ]);
  // The right margin holds the longest label: 30 + ⌈6.5 × 28⌉ = 30 + 182.
  assert.equal((f.layout.margin as { r: number }).r, 212);
});

const failures = (o: Partial<Record<string, number>>): GoodputRow["failures"] =>
  Object.fromEntries(FAILURE_REASONS.map((r) => [r, o[r] ?? 0])) as GoodputRow["failures"];
const grow = (offered: number, accepted: number, late: number): GoodputRow => ({
  offered,
  sent: offered,
  completed: offered,
  accepted,
  measurement_seconds: 10,
  accepted_goodput: accepted / 10,
  acceptance_rate: accepted / offered,
  slo_miss_rate: (offered - accepted) / offered,
  failures: failures({ late_e2e: late }),
});

Deno.test("failuresFigure() draws all on its own panel and scale, beside one bar per stage", () => {
  const result = {
    disclosure: {
      run_id: "r",
      denominator: "offered",
      window: { stages: ["a", "b"], measurement_seconds: 10 },
      n: { overall: 10 },
    },
    overall: grow(10, 6, 4),
    by_class: [],
    by_stage: [{ ...grow(4, 3, 1), stage: "a" }, { ...grow(6, 3, 3), stage: "b" }],
    by_class_stage: [],
    by_mode: [],
  } as unknown as GoodputResult;
  const f = failuresFigure(result, { by: "stage" });
  // accepted and late_e2e, each once per panel; the legend names each once.
  assert.deepEqual(f.data.map((t) => [t.name, t.xaxis, t.yaxis, t.showlegend]), [
    ["accepted", "x", "y", false],
    ["accepted", "x2", "y2", true],
    ["late_e2e", "x", "y", false],
    ["late_e2e", "x2", "y2", true],
  ]);
  assert.deepEqual(f.data[0]!.x, ["all"]);
  assert.deepEqual(f.data[1]!.x, ["a", "b"]);
  // all: 6 accepted + 4 late = 10 offered; a: 3 + 1 = 4; b: 3 + 3 = 6.
  assert.deepEqual([f.data[0]!.y, f.data[2]!.y], [[6], [4]]);
  assert.deepEqual([f.data[1]!.y, f.data[3]!.y], [[3, 3], [1, 3]]);
  const layout = f.layout as Record<string, { domain?: number[]; anchor?: string }>;
  assert.ok(layout.xaxis!.domain![1]! < layout.xaxis2!.domain![0]!, "the panels do not overlap");
  assert.equal(layout.yaxis2!.anchor, "x2");
});

const lrow = latencyRow;

Deno.test("latencyPercentilesFigure() draws an UNSUPPORTED bar hollow and hatched, with the n the rule needs", () => {
  const f = latencyPercentilesFigure([
    lrow({}),
    lrow({ stage: "peak", value: 1500, n: 40, upper: null, bound: null, supported: false }),
  ], { stages: ["low", "peak"] });
  const m = f.data[0]!.marker as { color: string[]; line: { width: number[] }; pattern: { shape: string[] } };
  assert.deepEqual(m.pattern.shape, ["", "/"]);
  assert.deepEqual(m.color, ["#1f77b4", "rgba(255,255,255,0)"]);
  assert.deepEqual(m.line.width, [0, 1.5]);
  // p99 at 99 %: 459 samples (0.99^459 = 0.0099 ≤ 0.01 < 0.99^458).
  const hover = (f.data[0]!.customdata as string[][])[1]![3];
  assert.match(hover!, /UNSUPPORTED: n = 40, the rule needs n ≥ 459/);
  const legend = f.layout.legend as { title: { text: string } };
  assert.match(legend.title.text, /hatched, hollow = UNSUPPORTED: n < 459/);
});

Deno.test("goodputVsLoadFigure() marks the chosen headroom among the limit lines and says why there is no knee", () => {
  const input = {
    levels: [{ label: "low", offered_rps: 2, accepted_goodput: 2, n: 20 }],
    knee_rps: 8,
    limits: [{ headroom: 0.1, rps: 7.2 }, { headroom: 0.2, rps: 6.4 }, { headroom: 0.5, rps: 4 }],
    disclosure: "n = 20",
  };
  const chosen = goodputVsLoadFigure({ ...input, headroom: 0.2 });
  // 8 × (1 − 0.2) = 6.4: solid and wider; the other choices dotted.
  assert.deepEqual(lines(chosen.layout).map((s) => [s.x0, s.line.dash, s.line.width]), [
    [8, "dash", 2],
    [7.2, "dot", 2],
    [6.4, "solid", 3],
    [4, "dot", 2],
  ]);
  assert.ok(notes(chosen.layout).some((a) => a.text === "<b>limit 6.4 rps (headroom 20 %, chosen)</b>"));
  assert.match(chosen.title, /\(knee 8 rps; limit 6\.4 rps at the chosen 20 % headroom\)/);
  assert.match(goodputVsLoadFigure(input).title, /\(knee 8 rps; no headroom chosen\)/);
  const none = goodputVsLoadFigure({
    ...input,
    knee_rps: null,
    limits: [],
    knee_note: "no knee found in 5 load levels",
  });
  assert.match(none.title, /\(no knee found in 5 load levels\)$/);
});
