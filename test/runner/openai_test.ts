import assert from "node:assert/strict";
import { chatBody, ResponseState } from "../../runner/dialects/openai_chat.ts";
import { tinyCase } from "../../testing/tiny_workload.ts";

const chunk = (delta: object, finish: string | null = null) =>
  JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] });

Deno.test("ResponseState assembles a streamed answer with token times and usage", () => {
  const s = new ResponseState();
  s.feedChunk(chunk({ role: "assistant" }), 10); // role only: not a token
  s.feedChunk(chunk({ content: "Hel" }), 12);
  s.feedChunk(chunk({ content: "lo" }), 15);
  s.feedChunk(chunk({ content: "!" }), 23);
  s.feedChunk(chunk({}, "stop"), 24);
  s.feedChunk(JSON.stringify({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 3 } }), 25);
  s.feedChunk("[DONE]", 25);
  assert.equal(s.text, "Hello!");
  assert.equal(s.firstTokenMs, 12);
  assert.equal(s.lastTokenMs, 23);
  // gaps 3 and 8: median (3+8)/2 = 5.5, max 8
  assert.deepEqual(s.itl(), { p50: 5.5, max: 8 });
  // No details reported: cached 0 (as before), reasoning and cache writes null (not reported).
  assert.deepEqual(s.usage, {
    prompt_tokens: 7,
    completion_tokens: 3,
    cached_tokens: 0,
    reasoning_tokens: null,
    cache_write_tokens: null,
  });
  assert.equal(s.finishReason, "stop");
  assert.equal(s.done, true);
  assert.equal(s.malformed, null);
});

Deno.test("itl: zero gaps counted apart give the median and max of every gap sorted", () => {
  // The plain definition: every gap in one list, sorted, the middle (or the mean of the two middles) and the last.
  const plain = (gaps: number[]) => {
    if (!gaps.length) return { p50: null, max: null };
    const s = [...gaps].sort((a, b) => a - b);
    const mid = s.length >> 1;
    return { p50: s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2, max: s[s.length - 1]! };
  };
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let trial = 0; trial < 500; trial++) {
    const s = new ResponseState();
    const times: number[] = [];
    let t = 100;
    const n = Math.floor(rand() * 12);
    for (let k = 0; k < n; k++) {
      const r = rand();
      // Mostly same-read zeros; some positive gaps; a few negative ones (a clock that is not monotonic, never ours).
      t += r < 0.5 ? 0 : r < 0.9 ? Math.floor(rand() * 5) + 1 : -Math.floor(rand() * 3) - 1;
      times.push(t);
      s.feedChunk(chunk({ content: `t${k}` }), t);
    }
    const gaps = times.slice(1).map((x, k) => x - times[k]!);
    assert.deepEqual(s.itl(), plain(gaps), `times ${times.join(",")}`);
  }
  // A whole answer in one read: every gap 0.
  const one = new ResponseState();
  for (let k = 0; k < 64; k++) one.feedChunk(chunk({ content: "x" }), 50);
  assert.deepEqual(one.itl(), { p50: 0, max: 0 });
});

Deno.test("ResponseState merges tool-call deltas by index", () => {
  const s = new ResponseState();
  s.feedChunk(chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "get_order", arguments: '{"id":' } }] }), 1);
  s.feedChunk(chunk({ tool_calls: [{ index: 0, function: { arguments: '"A1"}' } }] }), 2);
  s.feedChunk(chunk({ tool_calls: [{ index: 1, id: "c2", function: { name: "x", arguments: "not json" } }] }), 3);
  s.feedChunk(chunk({}, "tool_calls"), 4);
  assert.deepEqual(s.toolCalls(), [
    { id: "c1", name: "get_order", raw_arguments: '{"id":"A1"}', arguments: { id: "A1" } },
    { id: "c2", name: "x", raw_arguments: "not json", arguments: undefined },
  ]);
});

Deno.test("ResponseState flags malformed chunks and error events", () => {
  const a = new ResponseState();
  a.feedChunk("{not json", 1);
  assert.match(a.malformed!, /not JSON/);
  const b = new ResponseState();
  b.feedChunk(JSON.stringify({ error: { message: "overloaded" } }), 1);
  assert.match(b.malformed!, /error in stream/);
});

Deno.test("ResponseState reads a non-streamed body; its tokens arrive with the body", () => {
  const s = new ResponseState();
  s.feedBody(
    JSON.stringify({
      choices: [{ message: { role: "assistant", content: '{"a":1}' }, finish_reason: "stop" }],
      usage: { prompt_tokens: 5, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 2 } },
    }),
    40,
  );
  assert.equal(s.text, '{"a":1}');
  assert.equal(s.firstTokenMs, 40);
  assert.equal(s.lastTokenMs, 40);
  assert.deepEqual(s.usage, {
    prompt_tokens: 5,
    completion_tokens: 4,
    cached_tokens: 2,
    reasoning_tokens: null,
    cache_write_tokens: null,
  });
  const bad = new ResponseState();
  bad.feedBody("<html>", 1);
  assert.match(bad.malformed!, /not JSON/);
});

Deno.test("the fast chunk path agrees with JSON.parse on every chunk shape", async (t) => {
  const cases: Record<string, string[]> = {
    plain: [chunk({ role: "assistant", content: "" }), chunk({ content: "hello" }), chunk({}, "stop")],
    quotes: [chunk({ content: 'say "hi" \\ back\\' }), chunk({ content: '\\"' }, "length")],
    unicode: [chunk({ content: "héllo – 漢字 \u{1F600}\n\t" }), chunk({ content: "\u0000\u001f" })],
    patterns_in_text: [chunk({ content: '"content":"x" "finish_reason":"stop" "usage"' })],
    null_content: [JSON.stringify({ choices: [{ index: 0, delta: { content: null }, finish_reason: null }] })],
    logprobs: [
      JSON.stringify({ choices: [{ index: 0, delta: { content: "a" }, logprobs: null, finish_reason: null }] }),
    ],
  };
  for (const [name, chunks] of Object.entries(cases)) {
    await t.step(name, () => {
      const fast = new ResponseState();
      for (const c of chunks) fast.feedChunk(c, 1);
      const slow = new ResponseState();
      for (const c of chunks) {
        const parsed = JSON.parse(c);
        const choice = parsed.choices?.[0];
        if (typeof choice?.delta?.content === "string") slow.text += choice.delta.content;
        if (choice?.finish_reason) slow.finishReason = choice.finish_reason;
      }
      assert.equal(fast.text, slow.text);
      assert.equal(fast.finishReason, slow.finishReason);
      assert.equal(fast.malformed, null);
    });
  }
  await t.step("truncated or malformed chunks are still refused", () => {
    for (
      const bad of [
        '{"choices":[{"delta":{"content":"abc',
        '{"choices":[{"delta":{"content":"a"},"finish_reason":nul}]}x',
      ]
    ) {
      const s = new ResponseState();
      s.feedChunk(bad, 1);
      assert.notEqual(s.malformed, null, bad);
    }
  });
});

Deno.test("a call never asks for more than one choice (no n, no best_of), streamed or not, with tools or a schema", () => {
  const c = tinyCase({
    tools: [{ name: "lookup", description: "d", parameters: { type: "object", properties: {} } }],
    expected_output_schema: { type: "object" },
  });
  for (const stream of [true, false]) {
    const body = JSON.parse(chatBody(c, [{ role: "user", content: "hi" }], { model: "m", stream, maxTokens: 8 }));
    assert.ok(!("n" in body) && !("best_of" in body), JSON.stringify(body));
  }
});

Deno.test("an answer with several choices is refused (multiple_choices), never joined or picked by position", () => {
  const streams: Record<string, string[]> = {
    two_in_one_chunk: [JSON.stringify({ choices: [{ delta: { content: "a" } }, { delta: { content: "b" } }] })],
    // A plain chunk teaches the fast path its template; the second choice's chunk differs only in its index.
    index_1_after_template: [chunk({ content: "a" }), chunk({ content: "b" }).replace('"index":0', '"index":1')],
    index_1_alone: [JSON.stringify({ choices: [{ index: 1, delta: { content: "b" }, finish_reason: null }] })],
  };
  for (const [name, chunks] of Object.entries(streams)) {
    const s = new ResponseState();
    for (const c of chunks) s.feedChunk(c, 1);
    assert.equal(s.malformedKind, "multiple_choices", name);
    assert.ok(!s.text.includes("b"), `${name}: the second choice's text is not taken`);
  }
  const bodies = {
    two: { choices: [0, 1].map((index) => ({ index, message: { content: `c${index}` }, finish_reason: "stop" })) },
    index_1: { choices: [{ index: 1, message: { content: "c1" }, finish_reason: "stop" }] },
  };
  for (const [name, body] of Object.entries(bodies)) {
    const s = new ResponseState();
    s.feedBody(JSON.stringify(body), 1);
    assert.equal(s.malformedKind, "multiple_choices", name);
    assert.equal(s.text, "", name);
  }
  const one = new ResponseState();
  one.feedBody(JSON.stringify({ choices: [{ index: 0, message: { content: "c0" }, finish_reason: "stop" }] }), 1);
  assert.equal(one.malformed, null);
  assert.equal(one.text, "c0");
});

Deno.test("a raw control character inside a chunk's string is malformed, as JSON says", () => {
  const s = new ResponseState();
  s.feedChunk('{"choices":[{"index":0,"delta":{"content":"a\nb"},"finish_reason":null}]}', 1);
  assert.notEqual(s.malformed, null);
});

Deno.test("templated chunks: a stream read through its learned template equals a JSON.parse of every chunk", () => {
  const pieces = ["Hel", "lo", ' "quoted"', " back\\slash", " tab\t", " 漢字", "", " end", " \u{1F600}"];
  const chunks = pieces.map((p) =>
    JSON.stringify({
      id: "c1",
      object: "chat.completion.chunk",
      created: 5,
      model: "m",
      choices: [{ index: 0, delta: { content: p }, finish_reason: null }],
    })
  );
  chunks.push(JSON.stringify({ id: "c1", choices: [{ index: 0, delta: {}, finish_reason: "length" }] }));
  const s = new ResponseState();
  chunks.forEach((c, i) => s.feedChunk(c, i));
  assert.equal(s.text, pieces.join(""));
  assert.equal(s.finishReason, "length");
  // Token times: every non-empty piece is a token (the empty one is not).
  assert.equal(s.firstTokenMs, 0);
  assert.equal(s.lastTokenMs, 8);
  // A chunk with the same prefix but another shape after the content is not mistaken for a plain one.
  const t = new ResponseState();
  t.feedChunk(chunks[0]!, 0);
  t.feedChunk(chunks[1]!.replace('"finish_reason":null', '"finish_reason":"stop"'), 1);
  assert.equal(t.finishReason, "stop");
  assert.equal(t.text, "Hello");
});
