import { latencyRow } from "../_fixture.ts";
import assert from "node:assert/strict";
import { alternativesFigure } from "../../../analysis/plots/alternatives_chart.ts";
import { costWaterfallFigure } from "../../../analysis/plots/cost_waterfall.ts";
import { goodputVsLoadFigure } from "../../../analysis/plots/goodput_vs_load.ts";
import { latencyCdfFigure } from "../../../analysis/plots/latency_cdf.ts";
import { latencyPercentilesFigure } from "../../../analysis/plots/latency_percentiles.ts";
import { routeComparisonFigure } from "../../../analysis/plots/route_comparison.ts";
import { sloSweepFigure } from "../../../analysis/plots/slo_sweep.ts";
import { timelineFigure } from "../../../analysis/plots/timeline.ts";
import { sloSweep } from "../../../analysis/latency/sweep.ts";

type Shape = { type: string; x0: number; x1: number; fillcolor?: string; line?: { dash?: string } };
const shapes = (layout: Record<string, unknown>) => (layout.shapes ?? []) as Shape[];
const texts = (layout: Record<string, unknown>) =>
  ((layout.annotations ?? []) as { text: string }[]).map((a) => a.text);

Deno.test("goodputVsLoadFigure() sorts levels by load and marks the knee and each limit", async (t) => {
  const input = {
    levels: [
      { label: "peak", offered_rps: 10, accepted_goodput: 6, n: 100 },
      { label: "low", offered_rps: 2, accepted_goodput: 2, n: 20 },
    ],
    knee_rps: 8,
    knee_signal: "p99 e2e",
    limits: [{ headroom: 0.2, rps: 6.4 }, { headroom: 0.5, rps: 4 }],
    disclosure: "denominator offered; window low+peak (20 s); n = 120 offered",
  };
  await t.step("points and reference line", () => {
    const f = goodputVsLoadFigure(input);
    assert.equal(f.data.length, 2);
    assert.deepEqual(f.data[0]!.x, [2, 10]);
    assert.deepEqual(f.data[0]!.y, [2, 6]);
    assert.equal(f.layout.title.subtitle.text, input.disclosure);
    assert.match(f.title, /knee 8 rps/);
  });
  await t.step("knee dashed, limits dotted, labelled with their headroom", () => {
    const f = goodputVsLoadFigure(input);
    assert.deepEqual(shapes(f.layout).map((s) => [s.x0, s.line?.dash]), [[8, "dash"], [6.4, "dot"], [4, "dot"]]);
    assert.ok(texts(f.layout).includes("limit 6.4 rps (headroom 20 %)"));
    assert.ok(texts(f.layout).includes("knee 8 rps (p99 e2e)"));
  });
  await t.step("labels round a knee or limit down, never up; the lines stand at the exact values", () => {
    // 7.5 × (1 − 0.095) = 6.7875: 4 significant digits down is 6.787 (to nearest would be 6.788).
    // Knee 9.05678 → 9.056 (to nearest would be 9.057).
    const f = goodputVsLoadFigure({ ...input, knee_rps: 9.05678, limits: [{ headroom: 0.095, rps: 6.7875 }] });
    assert.deepEqual(shapes(f.layout).map((s) => s.x0), [9.05678, 6.7875]);
    assert.ok(texts(f.layout).includes("limit 6.787 rps (headroom 9.5 %)"), texts(f.layout).join(" | "));
    assert.ok(texts(f.layout).includes("knee 9.056 rps (p99 e2e)"), texts(f.layout).join(" | "));
    assert.match(f.title, /knee 9\.056 rps/);
    assert.ok(f.notes.some((n) => /rounded down to 4 significant digits, never up/.test(n)));
  });
  await t.step("no knee: nothing marked, the title says so", () => {
    const f = goodputVsLoadFigure({ ...input, knee_rps: null, limits: [] });
    assert.equal(shapes(f.layout).length, 0);
    assert.match(f.title, /knee not computed/);
  });
});

const row = latencyRow;

Deno.test("latencyPercentilesFigure() draws one trace per class with CI error bars and n on hover", () => {
  const rows = [
    row({}),
    row({ stage: "peak", value: 1500, n: 40, lower: 1200, upper: null, bound: null, supported: false }),
    row({ class: "json", value: 400, n: 50, lower: 300, upper: 500 }),
    row({ class: null, value: 1 }), // overall rows are not drawn
    row({ metric: "ttft_ms", value: 2 }), // another metric
  ];
  const f = latencyPercentilesFigure(rows, { stages: ["peak", "low"] });
  assert.deepEqual(f.data.map((d) => d.name), ["json", "qa"]);
  const qa = f.data[1]!;
  assert.deepEqual(qa.x, ["peak", "low"]);
  assert.deepEqual(qa.y, [1500, 900]);
  // Upper error = upper − value (990 − 900 = 90); unsupported: no upper bound drawn, lower 1500 − 1200 = 300.
  assert.deepEqual((qa.error_y as { array: number[] }).array, [0, 90]);
  assert.deepEqual((qa.error_y as { arrayminus: number[] }).arrayminus, [300, 50]);
  assert.equal((qa.customdata as unknown[][])[0]![0], 40);
  assert.equal((qa.customdata as unknown[][])[0]![2], "∞");
  assert.match(String((qa.customdata as unknown[][])[0]![3]), /UNSUPPORTED/);
  assert.equal((qa.customdata as unknown[][])[1]![3], "");
  // n = 500 + 40 + 50 over the drawn bars.
  assert.match(f.disclosure, /n = 590 /);
  assert.match(f.disclosure, /1 bars UNSUPPORTED/);
  // The rule and its confidence: p99 needs 459 samples at 99 % (0.99^459 = 0.0099 ≤ 0.01).
  assert.match(f.disclosure, /early-stopping rule at 99 % one-sided confidence \(n ≥ 459 for p99\)/);
  assert.throws(() => latencyPercentilesFigure(rows, { p: 0.5 }), RangeError);
});

Deno.test("latencyCdfFigure() counts shares of offered requests and the share within each SLO", () => {
  const f = latencyCdfFigure({
    metric: "e2e_ms",
    disclosure: "n = 10",
    series: [
      { class: "qa", values: [300, 100, 200, 400], offered: 5, limit_ms: 250 },
      { class: "json", values: [50], offered: 1, limit_ms: null },
    ],
  });
  assert.equal(f.data.length, 2);
  assert.deepEqual(f.data[0]!.x, [100, 200, 300, 400]);
  assert.deepEqual(f.data[0]!.y, [0.2, 0.4, 0.6, 0.8]); // tops out at 4 completed / 5 offered
  assert.equal(shapes(f.layout).length, 1);
  assert.equal(shapes(f.layout)[0]!.x0, 250);
  assert.deepEqual(texts(f.layout), ["qa SLO 250 ms: 40 % within"]); // 2 of 5 offered ≤ 250
  const thinned = latencyCdfFigure({
    metric: "ttft_ms",
    disclosure: "",
    series: [{ class: "qa", values: Array.from({ length: 1000 }, (_, i) => i + 1), offered: 1000, limit_ms: null }],
  }, { maxPoints: 11 });
  // Ranks round(k · 999 / 10), k = 0…10: 0, 100, 200, 300, 400, 500 (499.5), 599, 699, 799, 899, 999; value = rank + 1.
  assert.deepEqual(thinned.data[0]!.x, [1, 101, 201, 301, 401, 501, 600, 700, 800, 900, 1000]);
});

Deno.test("timelineFigure() adds the server panel and shades bursts and outages", () => {
  const base = {
    seconds: [0, 1, 2],
    offered: [2, 1, 0],
    completed: [0, 1, 1],
    accepted: [0, 1, 0],
    in_flight: [0, 2, 1],
    stages: [
      { name: "low", kind: "steady" as const, start_ms: 0, end_ms: 1000, offered_rps: 2 },
      { name: "spike", kind: "burst" as const, start_ms: 1000, end_ms: 2000, offered_rps: 1 },
    ],
    outages: [],
    disclosure: "n = 3",
  };
  const plainRun = timelineFigure({ ...base, server: null });
  assert.equal(plainRun.data.length, 4);
  assert.equal(plainRun.layout.yaxis2, undefined);
  const full = timelineFigure({
    ...base,
    server: { t_s: [0, 1, 2], queue_len: [0, 3, 1], running: [1, 2, 1], replicas: [1, 1, 2] },
    outages: [{ start_ms: 1500, end_ms: 1800, label: "503" }],
  });
  assert.deepEqual(full.data.map((d) => d.name), [
    "offered/s",
    "completed/s",
    "accepted/s",
    "in flight (calls)",
    "queue length",
    "running",
    "replicas",
  ]);
  assert.equal(full.data[4]!.yaxis, "y2");
  const bands = shapes(full.layout).filter((s) => s.type === "rect");
  assert.deepEqual(bands.map((b) => [b.x0, b.x1, b.fillcolor]), [[1, 2, "#ff7f0e"], [1.5, 1.8, "#d62728"]]);
  assert.ok(texts(full.layout).includes("503"));
});

Deno.test("sloSweepFigure() marks each class's policy limit on its curve", () => {
  const curve = sloSweep([100, 200, 300], [100, 150, 200, 400], { denominator: 6, measurement_seconds: 3 });
  const f = sloSweepFigure({
    metric: "e2e_ms",
    denominator: "offered",
    disclosure: "denominator offered; n = 6",
    series: [{ class: "qa", curve, limit_ms: 200 }, { class: "free", curve, limit_ms: null }],
  });
  assert.equal(f.data.length, 3); // two lines, one marker
  assert.deepEqual(f.data[0]!.y, [1 / 6, 1 / 6, 2 / 6, 3 / 6]);
  assert.deepEqual(f.data[1]!.x, [200]);
  assert.deepEqual(f.data[1]!.y, [2 / 6]);
});

Deno.test("costWaterfallFigure() stacks the components and divides by accepted tasks only", () => {
  const f = costWaterfallFigure({
    currency: "USD",
    accepted_tasks: 8,
    disclosure: "price sheet p1",
    components: [{ name: "provider", amount: 3 }, { name: "retries", amount: 0.6 }, { name: "review", amount: 0.4 }],
  });
  assert.equal(f.data.length, 1);
  assert.deepEqual(f.data[0]!.x, ["provider", "retries", "review", "total"]);
  assert.match(f.title, /4 USD total, 0\.5 USD per accepted task/); // (3 + 0.6 + 0.4) / 8
  assert.match(f.disclosure, /accepted tasks = 8/);
  const none = costWaterfallFigure({ currency: "USD", accepted_tasks: 0, disclosure: "", components: [] });
  assert.match(none.title, /- USD per accepted task/);
  assert.throws(
    () =>
      costWaterfallFigure({
        currency: "USD",
        accepted_tasks: 1,
        disclosure: "",
        components: [{ name: "x", amount: NaN }],
      }),
    RangeError,
  );
});

Deno.test("routeComparisonFigure() puts each measure on its own panel with n per route", () => {
  const f = routeComparisonFigure({
    currency: "EUR",
    disclosure: "same plan",
    routes: [
      { route: "hosted", accepted_goodput: 4, acceptance_rate: 0.9, cost_per_accepted_task: 0.02, n: 120 },
      { route: "self", accepted_goodput: 5, acceptance_rate: 0.8, cost_per_accepted_task: 0.01, n: 110 },
    ],
  });
  assert.deepEqual(f.data.map((d) => [d.xaxis, d.yaxis]), [["x", "y"], ["x2", "y2"], ["x3", "y3"]]);
  assert.deepEqual(f.data[0]!.y, [4, 5]);
  assert.deepEqual(f.data[1]!.y, [0.9, 0.8]);
  assert.match(f.disclosure, /n = 120 \/ 110 offered/);
});

Deno.test("alternativesFigure() plots goodput per rule variant and the miss rate per denominator", () => {
  const d = (den: "offered" | "sent" | "completed", window: "policy" | "whole_run", accepted: number, D: number) => ({
    denominator: den,
    slo: "strict" as const,
    gates: "on" as const,
    window,
    quality: "policy",
    accepted,
    estimate: null,
    D,
    measurement_seconds: 10,
    accepted_goodput: accepted / 10,
    acceptance_rate: accepted / 20,
    slo_miss_rate: (D - accepted) / D,
    differs_from_headline: false,
    disclosure: {
      run_id: "r",
      denominator: den,
      window: { stages: ["low"], measurement_seconds: 10 },
      n: { overall: 20 },
    } as never,
  });
  const rows = [
    d("offered", "policy", 5, 20),
    d("sent", "policy", 5, 16),
    d("completed", "policy", 5, 10),
    { ...d("offered", "whole_run", 6, 30), differs_from_headline: true },
    { ...d("sent", "whole_run", 6, 24), differs_from_headline: true },
    { ...d("completed", "whole_run", 6, 12), differs_from_headline: true },
  ];
  const f = alternativesFigure({ class: null, lenient_factor: 2, headline: rows[0]!, rows, refused: [] });
  assert.equal(f.data.length, 4);
  assert.deepEqual(f.data[0]!.x, [0.5, 0.6]);
  assert.deepEqual(f.data[0]!.y, ["policy · strict · gates on ★", "whole_run · strict · gates on"]);
  // Miss rates: offered (20 − 5)/20, (30 − 6)/30; completed (10 − 5)/10, (12 − 6)/12.
  assert.deepEqual(f.data[1]!.x, [0.75, 0.8]);
  assert.deepEqual(f.data[3]!.x, [0.5, 0.5]);
  assert.match(f.title, /6 rule variants \(3 differ\)/);
});
