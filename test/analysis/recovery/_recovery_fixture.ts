import { join } from "node:path";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { LoadedRun } from "../../../analysis/run/loaded_run.ts";
import { encodeCsvRows } from "../../../schema/log_encode.ts";
import { type AttemptRow, COLUMNS, type RequestRow } from "../../../schema/events.ts";
import type { Stage } from "../../../schema/plan.ts";
import type { RunManifest } from "../../../schema/run_manifest.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { att, makeManifest, req, sha256, writeManifest, writeRun } from "../_fixture.ts";

/** One class `qa` with a 1000 ms e2e limit and no gate beyond output_valid. */
export const QA_POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: ["warmup"] },
  classes: { qa: { e2e_ms: 1000, gates: ["output_valid"] } },
  default: { e2e_ms: 1000, gates: ["output_valid"] },
};

/** A server row: every contract column defaulted (0, route "default", run_id "fixture-run"), `over` sets the rest. */
export function serverRow(over: Record<string, number> & { t_ms: number }): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const c of COLUMNS.server as readonly string[]) row[c] = c === "route" ? "default" : 0;
  row.run_id = "fixture-run";
  row.replicas = 1;
  return { ...row, ...over };
}

/** An ok request answered by one attempt: first token 100 ms and completion `e2e` ms after `t`. */
export function okRequest(id: string, stage: string, t: number, e2e = 400): { r: RequestRow; a: AttemptRow[] } {
  return {
    r: req({ request_id: id, class: "qa", stage, scheduled_ms: t, first_token_ms: t + 100, completed_ms: t + e2e }),
    a: [att({
      request_id: id,
      attempt: 1,
      sent_ms: t,
      headers_ms: t + 50,
      first_token_ms: t + 100,
      last_token_ms: t + e2e,
      completed_ms: t + e2e,
      output_tokens: 10,
    })],
  };
}

/** A failed attempt (an HTTP status, or a transport error kind when `status` is null) ending 5 ms after `t`. */
export function failedAttempt(
  id: string,
  attempt: number,
  t: number,
  status: number | null,
  kind: string,
  retried: boolean,
): AttemptRow {
  return att({
    request_id: id,
    attempt,
    sent_ms: t,
    headers_ms: status === null ? null : t + 5,
    completed_ms: t + 5,
    http_status: status,
    error_kind: kind,
    retry_reason: retried ? kind : null,
    backoff_ms: retried ? 500 : null,
    input_tokens: 0,
    token_source: null,
  });
}

/** Writes a run folder (CSV, server table included when given) and loads it back. */
export async function loadFixture(
  stages: Stage[],
  parts: { r: RequestRow; a: AttemptRow[] }[],
  server: Record<string, unknown>[] | null,
  over: Partial<RunManifest> = {},
): Promise<LoadedRun> {
  const dir = join(Deno.makeTempDirSync(), "run");
  const manifest = makeManifest(stages, over);
  writeRun(dir, manifest, { requests: parts.map((p) => p.r), attempts: parts.flatMap((p) => p.a) });
  if (server) {
    const cols = COLUMNS.server as readonly string[];
    const text = cols.join(",") + "\n" + encodeCsvRows(server.map((r) => cols.map((c) => r[c])));
    Deno.writeTextFileSync(join(dir, "server.csv"), text);
    const written = JSON.parse(Deno.readTextFileSync(join(dir, "run.json"))) as RunManifest;
    writeManifest(dir, { ...written, files: { ...written.files, "server.csv": sha256(join(dir, "server.csv")) } });
  }
  return await loadRun(dir, { onWarning: () => {} });
}

/** Stages of the planted-outage run: warm-up 0–10 s, steady 10–60 s. */
export const OUTAGE_STAGES: Stage[] = [
  { name: "warm", kind: "warmup", start_ms: 0, end_ms: 10_000, offered_rps: 4 },
  { name: "steady", kind: "steady", start_ms: 10_000, end_ms: 60_000, offered_rps: 4 },
];

/**
 * A run with a planted 503 outage from 30 000 to 33 000 ms. Requests every
 * 250 ms (0 … 59 750), each 400 ms when healthy. Scheduled in [30 000, 33 000):
 * a 503, retried 500 ms later; a retry before 33 000 gets another 503 (the
 * request ends http_error), one at or after it is answered in 400 ms.
 * Scheduled in [33 000, 36 000): the backlog, e2e 2000 ms (late). An isolated
 * 503 at 15 000 (retried, then ok) is not an outage.
 *
 * Server rows every 1000 ms: queue_len 6 at 33–35 s else 0; running 8 at
 * 33–36 s else 2; errors 8 at 31–33 s.
 */
export function plantedOutage(): { parts: { r: RequestRow; a: AttemptRow[] }[]; server: Record<string, unknown>[] } {
  const parts: { r: RequestRow; a: AttemptRow[] }[] = [];
  for (let t = 0; t < 60_000; t += 250) {
    const id = `r${t}`, stage = t < 10_000 ? "warm" : "steady";
    if (t === 15_000 || (t >= 30_000 && t < 33_000)) {
      const retryAt = t + 500;
      const first = failedAttempt(id, 1, t, 503, "http_503", true);
      if (t !== 15_000 && retryAt < 33_000) {
        parts.push({
          r: req({
            request_id: id,
            class: "qa",
            stage,
            scheduled_ms: t,
            outcome: "http_error",
            http_status: 503,
            error_kind: "http_503",
            attempts: 2,
            output_valid: null,
            output_tokens: 0,
          }),
          a: [first, failedAttempt(id, 2, retryAt, 503, "http_503", false)],
        });
      } else {
        const ok = okRequest(id, stage, retryAt);
        parts.push({
          r: { ...ok.r, scheduled_ms: t, first_sent_ms: t, attempts: 2 },
          a: [first, { ...ok.a[0]!, attempt: 2 }],
        });
      }
    } else {
      parts.push(okRequest(id, stage, t, t >= 33_000 && t < 36_000 ? 2000 : 400));
    }
  }
  const server: Record<string, unknown>[] = [];
  for (let t = 1000; t <= 60_000; t += 1000) {
    server.push(serverRow({
      t_ms: t,
      queue_len: t >= 33_000 && t <= 35_000 ? 6 : 0,
      running: t >= 33_000 && t <= 36_000 ? 8 : 2,
      errors: t >= 31_000 && t <= 33_000 ? 8 : 0,
    }));
  }
  return { parts, server };
}
