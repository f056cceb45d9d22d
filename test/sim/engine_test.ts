import assert from "node:assert/strict";
import { startSim } from "../../sim/server.ts";
import { simTokenizer } from "../../sim/tokenizer.ts";
import { chat, profile, sleep, unknownPrompt } from "./_fixtures.ts";

/** Arrival times (ms after the request) of each content-bearing SSE chunk. */
async function tokenTimes(res: Response, t0: number): Promise<number[]> {
  const times: number[] = [];
  const dec = new TextDecoder();
  for await (const chunk of res.body!) {
    const now = performance.now() - t0;
    for (const line of dec.decode(chunk, { stream: true }).split("\n\n")) {
      if (line.includes('"content":"') && !line.includes('"content":""')) times.push(now);
    }
  }
  return times;
}

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1]!;

/** Runs `fn` against a simulator with the profile `over`, stopping it afterwards. */
async function withSim(
  over: Parameters<typeof profile>[0],
  fn: (sim: { url: string }) => Promise<void>,
): Promise<void> {
  const sim = await startSim({ profile: profile(over), quiet: true });
  try {
    await fn(sim);
  } finally {
    await sim.stop();
  }
}

/** An engine without prefill cost: only the decode steps take time. */
const decodeOnly = (engine: NonNullable<NonNullable<Parameters<typeof profile>[0]>["engine"]>) => ({
  prefill_overhead_ms: 0,
  prefill_ms_per_token: 0,
  ...engine,
});

Deno.test("a lone request takes prefill + n decode steps", async () => {
  const engine = {
    prefill_overhead_ms: 30,
    prefill_ms_per_token: 2,
    decode_step_ms_base: 20,
    decode_step_ms_per_seq: 5,
  };
  await withSim({ engine }, async (sim) => {
    const messages = unknownPrompt("Please describe the weather in three short words.");
    await (await chat(sim.url, { messages, max_tokens: 1 })).text(); // warm the connection and the JIT
    const prompt = simTokenizer().count(messages[0]!.content);
    const n = 12;
    // prefill 30 + 2 × prompt tokens, then 12 steps of 20 + 5 × 1 running = 25 ms
    const expected = 30 + 2 * prompt + n * 25;
    const t0 = performance.now();
    const res = await chat(sim.url, { messages, max_tokens: n });
    const body = await res.json();
    const took = performance.now() - t0;
    assert.equal(body.usage.completion_tokens, n);
    assert.equal(body.usage.prompt_tokens, prompt);
    assert.ok(took >= expected - 2, `took ${took.toFixed(1)} ms, the model needs ${expected}`);
    assert.ok(took < expected + 80, `took ${took.toFixed(1)} ms, expected about ${expected}`);

    const t1 = performance.now();
    const times = await tokenTimes(await chat(sim.url, { messages, max_tokens: n, stream: true }), t1);
    assert.equal(times.length, n);
    // First token after prefill + one step; then one token per 25 ms step.
    assert.ok(times[0]! >= 30 + 2 * prompt + 25 - 2 && times[0]! < 30 + 2 * prompt + 25 + 60, `ttft ${times[0]}`);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    assert.ok(Math.abs(median(gaps) - 25) < 6, `median inter-token gap ${median(gaps)} ms, expected 25`);
  });
});

Deno.test("throughput saturates at max_running_seqs: extra requests wait their turn", async () => {
  await withSim(
    { engine: decodeOnly({ decode_step_ms_base: 20, decode_step_ms_per_seq: 0, max_running_seqs: 4 }) },
    async (sim) => {
      await (await chat(sim.url, { messages: unknownPrompt(), max_tokens: 1 })).text();
      let maxRunning = 0;
      let polling = true;
      const poll = (async () => {
        while (polling) {
          const h = await (await fetch(`${sim.url}/health`)).json();
          maxRunning = Math.max(maxRunning, h.running);
          await sleep(15);
        }
      })();
      const t0 = performance.now();
      const done = await Promise.all(
        Array.from(
          { length: 12 },
          () =>
            chat(sim.url, { messages: unknownPrompt(), max_tokens: 10 }).then(async (r) => {
              await r.json();
              return performance.now() - t0;
            }),
        ),
      );
      polling = false;
      await poll;
      done.sort((a, b) => a - b);
      // 12 requests, 4 at a time, 10 steps of 20 ms each: three waves ending near 200, 400 and 600 ms.
      assert.equal(maxRunning, 4);
      assert.ok(done[3]! < 300, `first wave ended at ${done[3]} ms`);
      assert.ok(done[4]! >= 390, `the fifth request finished at ${done[4]} ms, before a slot was free`);
      assert.ok(done[11]! >= 590 && done[11]! < 800, `last wave ended at ${done[11]} ms, expected about 600`);
    },
  );
});

Deno.test("the decode step time rises with the running batch", async () => {
  // step = 10 + 4 × running: 14 ms alone, 74 ms with 16 running.
  await withSim(
    { engine: decodeOnly({ decode_step_ms_base: 10, decode_step_ms_per_seq: 4, max_running_seqs: 64 }) },
    async (sim) => {
      const messages = unknownPrompt();
      await (await chat(sim.url, { messages, max_tokens: 1 })).text();
      let t0 = performance.now();
      const alone = await tokenTimes(await chat(sim.url, { messages, max_tokens: 12, stream: true }), t0);
      const aloneGap = median(alone.slice(1).map((t, i) => t - alone[i]!));
      t0 = performance.now();
      const batch = await Promise.all(
        Array.from(
          { length: 16 },
          async () => tokenTimes(await chat(sim.url, { messages, max_tokens: 12, stream: true }), t0),
        ),
      );
      const batchGap = median(batch.flatMap((ts) => ts.slice(1).map((t, i) => t - ts[i]!)));
      assert.ok(Math.abs(aloneGap - 14) < 5, `alone: ${aloneGap} ms per token, expected 14`);
      assert.ok(Math.abs(batchGap - 74) < 10, `16 running: ${batchGap} ms per token, expected 74`);
    },
  );
});

Deno.test("two hundred concurrent streams keep the modelled step time", async () => {
  // step = 20 + 0.05 × 200 = 30 ms with all 200 running.
  await withSim({
    engine: decodeOnly({ decode_step_ms_base: 20, decode_step_ms_per_seq: 0.05, max_running_seqs: 512 }),
    queue: { max_len: 1000 },
  }, async (sim) => {
    const messages = unknownPrompt();
    const t0 = performance.now();
    const all = await Promise.all(
      Array.from(
        { length: 200 },
        async () => tokenTimes(await chat(sim.url, { messages, max_tokens: 30, stream: true }), t0),
      ),
    );
    assert.ok(all.every((ts) => ts.length === 30));
    // The step time while every stream is in the batch (after the last stream's first token, before the first stream's
    // last one; a busy client opens its 200 streams over more time): per stream, the span of its tokens in that window
    // ÷ the steps between them. A span, not the median gap: after a late timer the simulator catches up on its own
    // timeline (sim/replica.ts), so one stall makes one long gap and several short ones, but leaves the span exact.
    const joined = Math.max(...all.map((ts) => ts[0]!));
    const leaving = Math.min(...all.map((ts) => ts.at(-1)!));
    const steps = all.flatMap((ts) => {
      const inside = ts.filter((t) => t >= joined && t <= leaving);
      return inside.length >= 6 ? [(inside.at(-1)! - inside[0]!) / (inside.length - 1)] : [];
    });
    assert.ok(
      steps.length === 200,
      `${steps.length} of 200 streams with 6 tokens or more from ${joined} to ${leaving} ms`,
    );
    const m = median(steps);
    assert.ok(Math.abs(m - 30) < 5, `median step ${m} ms with 200 running, the model says 30`);
  });
});
