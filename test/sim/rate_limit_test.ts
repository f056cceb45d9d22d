import assert from "node:assert/strict";
import { startSim } from "../../sim/mod.ts";
import { RateLimiter } from "../../sim/rate_limiter.ts";
import { FAST_ENGINE, profile } from "./_fixtures.ts";

const ask = (url: string, maxTokens: number) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "Hi" }], max_tokens: maxTokens }),
  });

Deno.test("a rate-limited sim answers 429 rate_limit_exceeded with Retry-After beyond its RPM, apart from shedding", async () => {
  // 60 RPM in a 2 s bucket: 2 requests at once, then one per second.
  const sim = await startSim({
    profile: profile({
      engine: FAST_ENGINE,
      rate_limits: { requests_per_minute: 60, window_s: 2 },
      timeline_ms: 50,
    }),
    quiet: true,
  });
  try {
    const statuses: number[] = [];
    let refused: Response | null = null;
    for (let i = 0; i < 4; i++) {
      const res = await ask(sim.url, 3);
      statuses.push(res.status);
      if (res.status === 429) refused ??= res;
      else await res.body?.cancel();
    }
    assert.deepEqual(statuses, [200, 200, 429, 429]);
    assert.equal(refused!.headers.get("retry-after"), "1");
    assert.equal(refused!.headers.get("x-ratelimit-limit-requests"), "60");
    assert.equal(refused!.headers.get("x-ratelimit-remaining-requests"), "0");
    const body = await refused!.json();
    assert.equal(body.error.code, "rate_limit_exceeded");
    assert.equal(body.error.type, "requests");
    await new Promise((r) => setTimeout(r, 150));
    const rows = sim.timeline();
    assert.equal(rows.reduce((n, r) => n + r.rate_limited, 0), 2);
    assert.equal(rows.reduce((n, r) => n + r.shed, 0), 0, "quota refusals are not queue shedding");
    assert.equal(rows.reduce((n, r) => n + r.admitted, 0), 2);
  } finally {
    await sim.stop();
  }
});

Deno.test("the token quota counts prompt + max_tokens; a request larger than the bucket gets no Retry-After", async () => {
  // 600 TPM in a 10 s bucket: 100 tokens at once, refilled at 10 per second.
  const sim = await startSim({
    profile: profile({ engine: FAST_ENGINE, rate_limits: { tokens_per_minute: 600, window_s: 10 } }),
    quiet: true,
  });
  try {
    const big = await ask(sim.url, 500);
    assert.equal(big.status, 429);
    assert.equal(big.headers.get("retry-after"), null);
    assert.match((await big.json()).error.message, /Request too large for tokens per min/);
    const fits = await ask(sim.url, 60);
    assert.equal(fits.status, 200);
    await fits.body?.cancel();
    const again = await ask(sim.url, 60);
    assert.equal(again.status, 429, "the first one used most of the bucket");
    assert.equal(again.headers.get("x-ratelimit-limit-tokens"), "600");
    assert.equal((await again.json()).error.type, "tokens");
  } finally {
    await sim.stop();
  }
});

Deno.test("RateLimiter takes from both buckets only when both hold enough, and refills with time", () => {
  let t = 0;
  // 120 RPM and 1200 TPM in 1 s buckets: 2 requests and 20 tokens.
  const rl = new RateLimiter({ requests_per_minute: 120, tokens_per_minute: 1200, window_s: 1 }, () => t);
  assert.equal(rl.admit(15), null);
  // 5 tokens left: a 10-token request waits (10 − 5) / 0.02 per ms = 250 ms; the request bucket is untouched.
  assert.deepEqual(rl.admit(10), { kind: "tokens", limit: 1200, remaining: 5, retryAfterMs: 250 });
  assert.equal(rl.admit(5), null);
  assert.deepEqual(rl.admit(1), { kind: "requests", limit: 120, remaining: 0, retryAfterMs: 500 });
  t = 500;
  assert.equal(rl.admit(1), null);
  rl.reset();
  assert.equal(rl.admit(20), null, "reset fills both buckets");
});
