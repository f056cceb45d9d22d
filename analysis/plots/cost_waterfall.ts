/**
 * The cost waterfall of a ledger: each cost component stacked to the total,
 * and the total divided by accepted tasks.
 *
 * @module
 */
import type { GpuTimeSummary, LedgerResult } from "../cost/ledger.ts";
import { LEDGER_ITEMS } from "../cost/price_lines.ts";
import { type Figure, makeFigure } from "./figure.ts";
import { sig } from "../../lib/number_format.ts";

/** The input of {@linkcode costWaterfallFigure}: a ledger's components and its accepted tasks. */
export interface CostWaterfallInput {
  /** e.g. "USD". */
  currency: string;
  /** Cost components in display order (provider or GPU, retrieval, tools, storage, observability, retries, human review, operations ...). */
  components: { name: string; amount: number; note?: string }[];
  /** Accepted tasks: the only denominator of cost per accepted task. */
  accepted_tasks: number;
  /** One line: run, price sheet, window, n. */
  disclosure: string;
}

/**
 * The cost waterfall input of a ledger: one component per ledger item (in
 * the design formula's order, zeros included so an unpriced item shows),
 * the overall accepted tasks, and the sheets, window and self-hosted GPU
 * time rule in the disclosure.
 */
export function ledgerWaterfall(l: LedgerResult): CostWaterfallInput {
  const d = l.disclosure;
  return {
    currency: l.currency,
    components: LEDGER_ITEMS.map((item) => ({ name: item, amount: l.overall.cost[item] })),
    accepted_tasks: l.overall.accepted,
    disclosure: `run ${d.run_id}; prices ${l.pricing.price_sheet.name} (as of ${l.pricing.price_sheet.as_of}); ` +
      `overheads ${
        l.pricing.overheads?.name ?? "not priced"
      }; window ${d.window.description}; n = ${l.overall.offered}${gpuTimeNote(l.gpu_time)}`,
  };
}

/**
 * How each self-hosted target's time was charged, for a figure's disclosure
 * ("" when the ledger has none).
 *
 * @example
 * ```ts
 * import { gpuTimeNote } from "./cost_waterfall.ts";
 * import assert from "node:assert/strict";
 * const g = { route: "sh", gpu_time: "run" as const, run_end_ms: 39_000, outside_seconds: 18, share: 1 };
 * assert.equal(gpuTimeNote([g]), "; sh: GPU time of the whole 39 s run, 18 s outside the measured stages × share 1");
 * ```
 */
export function gpuTimeNote(
  targets: readonly Pick<GpuTimeSummary, "route" | "gpu_time" | "run_end_ms" | "outside_seconds" | "share">[],
): string {
  return targets.map((g) =>
    g.gpu_time === "run"
      ? `; ${g.route}: GPU time of the whole ${sig(g.run_end_ms / 1000)} s run, ${
        sig(g.outside_seconds)
      } s outside the measured stages × share ${sig(g.share)}`
      : `; ${g.route}: GPU time of the window only (gpu_time window)`
  ).join("");
}

/**
 * A waterfall of the ledger: one bar per component, then the total; the
 * title carries the cost per accepted task (total / accepted tasks; "-" when
 * none was accepted). Failed attempts, retries and review stay in the
 * numerator. One trace.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { costWaterfallFigure } from "./cost_waterfall.ts";
 * const f = costWaterfallFigure({ currency: "USD", accepted_tasks: 4, disclosure: "n = 5",
 *   components: [{ name: "provider", amount: 1.5 }, { name: "retries", amount: 0.5 }] });
 * assert.deepEqual(f.data[0]!.measure, ["relative", "relative", "total"]);
 * assert.match(f.title, /0\.5 USD per accepted task/); // (1.5 + 0.5) / 4
 * ```
 */
export function costWaterfallFigure(result: LedgerResult): Figure;
/** The waterfall of a prepared input (the report's extras, tests). */
export function costWaterfallFigure(input: CostWaterfallInput): Figure;
export function costWaterfallFigure(from: LedgerResult | CostWaterfallInput): Figure {
  const input = "components" in from ? from : ledgerWaterfall(from);
  const bad = input.components.filter((c) => !Number.isFinite(c.amount));
  if (bad.length) throw new RangeError(`costWaterfallFigure: non-finite amounts: ${bad.map((c) => c.name).join(", ")}`);
  if (!(Number.isInteger(input.accepted_tasks) && input.accepted_tasks >= 0)) {
    throw new RangeError(
      `costWaterfallFigure: accepted_tasks must be a non-negative integer, got ${input.accepted_tasks}`,
    );
  }
  const total = input.components.reduce((s, c) => s + c.amount, 0);
  const per = input.accepted_tasks ? total / input.accepted_tasks : null;
  const cur = input.currency;
  return makeFigure({
    id: "cost-waterfall",
    title: `Cost ledger: ${sig(total)} ${cur} total, ${sig(per)} ${cur} per accepted task`,
    disclosure: `${input.disclosure}; denominator accepted tasks = ${input.accepted_tasks}`,
    notes: [
      "cost per accepted task = every cost of the run (failed attempts, retries and review included) / accepted tasks",
      ...input.components.filter((c) => c.note).map((c) => `${c.name}: ${c.note}`),
    ],
    data: [{
      type: "waterfall",
      name: "cost",
      orientation: "v",
      measure: [...input.components.map(() => "relative"), "total"],
      x: [...input.components.map((c) => c.name), "total"],
      y: [...input.components.map((c) => c.amount), 0],
      text: [...input.components.map((c) => sig(c.amount)), sig(total)],
      textposition: "outside",
      connector: { line: { color: "#999999" } },
      hovertemplate: `%{x}: %{y:.4f} ${cur}<extra></extra>`,
    }],
    layout: {
      xaxis: { type: "category" },
      yaxis: { title: { text: cur } },
      showlegend: false,
    },
  });
}
