import assert from "node:assert/strict";
import { join } from "node:path";
import { formatProviderQuota } from "../../../analysis/goodput/format_provider_quota.ts";
import type { GoodputResult } from "../../../analysis/goodput/goodput.ts";
import { providerQuota, tierMatches } from "../../../analysis/goodput/provider_quota.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { AttemptRow } from "../../../schema/events.ts";
import { att, makeManifest, req, writeRun } from "../_fixture.ts";

const QUIET = { onWarning: () => {} };
const STAGES = [
  { name: "low", kind: "steady" as const, start_ms: 0, end_ms: 100_000, offered_rps: 1 },
  { name: "high", kind: "steady" as const, start_ms: 100_000, end_ms: 200_000, offered_rps: 2 },
];
type Over = Partial<AttemptRow>;

/**
 * A run of `n` requests per stage, one attempt each: `low(i)` and `high(i)` give the i-th attempt's fields. The stage
 * acceptance is given by hand (`accepted`): the rules read it from goodput(), which is tested on its own.
 */
async function quotaOf(
  n: number,
  low: (i: number) => Over,
  high: (i: number) => Over,
  accepted: { low: number; high: number },
) {
  const requests = [], attempts = [];
  for (const [s, stage] of STAGES.entries()) {
    for (let i = 0; i < n; i++) {
      const id = `${stage.name}-${i}`;
      const t = stage.start_ms + i * 10;
      requests.push(req({ request_id: id, class: "c", stage: stage.name, scheduled_ms: t }));
      attempts.push(att({ request_id: id, sent_ms: t, ...(s === 0 ? low(i) : high(i)) }));
    }
  }
  const dir = writeRun(join(Deno.makeTempDirSync(), "run"), makeManifest(STAGES), { requests, attempts });
  const run = await loadRun(dir, QUIET);
  const row = (stage: string, a: number) => ({
    stage,
    offered: n,
    accepted: a,
    accepted_goodput: a / 100,
    acceptance_rate: a / n,
  });
  const g = { by_stage: [row("low", accepted.low), row("high", accepted.high)] } as unknown as GoodputResult;
  return providerQuota(run, g);
}

/** Stated request limits: `remaining` of 100, the window full again in `reset` ms. */
const limits = (remaining: number, reset: number | null = null): Over => ({
  rl_limit_requests: 100,
  rl_remaining_requests: remaining,
  rl_reset_requests_ms: reset,
});
const refused: Over = { http_status: 429, error_kind: "http_429" };

Deno.test("providerQuota() says only 'no quota headers recorded' when no head stated a limit", async () => {
  // 429s alone are not a stated quota.
  const q = await quotaOf(10, () => ({}), (i) => (i < 3 ? refused : {}), { low: 10, high: 7 });
  assert.equal(q.recorded, false);
  assert.deepEqual(q.bound, { by: "not_recorded", stage: null, line: "provider quota: no quota headers recorded" });
  assert.deepEqual([q.stages, q.tiers, q.tier_line], [[], [], null]);
  assert.equal(formatProviderQuota(q), "provider quota: no quota headers recorded");
});

Deno.test("providerQuota(): the quota bound when 429s came as the stated remaining reached 0, not before", async (t) => {
  await t.step("429s at remaining 0 in high: the quota bound first there", async () => {
    const q = await quotaOf(20, (i) => limits(90 - i), (i) => (i < 5 ? { ...limits(0), ...refused } : limits(10)), {
      low: 20,
      high: 15,
    });
    assert.equal(q.bound.by, "quota");
    assert.equal(q.bound.stage, "high");
    // 5 refusals; the least remaining stated in high: 0 of 100.
    assert.equal(
      q.bound.line,
      "provider quota bound first: stage high, 5 attempts refused with 429 as the stated quota reached 0 " +
        "(least remaining requests 0/100)",
    );
    const [low, high] = q.stages;
    assert.deepEqual([low!.attempts, low!.with_limits, low!.rate_limited], [20, 20, 0]);
    // low: remaining 90 − i for i = 0…19, least 71 of 100.
    assert.deepEqual(low!.least_requests, { remaining: 71, limit: 100, fraction: 0.71 });
    assert.deepEqual([high!.rate_limited, high!.least_requests?.remaining, high!.least_tokens], [5, 0, null]);
  });
  await t.step(
    "429s with quota still stated (remaining 30): not the quota by this rule; nothing fell: neither",
    async () => {
      const q = await quotaOf(20, () => limits(50), (i) => (i < 2 ? { ...limits(30), ...refused } : limits(30)), {
        low: 20,
        high: 18,
      });
      // 20/20 vs 18/20: pooled 0.95, se = √(0.95·0.05·(2/20)) = 0.0689, z = 0.1/0.0689 = 1.45 < 1.645: not a fall.
      assert.equal(q.bound.by, "neither");
      assert.equal(
        q.bound.line,
        "provider quota: neither bound in this run: acceptance did not fall and the quota was not reached " +
          "(least remaining 30/100, 30 %)",
      );
    },
  );
});

Deno.test("providerQuota(): where acceptance fell, the quota near 0 bound, else the service's capacity", async (t) => {
  // 100/100 accepted in low, 80/100 in high: pooled 0.9, se = √(0.9·0.1·(2/100)) = 0.0424, z = 0.2/0.0424 = 4.7.
  const fell = { low: 100, high: 80 };
  await t.step("remaining 3 of 100 (3 % ≤ 5 %): the quota", async () => {
    const q = await quotaOf(100, () => limits(60), () => limits(3), fell);
    assert.equal(q.bound.by, "quota");
    assert.equal(
      q.bound.line,
      "provider quota bound first: stage high, acceptance fell to 80 % from 100 % with the quota near 0 " +
        "(least remaining requests 3/100)",
    );
  });
  await t.step("remaining 40 of 100: the service's capacity", async () => {
    const q = await quotaOf(100, () => limits(60), () => limits(40), fell);
    assert.equal(q.bound.by, "capacity");
    assert.equal(q.bound.stage, "high");
    assert.equal(
      q.bound.line,
      "service capacity bound first: stage high, acceptance fell to 80 % from 100 % with quota headroom left " +
        "(least remaining requests 40/100, 40 % of the limit)",
    );
  });
  await t.step(
    "the tokens' share counts too: requests 40 of 100 but tokens 100 of 10,000 (1 %): the quota",
    async () => {
      const q = await quotaOf(100, () => limits(60), () => ({
        ...limits(40),
        rl_limit_tokens: 10_000,
        rl_remaining_tokens: 100,
      }), fell);
      assert.equal(q.bound.by, "quota");
    },
  );
  await t.step("a fall the sample does not support (10 requests a stage, 10 → 8): neither", async () => {
    // pooled 0.9, se = √(0.9·0.1·(2/10)) = 0.134, z = 0.2/0.134 = 1.49 < 1.645.
    const q = await quotaOf(10, () => limits(60), () => limits(40), { low: 10, high: 8 });
    assert.equal(q.bound.by, "neither");
  });
});

Deno.test("providerQuota(): the implied quota rate is the median (limit − remaining) / reset seconds", async () => {
  // low: remaining 40 of 100, full in 30 s: (100 − 40) / 30 = 2 req/s, every attempt.
  // high: i even: remaining 70, full in 10 s: 3 req/s; i odd: remaining 100 (nothing used): no rate. Median of 3s: 3.
  // high tokens: 10,000 limit, 4,000 left, full in 6 s: 6,000 / 6 = 1,000 tok/s.
  const q = await quotaOf(
    4,
    () => limits(40, 30_000),
    (i) =>
      i % 2
        ? limits(100, 0)
        : { ...limits(70, 10_000), rl_limit_tokens: 10_000, rl_remaining_tokens: 4_000, rl_reset_tokens_ms: 6_000 },
    { low: 4, high: 4 },
  );
  assert.deepEqual(q.stages.map((s) => [s.quota_rps, s.quota_tokens_per_s]), [[2, null], [3, 1000]]);
  const text = formatProviderQuota(q);
  assert.match(text, /^provider quota: neither bound/);
  assert.match(text, /high\s+\S+\s+1\s+4\s+4\s+0\s+70\/100 \(70 %\)\s+4000\/10000 \(40 %\)\s+3\s+1000/);
});

Deno.test("providerQuota(): served tiers per stage and route, flagged when another tier than requested", async (t) => {
  await t.step("priority requested, default served: flagged", async () => {
    const q = await quotaOf(
      4,
      () => ({ service_tier_requested: "priority", service_tier: "priority" }),
      (i) => ({ service_tier_requested: "priority", service_tier: i < 3 ? "default" : "priority" }),
      { low: 4, high: 4 },
    );
    // No limits stated: the quota says only that; the tiers are still shown.
    assert.equal(q.bound.by, "not_recorded");
    assert.deepEqual(
      q.tiers.map((r) => [r.stage, r.route, r.requested, r.served, r.attempts, r.mismatch]),
      [
        ["low", "default", "priority", "priority", 4, false],
        ["high", "default", "priority", "default", 3, true],
        ["high", "default", "priority", "priority", 1, false],
      ],
    );
    assert.equal(
      q.tier_line,
      "SERVED ANOTHER TIER: 3 of 8 attempts were served another tier than requested (priority → default on default); " +
        "tiers are priced differently (served: priority 5, default 3)",
    );
    assert.match(formatProviderQuota(q), /OTHER TIER/);
  });
  await t.step("auto served default, standard_only served standard, none requested: not flagged", async () => {
    const q = await quotaOf(
      2,
      (i) => ({ service_tier_requested: i ? "auto" : null, service_tier: "default" }),
      () => ({ service_tier_requested: "standard_only", service_tier: "standard" }),
      { low: 2, high: 2 },
    );
    assert.ok(q.tiers.every((r) => !r.mismatch));
    assert.equal(q.tier_line, "served tiers: default 2, standard 2 (none other than requested)");
  });
  await t.step("no tier recorded: no tier line", async () => {
    const q = await quotaOf(2, () => limits(50), () => limits(50), { low: 2, high: 2 });
    assert.deepEqual([q.tiers, q.tier_line], [[], null]);
  });
});

Deno.test("tierMatches(): equal, auto, <tier>_only; not another tier", () => {
  assert.equal(tierMatches("flex", "flex"), true);
  assert.equal(tierMatches("auto", "priority"), true);
  assert.equal(tierMatches("standard_only", "standard"), true);
  assert.equal(tierMatches(null, "default"), true);
  assert.equal(tierMatches("priority", "default"), false);
  assert.equal(tierMatches("flex", "default"), false);
});
