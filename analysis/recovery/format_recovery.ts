import { fixed, percent } from "../../lib/number_format.ts";
import type { BurstScaling } from "./autoscaling.ts";
import type { ColdStartResult, PhaseStats } from "./cold_start.ts";
import { earlyStoppingMinSamples } from "../latency/early_stopping.ts";
import type { PercentileCI } from "../latency/percentile.ts";
import type { EventRecovery, RecoveryResult, RequestTally } from "./recovery.ts";
import type { RetryResult } from "./retries.ts";

/** The parts to render; each is optional. */
export interface RecoveryParts {
  recovery?: RecoveryResult;
  retries?: RetryResult;
  cold_start?: ColdStartResult;
}

const ms = (v: number | null | undefined): string => (v === null || v === undefined ? "-" : `${Math.round(v)} ms`);
const s = (
  v: number | null | undefined,
): string => (v === null || v === undefined ? "never" : `${(v / 1000).toFixed(1)} s`);
const pct = (v: number | null): string => (v === null ? "-" : `${(100 * v).toFixed(1)} %`);

function tallyLine(label: string, t: RequestTally): string {
  const lost = Object.entries(t.lost_by_outcome).map(([k, n]) => `${k}=${n}`).join(" ");
  return `  ${label} (${s(t.from_ms)}–${s(t.to_ms)}): offered ${t.offered}, ok ${t.ok}, accepted ${t.accepted}, ` +
    `rescued by retry ${t.rescued_by_retry}, lost ${t.lost}${lost ? ` (${lost})` : ""}`;
}

function eventLines(e: EventRecovery): string[] {
  const head = `${e.kind} ${e.name}: ${s(e.start_ms)} – ${s(e.end_ms)}${
    e.ended ? "" : " (service not back by the end)"
  }`;
  const levels = e.levels.map((l) =>
    `  ${l.metric.padEnd(17)} baseline median ${fixed(l.baseline_median, 0)}, ≤ ${
      fixed(l.baseline_upper, 0)
    } (n=${l.baseline_samples}); peak ${fixed(l.peak, 0)} at ${s(l.peak_ms)}; back at ${s(l.recovered_ms)} = ${
      ms(l.recovered_after_end_ms)
    } after the end`
  );
  const lat = e.latency;
  const server = (label: string, t: EventRecovery["server_during"]) =>
    t ? `  server ${label}: shed ${t.shed}, errors ${t.errors}, admitted ${t.admitted} (${t.rows} rows)` : null;
  return [
    head,
    ...levels,
    `  latency in SLO    baseline share ${pct(lat.baseline_share)} (n=${lat.baseline_n}); back at ${
      s(lat.recovered_ms)
    } = ${ms(lat.recovered_after_end_ms)} after the end`,
    `  recovered: ${
      e.recovered_ms === null
        ? `NOT within the run (${e.not_recovered.join(", ")})`
        : `${s(e.recovered_ms)}, ${ms(e.recovered_after_end_ms)} after the end`
    }`,
    tallyLine("during", e.during),
    tallyLine("after ", e.after),
    ...[server("during", e.server_during), server("after", e.server_after)].filter((x): x is string => x !== null),
    ...(e.overlaps.length ? [`  overlaps: ${e.overlaps.join(", ")} (counts above include them)`] : []),
    `  stayed lost: ${e.stayed_lost ? "yes" : "no"}`,
  ];
}

function scalingLines(b: BurstScaling): string[] {
  const w = b.waiting;
  const verdict = { in_time: "in time", scaled_too_late: "SCALED TOO LATE", no_scale_up: "no scale-up requested" }[
    b.verdict
  ];
  const p = b.planned;
  return [
    `burst ${b.burst} (${s(b.start_ms)}–${s(b.end_ms)}): ${verdict}`,
    `  replicas before ${b.replicas_before} (+${b.warming_before} warming); queue rose above ${
      fixed(b.queue_upper, 0)
    } at ${s(b.queue_rise_ms)}`,
    ...(b.verdict === "no_scale_up" ? ["  no replica was requested or added in the search span"] : [
      `  detect (warming rose) at ${s(b.detect_ms)}: ${ms(b.time_to_detect_ms)} after the burst start, ${
        ms(b.detect_after_queue_rise_ms)
      } after the queue rise`,
      `  serving at ${s(b.serving_ms)}: allocate + warm-up ${ms(b.allocate_and_warm_ms)}; ${
        b.serving_after_end_ms === null
          ? "no new replica served within the run"
          : `${ms(Math.abs(b.serving_after_end_ms))} ${b.serving_after_end_ms > 0 ? "after" : "before"} the burst end`
      }`,
    ]),
    ...(p
      ? [
        `  profile: detection ${p.detection_delay_ms} ms + provisioning ${p.provisioning_delay_ms} ms + loading ${p.loading_ms} ms, then ${p.cold_ms} ms cold`,
      ]
      : []),
    `  meanwhile (${s(w.from_ms)}–${s(w.to_ms)}): server queue max ${w.server_queue_max ?? "-"}, oldest queued ${
      ms(w.server_oldest_queued_max_ms)
    }, shed ${w.server_shed ?? "-"}; ${w.requests} requests (${w.rejected} rejected), client send lag max ${
      ms(w.client_send_lag_max_ms)
    }; ${w.attempts} attempts (${w.attempts_429} × 429), time to headers p50 ${ms(w.headers_wait_p50_ms)} max ${
      ms(w.headers_wait_max_ms)
    }; retry backoff ${ms(w.retry_backoff_ms)}`,
  ];
}

function recoveryLines(r: RecoveryResult): string[] {
  const o = r.outages;
  const planned =
    o.planned?.map((p) =>
      `  planned ${p.mode} ${p.sim_start_ms}–${p.sim_end_ms} ms on the sim clock → ${
        p.detected === null
          ? "not detected"
          : `outage-${p.detected + 1} (implies the sim clock started at ${ms(p.implied_sim_start_ms)} on the run clock)`
      }`
    ) ?? [];
  return [
    `recovery of run ${r.run_id}`,
    "rules:",
    ...r.rules.map((x) => `  - ${x}`),
    `  - outages: ${o.rule}`,
    "",
    `outages detected: ${o.outages.length}`,
    ...o.outages.map((d, i) =>
      `  outage-${i + 1}: ${s(d.start_ms)} – ${d.end_ms === null ? "not back" : s(d.end_ms)} (${
        ms(d.duration_ms)
      }); ${d.down_attempts} down attempts (${
        Object.entries(d.by_kind).map(([k, n]) => `${k}=${n}`).join(" ")
      }) over ${d.requests_hit} requests; server errors ${d.server?.errors ?? "-"}`
    ),
    ...(o.planned?.length
      ? ["profile outages (matched in order, or by overlap when the sim start is given):", ...planned]
      : []),
    "",
    ...r.events.flatMap((e) => [...eventLines(e), ""]),
    `autoscaling: ${
      r.autoscaling.observed
        ? `${r.autoscaling.changes.length} replica changes`
        : "not observed (replicas constant, none warming)"
    }`,
    ...r.autoscaling.changes.map((c) =>
      `  ${s(c.t_ms)}: replicas ${c.replicas_from}→${c.replicas_to}, warming ${c.warming_from}→${c.warming_to}`
    ),
    ...r.autoscaling.rules.map((x) => `  - ${x}`),
    ...r.autoscaling.bursts.flatMap(scalingLines),
  ];
}

function retryLines(r: RetryResult): string[] {
  const b = r.budget;
  return [
    "retries",
    ...r.rules.map((x) => `  - ${x}`),
    `  offered ${r.offered}, attempts ${r.attempts}, first attempts ${r.first_attempts}, retries ${r.retries}, ` +
    `held back by a route limit (not sent) ${r.held_back}`,
    `  amplification attempts/offered ${fixed(r.amplification, 3)}; attempts/first attempts ${
      fixed(r.retry_amplification, 3)
    }`,
    `  budget: ${r.retries} of ${b.allowed} allowed (${b.budget_min} + ${b.budget_ratio} × ${b.budget_base}) = ${
      pct(b.consumed)
    }; run.json retries ${b.manifest_retries}, refused by the budget ${b.manifest_exhausted} ` +
    `(${b.exhausted_requests} requests ended so, first scheduled at ${s(b.first_exhausted_ms)})`,
    `  capacity on retries: ${pct(r.capacity.attempts)} of attempts, ${pct(r.capacity.busy_ms)} of attempt time, ${
      pct(r.capacity.input_tokens)
    } of input and ${pct(r.capacity.output_tokens)} of output tokens`,
    `  retried attempts by reason: ${Object.entries(r.by_reason).map(([k, n]) => `${k}=${n}`).join(" ") || "-"}`,
    `  requests retried ${r.retried_requests}, of which ended ok ${r.retried_requests_ok}`,
    `  DEFECTS (retries the policy forbids): ${r.defects.length}`,
    ...r.defects.slice(0, 20).map((d) =>
      `    ${d.request_id} round ${d.round} attempt ${d.attempt} at ${ms(d.sent_ms)}: ${d.why}`
    ),
    ...(r.defects.length > 20 ? [`    … ${r.defects.length - 20} more`] : []),
  ];
}

/** LoadGen's minimum n for the percentile at the row's support confidence. */
const minSamples = (x: PercentileCI): number => earlyStoppingMinSamples(x.p, 0, { confidence: x.support_confidence });

function phaseLine(p: PhaseStats): string[] {
  const lat = (label: string, xs: PhaseStats["e2e_ms"]) =>
    `${label} ${
      xs.map((x) =>
        `p${Math.round(x.p * 100)} ${ms(x.value)}${
          x.supported ? "" : ` (unsupported: n < ${minSamples(x)}, early stopping at ${percent(x.support_confidence)})`
        }`
      ).join(", ")
    }`;
  return [
    `  ${p.phase}: ${p.description}`,
    `    offered ${p.offered}, completed ${p.completed}, accepted ${p.accepted}; acceptance ${
      pct(p.acceptance_rate)
    }; goodput ${fixed(p.accepted_goodput, 3)}/s over ${p.seconds} s`,
    `    ${lat("e2e", p.e2e_ms)}; ${lat("TTFT", p.ttft_ms)} (n=${p.e2e_ms[0]?.n ?? 0})`,
  ];
}

function coldLines(c: ColdStartResult): string[] {
  return [
    "cold start vs steady state",
    `  rule: ${c.rule}`,
    ...phaseLine(c.cold),
    ...(c.steady ? phaseLine(c.steady) : ["  steady: the run has no steady stage"]),
    `  cold ÷ steady: e2e ${c.ratio.e2e.map((x) => fixed(x, 2)).join(", ")}; TTFT ${
      c.ratio.ttft.map((x) => fixed(x, 2)).join(", ")
    }; acceptance cold − steady ${c.ratio.acceptance_rate_diff === null ? "-" : pct(c.ratio.acceptance_rate_diff)}`,
  ];
}

/**
 * Renders recovery, retry and cold-start reports as plain text, each with
 * its rules before its numbers. Parts not given are left out.
 *
 * @example Only the retry part
 * ```ts ignore
 * console.log(formatRecovery({ retries: retries(run) }));
 * ```
 */
export function formatRecovery(parts: RecoveryParts): string {
  const out: string[][] = [];
  if (parts.recovery) out.push(recoveryLines(parts.recovery));
  if (parts.retries) out.push(retryLines(parts.retries));
  if (parts.cold_start) out.push(coldLines(parts.cold_start));
  return out.map((x) => x.join("\n")).join("\n\n");
}
