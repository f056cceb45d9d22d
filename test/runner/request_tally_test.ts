import assert from "node:assert/strict";
import type { RequestRow } from "../../schema/mod.ts";
import { clientVerdict, RequestTally } from "../../runner/request_tally.ts";
import { formatRunSummary } from "../../runner/run_summary.ts";
import { makeManifest } from "../analysis/_fixture.ts";

type Row = Pick<RequestRow, "stage" | "outcome" | "error_kind" | "send_lag_ms">;

const ok = (lag: number, stage = "s"): Row => ({ stage, outcome: "ok", error_kind: null, send_lag_ms: lag });
const lagsOf = (counts: [number, number][], stage = "s"): Row[] =>
  counts.flatMap(([n, lag]) => Array.from({ length: n }, () => ok(lag, stage)));

/**
 * The idle-machine run of issue 28: 23 requests, the slowest sent 5.08 ms late, at 2 req/s (500 ms between planned
 * arrivals). Lags 0.2, 0.4, …, 4.4 ms (22 of them) and 5.08 ms.
 */
const IDLE = [...Array.from({ length: 22 }, (_, i) => ok(+(0.2 * (i + 1)).toFixed(1))), ok(5.08)];
const IDLE_STAGES = [{ name: "s", offered_rps: 2 }];

Deno.test("the runner's client verdict: (a) requests not sent or shed, both sides", async (t) => {
  await t.step(
    "23 requests on an idle machine, max lag 5.08 ms: not client-limited (the old 5 ms p99 bar fired)",
    () => {
      // Old rule: nearest-rank p99 of 23 = the ⌈0.99 × 23⌉ = 23rd smallest = 5.08 ms > 5 ms: "THE CLIENT WAS THE LIMIT".
      // New rule: nothing unsent or shed; n = 23 supports p75 at most (p75 needs 17, p90 44), whose ⌈0.75 × 23⌉ = 18th
      // smallest is 3.6 ms ≤ 500 ms.
      const v = clientVerdict(IDLE, { stages: IDLE_STAGES });
      assert.deepEqual([v.client_limited, v.client_limit_reason, v.send_lag_max_ms], [false, null, 5.08]);
    },
  );
  await t.step("one request not sent because the runner fell behind: client-limited", () => {
    const v = clientVerdict([...IDLE, { stage: "s", outcome: "not_sent", error_kind: null, send_lag_ms: 1200 }], {
      stages: IDLE_STAGES,
    });
    assert.equal(v.client_limited, true);
    assert.equal(v.client_limit_reason, "1 requests not sent (the runner fell behind its schedule)");
  });
  await t.step("one request shed by the in-flight cap: client-limited", () => {
    const v = clientVerdict([...IDLE, { stage: "s", outcome: "client_shed", error_kind: "shed", send_lag_ms: 0 }]);
    assert.equal(v.client_limit_reason, "1 requests shed by the runner's in-flight cap");
  });
  await t.step("the unsent rest a stop leaves (run_stopped) is not the client's", () => {
    const v = clientVerdict([...IDLE, { stage: "s", outcome: "not_sent", error_kind: "run_stopped", send_lag_ms: 0 }]);
    assert.deepEqual([v.not_sent, v.client_limited], [1, false]);
  });
});

Deno.test("the runner's client verdict: (b) a stage's lag against its mean gap, at the percentile n supports", async (t) => {
  const at20 = [{ name: "s", offered_rps: 20 }]; // 1000 / 20 = 50 ms between planned arrivals
  await t.step("n = 100 supports p95: 6 of 100 lags of 60 ms put the p95 over the 50 ms gap", () => {
    // Sorted: 94 × 1 ms, 6 × 60 ms; the ⌈0.95 × 100⌉ = 95th smallest is 60 ms > 50 ms.
    const v = clientVerdict(lagsOf([[94, 1], [6, 60]]), { stages: at20 });
    assert.equal(v.client_limit_reason, "stage s: p95 send lag 60 ms > 50 ms gap (n = 100)");
  });
  await t.step("5 of 100 do not: the 95th smallest is 1 ms", () => {
    const v = clientVerdict(lagsOf([[95, 1], [5, 60]]), { stages: at20 });
    assert.equal(v.client_limited, false);
  });
  await t.step("the same share over n = 20 uses p75 (p90 needs 44): 3 of 20 late is not a verdict", () => {
    // A p95 of 20 would be the ⌈19⌉th smallest = 60 ms > 50 ms; n = 20 supports p75 (n ≥ 17) whose 15th smallest is
    // 1 ms.
    assert.equal(clientVerdict(lagsOf([[17, 1], [3, 60]]), { stages: at20 }).client_limited, false);
    // 14 of 20 late: the 15th smallest is 60 ms > 50 ms.
    const v = clientVerdict(lagsOf([[6, 1], [14, 60]]), { stages: at20 });
    assert.equal(v.client_limit_reason, "stage s: p75 send lag 60 ms > 50 ms gap (n = 20)");
  });
  await t.step("below 7 requests no percentile is supported: only every lag over the gap fires", () => {
    const v = clientVerdict(lagsOf([[5, 60]]), { stages: at20 });
    assert.equal(v.client_limit_reason, "stage s: all 5 send lags > 50 ms gap (n = 5 supports no percentile)");
    assert.equal(clientVerdict(lagsOf([[1, 1], [4, 60]]), { stages: at20 }).client_limited, false);
  });
  await t.step("each stage against its own gap; a stage without a planned rate (a drain) has none", () => {
    // Stage a at 2 req/s (gap 500 ms), stage b at 20 req/s (gap 50 ms): 100 lags of 60 ms each.
    const rows = [...lagsOf([[100, 60]], "a"), ...lagsOf([[100, 60]], "b")];
    const stages = [{ name: "a", offered_rps: 2 }, { name: "b", offered_rps: 20 }, { name: "d", offered_rps: 0 }];
    assert.equal(
      clientVerdict(rows, { stages }).client_limit_reason,
      "stage b: p95 send lag 60 ms > 50 ms gap (n = 100)",
    );
    // No stages (a closed loop): no gap to judge against.
    assert.equal(clientVerdict(rows).client_limited, false);
  });
});

Deno.test("the runner's client verdict: --lag-limit-ms is a bar only when given, at the percentile n supports", async (t) => {
  // 494 × 1 ms and 6 × 9 ms: n = 500 supports p99 (n ≥ 459); the ⌈0.99 × 500⌉ = 495th smallest is 9 ms.
  const rows = lagsOf([[494, 1], [6, 9]]);
  await t.step("no bar by default: 9 ms against a 500 ms gap is a figure", () => {
    assert.equal(clientVerdict(rows, { stages: IDLE_STAGES }).client_limited, false);
  });
  await t.step("a 5 ms bar given: p99 9 ms > 5 ms", () => {
    const v = clientVerdict(rows, { stages: IDLE_STAGES, lagLimitMs: 5 });
    assert.equal(v.client_limit_reason, "p99 send lag 9 ms > 5 ms (--lag-limit-ms) (n = 500)");
  });
  await t.step("the same 5 ms bar over the 23 idle requests uses their p75, 3.6 ms: not client-limited", () => {
    assert.equal(clientVerdict(IDLE, { stages: IDLE_STAGES, lagLimitMs: 5 }).client_limited, false);
  });
});

Deno.test("the end-of-run summary states the lag as a figure when nothing fires, the verdict when it does", () => {
  const stages = [{ name: "s", kind: "steady" as const, start_ms: 0, end_ms: 11_500, offered_rps: 2 }];
  const base = makeManifest(stages, { run_id: "run-1" });
  const t = new RequestTally();
  t.add(IDLE);
  const kept = { ...base, result: { ...base.result, ...t.verdict({ stages }) } };
  const line = formatRunSummary(kept, t.summary()).split("\n").find((l) => l.startsWith("client: "));
  // p75 of 23 = the 18th smallest, 3.6 ms; gap 1000 / 2 = 500 ms.
  assert.equal(
    line,
    "client: send lag p75 3.6 ms (n = 23), max 5.08 ms: below every bar (tightest mean gap between planned arrivals " +
      "500 ms)",
  );
  const behind = new RequestTally();
  behind.add([...IDLE, { stage: "s", outcome: "not_sent", error_kind: null, send_lag_ms: 1200 }]);
  const limited = { ...base, result: { ...base.result, ...behind.verdict({ stages }) } };
  assert.ok(
    formatRunSummary(limited, behind.summary()).includes(
      "client: THE CLIENT WAS THE LIMIT: 1 requests not sent (the runner fell behind its schedule)",
    ),
  );
});
