import type { AttemptRow, RequestRow } from "../../../schema/events.ts";
import type { Stage } from "../../../schema/plan.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { att, makeManifest, req, writeRun } from "../_fixture.ts";
import { SWEEP_POLICY } from "./knee_fixture.ts";

/**
 * A sweep whose top levels are the client's doing: five 20 s steady steps at
 * 2, 4, 6, 8 and 16 req/s (arrivals evenly spaced), then a 5 s drain. Every
 * request the runner sent is answered in 500 ms (TTFT 100) and accepted.
 *
 * - 4 req/s: 5 of 80 requests sent 100 ms late; the rest 1 ms.
 * - 8 req/s: every 10th request not_sent (16 of 160): the runner fell behind.
 * - 16 req/s: 20 of 320 requests sent 100 ms late; the rest 1 ms.
 */
export const CLIENT_STAGES: Stage[] = [
  { name: "s2", kind: "steady", start_ms: 0, end_ms: 20_000, offered_rps: 2 },
  { name: "s4", kind: "steady", start_ms: 20_000, end_ms: 40_000, offered_rps: 4 },
  { name: "s6", kind: "steady", start_ms: 40_000, end_ms: 60_000, offered_rps: 6 },
  { name: "s8", kind: "steady", start_ms: 60_000, end_ms: 80_000, offered_rps: 8 },
  { name: "s16", kind: "steady", start_ms: 80_000, end_ms: 100_000, offered_rps: 16 },
  { name: "drain", kind: "drain", start_ms: 100_000, end_ms: 105_000, offered_rps: 0 },
];

/** One class; accepted when answered within 1 s: the knee fixture's policy. */
export const CLIENT_POLICY: SloPolicy = SWEEP_POLICY;

/** Writes the sweep; run.json says what the runner's own verdict would (16 not sent). */
export function writeClientLimitedSweep(dir: string): string {
  const requests: RequestRow[] = [], attempts: AttemptRow[] = [];
  for (const s of CLIENT_STAGES.filter((x) => x.kind !== "drain")) {
    const n = Math.round(s.offered_rps * (s.end_ms - s.start_ms) / 1000);
    for (let i = 0; i < n; i++) {
      const t = Math.round(s.start_ms + (i * (s.end_ms - s.start_ms)) / n);
      const id = `${s.name}-${i}`;
      const key = { run_id: "client-sweep", request_id: id, class: "qa", stage: s.name, scheduled_ms: t };
      if (s.name === "s8" && i % 10 === 0) {
        requests.push(req({
          ...key,
          outcome: "not_sent",
          error_kind: "send_lag>1000ms",
          send_lag_ms: 1500,
          first_sent_ms: null,
          http_status: null,
          attempts: 0,
          output_tokens: 0,
          output_valid: null,
          quality_ok: null,
          safety_ok: null,
          auth_ok: null,
        }));
        continue;
      }
      const late = (s.name === "s4" && i < 5) || (s.name === "s16" && i < 20);
      const lag = late ? 100 : 1;
      requests.push(req({
        ...key,
        send_lag_ms: lag,
        first_sent_ms: t + lag,
        first_token_ms: t + 100,
        completed_ms: t + 500,
        output_tokens: 20,
      }));
      attempts.push(att({
        request_id: id,
        sent_ms: t + lag,
        headers_ms: t + Math.max(lag, 50), // never before the send (a late send: the headers at once)
        first_token_ms: t + 100,
        last_token_ms: t + 500,
        completed_ms: t + 500,
        output_tokens: 20,
      }));
    }
  }
  const m = makeManifest(CLIENT_STAGES, { run_id: "client-sweep" });
  m.result = {
    ...m.result,
    offered: requests.length,
    not_sent: 16,
    send_lag_p99_ms: 100,
    send_lag_max_ms: 1500,
    client_limited: true,
    client_limit_reason: "16 requests not sent (the runner fell behind its schedule); p99 send lag 100.00 ms > 5 ms",
  };
  return writeRun(dir, m, { requests, attempts });
}
