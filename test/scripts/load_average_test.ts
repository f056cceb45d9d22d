import assert from "node:assert/strict";
import { load1, startLoadSampler } from "../../scripts/_load_average.ts";

Deno.test("startLoadSampler() reads the load at its start and at stop(), and states the range over its readings", () => {
  const s = startLoadSampler(60_000);
  s.stop();
  s.stop(); // a second stop reads nothing more
  if (load1() === null) {
    assert.equal(s.loads.length, 0);
    assert.equal(s.text(), "load average not available");
    return;
  }
  // One reading at the start, one at the first stop; the interval (60 s) never fired.
  assert.equal(s.loads.length, 2);
  const [lo, hi] = [Math.min(...s.loads), Math.max(...s.loads)];
  assert.equal(s.text(), `load average (1 min) ${lo.toFixed(1)}–${hi.toFixed(1)} over 2 readings`);
});
