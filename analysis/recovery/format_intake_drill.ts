import type { DrillCall } from "../../schema/mod.ts";
import type { IntakeDrillReport, IntakeDrillResult } from "./intake_drill.ts";

const ms = (v: number) => `${v.toFixed(1)} ms`;

function call(c: DrillCall): string {
  if (c.called_ms === null) return `${c.action} never called (${c.error})`;
  const answer = c.answered_ms === null ? "no answer" : `answered +${ms(c.answered_ms - c.called_ms)}`;
  return `${c.action} called at ${ms(c.called_ms)} (planned ${ms(c.planned_ms)}; ${answer}, status ${c.status ?? "-"}${
    c.ok ? "" : `, FAILED: ${c.error}`
  })`;
}

function lines(d: IntakeDrillResult): string[] {
  const t = d.new_tasks, r = d.refusal, f = d.in_flight;
  const kinds = Object.entries(t.not_clean_kinds).map(([k, n]) => `${k}=${n}`).join(" ");
  const out = [
    `  ${d.name} (${d.hook}): ${[d.stop, ...(d.resume ? [d.resume] : [])].map(call).join("; ")}`,
    `    new tasks sent while stopped (${ms(t.from_ms)} to ${
      t.to_ms === null ? "the end of the log" : ms(t.to_ms)
    }): ` +
    `${t.n}: ${t.refused_clean} refused cleanly (429/503 + Retry-After), ${t.served} served, ${t.not_clean} not clean` +
    (kinds ? ` (${kinds})` : ""),
    r.lag_ms === null
      ? "    new tasks were NOT refused cleanly through the end of the stop"
      : `    refused cleanly from ${ms(r.lag_ms)} after the stop call (between ${ms(r.lag_lower_ms!)} and ` +
        `${ms(r.lag_ms)}); before that ${r.served_before} served, ${r.not_clean_before} not clean`,
    f.n === 0
      ? "    in flight at the stop: none"
      : `    in flight at the stop: ${f.n}: ${f.completed} completed, ${f.failed} failed${
        f.failed ? ` (${Object.entries(f.failed_outcomes).map(([k, n]) => `${k}=${n}`).join(" ")})` : ""
      }; the last ended ${ms(f.drained_ms!)} after the stop call`,
  ];
  if (d.resumed) {
    out.push(
      d.resumed.lag_ms === null
        ? `    intake NOT seen resuming: no attempt sent after the resume call was served (${d.resumed.refused_between} refused)`
        : `    intake resumed ${ms(d.resumed.lag_ms)} after the resume call (between ${
          ms(d.resumed.lag_lower_ms!)
        } and ` +
          `${ms(d.resumed.lag_ms)}); ${d.resumed.refused_between} attempt${
            d.resumed.refused_between === 1 ? "" : "s"
          } refused in between`,
    );
  }
  return out;
}

/**
 * The intake drill section of `deno task analyze`, or null when the run has
 * no drill.
 *
 * @example
 * ```ts
 * import { formatIntakeDrills } from "./format_intake_drill.ts";
 * import assert from "node:assert/strict";
 * assert.equal(formatIntakeDrills({ drills: [], not_measured: [], rules: [] }), null);
 * ```
 */
export function formatIntakeDrills(report: IntakeDrillReport): string | null {
  if (!report.drills.length && !report.not_measured.length) return null;
  return [
    "intake drills (run ms; S = the stop call, R = the resume call; the rules are in --json intake_drills.rules):",
    ...report.rules.map((r) => `  - ${r}`),
    ...report.drills.flatMap(lines),
    ...report.not_measured.map((n) => `  ${n.name}: not measured: ${n.reason}`),
  ].join("\n");
}
