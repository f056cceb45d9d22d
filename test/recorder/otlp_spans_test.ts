/**
 * A task's rows as OTLP spans (recorder/otlp_spans.ts): ids from the request id, times in unix nanoseconds exact to
 * the nanosecond, the GenAI semantic-convention names, and every other contract field under `goodput.`.
 */
import assert from "node:assert/strict";
import { SCHEMA_MINOR, SCHEMA_VERSION } from "../../schema/version.ts";
import type { OtlpSpan } from "../../schema/otlp.ts";
import { fromAnyValue } from "../../schema/otlp.ts";
import { NanoClock, spanIdOf, taskSpans, traceIdOf } from "../../recorder/otlp_spans.ts";
import {
  exampleAttemptRow,
  examplePhaseRow,
  exampleRequestRow,
  exampleTaskRows,
  exampleToolRow,
} from "../../testing/task_rows.ts";

const attrs = (s: OtlpSpan) => Object.fromEntries((s.attributes ?? []).map((kv) => [kv.key, fromAnyValue(kv.value)]));
const events = (s: OtlpSpan) => Object.fromEntries((s.events ?? []).map((e) => [e.name, e.timeUnixNano]));

Deno.test("trace and span ids are the leading bytes of SHA-256 of the request id", () => {
  // sha256("goodput:r-1") = e54c12ff31e6c6da98ae9736806f93ee…; sha256("goodput:r-1:task") = d4accdf1c96dc0d2…;
  // sha256("goodput:r-1:attempt:0") = b9a2af0924a2a8a6… (computed apart, with Python's hashlib).
  assert.equal(traceIdOf("r-1"), "e54c12ff31e6c6da98ae9736806f93ee");
  assert.equal(spanIdOf("r-1", "task"), "d4accdf1c96dc0d2");
  const [root, call] = taskSpans(exampleTaskRows());
  assert.deepEqual([root!.traceId, root!.spanId, root!.parentSpanId], [
    traceIdOf("r-1"),
    "d4accdf1c96dc0d2",
    undefined,
  ]);
  assert.deepEqual([call!.traceId, call!.spanId, call!.parentSpanId], [
    traceIdOf("r-1"),
    "b9a2af0924a2a8a6",
    root!.spanId,
  ]);
});

Deno.test("times are unix nanoseconds, exact to the nanosecond on a fractional epoch", () => {
  // Epoch 1796119200000.25 ms = 1796119200000250000 ns. scheduled 100 ms → …100250000; first token 480.125 ms →
  // 1796119200000250000 + 480125000 = 1796119200480375000; completed 1300 ms → 1796119201300250000.
  const clock = new NanoClock(1796119200000.25);
  assert.equal(clock.epoch, "1796119200000250000");
  assert.equal(clock.at(480.125), "1796119200480375000");
  const [root] = taskSpans(exampleTaskRows());
  assert.equal(root!.startTimeUnixNano, "1796119200100250000");
  assert.equal(root!.endTimeUnixNano, "1796119201300250000");
  assert.deepEqual(events(root!), {
    "goodput.first_sent": "1796119200112750000",
    "goodput.first_token": "1796119200480375000",
    "goodput.completed": "1796119201300250000",
  });
});

Deno.test("the root span is the task: SERVER, `task {class}`, every request field not in the conventions under goodput.", () => {
  const [root] = taskSpans(exampleTaskRows());
  assert.equal(root!.name, "task chat");
  assert.equal(root!.kind, 2);
  assert.deepEqual(root!.status, { code: 0 });
  const a = attrs(root!);
  assert.equal(a["goodput.epoch_unix_nano"], "1796119200000250000");
  assert.equal(a["goodput.contract"], `${SCHEMA_VERSION}.${SCHEMA_MINOR}`);
  assert.equal(a["http.response.status_code"], 200);
  assert.equal(a["goodput.outcome"], "ok");
  assert.equal(a["goodput.class"], "chat");
  assert.equal(a["goodput.output_valid"], true);
  assert.equal(a["goodput.input_tokens"], 42);
  // Null is absent (not recorded): error_kind, the unevaluated gates, send_lag_ms, reasoning tokens.
  for (const k of ["error.type", "goodput.schema_ok", "goodput.send_lag_ms", "goodput.reasoning_tokens"]) {
    assert.equal(k in a, false, k);
  }
  // The request's token sums are goodput.* (not gen_ai.usage.*, which the chat spans carry: no double count).
  assert.equal(Object.keys(a).some((k) => k.startsWith("gen_ai.")), false);
});

Deno.test("an attempt span follows the GenAI inference span: `chat {model}`, CLIENT, provider, model, usage, finish", () => {
  const call = taskSpans(
    exampleTaskRows({ attempts: [exampleAttemptRow({ cache_write_tokens: 6, reasoning_tokens: 2 })] }),
  )[1]!;
  assert.equal(call.name, "chat sim-llm");
  assert.equal(call.kind, 3);
  const a = attrs(call);
  assert.deepEqual(
    [a["gen_ai.operation.name"], a["gen_ai.provider.name"], a["gen_ai.system"], a["gen_ai.request.model"]],
    ["chat", "127.0.0.1:8787", "127.0.0.1:8787", "sim-llm"],
  );
  assert.deepEqual(
    [a["gen_ai.usage.input_tokens"], a["gen_ai.usage.output_tokens"], a["gen_ai.usage.cache_read.input_tokens"]],
    [42, 17, 0],
  );
  assert.equal(a["gen_ai.usage.cache_creation.input_tokens"], 6);
  assert.equal(a["gen_ai.usage.reasoning.output_tokens"], 2);
  assert.deepEqual(a["gen_ai.response.finish_reasons"], ["stop"]);
  assert.deepEqual([a["goodput.round"], a["goodput.attempt"], a["goodput.itl_max_ms"]], [0, 1, 95.5]);
  // Durations are doubles even when whole: itl_p50_ms 40.
  assert.deepEqual(call.attributes!.find((kv) => kv.key === "goodput.itl_p50_ms")!.value, { doubleValue: 40 });
  assert.deepEqual(Object.keys(events(call)), [
    "goodput.headers",
    "goodput.first_token",
    "goodput.last_token",
    "goodput.completed",
  ]);
});

Deno.test("a failed call is ERROR with error.type, no completed event, and ends at its last instant", () => {
  const failed = exampleAttemptRow({
    http_status: 429,
    error_kind: "http_429",
    first_token_ms: null,
    last_token_ms: null,
    completed_ms: null,
    retry_after_ms: 1000,
  });
  const call = taskSpans(exampleTaskRows({ attempts: [failed] }))[1]!;
  assert.deepEqual(call.status, { code: 2, message: "http_429" });
  assert.equal(attrs(call)["error.type"], "http_429");
  assert.equal(attrs(call)["goodput.retry_after_ms"], 1000);
  assert.deepEqual(Object.keys(events(call)), ["goodput.headers"]);
  // Its last instant: headers at 300 ms → 1796119200000250000 + 300000000.
  assert.equal(call.endTimeUnixNano, "1796119200300250000");
});

Deno.test("tool steps are `execute_tool {name}` spans, phases `phase {name}` spans, both INTERNAL", () => {
  const spans = taskSpans(exampleTaskRows({
    tools: [exampleToolRow(), exampleToolRow({ tool: "get_order", round: 1, ok: false, error_kind: "timeout" })],
    phases: [examplePhaseRow({ phase: "network_up", side: "network", clock_offset_ms: -3.5, clock_error_ms: 0.5 })],
  }));
  assert.deepEqual(spans.map((s) => [s.name, s.kind]), [
    ["task chat", 2],
    ["chat sim-llm", 3],
    ["execute_tool retrieval", 1],
    ["execute_tool get_order", 1],
    ["phase network_up", 1],
  ]);
  assert.deepEqual(attrs(spans[3]!), {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "get_order",
    "goodput.round": 1,
    "error.type": "timeout",
  });
  assert.deepEqual(spans[3]!.status, { code: 2, message: "timeout" });
  assert.deepEqual(attrs(spans[4]!), {
    "goodput.phase": "network_up",
    "goodput.side": "network",
    "goodput.clock_offset_ms": -3.5,
    "goodput.clock_error_ms": 0.5,
  });
});

Deno.test("an unfinished task has no completed event; its root ends at its last recorded instant, ERROR", () => {
  const rows = exampleTaskRows({
    request: exampleRequestRow({ outcome: "timeout", error_kind: "request_timeout", completed_ms: null }),
    attempts: [exampleAttemptRow({ completed_ms: null, error_kind: "request_timeout", http_status: 200 })],
  });
  const [root] = taskSpans(rows);
  assert.equal("goodput.completed" in events(root!), false);
  // The last instant: the attempt's last token at 1250 ms.
  assert.equal(root!.endTimeUnixNano, "1796119201250250000");
  assert.deepEqual(root!.status, { code: 2, message: "request_timeout" });
});
