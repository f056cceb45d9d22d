/**
 * `--from otlp`: the recorder's rows → its OpenTelemetry exporter's file → the import give back the same rows (every
 * column but run_id, which is the import's; times to the nanosecond, OTLP's unit) — for hand-made tasks in every state
 * and for the 527 requests of the sample run data/runs/explore. (Another app's spans: otlp_rows_test.ts; bad files:
 * otlp_spans_test.ts.)
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { AttemptRow, PhaseRow, RequestRow, ToolRow } from "../../../schema/events.ts";
import { isImported } from "../../../schema/imported_manifest.ts";
import { otlpExporter } from "../../../recorder/otlp.ts";
import type { TaskRows } from "../../../recorder/types.ts";
import { readOtlp } from "../../../importers/sources/otlp.ts";
import { sourceText } from "../../../importers/sources/_source_text.ts";
import { importPeer } from "../../../importers/import_peer.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { goodput } from "../../../analysis/goodput/goodput.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import {
  EXAMPLE_EPOCH_MS,
  exampleAttemptRow,
  examplePhaseRow,
  exampleRequestRow,
  exampleToolRow,
} from "../../../testing/task_rows.ts";
import { exploreRows } from "../../testing/peer_exports/_explore_rows.ts";

const INSTANTS = new Set([
  "scheduled_ms",
  "first_sent_ms",
  "first_token_ms",
  "completed_ms",
  "sent_ms",
  "headers_ms",
  "last_token_ms",
  "started_ms",
  "ended_ms",
]);
/**
 * A row as compared: run_id and the file's epoch column (contract 1.6, not part of a row) dropped, instants to the
 * nanosecond (OTLP's unit); every other value as it is.
 */
function comparable(row: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).filter(([k]) => k !== "run_id" && !k.endsWith("_epoch_ms")).map((
      [k, v],
    ) => [k, INSTANTS.has(k) && typeof v === "number" ? Math.round(v * 1e6) / 1e6 : v]),
  );
}

/** Exports `tasks` with the recorder's exporter to a file in `dir` and returns its path. */
async function exported(dir: string, tasks: TaskRows[]): Promise<string> {
  const file = join(dir, "traces.jsonl");
  const ex = otlpExporter({ file, service_name: "chat-app", max_batch: 100 });
  for (const t of tasks) ex.export(t);
  await ex.close();
  assert.deepEqual(ex.stats().dropped, { queue_full: 0, failed: 0 });
  return file;
}

/** Five tasks in the states a recording holds: retried, with tools and phases, unfinished, never sent, JSON. */
function handMade(): TaskRows[] {
  const t = (request: RequestRow, attempts: AttemptRow[], tools: ToolRow[] = [], phases: PhaseRow[] = []) => ({
    request,
    attempts,
    tools,
    phases,
    epoch_ms: EXAMPLE_EPOCH_MS,
  });
  const r = (id: string, over: Partial<RequestRow>) => exampleRequestRow({ request_id: id, ...over });
  const a = (id: string, over: Partial<AttemptRow>) => exampleAttemptRow({ request_id: id, ...over });
  return [
    t(
      r("retried", { attempts: 2, send_lag_ms: 0.75, service_mode: "degraded:short", reasoning_tokens: 3 }),
      [
        a("retried", {
          http_status: 429,
          error_kind: "http_429",
          first_token_ms: null,
          last_token_ms: null,
          completed_ms: null,
          retry_reason: "http_429",
          backoff_ms: 212.5,
          retry_after_ms: 1000,
          input_tokens: 0,
          output_tokens: 0,
          token_source: null,
          finish_reason: null,
          itl_p50_ms: null,
          itl_max_ms: null,
        }),
        a("retried", { attempt: 2, sent_ms: 400, service_mode: "degraded:short", reasoning_tokens: 3 }),
      ],
    ),
    t(
      r("agent", {
        class: "agent",
        priority: 2,
        case_id: "tool-1",
        rounds: 2,
        attempts: 2,
        tool_calls: 1,
        tool_ms: 40.5,
        schema_ok: false,
        auth_ok: true,
        quality_ok: false,
        quality_detail: "missing: refund",
        prompt_sha256: "ab".repeat(32),
        output_sha256: "cd".repeat(32),
        applicable_gates: "output_valid,quality_ok,schema_ok,auth_ok",
        cache_write_tokens: 12,
        cached_input_tokens: 30,
      }),
      [
        a("agent", { finish_reason: "tool_calls", cached_input_tokens: 30, cache_write_tokens: 12 }),
        a("agent", { round: 1, sent_ms: 700.5, route: "fallback", provider: "hosted", model: "big-1" }),
      ],
      [
        exampleToolRow({ request_id: "agent" }),
        exampleToolRow({ request_id: "agent", tool: "get_order", round: 1, started_ms: 650, ended_ms: 690.5 }),
        exampleToolRow({ request_id: "agent", tool: "refund", round: 1, ok: false, error_kind: "tool_timeout" }),
      ],
      [
        examplePhaseRow({
          request_id: "agent",
          phase: "page",
          side: "page",
          clock_offset_ms: 2.25,
          clock_error_ms: 0.5,
        }),
        examplePhaseRow({ request_id: "agent" }),
        examplePhaseRow({ request_id: "agent", phase: "queue", started_ms: 100.5, ended_ms: 101 }),
      ],
    ),
    t(
      r("unfinished", { outcome: "timeout", error_kind: "request_timeout", completed_ms: null, http_status: null }),
      [a("unfinished", { completed_ms: null, error_kind: "request_timeout", last_token_ms: 900 })],
    ),
    t(
      r("shed", {
        outcome: "client_shed",
        error_kind: "shed",
        first_sent_ms: null,
        first_token_ms: null,
        completed_ms: null,
        http_status: null,
        attempts: 0,
        rounds: 0,
        streamed: null,
        output_valid: null,
        quality_ok: null,
        applicable_gates: null,
      }),
      [],
    ),
    t(r("json", { streamed: false, first_token_ms: 999 }), [
      a("json", { streamed: false, first_token_ms: 999, last_token_ms: 999, itl_p50_ms: null, itl_max_ms: null }),
    ]),
  ];
}

Deno.test("the recorder's rows → its exporter's file → the import: every column equal but run_id", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const tasks = handMade();
    const file = await exported(dir, tasks);
    const run = readOtlp([sourceText(file, await Deno.readTextFile(file))]);
    const rows = run.rows!;
    assert.deepEqual(rows.requests.map(comparable), tasks.map((t) => comparable(t.request)));
    assert.deepEqual(rows.attempts.map(comparable), tasks.flatMap((t) => t.attempts).map(comparable));
    assert.deepEqual(rows.tools.map(comparable), tasks.flatMap((t) => t.tools).map(comparable));
    assert.deepEqual(rows.phases.map(comparable), tasks.flatMap((t) => t.phases).map(comparable));
    // ms 0 is the recorder's epoch (1796119200000.25 ms); epoch_iso states it to the ms.
    assert.equal(rows.epoch_iso, "2026-12-01T10:00:00.000Z");
    assert.deepEqual([rows.timeline.scheduled_from, rows.classes], ["schedule", ["chat", "agent"]]);
    assert.deepEqual(run.lacks.map((l) => l.field), ["sampling and dropped tasks"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the sample run's 527 requests, 758 attempts and 283 tool steps round-trip through OTLP, goodput equal", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ex = await exploreRows();
    const epoch_ms = Date.parse(ex.epoch_iso);
    const tasks = ex.requests.map((request) => ({
      request,
      attempts: ex.attempts.filter((a) => a.request_id === request.request_id),
      tools: ex.tools.filter((t) => t.request_id === request.request_id),
      phases: [],
      epoch_ms,
    }));
    const file = await exported(dir, tasks);
    const out = join(dir, "run");
    await importPeer("otlp", [file], out);
    const run = await loadRun(out, { onWarning: () => {} });
    assert.ok(isImported(run.manifest));
    assert.equal(run.manifest.epoch_iso, ex.epoch_iso);
    assert.deepEqual(
      run.requests.toRecords().map(comparable),
      tasks.map((t) => comparable(t.request)),
    );
    assert.deepEqual(run.attempts.toRecords().map(comparable), tasks.flatMap((t) => t.attempts).map(comparable));
    assert.deepEqual(run.tools.toRecords().map(comparable), tasks.flatMap((t) => t.tools).map(comparable));
    const original = await loadRun(new URL("../../../data/runs/explore", import.meta.url).pathname, {
      onWarning: () => {},
    });
    const policy: SloPolicy = {
      denominator: "offered",
      window: { exclude_stage_kinds: [] },
      classes: {},
      default: { e2e_ms: 3000, gates: [] },
    };
    const [a, b] = [goodput(original, policy).overall, goodput(run, policy).overall];
    assert.deepEqual([b.offered, b.completed, b.accepted], [a.offered, a.completed, a.accepted]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
