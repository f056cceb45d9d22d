import assert from "node:assert/strict";
import type { AttemptRow, RequestRow } from "../../schema/mod.ts";
import { executeRequest, type FlowContext } from "../../runner/request_flow.ts";
import { tinyCase } from "../../testing/tiny_workload.ts";

Deno.test("an unexpected exception inside a request's flow becomes that request's row, not a lost run", async () => {
  const requests: RequestRow[] = [];
  const attempts: AttemptRow[] = [];
  let chainCalls = 0;
  // Only what executeRequest reads before the failure: a router whose chain() throws a TypeError once.
  const ctx = {
    runId: "run-x",
    stream: () => true,
    router: {
      chain: () => {
        if (chainCalls++ === 0) throw new TypeError("Cannot read properties of undefined (reading 'arguments')");
        return [{ route: "primary" }];
      },
    },
    sinks: {
      requests: { append: (r: RequestRow) => requests.push(r) },
      attempts: { append: (a: AttemptRow) => attempts.push(a) },
    },
  } as unknown as FlowContext;
  const req = { request_id: "r0000007", scheduled_ms: 100, stage: "main", shard: 0 };
  const row = await executeRequest(ctx, req, tinyCase(), 102.5);
  assert.equal(requests.length, 1, "exactly one row");
  assert.equal(requests[0], row);
  assert.equal(row.request_id, "r0000007");
  assert.equal(row.outcome, "invalid_response");
  assert.equal(row.error_kind, "runner_error:TypeError");
  assert.equal(row.route, "primary", "the route the request would have taken");
  assert.equal(row.send_lag_ms, 2.5, "started 102.5 − scheduled 100");
  assert.equal(row.attempts, 0);
  assert.equal(row.first_sent_ms, null);
  assert.equal(attempts.length, 0);
});
