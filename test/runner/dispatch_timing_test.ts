/**
 * The dispatcher's waiting, on a fake clock and fake timers: it never starts a request early, it
 * polls (event-loop turns) only within `spinMaxMs` of a due time, and one wake-up starts every
 * request already due, in schedule order.
 */
import assert from "node:assert/strict";
import type { RequestRow, ScheduledRequest } from "../../schema/mod.ts";
import type { Clock } from "../../runner/clock.ts";
import { dispatchOpenLoop } from "../../runner/dispatch.ts";
import { ReadHook } from "../../runner/http/client.ts";
import { coalescedTimers, type DispatchTimers, type DispatchWait, POLLING_WAIT } from "../../runner/dispatch_timers.ts";

/**
 * A fake run clock and fake timers on it. `after(ms)` fires `ms + lateness(k)` later (k: the k-th call);
 * `turn` costs `turnMs` of clock time (an event-loop turn). Callbacks run in time order; between two
 * the microtasks run (the dispatcher's `.then`s).
 */
class FakeTime implements Clock, DispatchTimers {
  readonly epochUnixMs = 0;
  t = 0;
  /** Clock reads so far. */
  reads = 0;
  /** Callbacks run so far (each one a wake-up of the loop). */
  wakes = 0;
  afterCalls = 0;
  turns = 0;
  readonly #queue: { at: number; seq: number; fn: () => void; live: boolean }[] = [];
  #seq = 0;

  constructor(readonly o: { turnMs: number; lateness: (k: number) => number }) {}

  now = (): number => {
    this.reads++;
    return this.t;
  };

  after(ms: number, fn: () => void): () => void {
    const item = {
      at: this.t + Math.max(0, ms) + this.o.lateness(this.afterCalls++),
      seq: this.#seq++,
      fn,
      live: true,
    };
    this.#queue.push(item);
    return () => item.live = false;
  }

  turn(fn: () => void): void {
    this.turns++;
    this.#queue.push({ at: this.t + this.o.turnMs, seq: this.#seq++, fn, live: true });
  }

  /** Runs callbacks in time order until none is left (or `limit` ran: a loop that never ends fails). */
  async run(limit = 1_000_000): Promise<void> {
    for (let n = 0; n < limit; n++) {
      for (let k = 0; k < 8; k++) await Promise.resolve();
      this.#queue.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.#queue.shift();
      if (!next) return;
      if (!next.live) continue;
      this.t = Math.max(this.t, next.at);
      this.wakes++;
      next.fn();
    }
    throw new Error(`more than ${limit} callbacks`);
  }

  get pending(): number {
    return this.#queue.filter((q) => q.live).length;
  }
}

const entry = (i: number, ms: number): ScheduledRequest => ({
  request_id: `r${i}`,
  scheduled_ms: ms,
  case_id: "c",
  class: "qa",
  stage: "s",
  shard: 0,
});

/** Every start: request, clock time, the wake-up it happened in, and the loop's polls since the one before. */
interface Start {
  id: string;
  scheduled: number;
  at: number;
  wake: number;
  polls: number;
}

/** Runs `times` through the dispatcher on `fake`; returns every start in start order. */
async function dispatchOnFake(fake: FakeTime, times: number[], wait: DispatchWait): Promise<Start[]> {
  const starts: Start[] = [];
  let turnsAtLast = 0;
  const done = dispatchOpenLoop({
    clock: fake,
    timers: fake,
    wait,
    entries: times.map((ms, i) => entry(i, ms)),
    maxSendLagMs: 1e9,
    maxInFlight: 1e9,
    start: (e, startedMs) => {
      // Turns taken since the previous start, less the one that found this request due.
      starts.push({
        id: e.request_id,
        scheduled: e.scheduled_ms,
        at: startedMs,
        wake: fake.wakes,
        polls: Math.max(0, fake.turns - turnsAtLast - 1),
      });
      turnsAtLast = fake.turns;
      return Promise.resolve({ request_id: e.request_id, outcome: "ok" } as RequestRow);
    },
    skip: () => assert.fail("nothing is skipped"),
  });
  await fake.run();
  await done;
  return starts;
}

/** A seeded xorshift in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

Deno.test("the dispatcher sleeps between due times and polls only within spinMaxMs of one", async (t) => {
  await t.step("never early, and at most spinMaxMs / turn + 1 polls before any due time", async () => {
    const r = rng(7);
    // 300 arrivals with gaps of 0–20 ms; timers 0–2 ms late; a turn costs 0.01 ms.
    const times: number[] = [];
    for (let i = 0, ms = 5; i < 300; i++, ms += r() * 20) times.push(ms);
    const fake = new FakeTime({ turnMs: 0.01, lateness: () => r() * 2 });
    const starts = await dispatchOnFake(fake, times, { leadMs: 0.3, spinMaxMs: 0.3 });
    assert.equal(starts.length, 300);
    assert.deepEqual(starts.map((s) => s.id), times.map((_, i) => `r${i}`), "schedule order");
    for (const s of starts) assert.ok(s.at >= s.scheduled, `${s.id} started at ${s.at}, due ${s.scheduled}`);
    // Polling starts at most 0.3 ms before a due time and each turn moves the clock 0.01 ms: 0.3 / 0.01 = 30 polls,
    // + 1 for a due time that is not a whole number of turns away.
    const most = Math.max(...starts.map((s) => s.polls));
    assert.ok(most <= 31, `${most} polls before one due time`);
    // No request waited for a poll that was not needed: the polls over the run stay under 31 per request.
    assert.ok(fake.turns <= 300 * 32, `${fake.turns} turns for 300 requests`);
  });

  await t.step("spinShare: a due time's lead and polling are at most that share of the time before it", async () => {
    // Due times 2 ms apart, then 40 ms apart; timers on time; a turn costs 1/64 ms; binary fractions throughout, so
    // that the fake clock's sums are exact.
    const times = [2, 4, 6, 46, 86];
    const fake = new FakeTime({ turnMs: 1 / 64, lateness: () => 0 });
    const starts = await dispatchOnFake(fake, times, { leadMs: 0.25, spinMaxMs: 0.25, spinShare: 1 / 32 });
    assert.deepEqual(starts.map((s) => s.at), times, "never early, and never late with timers on time");
    // 2 ms ahead: 2 / 32 = 1/16 ms of lead and polling, 4 turns (3 polls, then the turn that finds it due); 40 ms
    // ahead: the 0.25 ms bound, 16 turns. Without spinShare every due time would take 16.
    assert.deepEqual(starts.map((s) => s.polls), [3, 3, 3, 15, 15]);
  });

  await t.step(
    "a due time already past when first seen (starting a request took time) starts on the next turn",
    async () => {
      for (const wait of [{ leadMs: 0.25, spinMaxMs: 0.25 }, { leadMs: 0.25, spinMaxMs: 0.25, spinShare: 1 / 32 }]) {
        const fake = new FakeTime({ turnMs: 1 / 64, lateness: () => 0 });
        const starts: number[] = [];
        const done = dispatchOpenLoop({
          clock: fake,
          timers: fake,
          wait,
          entries: [1, 1.5, 4 + 1 / 64].map((ms, i) => entry(i, ms)),
          maxSendLagMs: 1e9,
          maxInFlight: 1e9,
          start: (_e, startedMs) => {
            starts.push(startedMs);
            fake.t += 1; // starting it took 1 ms: the next due time is past when the loop looks at it
            return Promise.resolve({ outcome: "ok" } as RequestRow);
          },
          skip: () => assert.fail("nothing is skipped"),
        });
        await fake.run(10_000);
        await done;
        // r1 due at 1.5 and seen at 2: the next turn (2 + 1/64); r2 seen 1 ms ahead (1/32 ms of polling with spinShare).
        assert.deepEqual(starts, [1, 2 + 1 / 64, 4 + 1 / 64], JSON.stringify(wait));
      }
    },
  );

  await t.step("spinMaxMs 0 never polls: each wake-up comes from a timer and finds its request due", async () => {
    const times = [3, 10, 10.2, 25, 40];
    // Timers exactly on time (lateness 0) with a lead of 0: each fires at the due time.
    const fake = new FakeTime({ turnMs: 0.01, lateness: () => 0 });
    const starts = await dispatchOnFake(fake, times, { leadMs: 0, spinMaxMs: 0 });
    assert.deepEqual(starts.map((s) => s.at), [3, 10, 10.2, 25, 40]);
    assert.deepEqual(starts.map((s) => s.polls), [0, 0, 0, 0, 0]);
    // 3, 10, 10.2, 25, 40: five timers (one each), no turns at all.
    assert.equal(fake.afterCalls, 5);
    assert.equal(fake.turns, 0);
  });

  await t.step("the polling loop of before (POLLING_WAIT) polls for 8 ms before every due time", async () => {
    // The contrast that makes the bound above mean something: gaps of 20 ms, timers on time, turns of 0.01 ms.
    const fake = new FakeTime({ turnMs: 0.01, lateness: () => 0 });
    const starts = await dispatchOnFake(fake, [20, 40, 60], POLLING_WAIT);
    // Woken 8 ms early, it polls 8 / 0.01 = 800 turns (±1 for float steps) before each due time.
    for (const s of starts.slice(1)) assert.ok(Math.abs(s.polls - 800) <= 1, `${s.polls} polls`);
  });

  await t.step("clock reads while waiting: one timer wake-up, then one read per poll", async () => {
    // One request at 100 ms; timer on time; lead 0.3, spin 0.3, turns 0.01 ms.
    const fake = new FakeTime({ turnMs: 0.01, lateness: () => 0 });
    const starts = await dispatchOnFake(fake, [100], { leadMs: 0.3, spinMaxMs: 0.3 });
    // Asked at 0 to fire at 100 − 0.3 = 99.7; there 0.3 ms are left: 30 turns of 0.01 ms, the 30th finds it due.
    assert.equal(fake.afterCalls, 1);
    assert.ok(Math.abs(starts[0]!.polls - 29) <= 1, `${starts[0]!.polls} polls`);
    assert.ok(starts[0]!.at >= 100 && starts[0]!.at < 100.02, `started at ${starts[0]!.at}`);
    // A tick that starts nothing reads the clock once: the first at 0, the timer's at 99.7, 29 ± 1 polls, and the
    // tick that starts the request (one read before, one after): 1 + 1 + 30 + 2 = 34 at most.
    assert.ok(fake.reads <= 34, `${fake.reads} clock reads`);
  });
});

Deno.test("one wake-up starts every request already due, in schedule order", async (t) => {
  await t.step("a timer 3 ms late finds six requests due and starts them in one wake-up", async () => {
    // Ten requests 0.5 ms apart from 10 ms: 10, 10.5, …, 14.5. Lead 0.3, no polling, every timer 3 ms late.
    const times = Array.from({ length: 10 }, (_, i) => 10 + i * 0.5);
    const fake = new FakeTime({ turnMs: 0.01, lateness: () => 3 });
    const starts = await dispatchOnFake(fake, times, { leadMs: 0.3, spinMaxMs: 0 });
    // Wake 1: asked at 0 for 10 − 0.3 = 9.7, fires at 9.7 + 3 = 12.7: due are 10 … 12.5, six requests.
    // Wake 2: next due 13 is 0.3 away, asked for 0.3 − 0.3 = 0, fires at 12.7 + 3 = 15.7: 13 … 14.5, four.
    const byWake = Map.groupBy(starts, (s) => s.wake);
    assert.deepEqual([...byWake.values()].map((b) => b.length), [6, 4]);
    assert.deepEqual([...byWake.values()].map((b) => b[0]!.at), [12.7, 15.7]);
    assert.deepEqual(starts.map((s) => s.id), times.map((_, i) => `r${i}`));
    // The send lags of the first batch: 12.7 − 10 = 2.7, then 2.2, 1.7, 1.2, 0.7, 0.2.
    assert.deepEqual(byWake.get(starts[0]!.wake)!.map((s) => +(s.at - s.scheduled).toFixed(9)), [
      2.7,
      2.2,
      1.7,
      1.2,
      0.7,
      0.2,
    ]);
  });

  await t.step("a timer that fires early sleeps again instead of polling the rest", async () => {
    // One request at 50 ms; the first timer fires 20 ms early (at 29.7), the next one on time.
    const fake = new FakeTime({ turnMs: 0.01, lateness: (k) => k === 0 ? -20 : 0 });
    const starts = await dispatchOnFake(fake, [50], { leadMs: 0.3, spinMaxMs: 0.3 });
    // At 29.7, 20.3 ms remain (> 0.3): a second timer for 20.3 − 0.3 = 20 ms, at 49.7; then ≤ 30 polls.
    assert.equal(fake.afterCalls, 2);
    assert.ok(starts[0]!.polls <= 31);
    assert.ok(starts[0]!.at >= 50);
  });
});

Deno.test("a stop during a long sleep cancels the sleep and ends the loop at once", async () => {
  const fake = new FakeTime({ turnMs: 0.01, lateness: () => 0 });
  const stop = new AbortController();
  const skipped: string[] = [];
  const done = dispatchOpenLoop({
    clock: fake,
    timers: fake,
    wait: { leadMs: 0.3, spinMaxMs: 0.3 },
    entries: [entry(0, 1000), entry(1, 2000)],
    maxSendLagMs: 1e9,
    maxInFlight: 1e9,
    start: () => assert.fail("nothing starts"),
    skip: (e, outcome, _lag, reason) => skipped.push(`${e.request_id} ${outcome} ${reason}`),
    signal: stop.signal,
  });
  // The loop is asleep until 999.7; the stop comes first.
  assert.equal(fake.pending, 1);
  stop.abort();
  await fake.run();
  await done;
  assert.deepEqual(skipped, ["r0 not_sent run_stopped", "r1 not_sent run_stopped"]);
  // The stop ran on the next turn (0.01 ms), not when the cancelled timer would have fired.
  assert.ok(fake.t < 1, `ended at ${fake.t} ms`);
  assert.equal(fake.pending, 0);
});

/**
 * The dispatcher on `fake` with the clients' reads: every request stays in flight until 100 ms (answers are being read
 * all along), a read comes at each of `readsAt`, and the backstop timer is 1.5 ms late (as setTimeout is here) while
 * the loop's own timers are on time. Returns each start: the request, its instant, and the turns and timers so far.
 */
async function dispatchWithReads(
  fake: FakeTime,
  o: { wait: DispatchWait; times: number[]; readsAt: number[] },
): Promise<{ id: string; at: number; turns: number; timers: number }[]> {
  const backstop: DispatchTimers = { after: (ms, fn) => fake.after(ms + 1.5, fn), turn: (fn) => fake.turn(fn) };
  const reads = new ReadHook();
  const starts: { id: string; at: number; turns: number; timers: number }[] = [];
  const finishAll: (() => void)[] = [];
  const done = dispatchOpenLoop({
    clock: fake,
    timers: fake,
    backstop,
    reads,
    wait: o.wait,
    entries: o.times.map((ms, i) => entry(i, ms)),
    maxSendLagMs: 1e9,
    maxInFlight: 1e9,
    start: (e, startedMs) => {
      starts.push({ id: e.request_id, at: startedMs, turns: fake.turns, timers: fake.afterCalls });
      return new Promise<RequestRow>((r) => finishAll.push(() => r({ request_id: e.request_id } as RequestRow)));
    },
    skip: () => assert.fail("nothing is skipped"),
  });
  assert.notEqual(reads.fn, null, "the loop listens to reads while it runs");
  for (const at of o.readsAt) fake.after(at, () => reads.fn?.(fake.t));
  fake.after(100, () => finishAll.forEach((f) => f()));
  await fake.run();
  await done;
  assert.equal(reads.fn, null, "and stops listening when it ends");
  return starts;
}

Deno.test("while answers are read, reads start what is due and the backstop what no read reached", async () => {
  // Times, lead and turns in binary fractions, so that the fake clock's sums are exact.
  const fake = new FakeTime({ turnMs: 0.125, lateness: () => 0 });
  // Reads at 10.1875 and 11 (answers of the requests in flight), one at 12 while the loop sleeps toward 20.
  const starts = await dispatchWithReads(fake, {
    wait: { leadMs: 0.25, spinMaxMs: 0.25 },
    times: [10, 10.125, 10.25, 10.375, 20, 30, 30.125],
    readsAt: [10.1875, 11, 12],
  });
  assert.deepEqual(starts.map((s) => [s.id, s.at]), [
    ["r0", 10], // nothing in flight yet: its timer, then polls up to its due time, as before
    ["r1", 10.1875], // due at 10.125, right after r0 started: started by the read at 10.1875
    ["r2", 11], // due at 10.25: no read until 11 (the backstop was set for 10.1875 + 0.0625 + 1.5 = 11.75)
    ["r3", 11], // due at 10.375: already due at that read, started in the same wake-up
    ["r4", 20], // far ahead: the loop's own timer and polls; the read at 12 started nothing
    ["r5", 30],
    ["r6", 31.625], // due at 30.125 right after r5, no read came: the backstop, 0.125 + 1.5 ms after 30
  ]);
  // No polling while waiting on reads: the turns counted at r1, r2 and r3 are the two taken before r0 started.
  assert.deepEqual(starts.slice(0, 4).map((s) => s.turns), [2, 2, 2, 2]);
});

Deno.test("reads are waited on up to readsMaxMs, past the polling bound; beyond it the loop sleeps", async () => {
  const fake = new FakeTime({ turnMs: 0.125, lateness: () => 0 });
  // A read at 10.3125, after r1 is due; the read at 10.875 comes too late for r2, which the loop sleeps toward.
  const starts = await dispatchWithReads(fake, {
    wait: { leadMs: 0.125, spinMaxMs: 0.125, readsMaxMs: 0.375 },
    times: [10, 10.25, 10.75],
    readsAt: [10.3125, 10.875],
  });
  assert.deepEqual(starts.map((s) => [s.id, s.at]), [
    ["r0", 10], // its timer 0.125 ms early, then one poll
    ["r1", 10.3125], // due 0.25 ms after r0 started: past the polling bound, within readsMaxMs: the read started it
    ["r2", 10.75], // due 0.4375 ms after r1 started: past readsMaxMs, so the loop's timer and a poll, not the reads
  ]);
  // Between r0 and r1 no poll; between r1 and r2 one (after the timer woke the loop 0.125 ms early).
  assert.equal(starts[1]!.turns, starts[0]!.turns);
  assert.equal(starts[2]!.turns, starts[1]!.turns + 1);
  assert.ok(starts[2]!.timers > starts[1]!.timers, "r2 was slept toward on the loop's timer");
});

Deno.test("coalescedTimers: a later due time keeps the armed timer; a callback runs no earlier than its time, no later than base would", async () => {
  const fake = new FakeTime({ turnMs: 0.125, lateness: () => 0 });
  let baseCalls = 0;
  // The base timer fires 1.5 ms late, as setTimeout does here; the test's own steps (fake.after) are on time.
  const base: DispatchTimers = {
    after: (ms, fn) => (baseCalls++, fake.after(ms + 1.5, fn)),
    turn: (fn) => fake.turn(fn),
  };
  const timers = coalescedTimers(base, () => fake.t);
  const ran: [string, number][] = [];
  const cb = (name: string) => () => ran.push([name, fake.t]);
  const at = (t: number, step: () => void) => fake.after(t, step);
  let cancel: () => void = () => {};
  let baseCallsAt2_75 = -1;
  // 0–0.5: three backstops, each replacing the last and due later: base is armed once, for the first (1, fires 2.5).
  at(0, () => cancel = timers.after(1, cb("a")));
  at(0.25, () => (cancel(), cancel = timers.after(1, cb("b"))));
  at(0.5, () => (cancel(), cancel = timers.after(1, cb("c"))));
  at(2.75, () => baseCallsAt2_75 = baseCalls);
  // 3: one due at 8; at 4 one due at 4.5 replaces it: base is armed again, earlier.
  at(3, () => timers.after(5, cb("d")));
  at(4, () => timers.after(0.5, cb("e")));
  // 10: due at 11; at 10.5 one due at 13.5 keeps the timer armed for 11, which then arms again for 13.5.
  at(10, () => timers.after(1, cb("f")));
  at(10.5, () => timers.after(3, cb("g")));
  // 20: cancelled before it is due: the armed timer fires and runs nothing.
  at(20, () => cancel = timers.after(1, cb("h")));
  at(20.5, () => cancel());
  // 30: a cancel of an earlier call does not cancel the later one.
  at(30, () => cancel = timers.after(1, cb("i")));
  at(30.25, () => {
    const stale = cancel;
    timers.after(1, cb("j"));
    stale();
  });
  await fake.run();
  assert.deepEqual(ran, [
    ["c", 2.5], // due at 1.5; base alone would have run it at 3.0
    ["e", 6], // 4.5 + 1.5
    ["g", 15], // the timer armed for 11 fired at 12.5, before 13.5: armed again, 13.5 + 1.5
    ["j", 32.5], // due at 31.25, the timer armed for 31 fired at 32.5
  ]);
  assert.equal(baseCallsAt2_75, 1, "three backstops, one base timer");
  // a; d, then e (earlier); f, then g's re-arm; h; i.
  assert.equal(baseCalls, 7);
});
