import assert from "node:assert/strict";
import { attemptWith } from "../support/dialect_target.ts";
import type { HttpClient, HttpOutcome, ResponseHandler } from "../../runner/http/client.ts";
import { ResponseState } from "../../runner/dialects/openai_chat.ts";
import { sumReported } from "../../runner/usage.ts";
import { readUsage } from "../../runner/dialects/openai_chat_usage.ts";

Deno.test("readUsage() keeps reasoning and cache-write counts and reads absent ones as not reported", async (t) => {
  await t.step("OpenAI reasoning tokens and cached tokens", () => {
    const r = readUsage({
      prompt_tokens: 1200,
      completion_tokens: 300,
      total_tokens: 1500,
      prompt_tokens_details: { cached_tokens: 1024, audio_tokens: null },
      completion_tokens_details: { reasoning_tokens: 256, audio_tokens: 0 },
    });
    assert.deepEqual(r, {
      ok: true,
      usage: {
        prompt_tokens: 1200,
        completion_tokens: 300,
        cached_tokens: 1024,
        reasoning_tokens: 256,
        cache_write_tokens: null,
      },
    });
  });
  await t.step("each accepted cache-write field", () => {
    for (
      const u of [
        { prompt_tokens_details: { cache_write_tokens: 100 } },
        { prompt_tokens_details: { cache_creation_tokens: 100 } },
        { cache_creation_input_tokens: 100 },
        // LiteLLM passes both its own name and the Anthropic one: they agree.
        { cache_creation_input_tokens: 100, prompt_tokens_details: { cache_creation_tokens: 100, cached_tokens: 0 } },
      ]
    ) {
      const r = readUsage({ prompt_tokens: 194, completion_tokens: 2, ...u });
      assert.ok(r.ok, JSON.stringify(u));
      assert.equal(r.usage.cache_write_tokens, 100, JSON.stringify(u));
    }
  });
  await t.step("missing counts: 0 for prompt/completion/cached, null for reasoning and cache writes", () => {
    assert.deepEqual(readUsage({}), {
      ok: true,
      usage: {
        prompt_tokens: 0,
        completion_tokens: 0,
        cached_tokens: 0,
        reasoning_tokens: null,
        cache_write_tokens: null,
      },
    });
    const r = readUsage({ prompt_tokens: 5, completion_tokens: 4, completion_tokens_details: null });
    assert.ok(r.ok && r.usage.reasoning_tokens === null);
    const z = readUsage({ prompt_tokens: 5, completion_tokens: 4, completion_tokens_details: { reasoning_tokens: 0 } });
    assert.ok(z.ok && z.usage.reasoning_tokens === 0, "a reported 0 is 0, not null");
  });
});

Deno.test("readUsage() refuses counts of the wrong type or that contradict the counts containing them", () => {
  const bad: [unknown, RegExp][] = [
    ["usage", /usage is "usage", not an object/],
    [{ prompt_tokens: "7", completion_tokens: 3 }, /usage\.prompt_tokens is "7"/],
    [{ prompt_tokens: 7, completion_tokens: -1 }, /usage\.completion_tokens is -1/],
    [{ prompt_tokens: 7, completion_tokens: 3, completion_tokens_details: { reasoning_tokens: 1.5 } }, /is 1\.5/],
    [{ prompt_tokens: 7, completion_tokens: 3, completion_tokens_details: { reasoning_tokens: "2" } }, /is "2"/],
    [{ prompt_tokens: 7, completion_tokens: 3, completion_tokens_details: { reasoning_tokens: -2 } }, /is -2/],
    [{ prompt_tokens: 7, completion_tokens: 3, completion_tokens_details: 5 }, /completion_tokens_details is 5/],
    [{ prompt_tokens: 7, completion_tokens: 3, cache_creation_input_tokens: true }, /is true/],
    // Reasoning tokens are part of completion_tokens (a proxy that reports them apart is refused, not guessed).
    [
      { prompt_tokens: 21, completion_tokens: 0, completion_tokens_details: { reasoning_tokens: 60 } },
      /reasoning_tokens \(60\) exceeds completion_tokens \(0\)/,
    ],
    // Cached and written tokens are part of prompt_tokens: 80 + 30 > 100.
    [
      { prompt_tokens: 100, prompt_tokens_details: { cached_tokens: 80 }, cache_creation_input_tokens: 30 },
      /cached \(80\) \+ cache-write \(30\) tokens exceed prompt_tokens \(100\)/,
    ],
    [
      { prompt_tokens: 100, prompt_tokens_details: { cache_write_tokens: 10 }, cache_creation_input_tokens: 20 },
      /cache-write counts disagree: usage\.prompt_tokens_details\.cache_write_tokens = 10, usage\.cache_creation_input_tokens = 20/,
    ],
  ];
  for (const [u, why] of bad) {
    const r = readUsage(u);
    assert.ok(!r.ok, JSON.stringify(u));
    assert.match(r.problem, why);
  }
});

Deno.test("ResponseState keeps a bad usage apart from the answer: usage null, the problem named", () => {
  const s = new ResponseState();
  s.feedChunk(JSON.stringify({ choices: [{ index: 0, delta: { content: "hi" }, finish_reason: "stop" }] }), 1);
  s.feedChunk(JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: "x" } }), 2);
  // A later, valid usage chunk does not clear it: the response did report a bad count.
  s.feedChunk(JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 1 } }), 3);
  assert.equal(s.text, "hi");
  assert.equal(s.malformed, null);
  assert.equal(s.usage, null);
  assert.match(s.badUsage!, /completion_tokens is "x"/);
  const b = new ResponseState();
  b.feedBody(
    JSON.stringify({
      choices: [{ message: { content: "ok" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 9, completion_tokens: 5, completion_tokens_details: { reasoning_tokens: 4 } },
    }),
    7,
  );
  assert.equal(b.badUsage, null);
  assert.equal(b.usage!.reasoning_tokens, 4);
});

/** A client that answers every request with one canned response. */
function cannedClient(status: number, contentType: string, body: string): HttpClient {
  return {
    name: "canned",
    send(_req, h: ResponseHandler): Promise<HttpOutcome> {
      h.onHeaders(status, new Map([["content-type", contentType]]), 1);
      h.onData(new TextEncoder().encode(body), 2);
      return Promise.resolve({ ok: true, endMs: 3 });
    },
    close: () => Promise.resolve(),
  };
}

const body = (usage: unknown) =>
  JSON.stringify({ choices: [{ message: { role: "assistant", content: "x" }, finish_reason: "stop" }], usage });
const sse = (usage: unknown) =>
  [
    { choices: [{ index: 0, delta: { content: "x" }, finish_reason: null }] },
    { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    { choices: [], usage },
  ].map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";

Deno.test("runAttempt() writes the reported reasoning and cache-write tokens to the attempt row", async () => {
  const usage = {
    prompt_tokens: 500,
    completion_tokens: 120,
    prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 300 },
    completion_tokens_details: { reasoning_tokens: 90 },
  };
  for (
    const [stream, client] of [[false, cannedClient(200, "application/json", body(usage))], [
      true,
      cannedClient(200, "text/event-stream", sse(usage)),
    ]] as const
  ) {
    const r = await attemptWith(client, stream);
    assert.equal(r.failure, null, `stream ${stream}`);
    assert.deepEqual(
      [
        r.row.input_tokens,
        r.row.cached_input_tokens,
        r.row.output_tokens,
        r.row.reasoning_tokens,
        r.row.cache_write_tokens,
      ],
      [500, 100, 120, 90, 300],
    );
    assert.equal(r.row.token_source, "usage");
  }
  const plain = await attemptWith(
    cannedClient(200, "application/json", body({ prompt_tokens: 5, completion_tokens: 1 })),
    false,
  );
  assert.deepEqual([plain.row.reasoning_tokens, plain.row.cache_write_tokens], [null, null]);
});

Deno.test("runAttempt(): a bad usage makes the attempt invalid_response / bad_usage, never a crash or a guess", async () => {
  const bad = { prompt_tokens: 5, completion_tokens: 2, completion_tokens_details: { reasoning_tokens: 9 } };
  for (
    const [stream, client] of [[false, cannedClient(200, "application/json", body(bad))], [
      true,
      cannedClient(200, "text/event-stream", sse(bad)),
    ]] as const
  ) {
    const r = await attemptWith(client, stream);
    assert.deepEqual(r.failure, { status: null, kind: "bad_usage", outcome: "invalid_response" }, `stream ${stream}`);
    assert.equal(r.row.error_kind, "bad_usage");
    // No usage is kept: the request flow counts the served answer with the tokenizer (token_source "tokenizer").
    assert.deepEqual([r.row.token_source, r.row.reasoning_tokens, r.row.cache_write_tokens], [null, null, null]);
    assert.equal(r.row.http_status, 200);
  }
});

Deno.test("sumReported() sums the attempts that reported a count and is null when none did", () => {
  const rows = [
    { reasoning_tokens: 30, cache_write_tokens: null },
    { reasoning_tokens: null, cache_write_tokens: null },
    { reasoning_tokens: 0, cache_write_tokens: 500 },
    { reasoning_tokens: 12, cache_write_tokens: null },
  ];
  // 30 + 0 + 12 = 42 (the null one is skipped, not counted as 0); cache writes: only 500.
  assert.equal(sumReported(rows, "reasoning_tokens"), 42);
  assert.equal(sumReported(rows, "cache_write_tokens"), 500);
  assert.equal(sumReported([], "reasoning_tokens"), null);
  assert.equal(sumReported(rows.slice(0, 2), "cache_write_tokens"), null);
});
