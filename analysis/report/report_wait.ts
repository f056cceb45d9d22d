/**
 * The report's "where the wait went" section: per population (accepted, completed), a table of every segment of the
 * wait per class and overall, with the rules that split it.
 *
 * @module
 */
import { sig } from "../../lib/number_format.ts";
import { WAIT_SEGMENTS, type WaitBreakdownResult, type WaitBreakdownRow } from "../latency/wait_breakdown.ts";
import { escapeHtml as esc } from "../plots/html.ts";

const pct = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(1)} %`);

function table(rows: WaitBreakdownRow[]): string {
  const head = ["segment", ...rows.map((r) => `${r.class ?? "all"} (n ${r.n})`)];
  const cells = [
    ...WAIT_SEGMENTS.map((s) => [
      s,
      ...rows.map((r) => {
        const g = r.segments[s];
        return g.n === 0
          ? "n/a"
          : `${pct(g.mean_share)} (pooled ${pct(g.pooled_share)}); ${sig(g.median_ms)} / ${sig(g.p95_ms)} ms; n ${g.n}`;
      }),
    ]),
    [
      "outside the model server",
      ...rows.map((r) =>
        `${pct(r.outside_model.mean_share)} (pooled ${pct(r.outside_model.pooled_share)}); ${
          sig(r.outside_model.median_ms)
        } / ${sig(r.outside_model.p95_ms)} ms`
      ),
    ],
    ["e2e", ...rows.map((r) => `${sig(r.e2e.median_ms)} / ${sig(r.e2e.p95_ms)} ms`)],
  ];
  const th = head.map((h) => `<th>${esc(h)}</th>`).join("");
  const body = cells.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("\n");
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/**
 * The section as HTML: a `<details id="wait-breakdown-table">` (open), one table per population — a row per segment
 * (mean share, pooled share, median / p95 ms, n; n/a when no task measured it), then the wait outside the model
 * server and e2e — and every rule of the split.
 */
export function waitHtml(w: WaitBreakdownResult): string {
  const d = w.disclosure;
  const r = d.rules;
  const rules = [
    r.e2e,
    ...WAIT_SEGMENTS.map((s) => `${s}: ${r.segments[s]}`),
    r.overlap,
    r.measured,
    r.share,
    r.percentiles,
    r.outside_model,
    r.accepted,
    r.completed,
    ...(d.phases.tasks_with_phases
      ? [`${d.phases.tasks_with_phases} of ${d.n.completed} completed tasks have phase rows; ${r.clock}`]
      : []),
    ...Object.entries(d.not_measured).map(([s, why]) => `${s}: n/a: ${why}`),
    ...(d.excluded ? [`${d.excluded} completed tasks left out: no completed_ms at or after scheduled_ms`] : []),
  ];
  const populations = (["accepted", "completed"] as const).map((p) =>
    `<p><b>${p} tasks (${p === "accepted" ? d.n.accepted : d.n.completed})</b></p>\n${
      table(w.rows.filter((x) => x.population === p))
    }`
  );
  return [
    `<details id="wait-breakdown-table" open><summary>${
      esc(`Where the wait went: each task's e2e wait split into disjoint segments (${d.run_kind} run)`)
    }</summary>`,
    `<p>${
      esc(
        "Each cell: mean share of the e2e wait over the tasks that measured the segment (pooled: its share of all " +
          "the waiting time), median / p95 ms (nearest rank), n tasks; n/a: no task measured it (not 0).",
      )
    }</p>`,
    ...populations,
    `<ul>${rules.map((x) => `<li>${esc(x)}</li>`).join("")}</ul>`,
    "</details>",
  ].join("\n");
}
