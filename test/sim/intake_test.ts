import assert from "node:assert/strict";
import { startSim } from "../../sim/server.ts";
import { chat, FAST_ENGINE, profile, unknownPrompt } from "./_fixtures.ts";

const intake = (url: string, body: unknown) =>
  fetch(`${url}/admin/intake`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

Deno.test("POST /admin/intake stops new tasks with 503 + Retry-After while tasks in flight finish, and resumes", async (t) => {
  const sim = await startSim({
    profile: profile({ engine: { ...FAST_ENGINE, decode_step_ms_base: 30 }, queue: { retry_after_s: 2 } }),
    quiet: true,
  });
  try {
    await t.step("a task in flight at the stop completes; new tasks are refused cleanly", async () => {
      // 10 tokens of 30 ms: the answer takes ~300 ms, so the stop lands while it runs.
      const inFlight = chat(sim.url, { messages: unknownPrompt(), max_tokens: 10 });
      const stop = await intake(sim.url, { accept: false });
      assert.equal(stop.status, 200);
      const state = await stop.json();
      assert.equal(state.accept, false);
      assert.equal(state.retry_after_s, 2);
      const refused = await chat(sim.url, { messages: unknownPrompt(), max_tokens: 10 });
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get("retry-after"), "2");
      assert.equal((await refused.json()).error.code, "intake_stopped");
      const done = await inFlight;
      assert.equal(done.status, 200);
      assert.equal((await done.json()).usage.completion_tokens, 10);
    });
    await t.step("a later round of a task in flight (it holds a tool result) is still served", async () => {
      const messages = [
        ...unknownPrompt(),
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c1", content: "result" },
      ];
      const r = await chat(sim.url, { messages, max_tokens: 2 });
      assert.equal(r.status, 200);
      await r.body?.cancel();
    });
    await t.step("GET /admin/intake counts the refusals; a stop may set its own Retry-After", async () => {
      assert.deepEqual(
        await (await fetch(`${sim.url}/admin/intake`)).json().then((s) => [s.accept, s.refused_since_stop]),
        [false, 1],
      );
      await (await intake(sim.url, { accept: false, retry_after_s: 5 })).body?.cancel();
      const r = await chat(sim.url, { messages: unknownPrompt(), max_tokens: 2 });
      assert.equal(r.headers.get("retry-after"), "5");
      await r.body?.cancel();
    });
    await t.step("resume: new tasks are served again", async () => {
      const resume = await intake(sim.url, { accept: true });
      assert.equal((await resume.json()).accept, true);
      const r = await chat(sim.url, { messages: unknownPrompt(), max_tokens: 2 });
      assert.equal(r.status, 200);
      await r.body?.cancel();
    });
    await t.step("a bad body is a 400 naming the problem; POST /sim/reset reopens intake", async () => {
      const bad = await intake(sim.url, { accept: "no" });
      assert.equal(bad.status, 400);
      assert.match((await bad.json()).error.message, /accept must be true or false/);
      await (await intake(sim.url, { accept: false })).body?.cancel();
      await (await fetch(`${sim.url}/sim/reset`, { method: "POST" })).body?.cancel();
      assert.equal((await (await fetch(`${sim.url}/admin/intake`)).json()).accept, true);
    });
  } finally {
    await sim.stop();
  }
});
