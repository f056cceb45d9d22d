import { join } from "node:path";
import { encodeCsvRows } from "../../../schema/log_encode.ts";
import { COLUMNS, type RequestRow } from "../../../schema/events.ts";
import type { Stage } from "../../../schema/plan.ts";
import type { OverheadSheet, PriceSheet } from "../../../schema/prices.ts";
import type { RunManifest } from "../../../schema/run_manifest.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { answered, att, makeManifest, overheadSheet, req, sha256, writeManifest, writeRun } from "../_fixture.ts";

/**
 * A hand-built sweep: warm-up (10 s at 2 req/s, every request rejected: it
 * must not count), then four 20 s steady steps at 2, 4, 8 and 16 req/s with
 * arrivals evenly spaced (so the measured offered rate equals the planned
 * one), then a 5 s drain. One class `qa` (e2e ≤ 1000 ms, TTFT ≤ 300 ms).
 *
 * - step-01 (40 req): all ok, e2e 500, TTFT 100.
 * - step-02 (80 req): requests 0 and 1 rejected, the rest as step-01.
 * - step-03 (160 req): every `step3RejectEvery`-th rejected, the rest as step-01.
 * - step-04 (320 req): every 2nd rejected after 3 attempts (429s), the rest ok but e2e 2000 (late).
 *
 * Every ok request has one attempt of 10 input + 20 output tokens. The server
 * timeline (one row per second) has queue_len 0, 0, 1, 10 and oldest_queued_ms
 * 0, 0, 200, 3000 in the four steps, and `replicas` 0 unless given per stage.
 */
export const SWEEP_STAGES: Stage[] = [
  { name: "warm", kind: "warmup", start_ms: 0, end_ms: 10_000, offered_rps: 2 },
  { name: "step-01", kind: "steady", start_ms: 10_000, end_ms: 30_000, offered_rps: 2 },
  { name: "step-02", kind: "steady", start_ms: 30_000, end_ms: 50_000, offered_rps: 4 },
  { name: "step-03", kind: "steady", start_ms: 50_000, end_ms: 70_000, offered_rps: 8 },
  { name: "step-04", kind: "steady", start_ms: 70_000, end_ms: 90_000, offered_rps: 16 },
  { name: "drain", kind: "drain", start_ms: 90_000, end_ms: 95_000, offered_rps: 0 },
];

/** The fixture's policy: one class, qa. */
export const SWEEP_POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: ["warmup", "drain"] },
  classes: { qa: { e2e_ms: 1000, ttft_ms: 300, gates: ["output_valid", "quality_ok"] } },
  default: { e2e_ms: 1000, gates: ["output_valid"] },
};

const QUEUE: Record<string, [number, number]> = {
  warm: [0, 0],
  "step-01": [0, 0],
  "step-02": [0, 0],
  "step-03": [1, 200],
  "step-04": [10, 3000],
  drain: [0, 0],
};

/** Options of {@linkcode writeSweepRun}. */
export interface SweepOptions {
  runId?: string;
  /** Every n-th request of step-03 is rejected. @default 10 */
  step3RejectEvery?: number;
  /** Every step as step-01 (no rejection, nothing late): a sweep that never degrades. @default false */
  healthy?: boolean;
  /** Write a server timeline. @default true */
  server?: boolean;
  /** The timeline's `replicas` in each stage (by name; others 0), e.g. to price GPU time. @default {} */
  replicas?: Record<string, number>;
  /** Changes to run.json (e.g. another plan). */
  manifest?: Partial<RunManifest>;
  /** Each rejected step-04 request also gets a row its route's limit held back (`route_limit_wait`, no call). */
  heldBack?: boolean;
}

/** Writes the sweep run into `dir` (CSV, with run.json `files` hashes) and returns `dir`. */
export function writeSweepRun(dir: string, options: SweepOptions = {}): string {
  const runId = options.runId ?? "sweep-fixture";
  const every3 = options.step3RejectEvery ?? 10;
  const requests: RequestRow[] = [];
  const attempts = [];
  for (const s of SWEEP_STAGES.filter((s) => s.kind !== "drain")) {
    const n = Math.round(s.offered_rps * (s.end_ms - s.start_ms) / 1000);
    for (let i = 0; i < n; i++) {
      // Whole ms: loadRun reads CSV time columns as integers when the first rows hold whole numbers.
      const t = Math.round(s.start_ms + (i * (s.end_ms - s.start_ms)) / n);
      const id = `${s.name}-${i}`;
      const key = { run_id: runId, request_id: id, class: "qa", stage: s.name, scheduled_ms: t };
      const sick = !options.healthy;
      const rejected = s.name === "warm" || (sick && s.name === "step-02" && i < 2) ||
        (sick && s.name === "step-03" && i % every3 === 0) || (sick && s.name === "step-04" && i % 2 === 0);
      const late = sick && s.name === "step-04";
      if (rejected) {
        const tries = s.name === "step-04" ? 3 : 1;
        requests.push(req({
          ...key,
          outcome: "rejected",
          http_status: 429,
          attempts: tries,
          output_tokens: 0,
          output_valid: null,
          quality_ok: null,
          safety_ok: null,
          auth_ok: null,
        }));
        for (let a = 0; a < tries; a++) {
          attempts.push(att({ request_id: id, attempt: a, sent_ms: t + a, headers_ms: t + a + 5, http_status: 429 }));
        }
        if (options.heldBack && s.name === "step-04") {
          attempts.push(
            att({
              request_id: id,
              attempt: tries,
              sent_ms: t + tries,
              http_status: null,
              error_kind: "route_limit_wait",
            }),
          );
        }
        continue;
      }
      const e2e = late ? 2000 : 500;
      const a = answered(key, e2e);
      requests.push(a.request);
      attempts.push(a.attempt);
    }
  }
  const manifest = makeManifest(SWEEP_STAGES, { run_id: runId, ...options.manifest });
  writeRun(dir, manifest, { requests, attempts });
  if (options.server ?? true) {
    const rows = [];
    for (let k = 0; k < 95; k++) {
      const stage = SWEEP_STAGES.find((s) => k * 1000 >= s.start_ms && k * 1000 < s.end_ms)!;
      const [queue_len, oldest_queued_ms] = QUEUE[stage.name]!;
      const replicas = options.replicas?.[stage.name] ?? 0;
      const row: Record<string, unknown> = {
        run_id: runId,
        t_ms: k * 1000,
        route: "default",
        queue_len,
        oldest_queued_ms,
        replicas,
      };
      rows.push(COLUMNS.server.map((c) => row[c] ?? 0));
    }
    const file = join(dir, "server.csv");
    Deno.writeTextFileSync(file, COLUMNS.server.join(",") + "\n" + encodeCsvRows(rows));
    const written = JSON.parse(Deno.readTextFileSync(join(dir, "run.json"))) as RunManifest;
    writeManifest(dir, { ...written, files: { ...written.files, "server.csv": sha256(file) } });
  }
  return dir;
}

/** Replicas per step for the priced sweep: autoscaling that over-provisions at 8 req/s. */
export const SWEEP_REPLICAS: Record<string, number> = { "step-01": 1, "step-02": 2, "step-03": 16, "step-04": 16 };

/** One self-hosted price for every route: 3.6 per GPU-hour (0.001 per GPU-second), 1 GPU per replica, 1 spare. */
export const SWEEP_PRICES: PriceSheet = {
  price_sheet_version: 1,
  name: "sweep-prices",
  currency: "USD",
  as_of: "2026-01-01",
  source: "test fixture",
  notes: "",
  routes: {
    "*": {
      kind: "self_hosted",
      gpu_type: "G",
      gpu_hour: 3.6,
      gpus_per_replica: 1,
      redundancy_replicas: 1,
      operations_per_hour: 0,
      fixed_replicas: null,
      gpu_time: "run",
    },
  },
};

/**
 * Overheads with round numbers: 0.001 per sent request (observability), a
 * review of 10 % of accepted tasks at 3 min × 0.2 per hour (0.001 per
 * accepted task), 1.8 per hour of operations (0.01 per 20-s step); nothing else.
 */
export const SWEEP_OVERHEADS: OverheadSheet = overheadSheet(
  { name: "sweep-overheads", as_of: "2026-01-01", source: "test fixture" },
  {
    retrieval: { per_call: 0 },
    tools: { per_call: 0 },
    storage: { per_gb_month: 0, bytes_per_request: 0, retention_months: 0 },
    observability: { per_request: 0.001 },
    human_review: {
      basis: "accepted",
      sample_rate: 0.1,
      minutes_per_review: 3,
      correction_rate: 0,
      minutes_per_correction: 0,
      hourly: 0.2,
    },
    allocated_operations: { per_hour: 1.8 },
  },
);
