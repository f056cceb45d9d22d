import assert from "node:assert/strict";
import { startSim } from "../../sim/server.ts";
import { type CutPoint, cutRequest, type CutResult } from "../../testing/cut_client.ts";
import { seededUniform } from "../../testing/seeded.ts";
import { FAST_ENGINE, profile, sleep, sseEvents, unknownPrompt } from "./_fixtures.ts";

/** The /health counters this test reads. */
interface Health {
  queue_len: number;
  running: number;
  kv_tokens: number;
  admitted: number;
  finished: number;
  shed: number;
  client_closed: number;
}

async function health(url: string): Promise<Health> {
  return await (await fetch(`${url}/health`)).json();
}

/** Polls /health until nothing is queued or running (at most `ms`). */
async function quiet(url: string, ms: number): Promise<Health> {
  const until = Date.now() + ms;
  for (;;) {
    const h = await health(url);
    if ((h.queue_len === 0 && h.running === 0) || Date.now() > until) return h;
    await sleep(20);
  }
}

/** The i-th client's cut: a fifth each right after sending, after a pause, mid-stream, just short of the end, never. */
function cutOf(u: () => number): CutPoint {
  const k = Math.floor(u() * 5);
  if (k === 0) return { kind: "after_send" };
  if (k === 1) return { kind: "after_ms", ms: Math.floor(u() * 40) };
  // A streamed answer of 8–40 tokens is about 1.5–7 KB: a cut in its head, its first token or inside a later one.
  if (k === 2) return { kind: "after_bytes", bytes: 1 + Math.floor(u() * 3000) };
  if (k === 3) return { kind: "after_bytes", bytes: 3000 + Math.floor(u() * 4000) };
  return { kind: "read_all" };
}

Deno.test("clients that cut their streams at any point never crash the simulator, and each is counted once", async () => {
  // Eight slots and a queue of 40: at 60 clients at once some run, some queue, some are shed (429).
  const sim = await startSim({
    profile: profile({
      engine: { ...FAST_ENGINE, decode_step_ms_base: 4, max_running_seqs: 8 },
      queue: { max_len: 40 },
      timeline_ms: 100,
    }),
    quiet: true,
  });
  try {
    const n = 400, width = 60;
    const u = seededUniform(29);
    const results: CutResult[] = [];
    const inflight = new Set<Promise<void>>();
    for (let i = 0; i < n; i++) {
      const body = {
        model: "sim-llm",
        stream: true,
        messages: unknownPrompt(`Tell me about ${i}.`),
        max_tokens: 8 + (i % 33),
      };
      const p = cutRequest(sim.port, body, cutOf(u)).then((r) => {
        results.push(r);
        inflight.delete(p);
      });
      inflight.add(p);
      if (inflight.size >= width) await Promise.race(inflight);
    }
    await Promise.all(inflight);
    assert.equal(results.length, n);

    const h = await quiet(sim.url, 5000);
    assert.equal(h.running, 0, "no cut request is left running");
    assert.equal(h.queue_len, 0, "no cut request is left queued");
    assert.equal(h.kv_tokens, 0, "every cut request's KV reservation is freed");
    // Each of the n requests reached the engine and ended exactly one way: finished, shed (429) or left by its client.
    assert.equal(h.finished + h.shed + h.client_closed, n, JSON.stringify(h));
    const read = results.filter((r) => r.done).length;
    const shed = results.filter((r) => r.status === 429).length;
    assert.ok(h.finished >= read, `${read} clients read a whole stream, ${h.finished} finished`);
    assert.ok(h.shed >= shed, `${shed} clients saw 429, ${h.shed} shed`);
    assert.ok(h.client_closed > 0 && read > 0, `client_closed ${h.client_closed}, whole streams ${read}`);
    // The timeline accounts for the admitted ones that were cut: admitted − finished of its rows.
    await sleep(150);
    const rows = (await (await fetch(`${sim.url}/sim/timeline`)).json()) as { admitted: number; finished: number }[];
    const admitted = rows.reduce((s, r) => s + r.admitted, 0), finished = rows.reduce((s, r) => s + r.finished, 0);
    assert.equal(admitted, h.admitted);
    assert.equal(finished, h.finished);
    assert.ok(admitted - finished <= h.client_closed, `${admitted - finished} admitted and not finished`);

    // It still answers, streamed and not.
    const body = { model: "sim-llm", stream: true, messages: unknownPrompt(), max_tokens: 5 };
    const whole = await cutRequest(sim.port, body, { kind: "read_all" });
    assert.deepEqual([whole.status, whole.complete, whole.done], [200, true, true]);
    const res = await fetch(`${sim.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }),
    });
    const events = sseEvents(await res.text());
    const usage = (events.at(-2) as { usage: { completion_tokens: number } }).usage;
    assert.equal(usage.completion_tokens, 5);
  } finally {
    await sim.stop();
  }
});

Deno.test("a client that leaves while its last token is written is counted client_closed, not finished", async () => {
  // One slot, 1-token answers: whatever the cut, finished + client_closed is the number of requests, never more.
  const sim = await startSim({ profile: profile({ engine: { ...FAST_ENGINE, max_running_seqs: 1 } }), quiet: true });
  try {
    const body = { model: "sim-llm", stream: true, messages: unknownPrompt(), max_tokens: 1 };
    const cuts: CutPoint[] = [{ kind: "after_send" }, { kind: "after_bytes", bytes: 1 }, { kind: "read_all" }];
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => cutRequest(sim.port, body, cuts[i % 3]!)));
    const h = await quiet(sim.url, 3000);
    assert.equal(h.finished + h.shed + h.client_closed, 30, JSON.stringify(h));
    assert.equal(h.kv_tokens, 0);
    assert.ok(h.finished >= results.filter((r) => r.done).length);
  } finally {
    await sim.stop();
  }
});

Deno.test("a queued client and a streaming client that leave are each counted once, and the slot serves the next", async () => {
  // One slot, 10 ms steps: A streams 200 tokens (about 2 s), B waits in the queue behind it.
  const sim = await startSim({ profile: profile({ engine: { ...FAST_ENGINE, max_running_seqs: 1 } }), quiet: true });
  try {
    const body = { model: "sim-llm", stream: true, messages: unknownPrompt(), max_tokens: 200 };
    // B leaves after 20 ms in the queue; A after its head and about 20 tokens (3,000 bytes, some 200 ms).
    const a = cutRequest(sim.port, body, { kind: "after_bytes", bytes: 3000 });
    await sleep(30);
    const b = cutRequest(sim.port, body, { kind: "after_ms", ms: 20 });
    const [ra] = await Promise.all([a, b]);
    assert.equal(ra.status, 200);
    const h = await quiet(sim.url, 1000);
    // Admitted: A only (1). Finished: none (0). Left by their client: B from the queue and A from the batch (2).
    assert.deepEqual(
      [h.admitted, h.finished, h.shed, h.client_closed, h.running, h.queue_len, h.kv_tokens],
      [1, 0, 0, 2, 0, 0, 0],
    );
    // The freed slot serves the next request at once: 3 tokens of 10 ms, not after A's 2 s.
    const t0 = performance.now();
    const next = await cutRequest(sim.port, { ...body, max_tokens: 3 }, { kind: "read_all" });
    assert.ok(next.done && performance.now() - t0 < 1000, `${(performance.now() - t0).toFixed(0)} ms`);
  } finally {
    await sim.stop();
  }
});
