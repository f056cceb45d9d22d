import { createHash } from "node:crypto";
import type { z } from "zod";
import { join } from "node:path";
import { encodeCsvRows } from "../../schema/log_encode.ts";
import {
  type AttemptRow,
  columnsAt,
  EPOCH_COLUMNS,
  epochMsOf,
  type RequestRow,
  type TableName,
  type ToolRow,
} from "../../schema/events.ts";
import { escapeCell, ESCAPED_CELLS_SINCE_MINOR } from "../../schema/log_csv.ts";
import type { RunManifest } from "../../schema/run_manifest.ts";
import { OverheadSheet } from "../../schema/prices.ts";
import type { LatencyRow } from "../../analysis/latency/latency.ts";

/** A valid run.json for hand-built logs (shared with bench/, so it lives in testing/). */
export { makeManifest } from "../../testing/run_manifest.ts";

const SHA0 = "0".repeat(64);

/** A request row with every field defaulted to an accepted-looking `ok`; `over` sets the rest. */
export function req(
  over: Partial<RequestRow> & Pick<RequestRow, "request_id" | "class" | "stage" | "scheduled_ms">,
): RequestRow {
  return {
    run_id: "fixture-run",
    case_id: "c",
    priority: 0,
    shard: 0,
    route: "default",
    send_lag_ms: 0,
    first_sent_ms: over.scheduled_ms,
    first_token_ms: null,
    completed_ms: null,
    outcome: "ok",
    http_status: 200,
    error_kind: null,
    attempts: 1,
    rounds: 1,
    tool_calls: 0,
    tool_ms: 0,
    input_tokens: 10,
    cached_input_tokens: 0,
    output_tokens: 10,
    finish_reason: "stop",
    output_valid: true,
    schema_ok: null,
    quality_ok: true,
    safety_ok: true,
    auth_ok: true,
    quality_detail: "",
    prompt_sha256: SHA0,
    output_sha256: null,
    streamed: true,
    applicable_gates: null,
    service_mode: null,
    reasoning_tokens: null,
    cache_write_tokens: null,
    ...over,
  };
}

/** An attempt row; `over` sets the times and tokens. */
export function att(over: Partial<AttemptRow> & Pick<AttemptRow, "request_id" | "sent_ms">): AttemptRow {
  return {
    run_id: "fixture-run",
    round: 0,
    attempt: 0,
    route: "default",
    provider: "sim",
    model: "sim",
    headers_ms: null,
    first_token_ms: null,
    last_token_ms: null,
    completed_ms: null,
    http_status: 200,
    error_kind: null,
    retry_reason: null,
    backoff_ms: null,
    input_tokens: 10,
    cached_input_tokens: 0,
    output_tokens: 0,
    token_source: "usage",
    finish_reason: null,
    itl_p50_ms: null,
    itl_max_ms: null,
    streamed: true,
    service_mode: null,
    reasoning_tokens: null,
    cache_write_tokens: null,
    retry_after_ms: null,
    service_tier_requested: null,
    service_tier: null,
    rl_limit_requests: null,
    rl_remaining_requests: null,
    rl_limit_tokens: null,
    rl_remaining_tokens: null,
    rl_reset_requests_ms: null,
    rl_reset_tokens_ms: null,
    ...over,
  };
}

/**
 * An answered `ok` request and its one attempt: headers at +50 ms, first token at +100 ms, the answer complete at
 * +`e2eMs`, 20 output tokens. `over` sets the request's ids and anything else of its row.
 */
export function answered(
  over: Partial<RequestRow> & Pick<RequestRow, "request_id" | "class" | "stage" | "scheduled_ms">,
  e2eMs: number,
): { request: RequestRow; attempt: AttemptRow } {
  const t = over.scheduled_ms;
  return {
    request: req({ first_token_ms: t + 100, completed_ms: t + e2eMs, output_tokens: 20, ...over }),
    attempt: att({
      request_id: over.request_id,
      sent_ms: t,
      headers_ms: t + 50,
      first_token_ms: t + 100,
      last_token_ms: t + e2eMs,
      completed_ms: t + e2eMs,
      output_tokens: 20,
    }),
  };
}

/**
 * A USD overhead sheet checked by the schema, which fills what `lines` leaves
 * out (notes, the retrieval tool's name, per-tool prices, per-attempt tracing).
 */
export function overheadSheet(
  head: { name: string; as_of: string; source: string },
  lines: Omit<z.input<typeof OverheadSheet>, "overhead_sheet_version" | "currency" | keyof typeof head>,
): OverheadSheet {
  return OverheadSheet.parse({ overhead_sheet_version: 1, currency: "USD", ...head, ...lines });
}

/** The log tables of a hand-built run. */
export interface RunTables {
  requests: RequestRow[];
  attempts: AttemptRow[];
  tools?: ToolRow[];
}

/**
 * Writes a run folder as CSV (the runner's dialect) with run.json `files` holding each file's sha256; every row gets
 * run.json's `run_id`, as the runner writes it. With
 * `minor` (the contract minor version, default the manifest's), only the columns that version has are written, string
 * cells are escaped as that version says (from 1.2 on), and run.json says that version: `minor: 0` writes a 1.0 log.
 */
export function writeRun(dir: string, manifest: RunManifest, tables: RunTables, minor = manifest.schema_minor): string {
  Deno.mkdirSync(dir, { recursive: true });
  const files: Record<string, string> = {};
  const data: Record<Exclude<TableName, "server" | "phases">, readonly object[]> = {
    requests: tables.requests,
    attempts: tables.attempts,
    tools: tables.tools ?? [],
  };
  for (const [table, rows] of Object.entries(data) as [Exclude<TableName, "server" | "phases">, object[]][]) {
    const cols = columnsAt(table, minor);
    // Only string columns hold strings in these rows: escaping every string is escaping the string columns.
    const cell = (v: unknown) => typeof v === "string" && minor >= ESCAPED_CELLS_SINCE_MINOR ? escapeCell(v) : v;
    // Every row is the run's, as the runner writes them (the row builders default to "fixture-run"); the epoch
    // column (1.6) is run.json epoch_iso + its anchor, as the runner writes it.
    const epoch = EPOCH_COLUMNS[table];
    const value = (r: Record<string, unknown>, c: string) =>
      c === "run_id"
        ? manifest.run_id
        : c === epoch.name
        ? epochMsOf(manifest.epoch_iso) + (r[epoch.of] as number)
        : r[c];
    const text = cols.join(",") + "\n" +
      encodeCsvRows(rows.map((r) => cols.map((c) => cell(value(r as Record<string, unknown>, c)))));
    const name = `${table}.csv`;
    Deno.writeTextFileSync(join(dir, name), text);
    files[name] = sha256(join(dir, name));
  }
  writeManifest(dir, { ...manifest, schema_minor: minor, files: { ...manifest.files, ...files } });
  return dir;
}

/** Writes run.json. */
export function writeManifest(dir: string, manifest: unknown): void {
  Deno.writeTextFileSync(join(dir, "run.json"), JSON.stringify(manifest, null, 2));
}

/** sha256 of a file, hex. */
export function sha256(file: string): string {
  return createHash("sha256").update(Deno.readFileSync(file)).digest("hex");
}

/** The manifest of shard `index` of `count` (run.json `plan.shard`), as the runner writes it in `shard-i-of-N/`. */
export function asShard(manifest: RunManifest, index: number, count: number): RunManifest {
  return { ...manifest, plan: { ...manifest.plan, shard: { index, count } } };
}

/** A latency row (a supported p99 e2e of class qa in stage low, n = 500) with `over` changed. */
export function latencyRow(over: Partial<LatencyRow>): LatencyRow {
  return {
    class: "qa",
    stage: "low",
    metric: "e2e_ms",
    p: 0.99,
    value: 900,
    n: 500,
    excluded: 0,
    excluded_not_streamed: 0,
    confidence: 0.95,
    lower: 850,
    upper: 990,
    support_confidence: 0.99,
    bound: 995,
    supported: true,
    note: null,
    window: null,
    inclusion: "",
    ...over,
  };
}
