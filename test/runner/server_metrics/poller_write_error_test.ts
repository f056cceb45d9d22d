import assert from "node:assert/strict";
import { detectServerMetrics } from "../../../runner/server_metrics/detect.ts";
import { pollOnce } from "../../../runner/server_metrics/poller.ts";
import type { CsvSink } from "../../../runner/sinks/csv_sink.ts";
import { LogWriteError } from "../../../runner/sinks/log_write_error.ts";
import { startClock } from "../../../runner/clock.ts";
import { llamacppMetrics, startFakeEngine } from "../../support/fake_engine.ts";

/** A server.csv on a full disk: every flush fails with ENOSPC, as the sink throws it. */
function fullSink(): { sink: CsvSink<"server">; appended: number } {
  const state = { appended: 0, sink: null as unknown as CsvSink<"server"> };
  state.sink = {
    append: () => void state.appended++,
    flush: () => {
      throw new LogWriteError(
        "run/server.csv",
        Object.assign(new Error("No space left on device"), { code: "ENOSPC" }),
      );
    },
  } as unknown as CsvSink<"server">;
  return state;
}

Deno.test("a poll whose server.csv write fails tells the run (which stops on it), never an unhandled rejection", async () => {
  const engine = await startFakeEngine({ metrics: () => llamacppMetrics(2, 1) });
  try {
    const url = new URL(`${engine.url}/v1/chat/completions`);
    const { polled } = await detectServerMetrics([{ route: "r", url }], "llamacpp", { note: () => {} });
    assert.equal(polled.length, 1);
    const told: LogWriteError[] = [];
    const full = fullSink();
    const o = { clock: startClock(), runId: "run", sink: full.sink, timeoutMs: 2000 };
    await pollOnce(polled[0]!, { ...o, onWriteError: (e) => told.push(e) });
    assert.equal(full.appended, 1);
    assert.deepEqual(told.map((e) => [e.path, e.code]), [["run/server.csv", "ENOSPC"]]);
    // Without a listener the error is the caller's, as before.
    await assert.rejects(pollOnce(polled[0]!, o), LogWriteError);
  } finally {
    await engine.close();
  }
});
