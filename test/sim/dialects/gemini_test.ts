import assert from "node:assert/strict";
import { geminiDialect, quotaLimits, retryDelayMs } from "../../../runner/dialects/gemini.ts";
import type { AnswerParser, WireMessage } from "../../../runner/dialects/dialect.ts";
import { chatBody } from "../../../runner/dialects/openai_chat.ts";
import { SseDecoder } from "../../../runner/http/sse.ts";
import { parseChatRequest } from "../../../sim/dialects/openai_chat.ts";
import { geminiSimDialect } from "../../../sim/dialects/gemini.ts";
import type { SimUsage } from "../../../sim/dialects/dialect.ts";
import { tinyCase } from "../../../testing/tiny_workload.ts";

const ROUTE = geminiDialect.prepare({
  url: "http://127.0.0.1:8123",
  model: "gemini-2.5-flash",
  key: "sim-key",
  options: {},
  where: "--target",
});

Deno.test("gemini sim match: the two methods on any version, POST only, the stream only as SSE", () => {
  const m = (method: string, url: string) => geminiSimDialect.match(method, new URL(url));
  assert.deepEqual(m("POST", ROUTE.url(false).href), { model: "gemini-2.5-flash", stream: false });
  assert.deepEqual(m("POST", ROUTE.url(true).href), { model: "gemini-2.5-flash", stream: true });
  assert.deepEqual(m("POST", "http://h/v1/models/g-1:generateContent"), { model: "g-1", stream: false });
  assert.equal(m("GET", ROUTE.url(false).href), null);
  assert.equal(m("POST", "http://h/v1beta/models/g:streamGenerateContent"), null);
  assert.equal(m("POST", "http://h/v1/chat/completions"), null);
});

const CASE = tinyCase({
  messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Where is order A1?" }],
  tools: [{ name: "get_order", description: "Look up an order", parameters: { type: "object" } }],
});
const CONVERSATION: WireMessage[] = [
  ...CASE.messages as WireMessage[],
  {
    role: "assistant",
    content: "Checking.",
    tool_calls: [
      {
        id: "gemini_call_0?sig=abc",
        type: "function",
        function: { name: "get_order", arguments: '{"order_id":"A1"}' },
      },
      { id: "gemini_call_1", type: "function", function: { name: "get_order", arguments: '{"order_id":"A2"}' } },
    ],
  },
  { role: "tool", tool_call_id: "gemini_call_0?sig=abc", content: '{"status":"shipped"}' },
  { role: "tool", tool_call_id: "gemini_call_1", content: "error: no such order" },
];

Deno.test("gemini round trip: runner body → sim parse gives the OpenAI path's neutral messages", () => {
  const call = { model: "gemini-2.5-flash", stream: true, maxTokens: 77 };
  const body = JSON.parse(geminiDialect.body(CASE, CONVERSATION, call, ROUTE));
  const match = geminiSimDialect.match("POST", ROUTE.url(true))!;
  const r = geminiSimDialect.parse(body, match);
  assert.ok(r.ok, JSON.stringify(r));
  const openai = parseChatRequest(JSON.parse(chatBody(CASE, CONVERSATION, call)));
  assert.ok(openai.ok);
  assert.deepEqual(r.value.messages, openai.value.messages);
  assert.equal(r.value.maxTokens, 77);
  assert.equal(r.value.stream, true);
  assert.equal(r.value.includeUsage, true);
  assert.equal(r.value.model, "gemini-2.5-flash");
  assert.equal(r.value.serviceTier, null);
});

Deno.test("gemini sim parse: a bad body names the field", () => {
  const match = { model: "g", stream: false };
  const cases: [unknown, string][] = [
    [{}, "contents"],
    [{ contents: [] }, "contents"],
    [{ contents: [{ role: "system", parts: [{ text: "x" }] }] }, "contents.0.role"],
    [
      { contents: [{ role: "user", parts: [{ text: "x" }] }], generationConfig: { maxOutputTokens: 0 } },
      "generationConfig.maxOutputTokens",
    ],
    [{
      contents: [{ role: "user", parts: [{ text: "x" }, { functionResponse: { name: "f", response: {} } }] }],
    }, "contents.0.parts"],
  ];
  for (const [body, param] of cases) {
    const r = geminiSimDialect.parse(body, match);
    assert.ok(!r.ok);
    assert.equal(r.param, param);
  }
});

/** Feeds the sim's frames of one stream through the runner parser, frame i at ms i. */
function replayFrames(frames: string[]): AnswerParser {
  const a = geminiDialect.newAnswer();
  const dec = new SseDecoder();
  let t = 0;
  for (const f of frames) {
    for (const ev of dec.push(new TextEncoder().encode(f))) a.feedEvent({ event: ev.event ?? null, data: ev.data }, t);
    t++;
  }
  assert.deepEqual(dec.end(), { events: [], partial: false });
  return a;
}

const USAGE: SimUsage = { prompt: 120, output: 50, cached: 100, reasoning: 30 };
const NEUTRAL = { prompt_tokens: 120, completion_tokens: 50, cached_tokens: 100, reasoning_tokens: 30 };

Deno.test("gemini sim stream → runner parser: text, tool call, finish and usage as the sim was given", async (t) => {
  await t.step("text", () => {
    const f = geminiSimDialect.stream("r1", "gemini-2.5-flash", 1, null);
    const a = replayFrames([
      f.start() as string,
      f.content("Par") as string,
      f.content("is") as string,
      f.end("stop", USAGE, false) as string,
    ]);
    assert.equal(a.text, "Paris");
    assert.equal(a.finishReason, "stop");
    assert.equal(a.complete(), true);
    // frames at 0 (start: nothing), 1, 2, 3 (end: empty text part, no token)
    assert.deepEqual([a.firstTokenMs, a.lastTokenMs], [1, 2]);
    assert.deepEqual(a.usage, { ...NEUTRAL, cache_write_tokens: null });
  });
  await t.step("tool call: held and sent whole at the end", () => {
    const f = geminiSimDialect.stream("r2", "gemini-2.5-flash", 1, null);
    const frames = [
      f.start(),
      f.toolCallStart("call_x", "get_order"),
      f.toolCallArguments('{"order_'),
      f.toolCallArguments('id":"A1"}'),
      f.end("tool_calls", { prompt: 40, output: 12, cached: 0 }, true),
    ] as string[];
    assert.deepEqual(frames.slice(0, 4), ["", "", "", ""]);
    const a = replayFrames(frames);
    assert.equal(a.finishReason, "tool_calls");
    assert.deepEqual(a.toolCalls().map((c) => [c.id, c.name, c.raw_arguments]), [
      ["gemini_call_0", "get_order", '{"order_id":"A1"}'],
    ]);
    assert.deepEqual(a.usage, {
      prompt_tokens: 40,
      completion_tokens: 12,
      cached_tokens: 0,
      reasoning_tokens: null,
      cache_write_tokens: null,
    });
  });
  await t.step("a call cut by the cap is not sent; length → MAX_TOKENS → length", () => {
    const f = geminiSimDialect.stream("r3", "m", 1, null);
    const a = replayFrames(
      [f.toolCallStart("c", "get_order"), f.toolCallArguments('{"order'), f.end("length", USAGE, true)] as string[],
    );
    assert.equal(a.finishReason, "length");
    assert.deepEqual(a.toolCalls(), []);
  });
});

Deno.test("gemini sim body → runner parser", () => {
  const body = geminiSimDialect.body({
    id: "r4",
    model: "gemini-2.5-flash",
    created: 1,
    text: null,
    toolCall: { id: "call_1", name: "get_order", arguments: '{"order_id":"A2"}' },
    finish: "tool_calls",
    usage: USAGE,
    serviceTier: null,
  });
  const a = geminiDialect.newAnswer();
  a.feedBody(JSON.stringify(body), 9);
  assert.equal(a.finishReason, "tool_calls");
  assert.equal(a.toolCalls()[0]!.raw_arguments, '{"order_id":"A2"}');
  assert.deepEqual(a.usage, { ...NEUTRAL, cache_write_tokens: null });
  assert.deepEqual([a.firstTokenMs, a.lastTokenMs], [9, 9]);
});

Deno.test("gemini sim errors → runner classifyError, RetryInfo and QuotaFailure read back", async () => {
  const judge = async (r: Response) => {
    const text = await r.text();
    return {
      status: r.status,
      body: JSON.parse(text),
      text,
      verdict: geminiDialect.classifyError(r.status, new Map(), text),
    };
  };
  const limited = await judge(geminiSimDialect.error({
    class: "rate_limited",
    message: "Rate limit reached for requests",
    headers: { "retry-after": "2", "retry-after-ms": "1500", "x-ratelimit-limit-requests": "60" },
  }));
  assert.equal(limited.status, 429);
  assert.equal(limited.body.error.status, "RESOURCE_EXHAUSTED");
  assert.deepEqual(limited.verdict, { kind: "http_429", outcome: "rejected" });
  assert.equal(retryDelayMs(limited.text), 1500);
  assert.equal(quotaLimits(limited.text)?.limit_requests, 60);
  const r429 = geminiSimDialect.error({ class: "rate_limited", message: "x", headers: { "retry-after": "2" } });
  assert.equal(r429.headers.get("retry-after"), null, "Gemini sends no retry-after header");
  assert.equal(retryDelayMs(await r429.text()), 2000);

  const over = await judge(geminiSimDialect.error({ class: "overloaded", message: "queue is full" }));
  assert.equal(over.status, 503);
  assert.equal(over.body.error.status, "UNAVAILABLE");
  assert.deepEqual(over.verdict, { kind: "http_503", outcome: "rejected" });

  const expect: [Parameters<typeof geminiSimDialect.error>[0]["class"], number, string][] = [
    ["invalid_request", 400, "INVALID_ARGUMENT"],
    ["not_found", 404, "NOT_FOUND"],
    ["server_error", 500, "INTERNAL"],
    ["client_closed", 499, "CANCELLED"],
  ];
  for (const [cls, status, name] of expect) {
    const e = await judge(geminiSimDialect.error({ class: cls, message: "m" }));
    assert.equal(e.status, status);
    assert.deepEqual(e.body, { error: { code: status, message: "m", status: name } });
    assert.deepEqual(e.verdict, { kind: `http_${status}`, outcome: "http_error" });
  }
  const unavailable = await judge(geminiSimDialect.error({ class: "unavailable", message: "stopping" }));
  assert.deepEqual(unavailable.verdict, { kind: "http_503", outcome: "rejected" });
});

Deno.test("gemini sim limitHeaders: Gemini states its quota in no header", () => {
  const q = { limitRequests: 60, remainingRequests: 3, limitTokens: 1000, remainingTokens: 5, resetMs: 900 };
  assert.deepEqual(geminiSimDialect.limitHeaders(q), {});
  assert.equal(geminiDialect.readLimits(new Map(Object.entries(geminiSimDialect.limitHeaders(q)))), null);
});
