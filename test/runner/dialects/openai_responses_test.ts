import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { InputError } from "../../../schema/errors.ts";
import type { AnswerParser, WireMessage } from "../../../runner/dialects/dialect.ts";
import { openaiResponsesDialect as d } from "../../../runner/dialects/openai_responses.ts";
import { parseDurationMs } from "../../../runner/dialects/openai_limits.ts";
import { SseDecoder } from "../../../runner/http/sse.ts";
import { tinyCase } from "../../../testing/tiny_workload.ts";

const DIR = fileURLToPath(new URL("../../fixtures/dialects/openai-responses/", import.meta.url));
const read = (name: string) => Deno.readTextFileSync(DIR + name);

/** Replays a fixture's events through a fresh parser, event i at 100 + 10·i ms. */
function replay(name: string): AnswerParser {
  const a = d.newAnswer();
  const dec = new SseDecoder();
  const events = [...dec.push(new TextEncoder().encode(read(name))), ...dec.end().events];
  events.forEach((ev, i) => a.feedEvent({ event: ev.event ?? null, data: ev.data }, 100 + 10 * i));
  return a;
}

const usage = (prompt: number, completion: number, cached: number, reasoning: number | null) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  cached_tokens: cached,
  reasoning_tokens: reasoning,
  cache_write_tokens: null,
});

function clean(a: AnswerParser): void {
  assert.equal(a.malformed, null, `malformed: ${a.malformedKind} ${a.malformed}`);
  assert.equal(a.badUsage, null);
  assert.equal(a.complete(), true);
}

Deno.test("openai-responses parser reads the stream fixtures", async (t) => {
  await t.step("text: TTFT at the first output_text.delta, usage with cached tokens, served tier", () => {
    const a = replay("text.sse");
    clean(a);
    assert.equal(a.text, "Paris is the capital of France.");
    // Deltas are events 4, 5, 6: 140, 150, 160 ms; gaps 10 and 10.
    assert.equal(a.firstTokenMs, 140);
    assert.equal(a.lastTokenMs, 160);
    assert.deepEqual(a.itl(), { p50: 10, max: 10 });
    assert.equal(a.finishReason, "stop");
    assert.deepEqual(a.usage, usage(1200, 7, 64, 0));
    // response.created said `auto`; the completed response says the tier that served it.
    assert.equal(a.serviceTier, "default");
    assert.equal(a.streamFailure, null);
  });
  await t.step("tool call: the name (event 2) is the first token, arguments joined, finish tool_calls", () => {
    const a = replay("tool_call.sse");
    clean(a);
    assert.equal(a.text, "");
    assert.deepEqual(a.toolCalls(), [{
      id: "call_Wx7",
      name: "get_weather",
      raw_arguments: '{"city":"Paris"}',
      arguments: { city: "Paris" },
    }]);
    // item added 120, deltas 130, 140, 150; the agreeing .done events (160, 170) are not tokens.
    assert.equal(a.firstTokenMs, 120);
    assert.equal(a.lastTokenMs, 150);
    assert.deepEqual(a.itl(), { p50: 10, max: 10 });
    assert.equal(a.finishReason, "tool_calls");
    assert.deepEqual(a.usage, usage(310, 18, 0, 0));
  });
  await t.step("refusal: the refusal text is the answer's text, finish refusal", () => {
    const a = replay("refusal.sse");
    clean(a);
    assert.equal(a.text, "I'm sorry, I can't help with that.");
    assert.equal(a.finishReason, "refusal");
    assert.equal(a.firstTokenMs, 130);
    assert.equal(a.lastTokenMs, 140);
    assert.deepEqual(a.usage, usage(95, 10, 0, 0));
  });
  await t.step("response.failed rate_limit_exceeded mid-stream: rejected", () => {
    const a = replay("failed_rate_limit.sse");
    assert.equal(a.malformed, null);
    assert.deepEqual(a.streamFailure, { kind: "stream_rate_limit_exceeded", outcome: "rejected", status: null });
    assert.equal(a.text, "The answer");
    assert.equal(a.firstTokenMs, 120);
    assert.equal(a.finishReason, null);
    assert.equal(a.usage, null);
  });
  await t.step("error event then response.failed server_error: http_error, the first failure kept", () => {
    const a = replay("error_server.sse");
    assert.equal(a.malformed, null);
    assert.deepEqual(a.streamFailure, { kind: "stream_server_error", outcome: "http_error", status: null });
    assert.equal(a.complete(), true);
  });
  await t.step("reasoning item is not content; cached and reasoning tokens read; flex tier", () => {
    const a = replay("reasoning_cached.sse");
    clean(a);
    assert.equal(a.text, '{"total":42}');
    assert.equal(a.firstTokenMs, 150);
    assert.deepEqual(a.usage, usage(2048, 300, 1024, 256));
    assert.equal(a.serviceTier, "flex");
  });
  await t.step("response.incomplete max_output_tokens: finish length", () => {
    const a = replay("incomplete_length.sse");
    clean(a);
    assert.equal(a.text, "Once upon a time");
    assert.equal(a.finishReason, "length");
    assert.deepEqual(a.usage, usage(40, 4, 0, 0));
  });
  await t.step("response.incomplete content_filter: finish content_filter", () => {
    const a = replay("content_filter.sse");
    clean(a);
    assert.equal(a.finishReason, "content_filter");
    assert.equal(a.text, "Here is how");
  });
});

Deno.test("openai-responses parser reads whole bodies", async (t) => {
  await t.step("text body: every token at the body's time, priority tier", () => {
    const a = d.newAnswer();
    a.feedBody(read("body_text.json"), 500);
    clean(a);
    assert.equal(a.text, "Paris is the capital of France.");
    assert.equal(a.firstTokenMs, 500);
    assert.equal(a.lastTokenMs, 500);
    assert.equal(a.finishReason, "stop");
    assert.deepEqual(a.usage, usage(1200, 7, 1152, 0));
    assert.equal(a.serviceTier, "priority");
  });
  await t.step("tool-call body with a reasoning item", () => {
    const a = d.newAnswer();
    a.feedBody(read("body_tool_call.json"), 500);
    clean(a);
    assert.deepEqual(a.toolCalls(), [{
      id: "call_B2",
      name: "lookup_order",
      raw_arguments: '{"order_id":"A-17"}',
      arguments: { order_id: "A-17" },
    }]);
    assert.equal(a.finishReason, "tool_calls");
    assert.deepEqual(a.usage, usage(500, 90, 0, 64));
  });
});

Deno.test("openai-responses parser gives each malformed fixture its kind, never an exception", async (t) => {
  const kinds: Record<string, string> = {
    "not_json.sse": "malformed_sse",
    "type_not_string.sse": "bad_event",
    "event_name_mismatch.sse": "event_type_mismatch",
    "event_after_end.sse": "event_after_end",
    "delta_unknown_item.sse": "unknown_item",
    "delta_missing_item_id.sse": "bad_event",
    "delta_not_string.sse": "bad_text_delta",
    "args_for_message.sse": "unknown_item",
    "item_not_object.sse": "bad_output_item",
    "duplicate_item.sse": "duplicate_item",
    "call_name_not_string.sse": "bad_tool_call",
    "args_delta_not_string.sse": "bad_tool_call",
    "args_mismatch.sse": "tool_call_mismatch",
    "response_not_object.sse": "bad_response",
    "status_mismatch.sse": "bad_status",
    "incomplete_details_bad.sse": "bad_incomplete_details",
    "service_tier_number.sse": "bad_service_tier",
  };
  for (const [file, kind] of Object.entries(kinds)) {
    await t.step(`${file} → ${kind}`, () => {
      const a = replay(`malformed/${file}`);
      assert.equal(a.malformedKind, kind, a.malformed ?? "");
      assert.ok(a.malformed);
    });
  }
  for (const file of ["usage_cached_exceeds", "usage_reasoning_exceeds", "usage_string_count", "usage_total_wrong"]) {
    await t.step(`${file}.sse → usage void (bad_usage), the answer otherwise read`, () => {
      const a = replay(`malformed/${file}.sse`);
      assert.equal(a.malformed, null);
      assert.ok(a.badUsage);
      assert.equal(a.usage, null);
      assert.equal(a.text, "Hi");
      assert.equal(a.finishReason, "stop");
    });
  }
  await t.step("truncated.sse (no terminal event) → not complete", () => {
    const a = replay("malformed/truncated.sse");
    assert.equal(a.malformed, null);
    assert.equal(a.complete(), false);
    assert.equal(a.text, "Hi");
  });
  const bodies: Record<string, string> = {
    "body_output_not_array.json": "bad_output",
    "body_content_not_array.json": "bad_content_part",
    "body_status_unknown.json": "bad_status",
    "body_not_json.txt": "invalid_json",
  };
  for (const [file, kind] of Object.entries(bodies)) {
    await t.step(`${file} → ${kind}`, () => {
      const a = d.newAnswer();
      a.feedBody(read(`malformed/${file}`), 1);
      assert.equal(a.malformedKind, kind, a.malformed ?? "");
    });
  }
});

const KEY = "sk-test-NEVER-WRITE-ME-4242";
const spec = (options: Record<string, unknown> = {}, url = "https://api.openai.com") => ({
  url,
  model: "gpt-4.1",
  key: KEY,
  options,
  where: "routes.json: routes.main",
});

Deno.test("openai-responses prepare: endpoint, headers, options, errors naming the field", async (t) => {
  await t.step("a bare host, a /v1 base and the full endpoint all reach /v1/responses", () => {
    for (const url of ["https://api.openai.com", "https://api.openai.com/v1/", "https://api.openai.com/v1/responses"]) {
      assert.equal(d.prepare(spec({}, url)).url(true).href, "https://api.openai.com/v1/responses");
    }
    assert.equal(
      d.prepare(spec({}, "http://127.0.0.2:9000/proxy")).url(false).href,
      "http://127.0.0.2:9000/proxy/v1/responses",
    );
  });
  await t.step("headers and recorded options", () => {
    const r = d.prepare(spec({ organization: "org-1", project: "proj_1", service_tier: "flex" }));
    assert.equal(r.headers.authorization, `Bearer ${KEY}`);
    assert.equal(r.headers["openai-organization"], "org-1");
    assert.equal(r.headers["openai-project"], "proj_1");
    assert.deepEqual(r.secretHeaders, ["authorization"]);
    assert.equal(r.serviceTier, "flex");
    assert.deepEqual(r.options, { organization: "org-1", project: "proj_1", service_tier: "flex" });
    assert.equal(r.sign, null);
    assert.equal(d.prepare({ ...spec(), key: null }).headers.authorization, undefined);
  });
  await t.step("an unknown option and a bad value name their field", () => {
    assert.throws(
      () => d.prepare(spec({ servce_tier: "flex" })),
      (e) => e instanceof InputError && e.message.includes("routes.json: routes.main.dialect_options.servce_tier"),
    );
    assert.throws(
      () => d.prepare(spec({ service_tier: "turbo" })),
      (e) => e instanceof InputError && e.message.includes("routes.main.dialect_options.service_tier"),
    );
    assert.throws(
      () => d.prepare(spec({ reasoning_effort: 3 })),
      (e) => e instanceof InputError && e.message.includes("dialect_options.reasoning_effort"),
    );
    assert.throws(() => d.prepare(spec({}, "ftp://x")), /routes\.main\.url: must be http/);
  });
});

const SYSTEM = "You are a support agent.";
const toolCase = tinyCase({
  class: "support desk",
  messages: [{ role: "system", content: SYSTEM }, { role: "user", content: "Where is order A-17?" }],
  tools: [{ name: "lookup_order", description: "Finds an order", parameters: { type: "object" } }],
  expected_output_schema: { type: "object", properties: { status: { type: "string" } } },
});
/** A second round: the first answer's tool call and its result. */
const toolRound: WireMessage[] = [
  { role: "system", content: SYSTEM },
  { role: "user", content: "Where is order A-17?" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup_order", arguments: '{"id":"A-17"}' } }],
  },
  { role: "tool", tool_call_id: "call_1", content: '{"status":"shipped"}' },
];

Deno.test("openai-responses body maps the conversation, tools, schema, cap and options", () => {
  const r = d.prepare(spec({ service_tier: "priority", reasoning_effort: "low" }));
  const body = JSON.parse(d.body(toolCase, toolRound, { model: "gpt-4.1", stream: true, maxTokens: 300 }, r));
  assert.deepEqual(body, {
    model: "gpt-4.1",
    input: [
      { type: "message", role: "system", content: SYSTEM },
      { type: "message", role: "user", content: "Where is order A-17?" },
      { type: "function_call", call_id: "call_1", name: "lookup_order", arguments: '{"id":"A-17"}' },
      { type: "function_call_output", call_id: "call_1", output: '{"status":"shipped"}' },
    ],
    max_output_tokens: 300,
    stream: true,
    store: false,
    tools: [{
      type: "function",
      name: "lookup_order",
      description: "Finds an order",
      parameters: { type: "object" },
      strict: false,
    }],
    tool_choice: "auto",
    text: {
      format: {
        type: "json_schema",
        name: "support_desk_output",
        schema: { type: "object", properties: { status: { type: "string" } } },
        strict: true,
      },
    },
    reasoning: { effort: "low" },
    service_tier: "priority",
  });
});

Deno.test("openai-responses never writes the key outside its header", () => {
  const r = d.prepare(spec({ organization: "org-1" }));
  const body = d.body(toolCase, toolRound, { model: "gpt-4.1", stream: false, maxTokens: 10 }, r);
  const outside = { ...r.headers, authorization: "(secret)" };
  for (const text of [body, JSON.stringify(r.options), r.url(true).href, JSON.stringify(outside)]) {
    assert.ok(!text.includes(KEY));
  }
  try {
    d.prepare(spec({ nope: KEY }));
    assert.fail("expected an InputError");
  } catch (e) {
    assert.ok(e instanceof InputError);
    assert.ok(!(e as Error).message.includes(KEY), "an unknown option's value is not echoed");
  }
});

Deno.test("openai-responses classifyError: load is rejected, billing and other errors http_error", () => {
  const none = new Map<string, string>();
  const v = (status: number, file: string | null) => d.classifyError(status, none, file ? read(file) : "");
  assert.deepEqual(v(429, "error_429_rate_limit.json"), { kind: "http_429", outcome: "rejected" });
  assert.deepEqual(v(429, "error_429_insufficient_quota.json"), { kind: "http_429", outcome: "http_error" });
  assert.deepEqual(v(429, null), { kind: "http_429", outcome: "rejected" });
  assert.deepEqual(v(503, "error_503_overloaded.json"), { kind: "http_503", outcome: "rejected" });
  assert.deepEqual(d.classifyError(503, none, '{"error":{"code":"service_unavailable","message":"outage"}}'), {
    kind: "http_503",
    outcome: "http_error",
  });
  assert.deepEqual(v(400, "error_400.json"), { kind: "http_400", outcome: "http_error" });
  assert.deepEqual(d.classifyError(500, none, "<html>cut"), { kind: "http_500", outcome: "http_error" });
});

Deno.test("openai-responses readLimits reads x-ratelimit-* with Go durations; malformed values are null", () => {
  const h = new Map([
    ["x-ratelimit-limit-requests", "500"],
    ["x-ratelimit-remaining-requests", "499"],
    ["x-ratelimit-reset-requests", "120ms"],
    ["x-ratelimit-limit-tokens", "30000"],
    ["x-ratelimit-remaining-tokens", "29000"],
    ["x-ratelimit-reset-tokens", "6m0s"],
  ]);
  assert.deepEqual(d.readLimits(h), {
    limit_requests: 500,
    remaining_requests: 499,
    limit_tokens: 30000,
    remaining_tokens: 29000,
    reset_requests_ms: 120,
    reset_tokens_ms: 360_000,
  });
  const bad = new Map([["x-ratelimit-limit-requests", "-1"], ["x-ratelimit-reset-tokens", "soon"]]);
  assert.deepEqual(d.readLimits(bad), {
    limit_requests: null,
    remaining_requests: null,
    limit_tokens: null,
    remaining_tokens: null,
    reset_requests_ms: null,
    reset_tokens_ms: null,
  });
  assert.equal(d.readLimits(new Map([["retry-after", "1"]])), null);
  // 1 h + 2 min + 3.5 s = 3 600 000 + 120 000 + 3 500 ms; 1.5 s = 1 500 ms; 250 µs rounds to 0 ms.
  assert.equal(parseDurationMs("1h2m3.5s"), 3_723_500);
  assert.equal(parseDurationMs("1.5s"), 1500);
  assert.equal(parseDurationMs("250us"), 0);
  assert.equal(parseDurationMs(""), null);
  assert.equal(parseDurationMs("5"), null);
});
