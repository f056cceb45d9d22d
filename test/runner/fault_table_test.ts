/**
 * The misbehaving-server table: every fault kind of test/support/fault_server.ts that answers a chat call, each
 * with the outcome, error kind and attempts its request must end with. One run per table (streamed, not
 * streamed), one request per row: request `r000000k` is answered by row k's mode (chosen by its idempotency key,
 * which its retries share), so each run offers as many requests as its table has rows.
 *
 * Left out: `timeline-bad` (not a chat answer: test/runner/run_misshapen_test.ts).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Outcome } from "../../schema/mod.ts";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { type FaultMode, startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

/** Mode, outcome, error kind, attempts (= calls the server receives), and output_valid of an `ok` row. */
type Row = [FaultMode, Outcome, string | null, number, boolean?];

// Retry policy below: max_attempts 2, so a retryable failure (500, 502–504, 429, stream_cut, timeouts) makes
// 2 attempts and anything else 1. Timeouts: attempt 1200 ms, idle 400 ms, request 4000 ms.
const STREAMED: Row[] = [
  ["ok-sse", "ok", null, 1, true],
  ["ok-sse-eof", "ok", null, 1, true],
  ["sse-crlf", "ok", null, 1, true],
  ["sse-cr", "ok", null, 1, true],
  ["sse-byte-chunks", "ok", null, 1, true],
  ["sse-bom", "ok", null, 1, true], // the BOM is dropped by the UTF-8 decoder, as an event stream's must be
  ["sse-bad-utf8", "ok", null, 1, true], // bytes that are not UTF-8 decode to U+FFFD (WHATWG event streams)
  ["sse-other-model", "ok", null, 1, true], // the model a response names is not checked (providers add versions)
  ["sse-dup-keys", "ok", null, 1, true], // JSON.parse keeps the last of duplicate keys: "tok0 "
  ["sse-usage-total-wrong", "ok", null, 1, true], // total_tokens is not read: tokens are prompt + completion
  ["sse-usage-missing", "ok", null, 1, true], // counted by the tokenizer instead
  ["sse-no-done", "ok", null, 1, true], // a finish_reason ends the answer as well as [DONE]
  ["sse-long-line", "ok", null, 1, true], // 6 MiB in one line, under the 8 MiB cap
  // Complete at the transport but not a valid answer: the output_valid gate fails (outcome ok, not accepted).
  ["sse-choices-empty", "ok", null, 1, false],
  ["sse-finish-unknown", "ok", null, 1, false],
  ["sse-finish-missing", "ok", null, 1, false],
  ["sse-no-data-prefix", "invalid_response", "stream_incomplete", 1],
  ["sse-keepalive-only", "invalid_response", "stream_incomplete", 1],
  ["sse-no-end", "invalid_response", "stream_incomplete", 1],
  ["malformed-sse", "invalid_response", "malformed_sse", 1],
  ["sse-error-event", "invalid_response", "malformed_sse", 1],
  ["sse-cut-mid-json", "invalid_response", "malformed_sse", 1],
  ["wrong-content-type", "invalid_response", "bad_content_type", 1],
  ["tool-index-2", "invalid_response", "bad_tool_call_index", 1],
  ["tool-index-frac", "invalid_response", "bad_tool_call_index", 1],
  ["tool-index-neg", "invalid_response", "bad_tool_call_index", 1],
  ["tool-id-number", "invalid_response", "bad_tool_call", 1],
  ["sse-tool-args-object", "invalid_response", "bad_tool_call", 1],
  ["sse-tool-calls-object", "invalid_response", "bad_tool_call", 1],
  ["finish-object", "invalid_response", "bad_finish_reason", 1],
  ["finish-number", "invalid_response", "bad_finish_reason", 1],
  ["content-number", "invalid_response", "bad_content", 1],
  ["content-object", "invalid_response", "bad_content", 1],
  ["role-number", "invalid_response", "bad_role", 1],
  ["delta-string", "invalid_response", "bad_delta", 1],
  ["choices-object", "invalid_response", "bad_choices", 1],
  // A second choice (n > 1 or index ≠ 0): never joined to the first one's text.
  ["sse-choice-index-1", "invalid_response", "multiple_choices", 1],
  ["sse-two-choices", "invalid_response", "multiple_choices", 1],
  ["after-done", "invalid_response", "data_after_done", 1],
  ["sse-usage-negative", "invalid_response", "bad_usage", 1],
  ["sse-usage-float", "invalid_response", "bad_usage", 1],
  ["sse-usage-string", "invalid_response", "bad_usage", 1],
  ["sse-usage-huge", "invalid_response", "bad_usage", 1],
  ["endless-sse-line", "invalid_response", "response_too_large", 1],
  ["oversized-length", "invalid_response", "response_too_large", 1],
  ["cut", "transport_error", "stream_cut", 2],
  // Closed after reading the request, before any answer byte: an attempt of its own, never a hidden resend.
  ["reset", "transport_error", "connection_reset", 2],
  ["garbage", "transport_error", "protocol_error", 1],
  // A chunked body broken after the head is a cut body, as with fetch (test/runner/http/chunk_framing_test.ts): retried.
  ["bad-chunk", "transport_error", "stream_cut", 2],
  ["hang", "timeout", "header_timeout", 1], // no head within headers_ms: not retried by default
  ["hang-headers", "timeout", "idle_timeout", 2],
  // 4 tokens 350 ms apart: no gap reaches idle (400) but the answer outlasts the attempt (1200).
  ["slow", "timeout", "attempt_timeout", 2],
  ["sse-slowloris", "timeout", "attempt_timeout", 2], // a byte every 40 ms: never idle, never done
];

const UNSTREAMED: Row[] = [
  ["ok-json", "ok", null, 1, true],
  ["json-bom", "ok", null, 1, true],
  ["json-bad-utf8", "ok", null, 1, true],
  ["json-dup-keys", "ok", null, 1, true],
  ["no-usage-one-char", "ok", null, 1, true], // over the tokenizer bound: tokens not counted, the answer used
  ["json-finish-missing", "ok", null, 1, false],
  ["json-empty", "invalid_response", "invalid_json", 1],
  ["json-not-json", "invalid_response", "invalid_json", 1],
  ["json-array", "invalid_response", "invalid_json", 1],
  ["json-error-200", "invalid_response", "invalid_json", 1],
  ["json-choices-empty", "invalid_response", "invalid_json", 1],
  ["json-choices-string", "invalid_response", "bad_choices", 1],
  ["json-message-string", "invalid_response", "bad_message", 1],
  ["json-two-choices", "invalid_response", "multiple_choices", 1],
  ["json-choice-index-1", "invalid_response", "multiple_choices", 1],
  ["json-content-number", "invalid_response", "bad_content", 1],
  ["json-role-number", "invalid_response", "bad_role", 1],
  ["json-tool-args-object", "invalid_response", "bad_tool_call", 1],
  ["json-finish-object", "invalid_response", "bad_finish_reason", 1],
  ["json-usage-negative", "invalid_response", "bad_usage", 1],
  ["json-usage-huge", "invalid_response", "bad_usage", 1],
  ["json-html", "invalid_response", "bad_content_type", 1],
  ["oversized-json", "invalid_response", "response_too_large", 1],
  ["json-cut", "transport_error", "stream_cut", 2],
  ["json-two-lengths", "transport_error", "protocol_error", 1],
  ["500", "http_error", "http_500", 2],
  ["500-html", "http_error", "http_500", 2],
  ["503-empty", "http_error", "http_503", 2],
  ["501", "http_error", "http_501", 1],
  ["400", "http_error", "http_400", 1],
  ["401", "http_error", "http_401", 1],
  ["404-html", "http_error", "http_404", 1],
  ["429", "rejected", "http_429", 2], // Retry-After: 1 → the retry 1 s later, inside the 4 s deadline
  ["429-date", "rejected", "http_429", 2], // an HTTP date 1–2 s ahead: honoured
  ["429-negative", "rejected", "http_429", 2], // unusable: the jittered backoff instead
  ["429-garbage", "rejected", "http_429", 2],
  // 99999999 s, capped at retry_after_cap_ms (10 s by default) ≥ the 4 s deadline: the retry is never sent.
  ["429-huge", "rejected", "http_429+retry_past_deadline", 1],
];

/** Runs one request per row against its mode and reads the log back. */
async function runTable(rows: Row[], stream: boolean) {
  const dir = Deno.makeTempDirSync();
  const modeOf = new Map(rows.map(([mode], k) => [`r${String(k).padStart(7, "0")}`, mode]));
  const requestOf = (h: string | undefined) => h?.split(":")[1];
  const srv = await startFaultServer({
    tokens: 4,
    slowDelayMs: 350,
    pick: (req) => modeOf.get(requestOf(req.headers.get("idempotency-key")) ?? ""),
  });
  try {
    const { dir: runDir, manifest } = await runLoadTest({
      workload: writeWorkload(dir, [tinyCase()], { qa: stream }),
      // rows.length requests per second for 1 s: one request per row.
      plan: constantPlan(dir, rows.length, 1),
      target: srv.url,
      out: join(dir, "out"),
      formats: ["csv"],
      retryFile: writeJson(dir, "retry.json", { max_attempts: 2, base_ms: 5, cap_ms: 20, budget_min: 1000 }),
      timeoutsFile: writeJson(dir, "timeouts.json", {
        attempt_ms: 1200,
        request_ms: 4000,
        headers_ms: 400,
        idle_ms: 400,
      }),
      progress: false,
      serverTimeline: false,
    });
    const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
    const attempts = await readLogCsv(join(runDir, "attempts.csv"), "attempts");
    const received = new Map<string, number>();
    for (const q of srv.requests) {
      const id = requestOf(q.headers.get("idempotency-key")) ?? "(none)";
      received.set(id, (received.get(id) ?? 0) + 1);
    }
    return { requests, attempts, manifest, received, calls: srv.requests.length, modeOf };
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
}

for (const [name, rows, stream] of [["streamed", STREAMED, true], ["unstreamed", UNSTREAMED, false]] as const) {
  Deno.test(`misbehaving server, ${name}: every offered request has one row with its fault's outcome and kind`, async () => {
    assert.equal(new Set(rows.map((r) => r[0])).size, rows.length, "each mode once");
    const { requests, attempts, manifest, received, calls, modeOf } = await runTable(rows, stream);
    assert.equal(manifest.result.offered, rows.length);
    assert.equal(requests.length, rows.length, "one row per offered request");
    assert.deepEqual(requests.map((r) => r.request_id).sort(), [...modeOf.keys()], "each request exactly once");
    const byId = new Map(requests.map((r) => [r.request_id, r]));
    const problems: string[] = [];
    for (const [k, [mode, outcome, kind, n, valid]] of rows.entries()) {
      const id = `r${String(k).padStart(7, "0")}`;
      const r = byId.get(id)!;
      const rowAttempts = attempts.filter((a) => a.request_id === id).length;
      const got = [r.outcome, r.error_kind, r.attempts, rowAttempts, received.get(id) ?? 0, r.output_valid];
      const want = [outcome, kind, n, n, n, outcome === "ok" ? valid : null];
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        problems.push(`${mode}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
      }
    }
    // [outcome, error_kind, requests.attempts, attempt rows, calls the server received, output_valid]
    assert.deepEqual(problems, []);
    assert.equal(attempts.length, calls, "the log holds every call the server received, no more");
    assert.equal(manifest.result.status, "complete");
    for (const f of ["requests.csv", "attempts.csv", "tools.csv", "schedule.csv"]) {
      assert.match(manifest.files[f] ?? "", /^[0-9a-f]{64}$/, `${f} hashed`);
    }
  });
}
