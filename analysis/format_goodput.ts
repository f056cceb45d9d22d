import { FAILURE_ORDER, GATE_ORDER } from "./classify.ts";
import type { GoodputResult, GoodputRow } from "./goodput.ts";

const num = (v: number | null, digits: number): string => (v === null ? "-" : v.toFixed(digits));

function table(title: string, label: string, rows: { name: string; row: GoodputRow }[]): string[] {
  const head = [
    label,
    "offered",
    "sent",
    "completed",
    "accepted",
    "seconds",
    "goodput/s",
    "accept",
    "miss",
    "failures",
  ];
  const body = rows.map(({ name, row }) => [
    name,
    String(row.offered),
    String(row.sent),
    String(row.completed),
    String(row.accepted),
    num(row.measurement_seconds, 1),
    num(row.accepted_goodput, 4),
    num(row.acceptance_rate, 4),
    num(row.slo_miss_rate, 4),
    FAILURE_ORDER.filter((f) => row.failures[f] > 0).map((f) => `${f}=${row.failures[f]}`).join(" ") || "-",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ").trimEnd();
  return [title, line(head), ...body.map(line)];
}

/**
 * Renders a goodput result as plain aligned text: the disclosure first,
 * then the overall, by-class and by-stage tables.
 *
 * @example The disclosure comes before the numbers
 * ```ts ignore
 * console.log(formatGoodput(goodput(run, policy)));
 * ```
 */
export function formatGoodput(result: GoodputResult): string {
  const d = result.disclosure;
  const na = GATE_ORDER.filter((g) => d.gates_not_applicable.overall[g] > 0)
    .map((g) => `${g} ${d.gates_not_applicable.overall[g]}`);
  const out = [
    `run ${d.run_id} (${d.files.dir}; ${d.files.format}${
      d.files.shards > 1 ? `, ${d.files.shards} shards` : ""
    }; read ${d.files.read.join(", ")})`,
    `denominator: ${d.denominator}`,
    `window: ${d.window.description}; measurement_seconds = ${d.window.measurement_seconds}`,
    "inclusion rules:",
    ...d.inclusion_rules.map((r) => `  - ${r}`),
    `TTFT: ${d.ttft_definition}`,
    `TPOT: ${d.tpot_definition}`,
    `streaming: ${d.streaming_rule}`,
    `gates: ${d.gate_rule}`,
    "SLO per class (as applied in the window):",
    ...Object.values(d.slo_rules).map((r) => `  ${r}`),
    `gates passed as n/a (completed requests whose case does not define the gate): ${na.join(", ") || "none"}`,
    ...d.warnings.map((w) => `WARNING: ${w}`),
    "",
    ...table("overall", "", [{ name: "all", row: result.overall }]),
    "",
    ...table("by class", "class", result.by_class.map((r) => ({ name: r.class, row: r }))),
    "",
    ...table("by stage", "stage", result.by_stage.map((r) => ({ name: r.stage, row: r }))),
  ];
  return out.join("\n");
}
