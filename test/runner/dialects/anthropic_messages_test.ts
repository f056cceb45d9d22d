import assert from "node:assert/strict";
import {
  anthropicLimits,
  anthropicMessagesDialect as dialect,
  classifyAnthropicError,
} from "../../../runner/dialects/anthropic_messages.ts";
import type { DialectRouteSpec } from "../../../runner/dialects/dialect.ts";
import { InputError } from "../../../schema/errors.ts";
import { tinyCase } from "../../../testing/tiny_workload.ts";
import { at, FIXTURES, replay, replayText, toolConversation } from "./_anthropic_replay.ts";

/** The InputError `f` throws (failing when it throws nothing or something else). */
function inputError(f: () => unknown): InputError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof InputError, String(e));
    return e;
  }
  assert.fail("no InputError thrown");
}

const noCache = { cached_tokens: 0, reasoning_tokens: null, cache_write_tokens: 0 };

Deno.test("anthropic-messages: each stream transcript gives its text, finish, usage and token times", async (t) => {
  await t.step("text: tokens are the text deltas only (events 3, 4, 5)", () => {
    const a = replay("text.sse");
    assert.equal(a.malformed, null);
    assert.equal(a.text, "Paris is the capital of France.");
    assert.equal(a.finishReason, "stop");
    // event 3 at 1000 + 10·9 = 1090; events 4, 5 at 1160, 1250: gaps 70 and 90 → median 80, max 90
    assert.equal(a.firstTokenMs, 1090);
    assert.equal(a.lastTokenMs, 1250);
    assert.deepEqual(a.itl(), { p50: 80, max: 90 });
    // message_start's input 25 with its cache counts; output 9 from message_delta (cumulative)
    assert.deepEqual(a.usage, { prompt_tokens: 25, completion_tokens: 9, ...noCache });
    assert.equal(a.serviceTier, "standard");
    assert.equal(a.complete(), true);
    assert.deepEqual(a.toolCalls(), []);
    assert.equal(a.streamFailure, null);
  });

  await t.step("tool use: the call's start names it, its JSON pieces are tokens, an empty piece is not", () => {
    const a = replay("tool_use.sse");
    assert.equal(a.malformed, null);
    assert.equal(a.text, "I'll check the weather.");
    assert.equal(a.finishReason, "tool_calls");
    assert.deepEqual(a.toolCalls(), [{
      id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
      name: "get_weather",
      raw_arguments: '{"city": "San Francisco", "unit": "celsius"}',
      arguments: { city: "San Francisco", unit: "celsius" },
    }]);
    // tokens: text at event 2 (1040), tool start at 4 (1160), pieces at 6 (1360) and 7 (1490); event 5 is "".
    // gaps 120, 200, 130 → sorted 120, 130, 200: median 130, max 200
    assert.equal(a.firstTokenMs, 1040);
    assert.equal(a.lastTokenMs, 1490);
    assert.deepEqual(a.itl(), { p50: 130, max: 200 });
    assert.deepEqual(a.usage, { prompt_tokens: 410, completion_tokens: 89, ...noCache });
    assert.equal(a.complete(), true);
  });

  await t.step("refusal: stop_reason refusal is the neutral refusal; the text before it is kept", () => {
    const a = replay("refusal.sse");
    assert.equal(a.malformed, null);
    assert.equal(a.finishReason, "refusal");
    assert.equal(a.text, "Hello..");
    assert.equal(a.firstTokenMs, at(2));
    assert.deepEqual(a.usage, { prompt_tokens: 30, completion_tokens: 4, ...noCache });
    assert.equal(a.complete(), true);
  });

  await t.step("overload mid-stream: a rejected stream failure with status 529, not complete", () => {
    const a = replay("overloaded.sse");
    assert.equal(a.malformed, null);
    assert.deepEqual(a.streamFailure, { kind: "stream_overloaded_error", outcome: "rejected", status: 529 });
    assert.equal(a.complete(), false);
    assert.equal(a.text, "The answer");
    assert.equal(a.firstTokenMs, 1040);
    assert.equal(a.finishReason, null);
  });

  await t.step("thinking and prompt cache: thinking is not a token; prompt adds cache reads and writes", () => {
    const a = replay("thinking_cache.sse");
    assert.equal(a.malformed, null);
    assert.equal(a.text, "27 × 453 = 12,231.");
    // the thinking deltas (events 2-4, from 1040 ms) are not visible: the first token is the text at event 7
    assert.equal(a.firstTokenMs, 1000 + 10 * 49);
    assert.equal(a.lastTokenMs, 1490);
    assert.deepEqual(a.itl(), { p50: null, max: null });
    // prompt = input 12 + cache writes 2048 + cache reads 8192 = 10252; thinking inside output 214, not apart
    assert.deepEqual(a.usage, {
      prompt_tokens: 10252,
      completion_tokens: 214,
      cached_tokens: 8192,
      reasoning_tokens: null,
      cache_write_tokens: 2048,
    });
    assert.equal(a.serviceTier, "priority");
    assert.equal(a.finishReason, "stop");
  });

  await t.step("server tool and pause_turn: server blocks, unknown events and citations are skipped", () => {
    const a = replay("server_tool_pause.sse");
    assert.equal(a.malformed, null);
    assert.equal(a.text, "Searching");
    assert.deepEqual(a.toolCalls(), []);
    assert.equal(a.finishReason, "anthropic:pause_turn");
    assert.equal(a.firstTokenMs, at(8));
    // message_delta's cumulative input (2679) replaces message_start's (2000)
    assert.deepEqual(a.usage, { prompt_tokens: 2679, completion_tokens: 312, ...noCache });
    assert.equal(a.complete(), true);
  });
});

Deno.test("anthropic-messages: whole bodies are read with every token at the read time", async (t) => {
  await t.step("text with cache reads", () => {
    const a = replay("body_text.json");
    assert.equal(a.malformed, null);
    assert.equal(a.text, "Hi! My name is Claude.");
    assert.equal(a.finishReason, "stop");
    assert.equal(a.firstTokenMs, 5000);
    assert.equal(a.lastTokenMs, 5000);
    // prompt = 2095 + 0 written + 1800 read = 3895
    assert.deepEqual(a.usage, {
      prompt_tokens: 3895,
      completion_tokens: 503,
      cached_tokens: 1800,
      reasoning_tokens: null,
      cache_write_tokens: 0,
    });
    assert.equal(a.serviceTier, "standard");
    assert.equal(a.complete(), true);
  });
  await t.step("a tool call after thinking: the input object becomes the arguments' JSON", () => {
    const a = replay("body_tool_use.json");
    assert.equal(a.malformed, null);
    assert.equal(a.text, "I'll check the current weather in San Francisco for you.");
    assert.equal(a.finishReason, "tool_calls");
    assert.deepEqual(a.toolCalls(), [{
      id: "toolu_01A09q90qw90lq917835lq9",
      name: "get_weather",
      raw_arguments: '{"location":"San Francisco, CA","unit":"celsius"}',
      arguments: { location: "San Francisco, CA", unit: "celsius" },
    }]);
    // prompt = 472 + 1024 written = 1496
    assert.deepEqual(a.usage, {
      prompt_tokens: 1496,
      completion_tokens: 91,
      cached_tokens: 0,
      reasoning_tokens: null,
      cache_write_tokens: 1024,
    });
  });
  await t.step("a 200 body of type error is a stream failure", () => {
    const a = dialect.newAnswer();
    a.feedBody(Deno.readTextFileSync(new URL("error_overloaded.json", FIXTURES)), 1);
    assert.deepEqual(a.streamFailure, { kind: "stream_overloaded_error", outcome: "rejected", status: 529 });
    assert.equal(a.complete(), false);
  });
});

Deno.test("anthropic-messages: every malformed variant gets its precise kind, never an exception", () => {
  const kinds: Record<string, string> = {
    "not_json.sse": "malformed_sse",
    "event_name_mismatch.sse": "bad_event",
    "no_type.sse": "bad_event",
    "message_not_object.sse": "bad_event",
    "delta_before_message_start.sse": "bad_event_order",
    "second_message_start.sse": "bad_event_order",
    "block_open_at_message_stop.sse": "bad_event_order",
    "delta_unknown_block.sse": "bad_content_block",
    "block_index_skips.sse": "bad_content_block",
    "text_delta_on_tool_block.sse": "bad_content_block",
    "text_not_string.sse": "bad_content_block",
    "delta_after_block_stop.sse": "bad_content_block",
    "tool_use_without_name.sse": "bad_tool_call",
    "stop_reason_number.sse": "bad_finish_reason",
    "service_tier_number.sse": "bad_service_tier",
    "data_after_message_stop.sse": "data_after_stop",
    "body_not_json.body": "invalid_json",
    "body_not_message.body": "bad_body",
    "body_content_not_array.body": "bad_content_block",
    "body_tool_input_string.body": "bad_tool_call",
    "body_stop_reason_object.body": "bad_finish_reason",
  };
  const dir = new URL("malformed/", FIXTURES);
  const names = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => !n.includes("usage")).sort();
  assert.deepEqual(names, Object.keys(kinds).sort(), "every malformed fixture has an expected kind");
  for (const [name, kind] of Object.entries(kinds)) {
    const a = replay(`malformed/${name}`);
    assert.equal(a.malformedKind, kind, `${name}: ${a.malformed}`);
    assert.ok(a.malformed && a.malformed.length <= 200, name);
  }
});

Deno.test("anthropic-messages: an unusable usage report voids usage (bad_usage), the answer is still read", () => {
  const problems: Record<string, RegExp> = {
    "usage_count_string.sse": /message_delta\.usage\.output_tokens is "5"/,
    "usage_output_decreases.sse": /output_tokens fell from 9 to 4; it is cumulative/,
    "usage_cache_breakdown_disagrees.sse": /cache_creation adds up to 90, but cache_creation_input_tokens is 100/,
    "usage_negative.sse": /input_tokens is -3/,
    "body_usage_float.body": /usage\.input_tokens is 10\.5/,
  };
  for (const [name, problem] of Object.entries(problems)) {
    const a = replay(`malformed/${name}`);
    assert.equal(a.malformed, null, name);
    assert.equal(a.usage, null, name);
    assert.match(a.badUsage ?? "", problem, name);
    assert.equal(a.text, "Hi", name);
  }
});

Deno.test("anthropic-messages: a stream failure ends reading; a stream cut before message_stop is not complete", () => {
  const text = Deno.readTextFileSync(new URL("text.sse", FIXTURES));
  const cut = replayText(text.slice(0, text.indexOf("event: message_delta")));
  assert.equal(cut.complete(), false);
  assert.equal(cut.text, "Paris is the capital of France.");
  const failed = replayText(
    Deno.readTextFileSync(new URL("overloaded.sse", FIXTURES)) + 'event: ping\ndata: {"type":"ping"}\n\n',
  );
  assert.equal(failed.malformed, null, "events after an error are not read");
  // A gateway that drops the `event:` lines: the events are read by their data's type alone.
  const bare = replayText(text.replace(/^event: .*\n/gm, ""));
  assert.equal(bare.malformed, null);
  assert.equal(bare.text, "Paris is the capital of France.");
  assert.equal(bare.complete(), true);
  assert.equal(bare.firstTokenMs, at(3));
  const nullEvent = dialect.newAnswer();
  nullEvent.feedEvent({ event: null, data: '{"type":"ping"}' }, 1);
  assert.equal(nullEvent.malformed, null);
  const unknown = replayText('event: error\ndata: {"type":"error","error":{"type":"new_kind_error"}}\n\n');
  assert.deepEqual(unknown.streamFailure, { kind: "stream_error", outcome: "http_error", status: null });
});

const spec = (over: Partial<DialectRouteSpec> = {}): DialectRouteSpec => ({
  url: "https://api.anthropic.com",
  model: "claude-sonnet-4-5",
  key: null,
  options: {},
  where: "routes.json: routes.claude",
  ...over,
});

Deno.test("anthropic-messages prepare: endpoint, headers, recorded options", async (t) => {
  await t.step("a bare base gets /v1/messages; the full endpoint is kept; defaults are recorded", () => {
    const r = dialect.prepare(spec());
    assert.equal(r.url(true).href, "https://api.anthropic.com/v1/messages");
    assert.equal(r.url(false).href, "https://api.anthropic.com/v1/messages");
    assert.equal(
      dialect.prepare(spec({ url: "http://127.0.0.2:9/v1/messages" })).url(true).href,
      "http://127.0.0.2:9/v1/messages",
    );
    assert.deepEqual(r.headers, {
      "content-type": "application/json",
      accept: "text/event-stream, application/json",
      "anthropic-version": "2023-06-01",
    });
    assert.deepEqual(r.options, {
      anthropic_version: "2023-06-01",
      beta: [],
      thinking_budget_tokens: null,
      service_tier: null,
      structured_output: "output_config",
    });
    assert.equal(r.serviceTier, null);
    assert.equal(r.sign, null);
    assert.deepEqual(r.secretHeaders, ["x-api-key"]);
  });
  await t.step("betas join in one header; the service tier is the route's", () => {
    const r = dialect.prepare(
      spec({ options: { beta: ["a-2025-01-01", "b-2025-02-02"], service_tier: "standard_only" } }),
    );
    assert.equal(r.headers["anthropic-beta"], "a-2025-01-01,b-2025-02-02");
    assert.equal(r.serviceTier, "standard_only");
  });
  await t.step("every bad option is named by its field, all at once", () => {
    const err = inputError(() =>
      dialect.prepare(spec({
        options: { thinking_budget_tokens: 100, service_tier: "priority", beta: ["ok-1", "has space"], temp: 1 },
      }))
    );
    const at = "routes.json: routes.claude.dialect_options";
    const joined = err.problems.join("\n");
    assert.match(joined, new RegExp(`${at}\\.thinking_budget_tokens: `));
    assert.match(joined, new RegExp(`${at}\\.service_tier: `));
    assert.match(joined, new RegExp(`${at}\\.beta\\[1\\]: must be a feature name`));
    assert.match(joined, new RegExp(`${at}\\.temp: unknown option`));
    assert.equal(err.problems.length, 4);
  });
  await t.step("a bad URL is named by the route's url", () => {
    assert.throws(() => dialect.prepare(spec({ url: "ftp://h" })), /routes\.claude\.url: must be http/);
    assert.throws(() => dialect.prepare(spec({ url: "nope", where: "--target" })), /^InputError: --target: not a URL/);
  });
});

Deno.test("anthropic-messages body: system, tool turns, tools, schema, thinking, tier", () => {
  const { c, messages } = toolConversation();
  const route = dialect.prepare(spec({ options: { thinking_budget_tokens: 2048, service_tier: "auto" } }));
  const body = JSON.parse(dialect.body(c, messages, { model: "claude-x", stream: true, maxTokens: 300 }, route));
  assert.deepEqual(body, {
    model: "claude-x",
    // the thinking budget comes on top of the case's cap: 300 + 2048
    max_tokens: 2348,
    system: "Answer from the tools.",
    messages: [
      { role: "user", content: "Order A1?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Looking it up." },
          { type: "tool_use", id: "toolu_1", name: "get_order", input: { id: "A1" } },
          { type: "tool_use", id: "toolu_2", name: "get_order", input: { id: "A2" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "shipped" },
          { type: "tool_result", tool_use_id: "toolu_2", content: "pending" },
        ],
      },
    ],
    tools: [{ name: "get_order", description: "Look an order up", input_schema: c.tools[0]!.parameters }],
    tool_choice: { type: "auto" },
    output_config: { format: { type: "json_schema", schema: c.expected_output_schema } },
    thinking: { type: "enabled", budget_tokens: 2048 },
    service_tier: "auto",
    stream: true,
  });
  const plain = dialect.prepare(spec({ options: { structured_output: "off" } }));
  const b2 = JSON.parse(
    dialect.body(c, [{ role: "user", content: "hi" }], { model: "m", stream: false, maxTokens: 5 }, plain),
  );
  assert.deepEqual(Object.keys(b2), ["model", "max_tokens", "messages", "tools", "tool_choice", "stream"]);
  assert.equal(b2.max_tokens, 5);
  const two = JSON.parse(dialect.body(
    tinyCase(),
    [{ role: "system", content: "a" }, { role: "system", content: "b" }, { role: "user", content: "hi" }],
    { model: "m", stream: false, maxTokens: 5 },
    plain,
  ));
  assert.deepEqual(two.system, [{ type: "text", text: "a" }, { type: "text", text: "b" }]);
});

Deno.test("anthropic-messages: the key appears only in its x-api-key header", () => {
  const key = "sk-ant-test-KEY-0123456789";
  const route = dialect.prepare(spec({ key }));
  assert.equal(route.headers["x-api-key"], key);
  const { c, messages } = toolConversation();
  const everywhere = [
    JSON.stringify(route.options),
    route.url(true).href,
    route.url(false).href,
    dialect.body(c, messages, { model: "m", stream: true, maxTokens: 10 }, route),
    JSON.stringify(Object.entries(route.headers).filter(([k]) => !route.secretHeaders.includes(k))),
  ].join("\n");
  assert.equal(everywhere.includes(key), false);
  // A key pasted into an option by mistake is not echoed in the option's error.
  const options = { nope: key, service_tier: key, anthropic_version: key, beta: [key + " x"], structured_output: key };
  const err = inputError(() => dialect.prepare(spec({ key, options })));
  assert.equal(err.problems.length, 5);
  assert.equal(err.message.includes(key), false);
});

Deno.test("anthropic-messages classifyError: overload and rate limit are rejected, the rest http_error", () => {
  const body = (n: string) => Deno.readTextFileSync(new URL(n, FIXTURES));
  const h = new Map<string, string>();
  assert.deepEqual(dialect.classifyError(529, h, body("error_overloaded.json")), {
    kind: "http_529",
    outcome: "rejected",
  });
  assert.deepEqual(dialect.classifyError(429, h, body("error_rate_limit.json")), {
    kind: "http_429",
    outcome: "rejected",
  });
  assert.deepEqual(dialect.classifyError(400, h, body("error_invalid_request.json")), {
    kind: "http_400",
    outcome: "http_error",
  });
  // a gateway answering an overload under another status: still the provider refusing for load
  assert.deepEqual(classifyAnthropicError(503, body("error_overloaded.json")), {
    kind: "http_503",
    outcome: "rejected",
  });
  assert.deepEqual(classifyAnthropicError(500, ""), { kind: "http_500", outcome: "http_error" });
  assert.deepEqual(classifyAnthropicError(500, '{"error":"x"}'), { kind: "http_500", outcome: "http_error" });
  assert.deepEqual(classifyAnthropicError(529, "{cut"), { kind: "http_529", outcome: "rejected" });
});

Deno.test("anthropic-messages readLimits: RFC 3339 resets in ms from now, split token windows summed", () => {
  const now = Date.parse("2026-03-01T12:00:00Z");
  const full = new Map([
    ["anthropic-ratelimit-requests-limit", "1000"],
    ["anthropic-ratelimit-requests-remaining", "999"],
    ["anthropic-ratelimit-requests-reset", "2026-03-01T12:00:00.060Z"],
    ["anthropic-ratelimit-tokens-limit", "96000"],
    ["anthropic-ratelimit-tokens-remaining", "95000"],
    ["anthropic-ratelimit-tokens-reset", "2026-03-01T12:00:02Z"],
    ["anthropic-ratelimit-input-tokens-limit", "80000"],
    ["retry-after", "3"],
  ]);
  assert.deepEqual(anthropicLimits(full, now), {
    limit_requests: 1000,
    remaining_requests: 999,
    limit_tokens: 96000,
    remaining_tokens: 95000,
    reset_requests_ms: 60,
    reset_tokens_ms: 2000,
  });
  const split = new Map([
    ["anthropic-ratelimit-input-tokens-limit", "80000"],
    ["anthropic-ratelimit-input-tokens-remaining", "79000"],
    ["anthropic-ratelimit-input-tokens-reset", "2026-03-01T12:00:01Z"],
    ["anthropic-ratelimit-output-tokens-limit", "16000"],
    ["anthropic-ratelimit-output-tokens-remaining", "15500"],
    ["anthropic-ratelimit-output-tokens-reset", "2026-03-01T13:00:03+01:00"],
  ]);
  // 80000 + 16000 = 96000 allowed, 79000 + 15500 = 94500 left; the later reset (13:00:03+01:00 = 12:00:03Z) wins
  assert.deepEqual(anthropicLimits(split, now), {
    limit_requests: null,
    remaining_requests: null,
    limit_tokens: 96000,
    remaining_tokens: 94500,
    reset_requests_ms: null,
    reset_tokens_ms: 3000,
  });
  const bad = new Map([
    ["anthropic-ratelimit-requests-limit", "lots"],
    ["anthropic-ratelimit-requests-remaining", "-1"],
    ["anthropic-ratelimit-requests-reset", "in 5 seconds"],
    ["anthropic-ratelimit-tokens-reset", "2026-02-30T25:00:00Z"],
    ["anthropic-ratelimit-tokens-limit", "1e9"],
  ]);
  assert.deepEqual(anthropicLimits(bad, now), {
    limit_requests: null,
    remaining_requests: null,
    limit_tokens: null,
    remaining_tokens: null,
    reset_requests_ms: null,
    reset_tokens_ms: null,
  });
  // a reset already past is 0 ms away
  assert.equal(
    anthropicLimits(new Map([["anthropic-ratelimit-requests-reset", "2026-03-01T11:59:00Z"]]), now)
      ?.reset_requests_ms,
    0,
  );
  assert.equal(dialect.readLimits(new Map([["retry-after", "3"], ["x-ratelimit-limit-requests", "5"]])), null);
});
