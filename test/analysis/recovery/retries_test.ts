import assert from "node:assert/strict";
import { formatRecovery } from "../../../analysis/recovery/format_recovery.ts";
import { retries } from "../../../analysis/recovery/retries.ts";
import type { AttemptRow, RequestRow } from "../../../schema/events.ts";
import { att, makeManifest, req } from "../_fixture.ts";
import { failedAttempt, loadFixture, okRequest } from "./_recovery_fixture.ts";

const STAGES = [{ name: "s", kind: "steady" as const, start_ms: 0, end_ms: 20_000, offered_rps: 1 }];

/** Failed attempts at t, t + 500, … (each retried with its kind as reason, or `reasons[i]`), then an ok one or not. */
function chain(
  id: string,
  t: number,
  fails: [number | null, string][],
  thenOk: boolean,
  reasons: (string | null)[] = [],
): { r: RequestRow; a: AttemptRow[] } {
  const a = fails.map(([status, kind], i) => {
    const row = failedAttempt(id, i + 1, t + 500 * i, status, kind, thenOk || i < fails.length - 1);
    return reasons[i] ? { ...row, retry_reason: reasons[i]! } : row;
  });
  if (thenOk) {
    const ok = okRequest(id, "s", t + 500 * fails.length);
    return { r: { ...ok.r, scheduled_ms: t, first_sent_ms: t }, a: [...a, { ...ok.a[0]!, attempt: fails.length + 1 }] };
  }
  const [status, kind] = fails[fails.length - 1]!;
  return {
    r: req({
      request_id: id,
      class: "qa",
      stage: "s",
      scheduled_ms: t,
      outcome: status === null ? "transport_error" : "http_error",
      http_status: status,
      error_kind: kind,
      output_tokens: 0,
    }),
    a,
  };
}

Deno.test("retries() counts amplification, budget and capacity, and flags forbidden retries", async (t) => {
  const tool = okRequest("c", "s", 3000);
  const round1 = okRequest("c", "s", 3500).a[0]!;
  const parts = [
    chain("a", 1000, [[500, "http_500"]], true), // allowed
    chain("b", 2000, [[400, "http_400"], [400, "http_400"]], false), // defect: 400 retried
    { r: { ...tool.r, rounds: 2 }, a: [tool.a[0]!, { ...round1, round: 1 }] }, // two rounds, no retry
    chain("d", 4000, [[501, "http_501"]], true, ["fallback:http_501"]), // a fallback: allowed
    chain("e", 5000, [[501, "http_501"], [501, "http_501"]], false), // defect: 501 not in retry_statuses
    chain("f", 6000, [[503, "http_503"], [503, "http_503"], [503, "http_503"]], true), // 4 attempts > max 3
    chain("g", 7000, [[404, "http_404"], [404, "http_404"]], false, ["fallback:http_404"]), // defect even as fallback
    chain("h", 8000, [[null, "connect_refused"]], true), // allowed transport retry
    chain("i", 9000, [[503, "http_503+retry_budget_exhausted"]], false), // refused by the budget
  ];
  const run = await loadFixture(STAGES, parts, null, {
    result: { ...makeManifest(STAGES).result, ended_ms: 20_000, offered: 9, retries: 9, retry_budget_exhausted: 1 },
  });
  const r = retries(run);

  await t.step("amplification: 19 attempts, 10 first attempts (c has two rounds), 9 retries", () => {
    assert.deepEqual([r.offered, r.attempts, r.first_attempts, r.retries], [9, 19, 10, 9]);
    assert.equal(r.amplification, 19 / 9);
    assert.equal(r.retry_amplification, 19 / 10);
  });

  await t.step("budget: floor(10 + 0.2 × 9 round-0 first attempts) = 11 allowed, 9 used", () => {
    assert.equal(r.budget.budget_base, 9);
    assert.equal(r.budget.allowed, 11);
    assert.equal(r.budget.consumed, 9 / 11);
    assert.deepEqual([r.budget.manifest_retries, r.budget.manifest_exhausted], [9, 1]);
    assert.deepEqual([r.budget.exhausted_requests, r.budget.first_exhausted_ms], [1, 9000]);
  });

  await t.step("capacity: retries' share of attempts, attempt time and tokens", () => {
    assert.equal(r.capacity.attempts, 9 / 19);
    // Ok attempts last 400 ms, failed ones 5 ms. All: 6 ok + 13 failed = 2400 + 65 = 2465.
    // Retries: a2 d2 f4 h2 ok (1600) + b2 e2 f2 f3 g2 failed (25) = 1625.
    assert.equal(r.capacity.busy_ms, 1625 / 2465);
    // Only ok attempts carry tokens (10 in, 10 out): 4 of the 6 are retries.
    assert.equal(r.capacity.input_tokens, 40 / 60);
    assert.equal(r.capacity.output_tokens, 40 / 60);
  });

  await t.step("reasons and outcomes of retried requests", () => {
    assert.deepEqual(r.by_reason, {
      http_500: 1,
      http_400: 1,
      "fallback:http_501": 1,
      http_501: 1,
      http_503: 3,
      "fallback:http_404": 1,
      connect_refused: 1,
    });
    assert.deepEqual([r.retried_requests, r.retried_requests_ok], [7, 4]); // a d f h ended ok
  });

  await t.step("defects: the 400, the non-fallback 501, the 404 fallback, and four attempts in one round", () => {
    assert.deepEqual(
      r.defects.map((d) => [d.request_id, d.attempt, d.http_status]),
      // By sent_ms: b 2000, e 5000, g 7000, f's fourth attempt 7500 (its 200, flagged for the count).
      [["b", 1, 400], ["e", 1, 501], ["g", 1, 404], ["f", 4, 200]],
    );
    assert.match(r.defects[0]!.why, /400 is a validation or authorization error/);
    assert.match(r.defects[1]!.why, /not in run\.json retry\.retry_statuses/);
    assert.match(r.defects[2]!.why, /404/);
    assert.match(r.defects[3]!.why, /4 attempts in one round exceed max_attempts = 3/);
    assert.match(formatRecovery({ retries: r }), /DEFECTS \(retries the policy forbids\): 4\n {4}b round 0 attempt 1/);
  });
});

Deno.test("retries() of a run without retries: no amplification, no defects", async () => {
  const run = await loadFixture(STAGES, [okRequest("a", "s", 0), okRequest("b", "s", 1000)], null);
  const r = retries(run);
  assert.deepEqual([r.retries, r.retry_amplification, r.capacity.attempts, r.defects], [0, 1, 0, []]);
  assert.equal(r.budget.consumed, 0);
});

Deno.test("retries() counts only sent retries, as run.json result.retries: attempts held back by a route limit are apart", async () => {
  // A held-back row: the route's limit kept the attempt until the deadline, no HTTP call (runner/fallback.ts heldBack).
  const held = (id: string, attempt: number, t: number) =>
    att({
      request_id: id,
      attempt,
      sent_ms: t,
      http_status: null,
      error_kind: "route_limit_wait",
      input_tokens: 0,
      token_source: null,
    });
  const timedOut = (id: string, t: number) =>
    req({
      request_id: id,
      class: "qa",
      stage: "s",
      scheduled_ms: t,
      outcome: "timeout",
      http_status: null,
      error_kind: "route_limit_wait",
      output_tokens: 0,
    });
  const b = chain("b", 2000, [[503, "http_503"]], true);
  const parts = [
    // a: a 503, retry granted (retry_reason http_503), but the route's limit held the retry back: not sent.
    { r: timedOut("a", 1000), a: [failedAttempt("a", 1, 1000, 503, "http_503", true), held("a", 2, 1505)] },
    // b: a 503, then a sent retry that answered.
    b,
    // c: its first attempt held back: never sent.
    { r: timedOut("c", 3000), a: [held("c", 1, 3000)] },
  ];
  const run = await loadFixture(STAGES, parts, null, {
    result: { ...makeManifest(STAGES).result, ended_ms: 20_000, offered: 3, retries: 1, retry_budget_exhausted: 0 },
  });
  const r = retries(run);
  // 5 attempt rows, 2 held back (a2, c1) → 3 sent: a1, b1, b2. First sent attempts a1, b1 → 2; retries b2 → 1,
  // which is run.json result.retries (the runner counts a retry when its attempt is sent).
  assert.deepEqual([r.attempts, r.first_attempts, r.retries, r.held_back], [3, 2, 1, 2]);
  assert.equal(r.retries, r.budget.manifest_retries);
  assert.equal(r.amplification, 3 / 3); // 3 sent attempts ÷ 3 offered
  assert.equal(r.retry_amplification, 3 / 2); // 3 sent attempts ÷ 2 sent first attempts
  assert.equal(r.capacity.attempts, 1 / 3);
  // Budget base: round-0 first attempts a1, b1 and c1 (held back, but due: the runner counts it) = 3;
  // allowed = floor(10 + 0.2 × 3) = floor(10.6) = 10; consumed = 1 ÷ 10.
  assert.deepEqual([r.budget.budget_base, r.budget.allowed, r.budget.consumed], [3, 10, 1 / 10]);
  // Retried attempts: b1 only (a1's retry was never sent); one retried request, b, which ended ok.
  assert.deepEqual(r.by_reason, { http_503: 1 });
  assert.deepEqual([r.retried_requests, r.retried_requests_ok], [1, 1]);
  assert.match(r.rules[0]!, /route_limit_wait \(held back by its route's limit, no HTTP call\) is not an attempt/);
  assert.match(formatRecovery({ retries: r }), /retries 1, held back by a route limit \(not sent\) 2/);
});
