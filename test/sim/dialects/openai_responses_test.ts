import assert from "node:assert/strict";
import type { AnswerParser, WireMessage } from "../../../runner/dialects/dialect.ts";
import { openaiResponsesDialect as d } from "../../../runner/dialects/openai_responses.ts";
import { SseDecoder } from "../../../runner/http/sse.ts";
import { parseChatRequest } from "../../../sim/dialects/openai_chat.ts";
import type { SimErrorClass, SimUsage } from "../../../sim/dialects/dialect.ts";
import { openaiResponsesSimDialect as sim } from "../../../sim/dialects/openai_responses.ts";
import { tinyCase } from "../../../testing/tiny_workload.ts";

const SYSTEM = "You are a support agent.";
const toolCase = tinyCase({
  messages: [{ role: "system", content: SYSTEM }, { role: "user", content: "Where is order A-17?" }],
  tools: [{ name: "lookup_order", description: "Finds an order", parameters: { type: "object" } }],
});
/** A third round: two tool calls answered, a text reply, then one more call answered. */
const conversation: WireMessage[] = [
  { role: "system", content: SYSTEM },
  { role: "user", content: "Where is order A-17?" },
  {
    role: "assistant",
    content: "Let me check.",
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "lookup_order", arguments: '{"id":"A-17"}' } },
      { id: "call_2", type: "function", function: { name: "lookup_order", arguments: '{"id":"A-18"}' } },
    ],
  },
  { role: "tool", tool_call_id: "call_1", content: '{"status":"shipped"}' },
  { role: "tool", tool_call_id: "call_2", content: '{"status":"lost"}' },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_3", type: "function", function: { name: "lookup_order", arguments: '{"id":"A-19"}' } }],
  },
  { role: "tool", tool_call_id: "call_3", content: "error: no such order" },
];

const route = d.prepare({ url: "http://127.0.0.1:1", model: "m", key: null, options: {}, where: "t" });

Deno.test("runner body → sim parse gives the messages the OpenAI chat path gives", () => {
  const body = JSON.parse(d.body(toolCase, conversation, { model: "m", stream: true, maxTokens: 77 }, route));
  const r = sim.parse(body, {});
  assert.ok(r.ok, r.ok ? "" : r.message);
  const chat = parseChatRequest({ model: "m", messages: conversation });
  assert.ok(chat.ok);
  assert.deepEqual(r.value.messages, chat.value.messages);
  assert.equal(r.value.maxTokens, 77);
  assert.equal(r.value.stream, true);
  assert.equal(r.value.includeUsage, true);
  assert.equal(r.value.serviceTier, null);
  const tiered = d.prepare({
    url: "http://127.0.0.1:1",
    model: "m",
    key: null,
    options: { service_tier: "flex" },
    where: "t",
  });
  const b2 = JSON.parse(
    d.body(toolCase, conversation.slice(0, 2), { model: "m", stream: false, maxTokens: 5 }, tiered),
  );
  const r2 = sim.parse(b2, {});
  assert.ok(r2.ok);
  assert.equal(r2.value.serviceTier, "flex");
  assert.equal(r2.value.stream, false);
});

Deno.test("sim parse: string input, instructions, and a bad item naming its field", () => {
  const r = sim.parse({ model: "m", instructions: "Be brief.", input: "hi" }, {});
  assert.ok(r.ok);
  assert.deepEqual(r.value.messages, [
    { role: "system", content: "Be brief.", toolCallText: "" },
    { role: "user", content: "hi", toolCallText: "" },
  ]);
  const bad = sim.parse(
    { model: "m", input: [{ role: "user", content: "x" }, { type: "function_call", name: "f" }] },
    {},
  );
  assert.ok(!bad.ok);
  assert.equal(bad.param, "input.1.call_id");
  const tier = sim.parse({ model: "m", input: "x", service_tier: "turbo" }, {});
  assert.ok(!tier.ok);
  assert.equal(tier.param, "service_tier");
  assert.deepEqual(sim.match("POST", new URL("http://127.0.0.1/v1/responses")), {});
  assert.equal(sim.match("GET", new URL("http://127.0.0.1/v1/responses")), null);
  assert.equal(sim.match("POST", new URL("http://127.0.0.1/v1/chat/completions")), null);
});

/** The sim's frames (a string per call) decoded and fed to a runner parser, frame i at 10·i ms. */
function feed(frames: (string | Uint8Array)[]): AnswerParser {
  const a = d.newAnswer();
  const dec = new SseDecoder();
  frames.forEach((f, i) => {
    const bytes = typeof f === "string" ? new TextEncoder().encode(f) : f;
    for (const ev of dec.push(bytes)) a.feedEvent({ event: ev.event ?? null, data: ev.data }, 10 * i);
  });
  assert.deepEqual(dec.end(), { events: [], partial: false });
  return a;
}

const u: SimUsage = { prompt: 120, output: 9, cached: 64, reasoning: 4 };
const neutral = {
  prompt_tokens: 120,
  completion_tokens: 9,
  cached_tokens: 64,
  reasoning_tokens: 4,
  cache_write_tokens: null,
};

Deno.test("sim stream frames read back through the runner parser", async (t) => {
  await t.step("text answer", () => {
    const f = sim.stream("resp_1", "m", 1, "default");
    const a = feed([f.start(), f.content("Hel"), f.content("lo"), f.end("stop", u, true)]);
    assert.equal(a.malformed, null, a.malformed ?? "");
    assert.equal(a.complete(), true);
    assert.equal(a.text, "Hello");
    assert.equal(a.finishReason, "stop");
    assert.deepEqual(a.usage, neutral);
    assert.equal(a.serviceTier, "default");
    // start() is frame 0 (no token); the deltas are frames 1 and 2.
    assert.equal(a.firstTokenMs, 10);
    assert.equal(a.lastTokenMs, 20);
  });
  await t.step("tool-call answer", () => {
    const f = sim.stream("resp_2", "m", 1, null);
    const a = feed([
      f.start(),
      f.toolCallStart("call_9", "lookup_order"),
      f.toolCallArguments('{"id":'),
      f.toolCallArguments('"A-17"}'),
      f.end("tool_calls", u, true),
    ]);
    assert.equal(a.malformed, null, a.malformed ?? "");
    assert.deepEqual(a.toolCalls(), [{
      id: "call_9",
      name: "lookup_order",
      raw_arguments: '{"id":"A-17"}',
      arguments: { id: "A-17" },
    }]);
    assert.equal(a.finishReason, "tool_calls");
    assert.deepEqual(a.usage, neutral);
    assert.equal(a.serviceTier, null);
    assert.equal(a.firstTokenMs, 10);
    assert.equal(a.lastTokenMs, 30);
  });
  await t.step("a capped answer ends response.incomplete: finish length; no reasoning reported → null", () => {
    const f = sim.stream("resp_3", "m", 1, null);
    const a = feed([f.start(), f.content("Once"), f.end("length", { prompt: 5, output: 1, cached: 0 }, true)]);
    assert.equal(a.malformed, null);
    assert.equal(a.finishReason, "length");
    assert.deepEqual(a.usage, {
      prompt_tokens: 5,
      completion_tokens: 1,
      cached_tokens: 0,
      reasoning_tokens: null,
      cache_write_tokens: null,
    });
  });
  await t.step("an answer with no tokens still completes", () => {
    const f = sim.stream("resp_4", "m", 1, null);
    const a = feed([f.start(), f.end("stop", { prompt: 5, output: 0, cached: 0 }, true)]);
    assert.equal(a.malformed, null);
    assert.equal(a.complete(), true);
    assert.equal(a.firstTokenMs, null);
  });
});

Deno.test("sim whole bodies read back through the runner parser", () => {
  const text = d.newAnswer();
  const base = { id: "resp_5", model: "m", created: 1, usage: u, serviceTier: "priority" };
  text.feedBody(JSON.stringify(sim.body({ ...base, text: "Hi there", toolCall: null, finish: "stop" })), 7);
  assert.equal(text.malformed, null, text.malformed ?? "");
  assert.equal(text.text, "Hi there");
  assert.equal(text.finishReason, "stop");
  assert.deepEqual(text.usage, neutral);
  assert.equal(text.serviceTier, "priority");
  const call = d.newAnswer();
  const toolCall = { id: "call_5", name: "lookup_order", arguments: "{}" };
  call.feedBody(JSON.stringify(sim.body({ ...base, text: null, toolCall, finish: "tool_calls" })), 7);
  assert.equal(call.malformed, null, call.malformed ?? "");
  assert.equal(call.finishReason, "tool_calls");
  assert.deepEqual(call.toolCalls().map((c) => [c.id, c.name, c.raw_arguments]), [["call_5", "lookup_order", "{}"]]);
});

Deno.test("sim error bodies through the runner's classifyError", async () => {
  const expected: Record<SimErrorClass, [number, string]> = {
    invalid_request: [400, "http_error"],
    not_found: [404, "http_error"],
    server_error: [500, "http_error"],
    unavailable: [503, "http_error"],
    overloaded: [429, "rejected"],
    rate_limited: [429, "rejected"],
    client_closed: [499, "http_error"],
  };
  for (const [cls, [status, outcome]] of Object.entries(expected)) {
    const res = sim.error({ class: cls as SimErrorClass, message: "m", param: "input.0" });
    const body = await res.text();
    assert.equal(res.status, status, cls);
    assert.deepEqual(d.classifyError(res.status, new Map(), body), { kind: `http_${status}`, outcome }, cls);
    assert.equal(JSON.parse(body).error.param, "input.0");
  }
  const quota = sim.error({
    class: "rate_limited",
    message: "Rate limit reached for tokens per min (TPM)",
    headers: { "x-ratelimit-limit-tokens": "1000", "retry-after": "2" },
  });
  assert.equal(quota.headers.get("retry-after"), "2");
  assert.deepEqual(await quota.json(), {
    error: {
      message: "Rate limit reached for tokens per min (TPM)",
      type: "tokens",
      param: null,
      code: "rate_limit_exceeded",
    },
  });
});

Deno.test("sim limitHeaders read back by readLimits", () => {
  const h = sim.limitHeaders({
    limitRequests: 60,
    remainingRequests: 59,
    limitTokens: 10_000,
    remainingTokens: 9_000,
    resetMs: 1_500,
  });
  assert.equal(h["x-ratelimit-reset-tokens"], "1.5s");
  assert.deepEqual(d.readLimits(new Map(Object.entries(h))), {
    limit_requests: 60,
    remaining_requests: 59,
    limit_tokens: 10_000,
    remaining_tokens: 9_000,
    reset_requests_ms: 1_500,
    reset_tokens_ms: 1_500,
  });
  const tokensOnly = sim.limitHeaders({
    limitRequests: null,
    remainingRequests: null,
    limitTokens: 100,
    remainingTokens: 0,
    resetMs: 360_000,
  });
  assert.deepEqual(tokensOnly, {
    "x-ratelimit-limit-tokens": "100",
    "x-ratelimit-remaining-tokens": "0",
    "x-ratelimit-reset-tokens": "6m0s",
  });
});
