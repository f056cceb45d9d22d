import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { InputError } from "../../../schema/errors.ts";
import type { AnswerParser, DialectRouteSpec, WireMessage } from "../../../runner/dialects/dialect.ts";
import { geminiDialect, quotaLimits, retryDelayMs } from "../../../runner/dialects/gemini.ts";
import { decodeCallId } from "../../../runner/dialects/gemini_answer.ts";
import { SseDecoder } from "../../../runner/http/sse.ts";
import { tinyCase } from "../../../testing/tiny_workload.ts";

const DIR = fileURLToPath(new URL("../../fixtures/dialects/gemini/", import.meta.url));
const read = (name: string) => Deno.readTextFileSync(DIR + name);
const KEY = "AIzaSyTESTKEY-never-anywhere-else-7731";

function spec(over: Partial<DialectRouteSpec> = {}): DialectRouteSpec {
  return {
    url: "https://generativelanguage.googleapis.com",
    model: "gemini-2.5-flash",
    key: KEY,
    options: {},
    where: "routes.yaml: routes.g",
    ...over,
  };
}

/** Replays an SSE transcript, event i at `t0 + i * step` ms. */
function replay(name: string, t0 = 100, step = 10): AnswerParser {
  const a = geminiDialect.newAnswer();
  const dec = new SseDecoder();
  const events = [...dec.push(new TextEncoder().encode(read(name))), ...dec.end().events];
  events.forEach((ev, i) => a.feedEvent({ event: ev.event ?? null, data: ev.data }, t0 + i * step));
  return a;
}

Deno.test("gemini parser: fixtures replayed give the text, calls, finish, usage and timing written here", async (t) => {
  await t.step("text.sse: three chunks, STOP, usage on the last", () => {
    const a = replay("text.sse");
    assert.equal(a.text, "The capital of France is Paris.");
    assert.equal(a.finishReason, "stop");
    assert.equal(a.complete(), true);
    assert.equal(a.malformed, null);
    // events at 100, 110, 120: TTFT 100, gaps 10 and 10
    assert.equal(a.firstTokenMs, 100);
    assert.equal(a.lastTokenMs, 120);
    assert.deepEqual(a.itl(), { p50: 10, max: 10 });
    assert.deepEqual(a.usage, {
      prompt_tokens: 9,
      completion_tokens: 7,
      cached_tokens: 0,
      reasoning_tokens: null,
      cache_write_tokens: null,
    });
    assert.equal(a.serviceTier, null);
  });
  await t.step("tool_use.sse: text then a whole function call → tool_calls; the signature rides in the id", () => {
    const a = replay("tool_use.sse", 0, 25);
    assert.equal(a.text, "Let me look that order up.");
    assert.equal(a.finishReason, "tool_calls");
    const calls = a.toolCalls();
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.name, "get_order");
    assert.deepEqual(calls[0]!.arguments, { order_id: "A1", fields: ["status", "eta"] });
    assert.equal(calls[0]!.raw_arguments, '{"order_id":"A1","fields":["status","eta"]}');
    assert.ok(calls[0]!.id.startsWith("gemini_call_0?"));
    assert.deepEqual(decodeCallId(calls[0]!.id), { id: null, sig: "CiQBVKhc7vB2+5Fq/sig==" });
    assert.deepEqual([a.firstTokenMs, a.lastTokenMs], [0, 25]);
    // completion = candidates 24 + thoughts 40 = 64
    assert.deepEqual(a.usage, {
      prompt_tokens: 58,
      completion_tokens: 64,
      cached_tokens: 0,
      reasoning_tokens: 40,
      cache_write_tokens: null,
    });
  });
  await t.step("refusal.sse: a refusal is text ending with STOP", () => {
    const a = replay("refusal.sse");
    assert.match(a.text, /^I can't help with making that\. If you are in danger/);
    assert.equal(a.finishReason, "stop");
    assert.equal(a.complete(), true);
  });
  await t.step("safety.sse: finishReason SAFETY → content_filter; the empty part is no token", () => {
    const a = replay("safety.sse");
    assert.equal(a.text, "Here is the first");
    assert.equal(a.finishReason, "content_filter");
    assert.deepEqual([a.firstTokenMs, a.lastTokenMs], [100, 100]);
    assert.equal(a.usage?.completion_tokens, 4);
  });
  await t.step("prompt_blocked.sse: promptFeedback.blockReason → content_filter, complete, no token", () => {
    const a = replay("prompt_blocked.sse");
    assert.equal(a.finishReason, "content_filter");
    assert.equal(a.complete(), true);
    assert.equal(a.firstTokenMs, null);
    assert.equal(a.text, "");
    assert.equal(a.usage?.prompt_tokens, 17);
  });
  await t.step("overload_midstream.sse: the error object → rejected stream_unavailable, stream incomplete", () => {
    const a = replay("overload_midstream.sse");
    assert.equal(a.text, "Step one:");
    assert.deepEqual(a.streamFailure, { kind: "stream_unavailable", outcome: "rejected", status: 503 });
    assert.equal(a.complete(), false);
    assert.equal(a.malformed, null);
  });
  await t.step("thinking_cached.sse: a thought part is no token; cached and thoughts counted", () => {
    const a = replay("thinking_cached.sse", 0, 100);
    assert.equal(a.text, '{"total": 42, "currency": "EUR"}');
    // the thought chunk arrived at 0: the first answer token is the chunk at 100
    assert.deepEqual([a.firstTokenMs, a.lastTokenMs], [100, 200]);
    // prompt 4120 includes 4096 cached; completion = 12 candidates + 310 thoughts = 322
    assert.deepEqual(a.usage, {
      prompt_tokens: 4120,
      completion_tokens: 322,
      cached_tokens: 4096,
      reasoning_tokens: 310,
      cache_write_tokens: null,
    });
  });
  await t.step("parallel_tools.json: two calls in a whole body keep the service's ids, in order", () => {
    const a = geminiDialect.newAnswer();
    a.feedBody(read("parallel_tools.json"), 500);
    assert.equal(a.finishReason, "tool_calls");
    assert.equal(a.complete(), true);
    const calls = a.toolCalls();
    assert.deepEqual(calls.map((c) => [c.name, c.raw_arguments]), [
      ["get_order", '{"order_id":"A1"}'],
      ["get_order", '{"order_id":"A2"}'],
    ]);
    assert.deepEqual(decodeCallId(calls[0]!.id), { id: "fc-7d2", sig: "EjQKMgFsig+/x=" });
    assert.deepEqual(decodeCallId(calls[1]!.id), { id: "fc-7d3", sig: null });
    assert.deepEqual([a.firstTokenMs, a.lastTokenMs], [500, 500]);
  });
  await t.step("max_tokens.json: MAX_TOKENS → length; thoughts 0 reported as 0", () => {
    const a = geminiDialect.newAnswer();
    a.feedBody(read("max_tokens.json"), 7);
    assert.equal(a.finishReason, "length");
    assert.equal(a.text, "The report covers three quarters of");
    assert.equal(a.usage?.reasoning_tokens, 0);
    assert.equal(a.usage?.completion_tokens, 8);
  });
});

Deno.test("gemini parser: finish reasons outside the neutral ones keep their raw name", () => {
  const a = geminiDialect.newAnswer();
  a.feedEvent({ event: null, data: '{"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL","index":0}]}' }, 1);
  assert.equal(a.finishReason, "gemini:MALFORMED_FUNCTION_CALL");
  assert.equal(a.complete(), true);
});

Deno.test("gemini parser: an unfinished stream is not complete; a usage-only chunk after the finish is fine", () => {
  const a = geminiDialect.newAnswer();
  a.feedEvent({ event: null, data: '{"candidates":[{"content":{"parts":[{"text":"a"}]}}]}' }, 1);
  assert.equal(a.complete(), false);
  a.feedEvent({ event: null, data: '{"candidates":[{"finishReason":"STOP"}]}' }, 2);
  a.feedEvent({ event: null, data: '{"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1}}' }, 3);
  assert.equal(a.malformed, null);
  assert.equal(a.usage?.completion_tokens, 1);
  assert.equal(a.complete(), true);
});

interface MalformedCase {
  name: string;
  events?: string[];
  body?: string;
  kind: string;
}

Deno.test("gemini parser: every malformed variant gives its precise kind, never an exception", async (t) => {
  const m = JSON.parse(read("malformed.json")) as {
    cases: MalformedCase[];
    bad_usage: { name: string; usage: unknown }[];
  };
  for (const c of m.cases) {
    await t.step(c.name, () => {
      const a = geminiDialect.newAnswer();
      if (c.body !== undefined) a.feedBody(c.body, 1);
      for (const [i, data] of (c.events ?? []).entries()) a.feedEvent({ event: null, data }, i);
      assert.equal(a.malformedKind, c.kind, `${c.name}: ${a.malformed}`);
      assert.ok(a.malformed);
    });
  }
  await t.step("an event name", () => {
    const a = geminiDialect.newAnswer();
    a.feedEvent({ event: "ping", data: "{}" }, 1);
    assert.equal(a.malformedKind, "unknown_event");
  });
  for (const c of m.bad_usage) {
    await t.step(`usage: ${c.name}`, () => {
      const a = geminiDialect.newAnswer();
      a.feedEvent({ event: null, data: JSON.stringify({ usageMetadata: c.usage }) }, 1);
      assert.equal(a.usage, null);
      assert.ok(a.badUsage, c.name);
      assert.equal(a.malformed, null);
    });
  }
});

Deno.test("gemini prepare: endpoints, headers and recorded options", async (t) => {
  await t.step("a bare base gets the version and the model's methods; stream asks alt=sse", () => {
    const r = geminiDialect.prepare(spec());
    assert.equal(
      r.url(false).href,
      "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
    );
    assert.equal(
      r.url(true).href,
      "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    );
    assert.equal(r.headers["x-goog-api-key"], KEY);
    assert.deepEqual(r.secretHeaders, ["x-goog-api-key"]);
    assert.equal(r.serviceTier, null);
    assert.equal(r.sign, null);
    assert.deepEqual(r.options, { api_version: "v1beta" });
  });
  await t.step("the full endpoint, a version base and models/ prefix give the same URLs", () => {
    const want = geminiDialect.prepare(spec()).url(true).href;
    for (
      const url of [
        "https://generativelanguage.googleapis.com/v1beta/models/other:generateContent",
        "https://generativelanguage.googleapis.com/v1beta/",
      ]
    ) assert.equal(geminiDialect.prepare(spec({ url, model: "models/gemini-2.5-flash" })).url(true).href, want);
  });
  await t.step("a version named by the URL is used; options are recorded", () => {
    const r = geminiDialect.prepare(spec({ url: "http://127.0.0.2:9/proxy/v1", options: { thinking_budget: 0 } }));
    assert.equal(r.url(false).href, "http://127.0.0.2:9/proxy/v1/models/gemini-2.5-flash:generateContent");
    assert.deepEqual(r.options, { api_version: "v1", thinking_budget: 0 });
  });
  await t.step("no key, no key header", () => {
    assert.equal(geminiDialect.prepare(spec({ key: null })).headers["x-goog-api-key"], undefined);
  });
});

Deno.test("gemini prepare: bad options, URLs and models are InputErrors naming the field", () => {
  const cases: [Partial<DialectRouteSpec>, RegExp][] = [
    [{ options: { tier: "flex" } }, /routes\.g\.dialect_options\.tier: unknown option/],
    [{ options: { api_version: "beta" } }, /routes\.g\.dialect_options\.api_version: must look like/],
    [{ options: { thinking_budget: -2 } }, /routes\.g\.dialect_options\.thinking_budget/],
    [{ options: { thinking_budget: 1.5 } }, /routes\.g\.dialect_options\.thinking_budget/],
    [{ options: { thinking_budget: 10, thinking_level: "low" } }, /dialect_options\.thinking_level: .*both/],
    [{ options: { thinking_level: "max" } }, /dialect_options\.thinking_level/],
    [{ url: "https://h/v1/", options: { api_version: "v1beta" } }, /routes\.g\.url: the URL names API version v1/],
    [{ url: "https://h/?key=AIzaSECRET" }, /routes\.g\.url: an API key in the URL query is refused/],
    [{ url: "ftp://h" }, /routes\.g\.url: must be http/],
    [{ model: "gemini 2.5/../x" }, /routes\.g\.model: /],
  ];
  for (const [over, re] of cases) {
    assert.throws(() => geminiDialect.prepare(spec(over)), (e: unknown) => {
      assert.ok(e instanceof InputError, String(e));
      assert.match(e.message, re);
      assert.ok(!e.message.includes("AIzaSECRET") && !e.message.includes(KEY), "no secret in the message");
      return true;
    });
  }
});

const TOOL_CASE = tinyCase({
  messages: [{ role: "system", content: "You are a support agent." }, { role: "user", content: "Where is A1?" }],
  tools: [{
    name: "get_order",
    description: "Look up an order",
    parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
  }],
  expected_output_schema: { type: "object", properties: { eta: { type: "string" } }, required: ["eta"] },
});

/** The conversation of a second round: the first answer's call (with a signature) and its result. */
const ROUND_2: WireMessage[] = [
  ...TOOL_CASE.messages as WireMessage[],
  {
    role: "assistant",
    content: "Checking.",
    tool_calls: [{
      id: "gemini_call_0?sig=c2ln%2B%2F%3D",
      type: "function",
      function: { name: "get_order", arguments: '{"order_id":"A1"}' },
    }],
  },
  { role: "tool", tool_call_id: "gemini_call_0?sig=c2ln%2B%2F%3D", content: '{"status":"shipped"}' },
];

Deno.test("gemini body: system, tools, schema, cap, thinking and a tool round mapped; no key in it", () => {
  const route = geminiDialect.prepare(spec({ options: { thinking_budget: 512 } }));
  const body = JSON.parse(geminiDialect.body(TOOL_CASE, ROUND_2, { model: "m", stream: true, maxTokens: 300 }, route));
  assert.deepEqual(body, {
    contents: [
      { role: "user", parts: [{ text: "Where is A1?" }] },
      {
        role: "model",
        parts: [
          { text: "Checking." },
          { functionCall: { name: "get_order", args: { order_id: "A1" } }, thoughtSignature: "c2ln+/=" },
        ],
      },
      {
        role: "user",
        parts: [{ functionResponse: { name: "get_order", response: { output: '{"status":"shipped"}' } } }],
      },
    ],
    systemInstruction: { parts: [{ text: "You are a support agent." }] },
    tools: [{
      functionDeclarations: [{
        name: "get_order",
        description: "Look up an order",
        parametersJsonSchema: TOOL_CASE.tools[0]!.parameters,
      }],
    }],
    generationConfig: {
      maxOutputTokens: 300,
      responseMimeType: "application/json",
      responseJsonSchema: TOOL_CASE.expected_output_schema,
      thinkingConfig: { thinkingBudget: 512 },
    },
  });
  assert.ok(!JSON.stringify(body).includes(KEY));
  assert.ok(!route.url(true).href.includes(KEY) && !route.url(false).href.includes(KEY));
  assert.ok(!JSON.stringify(route.options).includes(KEY));
});

Deno.test("gemini body: parallel results share one user turn and carry the service's call ids", () => {
  const route = geminiDialect.prepare(spec());
  const a = geminiDialect.newAnswer();
  a.feedBody(read("parallel_tools.json"), 1);
  const calls = a.toolCalls();
  const messages: WireMessage[] = [
    { role: "user", content: "A1 and A2?" },
    {
      role: "assistant",
      content: null,
      tool_calls: calls.map((c) => ({
        id: c.id,
        type: "function" as const,
        function: { name: c.name, arguments: c.raw_arguments },
      })),
    },
    { role: "tool", tool_call_id: calls[0]!.id, content: "shipped" },
    { role: "tool", tool_call_id: calls[1]!.id, content: "packed" },
  ];
  const body = JSON.parse(geminiDialect.body(tinyCase(), messages, { model: "m", stream: false, maxTokens: 9 }, route));
  assert.equal(body.contents.length, 3);
  assert.deepEqual(body.contents[1].parts[0], {
    functionCall: { name: "get_order", args: { order_id: "A1" }, id: "fc-7d2" },
    thoughtSignature: "EjQKMgFsig+/x=",
  });
  assert.deepEqual(body.contents[2], {
    role: "user",
    parts: [
      { functionResponse: { name: "get_order", response: { output: "shipped" }, id: "fc-7d2" } },
      { functionResponse: { name: "get_order", response: { output: "packed" }, id: "fc-7d3" } },
    ],
  });
  assert.equal(body.systemInstruction, undefined);
  assert.equal(body.tools, undefined);
  assert.deepEqual(body.generationConfig, { maxOutputTokens: 9 });
});

Deno.test("gemini classifyError: 429 and 503 are rejected, others http_error; untrusted bodies never throw", () => {
  const h = new Map<string, string>();
  assert.deepEqual(geminiDialect.classifyError(429, h, read("error_429.json")), {
    kind: "http_429",
    outcome: "rejected",
  });
  assert.deepEqual(geminiDialect.classifyError(503, h, read("error_503.json")), {
    kind: "http_503",
    outcome: "rejected",
  });
  assert.deepEqual(geminiDialect.classifyError(400, h, read("error_400.json")), {
    kind: "http_400",
    outcome: "http_error",
  });
  assert.deepEqual(geminiDialect.classifyError(500, h, ""), { kind: "http_500", outcome: "http_error" });
  assert.deepEqual(geminiDialect.classifyError(502, h, '{"error":[1]'), { kind: "http_502", outcome: "http_error" });
});

Deno.test("gemini quota details: RetryInfo and QuotaFailure read from a 429 body; headers give nothing", () => {
  const body = read("error_429.json");
  assert.equal(retryDelayMs(body), 26_000);
  // requests quota 10, tokens quota 250000, both exhausted, both reset after the 26 s retry delay
  assert.deepEqual(quotaLimits(body), {
    limit_requests: 10,
    remaining_requests: 0,
    limit_tokens: 250_000,
    remaining_tokens: 0,
    reset_requests_ms: 26_000,
    reset_tokens_ms: 26_000,
  });
  assert.equal(retryDelayMs(read("error_503.json")), null);
  assert.equal(quotaLimits(read("error_503.json")), null);
  const bad = JSON.stringify({
    error: { details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: 26 }, "x", null] },
  });
  assert.equal(retryDelayMs(bad), null);
  assert.equal(quotaLimits("not json"), null);
  assert.equal(geminiDialect.readLimits(new Map([["retry-after", "3"]])), null);
});
