import assert from "node:assert/strict";
import { fallbackTrigger, Router, unitHash } from "../../runner/router.ts";
import { RouteLimiter } from "../../runner/route_limiter.ts";

const names = new Map([["a", "a"], ["b", "b"], ["c", "c"]]);
const ids = Array.from({ length: 10_000 }, (_, i) => `run-${i}`);

Deno.test("split by percent follows the weights, never picks a zero weight, and depends on the seed", () => {
  const r = new Router({ kind: "split_by_percent", weights: { a: 7, b: 3, c: 0 }, seed: 1 }, names);
  const counts = { a: 0, b: 0, c: 0 } as Record<string, number>;
  for (const id of ids) counts[r.chain(id, "x")[0]!]!++;
  // 10 000 draws at p = 0.7: sd = sqrt(10000 · 0.7 · 0.3) ≈ 46, so ±200 is over 4 sd.
  assert.ok(Math.abs(counts.a! - 7000) < 200, `a: ${counts.a}`);
  assert.equal(counts.c, 0);
  assert.equal(counts.a! + counts.b!, ids.length);
  const again = new Router({ kind: "split_by_percent", weights: { a: 7, b: 3, c: 0 }, seed: 1 }, names);
  assert.ok(ids.every((id) => again.chain(id, "x")[0] === r.chain(id, "x")[0]), "same seed, same routes");
  const other = new Router({ kind: "split_by_percent", weights: { a: 7, b: 3 }, seed: 2 }, names);
  assert.ok(ids.some((id) => other.chain(id, "x")[0] !== r.chain(id, "x")[0]), "another seed moves some requests");
});

Deno.test("unitHash is uniform enough over [0, 1)", () => {
  const buckets = new Array(10).fill(0);
  for (const id of ids) {
    const u = unitHash(0, id);
    assert.ok(u >= 0 && u < 1);
    buckets[Math.floor(u * 10)]++;
  }
  // 1000 expected per bucket, sd ≈ 30.
  for (const b of buckets) assert.ok(Math.abs(b - 1000) < 150, `bucket ${b}`);
});

Deno.test("split by class uses the class's route, else the default; fallback chains keep their order", () => {
  const byClass = new Router({ kind: "split_by_class", classes: { qa: "a" }, default: "c" }, names);
  assert.deepEqual(byClass.chain("r1", "qa"), ["a"]);
  assert.deepEqual(byClass.chain("r1", "other"), ["c"]);
  const fb = new Router({ kind: "fallback", primary: "b", fallbacks: ["a", "c"], on: ["429", "timeout"] }, names);
  assert.deepEqual(fb.chain("r1", "qa"), ["b", "a", "c"]);
  assert.equal(fb.trigger({ status: 429, outcome: "rejected", kind: "http_429" }), "429");
  assert.equal(fb.trigger({ status: null, outcome: "timeout", kind: "idle_timeout" }), "timeout");
  assert.equal(fb.trigger({ status: 503, outcome: "http_error", kind: "http_503" }), null, "error is not in `on`");
  assert.throws(() => new Router({ kind: "single", route: "zz" }, names), /"zz"/);
});

Deno.test("fallbackTrigger classes failures", async (t) => {
  await t.step("5xx and transport errors are errors", () => {
    assert.equal(fallbackTrigger({ status: 502, outcome: "http_error", kind: "http_502" }), "error");
    assert.equal(fallbackTrigger({ status: null, outcome: "transport_error", kind: "connect_refused" }), "error");
  });
  await t.step("a request past its own deadline and a bad request have nowhere to go", () => {
    assert.equal(fallbackTrigger({ status: null, outcome: "timeout", kind: "request_timeout" }), null);
    assert.equal(fallbackTrigger({ status: 400, outcome: "http_error", kind: "http_400" }), null);
    assert.equal(fallbackTrigger({ status: 200, outcome: "invalid_response", kind: "malformed_sse" }), null);
  });
});

Deno.test("RouteLimiter holds a route to its limits", async (t) => {
  await t.step("max_in_flight: a waiter past its deadline gives up holding nothing", async () => {
    const l = new RouteLimiter({ max_in_flight: 1 }, () => performance.now());
    assert.equal(await l.acquire(performance.now() + 1000), true);
    const t0 = performance.now();
    assert.equal(await l.acquire(performance.now() + 30), false);
    assert.ok(performance.now() - t0 >= 25);
    assert.equal(l.inFlight, 1);
    l.release();
    assert.equal(l.inFlight, 0);
  });
  await t.step("rps: starts beyond one second's tokens are spaced 1/rps apart", async () => {
    const l = new RouteLimiter({ rps: 50 }, () => performance.now());
    const t0 = performance.now();
    // 50 tokens at once, then 5 more at 20 ms each: the 55th starts after about 100 ms.
    for (let i = 0; i < 55; i++) {
      assert.equal(await l.acquire(t0 + 5000), true);
      l.release();
    }
    const took = performance.now() - t0;
    assert.ok(took >= 90 && took < 1000, `took ${took} ms`);
  });
  await t.step("abortAll releases every waiter with false", async () => {
    const l = new RouteLimiter({ max_in_flight: 1 }, () => performance.now());
    await l.acquire(performance.now() + 1000);
    const waiting = l.acquire(performance.now() + 60_000);
    l.abortAll();
    assert.equal(await waiting, false);
  });
});
