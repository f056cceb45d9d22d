import assert from "node:assert/strict";
import { startSim } from "../../sim/server.ts";
import { chat, profile, sleep, unknownPrompt } from "./_fixtures.ts";

const timed = async (url: string, maxTokens: number) => {
  const t0 = performance.now();
  await (await chat(url, { messages: unknownPrompt(), max_tokens: maxTokens })).json();
  return performance.now() - t0;
};

Deno.test("cold start slows a replica's first requests", async () => {
  const sim = await startSim({
    profile: profile({
      engine: { prefill_overhead_ms: 0, prefill_ms_per_token: 0, decode_step_ms_base: 20, decode_step_ms_per_seq: 0 },
      cold_start: { warmup_ms: 600, slowdown: 3 },
    }),
    quiet: true,
  });
  try {
    // Cold: 5 steps × 20 ms × 3 = 300 ms. Warm (after 600 ms): 5 × 20 = 100 ms.
    const cold = await timed(sim.url, 5);
    await sleep(700 - cold);
    const warm = await timed(sim.url, 5);
    assert.ok(cold >= 295 && cold < 420, `cold request took ${cold} ms`);
    assert.ok(warm >= 98 && warm < 170, `warm request took ${warm} ms`);
  } finally {
    await sim.stop();
  }
});

Deno.test("the autoscaler adds a replica after detection + provisioning + warm-up, then drains it", async () => {
  const sim = await startSim({
    profile: profile({
      replicas: { initial: 1, min: 1, max: 2 },
      engine: {
        prefill_overhead_ms: 0,
        prefill_ms_per_token: 0,
        decode_step_ms_base: 25,
        decode_step_ms_per_seq: 0,
        max_running_seqs: 1,
      },
      autoscaler: {
        enabled: true,
        scale_up_threshold: 2,
        scale_down_threshold: 0.5,
        detection_delay_ms: 300,
        provisioning_delay_ms: 400,
        warmup_ms: 300,
        cooldown_ms: 600,
      },
      timeline_ms: 50,
    }),
    quiet: true,
  });
  try {
    const t0 = Date.now();
    // Eight requests of 20 steps × 25 ms = 500 ms each, one at a time: the queue holds 7 > 2 per replica.
    const all = Promise.all(Array.from({ length: 8 }, () => timed(sim.url, 20)));
    await all;
    await sleep(1500); // queue empty: the down signal holds 300 ms, after the 600 ms cooldown
    const rows = sim.timeline().map((r) => ({ ...r, t: r.t_unix_ms - t0 }));
    const warming = rows.filter((r) => r.replicas_warming > 0);
    const two = rows.filter((r) => r.replicas === 2);
    assert.ok(warming.length > 0, "replicas_warming shows in the timeline");
    // Decision after ≥ 300 ms of signal; warming lasts provisioning 400 + loading 300 = 700 ms.
    assert.ok(warming[0]!.t >= 300 && warming[0]!.t < 550, `warming from ${warming[0]!.t} ms`);
    assert.ok(two.length > 0, "a second replica served");
    assert.ok(two[0]!.t >= 1000 && two[0]!.t < 1300, `second replica serving from ${two[0]!.t} ms`);
    assert.equal(Math.max(...rows.map((r) => r.replicas + r.replicas_warming)), 2, "never above max");
    assert.ok(rows.some((r) => r.running === 2), "both replicas ran at once");
    assert.equal(rows.at(-1)!.replicas, 1, "drained back to min after the queue emptied");
    assert.equal(rows.reduce((s, r) => s + r.finished, 0), 8);
  } finally {
    await sim.stop();
  }
});
