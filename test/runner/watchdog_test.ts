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

Deno.test("the sweep is set for the earliest deadline, capped at idle_ms and kept periodMs after the last", () => {
  let now = 0;
  const dog = new Watchdog(() => now, 1000, 5);
  try {
    const full = (over: Partial<Watched>): Watched => ({ ...watched({ attempt: 1e9, request: 1e9 }), ...over });
    // No head yet: the header deadline counts; the earliest of the three deadlines is the sweep.
    const a = full({ attemptDeadlineMs: 300, requestDeadlineMs: 900, headersDeadlineMs: 200 });
    dog.watch(a);
    assert.equal(dog.nextSweepMs, 200);
    // A later attempt with an earlier deadline moves the sweep earlier; one with a later deadline does not.
    const b = full({ attemptDeadlineMs: 50, headersDeadlineMs: 400 });
    dog.watch(b);
    assert.equal(dog.nextSweepMs, 50);
    dog.watch(full({ attemptDeadlineMs: 600, headersDeadlineMs: 700 }));
    assert.equal(dog.nextSweepMs, 50);
    // The sweep at 60 aborts b and sets the next one for a's header deadline (200).
    now = 60;
    dog.sweep();
    assert.equal(b.reason, "attempt_timeout");
    assert.equal(dog.nextSweepMs, 200);
    // a's head arrives at 100: its idle limit (100 + 1000) is later than 200, so the sweep at 200 finds nothing and
    // sets the next for a's attempt deadline (300).
    a.headersDeadlineMs = null;
    a.lastActivityMs = 100;
    now = 200;
    dog.sweep();
    assert.equal(a.reason, null);
    assert.equal(dog.nextSweepMs, 300);
    // Never sooner than periodMs (5) after the last sweep (200): a deadline at 201 is swept at 205.
    dog.watch(full({ attemptDeadlineMs: 201, headersDeadlineMs: 201 }));
    assert.equal(dog.nextSweepMs, 205);
  } finally {
    dog.stop();
  }
  assert.equal(dog.nextSweepMs, Infinity);
});

Deno.test("a sweep is never later than idle_ms after it was set: a head that arrives later cannot be missed", () => {
  let now = 0;
  const dog = new Watchdog(() => now, 1000, 5);
  try {
    // Deadlines an hour away, no head yet: the sweep is set for idle_ms from now (1000), not for the hour.
    const w: Watched = { ...watched({ attempt: 3_600_000, request: 3_600_000 }), headersDeadlineMs: 3_600_000 };
    dog.watch(w);
    assert.equal(dog.nextSweepMs, 1000);
    // The head at 500, then silence: idle from 500, due at 1500; the sweep at 1000 sets the next for 1500.
    w.headersDeadlineMs = null;
    w.lastActivityMs = 500;
    now = 1000;
    dog.sweep();
    assert.equal(dog.nextSweepMs, 1500);
    now = 1500;
    dog.sweep();
    assert.equal(w.reason, "idle_timeout");
    assert.equal(dog.sweeping, false);
  } finally {
    dog.stop();
  }
});

Deno.test("the last attempt's timer is kept for the next, and never holds the process while kept", async (t) => {
  await t.step("a later attempt reuses the kept timer; an earlier one sets its own", () => {
    let now = 0;
    const dog = new Watchdog(() => now, 60_000, 5);
    try {
      const a = watched({ attempt: 1000, request: 1000 });
      dog.watch(a);
      dog.unwatch(a);
      assert.equal(dog.sweeping, false);
      assert.equal(dog.keptIdle, true);
      assert.equal(dog.nextSweepMs, 1000);
      now = 20;
      dog.watch(watched({ attempt: 1020, request: 1020 })); // due later than the kept timer: reused
      assert.equal(dog.sweeping, true);
      assert.equal(dog.keptIdle, false);
      assert.equal(dog.nextSweepMs, 1000);
      dog.watch(watched({ attempt: 500, request: 500 })); // due earlier: the timer is set again
      assert.equal(dog.nextSweepMs, 500);
    } finally {
      dog.stop();
    }
    assert.equal(dog.keptIdle, false);
  });

  await t.step("a kept timer that fires with nothing watched is not set again", async () => {
    const dog = new Watchdog(() => performance.now(), 60_000, 5);
    try {
      const w = watched({ attempt: performance.now() + 30, request: 1e12 });
      dog.watch(w);
      dog.unwatch(w);
      assert.equal(dog.keptIdle, true);
      for (let k = 0; k < 200 && dog.keptIdle; k++) await new Promise((r) => setTimeout(r, 5));
      assert.equal(dog.keptIdle, false);
      assert.equal(dog.sweeping, false);
      assert.equal(dog.nextSweepMs, Infinity);
      assert.equal(w.reason, null); // no longer watched: not aborted
    } finally {
      dog.stop();
    }
  });

  // In a process of its own: what holds Deno's event loop is what is tested.
  const child = async (code: string) => {
    const mod = new URL("../../runner/watchdog.ts", import.meta.url).href;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["eval", `import { Watchdog } from ${JSON.stringify(mod)};\n${code}`],
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(30_000),
    }).output();
    return { code: out.code, stdout: new TextDecoder().decode(out.stdout).trim() };
  };

  await t.step("a run whose last attempt ended exits without waiting for the kept timer", async () => {
    // The kept timer is due in 5 s. A process it held would live to sweep, and the sweep reads the clock: "swept".
    const r = await child(`
      let ended = false;
      const dog = new Watchdog(() => {
        if (ended) console.log("swept");
        return performance.now();
      }, 5_000, 5);
      const w = { controller: new AbortController(), attemptDeadlineMs: 5_000, requestDeadlineMs: 5_000,
        headersDeadlineMs: null, lastActivityMs: 0, reason: null };
      dog.watch(w);
      dog.unwatch(w);
      ended = true;
      console.log(dog.keptIdle ? "kept" : "not kept");`);
    assert.equal(r.stdout, "kept");
    assert.equal(r.code, 0);
  });

  await t.step("an attempt that reuses the kept timer is held and swept by it", async () => {
    // Nothing but the watchdog's timer keeps this process alive until the second attempt is aborted.
    const r = await child(`
      const dog = new Watchdog(() => performance.now(), 60_000, 5);
      const mk = (deadline) => ({ controller: new AbortController(), attemptDeadlineMs: deadline,
        requestDeadlineMs: 1e12, headersDeadlineMs: null, lastActivityMs: 0, reason: null });
      const a = mk(performance.now() + 200);
      dog.watch(a);
      dog.unwatch(a);
      const b = mk(performance.now() + 400);
      dog.watch(b);
      // No top-level await: a pending one keeps Deno running on an unreferenced timer too.
      b.controller.signal.addEventListener("abort", () => {
        console.log(b.reason);
        dog.stop();
      });`);
    assert.equal(r.stdout, "attempt_timeout");
    assert.equal(r.code, 0);
  });
});
