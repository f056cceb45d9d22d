/**
 * The latency headlines of a peer tool (a TTFT, e2e or per-request inter-token percentile or mean): recomputed under
 * the tool's percentile method from the send, moved to nearest rank, the offered denominator and the schedule, and the
 * method/inclusion/clock-start choices searched.
 *
 * @module
 */
import type { HeadlineChoice, HeadlineRow, Pick } from "./headline_types.ts";
import type { HeadlineRecipe, PercentileMethod } from "./tool_rules.ts";
import { METHOD_TEXT, percentileBy } from "./tool_rules.ts";

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const finite = (v: number) => (Number.isFinite(v) ? v : null);

/** The latency of a row from `start` (send or schedule); null when a time is missing. */
function latencyOf(r: HeadlineRow, latency: "ttft" | "e2e" | "itl_per_request", start: "send" | "schedule") {
  const t0 = start === "send" ? r.sent_ms : r.scheduled_ms;
  if (t0 === null) return null;
  if (latency === "ttft") return r.first_token_ms === null ? null : r.first_token_ms - t0;
  if (latency === "e2e") return r.completed_ms === null ? null : r.completed_ms - t0;
  // AIPerf: (request_latency − ttft) / (osl − 1) = (completed − first token) / (output tokens − 1).
  if (r.completed_ms === null || r.first_token_ms === null || r.output_tokens === null || r.output_tokens < 2) {
    return null;
  }
  return (r.completed_ms - r.first_token_ms) / (r.output_tokens - 1);
}

/** A latency headline from the rows: under the tool's rules, under ours, and every choice searched. */
export function latencyAudit(
  recipe: Extract<HeadlineRecipe, { kind: "latency_percentile" | "latency_mean" }>,
  rows: HeadlineRow[],
  okRows: HeadlineRow[],
  hasSchedule: boolean,
  pick: Pick,
) {
  const to = recipe.rules.to_ms;
  const values = (rs: HeadlineRow[], start: "send" | "schedule") =>
    rs.map((r) => latencyOf(r, recipe.latency, start)).filter((x): x is number => x !== null).sort((a, b) => a - b);
  const stat = (xs: number[], method: PercentileMethod) =>
    recipe.kind === "latency_mean" ? finite(mean(xs) / to) : finite(percentileBy(xs, recipe.p, method) / to);
  const toolMethod = recipe.kind === "latency_percentile" ? recipe.method : "linear";
  const statText = (m: PercentileMethod) =>
    recipe.kind === "latency_mean" ? "mean" : `p${recipe.p * 100} by ${METHOD_TEXT[m]}`;
  const okSend = values(okRows, "send");
  const recomputed = pick(
    `${statText(toolMethod)} over successful requests, from send`,
    stat(okSend, toolMethod),
    okSend.length,
  );
  // The tool's own method first, then the common ones (once each).
  const methods: PercentileMethod[] = recipe.kind === "latency_mean"
    ? ["linear"]
    : [...new Set<PercentileMethod>([toolMethod, "linear", "nearest_rank", "lower", "higher"])];
  const starts: ("send" | "schedule")[] = hasSchedule ? ["send", "schedule"] : ["send"];
  const choices: HeadlineChoice[] = [];
  for (const start of starts) {
    for (const [inc, rs] of [["successful", okRows], ["every record with a time", rows]] as const) {
      const xs = values(rs, start);
      for (const m of methods) choices.push(pick(`${statText(m)}, ${inc}, from ${start}`, stat(xs, m), xs.length));
    }
  }
  const ours: HeadlineChoice[] = [];
  if (recipe.kind === "latency_percentile") {
    ours.push(
      pick(
        `p${recipe.p * 100} by nearest rank (ours), successful, from send`,
        stat(okSend, "nearest_rank"),
        okSend.length,
      ),
    );
    // The offered denominator: a request that did not succeed never met any limit: +∞ in the distribution.
    const offered = [...okSend, ...Array(rows.length - okRows.length).fill(Infinity)].sort((a, b) => a - b);
    const v = percentileBy(offered, recipe.p, "nearest_rank");
    ours.push(pick(
      `p${recipe.p * 100} by nearest rank over every record offered (a request that did not succeed counts as ∞)` +
        (Number.isFinite(v) ? "" : ": more than 1 − p of the offered requests did not succeed"),
      finite(v / to),
      offered.length,
    ));
  }
  if (hasSchedule) {
    const xs = values(okRows, "schedule");
    ours.push(
      pick(`${statText("nearest_rank")}, successful, from the tool's schedule`, stat(xs, "nearest_rank"), xs.length),
    );
  } else {
    ours.push(
      pick("from schedule: the source keeps no schedule (coordinated omission cannot be ruled out)", null, null),
    );
  }
  return { recomputed, ours, choices };
}
