import assert from "node:assert/strict";
import { anthropicLimits, anthropicMessagesDialect as runner } from "../../../runner/dialects/anthropic_messages.ts";
import type { WireMessage } from "../../../runner/dialects/dialect.ts";
import { parseChatRequest } from "../../../sim/dialects/openai_chat.ts";
import { anthropicMessagesSimDialect as sim, ERRORS } from "../../../sim/dialects/anthropic_messages.ts";
import type { SimErrorClass, SimStreamFormat, SimUsage } from "../../../sim/dialects/dialect.ts";
import { tinyCase } from "../../../testing/tiny_workload.ts";
import { at, replayText, toolConversation } from "../../runner/dialects/_anthropic_replay.ts";

const route = runner.prepare({
  url: "http://127.0.0.1:9",
  model: "m",
  key: null,
  options: { service_tier: "standard_only" },
  where: "test",
});

/** The sim's reading of the runner's body for `messages`, and the OpenAI path's reading of the same conversation. */
function bothReadings(messages: WireMessage[], stream = true) {
  const { c } = toolConversation();
  const body = JSON.parse(runner.body(c, messages, { model: "claude-x", stream, maxTokens: 77 }, route));
  const parsed = sim.parse(body, sim.match("POST", new URL("http://127.0.0.1:9/v1/messages"))!);
  assert.ok(parsed.ok, JSON.stringify(parsed));
  const openai = parseChatRequest({ model: "claude-x", messages, max_tokens: 77, stream });
  assert.ok(openai.ok);
  return { anthropic: parsed.value, openai: openai.value };
}

Deno.test("anthropic-messages sim: parse() rebuilds the conversation the runner started from", async (t) => {
  await t.step("system prompt, a two-call assistant turn and two tool results", () => {
    const { messages } = toolConversation();
    const { anthropic, openai } = bothReadings(messages);
    assert.deepEqual(anthropic.messages, openai.messages);
    // spelled out, so a change on both sides at once is still caught
    assert.deepEqual(anthropic.messages.map((m) => [m.role, m.content, m.toolCallText]), [
      ["system", "Answer from the tools.", ""],
      ["user", "Order A1?", ""],
      ["assistant", "Looking it up.", 'get_order{"id":"A1"}get_order{"id":"A2"}'],
      ["tool", "shipped", ""],
      ["tool", "pending", ""],
    ]);
    assert.equal(anthropic.maxTokens, 77);
    assert.equal(anthropic.stream, true);
    assert.equal(anthropic.includeUsage, true);
    assert.equal(anthropic.serviceTier, "standard_only");
    assert.equal(anthropic.model, "claude-x");
  });
  await t.step("two system messages, a call without text, a user turn after the results", () => {
    const messages: WireMessage[] = [
      { role: "system", content: "One." },
      { role: "system", content: "Two." },
      { role: "user", content: "Go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "toolu_9", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "toolu_9", content: "done" },
      { role: "user", content: "And now?" },
      { role: "assistant", content: "Fine." },
      { role: "user", content: "Thanks" },
    ];
    const { anthropic, openai } = bothReadings(messages, false);
    assert.deepEqual(anthropic.messages, openai.messages);
    assert.equal(anthropic.stream, false);
  });
});

Deno.test("anthropic-messages sim: match and parse errors", () => {
  assert.deepEqual(sim.match("POST", new URL("http://h/v1/messages")), {});
  assert.deepEqual(sim.match("POST", new URL("http://h/gateway/v1/messages")), {});
  assert.equal(sim.match("GET", new URL("http://h/v1/messages")), null);
  assert.equal(sim.match("POST", new URL("http://h/v1/chat/completions")), null);
  assert.equal(sim.match("POST", new URL("http://h/v1/messages/batches")), null);
  const noCap = sim.parse({ model: "m", messages: [{ role: "user", content: "hi" }] }, {});
  assert.ok(!noCap.ok && noCap.param === "max_tokens", JSON.stringify(noCap));
  const systemRole = sim.parse({ model: "m", max_tokens: 5, messages: [{ role: "system", content: "x" }] }, {});
  assert.ok(!systemRole.ok && systemRole.param === "messages.0.role", JSON.stringify(systemRole));
  const noName = sim.parse({
    model: "m",
    max_tokens: 5,
    messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", input: {} }] }],
  }, {});
  assert.ok(!noName.ok && noName.param.startsWith("messages.0.content"), JSON.stringify(noName));
});

/** The wire text of a sim stream: start, the answer's tokens, the end. */
function frames(f: SimStreamFormat, parts: (string | Uint8Array)[]): string {
  return [f.start(), ...parts].map((p) => typeof p === "string" ? p : new TextDecoder().decode(p)).join("");
}

Deno.test("anthropic-messages sim: stream frames read back through the runner give what the sim was given", async (t) => {
  const usage: SimUsage = { prompt: 900, output: 40, cached: 600, cacheWrite: 250, reasoning: 12 };
  await t.step("a text answer", () => {
    const f = sim.stream("msg_sim_1", "claude-x", 0, "standard");
    const wire = frames(f, [f.content("Hel"), f.content("lo"), f.content(" wörld"), f.end("stop", usage, true)]);
    const a = replayText(wire);
    assert.equal(a.malformed, null, a.malformed ?? "");
    assert.equal(a.text, "Hello wörld");
    assert.equal(a.finishReason, "stop");
    assert.equal(a.complete(), true);
    assert.equal(a.serviceTier, "standard");
    // the sim's counts back: prompt 900 of which 600 read and 250 written; reasoning is not reported apart
    assert.deepEqual(a.usage, {
      prompt_tokens: 900,
      completion_tokens: 40,
      cached_tokens: 600,
      reasoning_tokens: null,
      cache_write_tokens: 250,
    });
    // message_start, ping, then block start at event 2: the tokens are events 3, 4, 5
    assert.equal(a.firstTokenMs, at(3));
    assert.equal(a.lastTokenMs, at(5));
  });
  await t.step("a tool-call answer, and a profile that reports no cache writes", () => {
    const f = sim.stream("msg_sim_2", "claude-x", 0, null);
    const wire = frames(f, [
      f.toolCallStart("toolu_sim_2", "get_order"),
      f.toolCallArguments('{"id":'),
      f.toolCallArguments('"A1"}'),
      f.end("tool_calls", { prompt: 50, output: 9, cached: 0 }, false),
    ]);
    const a = replayText(wire);
    assert.equal(a.malformed, null, a.malformed ?? "");
    assert.equal(a.text, "");
    assert.deepEqual(a.toolCalls(), [
      { id: "toolu_sim_2", name: "get_order", raw_arguments: '{"id":"A1"}', arguments: { id: "A1" } },
    ]);
    assert.equal(a.finishReason, "tool_calls");
    assert.equal(a.serviceTier, null);
    assert.deepEqual(a.usage, {
      prompt_tokens: 50,
      completion_tokens: 9,
      cached_tokens: 0,
      reasoning_tokens: null,
      cache_write_tokens: null,
    });
    // the tool call's start (event 2) is the first token
    assert.equal(a.firstTokenMs, at(2));
  });
  await t.step("an answer cut by its cap with no visible token", () => {
    const f = sim.stream("msg_sim_3", "claude-x", 0, null);
    const a = replayText(frames(f, [f.end("length", { prompt: 5, output: 3, cached: 0, reasoning: 3 }, true)]));
    assert.equal(a.malformed, null, a.malformed ?? "");
    assert.equal(a.finishReason, "length");
    assert.equal(a.firstTokenMs, null);
    assert.equal(a.usage?.completion_tokens, 3);
  });
});

Deno.test("anthropic-messages sim: whole bodies read back through the runner", () => {
  const usage: SimUsage = { prompt: 100, output: 7, cached: 40, cacheWrite: 60 };
  const text = runner.newAnswer();
  const base = { id: "msg_sim_4", model: "m", created: 0, usage, serviceTier: "priority" };
  text.feedBody(JSON.stringify(sim.body({ ...base, text: "Hi", toolCall: null, finish: "stop" })), 9);
  assert.equal(text.malformed, null);
  assert.equal(text.text, "Hi");
  assert.equal(text.finishReason, "stop");
  assert.equal(text.serviceTier, "priority");
  assert.deepEqual(text.usage, {
    prompt_tokens: 100,
    completion_tokens: 7,
    cached_tokens: 40,
    reasoning_tokens: null,
    cache_write_tokens: 60,
  });
  const tool = runner.newAnswer();
  const toolCall = { id: "toolu_4", name: "get_order", arguments: '{"id":"A1"}' };
  tool.feedBody(JSON.stringify(sim.body({ ...base, text: null, toolCall, finish: "tool_calls" })), 9);
  assert.equal(tool.malformed, null);
  assert.deepEqual(tool.toolCalls(), [{ ...toolCall, raw_arguments: '{"id":"A1"}', arguments: { id: "A1" } }]);
  assert.equal(tool.finishReason, "tool_calls");
  assert.equal(tool.complete(), true);
});

Deno.test("anthropic-messages sim: each error class in Anthropic's format, judged by the runner", async () => {
  const expected: Record<SimErrorClass, [number, string, "rejected" | "http_error"]> = {
    invalid_request: [400, "invalid_request_error", "http_error"],
    not_found: [404, "not_found_error", "http_error"],
    server_error: [500, "api_error", "http_error"],
    unavailable: [503, "api_error", "http_error"],
    overloaded: [529, "overloaded_error", "rejected"],
    rate_limited: [429, "rate_limit_error", "rejected"],
    client_closed: [499, "invalid_request_error", "http_error"],
  };
  assert.deepEqual(Object.keys(ERRORS).sort(), Object.keys(expected).sort());
  for (const [cls, [status, type, outcome]] of Object.entries(expected)) {
    const r = sim.error({ class: cls as SimErrorClass, message: "simulated", headers: { "retry-after": "2" } });
    const body = await r.text();
    assert.equal(r.status, status, cls);
    assert.equal(r.headers.get("retry-after"), "2", cls);
    assert.deepEqual(JSON.parse(body), { type: "error", error: { type, message: "simulated" } }, cls);
    const head = new Map(r.headers);
    assert.deepEqual(runner.classifyError(status, head, body), { kind: `http_${status}`, outcome }, cls);
  }
});

Deno.test("anthropic-messages sim: rate-limit headers read back by the runner", () => {
  const before = Date.now();
  const h = sim.limitHeaders({
    limitRequests: 60,
    remainingRequests: 0,
    limitTokens: 40000,
    remainingTokens: 1200,
    resetMs: 1500,
  });
  const l = anthropicLimits(new Map(Object.entries(h)), before);
  assert.ok(l);
  assert.equal(l.limit_requests, 60);
  assert.equal(l.remaining_requests, 0);
  assert.equal(l.limit_tokens, 40000);
  assert.equal(l.remaining_tokens, 1200);
  // reset = the sim's now + 1500 ms, read against an earlier now: at least 1500, at most a second more
  for (const ms of [l.reset_requests_ms, l.reset_tokens_ms]) assert.ok(ms! >= 1500 && ms! < 2500, String(ms));
  const none = sim.limitHeaders({
    limitRequests: null,
    remainingRequests: null,
    limitTokens: null,
    remainingTokens: null,
    resetMs: null,
  });
  assert.deepEqual(none, {});
  assert.equal(runner.readLimits(new Map(Object.entries(none))), null);
});

Deno.test("anthropic-messages sim: a case with no tools and no schema sends neither", () => {
  const body = JSON.parse(runner.body(tinyCase(), [{ role: "user", content: "hi" }], {
    model: "m",
    stream: false,
    maxTokens: 3,
  }, route));
  const parsed = sim.parse(body, {});
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.value.messages, [{ role: "user", content: "hi", toolCallText: "" }]);
  assert.equal("tools" in body || "output_config" in body, false);
});
