import assert from "node:assert/strict";
import type { RequestRow, ScheduledRequest } from "../../schema/mod.ts";
import { startClock } from "../../runner/clock.ts";
import { dispatchOpenLoop, newCounters } from "../../runner/dispatch.ts";
import { clientVerdict } from "../../runner/request_tally.ts";

const entries = (n: number, gapMs: number): ScheduledRequest[] =>
  Array.from({ length: n }, (_, i) => ({
    request_id: `r${i}`,
    scheduled_ms: 5 + i * gapMs,
    case_id: "c",
    class: "qa",
    stage: "s",
    shard: 0,
  }));

const row = (e: ScheduledRequest, outcome: RequestRow["outcome"], lag: number | null) =>
  ({ request_id: e.request_id, outcome, send_lag_ms: lag }) as RequestRow;

Deno.test("dispatchOpenLoop records every scheduled request once, late ones as not_sent", async (t) => {
  await t.step("a client that keeps up sends everything close to schedule", async () => {
    const clock = startClock();
    const rows: RequestRow[] = [];
    await dispatchOpenLoop({
      clock,
      entries: entries(50, 4),
      maxSendLagMs: 100,
      maxInFlight: 1000,
      start: (e, t0) => new Promise((r) => setTimeout(() => r(row(e, "ok", t0 - e.scheduled_ms)), 30)),
      skip: (e, o, lag) => rows.push(row(e, o, lag)),
      done: (r) => rows.push(r),
    });
    assert.equal(rows.length, 50);
    assert.ok(rows.every((r) => r.outcome === "ok"));
    // A dispatcher that waited for answers (30 ms each) would be ~1.4 s late by the last request;
    // the bounds leave room for a busy CI machine.
    const lags = rows.map((r) => r.send_lag_ms!).sort((a, b) => a - b);
    assert.ok(lags[25]! < 5, `median send lag ${lags[25]} ms`);
    assert.ok(lags[49]! < 150, `max send lag ${lags[49]} ms`);
  });

  await t.step("a client that blocks falls behind: not_sent past the bound, and the verdict says so", async () => {
    const clock = startClock();
    const rows: RequestRow[] = [];
    await dispatchOpenLoop({
      clock,
      entries: entries(100, 1),
      maxSendLagMs: 20,
      maxInFlight: 1000,
      start: (e, t0) => {
        const until = performance.now() + 3; // 3 ms of CPU per request at 1,000 requests/s
        while (performance.now() < until);
        return Promise.resolve(row(e, "ok", t0 - e.scheduled_ms));
      },
      skip: (e, o, lag) => rows.push(row(e, o, lag)),
      done: (r) => rows.push(r),
    });
    assert.equal(rows.length, 100);
    const notSent = rows.filter((r) => r.outcome === "not_sent");
    assert.ok(notSent.length > 30, `${notSent.length} not sent`);
    assert.ok(notSent.every((r) => r.send_lag_ms! > 20));
    const v = clientVerdict(rows);
    assert.equal(v.client_limited, true);
    assert.match(v.client_limit_reason!, /not sent/);
  });

  await t.step("the in-flight cap sheds on the client side", async () => {
    const clock = startClock();
    const rows: RequestRow[] = [];
    const counters = newCounters();
    await dispatchOpenLoop({
      clock,
      entries: entries(20, 1),
      maxSendLagMs: 1000,
      maxInFlight: 5,
      start: (e) => new Promise((r) => setTimeout(() => r(row(e, "ok", 0)), 200)),
      skip: (e, o, lag) => rows.push(row(e, o, lag)),
      done: (r) => rows.push(r),
    }, counters);
    assert.equal(rows.filter((r) => r.outcome === "client_shed").length, 15);
    assert.equal(counters.clientShed, 15);
  });

  await t.step("stopping records the rest of the schedule as not_sent", async () => {
    const clock = startClock();
    const rows: RequestRow[] = [];
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    await dispatchOpenLoop({
      clock,
      entries: entries(40, 10),
      maxSendLagMs: 1000,
      maxInFlight: 100,
      start: (e) => Promise.resolve(row(e, "ok", 0)),
      skip: (e, o, lag, reason) => rows.push({ ...row(e, o, lag), error_kind: reason }),
      done: (r) => rows.push(r),
      signal: stop.signal,
    });
    assert.equal(rows.length, 40);
    const ns = rows.filter((r) => r.outcome === "not_sent");
    assert.ok(ns.length > 20 && ns.every((r) => r.error_kind === "run_stopped"));
    // The unsent rest of a stopped run is the stop's doing, not a client that fell behind.
    const v = clientVerdict(rows);
    assert.equal(v.not_sent, ns.length);
    assert.equal(v.client_limited, false);
  });
});

Deno.test("dispatchOpenLoop asks checkpoints at their time and withholds the rest when one says stop", async (t) => {
  await t.step("a stop at 100 ms offers the entries before it and writes nothing for the rest", async () => {
    const clock = startClock();
    const rows: RequestRow[] = [];
    const startedAt: number[] = [];
    let askedAt: number | null = null;
    // Entries at 5, 15, …, 195 ms; 10 of them before 100 ms.
    const result = await dispatchOpenLoop({
      clock,
      entries: entries(20, 10),
      maxSendLagMs: 1000,
      maxInFlight: 1000,
      start: (e, t0) => {
        startedAt.push(e.scheduled_ms);
        return Promise.resolve(row(e, "ok", t0 - e.scheduled_ms));
      },
      skip: (e, o, lag) => rows.push(row(e, o, lag)),
      done: (r) => rows.push(r),
      checkpoints: [{
        atMs: 100,
        stop: () => {
          askedAt = clock.now();
          assert.ok(startedAt.every((ms) => ms < 100), "an entry at or after the checkpoint started before it");
          return true;
        },
      }],
    });
    assert.deepEqual(result, { offered: 10, withheldFromMs: 100 });
    assert.deepEqual(rows.map((r) => r.request_id), entries(10, 10).map((e) => e.request_id));
    assert.ok(askedAt !== null && askedAt >= 100, `asked at ${askedAt} ms`);
  });

  await t.step("a checkpoint between two far-apart entries is asked at its own time, once", async () => {
    const clock = startClock();
    const asked: number[] = [];
    const far = [entries(1, 0)[0]!, { ...entries(2, 0)[1]!, scheduled_ms: 400 }];
    const result = await dispatchOpenLoop({
      clock,
      entries: far,
      maxSendLagMs: 1000,
      maxInFlight: 1000,
      start: (e, t0) => Promise.resolve(row(e, "ok", t0 - e.scheduled_ms)),
      skip: () => assert.fail("nothing is skipped"),
      checkpoints: [{ atMs: 100, stop: () => (asked.push(clock.now()), false) }],
    });
    assert.deepEqual(result, { offered: 2, withheldFromMs: null });
    assert.equal(asked.length, 1);
    // Asked near 100 ms, not when the next entry fell due at 400 ms (300 ms of room for a busy machine).
    assert.ok(asked[0]! >= 100 && asked[0]! < 300, `asked at ${asked[0]} ms`);
  });
});

Deno.test("dispatchOpenLoop survives a start() that rejects: the other requests finish and the loop settles", async () => {
  const clock = startClock();
  const rows: RequestRow[] = [];
  const counters = newCounters();
  const result = await dispatchOpenLoop({
    clock,
    entries: entries(4, 2),
    maxSendLagMs: 1000,
    maxInFlight: 1000,
    start: (e, t0) => e.request_id === "r1" ? Promise.reject(new TypeError("boom")) : Promise.resolve(row(e, "ok", t0)),
    skip: (e, o, lag) => rows.push(row(e, o, lag)),
    done: (r) => rows.push(r),
  }, counters);
  assert.equal(result.offered, 4);
  assert.deepEqual(rows.map((r) => r.request_id), ["r0", "r2", "r3"]);
  assert.equal(counters.inFlight, 0);
  assert.equal(counters.finished, 4);
});

Deno.test("the progress window's send lag is each started request's send_lag_ms (first byte written), not its dispatch lag", async () => {
  const clock = startClock();
  const counters = newCounters();
  // Each started request reports a first-byte lag of 7.5 ms + its index, whatever its lag at dispatch (≤ 1 ms).
  await dispatchOpenLoop({
    clock,
    entries: entries(3, 2),
    maxSendLagMs: 1000,
    maxInFlight: 1000,
    start: (e) => Promise.resolve(row(e, "ok", 7.5 + Number(e.request_id.slice(1)))),
    skip: () => {},
  }, counters);
  // The largest of 7.5, 8.5 and 9.5.
  assert.equal(counters.windowMaxLagMs, 9.5);
});

Deno.test("the progress window's send lag counts a request given up as not_sent at its lateness then", async () => {
  const clock = startClock();
  const counters = newCounters();
  // Scheduled at −995 ms: ~1,000 ms late at the first tick, past the 100 ms limit, so never started.
  await dispatchOpenLoop({
    clock,
    entries: [{ ...entries(1, 0)[0]!, scheduled_ms: -995 }],
    maxSendLagMs: 100,
    maxInFlight: 1000,
    start: () => Promise.reject(new Error("a not_sent request is never started")),
    skip: () => {},
  }, counters);
  assert.equal(counters.notSent, 1);
  assert.ok(counters.windowMaxLagMs >= 995 && counters.windowMaxLagMs < 2000, `${counters.windowMaxLagMs}`);
});
