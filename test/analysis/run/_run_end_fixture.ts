import { join } from "node:path";
import type { AttemptRow, RequestRow } from "../../../schema/events.ts";
import type { Stage } from "../../../schema/plan.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { att, makeManifest, req, sha256, writeManifest, writeRun } from "../_fixture.ts";

/**
 * A 60 s plan cut short at ~17 s. Stages: warm (warmup 0–10 s, 1 req/s),
 * main (steady 10–50 s, 2 req/s), drain (50–60 s). The policy excludes
 * warmup and drain: planned, the window is main's 40 s.
 *
 * Schedule (90 entries): w0…w9 at 0, 1000, …, 9000 ms; m0…m79 at
 * 10000 + 500·i ms. Every answered request takes 200 ms to its first token
 * and 1000 ms to complete, and is accepted, except m3 (rejected, 429).
 */
export const END_STAGES: Stage[] = [
  { name: "warm", kind: "warmup", start_ms: 0, end_ms: 10_000, offered_rps: 1 },
  { name: "main", kind: "steady", start_ms: 10_000, end_ms: 50_000, offered_rps: 2 },
  { name: "drain", kind: "drain", start_ms: 50_000, end_ms: 60_000, offered_rps: 0 },
];

/** One class, generous limits: a request answered in 1 s is accepted. */
export const END_POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: ["warmup", "drain"] },
  classes: { qa: { e2e_ms: 5000, ttft_ms: 1000, gates: ["output_valid", "quality_ok"] } },
  default: { e2e_ms: 5000, gates: ["output_valid"] },
};

interface Entry {
  id: string;
  t: number;
  stage: string;
}

/** The 90 planned arrivals. */
export function endSchedule(): Entry[] {
  const warm = Array.from({ length: 10 }, (_, i) => ({ id: `w${i}`, t: i * 1000, stage: "warm" }));
  const main = Array.from({ length: 80 }, (_, i) => ({ id: `m${i}`, t: 10_000 + 500 * i, stage: "main" }));
  return [...warm, ...main];
}

function answered(e: Entry, runId: string): { r: RequestRow; a: AttemptRow } {
  const base = { run_id: runId, request_id: e.id, class: "qa", stage: e.stage, scheduled_ms: e.t };
  if (e.id === "m3") {
    const r = req({
      ...base,
      outcome: "rejected",
      http_status: 429,
      output_tokens: 0,
      output_valid: null,
      quality_ok: null,
      safety_ok: null,
      auth_ok: null,
    });
    return { r, a: att({ run_id: runId, request_id: e.id, sent_ms: e.t, headers_ms: e.t + 5, http_status: 429 }) };
  }
  const r = req({ ...base, first_token_ms: e.t + 200, completed_ms: e.t + 1000 });
  const a = att({
    run_id: runId,
    request_id: e.id,
    sent_ms: e.t,
    headers_ms: e.t + 50,
    first_token_ms: e.t + 200,
    last_token_ms: e.t + 1000,
    completed_ms: e.t + 1000,
    output_tokens: 10,
  });
  return { r, a };
}

/** Writes schedule.csv as the runner does; returns its sha256. */
function writeSchedule(dir: string): string {
  const rows = endSchedule().map((e) => `${e.id},${e.t},c,qa,${e.stage},0`);
  const file = join(dir, "schedule.csv");
  Deno.writeTextFileSync(file, ["request_id,scheduled_ms,case_id,class,stage,shard", ...rows].join("\n") + "\n");
  return sha256(file);
}

/**
 * A run killed (SIGKILL) at about 17 s: run.json still says `running`, with
 * no file hashes. The log holds w0…w9 and m0…m12 except m5 (stuck: no row);
 * m13 (16 500 ms) was in flight. The latest time in the log is m12's
 * completion, 16 000 + 1000 = 17 000 ms: the cut.
 */
export function writeKilledRun(dir: string): string {
  const runId = "killed-run";
  const logged = endSchedule().filter((e) => e.t <= 16_000 && e.id !== "m5").map((e) => answered(e, runId));
  writeRun(dir, makeManifest(END_STAGES, { run_id: runId }), {
    requests: logged.map((x) => x.r),
    attempts: logged.map((x) => x.a),
  });
  const m = makeManifest(END_STAGES, { run_id: runId });
  m.plan.schedule_sha256 = writeSchedule(dir);
  m.plan.scheduled_requests = 90;
  m.result = { ...m.result, status: "running", ended_ms: 0, offered: 90 };
  writeManifest(dir, m);
  return dir;
}

/**
 * A run interrupted (SIGINT) at about 17.2 s and finalised: every scheduled
 * request has a row. w0…w9 and m0…m12 answered; m13 and m14 were in flight
 * and aborted (error_kind run_stopped); m15…m79 never started (not_sent,
 * run_stopped). result.ended_ms = 17 350 (the stop plus tear-down).
 */
export function writeInterruptedRun(dir: string): string {
  const runId = "interrupted-run";
  const rows: RequestRow[] = [], attempts: AttemptRow[] = [];
  for (const e of endSchedule()) {
    const base = { run_id: runId, request_id: e.id, class: "qa", stage: e.stage, scheduled_ms: e.t };
    if (e.t <= 16_000) {
      const x = answered(e, runId);
      rows.push(x.r);
      attempts.push(x.a);
      continue;
    }
    const gates = { output_valid: null, quality_ok: null, safety_ok: null, auth_ok: null, output_tokens: 0 };
    if (e.t <= 17_000) {
      rows.push(req({ ...base, ...gates, outcome: "aborted", error_kind: "run_stopped", http_status: null }));
      attempts.push(
        att({ run_id: runId, request_id: e.id, sent_ms: e.t, http_status: null, error_kind: "run_stopped" }),
      );
    } else {
      rows.push(req({
        ...base,
        ...gates,
        outcome: "not_sent",
        error_kind: "run_stopped",
        http_status: null,
        send_lag_ms: null,
        first_sent_ms: null,
        attempts: 0,
      }));
    }
  }
  const m = makeManifest(END_STAGES, { run_id: runId });
  m.plan.scheduled_requests = 90;
  m.result = {
    ...m.result,
    status: "interrupted",
    ended_ms: 17_350,
    offered: 90,
    not_sent: 65,
  };
  writeRun(dir, m, { requests: rows, attempts });
  const withSchedule = JSON.parse(Deno.readTextFileSync(join(dir, "run.json")));
  withSchedule.plan.schedule_sha256 = writeSchedule(dir);
  writeManifest(dir, withSchedule);
  return dir;
}

/**
 * The same 90 requests run to the end: every one answered in 1 s and
 * accepted except m3 (rejected, 429), m5 and m13 to m79 included. The
 * reference the two stopped runs are compared with: on the requests the stop
 * did not decide, they must give this run's acceptance.
 */
export function writeCompleteRun(dir: string): string {
  const runId = "complete-run";
  const all = endSchedule().map((e) => answered(e, runId));
  const m = makeManifest(END_STAGES, { run_id: runId });
  m.plan.scheduled_requests = 90;
  m.result = { ...m.result, offered: 90 };
  return writeRun(dir, m, { requests: all.map((x) => x.r), attempts: all.map((x) => x.a) });
}

/** END_POLICY with qa held to a 3 s e2e limit: an answer in 1 s is accepted, a request hung for over 3 s is not. */
export const HUNG_POLICY: SloPolicy = {
  ...END_POLICY,
  classes: { qa: { e2e_ms: 3000, ttft_ms: 1000, gates: ["output_valid", "quality_ok"] } },
};

/**
 * A run whose target hangs from `hangFromMs` on, interrupted (SIGINT) by the
 * operator because of it and finalised (result.ended_ms = `endedMs`), on the
 * plan of END_STAGES. Requests scheduled before `hangFromMs` are answered
 * as in the other runs (m3 rejected); those from `hangFromMs` up to
 * `endedMs` were sent and never answered: aborted by the stop (error_kind
 * run_stopped); later ones never started (not_sent, run_stopped).
 */
export function writeHungRun(dir: string, hangFromMs: number, endedMs: number): string {
  const runId = "hung-run";
  const rows: RequestRow[] = [], attempts: AttemptRow[] = [];
  const gates = { output_valid: null, quality_ok: null, safety_ok: null, auth_ok: null, output_tokens: 0 };
  let notSent = 0;
  for (const e of endSchedule()) {
    const base = { run_id: runId, request_id: e.id, class: "qa", stage: e.stage, scheduled_ms: e.t };
    if (e.t < hangFromMs) {
      const x = answered(e, runId);
      rows.push(x.r);
      attempts.push(x.a);
    } else if (e.t <= endedMs) {
      rows.push(req({ ...base, ...gates, outcome: "aborted", error_kind: "run_stopped", http_status: null }));
      attempts.push(
        att({ run_id: runId, request_id: e.id, sent_ms: e.t, http_status: null, error_kind: "run_stopped" }),
      );
    } else {
      notSent++;
      rows.push(req({
        ...base,
        ...gates,
        outcome: "not_sent",
        error_kind: "run_stopped",
        http_status: null,
        send_lag_ms: null,
        first_sent_ms: null,
        attempts: 0,
      }));
    }
  }
  const m = makeManifest(END_STAGES, { run_id: runId });
  m.plan.scheduled_requests = 90;
  m.result = { ...m.result, status: "interrupted", ended_ms: endedMs, offered: 90, not_sent: notSent };
  return writeRun(dir, m, { requests: rows, attempts });
}
