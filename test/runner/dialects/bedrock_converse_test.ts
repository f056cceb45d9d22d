import assert from "node:assert/strict";
import { Sha256 } from "@aws-crypto/sha256-js";
import { SignatureV4 } from "@smithy/signature-v4";
import { crc32 } from "node:zlib";
import { AwsEventStreamDecoder } from "../../../runner/dialects/aws_eventstream.ts";
import { BedrockAnswer, bedrockFinish, readBedrockUsage } from "../../../runner/dialects/bedrock_answer.ts";
import { bedrockConverseDialect as bedrock } from "../../../runner/dialects/bedrock_converse.ts";
import type { DialectRouteSpec, WireMessage } from "../../../runner/dialects/dialect.ts";
import { InputError } from "../../../schema/errors.ts";
import { INVOICE_SCHEMA, makeCase } from "../checks/_cases.ts";
import { concat, encodeFrame, fixture, type Frame, replay } from "./_bedrock_frames.ts";

const SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const KEY_ID = "AKIAIOSFODNN7EXAMPLE";
const TOKEN = "FwoGZXIvYXdzEXAMPLESESSIONTOKEN";
const AWS_ENV: Record<string, string> = {
  AWS_ACCESS_KEY_ID: KEY_ID,
  AWS_SECRET_ACCESS_KEY: SECRET,
  AWS_SESSION_TOKEN: TOKEN,
  AWS_REGION: "us-west-2",
};

function spec(over: Partial<DialectRouteSpec> = {}, env: Record<string, string> = AWS_ENV): DialectRouteSpec {
  return {
    url: "http://127.0.0.1:8123",
    model: "us.anthropic.claude-3-5-haiku-20241022-v1:0",
    key: null,
    options: {},
    where: "routes.yaml: routes.bedrock",
    env: (n) => env[n],
    ...over,
  };
}

Deno.test("bedrock-converse: stream transcripts replayed through the decoder and the parser", async (t) => {
  await t.step("a text answer: text, stop, usage, TTFT at the first text delta, ITL", () => {
    const { answer: a } = replay(fixture("text.json").frames);
    assert.equal(a.text, "Paris is the capital.");
    assert.equal(a.finishReason, "stop");
    assert.deepEqual(a.usage, {
      prompt_tokens: 25,
      completion_tokens: 7,
      cached_tokens: 0,
      reasoning_tokens: null,
      cache_write_tokens: null,
    });
    // messageStart at 120 is an envelope: the first token is the delta at 150; gaps 165-150 = 15, 190-165 = 25.
    assert.deepEqual([a.firstTokenMs, a.lastTokenMs], [150, 190]);
    assert.deepEqual(a.itl(), { p50: 20, max: 25 });
    assert.ok(a.complete());
    assert.equal(a.malformed, null);
    assert.equal(a.streamFailure, null);
  });
  await t.step("a tool call after text: id, name, arguments assembled, tool_calls", () => {
    const { answer: a } = replay(fixture("tool_use.json").frames, 5);
    assert.equal(a.text, "Let me look that up.");
    assert.deepEqual(a.toolCalls(), [{
      id: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
      name: "get_weather",
      raw_arguments: '{"city": "Paris"}',
      arguments: { city: "Paris" },
    }]);
    assert.equal(a.finishReason, "tool_calls");
    // Tokens at 140 (text), 160 (the tool's name), 175, 200 (input): gaps 20, 15, 25 → median 20.
    assert.deepEqual([a.firstTokenMs, a.lastTokenMs], [140, 200]);
    assert.deepEqual(a.itl(), { p50: 20, max: 25 });
    assert.equal(a.usage?.prompt_tokens, 410);
    assert.ok(a.complete());
  });
  await t.step("a refusal is text that ends the turn: finish stop", () => {
    const { answer: a } = replay(fixture("refusal.json").frames);
    assert.equal(a.text, "I can't help with that.");
    assert.equal(a.finishReason, "stop");
    assert.ok(a.complete());
  });
  await t.step("throttlingException mid-stream: rejected, 429, the rest unread", () => {
    const { answer: a } = replay(fixture("throttling_midstream.json").frames);
    assert.deepEqual(a.streamFailure, { kind: "stream_throttling", outcome: "rejected", status: 429 });
    assert.equal(a.text, "Once upon");
    assert.equal(a.finishReason, null);
    assert.equal(a.complete(), false);
  });
  await t.step("serviceUnavailableException mid-stream: rejected, 503", () => {
    const { answer: a } = replay(fixture("unavailable_midstream.json").frames);
    assert.deepEqual(a.streamFailure, { kind: "stream_service_unavailable", outcome: "rejected", status: 503 });
  });
  await t.step("modelStreamErrorException mid-stream: http_error, 424", () => {
    const { answer: a } = replay(fixture("model_stream_error.json").frames);
    assert.deepEqual(a.streamFailure, { kind: "stream_model_stream_error", outcome: "http_error", status: 424 });
    assert.equal(a.text, "Hel");
  });
  await t.step("reasoning is no token; cache reads and writes join the prompt count; the tier served", () => {
    const { answer: a } = replay(fixture("cache_reasoning.json").frames);
    assert.equal(a.text, "4");
    assert.deepEqual([a.firstTokenMs, a.lastTokenMs], [300, 300]);
    // prompt = 12 fresh + 1500 read + 300 written = 1812; output 90 includes the reasoning (not broken out).
    assert.deepEqual(a.usage, {
      prompt_tokens: 1812,
      completion_tokens: 90,
      cached_tokens: 1500,
      reasoning_tokens: null,
      cache_write_tokens: 300,
    });
    assert.equal(a.serviceTier, "priority");
  });
  await t.step("guardrail_intervened: content_filter", () => {
    assert.equal(replay(fixture("guardrail.json").frames).answer.finishReason, "content_filter");
  });
  await t.step("max_tokens: length; totalTokens may be absent", () => {
    const { answer: a } = replay(fixture("max_tokens.json").frames);
    assert.equal(a.finishReason, "length");
    assert.equal(a.usage?.completion_tokens, 2);
  });
  await t.step("a stream that ends after messageStop without its metadata is not complete", () => {
    const frames = fixture("text.json").frames.slice(0, -1);
    const { answer: a } = replay(frames);
    assert.equal(a.finishReason, "stop");
    assert.equal(a.complete(), false);
  });
  await t.step("an error message and an unknown exception type fail the stream", () => {
    const a = new BedrockAnswer();
    a.feedEvent({ event: "error:InternalFailure", data: "boom" }, 1);
    assert.deepEqual(a.streamFailure, { kind: "stream_error", outcome: "http_error", status: null });
    const b = new BedrockAnswer();
    b.feedEvent({ event: "exception:constructor", data: "{}" }, 1);
    assert.deepEqual(b.streamFailure, { kind: "stream_exception", outcome: "http_error", status: null });
  });
});

Deno.test("bedrock-converse: whole Converse bodies", async (t) => {
  await t.step("text and a tool call, cache read, tier", () => {
    const a = new BedrockAnswer();
    a.feedBody(JSON.stringify(fixture<{ body: unknown }>("body_tool_use.json").body), 500);
    assert.equal(a.text, "Checking.");
    assert.deepEqual(a.toolCalls(), [{
      id: "tooluse_Aa1",
      name: "get_weather",
      raw_arguments: '{"city":"Paris"}',
      arguments: { city: "Paris" },
    }]);
    assert.equal(a.finishReason, "tool_calls");
    // 100 fresh + 50 read from the cache = 150; totalTokens 170 = 150 + 20.
    assert.deepEqual(a.usage, {
      prompt_tokens: 150,
      completion_tokens: 20,
      cached_tokens: 50,
      reasoning_tokens: null,
      cache_write_tokens: null,
    });
    assert.equal(a.serviceTier, "flex");
    assert.deepEqual([a.firstTokenMs, a.lastTokenMs], [500, 500]);
    assert.ok(a.complete());
  });
  await t.step("content_filtered: content_filter, no text", () => {
    const a = new BedrockAnswer();
    a.feedBody(JSON.stringify(fixture<{ body: unknown }>("body_content_filtered.json").body), 5);
    assert.deepEqual([a.text, a.finishReason, a.malformed], ["", "content_filter", null]);
  });
});

type Malformed = {
  streams: { name: string; kind: string; frames: Frame[] }[];
  usage: { name: string; usage: unknown; problem: string }[];
  bodies: { name: string; kind: string; body?: unknown; raw?: string }[];
};

Deno.test("bedrock-converse: every malformed variant gives its precise kind, never an exception", async (t) => {
  const m = fixture<Malformed>("malformed.json");
  for (const s of m.streams) {
    await t.step(`stream: ${s.name} → ${s.kind}`, () => {
      const { answer: a } = replay(s.frames);
      assert.equal(a.malformedKind, s.kind, a.malformed ?? "");
      assert.ok(a.malformed);
    });
  }
  for (const u of m.usage) {
    await t.step(`usage: ${u.name}`, () => {
      const frames: Frame[] = [
        { type: "messageStart", payload: { role: "assistant" } },
        { type: "messageStop", payload: { stopReason: "end_turn" } },
        { type: "metadata", payload: { usage: u.usage } },
      ];
      const { answer: a } = replay(frames);
      assert.equal(a.usage, null);
      assert.ok(a.badUsage?.includes(u.problem), a.badUsage ?? "");
      assert.equal(a.malformed, null);
    });
  }
  for (const b of m.bodies) {
    await t.step(`body: ${b.name} → ${b.kind}`, () => {
      const a = new BedrockAnswer();
      a.feedBody(b.raw ?? JSON.stringify(b.body), 1);
      assert.equal(a.malformedKind, b.kind, a.malformed ?? "");
    });
  }
  await t.step("unknown stop reasons keep their name, prefixed (and no prototype key is a mapping)", () => {
    assert.equal(bedrockFinish("malformed_model_output"), "bedrock-converse:malformed_model_output");
    assert.equal(bedrockFinish("constructor"), "bedrock-converse:constructor");
  });
  await t.step("readBedrockUsage accepts totalTokens with or without the cache counts", () => {
    assert.ok(readBedrockUsage({ inputTokens: 7, outputTokens: 1, totalTokens: 8, cacheWriteInputTokens: 5 }).ok);
    assert.ok(readBedrockUsage({ inputTokens: 7, outputTokens: 1, totalTokens: 13, cacheWriteInputTokens: 5 }).ok);
  });
});

Deno.test("AwsEventStreamDecoder reports framing faults as a problem, never throws", async (t) => {
  const frames = fixture("text.json").frames;
  const good = concat(frames.map(encodeFrame));
  await t.step("a flipped payload byte: the message CRC fails; later bytes are dropped", () => {
    const bytes = good.slice();
    const first = encodeFrame(frames[0]!).length;
    bytes[first - 6]! ^= 0x20; // inside the first message's payload
    const dec = new AwsEventStreamDecoder();
    assert.deepEqual(dec.push(bytes), []);
    assert.match(dec.problem ?? "", /cannot be decoded.*checksum/);
    assert.deepEqual(dec.push(good), []);
    assert.deepEqual(dec.end(), { events: [], partial: false });
  });
  await t.step("a bad prelude CRC is found from the first 12 bytes", () => {
    const bytes = good.slice(0, 12);
    bytes[9]! ^= 1;
    const dec = new AwsEventStreamDecoder();
    dec.push(bytes);
    assert.equal(dec.problem, "the prelude CRC does not match");
  });
  await t.step("a total length under 16 bytes (with a valid prelude CRC)", () => {
    const prelude = new Uint8Array(12);
    const view = new DataView(prelude.buffer);
    view.setUint32(0, 8);
    view.setUint32(8, crc32(prelude.subarray(0, 8)));
    const dec = new AwsEventStreamDecoder();
    dec.push(prelude);
    assert.match(dec.problem ?? "", /total length is 8/);
  });
  await t.step("events completed before a fault are still returned", () => {
    const bytes = good.slice();
    const first = encodeFrame(frames[0]!).length;
    bytes[first + 9]! ^= 1; // the second message's prelude CRC
    const dec = new AwsEventStreamDecoder();
    const evs = dec.push(bytes);
    assert.equal(evs.length, 1);
    assert.equal(evs[0]!.event, "messageStart");
    assert.ok(dec.problem);
  });
  await t.step("a stream cut mid-message is partial", () => {
    const dec = new AwsEventStreamDecoder();
    assert.equal(dec.push(good.subarray(0, good.length - 5)).length, frames.length - 1);
    assert.deepEqual(dec.end(), { events: [], partial: true });
    assert.equal(dec.problem, null);
  });
});

Deno.test("bedrock-converse prepare(): options, addresses, credentials", async (t) => {
  const fails = (s: DialectRouteSpec, re: RegExp) => {
    assert.throws(() => bedrock.prepare(s), (e: unknown) => e instanceof InputError && re.test(e.message));
  };
  await t.step("an unknown option or a bad value names its field", () => {
    fails(spec({ options: { bogus: 1 } }), /routes\.bedrock\.dialect_options\.bogus/);
    fails(spec({ options: { region: "Mars" } }), /routes\.bedrock\.dialect_options\.region/);
    fails(spec({ options: { auth: "basic" } }), /routes\.bedrock\.dialect_options\.auth/);
    fails(spec({ options: { service_tier: "gold" } }), /dialect_options\.service_tier/);
  });
  await t.step("no region anywhere: names the option and the variables", () => {
    const { AWS_REGION: _, ...env } = AWS_ENV;
    fails(spec({}, env), /dialect_options\.region: not set.*AWS_REGION.*AWS_DEFAULT_REGION/);
  });
  await t.step("a missing credential names its variable, never a value", () => {
    const { AWS_ACCESS_KEY_ID: _, ...noId } = AWS_ENV;
    assert.throws(() => bedrock.prepare(spec({}, noId)), (e: unknown) => {
      const msg = (e as Error).message;
      return e instanceof InputError && msg.includes("AWS_ACCESS_KEY_ID") && !msg.includes(SECRET) &&
        !msg.includes(TOKEN);
    });
    const { AWS_SECRET_ACCESS_KEY: __, ...noSecret } = AWS_ENV;
    assert.throws(() => bedrock.prepare(spec({}, noSecret)), (e: unknown) => {
      const msg = (e as Error).message;
      return e instanceof InputError && msg.includes("AWS_SECRET_ACCESS_KEY") && !msg.includes(KEY_ID);
    });
  });
  await t.step("the route's URL wins; the model id is URL-encoded; a full endpoint is taken as the base", () => {
    const r = bedrock.prepare(spec());
    assert.equal(
      r.url(false).href,
      "http://127.0.0.1:8123/model/us.anthropic.claude-3-5-haiku-20241022-v1%3A0/converse",
    );
    assert.equal(
      r.url(true).href,
      "http://127.0.0.1:8123/model/us.anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream",
    );
    const full = bedrock.prepare(spec({ url: r.url(true).href }));
    assert.equal(full.url(false).href, r.url(false).href);
    const arn = bedrock.prepare(spec({ model: "arn:aws:bedrock:us-west-2:123:inference-profile/x" }));
    assert.equal(
      arn.url(false).pathname,
      "/model/arn%3Aaws%3Abedrock%3Aus-west-2%3A123%3Ainference-profile%2Fx/converse",
    );
  });
  await t.step("no URL: the region's endpoint (the option over AWS_REGION)", () => {
    const r = bedrock.prepare(spec({ url: "", options: { region: "eu-central-1" } }));
    assert.equal(r.url(false).origin, "https://bedrock-runtime.eu-central-1.amazonaws.com");
    const d = bedrock.prepare(spec({ url: "" }, { ...AWS_ENV, AWS_REGION: "", AWS_DEFAULT_REGION: "ap-south-1" }));
    assert.equal(d.url(false).host, "bedrock-runtime.ap-south-1.amazonaws.com");
  });
  await t.step("recorded options, tier, headers: no secret anywhere", () => {
    const r = bedrock.prepare(spec({ options: { service_tier: "flex", latency: "optimized" } }));
    assert.deepEqual(r.options, {
      region: "us-west-2",
      auth: "sigv4",
      structured_output: "output_config",
      service_tier: "flex",
      latency: "optimized",
    });
    assert.equal(r.serviceTier, "flex");
    assert.deepEqual(r.headers, { "content-type": "application/json" });
    assert.deepEqual([...r.secretHeaders].sort(), ["authorization", "x-amz-security-token"]);
    const seen = JSON.stringify([r.options, r.headers]);
    for (const s of [SECRET, KEY_ID, TOKEN]) assert.ok(!seen.includes(s));
  });
  await t.step("bearer: the route's key, else AWS_BEARER_TOKEN_BEDROCK, only in authorization; no signing", () => {
    const r = bedrock.prepare(
      spec({ key: "bedrock-api-key-1", options: { auth: "bearer" } }, { AWS_REGION: "us-east-1" }),
    );
    assert.equal(r.headers.authorization, "Bearer bedrock-api-key-1");
    assert.equal(r.sign, null);
    assert.ok(!JSON.stringify(r.options).includes("bedrock-api-key-1"));
    const e = bedrock.prepare(
      spec({ options: { auth: "bearer" } }, { AWS_REGION: "us-east-1", AWS_BEARER_TOKEN_BEDROCK: "k2" }),
    );
    assert.equal(e.headers.authorization, "Bearer k2");
    fails(spec({ options: { auth: "bearer" } }, { AWS_REGION: "us-east-1" }), /AWS_BEARER_TOKEN_BEDROCK/);
  });
});

Deno.test("bedrock-converse sign(): a SigV4 signature another signer with the same credentials reproduces", async () => {
  const route = bedrock.prepare(spec());
  const url = route.url(true);
  const body = '{"messages":[{"role":"user","content":[{"text":"hi"}]}],"inferenceConfig":{"maxTokens":5}}';
  const h = await route.sign!({ url, headers: { ...route.headers }, body });
  assert.equal(h.host, undefined); // the HTTP client writes host from the same URL
  assert.equal(h["x-amz-security-token"], TOKEN);
  const auth = h.authorization!;
  const date = h["x-amz-date"]!;
  assert.match(
    auth,
    new RegExp(`^AWS4-HMAC-SHA256 Credential=${KEY_ID}/${date.slice(0, 8)}/us-west-2/bedrock/aws4_request, `),
  );
  assert.match(auth, /SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token,/);
  // No secret outside the secret headers.
  const open = Object.entries(h).filter(([k]) => !route.secretHeaders.includes(k));
  for (const s of [SECRET, TOKEN]) assert.ok(!JSON.stringify(open).includes(s));
  assert.ok(!auth.includes(SECRET));

  const at = new Date(
    Date.UTC(
      +date.slice(0, 4),
      +date.slice(4, 6) - 1,
      +date.slice(6, 8),
      +date.slice(9, 11),
      +date.slice(11, 13),
      +date.slice(13, 15),
    ),
  );
  const recompute = async (secretAccessKey: string, path = url.pathname) => {
    const signer = new SignatureV4({
      service: "bedrock",
      region: "us-west-2",
      credentials: { accessKeyId: KEY_ID, secretAccessKey, sessionToken: TOKEN },
      sha256: Sha256,
    });
    const { authorization: _, ...sent } = h;
    const again = await signer.sign(
      {
        method: "POST",
        protocol: "http:",
        hostname: "127.0.0.1",
        port: 8123,
        path,
        query: {},
        headers: { ...sent, host: url.host },
        body,
      },
      { signingDate: at },
    );
    return again.headers.authorization;
  };
  assert.equal(await recompute(SECRET), auth);
  // The check can fail: another secret or another path gives another signature.
  assert.notEqual(await recompute(SECRET + "x"), auth);
  assert.notEqual(await recompute(SECRET, "/model/other/converse-stream"), auth);
});

Deno.test("bedrock-converse body(): the neutral conversation, tools, schema, cap, tier", () => {
  const c = makeCase({
    class: "invoice extract",
    expected_output_schema: INVOICE_SCHEMA,
    tools: [
      { name: "get_order", description: "Look up an order", parameters: { type: "object" } },
      { name: "ping", description: "", parameters: { type: "object", properties: {} } },
    ],
  });
  const messages: WireMessage[] = [
    { role: "system", content: "You are terse." },
    { role: "user", content: "Where is order A1?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "t1", type: "function", function: { name: "get_order", arguments: '{"order_id":"A1"}' } },
        { id: "t2", type: "function", function: { name: "ping", arguments: "" } },
      ],
    },
    { role: "tool", tool_call_id: "t1", content: "shipped" },
    { role: "tool", tool_call_id: "t2", content: "pong" },
  ];
  const route = bedrock.prepare(spec({ options: { service_tier: "priority", latency: "optimized" } }));
  const b = JSON.parse(bedrock.body(c, messages, { model: "m", stream: true, maxTokens: 300 }, route));
  assert.deepEqual(b, {
    messages: [
      { role: "user", content: [{ text: "Where is order A1?" }] },
      {
        role: "assistant",
        content: [
          { toolUse: { toolUseId: "t1", name: "get_order", input: { order_id: "A1" } } },
          { toolUse: { toolUseId: "t2", name: "ping", input: {} } },
        ],
      },
      {
        role: "user",
        content: [
          { toolResult: { toolUseId: "t1", content: [{ text: "shipped" }] } },
          { toolResult: { toolUseId: "t2", content: [{ text: "pong" }] } },
        ],
      },
    ],
    system: [{ text: "You are terse." }],
    inferenceConfig: { maxTokens: 300 },
    toolConfig: {
      tools: [
        { toolSpec: { name: "get_order", description: "Look up an order", inputSchema: { json: { type: "object" } } } },
        { toolSpec: { name: "ping", inputSchema: { json: { type: "object", properties: {} } } } },
      ],
    },
    outputConfig: {
      textFormat: {
        type: "json_schema",
        structure: { jsonSchema: { schema: JSON.stringify(INVOICE_SCHEMA), name: "invoice_extract_output" } },
      },
    },
    serviceTier: { type: "priority" },
    performanceConfig: { latency: "optimized" },
  });
  const none = bedrock.prepare(spec({ options: { structured_output: "none" } }));
  assert.equal(
    JSON.parse(bedrock.body(c, messages, { model: "m", stream: false, maxTokens: 5 }, none)).outputConfig,
    undefined,
  );
});

Deno.test("bedrock-converse classifyError() and readLimits()", () => {
  const none = new Map<string, string>();
  const t = new Map([["x-amzn-errortype", "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"]]);
  assert.deepEqual(bedrock.classifyError(429, t, '{"message":"Too many requests"}'), {
    kind: "http_429",
    outcome: "rejected",
  });
  assert.deepEqual(bedrock.classifyError(503, none, ""), { kind: "http_503", outcome: "rejected" });
  assert.deepEqual(bedrock.classifyError(400, none, '{"message":"bad"}'), { kind: "http_400", outcome: "http_error" });
  assert.deepEqual(bedrock.classifyError(403, none, "<html>"), { kind: "http_403", outcome: "http_error" });
  assert.deepEqual(bedrock.classifyError(500, none, ""), { kind: "http_500", outcome: "http_error" });
  assert.equal(bedrock.readLimits(new Map([["retry-after", "3"], ["x-ratelimit-limit-requests", "5"]])), null);
});
