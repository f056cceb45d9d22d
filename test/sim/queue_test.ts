import assert from "node:assert/strict";
import { startSim } from "../../sim/server.ts";
import { chat, profile, sleep, unknownPrompt } from "./_fixtures.ts";

const oneAtATime = {
  prefill_overhead_ms: 0,
  prefill_ms_per_token: 0,
  decode_step_ms_base: 50,
  decode_step_ms_per_seq: 0,
  max_running_seqs: 1,
};

Deno.test("an arrival that finds the queue full is shed with 429 and Retry-After", async () => {
  const sim = await startSim({
    profile: profile({ engine: oneAtATime, queue: { max_len: 2, max_age_ms: 10_000, retry_after_s: 7 } }),
    quiet: true,
  });
  try {
    const sent: Promise<Response>[] = [];
    for (let i = 0; i < 5; i++) {
      sent.push(chat(sim.url, { messages: unknownPrompt(), max_tokens: 4 }));
      await sleep(20); // keep arrival order: one running, two queued, two shed
    }
    const res = await Promise.all(sent);
    const bodies = await Promise.all(res.map((r) => r.json()));
    assert.deepEqual(res.map((r) => r.status), [200, 200, 200, 429, 429]);
    assert.equal(res[3]!.headers.get("retry-after"), "7");
    assert.equal(bodies[3].error.type, "rate_limit_error");
    assert.equal(res[0]!.headers.get("retry-after"), null);
    const health = await (await fetch(`${sim.url}/health`)).json();
    assert.equal(health.shed, 2);
    assert.equal(health.finished, 3);
  } finally {
    await sim.stop();
  }
});

Deno.test("a request queued longer than max_age_ms is shed with 429", async () => {
  const sim = await startSim({
    profile: profile({ engine: oneAtATime, queue: { max_len: 10, max_age_ms: 150, retry_after_s: 3 } }),
    quiet: true,
  });
  try {
    const first = chat(sim.url, { messages: unknownPrompt(), max_tokens: 20 }); // 20 × 50 ms = 1 s
    await sleep(20);
    const t0 = performance.now();
    const second = await chat(sim.url, { messages: unknownPrompt(), max_tokens: 4 });
    const waited = performance.now() - t0;
    assert.equal(second.status, 429);
    assert.equal(second.headers.get("retry-after"), "3");
    assert.match((await second.json()).error.message, /waited too long/);
    assert.ok(waited >= 145 && waited < 500, `shed after ${waited} ms, max age 150`);
    assert.equal((await first).status, 200);
    await (await first).text();
  } finally {
    await sim.stop();
  }
});

Deno.test("a queued client that goes away leaves the queue", async () => {
  const sim = await startSim({ profile: profile({ engine: oneAtATime }), quiet: true });
  try {
    const first = chat(sim.url, { messages: unknownPrompt(), max_tokens: 10 });
    await sleep(20);
    const ac = new AbortController();
    const gone = fetch(`${sim.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: unknownPrompt(), max_tokens: 4 }),
      signal: ac.signal,
    }).catch((e) => e);
    await sleep(50);
    assert.equal((await (await fetch(`${sim.url}/health`)).json()).queue_len, 1);
    ac.abort();
    await gone;
    await sleep(50);
    assert.equal((await (await fetch(`${sim.url}/health`)).json()).queue_len, 0);
    await (await first).text();
    const h = await (await fetch(`${sim.url}/health`)).json();
    assert.equal(h.admitted, 1, "the abandoned request was never admitted");
  } finally {
    await sim.stop();
  }
});
