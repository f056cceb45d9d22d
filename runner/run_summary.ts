import type { RunManifest, SweepStoppedBy } from "../schema/mod.ts";
import { OUTCOMES } from "../schema/events.ts";
import type { RequestSummary } from "./request_tally.ts";
import { textTable } from "../lib/text_table.ts";
import { sig } from "../lib/number_format.ts";

/**
 * The end-of-run summary: per-stage outcome counts of every offered request
 * (shed, unsent and timed-out ones included) and the client verdict. Raw
 * counts only; goodput under an SLO is the analysis module's job.
 */
export function formatRunSummary(manifest: RunManifest, requests: RequestSummary): string {
  const byStage = requests.byStage;
  const outcomes = OUTCOMES.filter((o) => requests.byOutcome.has(o));
  const header = ["stage", "kind", "window_s", "planned_rps", "offered", ...outcomes];
  const rows: string[][] = [];
  const total = new Map<string, number>();
  for (const s of manifest.stages) {
    const m = byStage.get(s.name);
    if (!m && s.kind === "drain") continue;
    const offered = m ? [...m.values()].reduce((a, b) => a + b, 0) : 0;
    rows.push([
      s.name,
      s.kind,
      ((s.end_ms - s.start_ms) / 1000).toFixed(1),
      s.offered_rps.toFixed(2),
      String(offered),
      ...outcomes.map((o) => String(m?.get(o) ?? 0)),
    ]);
    for (const o of outcomes) total.set(o, (total.get(o) ?? 0) + (m?.get(o) ?? 0));
  }
  rows.push(["all", "", "", "", String(requests.offered), ...outcomes.map((o) => String(total.get(o) ?? 0))]);
  const table = textTable(header, rows, { left: 2 });
  const res = manifest.result;
  return [
    `run ${manifest.run_id} (${manifest.plan.mode} loop, ${res.status}): outcome counts per stage, every offered request, by scheduled time`,
    ...table,
    `client: ${clientLine(manifest, requests)}`,
    `retries: ${res.retries} (budget exhausted ${res.retry_budget_exhausted} times, ${
      res.retry_past_deadline ?? 0
    } refused past the deadline)`,
    ...(res.stopped_by ? [sweepLine(res.stopped_by)] : []),
  ].join("\n");
}

/**
 * The client line: the verdict and its reason when the rule fired (docs/verdicts.md), else the lag as a figure beside
 * the bars it stayed under — never "the client kept up" as a verdict.
 */
function clientLine(manifest: RunManifest, requests: RequestSummary): string {
  const res = manifest.result;
  if (res.client_limited) return `THE CLIENT WAS THE LIMIT: ${res.client_limit_reason}`;
  const gaps = manifest.plan.mode === "open"
    ? manifest.stages.filter((s) => s.offered_rps > 0).map((s) => 1000 / s.offered_rps)
    : [];
  const bars = [
    ...(gaps.length ? [`tightest mean gap between planned arrivals ${sig(Math.min(...gaps), 3)} ms`] : []),
    ...(typeof manifest.runner.lag_limit_ms === "number" ? [`--lag-limit-ms ${manifest.runner.lag_limit_ms}`] : []),
  ];
  return `${requests.lagFigure}${requests.lagged ? `: below every bar (${bars.join(", ") || "no planned gap"})` : ""}`;
}

/** Why a sweep ended, in one line. */
function sweepLine(s: SweepStoppedBy): string {
  if (s.rule === "max_rps") {
    return `sweep: every step ran, up to ${s.step} at ${s.value} req/s (max_rps ${s.threshold})`;
  }
  const what = s.rule === "acceptance_below" ? "acceptance" : "rejection";
  const cmp = s.rule === "acceptance_below" ? "<" : ">";
  return `sweep stopped after ${s.step}: ${what} ${s.value.toFixed(3)} ${cmp} ${s.threshold} ` +
    `(n=${s.offered}, ${s.in_flight} still in flight; the runner's provisional verdict, the analysis recomputes it)`;
}
