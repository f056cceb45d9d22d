import assert from "node:assert/strict";
import { startSim } from "../../sim/server.ts";
import { chat, FAST_ENGINE, profile, sleep, testWorkload, unknownPrompt } from "./_fixtures.ts";

const ask = (url: string) => chat(url, { messages: unknownPrompt(), max_tokens: 1 });

Deno.test("a 503 outage answers every new request 503 inside its window only", async () => {
  const sim = await startSim({
    profile: profile({ engine: FAST_ENGINE, faults: { outages: [{ start_ms: 300, end_ms: 700, mode: "503" }] } }),
    quiet: true,
  });
  try {
    sim.reset(); // windows count from here
    const t0 = performance.now();
    const before = await ask(sim.url);
    assert.equal(before.status, 200);
    await before.text();
    await sleep(400 - (performance.now() - t0));
    const during = await ask(sim.url);
    assert.equal(during.status, 503);
    assert.equal((await during.json()).error.code, "service_unavailable");
    assert.equal((await fetch(`${sim.url}/health`)).status, 503);
    await sleep(800 - (performance.now() - t0));
    const after = await ask(sim.url);
    assert.equal(after.status, 200);
    await after.text();
    assert.equal((await (await fetch(`${sim.url}/health`)).json()).errors, 1);
  } finally {
    await sim.stop();
  }
});

Deno.test("a refuse outage closes the listener, then reopens it on the same port", async () => {
  const sim = await startSim({
    profile: profile({ engine: FAST_ENGINE, faults: { outages: [{ start_ms: 300, end_ms: 800, mode: "refuse" }] } }),
    quiet: true,
  });
  try {
    sim.reset();
    const t0 = performance.now();
    await (await ask(sim.url)).text();
    await sleep(450 - (performance.now() - t0));
    const refused = await ask(sim.url).then(() => null, (e: Error) => e);
    assert.ok(refused instanceof TypeError, "the connection should be refused");
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: sim.port }).then((c) => c.close(), (e) => e);
    assert.ok(conn instanceof Deno.errors.ConnectionRefused, String(conn));
    await sleep(950 - (performance.now() - t0));
    const back = await ask(sim.url);
    assert.equal(back.status, 200);
    await back.text();
  } finally {
    await sim.stop();
  }
});

Deno.test("error_rate answers about that fraction 500 before admission", async () => {
  const sim = await startSim({ profile: profile({ engine: FAST_ENGINE, faults: { error_rate: 0.2 } }), quiet: true });
  try {
    const statuses: number[] = [];
    for (let b = 0; b < 6; b++) {
      const res = await Promise.all(Array.from({ length: 50 }, () => ask(sim.url)));
      for (const r of res) {
        statuses.push(r.status);
        await r.body?.cancel();
      }
    }
    const errors = statuses.filter((s) => s === 500).length;
    // 300 draws at p = 0.2: mean 60, sd √(300·0.2·0.8) ≈ 6.9; allow 4 sd.
    assert.ok(Math.abs(errors - 60) < 28, `${errors} errors in 300`);
    assert.equal(statuses.filter((s) => s !== 500 && s !== 200).length, 0);
    const h = await (await fetch(`${sim.url}/health`)).json();
    assert.equal(h.errors, errors);
    assert.equal(h.admitted, 300 - errors, "a 500 is answered before admission");
  } finally {
    await sim.stop();
  }
});

Deno.test("draws are reproducible from the seed and the arrival order", async () => {
  const run = async (seed: number) => {
    const sim = await startSim({
      profile: profile({ engine: FAST_ENGINE, faults: { error_rate: 0.3 }, behaviour: { default: { accuracy: 0.5 } } }),
      workload: testWorkload(),
      seed,
      quiet: true,
    });
    const out: string[] = [];
    try {
      for (let i = 0; i < 40; i++) {
        const r = await chat(sim.url, { messages: testWorkload().cases[i % 2]!.messages, max_tokens: 5 });
        out.push(`${r.status}:${r.headers.get("x-sim-verdict")}`);
        await r.body?.cancel();
      }
    } finally {
      await sim.stop();
    }
    return out;
  };
  const a = await run(11), b = await run(11), c = await run(12);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
});
