import assert from "node:assert/strict";
import { watchAbort } from "../../../runner/http/abort_watch.ts";

Deno.test("watchAbort calls each watcher of a signal once when it aborts, and none it stopped watching", () => {
  const c = new AbortController();
  const calls: string[] = [];
  const stopA = watchAbort(c.signal, () => calls.push("a"));
  watchAbort(c.signal, () => calls.push("b"));
  const stopC = watchAbort(c.signal, () => calls.push("c"));
  stopC();
  stopC(); // twice: still nothing
  c.abort();
  c.abort(); // a signal aborts once
  c.signal.dispatchEvent(new Event("abort")); // a second event reaches nobody: the watchers were cleared
  assert.deepEqual(calls, ["a", "b"]);
  stopA(); // after the abort: nothing to stop, nothing thrown
});

Deno.test("watchAbort keeps the watchers of different signals apart, and adds no listener per watcher", () => {
  const one = new AbortController();
  const two = new AbortController();
  let listeners = 0;
  const add = two.signal.addEventListener.bind(two.signal);
  two.signal.addEventListener = ((...args: Parameters<typeof add>) => {
    listeners++;
    return add(...args);
  }) as typeof add;
  const calls: number[] = [];
  watchAbort(one.signal, () => calls.push(1));
  for (let i = 0; i < 100; i++) watchAbort(two.signal, () => calls.push(2));
  assert.equal(listeners, 1);
  one.abort();
  assert.deepEqual(calls, [1]);
  two.abort();
  assert.equal(calls.length, 101);
});

Deno.test("watchAbort runs every watcher of the abort even when one stops watching another", () => {
  const c = new AbortController();
  const calls: string[] = [];
  let stopB = () => {};
  watchAbort(c.signal, () => {
    calls.push("a");
    stopB();
  });
  stopB = watchAbort(c.signal, () => calls.push("b"));
  c.abort();
  assert.deepEqual(calls, ["a", "b"]);
});
