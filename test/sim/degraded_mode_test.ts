import assert from "node:assert/strict";
import { SimProfile } from "../../schema/mod.ts";
import { startSim } from "../../sim/server.ts";
import { chat, FAST_ENGINE, profile, sleep, unknownPrompt } from "./_fixtures.ts";

/**
 * Sends `n` non-streamed requests 15 ms apart (each answer: min(max_tokens, 64) = 10 filler tokens of 30 ms steps on
 * one replica, so all arrive while the first still runs) and returns each one's x-service-mode header and its number
 * of completion tokens, in sending order.
 */
async function burst(input: Parameters<typeof profile>[0], n: number): Promise<[string | null, number][]> {
  const sim = await startSim({ profile: profile(input), quiet: true });
  try {
    const pending: Promise<Response>[] = [];
    for (let i = 0; i < n; i++) {
      pending.push(chat(sim.url, { messages: unknownPrompt(), max_tokens: 10 }));
      await sleep(15);
    }
    return await Promise.all(pending.map(async (p) => {
      const r = await p;
      const body = await r.json();
      return [r.headers.get("x-service-mode"), body.usage.completion_tokens] as [string | null, number];
    }));
  } finally {
    await sim.stop();
  }
}

Deno.test("the simulator announces its degraded mode above the load threshold and shortens those answers", async (t) => {
  const engine = { ...FAST_ENGINE, decode_step_ms_base: 30, max_running_seqs: 1 };
  await t.step("queue_len above 1: only the 4th arrival (2 waiting) is degraded", async () => {
    // Arrival 1 runs (queue 0); 2 finds queue 0 → queued; 3 finds 1 (not above 1) → queued; 4 finds 2 → degraded.
    const got = await burst({
      engine,
      degraded_mode: { name: "degraded-short", threshold: 1, max_output_tokens: 3 },
    }, 4);
    assert.deepEqual(got, [[null, 10], [null, 10], [null, 10], ["degraded-short", 3]]);
  });
  await t.step("running above 0 on two slots: the 2nd arrival finds 1 running", async () => {
    // Two slots: arrival 1 runs alone (running 0 at arrival), arrival 2 finds 1 running → degraded; arrival 3 finds 2.
    const got = await burst({
      engine: { ...engine, max_running_seqs: 2 },
      degraded_mode: { name: "brief", signal: "running", threshold: 0, max_output_tokens: 4 },
    }, 3);
    assert.deepEqual(got, [[null, 10], ["brief", 4], ["brief", 4]]);
  });
  await t.step("without the option the same load is served in full and nothing is announced", async () => {
    const got = await burst({ engine }, 4);
    assert.deepEqual(got, [[null, 10], [null, 10], [null, 10], [null, 10]]);
  });
});

Deno.test("a degraded stream carries the mode header and the short answer", async () => {
  const sim = await startSim({
    profile: profile({
      engine: FAST_ENGINE,
      degraded_mode: { name: "d", threshold: 0, signal: "running", max_output_tokens: 2 },
    }),
    quiet: true,
  });
  try {
    const first = chat(sim.url, { messages: unknownPrompt(), max_tokens: 10 });
    await sleep(5);
    const r = await chat(sim.url, {
      messages: unknownPrompt(),
      max_tokens: 10,
      stream: true,
      stream_options: { include_usage: true },
    });
    assert.equal(r.headers.get("x-service-mode"), "d");
    const text = await r.text();
    assert.match(text, /"finish_reason":"stop"/);
    assert.match(text, /"completion_tokens":2/);
    await (await first).body?.cancel();
  } finally {
    await sim.stop();
  }
});

Deno.test("SimProfile degraded_mode: absent by default, its name must be a mode token", () => {
  assert.equal(SimProfile.parse({ name: "p" }).degraded_mode, undefined);
  const ok = SimProfile.parse({ name: "p", degraded_mode: { name: "a:b.c_d-1", threshold: 3, max_output_tokens: 8 } });
  assert.equal(ok.degraded_mode?.signal, "queue_len");
  const bad = SimProfile.safeParse({
    name: "p",
    degraded_mode: { name: "two words", threshold: 3, max_output_tokens: 8 },
  });
  assert.equal(bad.success, false);
  assert.deepEqual(bad.error!.issues.map((i) => i.path.join(".")), ["degraded_mode.name"]);
});
