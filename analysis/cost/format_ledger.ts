import type { LedgerResult } from "./ledger.ts";
import { LEDGER_ITEMS } from "./price_lines.ts";
import type { CostRow } from "./price_rollup.ts";

/** Money and quantities to 4 and 6 significant digits ("-" for null). */
const money = (v: number | null) => (v === null ? "-" : v === 0 ? "0" : String(+v.toPrecision(4)));
const qty = (v: number) => String(+v.toPrecision(6));

function table(head: string[], body: string[][], leftCols: number): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < leftCols ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ").trimEnd();
  return [line(head), ...body.map(line)];
}

function costTable(label: string, rows: { name: string; row: CostRow }[]): string[] {
  const items = LEDGER_ITEMS.filter((i) => rows.some((r) => r.row.cost[i] !== 0));
  return table(
    [label, "offered", "completed", "accepted", "total", "per accepted", "per offered", ...items],
    rows.map(({ name, row }) => [
      name,
      String(row.offered),
      String(row.completed),
      String(row.accepted),
      money(row.total),
      money(row.cost_per_accepted_task),
      money(row.cost_per_offered_request),
      ...items.map((i) => money(row.cost[i])),
    ]),
    1,
  );
}

/** One self-hosted target's paid time, for the disclosure. */
function gpuTimeLine(g: LedgerResult["gpu_time"][number]): string {
  const rs = g.replica_seconds;
  const states = (x: { busy: number; idle: number; warming: number }) =>
    `busy ${qty(x.busy)}, idle ${qty(x.idle)}, warming ${qty(x.warming)}`;
  return `GPU time of ${g.route} (gpu_time ${g.gpu_time}, from the ${g.basis}): run 0–${qty(g.run_end_ms)} ms ` +
    `(end: ${g.run_end_from}); window ${qty(g.window_seconds)} s of ${qty(g.measured_seconds)} measured s; ` +
    `outside every measured stage ${qty(g.outside_seconds)} s (${g.outside_parts.join(", ") || "none"}), share ` +
    `${qty(g.share)} ${g.gpu_time === "run" ? "charged here" : "listed at 0"}` +
    (rs ? `; replica-seconds in the window ${states(rs.window)}; outside ${states(rs.outside)}` : "");
}

/**
 * Renders a ledger as plain aligned text: the verdicts (an incomplete run
 * says so in its first line), the sheets with their dates, the
 * window and denominator, the pricing rules, each self-hosted target's paid
 * time, every line item (sources as a
 * numbered legend), then cost per accepted task beside the naive figures,
 * by route and by class.
 *
 * @example The price sheet's date comes first
 * ```ts ignore
 * console.log(formatLedger(ledger(run, policy, prices)));
 * ```
 */
export function formatLedger(r: LedgerResult, options: { verdicts?: string[]; header?: string[] } = {}): string {
  const d = r.disclosure, o = r.overall, c = r.currency;
  // First: the verdicts (`runVerdicts(...).lines`; by default an incomplete run's headline), then `header`.
  const verdicts = options.verdicts ?? (d.run_end.headline ? [d.run_end.headline] : []);
  const sources = [...new Set(r.lines.map((l) => l.source))];
  const lines = table(
    ["item", "route", "detail", "quantity", "unit", "unit price", "amount", "src"],
    r.lines.map((l) => [
      l.item,
      l.route ?? "-",
      l.detail,
      qty(l.quantity),
      l.unit,
      money(l.unit_price),
      money(l.amount),
      `[${sources.indexOf(l.source) + 1}]`,
    ]),
    3,
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
    `accepted tasks as in goodput: denominator ${d.denominator}; window ${d.window.description}; measurement_seconds = ${d.window.measurement_seconds}; n = ${d.n.overall} offered (full disclosure: --json or deno task analyze)`,
    "pricing rules:",
    ...r.pricing.rules.map((s) => `  - ${s}`),
    ...r.gpu_time.map(gpuTimeLine),
    ...[...d.warnings, ...r.pricing.warnings].map((w) => `WARNING: ${w}`),
    "",
    `line items (${c})`,
    ...lines,
    "sources:",
    ...sources.map((s, i) => `  [${i + 1}] ${s}`),
    "",
    `cost per accepted task (${c})`,
    `  total cost                         ${money(o.total)}${
      o.unallocated ? ` (of which unallocated ${money(o.unallocated)})` : ""
    }`,
    `  accepted tasks                     ${o.accepted} of ${o.offered} offered (${o.completed} completed, ${o.sent} sent)`,
    `  cost per accepted task             ${money(o.cost_per_accepted_task)}`,
    `  cost per offered request           ${money(o.cost_per_offered_request)}`,
    `  naive: model bill / sent requests  ${money(o.naive.per_request)}${
      ratio === null ? "" : `   (cost per accepted task is ${ratio.toFixed(2)} × this)`
    }`,
    `  naive: model bill per 1M tokens    ${money(o.naive.per_mtok)}   (model bill ${
      money(o.naive.model_bill)
    } over ${o.naive.tokens} tokens)`,
    "",
    "by route (requests.route)",
    ...costTable("route", r.by_route.map((x) => ({ name: x.route, row: x }))),
    "",
    "by class",
    ...costTable("class", r.by_class.map((x) => ({ name: x.class, row: x }))),
  ].join("\n");
}
