import { join } from "node:path";
import type { Stage } from "../../../schema/plan.ts";
import type { OverheadSheet, PriceSheet, SelfHostedPrice } from "../../../schema/prices.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { type AttemptRow, COLUMNS, type RequestRow } from "../../../schema/events.ts";
import { att, makeManifest, overheadSheet, req, type RunTables, sha256, writeManifest, writeRun } from "../_fixture.ts";

/** warm (warmup 0–10 s, excluded) and steady (10–20 s): the window is 10 s. */
export const LEDGER_STAGES: Stage[] = [
  { name: "warm", kind: "warmup", start_ms: 0, end_ms: 10_000, offered_rps: 0.1 },
  { name: "steady", kind: "steady", start_ms: 10_000, end_ms: 20_000, offered_rps: 0.6 },
];

/** qa needs e2e ≤ 1000 and output_valid + quality_ok; any other class the same gates, e2e ≤ 5000. */
export const LEDGER_POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: ["warmup"] },
  classes: { qa: { e2e_ms: 1000, gates: ["output_valid", "quality_ok"] } },
  default: { e2e_ms: 5000, gates: ["output_valid", "quality_ok"] },
};

/**
 * The hand-worked run (attempt tokens in brackets: input/cached/output):
 * - w1 (warm-up, out of the window): served [1000/0/100] — never charged.
 * - a1 qa accepted: served [1000/200/500]; one retrieval call.
 * - a2 qa accepted: attempt 0 HTTP 500 [1000/0/0], attempt 1 served [1000/0/400].
 * - a3 qa rejected: attempt 0 HTTP 429 [800/0/0].
 * - a4 other, completed but quality_ok false: served [600/0/300].
 * - a5 qa timeout: attempt 0 cancelled (attempt_timeout after 200 headers) [500/0/100].
 * - h1 qa accepted, hybrid: attempt 0 on route hosted HTTP 503 [700/0/0], attempt 1 on route backup served
 *   [700/0/200]; one failed `search` tool call.
 */
export function ledgerTables(): RunTables {
  const ok = (
    id: string,
    t: number,
    cls = "qa",
    over: Partial<RequestRow> = {},
  ) =>
    req({
      request_id: id,
      class: cls,
      stage: t < 10_000 ? "warm" : "steady",
      scheduled_ms: t,
      route: "hosted",
      first_token_ms: t + 100,
      completed_ms: t + 500,
      ...over,
    });
  const requests = [
    ok("w1", 5_000),
    ok("a1", 11_000),
    ok("a2", 12_000, "qa", { attempts: 2 }),
    ok("a3", 13_000, "qa", {
      outcome: "rejected",
      http_status: 429,
      completed_ms: null,
      first_token_ms: null,
      output_valid: null,
      quality_ok: null,
    }),
    ok("a4", 14_000, "other", { quality_ok: false }),
    ok("a5", 15_000, "qa", { outcome: "timeout", completed_ms: null, output_valid: null, quality_ok: null }),
    ok("h1", 16_000, "qa", { attempts: 2, tool_calls: 1 }),
  ];
  const a = (
    id: string,
    t: number,
    input: number,
    cached: number,
    output: number,
    over: Partial<AttemptRow> = {},
  ) =>
    att({
      request_id: id,
      sent_ms: t,
      route: "hosted",
      input_tokens: input,
      cached_input_tokens: cached,
      output_tokens: output,
      ...over,
    });
  const attempts = [
    a("w1", 5_000, 1000, 0, 100),
    a("a1", 11_000, 1000, 200, 500),
    a("a2", 12_000, 1000, 0, 0, { http_status: 500, error_kind: "http_500", retry_reason: "http_500" }),
    a("a2", 12_100, 1000, 0, 400, { attempt: 1 }),
    a("a3", 13_000, 800, 0, 0, { http_status: 429, error_kind: "http_429" }),
    a("a4", 14_000, 600, 0, 300),
    a("a5", 15_000, 500, 0, 100, { error_kind: "attempt_timeout" }),
    a("h1", 16_000, 700, 0, 0, { http_status: 503, error_kind: "http_503" }),
    a("h1", 16_100, 700, 0, 200, { attempt: 1, route: "backup", provider: "other", model: "big" }),
  ];
  const run = { run_id: "fixture-run" };
  const tools = [
    { ...run, request_id: "a1", round: 0, tool: "retrieval", started_ms: 11_000, ended_ms: 11_050, ok: true },
    { ...run, request_id: "h1", round: 0, tool: "search", started_ms: 16_000, ended_ms: 16_020, ok: false },
  ].map((t) => ({ ...t, error_kind: t.ok ? null : "boom" }));
  return { requests, attempts, tools };
}

/** hosted: 1 / 0.5 / 4 per Mtok, failed and cancelled charged, 429 not; backup: 2 / (input) / 8, nothing failed charged. */
export function sheetA(over: Partial<PriceSheet> = {}): PriceSheet {
  return {
    price_sheet_version: 1,
    name: "sheet-a",
    currency: "USD",
    as_of: "2026-01-02",
    source: "test sheet A",
    notes: "",
    routes: {
      hosted: hosted(1, 0.5, 4, { rejected: false, failed: true, cancelled: true }),
      backup: hosted(2, null, 8, { rejected: false, failed: false, cancelled: false }),
    },
    ...over,
  };
}

/** A hosted price with the defaults the schema would fill. */
export function hosted(
  input: number,
  cached: number | null,
  output: number,
  charge: { rejected: boolean; failed: boolean; cancelled: boolean },
) {
  return {
    kind: "hosted" as const,
    provider: null,
    model: null,
    input_per_mtok: input,
    cached_input_per_mtok: cached,
    output_per_mtok: output,
    reasoning_per_mtok: null,
    cache_write_per_mtok: null,
    per_request: 0,
    context_tiers: [],
    service_tier: "standard",
    batch_discount: null,
    tier_multipliers: {},
    tiers: {},
    charge,
  };
}

/** Overheads with round numbers (see the hand-worked test for each line). */
export function overheadsA(over: Partial<OverheadSheet> = {}): OverheadSheet {
  return {
    ...overheadSheet({ name: "overheads-a", as_of: "2026-01-03", source: "test overheads" }, {
      retrieval: { per_call: 0.01 },
      tools: { per_call: 0.02 },
      storage: { per_gb_month: 0.5, bytes_per_request: 1e6, retention_months: 2 },
      observability: { per_request: 0.002, per_attempt: 0.001 },
      human_review: {
        basis: "accepted",
        sample_rate: 0.5,
        minutes_per_review: 6,
        correction_rate: 0.2,
        minutes_per_correction: 30,
        hourly: 0.6,
      },
      allocated_operations: { per_hour: 36 },
    }),
    ...over,
  };
}

/** Writes the hand-worked run (CSV) under a fresh temp folder. */
export function writeLedgerRun(tables: RunTables = ledgerTables()): string {
  return writeRun(join(Deno.makeTempDirSync(), "run"), makeManifest(LEDGER_STAGES), tables);
}

const manifestRunId = (dir: string): string => JSON.parse(Deno.readTextFileSync(join(dir, "run.json"))).run_id;

/**
 * Adds server.csv (every contract column; `route` only where the contract has it; `run_id` run.json's) and updates
 * run.json's hashes.
 */
export function addServer(
  dir: string,
  rows: { t_ms: number; replicas: number; replicas_warming: number; route: string; running?: number }[],
): void {
  const cols = COLUMNS.server as readonly string[];
  const text = cols.join(",") + "\n" +
    rows.map((r) =>
      cols.map((c) => c === "run_id" ? manifestRunId(dir) : c in r ? String((r as Record<string, unknown>)[c]) : "0")
        .join(",")
    ).join("\n") +
    "\n";
  Deno.writeTextFileSync(join(dir, "server.csv"), text);
  const manifest = JSON.parse(Deno.readTextFileSync(join(dir, "run.json")));
  manifest.files["server.csv"] = sha256(join(dir, "server.csv"));
  writeManifest(dir, manifest);
}

/** The hand-worked run with a warm-up, a drain and a tail: warm 0–10 s, steady 10–20 s, drain 20–25 s, ended at 26 s. */
export const GPU_STAGES: Stage[] = [
  ...LEDGER_STAGES,
  { name: "drain", kind: "drain", start_ms: 20_000, end_ms: 25_000, offered_rps: 0 },
];

/** The ledger policy measuring the steady stage only (warm-up and drain excluded). */
export const GPU_POLICY: SloPolicy = { ...LEDGER_POLICY, window: { exclude_stage_kinds: ["warmup", "drain"] } };

/** Route hosted self-hosted: 2 GPUs per replica at 3.6 per GPU-hour (0.002 per replica-second), 1 spare, 7.2 / h ops. */
export const SELF: SelfHostedPrice = {
  kind: "self_hosted",
  gpu_type: "TEST-GPU",
  gpu_hour: 3.6,
  gpus_per_replica: 2,
  redundancy_replicas: 1,
  operations_per_hour: 7.2,
  fixed_replicas: null,
  gpu_time: "run",
};

/** Sheet A with route hosted self-hosted (`over` changes its price); backup stays hosted. */
export function selfSheet(over: Partial<SelfHostedPrice> = {}): PriceSheet {
  return sheetA({ routes: { hosted: { ...SELF, ...over }, backup: sheetA().routes.backup! } });
}

/**
 * Server rows of route hosted, one per second at t = 1..26 s (each covers the second before it), as
 * [t_s, replicas, running, replicas_warming]:
 * - warm-up (t 1–9 s, outside the window): a replica loads for 4 s (warming 1), then serves; one sequence at 5 s.
 * - steady (t 10–19 s, the window): 2 replicas; a third loads at 12–13 s.
 * - drain (t 20–25 s) and the tail after the last stage (t 26 s, before ended_ms): outside the window.
 * Route backup's rows (9 replicas each second) belong to no self-hosted target.
 */
export const GPU_ROWS: [number, number, number, number][] = [
  [1, 0, 0, 1],
  [2, 0, 0, 1],
  [3, 0, 0, 1],
  [4, 0, 0, 1],
  [5, 1, 1, 0],
  [6, 1, 0, 0],
  [7, 1, 0, 0],
  [8, 1, 0, 0],
  [9, 1, 0, 0],
  [10, 2, 0, 0],
  [11, 2, 1, 0],
  [12, 2, 3, 1],
  [13, 2, 1, 1],
  [14, 2, 1, 0],
  [15, 2, 0, 0],
  [16, 2, 2, 0],
  [17, 2, 0, 0],
  [18, 2, 0, 0],
  [19, 2, 0, 0],
  [20, 2, 1, 0],
  [21, 2, 0, 0],
  [22, 2, 0, 0],
  [23, 2, 0, 0],
  [24, 2, 0, 0],
  [25, 2, 0, 0],
  [26, 1, 0, 0],
];

/** Writes the hand-worked run with GPU_STAGES, run.json result.ended_ms = 26 000 and the GPU_ROWS timeline. */
export function writeGpuRun(): string {
  const manifest = makeManifest(GPU_STAGES);
  manifest.result = { ...manifest.result, ended_ms: 26_000 };
  const dir = writeRun(join(Deno.makeTempDirSync(), "run"), manifest, ledgerTables());
  addServer(dir, [
    ...GPU_ROWS.map(([t, replicas, running, replicas_warming]) => ({
      t_ms: t * 1000,
      route: "hosted",
      replicas,
      running,
      replicas_warming,
    })),
    ...GPU_ROWS.map(([t]) => ({ t_ms: t * 1000, route: "backup", replicas: 9, running: 9, replicas_warming: 0 })),
  ]);
  return dir;
}
