import type { LedgerResult } from "./ledger.ts";
import type { QualityLedgerResult } from "./quality_ledger.ts";
import { intervalText, qualityLedgerLines } from "./_format_quality_ledger.ts";
import { LEDGER_ITEMS } from "./price_lines.ts";
import { NOT_PRICED_MARK } from "./_overhead_source.ts";
import type { CostRow } from "./price_rollup.ts";
import { fixed, sig } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";

/** Money to 4 significant digits, quantities to 6 ("-" for null). */
const QTY_DIGITS = 6;

/** A row of a cost table: under a measured quality source the accepted count may be an estimate, or not given. */
type TableRow = Omit<CostRow, "accepted"> & { accepted: number | null };

function costTable(label: string, rows: { name: string; row: TableRow; accepted?: string }[]): string[] {
  const items = LEDGER_ITEMS.filter((i) => rows.some((r) => r.row.cost[i] !== 0));
  return textTable(
    [label, "offered", "completed", "accepted", "total", "per accepted", "per offered", ...items],
    rows.map(({ name, row, accepted }) => [
      name,
      String(row.offered),
      String(row.completed),
      accepted ?? (row.accepted === null ? "-" : String(row.accepted)),
      sig(row.total),
      sig(row.cost_per_accepted_task),
      sig(row.cost_per_offered_request),
      ...items.map((i) => sig(row.cost[i])),
    ]),
    { left: 1 },
  );
}

/** One self-hosted target's paid time, for the disclosure. */
function gpuTimeLine(g: LedgerResult["gpu_time"][number]): string {
  const rs = g.replica_seconds;
  const states = (x: { busy: number; idle: number; warming: number }) =>
    `busy ${sig(x.busy, QTY_DIGITS)}, idle ${sig(x.idle, QTY_DIGITS)}, warming ${sig(x.warming, QTY_DIGITS)}`;
  return `GPU time of ${g.route} (gpu_time ${g.gpu_time}, from the ${g.basis}): run 0–${
    sig(g.run_end_ms, QTY_DIGITS)
  } ms ` +
    `(end: ${g.run_end_from}); window ${sig(g.window_seconds, QTY_DIGITS)} s of ${
      sig(g.measured_seconds, QTY_DIGITS)
    } measured s; ` +
    `outside every measured stage ${sig(g.outside_seconds, QTY_DIGITS)} s (${
      g.outside_parts.join(", ") || "none"
    }), share ` +
    `${sig(g.share, QTY_DIGITS)} ${g.gpu_time === "run" ? "charged here" : "listed at 0"}` +
    (rs ? `; replica-seconds in the window ${states(rs.window)}; outside ${states(rs.outside)}` : "");
}

/**
 * Renders a ledger as plain aligned text: the verdicts (an incomplete run
 * says so in its first line), the sheets with their dates, the
 * window and denominator, the pricing rules, each self-hosted target's paid
 * time, every line item (sources as a
 * numbered legend), then cost per accepted task beside the naive figures,
 * by route and by class. A {@linkcode QualityLedgerResult} (a measured quality source) shows its accepted
 * estimates with their intervals and adds the section "cost per accepted task by quality source".
 *
 * @example The price sheet's date comes first
 * ```ts ignore
 * console.log(formatLedger(ledger(run, policy, prices)));
 * ```
 */
export function formatLedger(
  r: LedgerResult | QualityLedgerResult,
  options: { verdicts?: string[]; header?: string[] } = {},
): string {
  const d = r.disclosure, o = r.overall, c = r.currency;
  // Under a measured quality source: the accepted counts may be estimates, each class's source is said.
  const q = "quality" in r ? r.quality : null;
  const count = (n: number, e: { accepted_low: number | null; accepted_high: number | null } | undefined) =>
    e && e.accepted_low !== null && e.accepted_high !== null
      ? `≈${fixed(n, 1)} [${fixed(e.accepted_low, 1)}, ${fixed(e.accepted_high, 1)}]`
      : String(n);
  const classCount = (name: string) => {
    const k = q?.by_class.find((x) => x.class === name);
    return k ? count(k.accepted, k) : undefined;
  };
  // First: the verdicts (`runVerdicts(...).lines`; by default an incomplete run's headline), then `header`.
  const verdicts = options.verdicts ?? (d.run_end.headline ? [d.run_end.headline] : []);
  const sources = [...new Set(r.lines.map((l) => l.source))];
  const lines = textTable(
    ["item", "route", "detail", "quantity", "unit", "unit price", "amount", "src"],
    r.lines.map((l) => [
      l.item,
      l.route ?? "-",
      l.detail,
      sig(l.quantity, QTY_DIGITS),
      l.unit,
      ...(l.source.startsWith(NOT_PRICED_MARK)
        ? [NOT_PRICED_MARK, NOT_PRICED_MARK]
        : [sig(l.unit_price), sig(l.amount)]),
      `[${sources.indexOf(l.source) + 1}]`,
    ]),
    { left: 3 },
  );
  const ratio = o.ratio_to_naive_per_request;
  return [
    ...verdicts,
    ...(options.header ?? []),
    `ledger of run ${d.run_id} (${d.files.dir}), currency ${c}`,
    `price sheet: ${r.pricing.price_sheet.name}, as of ${r.pricing.price_sheet.as_of} (${r.pricing.price_sheet.source})`,
    r.pricing.overheads
      ? `overheads: ${r.pricing.overheads.name}, as of ${r.pricing.overheads.as_of} (${r.pricing.overheads.source})`
      : "overheads: none given (retrieval, tools, storage, observability, review and operations shown at 0)",
    `accepted tasks as in goodput: denominator ${d.denominator}; window ${d.window.description}; measurement_seconds = ${d.window.measurement_seconds}; n = ${d.n.overall} offered (full disclosure: --json or npx deno task analyze)`,
    "pricing rules:",
    ...r.pricing.rules.map((s) => `  - ${s}`),
    ...serviceTierLines(r),
    ...r.gpu_time.map(gpuTimeLine),
    ...evaluationLines(r),
    ...[...d.warnings, ...r.pricing.warnings].map((w) => `WARNING: ${w}`),
    "",
    `line items (${c})`,
    ...lines,
    "sources:",
    ...sources.map((s, i) => `  [${i + 1}] ${s}`),
    "",
    `cost per accepted task (${c})`,
    `  total cost                         ${sig(o.total)}${
      o.unallocated ? ` (of which unallocated ${sig(o.unallocated)})` : ""
    }`,
    `  accepted tasks                     ${
      q ? count(o.accepted, q.overall) : o.accepted
    } of ${o.offered} offered (${o.completed} completed, ${o.sent} sent)`,
    `  cost per accepted task             ${sig(o.cost_per_accepted_task)}${q ? intervalText(q.overall) : ""}`,
    `  cost per offered request           ${sig(o.cost_per_offered_request)}`,
    `  naive: model bill / sent requests  ${sig(o.naive.per_request)}${
      ratio === null ? "" : `   (cost per accepted task is ${ratio.toFixed(2)} × this)`
    }`,
    `  naive: model bill per 1M tokens    ${sig(o.naive.per_mtok)}   (model bill ${
      sig(o.naive.model_bill)
    } over ${o.naive.tokens} tokens)`,
    "",
    "by route (requests.route)",
    ...costTable("route", r.by_route.map((x) => ({ name: x.route, row: x }))),
    "",
    "by class",
    ...costTable("class", r.by_class.map((x) => ({ name: x.class, row: x, accepted: classCount(x.class) }))),
    ...(q ? ["", ...qualityLedgerLines(q, c)] : []),
  ].join("\n");
}

/** The charged attempts of each hosted route by the service tier prices that applied, one line per route. */
function serviceTierLines(r: Pick<LedgerResult, "pricing">): string[] {
  const routes = [...new Set(r.pricing.service_tiers.map((t) => t.route))];
  return routes.map((route) =>
    `service tier prices, route ${route}: ${
      r.pricing.service_tiers.filter((t) => t.route === route).map((t) => `${t.applied} (${t.attempts} attempts)`).join(
        "; ",
      )
    }`
  );
}

/** How evaluation was charged: the basis of human review, and each judge part's recorded tokens. */
function evaluationLines(r: Pick<LedgerResult, "pricing">): string[] {
  const e = r.pricing.evaluation, h = e.human_review;
  const review = h.basis === "recorded"
    ? `human review: recorded minutes, ${sig(h.minutes, QTY_DIGITS)} min of ${h.verdicts_in_window} verdicts on the ` +
      `window's requests (${h.verdicts} in the quality table; ${h.sources.join(", ")})` +
      (h.no_time ? `, ${h.no_time} recording no time` : "")
    : h.basis === "expected"
    ? "human review: expected counts (the overheads sheet's sample and minutes; no human verdict recorded)"
    : null;
  const judges = e.judge.map((j) =>
    `judge ${
      j.models.join(", ")
    } (part ${j.part}, from the ${j.basis}): ${j.input_tokens} input + ${j.output_tokens} ` +
    `output tokens over ${j.items} judged items, of which calls on items left unjudged ${j.unjudged_input_tokens} + ` +
    `${j.unjudged_output_tokens}; charged to the window's ${j.items_in_window} items ${
      sig(j.charged_input_tokens, QTY_DIGITS)
    } + ${sig(j.charged_output_tokens, QTY_DIGITS)}` +
    (j.not_priced.length ? `; NOT PRICED: ${j.not_priced.join(", ")}` : "")
  );
  return [...(review ? [review] : []), ...judges];
}
