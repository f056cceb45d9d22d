/**
 * recordingFetch against canned answers (a base fetch that returns hand-written bytes), so every count is known: what
 * the attempt is told, and that the app gets its own bytes, errors and headers unchanged.
 */
import assert from "node:assert/strict";
import { recordingFetch } from "../../recorder/fetch.ts";
import { FakeRecorder, type FakeTask, until } from "./_fake_task.ts";

const URL_CHAT = "http://127.0.0.1:9/v1/chat/completions";
const enc = new TextEncoder();

/** Seven SSE events: a role-only delta, two text deltas, a tool-call delta, the finish, the usage, [DONE]. */
const SSE = [
  'data: {"choices":[{"index":0,"delta":{"role":"assistant"}}]}',
  'data: {"choices":[{"index":0,"delta":{"content":"Hé"}}]}',
  'data: {"choices":[{"index":0,"delta":{"content":"llo"}}]}',
  'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}',
  'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
  'data: {"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":4},' +
  '"completion_tokens_details":{"reasoning_tokens":1}}}',
  "data: [DONE]",
].map((l) => l + "\n\n").join("");

/** A body that delivers `bytes` in pieces of `size` bytes (cutting lines and the two-byte "é" apart). */
function chunked(bytes: Uint8Array, size: number, fail?: Error): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return fail ? c.error(fail) : c.close();
      c.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

function canned(body: BodyInit | null, init: ResponseInit, seen: unknown[][] = []): typeof fetch {
  return ((...args: unknown[]) => {
    seen.push(args);
    return Promise.resolve(new Response(body, init));
  }) as typeof fetch;
}

const chatInit = (body: Record<string, unknown>): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ model: "m-1", messages: [{ role: "user", content: "hi" }], ...body }),
});
const sseHead = { status: 200, headers: { "content-type": "text/event-stream" } };

async function inTask(rec: FakeRecorder, fn: () => Promise<void>): Promise<FakeTask> {
  const task = rec.begin({ class: "chat" });
  await task.run(fn);
  return task;
}

Deno.test("an SSE answer passes through byte for byte and is one attempt: 3 content events, usage, finish", async () => {
  const rec = new FakeRecorder();
  const bytes = enc.encode(SSE);
  const f = recordingFetch(rec, canned(chunked(bytes, 7), sseHead));
  let got = new Uint8Array();
  const task = await inTask(rec, async () => {
    const res = await f(URL_CHAT, chatInit({ stream: true }));
    got = new Uint8Array(await res.arrayBuffer());
  });
  assert.deepEqual(got, bytes);
  const [a] = task.attempts;
  assert.deepEqual(a!.start, { provider: "127.0.0.1:9", model: "m-1", round: 0, streamed: true });
  assert.deepEqual(a!.headers.map((h) => h.status), [200]);
  // Content events: "Hé", "llo" and the tool-call delta; the role-only delta, the finish and the usage carry none.
  assert.equal(a!.tokens.length, 3);
  assert.equal(a!.ends.length, 1);
  const { at: _at, ...end } = a!.ends[0]!;
  assert.deepEqual(end, {
    http_status: 200,
    retry_after_ms: null,
    service_mode: null,
    ok: true,
    error_kind: null,
    usage: {
      input_tokens: 12,
      output_tokens: 3,
      cached_input_tokens: 4,
      reasoning_tokens: 1,
      cache_write_tokens: null,
    },
    finish_reason: "stop",
  });
  assert.ok(a!.tokens[0]! >= a!.headers[0]!.at && a!.ends[0]!.at >= a!.tokens[2]!);
});

Deno.test("a JSON answer: the app reads its own body; a copy gives one token at the end, usage and finish", async () => {
  const rec = new FakeRecorder();
  const text = JSON.stringify({
    choices: [{ index: 0, message: { role: "assistant", content: "Hi" }, finish_reason: "length" }],
    usage: { prompt_tokens: 9, completion_tokens: 2, cache_creation_input_tokens: 5 },
  });
  const f = recordingFetch(rec, canned(text, { status: 200, headers: { "content-type": "application/json" } }));
  let body = "";
  const task = await inTask(rec, async () => {
    body = await (await f(URL_CHAT, chatInit({}))).text();
  });
  assert.equal(body, text);
  await until(() => task.attempts[0]!.ends.length === 1);
  const a = task.attempts[0]!;
  assert.equal(a.start.streamed, false);
  assert.equal(a.tokens.length, 1);
  assert.equal(a.ends[0]!.finish_reason, "length");
  assert.deepEqual(a.ends[0]!.usage, {
    input_tokens: 9,
    output_tokens: 2,
    cached_input_tokens: 0,
    reasoning_tokens: null,
    cache_write_tokens: 5,
  });
});

Deno.test("outside a task, in an unsampled task, or for another call, the base fetch gets the app's own arguments", async (t) => {
  const init = chatInit({});
  for (
    const [name, rec, url, method] of [
      ["no task", new FakeRecorder(), URL_CHAT, "POST"],
      ["unsampled task", new FakeRecorder({ sampled: false }), URL_CHAT, "POST"],
      ["another path", new FakeRecorder(), "http://127.0.0.1:9/v1/embeddings", "POST"],
      ["a GET", new FakeRecorder(), URL_CHAT, "GET"],
    ] as const
  ) {
    await t.step(name, async () => {
      const seen: unknown[][] = [];
      const f = recordingFetch(rec, canned("x", { status: 200 }, seen));
      const myInit = { ...init, method };
      const call = () => f(url, myInit);
      const res = name === "no task" ? await call() : await rec.begin({ class: "c" }).run(call);
      assert.equal(await res.text(), "x");
      assert.equal(seen.length, 1);
      assert.equal(seen[0]![0], url);
      assert.equal(seen[0]![1], myInit);
      assert.equal(rec.tasks.flatMap((k) => k.attempts).length, 0);
    });
  }
});

Deno.test("a body that is not JSON is sent as it is and recorded without a model", async () => {
  const rec = new FakeRecorder();
  const seen: unknown[][] = [];
  const f = recordingFetch(rec, canned("{}", { status: 200, headers: { "content-type": "application/json" } }, seen));
  const task = await inTask(rec, async () => {
    await (await f(URL_CHAT, { method: "POST", body: "not json {" })).text();
  });
  assert.equal((seen[0]![1] as RequestInit).body, "not json {");
  assert.equal(task.attempts.length, 1);
  assert.equal(task.attempts[0]!.start.model, undefined);
  await until(() => task.attempts[0]!.ends.length === 1);
  // `{}` has no choices[0].message: not an answer.
  assert.equal(task.attempts[0]!.ends[0]!.error_kind, "invalid_json");
});

Deno.test("a refusal ends the attempt with the runner's names: http_429 with its Retry-After, http_503", async () => {
  const rec = new FakeRecorder();
  const task = await inTask(rec, async () => {
    const r429 = await recordingFetch(rec, canned("{}", { status: 429, headers: { "retry-after": "2" } }))(
      URL_CHAT,
      chatInit({}),
    );
    const r503 = await recordingFetch(rec, canned("{}", { status: 503 }))(URL_CHAT, chatInit({}));
    assert.deepEqual([r429.status, r503.status], [429, 503]);
  });
  const ends = task.attempts.map((a) => [a.ends[0]!.ok, a.ends[0]!.error_kind, a.ends[0]!.retry_after_ms]);
  // Retry-After "2" (delta seconds) = 2000 ms; the 503 sent none.
  assert.deepEqual(ends, [[false, "http_429", 2000], [false, "http_503", null]]);
});

Deno.test("a refused connection rejects the app's fetch with fetch's own error; the attempt ends connect_refused", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const rec = new FakeRecorder();
  let direct: unknown, recorded: unknown;
  await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, chatInit({})).catch((e) => (direct = e));
  const task = await inTask(rec, async () => {
    await recordingFetch(rec)(`http://127.0.0.1:${port}/v1/chat/completions`, chatInit({})).catch((e) => recorded = e);
  });
  assert.ok(recorded instanceof TypeError);
  assert.equal((recorded as Error).message, (direct as Error).message);
  assert.deepEqual(task.attempts[0]!.headers, []);
  assert.equal(task.attempts[0]!.ends[0]!.error_kind, "connect_refused");
});

Deno.test("a stream's end says how it ended: cut, incomplete, malformed, cancelled by the app", async (t) => {
  const cases: [string, string, Error | undefined, "read" | "cancel", string | null][] = [
    [
      "cut by the server after two events",
      SSE.slice(0, SSE.indexOf("tool_calls")),
      new TypeError("cut"),
      "read",
      "stream_cut",
    ],
    [
      "ended with no finish and no [DONE]",
      SSE.split("\n\n").slice(0, 3).join("\n\n") + "\n\n",
      undefined,
      "read",
      "stream_incomplete",
    ],
    ["a chunk that is not JSON", "data: {oops\n\n" + SSE, undefined, "read", "malformed_sse"],
    ["cancelled by the app before the finish", SSE, undefined, "cancel", "aborted"],
  ];
  for (const [name, text, fail, how, kind] of cases) {
    await t.step(name, async () => {
      const rec = new FakeRecorder();
      const f = recordingFetch(rec, canned(chunked(enc.encode(text), 16, fail), sseHead));
      let appError: unknown = null;
      const task = await inTask(rec, async () => {
        const res = await f(URL_CHAT, chatInit({ stream: true }));
        if (how === "cancel") {
          const reader = res.body!.getReader();
          await reader.read();
          await reader.cancel();
        } else await res.text().catch((e) => (appError = e));
      });
      assert.equal(appError, fail ?? null);
      assert.deepEqual(task.attempts[0]!.ends.map((e) => [e.ok, e.error_kind]), [[false, kind]]);
    });
  }
});

Deno.test("a recorder that throws never reaches the app: the answer is whole and onError hears each failure", async () => {
  const rec = new FakeRecorder();
  const errors: unknown[] = [];
  const f = recordingFetch(rec, canned(chunked(enc.encode(SSE), 5), sseHead), { onError: (e) => errors.push(e) });
  const task = rec.begin({ class: "chat" });
  task.throwing = true;
  const text = await task.run(async () => await (await f(URL_CHAT, chatInit({ stream: true }))).text());
  assert.equal(text, SSE);
  // headers, 3 tokens and end each threw.
  assert.equal(errors.length, 5);
});

Deno.test("the same conversation again is the same round (a retry); a grown one is the next round", async () => {
  const rec = new FakeRecorder();
  const f = recordingFetch(rec, canned(null, { status: 500 }));
  const first = [{ role: "user", content: "refund order 42" }];
  const grown = [...first, { role: "assistant", content: null }, { role: "tool", content: "{}" }];
  const task = await inTask(rec, async () => {
    for (const messages of [first, first, grown, grown]) await f(URL_CHAT, chatInit({ messages }));
  });
  assert.deepEqual(task.attempts.map((a) => [a.round, a.attempt]), [[0, 1], [0, 2], [1, 1], [1, 2]]);
});

Deno.test("a Request object is read without being used up, and the response keeps its URL", async () => {
  const rec = new FakeRecorder();
  let sent = "";
  const base = (async (input: Request) => {
    sent = await input.text();
    const res = new Response(chunked(enc.encode(SSE), 64), sseHead);
    Object.defineProperty(res, "url", { value: URL_CHAT });
    return res;
  }) as unknown as typeof fetch;
  const body = JSON.stringify({ model: "m-2", stream: true, messages: [] });
  const task = await inTask(rec, async () => {
    const res = await recordingFetch(rec, base)(new Request(URL_CHAT, { method: "POST", body }));
    assert.equal(res.url, URL_CHAT);
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    await res.text();
  });
  assert.equal(sent, body);
  assert.equal(task.attempts[0]!.start.model, "m-2");
});
