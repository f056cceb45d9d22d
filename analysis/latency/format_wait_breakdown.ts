import { sig } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";
import type { WaitBreakdownResult, WaitBreakdownRow, WaitSegmentStats } from "./wait_breakdown.ts";
import { CHARGE_ORDER, WAIT_SEGMENTS } from "./_wait_intervals.ts";

const pct = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(1)} %`);
const ms = (x: number | null) => sig(x, 3);

/**
 * One segment's cell: mean share, median/p95 ms, and n when fewer tasks than the group's measured it; `n/a` when
 * none did.
 */
function cell(s: WaitSegmentStats, groupN: number): string {
  if (s.n === 0) return "n/a";
  return `${pct(s.mean_share)} ${ms(s.median_ms)}/${ms(s.p95_ms)}${s.n < groupN ? ` (n ${s.n})` : ""}`;
}

/** One population's table: a row per segment (then e2e and outside the model), a column per class and `all`. */
function populationTable(rows: WaitBreakdownRow[]): string[] {
  const head = ["segment", ...rows.map((r) => `${r.class ?? "all"} (n ${r.n})`)];
  const body = [
    ...WAIT_SEGMENTS.map((s) => [s, ...rows.map((r) => cell(r.segments[s], r.n))]),
    [
      "outside model",
      ...rows.map((r) =>
        `${pct(r.outside_model.mean_share)} ${ms(r.outside_model.median_ms)}/${ms(r.outside_model.p95_ms)} pooled ${
          pct(r.outside_model.pooled_share)
        }`
      ),
    ],
    ["e2e", ...rows.map((r) => `${ms(r.e2e.median_ms)}/${ms(r.e2e.p95_ms)}`)],
  ];
  return textTable(head, body, { left: 1 });
}

/**
 * The wait breakdown as plain text: the rules in one paragraph, then one table per population (accepted, completed),
 * a row per segment and a column per class and overall, each cell `mean share median/p95 ms (n)`; `n/a` where no
 * task measured the segment, with why below; then the clock note when the run has page phases.
 *
 * @example
 * ```ts ignore
 * console.log(formatWaitBreakdown(waitBreakdown(run, policy)));
 * ```
 */
export function formatWaitBreakdown(result: WaitBreakdownResult): string {
  const d = result.disclosure;
  const order = CHARGE_ORDER.map((c) => (c.source === "send_lag" ? "send lag" : c.segment)).join(", ");
  const out = [
    `where the wait went (${d.run_kind} run ${d.run_id}; completed tasks scheduled in the window, ${d.window.description}): ` +
    `each task's e2e wait (completed_ms − scheduled_ms) split into disjoint segments, an instant charged once, to the ` +
    `first of ${order}; cell = mean share of e2e, median/p95 ms (nearest rank), (n tasks that measured it, when ` +
    "fewer than the group's); n/a = " +
    "no task measured it, not 0; outside model = e2e − model (mean share, median/p95 ms, pooled Σ/Σ); every " +
    "definition in --json disclosure.rules and docs/production_analysis.md",
  ];
  for (const population of ["accepted", "completed"] as const) {
    const rows = result.rows.filter((r) => r.population === population);
    out.push(
      "",
      `${population} tasks (${population === "accepted" ? d.n.accepted : d.n.completed}):`,
      ...populationTable(rows),
    );
  }
  const na = Object.entries(d.not_measured);
  if (na.length) out.push("", ...na.map(([s, why]) => `n/a ${s}: ${why}`));
  if (d.phases.tasks_with_phases) {
    out.push(
      `phases: ${d.phases.tasks_with_phases} of ${d.n.completed} completed tasks have phase rows; ${d.rules.clock}` +
        (d.phases.max_clock_error_ms === null
          ? ""
          : ` (the widest bound here: ${sig(d.phases.max_clock_error_ms)} ms)`),
    );
  }
  if (d.excluded) out.push(`left out: ${d.excluded} completed tasks without a completed_ms at or after scheduled_ms`);
  return out.join("\n");
}
