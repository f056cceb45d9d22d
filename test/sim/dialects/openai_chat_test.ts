import assert from "node:assert/strict";
import { startSim } from "../../../sim/mod.ts";
import { chat, FAST_ENGINE, profile, sseEvents, unknownPrompt } from "../_fixtures.ts";

type Tiered = { service_tier?: string };

Deno.test("OpenAI chat: the service tier the request pins is served, else the profile's, else none is said", async (t) => {
  const tiers = async (url: string, requested: string | undefined) => {
    const body = { messages: unknownPrompt(), max_tokens: 3, ...(requested ? { service_tier: requested } : {}) };
    const whole = await (await chat(url, body)).json() as Tiered;
    const chunks = sseEvents(await (await chat(url, { ...body, stream: true })).text()).slice(0, -1) as Tiered[];
    const streamed = new Set(chunks.map((c) => c.service_tier));
    assert.equal(streamed.size, 1, "every chunk says the same tier");
    return [whole.service_tier, [...streamed][0]];
  };
  const plain = await startSim({ profile: profile({ engine: FAST_ENGINE }), quiet: true });
  const tiered = await startSim({ profile: profile({ engine: FAST_ENGINE, service_tier: "default" }), quiet: true });
  try {
    await t.step("without a profile tier", async () => {
      assert.deepEqual(await tiers(plain.url, "flex"), ["flex", "flex"]);
      assert.deepEqual(await tiers(plain.url, "auto"), [undefined, undefined]);
      assert.deepEqual(await tiers(plain.url, undefined), [undefined, undefined]);
    });
    await t.step("with the profile's service_tier", async () => {
      assert.deepEqual(await tiers(tiered.url, "priority"), ["priority", "priority"]);
      assert.deepEqual(await tiers(tiered.url, "auto"), ["default", "default"]);
      assert.deepEqual(await tiers(tiered.url, undefined), ["default", "default"]);
    });
  } finally {
    await plain.stop();
    await tiered.stop();
  }
});

Deno.test("OpenAI chat: with a quota every answer says its state; the quota 429 keeps only the short bucket's headers", async () => {
  // 2 RPM and 6000 TPM in 60 s buckets; "Hi" with max_tokens 9 takes 1 request and prompt + 9 tokens.
  const sim = await startSim({
    profile: profile({ engine: FAST_ENGINE, rate_limits: { requests_per_minute: 2, tokens_per_minute: 6000 } }),
    quiet: true,
  });
  try {
    const ask = () => chat(sim.url, { messages: unknownPrompt("Hi"), max_tokens: 9 });
    const ok = await ask();
    assert.equal(ok.status, 200);
    const prompt = (await ok.json()).usage.prompt_tokens;
    assert.equal(ok.headers.get("x-ratelimit-limit-requests"), "2");
    assert.equal(ok.headers.get("x-ratelimit-remaining-requests"), "1");
    assert.equal(ok.headers.get("x-ratelimit-limit-tokens"), "6000");
    assert.equal(ok.headers.get("x-ratelimit-remaining-tokens"), String(6000 - prompt - 9));
    // One request of 2 per minute refills in 30 s; prompt + 9 tokens of 6000 per minute in (prompt + 9) × 10 ms.
    assert.match(ok.headers.get("x-ratelimit-reset-requests")!, /^(29\.\d+|30)s$/);
    assert.match(ok.headers.get("x-ratelimit-reset-tokens")!, /^\d+ms$/);
    await (await ask()).body?.cancel();
    const refused = await ask();
    assert.equal(refused.status, 429);
    const names = [...refused.headers.keys()].filter((k) => k.startsWith("x-ratelimit") || k.startsWith("retry-"));
    assert.deepEqual(names.sort(), [
      "retry-after",
      "retry-after-ms",
      "x-ratelimit-limit-requests",
      "x-ratelimit-remaining-requests",
    ]);
    assert.equal((await refused.json()).error.type, "requests");
  } finally {
    await sim.stop();
  }
});
