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

Deno.test("a stall holds every running and queued request for its length; arrivals queue, and a full queue sheds", async () => {
  // 10 ms steps; the stall runs 300–700 ms after the reset; a queue of one.
  const sim = await startSim({
    profile: profile({
      engine: { ...FAST_ENGINE, max_running_seqs: 1 },
      queue: { max_len: 1 },
      faults: { stalls: [{ start_ms: 300, end_ms: 700 }] },
    }),
    quiet: true,
  });
  try {
    await (await ask(sim.url)).text(); // warm the connection before the clock starts
    sim.reset();
    const t0 = performance.now();
    const since = () => performance.now() - t0;
    // 30 tokens × 10 ms: 300 ms of work, begun at ~100 ms, so 100 ms of it are left when the stall begins.
    await sleep(100 - since());
    const streamed = chat(sim.url, { messages: unknownPrompt(), max_tokens: 30, stream: true });
    const times: number[] = [];
    const reading = streamed.then(async (res) => {
      const dec = new TextDecoder();
      for await (const chunk of res.body!) {
        const now = since();
        for (const line of dec.decode(chunk, { stream: true }).split("\n\n")) {
          if (line.includes('"content":"') && !line.includes('"content":""')) times.push(now);
        }
      }
    });
    await sleep(400 - since());
    // The one slot is taken: the first arrival queues, the second finds the queue full.
    const queued = ask(sim.url).then(async (r) => ({ status: r.status, at: since(), body: await r.text() }));
    await sleep(20);
    const shed = await ask(sim.url);
    assert.equal(shed.status, 429);
    await shed.body?.cancel();
    const health = await (await fetch(`${sim.url}/health`)).json();
    assert.equal(health.queue_len, 1);
    assert.equal(health.running, 1);
    await reading;
    const q = await queued;

    assert.equal(times.length, 30);
    assert.equal(times.filter((t) => t >= 320 && t < 690).length, 0, `a token inside the stall: ${times}`);
    assert.ok(times.filter((t) => t < 300).length >= 15, `before the stall: ${times}`);
    // 300 ms of work + 400 ms of stall from ~100 ms: done at ~800 ms, not ~400 ms.
    assert.ok(times.at(-1)! >= 790 && times.at(-1)! < 900, `last token at ${times.at(-1)}`);
    // The queued request runs after the stream frees the slot: one 10 ms step after ~800 ms.
    assert.equal(q.status, 200);
    assert.ok(q.at >= 800 && q.at < 950, `queued request answered at ${q.at}`);
  } finally {
    await sim.stop();
  }
});

Deno.test("after a stall an idle replica takes what queued meanwhile", async () => {
  const sim = await startSim({
    profile: profile({ engine: FAST_ENGINE, faults: { stalls: [{ start_ms: 100, end_ms: 400 }] } }),
    quiet: true,
  });
  try {
    await (await ask(sim.url)).text();
    sim.reset();
    const t0 = performance.now();
    await sleep(200);
    // Nothing runs, yet the arrival is not routed to the idle replica: it queues until the stall ends at 400 ms.
    const res = ask(sim.url).then(async (r) => ({
      status: r.status,
      at: performance.now() - t0,
      body: await r.text(),
    }));
    await sleep(50);
    assert.equal((await (await fetch(`${sim.url}/health`)).json()).queue_len, 1);
    const r = await res;
    assert.equal(r.status, 200);
    assert.ok(r.at >= 400 && r.at < 500, `answered at ${r.at} ms`);
  } finally {
    await sim.stop();
  }
});
