import assert from "node:assert/strict";
import { timeoutTimers, WakerTimers } from "../../runner/dispatch_timers.ts";

Deno.test("WakerTimers: a thread that wakes the event loop at the armed time", async (t) => {
  const waker = await WakerTimers.start();
  try {
    await t.step("after(ms) fires once, never before ms", async () => {
      for (const ms of [0, 1, 5, 20]) {
        const t0 = performance.now();
        const fired = await new Promise<number>((r) => waker.after(ms, () => r(performance.now())));
        assert.ok(fired - t0 >= ms, `after(${ms}) fired at +${(fired - t0).toFixed(3)} ms`);
      }
    });

    await t.step("a cancelled arming never fires; a new one replaces the last", async () => {
      const calls: string[] = [];
      const cancel = waker.after(5, () => calls.push("cancelled"));
      cancel();
      waker.after(10, () => calls.push("replaced"));
      await new Promise<void>((r) => waker.after(15, () => (calls.push("last"), r())));
      // Give a stray wake-up of the first two time to arrive (it must not).
      await new Promise((r) => setTimeout(r, 30));
      assert.deepEqual(calls, ["last"]);
    });

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
