import assert from "node:assert/strict";
import { join } from "node:path";
import { runLoadTest } from "../../runner/run.ts";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { type FaultMode, startFaultServer } from "../support/fault_server.ts";
import { constantPlan, tinyCase, writeJson, writeWorkload } from "../../testing/tiny_workload.ts";

/**
 * Runs 3 requests (10 rps for 0.3 s) through the real runner against one misshapen mode and reads
 * the log back. `/sim/timeline` is answered by `timeline` (fetched only when one is given).
 */
async function runAgainst(mode: FaultMode, o: { stream?: boolean; timeline?: FaultMode } = {}) {
  const dir = Deno.makeTempDirSync();
  const srv = await startFaultServer({
    tokens: 2,
    pick: (req) => req.target.startsWith("/sim/timeline") ? o.timeline : undefined,
  });
  try {
    const workload = writeWorkload(dir, [tinyCase()], { qa: o.stream ?? true });
    const { dir: runDir, manifest } = await runLoadTest({
      workload,
      plan: constantPlan(dir, 10, 0.3),
      target: `${srv.url}/${mode}`,
      out: join(dir, "out"),
      formats: ["csv"],
      retryFile: writeJson(dir, "retry.json", { max_attempts: 2, base_ms: 5, cap_ms: 20, budget_min: 100 }),
      timeoutsFile: writeJson(dir, "timeouts.json", { attempt_ms: 1000, request_ms: 2500, idle_ms: 1000 }),
      progress: false,
      serverTimeline: o.timeline !== undefined,
    });
    const requests = await readLogCsv(join(runDir, "requests.csv"), "requests");
    const attempts = await readLogCsv(join(runDir, "attempts.csv"), "attempts");
    const server = o.timeline ? await readLogCsv(join(runDir, "server.csv"), "server") : [];
    const chatCalls = srv.requests.filter((r) => r.target.includes("/chat/completions")).length;
    return { requests, attempts, manifest, chatCalls, server };
  } finally {
    await srv.close();
    Deno.removeSync(dir, { recursive: true });
  }
}

/** Mode, whether the case streams, and the error kind every request must end with (outcome invalid_response). */
const MISSHAPEN: [FaultMode, boolean, string][] = [
  ["tool-index-2", true, "bad_tool_call_index"],
  ["tool-index-frac", true, "bad_tool_call_index"],
  ["tool-index-neg", true, "bad_tool_call_index"],
  ["tool-id-number", true, "bad_tool_call"],
  ["finish-object", true, "bad_finish_reason"],
  ["finish-number", true, "bad_finish_reason"],
  ["content-number", true, "bad_content"],
  ["content-object", true, "bad_content"],
  ["role-number", true, "bad_role"],
  ["delta-string", true, "bad_delta"],
  ["choices-object", true, "bad_choices"],
  ["after-done", true, "data_after_done"],
  ["json-finish-object", false, "bad_finish_reason"],
  ["json-message-string", false, "bad_message"],
];

Deno.test("a misshapen answer makes its request invalid_response with a precise kind; the run finalises", async (t) => {
  for (const [mode, stream, kind] of MISSHAPEN) {
    await t.step(mode, async () => {
      const { requests, attempts, manifest, chatCalls } = await runAgainst(mode, { stream });
      assert.deepEqual(requests.map((r) => r.request_id).sort(), ["r0000000", "r0000001", "r0000002"]);
      for (const r of requests) {
        assert.equal(r.outcome, "invalid_response", `${r.request_id}: ${r.error_kind}`);
        assert.equal(r.error_kind, kind);
        assert.equal(r.attempts, 1, "a malformed answer is not retried");
        assert.equal(r.http_status, 200);
        // Nothing of a bad field reaches the log: finish_reason is null or a string the server sent as one.
        assert.ok(r.finish_reason === null || typeof r.finish_reason === "string");
      }
      assert.equal(attempts.length, 3, "one attempt row per call");
      assert.equal(chatCalls, 3, "the server received exactly the calls the log holds");
      assert.ok(attempts.every((a) => a.error_kind === kind));
      assert.equal(manifest.result.status, "complete");
      assert.equal(manifest.result.offered, 3);
      assert.match(manifest.files["requests.csv"] ?? "", /^[0-9a-f]{64}$/);
      assert.match(manifest.files["attempts.csv"] ?? "", /^[0-9a-f]{64}$/);
    });
  }
});

Deno.test("bad /sim/timeline rows are dropped and counted; the good one is kept and the run finalises", async () => {
  const { requests, manifest, server } = await runAgainst("ok-sse", { timeline: "timeline-bad" });
  assert.equal(requests.length, 3);
  assert.ok(requests.every((r) => r.outcome === "ok"));
  // The answer holds 3 rows: one valid, one with queue_len -1, one with running "many" → 1 kept, 2 dropped.
  assert.equal(server.length, 1);
  assert.equal(manifest.result.server_rows_dropped, 2);
  assert.equal(manifest.result.status, "complete");
  assert.match(manifest.files["server.csv"] ?? "", /^[0-9a-f]{64}$/);
});

Deno.test("a well-formed stream with tool calls at index 0 then 1 is read whole (the index check refuses only gaps)", async () => {
  const { ResponseState } = await import("../../runner/dialects/openai_chat.ts");
  const s = new ResponseState();
  const call = (index: number, name: string) =>
    JSON.stringify({ choices: [{ delta: { tool_calls: [{ index, id: `c${index}`, function: { name } }] } }] });
  s.feedChunk(call(0, "a"), 1);
  s.feedChunk(call(1, "b"), 2);
  s.feedChunk(call(1, ""), 3);
  s.feedChunk(JSON.stringify({ choices: [{ delta: {}, finish_reason: "tool_calls" }] }), 4);
  s.feedChunk("[DONE]", 5);
  assert.equal(s.malformed, null);
  assert.deepEqual(s.toolCalls().map((c) => c.name), ["a", "b"]);
  // Index 3 after two calls would skip index 2.
  s.done = false;
  s.feedChunk(call(3, "c"), 6);
  assert.equal(s.malformedKind, "bad_tool_call_index");
});
