/**
 * recordingFetch with plain fetch against the real simulator on 127.0.0.1: what the attempt records is what the app
 * read off the wire — the usage the simulator reported, a first token no later than the app's first content chunk,
 * one content event per content chunk.
 */
import assert from "node:assert/strict";
import { recordingFetch } from "../../recorder/fetch.ts";
import { startSim } from "../../sim/server.ts";
import { FAST_ENGINE, profile } from "../sim/_fixtures.ts";
import { FakeRecorder, until, wallNow } from "./_fake_task.ts";

const ask = (stream: boolean) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    model: "sim-llm",
    messages: [{ role: "user", content: "Tell me about the weather in Lisbon." }],
    max_tokens: 12,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  }),
});

/** The SSE events of a body as the app parses them, each with the time the app read the bytes that completed it. */
async function readEvents(res: Response): Promise<{ data: string; at: number }[]> {
  const out: { data: string; at: number }[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    const at = wallNow();
    buf += r.value;
    const blocks = buf.split("\n\n");
    buf = blocks.pop()!;
    for (const b of blocks) if (b.startsWith("data: ")) out.push({ data: b.slice(6), at });
  }
  return out;
}

Deno.test("a streamed answer from the simulator: one token per content chunk, TTFT ≤ the app's, its usage", async () => {
  const sim = await startSim({ profile: profile({ engine: FAST_ENGINE }), quiet: true });
  try {
    const rec = new FakeRecorder();
    const f = recordingFetch(rec);
    const task = rec.begin({ class: "chat" });
    const events = await task.run(async () => readEvents(await f(`${sim.url}/v1/chat/completions`, ask(true))));
    const chunks = events.filter((e) => e.data !== "[DONE]").map((e) => ({ ...e, json: JSON.parse(e.data) }));
    const content = chunks.filter((c) => c.json.choices?.[0]?.delta?.content);
    const usage = chunks.find((c) => c.json.usage)!.json.usage;
    const finish = chunks.find((c) => c.json.choices?.[0]?.finish_reason)!.json.choices[0].finish_reason;
    const a = task.attempts[0]!;
    assert.equal(task.attempts.length, 1);
    assert.deepEqual(a.headers.map((h) => h.status), [200]);
    assert.equal(a.tokens.length, content.length);
    assert.ok(content.length >= 2, `${content.length} content chunks`);
    assert.ok(a.tokens[0]! <= content[0]!.at, `recorded first token ${a.tokens[0]} after the app's ${content[0]!.at}`);
    assert.equal(a.ends.length, 1);
    assert.equal(a.ends[0]!.ok, true);
    assert.equal(a.ends[0]!.finish_reason, finish);
    assert.deepEqual(a.ends[0]!.usage, {
      input_tokens: usage.prompt_tokens,
      output_tokens: usage.completion_tokens,
      cached_input_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
      reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? null,
      cache_write_tokens: null,
    });
    assert.ok(usage.completion_tokens > 0 && usage.prompt_tokens > 0);
    const health = await (await fetch(`${sim.url}/health`)).json();
    assert.equal(health.finished, 1);
  } finally {
    await sim.stop();
  }
});

Deno.test("an unstreamed answer from the simulator: its usage and finish reason, one token at the end", async () => {
  const sim = await startSim({ profile: profile({ engine: FAST_ENGINE }), quiet: true });
  try {
    const rec = new FakeRecorder();
    const f = recordingFetch(rec);
    const task = rec.begin({ class: "chat" });
    const body = await task.run(async () => (await f(`${sim.url}/v1/chat/completions`, ask(false))).json());
    const a = task.attempts[0]!;
    await until(() => a.ends.length === 1);
    assert.equal(a.start.streamed, false);
    assert.equal(a.tokens.length, 1);
    assert.equal(a.ends[0]!.ok, true);
    assert.equal(a.ends[0]!.finish_reason, body.choices[0].finish_reason);
    assert.equal(a.ends[0]!.usage!.input_tokens, body.usage.prompt_tokens);
    assert.equal(a.ends[0]!.usage!.output_tokens, body.usage.completion_tokens);
  } finally {
    await sim.stop();
  }
});
