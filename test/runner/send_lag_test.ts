/**
 * `send_lag_ms` and `first_sent_ms` of one request (runner/request_flow.ts): the first byte's instant as the HTTP
 * client reports it, less the waits the workload and the routes policy put before the first call.
 */
import assert from "node:assert/strict";
import { dialectTarget } from "../support/dialect_target.ts";
import { type AttemptRow, type RequestRow, RetryPolicy, type ToolRow } from "../../schema/mod.ts";
import type { Clock } from "../../runner/clock.ts";
import type { HttpClient, HttpOutcome, HttpRequest, ResponseHandler } from "../../runner/http/client.ts";
import { executeRequest, type FlowContext, type FlowRoute } from "../../runner/request_flow.ts";
import { RetryController } from "../../runner/retry.ts";
import { RouteLimiter } from "../../runner/route_limiter.ts";
import { Watchdog } from "../../runner/watchdog.ts";
import { tinyCase } from "../../testing/tiny_workload.ts";

const enc = new TextEncoder();
const ANSWER = [
  `data: {"choices":[{"index":0,"delta":{"content":"tok0"},"finish_reason":null}]}\n\n`,
  `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`,
  `data: {"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":1,"total_tokens":5}}\n\n`,
  "data: [DONE]\n\n",
].join("");

/** A clock the test moves by hand. */
class ManualClock implements Clock {
  readonly epochUnixMs = 0;
  t = 0;
  now = (): number => this.t;
}

/**
 * An HTTP client on the manual clock: `waitMs` after the call it writes the first byte (a connection wait), then
 * 10 ms later the answer; or, with `refuse`, fails to connect after `waitMs` having written nothing.
 */
function fakeClient(clock: ManualClock, o: { waitMs: number; refuse?: boolean }): HttpClient {
  return {
    name: "fake",
    send(_req: HttpRequest, h: ResponseHandler): Promise<HttpOutcome> {
      clock.t += o.waitMs;
      if (o.refuse) {
        return Promise.resolve({ ok: false, endMs: clock.t, kind: "connect_refused", message: "refused" });
      }
      h.onSent?.(clock.t);
      clock.t += 10;
      h.onHeaders(200, new Map([["content-type", "text/event-stream"]]), clock.t);
      h.onData(enc.encode(ANSWER), clock.t);
      return Promise.resolve({ ok: true, endMs: clock.t });
    },
    close: () => Promise.resolve(),
  };
}

function context(clock: ManualClock, client: HttpClient, limiter: RouteLimiter | null = null) {
  const rows = { requests: [] as RequestRow[], attempts: [] as AttemptRow[], tools: [] as ToolRow[] };
  const route: FlowRoute = { ...dialectTarget("http://127.0.0.1:1", { route: "primary" }), limiter };
  const watchdog = new Watchdog(clock.now, 60_000);
  const ctx: FlowContext = {
    runId: "run-1",
    clock,
    client,
    watchdog,
    attemptTimeoutMs: 60_000,
    router: { chain: () => [route], trigger: () => null },
    retry: new RetryController(RetryPolicy.parse({ max_attempts: 1 }), () => 0),
    requestTimeoutMs: 120_000,
    outputCap: null,
    stream: () => true,
    maxRounds: 8,
    sinks: {
      requests: { append: (r) => rows.requests.push(r) },
      attempts: { append: (a) => rows.attempts.push(a) },
      tools: { append: (t) => rows.tools.push(t) },
    },
    outputs: null,
  };
  return { ctx, rows, watchdog };
}

const req = { request_id: "r0000001", scheduled_ms: 100, stage: "main", shard: 0 };

Deno.test("send_lag_ms runs from scheduled_ms to the first byte written, less the waits before the first call", async (t) => {
  await t.step("no wait: the first byte's instant − scheduled_ms, and first_sent_ms is that instant", async () => {
    const clock = new ManualClock();
    clock.t = 102; // the dispatcher began it 2 ms late
    const { ctx, rows, watchdog } = context(clock, fakeClient(clock, { waitMs: 1.5 }));
    const row = await executeRequest(ctx, req, tinyCase(), 102);
    watchdog.stop();
    assert.equal(row.outcome, "ok");
    // Handed to the client at 102, first byte at 102 + 1.5 = 103.5: lag 103.5 − 100 = 3.5 (not the 2 of its start).
    assert.equal(row.first_sent_ms, 103.5);
    assert.equal(row.send_lag_ms, 3.5);
    assert.equal(rows.attempts[0]!.sent_ms, 103.5);
  });

  await t.step("a wait for the route's limit is left out: it is the policy's, not the client's lateness", async () => {
    const clock = new ManualClock();
    clock.t = 102;
    const limiter = new RouteLimiter({ max_in_flight: 1 }, clock.now);
    assert.equal(await limiter.acquire(1e9), true); // another request holds the one slot
    const { ctx, watchdog } = context(clock, fakeClient(clock, { waitMs: 1.5 }), limiter);
    const flow = executeRequest(ctx, req, tinyCase(), 102);
    await new Promise((r) => setTimeout(r, 5));
    clock.t = 109; // the slot comes free 7 ms after the request asked for it
    limiter.release();
    const row = await flow;
    watchdog.stop();
    // First byte at 109 + 1.5 = 110.5; the limit's wait 109 − 102 = 7: lag 110.5 − 100 − 7 = 3.5.
    assert.equal(row.first_sent_ms, 110.5);
    assert.equal(row.send_lag_ms, 3.5);
  });

  await t.step("a first call that wrote nothing: the instant it was handed to the client", async () => {
    const clock = new ManualClock();
    clock.t = 102;
    const { ctx, rows, watchdog } = context(clock, fakeClient(clock, { waitMs: 1, refuse: true }));
    const row = await executeRequest(ctx, req, tinyCase(), 102);
    watchdog.stop();
    assert.equal(row.outcome, "transport_error");
    // No byte written: sent_ms is when the call was handed over (102); lag 102 − 100 = 2.
    assert.equal(rows.attempts[0]!.sent_ms, 102);
    assert.equal(row.first_sent_ms, 102);
    assert.equal(row.send_lag_ms, 2);
  });
});

Deno.test("send_lag_ms leaves out a retrieval step's replayed latency", async () => {
  // A real clock here: the retrieval step sleeps 30 ms of real time.
  const t0 = performance.now();
  const clock: Clock = { epochUnixMs: 0, now: () => performance.now() - t0 };
  const manual = new ManualClock();
  const client: HttpClient = {
    ...fakeClient(manual, { waitMs: 0 }),
    send: (r, h) => {
      manual.t = clock.now();
      return fakeClient(manual, { waitMs: 0 }).send(r, h);
    },
  };
  const { ctx, rows, watchdog } = context(manual, client);
  ctx.clock = clock;
  const started = clock.now();
  const row = await executeRequest(
    ctx,
    { ...req, scheduled_ms: started },
    tinyCase({ retrieval: { latency_ms: 30, documents: [{ doc_id: "d1", sha256: "0".repeat(64) }] } }),
    started,
  );
  watchdog.stop();
  const retrieval = rows.tools.find((x) => x.tool === "retrieval")!;
  const waited = retrieval.ended_ms - retrieval.started_ms;
  assert.ok(waited >= 30, `retrieval took ${waited} ms`);
  // The first byte came after the 30 ms of retrieval; the lag is what is left after taking it out.
  assert.ok(row.first_sent_ms! - row.scheduled_ms >= 30);
  assert.equal(row.send_lag_ms, row.first_sent_ms! - row.scheduled_ms - waited);
  // The lag is the time outside the retrieval step: before it began and after it ended. No bound on its size: on a
  // loaded machine those two spans can be long, and they are the client's lateness either way.
  const outside = (retrieval.started_ms - row.scheduled_ms) + (row.first_sent_ms! - retrieval.ended_ms);
  assert.ok(row.send_lag_ms! >= 0, `send lag ${row.send_lag_ms} ms`);
  assert.ok(Math.abs(row.send_lag_ms! - outside) < 1e-9, `send lag ${row.send_lag_ms} ms, outside ${outside} ms`);
});
