import assert from "node:assert/strict";
import { AwsEventStreamDecoder } from "../../../runner/dialects/aws_eventstream.ts";
import { BedrockAnswer } from "../../../runner/dialects/bedrock_answer.ts";
import { bedrockConverseDialect as bedrock } from "../../../runner/dialects/bedrock_converse.ts";
import type { WireMessage } from "../../../runner/dialects/dialect.ts";
import { chatBody } from "../../../runner/dialects/openai_chat.ts";
import { parseChatRequest } from "../../../sim/dialects/openai_chat.ts";
import { bedrockAuthProblem, bedrockConverseSimDialect as sim } from "../../../sim/dialects/bedrock_converse.ts";
import type { SimErrorClass } from "../../../sim/dialects/dialect.ts";
import { makeCase } from "../../runner/checks/_cases.ts";

const ENV: Record<string, string> = {
  AWS_ACCESS_KEY_ID: "AKID",
  AWS_SECRET_ACCESS_KEY: "S3CR3T",
  AWS_REGION: "us-east-1",
};
const MODEL = "us.anthropic.claude-3-5-haiku-20241022-v1:0";
const route = bedrock.prepare({
  url: "http://127.0.0.1:9",
  model: MODEL,
  key: null,
  options: {},
  where: "--target",
  env: (n) => ENV[n],
});

/** The sim's frames, decoded and fed to the runner's parser at 10 ms apart. */
function readBack(chunks: (string | Uint8Array)[]): BedrockAnswer {
  const dec = new AwsEventStreamDecoder();
  const a = new BedrockAnswer();
  let t = 0;
  for (const c of chunks) {
    assert.ok(c instanceof Uint8Array);
    for (const ev of dec.push(c)) a.feedEvent(ev, t += 10);
  }
  assert.deepEqual(dec.end(), { events: [], partial: false });
  assert.equal(dec.problem, null);
  return a;
}

Deno.test("bedrock-converse sim: match() reads the model and the stream from the path", () => {
  const enc = encodeURIComponent(MODEL);
  assert.deepEqual(sim.match("POST", new URL(`http://h/model/${enc}/converse-stream`)), { model: MODEL, stream: true });
  assert.deepEqual(sim.match("POST", new URL(`http://h/model/${enc}/converse`)), { model: MODEL, stream: false });
  assert.equal(sim.match("GET", new URL(`http://h/model/${enc}/converse`)), null);
  assert.equal(sim.match("POST", new URL("http://h/v1/chat/completions")), null);
  assert.equal(sim.match("POST", new URL("http://h/model/%E0%A4%A/converse")), null);
});

Deno.test("bedrock-converse round trip: runner body() → sim parse() gives the OpenAI path's neutral messages", () => {
  const c = makeCase({
    tools: [{ name: "get_order", description: "Look up an order", parameters: { type: "object" } }],
  });
  const messages: WireMessage[] = [
    { role: "system", content: "You are terse." },
    { role: "user", content: "Where is order A1?" },
    {
      role: "assistant",
      content: "Looking.",
      tool_calls: [{ id: "t1", type: "function", function: { name: "get_order", arguments: '{"order_id":"A1"}' } }],
    },
    { role: "tool", tool_call_id: "t1", content: "shipped" },
    { role: "user", content: "And A2?" },
  ];
  const call = { model: MODEL, stream: true, maxTokens: 64 };
  const body = JSON.parse(bedrock.body(c, messages, call, route));
  const url = route.url(true);
  const got = sim.parse(body, sim.match("POST", url)!);
  const want = parseChatRequest(JSON.parse(chatBody(c, messages, call)));
  assert.ok(got.ok && want.ok);
  assert.deepEqual(got.value.messages, want.value.messages);
  assert.deepEqual(
    [got.value.model, got.value.maxTokens, got.value.stream, got.value.includeUsage, got.value.serviceTier],
    [MODEL, 64, true, true, null],
  );
  const tiered = bedrock.prepare({
    url: "http://127.0.0.1:9",
    model: MODEL,
    key: null,
    options: { service_tier: "flex" },
    where: "--target",
    env: (n) => ENV[n],
  });
  const t = sim.parse(JSON.parse(bedrock.body(c, messages, call, tiered)), { model: MODEL, stream: false });
  assert.ok(t.ok && t.value.serviceTier === "flex" && !t.value.includeUsage);
  const bad = sim.parse({ messages: [{ role: "system", content: [{ text: "x" }] }] }, { model: MODEL, stream: false });
  assert.ok(!bad.ok && bad.param.startsWith("messages.0"));
});

Deno.test("bedrock-converse sim frames read back by the runner's parser", async (t) => {
  await t.step("a text answer with cache reads and writes", () => {
    const f = sim.stream("id", MODEL, 0, "priority");
    const a = readBack([
      f.start(),
      f.content("Hel"),
      f.content("lo"),
      f.end("stop", { prompt: 100, output: 2, cached: 40, cacheWrite: 10 }, false),
    ]);
    assert.equal(a.text, "Hello");
    assert.equal(a.finishReason, "stop");
    assert.deepEqual(a.usage, {
      prompt_tokens: 100,
      completion_tokens: 2,
      cached_tokens: 40,
      reasoning_tokens: null,
      cache_write_tokens: 10,
    });
    assert.equal(a.serviceTier, "priority");
    assert.deepEqual([a.firstTokenMs, a.lastTokenMs], [20, 30]); // messageStart at 10 is no token
    assert.ok(a.complete() && a.malformed === null);
  });
  await t.step("text, then a tool call", () => {
    const f = sim.stream("id", MODEL, 0, null);
    const a = readBack([
      f.start(),
      f.content("Checking."),
      f.toolCallStart("call_1", "get_weather"),
      f.toolCallArguments('{"city":'),
      f.toolCallArguments('"Paris"}'),
      f.end("tool_calls", { prompt: 50, output: 9, cached: 0 }, true),
    ]);
    assert.equal(a.text, "Checking.");
    assert.deepEqual(a.toolCalls(), [{
      id: "call_1",
      name: "get_weather",
      raw_arguments: '{"city":"Paris"}',
      arguments: { city: "Paris" },
    }]);
    assert.equal(a.finishReason, "tool_calls");
    assert.deepEqual(a.usage, {
      prompt_tokens: 50,
      completion_tokens: 9,
      cached_tokens: 0,
      reasoning_tokens: null,
      cache_write_tokens: null,
    });
    assert.equal(a.serviceTier, null);
    assert.ok(a.complete() && a.malformed === null);
  });
  await t.step("a whole body", () => {
    const a = new BedrockAnswer();
    a.feedBody(
      JSON.stringify(sim.body({
        id: "x",
        model: MODEL,
        created: 0,
        text: null,
        toolCall: { id: "call_2", name: "f", arguments: '{"a":1}' },
        finish: "tool_calls",
        usage: { prompt: 30, output: 4, cached: 10 },
        serviceTier: "flex",
      })),
      7,
    );
    assert.deepEqual(a.toolCalls(), [{ id: "call_2", name: "f", raw_arguments: '{"a":1}', arguments: { a: 1 } }]);
    assert.deepEqual([a.text, a.finishReason, a.serviceTier, a.usage?.prompt_tokens, a.usage?.cached_tokens], [
      "",
      "tool_calls",
      "flex",
      30,
      10,
    ]);
    assert.ok(a.complete() && a.malformed === null);
  });
});

Deno.test("bedrock-converse sim errors in Bedrock's format, judged by classifyError()", async () => {
  const want: Record<SimErrorClass, [number, string, string]> = {
    invalid_request: [400, "ValidationException", "http_error"],
    not_found: [404, "ResourceNotFoundException", "http_error"],
    server_error: [500, "InternalServerException", "http_error"],
    unavailable: [503, "ServiceUnavailableException", "rejected"],
    overloaded: [503, "ServiceUnavailableException", "rejected"],
    rate_limited: [429, "ThrottlingException", "rejected"],
    client_closed: [499, "RequestCanceledException", "http_error"],
  };
  for (const [cls, [status, type, outcome]] of Object.entries(want)) {
    const r = sim.error({ class: cls as SimErrorClass, message: `m-${cls}`, headers: { "retry-after": "1" } });
    assert.equal(r.status, status);
    assert.ok(r.headers.get("x-amzn-errortype")?.startsWith(`${type}:`));
    assert.equal(r.headers.get("retry-after"), "1");
    const text = await r.text();
    assert.deepEqual(JSON.parse(text), { message: `m-${cls}` });
    assert.deepEqual(bedrock.classifyError(status, new Map(r.headers), text), { kind: `http_${status}`, outcome });
  }
  assert.deepEqual(
    sim.limitHeaders({ limitRequests: 5, remainingRequests: 4, limitTokens: 9, remainingTokens: 1, resetMs: 3 }),
    {},
  );
});

Deno.test("bedrock-converse sim auth: a SigV4 or bearer authorization passes, none is Bedrock's 403", async () => {
  const h = await route.sign!({ url: route.url(false), headers: { ...route.headers }, body: "{}" });
  assert.equal(bedrockAuthProblem(h.authorization ?? null), null);
  assert.equal(bedrockAuthProblem("Bearer k"), null);
  for (const a of [null, "", "Basic abc", "AWS4-HMAC-SHA1 x"]) {
    const r = bedrockAuthProblem(a)!;
    assert.equal(r.status, 403);
    assert.ok(r.headers.get("x-amzn-errortype")?.startsWith("AccessDeniedException:"));
    assert.equal(bedrock.classifyError(403, new Map(r.headers), await r.text()).outcome, "http_error");
  }
});
