/**
 * The official `openai` client with `fetch: recordingFetch(rec)` against the simulator with faults: a 503 outage
 * window at the start and a request quota that answers 429 with Retry-After. The client retries on its own
 * (`maxRetries`); every HTTP call it makes is one recorded attempt of the task that made it, in round 0, numbered in
 * order — as many, and with the same statuses, as the simulator says it served — and the usage and first token are
 * what the app saw.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { recordingFetch } from "../../recorder/fetch.ts";
import { startSim } from "../../sim/server.ts";
import { FAST_ENGINE, profile } from "../sim/_fixtures.ts";
import { FakeRecorder, type FakeTask, until, wallNow } from "./_fake_task.ts";

const messages = (i: number) => [{ role: "user" as const, content: `Question ${i}: what is the capital of Norway?` }];

Deno.test("the openai client's retries are attempts of one task, matching the calls the simulator served", async () => {
  const sim = await startSim({
    profile: profile({
      engine: FAST_ENGINE,
      // 503 for the first second after the reset; then a bucket of one request, refilled every 500 ms (120/min).
      faults: { outages: [{ start_ms: 0, end_ms: 1000, mode: "503" }] },
      rate_limits: { requests_per_minute: 120, window_s: 0.5 },
    }),
    quiet: true,
  });
  try {
    const rec = new FakeRecorder();
    const client = new OpenAI({
      baseURL: `${sim.url}/v1`,
      apiKey: "test-key",
      maxRetries: 6,
      fetch: recordingFetch(rec),
    });
    sim.reset();
    // Task 0 arrives in the outage: 503, then the client's own backoffs (0.375–0.5 s, 0.75–1 s) take it past it.
    const t0 = rec.begin({ class: "chat" });
    const first = await t0.run(() =>
      client.chat.completions.create({ model: "sim-llm", messages: messages(0), max_tokens: 8 })
    );
    // Tasks 1–4 at once, streamed: task 0 took the bucket's one request, so they get 429 + Retry-After (≤ 500 ms)
    // and are retried, one through per refill.
    const streamed = await Promise.all([1, 2, 3, 4].map(async (i) => {
      const task = rec.begin({ class: "chat" });
      return await task.run(async () => {
        const stream = await client.chat.completions.create({
          model: "sim-llm",
          messages: messages(i),
          max_tokens: 8,
          stream: true,
          stream_options: { include_usage: true },
        });
        let firstContent: number | null = null;
        let usage: OpenAI.CompletionUsage | null = null;
        for await (const chunk of stream) {
          if (firstContent === null && chunk.choices[0]?.delta?.content) firstContent = wallNow();
          if (chunk.usage) usage = chunk.usage;
        }
        return { task, firstContent: firstContent!, usage: usage! };
      });
    }));
    const tasks: FakeTask[] = rec.tasks;
    const all = tasks.flatMap((t) => t.attempts);
    await until(() => all.every((a) => a.ends.length === 1));

    const health = await (await fetch(`${sim.url}/health`)).json();
    const statuses = all.map((a) => a.headers[0]?.status);
    const count = (s: number) => statuses.filter((x) => x === s).length;
    // Every call the simulator answered is one attempt: 503s (outage, counted as errors), 429s (quota), 200s.
    assert.equal(all.length, health.errors + health.rate_limited + health.admitted);
    assert.equal(count(503), health.errors);
    assert.equal(count(429), health.rate_limited);
    assert.equal(count(200), health.admitted);
    assert.ok(health.errors >= 1, "the outage refused task 0's first call");
    assert.ok(health.rate_limited >= 1, "the quota refused at least one call of tasks 1–4");

    for (const task of tasks) {
      // One task per user action; its calls in round 0, numbered in order; only its last one answered.
      const ends = task.attempts.map((a) => a.ends[0]!);
      assert.deepEqual(task.attempts.map((a) => [a.round, a.attempt]), task.attempts.map((_, i) => [0, i + 1]));
      assert.deepEqual(ends.map((e) => e.ok), task.attempts.map((_, i) => i === task.attempts.length - 1));
      for (const e of ends.slice(0, -1)) {
        assert.ok(e.error_kind === "http_503" || e.error_kind === "http_429", String(e.error_kind));
        if (e.error_kind === "http_429") assert.ok((e.retry_after_ms ?? 0) >= 1000);
      }
    }
    assert.equal(tasks[0]!.attempts[0]!.ends[0]!.error_kind, "http_503");
    assert.equal(tasks[0]!.attempts.at(-1)!.ends[0]!.usage!.output_tokens, first.usage!.completion_tokens);
    assert.equal(tasks[0]!.attempts.at(-1)!.ends[0]!.usage!.input_tokens, first.usage!.prompt_tokens);
    for (const s of streamed) {
      const last = s.task.attempts.at(-1)!;
      assert.ok(last.tokens[0]! <= s.firstContent, "the recorded first token is no later than the app's");
      assert.deepEqual(
        [last.ends[0]!.usage!.input_tokens, last.ends[0]!.usage!.output_tokens],
        [s.usage.prompt_tokens, s.usage.completion_tokens],
      );
    }
  } finally {
    await sim.stop();
  }
});
