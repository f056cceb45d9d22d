import assert from "node:assert/strict";
import { join } from "node:path";
import type { AttemptRow, RequestRow } from "../../schema/mod.ts";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { type FaultMode, startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

/** Runs 3 requests (10 rps for 0.3 s) against one fault mode and reads the log back. */
async function runAgainst(mode: FaultMode, extra: { stream?: boolean; requestMs?: number } = {}) {
  const dir = Deno.makeTempDirSync();
  const srv = await startFaultServer({ tokens: 4, slowDelayMs: 100 });
  try {
    const workload = writeWorkload(dir, [tinyCase()], { qa: extra.stream ?? true });
    const { dir: runDir, manifest } = await runLoadTest({
      workload,
      plan: constantPlan(dir, 10, 0.3),
      target: `${srv.url}/${mode}`,
      out: join(dir, "out"),
      formats: ["csv"],
      retryFile: writeJson(dir, "retry.json", { max_attempts: 2, base_ms: 5, cap_ms: 20, budget_min: 100 }),
      timeoutsFile: writeJson(dir, "timeouts.json", {
        attempt_ms: 300,
        request_ms: extra.requestMs ?? 2500,
        headers_ms: 250,
        idle_ms: 250,
      }),
      progress: false,
      serverTimeline: false,
    });
    const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
    const attempts = await readLogCsv(join(runDir, "attempts.csv"), "attempts");
    return { requests, attempts, manifest, srv };
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
}

function assertTimeOrder(requests: RequestRow[], attempts: AttemptRow[]) {
  for (const r of requests) {
    const seq = [r.scheduled_ms, r.first_sent_ms, r.first_token_ms, r.completed_ms].filter((v) => v !== null);
    for (let i = 1; i < seq.length; i++) {
      assert.ok(seq[i - 1]! <= seq[i]!, `${r.request_id}: times out of order ${seq}`);
    }
    assert.ok(r.send_lag_ms === null || r.send_lag_ms >= 0);
  }
  for (const a of attempts) {
    const seq = [a.sent_ms, a.headers_ms, a.first_token_ms, a.last_token_ms, a.completed_ms].filter((v) => v !== null);
    for (let i = 1; i < seq.length; i++) assert.ok(seq[i - 1]! <= seq[i]!, `${a.request_id}/${a.attempt}: ${seq}`);
  }
}

const EXPECT: [FaultMode, { outcome: string; kind: string | null; attempts: number; status: number | null }][] = [
  ["ok-sse", { outcome: "ok", kind: null, attempts: 1, status: 200 }],
  ["ok-sse-eof", { outcome: "ok", kind: null, attempts: 1, status: 200 }],
  ["reset", { outcome: "transport_error", kind: "connection_reset", attempts: 2, status: null }],
  ["500", { outcome: "http_error", kind: "http_500", attempts: 2, status: 500 }],
  ["malformed-sse", { outcome: "invalid_response", kind: "malformed_sse", attempts: 1, status: 200 }],
  ["cut", { outcome: "transport_error", kind: "stream_cut", attempts: 2, status: 200 }],
  // No head within headers_ms: waiting in the target's queue, not retried by default.
  ["hang", { outcome: "timeout", kind: "header_timeout", attempts: 1, status: null }],
  // 4 tokens 100 ms apart: no gap reaches idle_ms (250) but the answer outlasts attempt_ms (300).
  ["slow", { outcome: "timeout", kind: "attempt_timeout", attempts: 2, status: 200 }],
  ["hang-headers", { outcome: "timeout", kind: "idle_timeout", attempts: 2, status: 200 }],
  ["wrong-content-type", { outcome: "invalid_response", kind: "bad_content_type", attempts: 1, status: 200 }],
  ["garbage", { outcome: "transport_error", kind: "protocol_error", attempts: 1, status: null }],
];

Deno.test("each fault of a misbehaving server becomes the right outcome, never a crash", async (t) => {
  for (const [mode, want] of EXPECT) {
    await t.step(mode, async () => {
      const { requests, attempts } = await runAgainst(mode);
      assert.equal(requests.length, 3, "every scheduled request has exactly one row");
      assert.deepEqual(new Set(requests.map((r) => r.request_id)).size, 3);
      for (const r of requests) {
        assert.equal(r.outcome, want.outcome, `${mode}: outcome of ${r.request_id} (${r.error_kind})`);
        assert.equal(r.error_kind, want.kind);
        assert.equal(r.attempts, want.attempts, `${mode}: attempts`);
        assert.equal(r.http_status, want.status);
        if (r.outcome === "ok") {
          assert.equal(r.output_valid, true);
          assert.equal(r.quality_ok, true);
          assert.equal(r.schema_ok, null, "no schema to check: null, never true");
          assert.equal(r.output_tokens, 4);
        } else {
          assert.deepEqual([r.output_valid, r.schema_ok, r.quality_ok, r.safety_ok, r.auth_ok], [
            null,
            null,
            null,
            null,
            null,
          ]);
          assert.equal(r.completed_ms, null);
        }
      }
      assert.equal(attempts.length, 3 * want.attempts);
      assertTimeOrder(requests, attempts);
    });
  }
});

Deno.test("a 429 is retried after the server's Retry-After, then recorded as rejected", async () => {
  const { requests, attempts } = await runAgainst("429");
  for (const r of requests) {
    assert.equal(r.outcome, "rejected");
    const [a1, a2] = attempts.filter((a) => a.request_id === r.request_id).sort((a, b) => a.attempt - b.attempt);
    assert.equal(a1!.retry_reason, "http_429");
    assert.equal(a1!.backoff_ms, 1000, "Retry-After: 1 → 1000 ms, not the 5–20 ms jittered backoff");
    assert.ok(a2!.sent_ms - a1!.sent_ms >= 1000, `second attempt ${a2!.sent_ms - a1!.sent_ms} ms after the first`);
    assert.equal(a2!.retry_reason, null);
  }
});

Deno.test("a retry whose Retry-After reaches the deadline is never sent, counted or spent from the budget", async () => {
  // 429 with Retry-After: 1 (1000 ms) and a 900 ms request deadline: no retry can be sent before it.
  const { requests, attempts, manifest, srv } = await runAgainst("429", { requestMs: 900 });
  const retryRows = attempts.filter((a) => a.attempt > 1);
  assert.equal(manifest.result.retries, retryRows.length, "run.json retries = retry attempt rows");
  assert.equal(manifest.result.retries, 0);
  assert.equal(srv.requests.length, 3, "the server received one call per request");
  assert.equal(manifest.result.retry_past_deadline, 3, "one refused retry per request");
  assert.equal(manifest.result.retry_budget_exhausted, 0);
  for (const r of requests) {
    assert.equal(r.outcome, "rejected");
    assert.equal(r.attempts, 1);
    assert.equal(r.error_kind, "http_429+retry_past_deadline");
  }
  for (const a of attempts) {
    assert.equal(a.retry_reason, null, "not retried");
    assert.equal(a.error_kind, "http_429", "the attempt row keeps its own kind");
  }
});

Deno.test("run.json retries equals the retry attempt rows when retries are sent", async () => {
  const { attempts, manifest } = await runAgainst("429");
  // 3 requests × (1 first + 1 retry after Retry-After: 1 s, well inside the 2500 ms deadline).
  assert.equal(attempts.filter((a) => a.attempt > 1).length, 3);
  assert.equal(manifest.result.retries, 3);
  assert.equal(manifest.result.retry_past_deadline, 0);
});

Deno.test("retries of one round carry the same idempotency key", async () => {
  const { srv, requests } = await runAgainst("500");
  const keys = srv.requests.map((r) => r.headers.get("idempotency-key"));
  assert.equal(keys.length, 6);
  for (const r of requests) {
    assert.equal(keys.filter((k) => k?.includes(`:${r.request_id}:0`)).length, 2);
  }
});

Deno.test("non-streaming JSON answers are read whole", async () => {
  const { requests, attempts } = await runAgainst("ok-json", { stream: false });
  for (const r of requests) {
    assert.equal(r.outcome, "ok");
    assert.equal(r.quality_ok, true);
  }
  for (const a of attempts) assert.equal(a.first_token_ms, a.completed_ms);
});
