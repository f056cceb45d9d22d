import assert from "node:assert/strict";
import { RetryPolicy } from "../../schema/mod.ts";
import { fullJitterBackoff, parseRetryAfter, RetryController } from "../../runner/retry.ts";
import { Rng } from "../../runner/rng.ts";

const policy = (p: Partial<RetryPolicy> = {}) => RetryPolicy.parse(p);

Deno.test("RetryController retries retryable failures up to max_attempts", () => {
  const rc = new RetryController(policy({ max_attempts: 3, budget_min: 100 }), () => 0.5);
  rc.noteFirstAttempt();
  const f = { status: 503, kind: "http_503" };
  assert.equal(rc.decide(f, 1).retry, true);
  rc.sent();
  assert.equal(rc.decide(f, 2).retry, true);
  rc.sent();
  assert.deepEqual(rc.decide(f, 3), { retry: false, reason: "max_attempts" });
  assert.equal(rc.retries, 2);
});

Deno.test("RetryController never retries validation or authorization errors", async (t) => {
  const rc = new RetryController(policy({ budget_min: 100 }), () => 0.5);
  for (const status of [400, 401, 403, 404, 422]) {
    await t.step(`status ${status}`, () => {
      assert.deepEqual(rc.decide({ status, kind: `http_${status}` }, 1), { retry: false, reason: "not_retryable" });
    });
  }
  await t.step("a policy that lists them is refused", () => {
    assert.throws(() => RetryPolicy.parse({ retry_statuses: [429, 401] }), /401 is a validation or authorization/);
  });
  await t.step("invalid responses and request timeouts are not retried", () => {
    assert.equal(rc.decide({ status: null, kind: "malformed_sse" }, 1).retry, false);
    assert.equal(rc.decide({ status: null, kind: "request_timeout" }, 1).retry, false);
  });
  assert.equal(rc.retries, 0);
});

Deno.test("RetryController enforces the global retry budget", () => {
  // budget = floor(2 + 0.5 × first attempts): with 4 first attempts it is 4 retries.
  const rc = new RetryController(policy({ budget_min: 2, budget_ratio: 0.5, max_attempts: 10 }), () => 0);
  for (let i = 0; i < 4; i++) rc.noteFirstAttempt();
  assert.equal(rc.budget, 4);
  const f = { status: null, kind: "connection_reset" };
  for (let i = 0; i < 4; i++) assert.equal(rc.decide(f, 1).retry, true, `retry ${i + 1}`);
  assert.deepEqual(rc.decide(f, 1), { retry: false, reason: "retry_budget_exhausted" });
  assert.equal(rc.budgetExhausted, 1);
  rc.noteFirstAttempt();
  rc.noteFirstAttempt(); // budget floor(2 + 0.5 × 6) = 5: one more retry allowed
  assert.equal(rc.decide(f, 1).retry, true);
  assert.equal(rc.decide(f, 1).retry, false);
});

Deno.test("a granted retry is counted only when its attempt is sent; an unsent one gives its budget back", () => {
  // budget = floor(1 + 0 × 1) = 1 retry.
  const rc = new RetryController(policy({ budget_min: 1, budget_ratio: 0, max_attempts: 5 }), () => 0);
  rc.noteFirstAttempt();
  const f = { status: 503, kind: "http_503" };
  assert.equal(rc.decide(f, 1).retry, true);
  assert.equal(rc.retries, 0, "granted, not yet sent: not a retry");
  // The one unit is reserved: a second decision while the first retry waits is refused.
  assert.deepEqual(rc.decide(f, 1), { retry: false, reason: "retry_budget_exhausted" });
  rc.unsent(); // held back by the route's limit: no call made, the unit goes back
  assert.equal(rc.retries, 0);
  assert.equal(rc.decide(f, 1).retry, true);
  rc.sent();
  assert.equal(rc.retries, 1);
  assert.deepEqual(rc.decide(f, 2), { retry: false, reason: "retry_budget_exhausted" });
  assert.equal(rc.budgetExhausted, 2);
});

Deno.test("a retry whose wait reaches the deadline is refused as retry_past_deadline and spends no budget", () => {
  // budget = floor(1 + 0) = 1; Retry-After 1 s.
  const rc = new RetryController(policy({ budget_min: 1, budget_ratio: 0, max_attempts: 5 }), () => 0);
  rc.noteFirstAttempt();
  const f = { status: 429, kind: "http_429", retryAfter: "1" };
  // 1000 ms of wait with 999 ms (and with exactly 1000 ms) left: it would be sent at or past the deadline.
  assert.deepEqual(rc.decide(f, 1, null, 999), { retry: false, reason: "retry_past_deadline" });
  assert.deepEqual(rc.decide(f, 1, null, 1000), { retry: false, reason: "retry_past_deadline" });
  assert.equal(rc.pastDeadline, 2);
  assert.equal(rc.budgetExhausted, 0, "checked before the budget: not an exhaustion");
  // The budget is untouched: 1001 ms left fits the 1000 ms wait.
  assert.deepEqual(rc.decide(f, 1, null, 1001), { retry: true, reason: "http_429", backoffMs: 1000 });
  // A fallback goes at once (wait 0): refused only when no time is left.
  const fb = new RetryController(policy({ budget_min: 5 }), () => 0);
  assert.deepEqual(fb.decide(f, 1, "429", 0), { retry: false, reason: "retry_past_deadline" });
  assert.deepEqual(fb.decide(f, 1, "429", 1), { retry: true, reason: "fallback:429", backoffMs: 0 });
});

Deno.test("full-jitter backoff stays within [0, min(cap, base·2^(n−1)))", () => {
  const rng = new Rng(42);
  const p = { base_ms: 100, cap_ms: 1000 };
  for (let attempt = 1; attempt <= 6; attempt++) {
    const bound = Math.min(1000, 100 * 2 ** (attempt - 1));
    let max = 0;
    let sum = 0;
    const n = 4000;
    for (let i = 0; i < n; i++) {
      const b = fullJitterBackoff(p, attempt, () => rng.next());
      assert.ok(b >= 0 && b < bound, `attempt ${attempt}: ${b} outside [0, ${bound})`);
      max = Math.max(max, b);
      sum += b;
    }
    // Uniform: the mean is bound/2 (sd of the mean = bound/√(12n) ≈ 0.0046·bound; 6 sd tolerance).
    assert.ok(Math.abs(sum / n - bound / 2) < 0.03 * bound, `attempt ${attempt}: mean ${sum / n}`);
    assert.ok(max > 0.95 * bound, "jitter spans the whole range");
  }
});

Deno.test("Retry-After is honoured, capped, and parsed from seconds or a date", () => {
  const rc = new RetryController(policy({ retry_after_cap_ms: 1500, budget_min: 10 }), () => 0.99);
  assert.deepEqual(rc.decide({ status: 429, kind: "http_429", retryAfter: "1" }, 1), {
    retry: true,
    reason: "http_429",
    backoffMs: 1000,
  });
  assert.deepEqual(rc.decide({ status: 429, kind: "http_429", retryAfter: "30" }, 1), {
    retry: true,
    reason: "http_429",
    backoffMs: 1500,
  });
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(parseRetryAfter("Thu, 01 Jan 2026 00:00:03 GMT", now), 3000);
  assert.equal(parseRetryAfter("-1"), null);
  // 400 digits overflow to Infinity: not a delay (it would reach attempts.retry_after_ms as a non-finite number).
  assert.equal(parseRetryAfter("9".repeat(400)), null);
  assert.equal(parseRetryAfter("2.5"), 2500);
  const ignoring = new RetryController(policy({ honour_retry_after: false, base_ms: 100 }), () => 0.5);
  assert.deepEqual(ignoring.decide({ status: 429, kind: "http_429", retryAfter: "30" }, 1), {
    retry: true,
    reason: "http_429",
    backoffMs: 50,
  });
});
