import assert from "node:assert/strict";
import { timeoutTimers, WakerTimers } from "../../runner/dispatch_timers.ts";

/** `p`, or a failure naming `what` after 2 s (a wake-up that never comes fails the test instead of hanging it). */
async function within<T>(p: Promise<T>, what: string): Promise<T> {
  let id: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    id = setTimeout(() => reject(new Error(`${what}: no wake-up within 2 s`)), 2000);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(id);
  }
}

Deno.test("WakerTimers: a thread that wakes the event loop at the armed time", async (t) => {
  const waker = await WakerTimers.start();
  try {
    await t.step("after(ms) fires once, never before ms", async () => {
      for (const ms of [0, 1, 5, 20]) {
        const t0 = performance.now();
        const fired = await within(
          new Promise<number>((r) => waker.after(ms, () => r(performance.now()))),
          `after(${ms})`,
        );
        assert.ok(fired - t0 >= ms, `after(${ms}) fired at +${(fired - t0).toFixed(3)} ms`);
      }
    });

    await t.step("a cancelled arming never fires; a new one replaces the last", async () => {
      const calls: string[] = [];
      const cancel = waker.after(5, () => calls.push("cancelled"));
      cancel();
      waker.after(10, () => calls.push("replaced"));
      await within(new Promise<void>((r) => waker.after(15, () => (calls.push("last"), r()))), "the last arming");
      // Give a stray wake-up of the first two time to arrive (it must not).
      await new Promise((r) => setTimeout(r, 30));
      assert.deepEqual(calls, ["last"]);
    });

    await t.step(
      "200 armings in a row each fire once, in order, never early (the main thread waits again after each)",
      async () => {
        const fired: number[] = [];
        for (let k = 0; k < 200; k++) {
          const ms = k % 3;
          const t0 = performance.now();
          const at = await within(
            new Promise<number>((r) => waker.after(ms, () => (fired.push(k), r(performance.now())))),
            `arming ${k}`,
          );
          assert.ok(at - t0 >= ms, `arming ${k}: after(${ms}) fired at +${(at - t0).toFixed(3)} ms`);
        }
        assert.deepEqual(fired, Array.from({ length: 200 }, (_, k) => k));
      },
    );

    await t.step(
      "re-armed while the thread sleeps toward an earlier time: only the last runs, at its own time",
      async () => {
        const calls: number[] = [];
        const t0 = performance.now();
        // Each arming replaces the one before; the thread may already be asleep toward an earlier one's time.
        for (let k = 0; k < 20; k++) waker.after(1 + (k % 4), () => calls.push(k));
        const at = await within(
          new Promise<number>((r) => waker.after(25, () => (calls.push(99), r(performance.now())))),
          "the last arming",
        );
        await new Promise((r) => setTimeout(r, 20));
        assert.deepEqual(calls, [99]);
        assert.ok(at - t0 >= 25, `fired at +${(at - t0).toFixed(3)} ms`);
      },
    );

    await t.step("turn() runs on a later turn of the event loop", async () => {
      let ran = false;
      const p = new Promise<void>((r) => waker.turn(() => (ran = true, r())));
      assert.equal(ran, false);
      await p;
      assert.equal(ran, true);
    });
  } finally {
    waker.close();
  }
  await t.step("after close(), arming throws and the pending wake-up never comes", () => {
    assert.throws(() => waker.after(1, () => {}), /closed/);
  });
});

Deno.test("timeoutTimers: after() never fires before ms, and its cancel holds", async () => {
  const timers = timeoutTimers();
  const t0 = performance.now();
  const fired = await new Promise<number>((r) => timers.after(3, () => r(performance.now())));
  assert.ok(fired - t0 >= 3);
  let late = false;
  timers.after(1, () => late = true)();
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(late, false);
});
