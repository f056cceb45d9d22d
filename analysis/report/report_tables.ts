/**
 * The report's tables, after its figures: goodput (overall, per class, per
 * stage), the latency table (collapsed: it runs to about 90 rows) and the
 * full disclosure (collapsed), each in a `<details>` element.
 *
 * @module
 */
import { sig } from "../../lib/number_format.ts";
import { FAILURE_ORDER } from "../goodput/classify.ts";
import type { GoodputResult, GoodputRow } from "../goodput/goodput.ts";
import { percentLabel } from "../latency/_percentile_checks.ts";
import { supportRuleText } from "../latency/early_stopping.ts";
import type { LatencyRow } from "../latency/latency.ts";
import { roundUp } from "../latency/round_display.ts";
import { escapeHtml as esc } from "../plots/html.ts";

function table(head: string[], rows: string[][]): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join("");
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("\n");
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** A collapsible section: `open` when it is short enough to show unasked. */
function details(id: string, summary: string, body: string, open = false): string {
  return `<details id="${id}"${open ? " open" : ""}><summary>${esc(summary)}</summary>\n${body}\n</details>`;
}

function goodputRows(rows: { name: string; row: GoodputRow }[]): string[][] {
  return rows.map(({ name, row }) => [
    name,
    String(row.offered),
    String(row.sent),
    String(row.completed),
    String(row.accepted),
    sig(row.measurement_seconds),
    sig(row.accepted_goodput),
    sig(row.acceptance_rate),
    sig(row.slo_miss_rate),
    FAILURE_ORDER.filter((f) => row.failures[f] > 0).map((f) => `${f}=${row.failures[f]}`).join(" ") || "-",
  ]);
}

/** The latency table's rows: every class (and all) over the whole window, for e2e, TTFT and TPOT. */
export function latencyTableRows(latency: LatencyRow[]): LatencyRow[] {
  return latency.filter((r) => r.stage === null && ["e2e_ms", "ttft_ms", "tpot_ms"].includes(r.metric));
}

/** The goodput tables (open), the latency table and the disclosure (collapsed), under one heading. */
export function tablesHtml(g: GoodputResult, latency: LatencyRow[], support: number): string {
  const d = g.disclosure;
  const head = ["", "offered", "sent", "completed", "accepted", "seconds", "goodput/s", "accept", "miss", "failures"];
  const rows = latencyTableRows(latency);
  const latRows = rows.map((r) => [
    r.class ?? "all",
    r.metric,
    `${percentLabel(r.p)}`,
    String(r.n),
    r.excluded === null
      ? "-"
      : `${r.excluded}${r.excluded_not_streamed ? ` (${r.excluded_not_streamed} not streamed)` : ""}`,
    sig(r.value),
    `[${sig(r.lower)}, ${r.upper === null ? "∞" : sig(r.upper)}]`,
    r.supported && r.bound !== null ? `≤ ${sig(roundUp(r.bound))}` : "UNSUPPORTED",
  ]);
  const slo = Object.entries(d.slo.classes).map(([c, s]) => [
    c,
    sig(s.e2e_ms ?? null),
    sig(s.ttft_ms ?? null),
    sig(s.tpot_ms ?? null),
    s.gates.join(", "),
    d.slo_rules[c] ?? "",
  ]);
  const rules = [
    `window: ${d.window.description} (${sig(d.window.measurement_seconds)} s)`,
    `denominator of the SLO miss rate: ${d.denominator}; acceptance rate = accepted / offered`,
    ...d.inclusion_rules,
    d.ttft_definition,
    d.tpot_definition,
    d.streaming_rule,
    d.gate_rule,
    d.slo_rules["(any other class)"]!,
  ];
  return [
    '<h2 id="tables">Tables</h2>',
    details(
      "goodput-tables",
      `Accepted goodput: all, per class (${g.by_class.length}), per stage (${g.by_stage.length})`,
      [
        table(head, goodputRows([{ name: "all", row: g.overall }])),
        table(["class", ...head.slice(1)], goodputRows(g.by_class.map((r) => ({ name: r.class, row: r })))),
        table(["stage", ...head.slice(1)], goodputRows(g.by_stage.map((r) => ({ name: r.stage, row: r })))),
      ].join("\n"),
      true,
    ),
    details(
      "latency-table",
      `Latency (${rows.length} rows): policy window; nearest-rank percentiles, 95 % distribution-free CI`,
      [
        `<p>${
          esc(
            `${supportRuleText(latency.map((r) => r.p), { confidence: support })}; a supported percentile is shown ` +
              'with its early-stopping bound (the smallest sample x at which the claim "percentile ≤ x" is ' +
              "supported; shown rounded up, never down), else UNSUPPORTED; excluded = completed requests without " +
              "the metric (a request that was not streamed has no TTFT or TPOT), not in n.",
          )
        }</p>`,
        table(
          ["class", "metric", "p", "n", "excluded", "value (ms)", "CI", `bound at ${sig(support * 100)} %`],
          latRows,
        ),
      ].join("\n"),
    ),
    details(
      "disclosure",
      "Disclosure: the SLO per class as applied, the window, inclusion rules, definitions",
      [
        table(["class", "e2e ≤ ms", "TTFT ≤ ms", "TPOT ≤ ms", "gates required", "as applied in the window"], slo),
        `<ul>${rules.map((r) => `<li>${esc(r)}</li>`).join("")}</ul>`,
      ].join("\n"),
    ),
  ].join("\n");
}

/** The tables' CSS. */
export const TABLES_CSS =
  `details{margin:0 0 16px}summary{cursor:pointer;font-weight:600;font-size:15px;margin:0 0 6px}`;
