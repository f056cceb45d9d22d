import assert from "node:assert/strict";
import { Watchdog, type Watched } from "../../runner/watchdog.ts";

const watched = (deadlines: { attempt: number; request: number }): Watched => ({
  controller: new AbortController(),
  attemptDeadlineMs: deadlines.attempt,
  requestDeadlineMs: deadlines.request,
  headersDeadlineMs: null,
  lastActivityMs: 0,
  reason: null,
});

Deno.test("the watchdog sweeps only while something is watched", async (t) => {
  await t.step("idle: no timer; one watched attempt starts it, its unwatch stops it", () => {
    const dog = new Watchdog(() => 0, 60_000, 5);
    assert.equal(dog.sweeping, false);
    const w = watched({ attempt: 1000, request: 1000 });
    dog.watch(w);
    assert.equal(dog.sweeping, true);
    dog.unwatch(w);
    assert.equal(dog.sweeping, false);
    dog.stop();
  });

  await t.step("a sweep aborts an attempt past its deadline, and with nothing left it stops", async () => {
    let now = 0;
    const dog = new Watchdog(() => now, 60_000, 5);
    const w = watched({ attempt: 30, request: 100 });
    dog.watch(w);
    now = 31; // past the attempt deadline (30), not the request's (100)
    for (let k = 0; k < 200 && w.reason === null; k++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(w.reason, "attempt_timeout");
    assert.equal(w.controller.signal.aborted, true);
    assert.equal(dog.sweeping, false);
    dog.stop();
  });

  await t.step("after stop(), watching starts no timer", () => {
    const dog = new Watchdog(() => 0, 60_000, 5);
    dog.stop();
    dog.watch(watched({ attempt: 1000, request: 1000 }));
    assert.equal(dog.sweeping, false);
  });
});
