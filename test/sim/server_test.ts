import assert from "node:assert/strict";
import { InputError, SimTimelineRow } from "../../schema/mod.ts";
import { startSim } from "../../sim/server.ts";
import { chat, FAST_ENGINE, profile, sleep, testWorkload, unknownPrompt } from "./_fixtures.ts";

Deno.test("startSim() refuses to bind a non-loopback host", async () => {
  for (const hostname of ["0.0.0.0", "192.168.1.20", "example.com", "::"]) {
    await assert.rejects(
      startSim({ hostname, profile: profile(), quiet: true }),
      (e) => e instanceof InputError && e.message.includes(hostname),
    );
  }
});

Deno.test("the timeline has one row per interval with the ServerRow columns", async () => {
  const file = await Deno.makeTempFile({ suffix: ".jsonl" });
  const sim = await startSim({
    profile: profile({
      engine: { ...FAST_ENGINE, decode_step_ms_base: 20, max_running_seqs: 2 },
      queue: { max_len: 1 },
    }),
    quiet: true,
    timelineFile: file,
  });
  try {
    const t0 = Date.now();
    // Two run, one queues, one is shed.
    const res = await Promise.all(
      Array.from({ length: 4 }, () => chat(sim.url, { messages: unknownPrompt(), max_tokens: 10 })),
    );
    await Promise.all(res.map((r) => r.text()));
    await sleep(2100 - (Date.now() - t0));
    const rows = (await (await fetch(`${sim.url}/sim/timeline`)).json()) as unknown[];
    assert.equal(rows.length, 2);
    const parsed = rows.map((r) => SimTimelineRow.parse(r));
    assert.deepEqual(Object.keys(rows[0] as object).sort(), Object.keys(SimTimelineRow.shape).sort());
    const gap = parsed[1]!.t_unix_ms - parsed[0]!.t_unix_ms;
    assert.ok(Math.abs(gap - 1000) < 60, `rows ${gap} ms apart`);
    assert.ok(Math.abs(parsed[0]!.t_unix_ms - t0 - 1000) < 150, "the first row ends the first second");
    assert.equal(parsed[0]!.admitted, 3);
    assert.equal(parsed[0]!.finished, 3);
    assert.equal(parsed[0]!.shed, 1);
    assert.equal(parsed[1]!.admitted + parsed[1]!.shed, 0, "counts are per interval, not cumulative");
    assert.equal(parsed[1]!.running, 0);
    assert.equal(parsed[1]!.replicas, 1);
    await sim.stop();
    const lines = (await Deno.readTextFile(file)).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(lines, rows);
  } finally {
    await sim.stop();
    await Deno.remove(file);
  }
});

Deno.test("service endpoints: models, health, profile, unknown paths", async () => {
  const sim = await startSim({ profile: profile({ name: "svc", model: "sim-x" }), quiet: true });
  try {
    const models = await (await fetch(`${sim.url}/v1/models`)).json();
    assert.deepEqual(models.data.map((m: { id: string }) => m.id), ["sim-x"]);
    const health = await (await fetch(`${sim.url}/health`)).json();
    assert.equal(health.status, "ok");
    assert.equal(health.replicas, 1);
    assert.equal((await (await fetch(`${sim.url}/sim/profile`)).json()).name, "svc");
    const missing = await fetch(`${sim.url}/v2/nothing`);
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, "not_found");
    const wrong = await fetch(`${sim.url}/v1/chat/completions`);
    assert.equal(wrong.status, 405);
    await wrong.body?.cancel();
  } finally {
    await sim.stop();
  }
});

Deno.test("POST /sim/reset restarts the draws from the seed", async () => {
  const w = testWorkload();
  const sim = await startSim({
    profile: profile({ engine: FAST_ENGINE, behaviour: { default: { accuracy: 0.5 } } }),
    workload: w,
    seed: 4,
    quiet: true,
  });
  const verdicts = async () => {
    const out: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await chat(sim.url, { messages: w.cases[0]!.messages, max_tokens: 2 });
      out.push(r.headers.get("x-sim-verdict")!);
      await r.body?.cancel();
    }
    return out;
  };
  try {
    const first = await verdicts();
    assert.ok(first.includes("correct") && first.includes("wrong"));
    const r = await fetch(`${sim.url}/sim/reset`, { method: "POST" });
    assert.equal((await r.json()).seed, 4);
    assert.deepEqual(await verdicts(), first);
  } finally {
    await sim.stop();
  }
});

Deno.test("stop() ends streams in flight and returns promptly", async () => {
  const sim = await startSim({
    profile: profile({ engine: { ...FAST_ENGINE, decode_step_ms_base: 50, max_running_seqs: 1 } }),
    quiet: true,
  });
  const streaming = await chat(sim.url, { messages: unknownPrompt(), max_tokens: 60, stream: true });
  const reading = streaming.text().then(() => "complete", () => "cut");
  const queued = chat(sim.url, { messages: unknownPrompt(), max_tokens: 5 });
  await sleep(100);
  const t0 = performance.now();
  await sim.stop();
  assert.ok(performance.now() - t0 < 1000, "stop did not wait for the 3 s stream");
  assert.equal(await reading, "cut");
  const q = await queued;
  assert.equal(q.status, 503);
  await q.body?.cancel();
});
