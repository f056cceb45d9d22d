import assert from "node:assert/strict";
import type { RunResult } from "../../../runner/run.ts";
import { linkToParent, WorkerAborted, type WorkerIo } from "../../../runner/workers/worker_link.ts";
import { EndMessage, ProgressMessage, ReadyMessage } from "../../../runner/workers/protocol.ts";

/** A parent on the other end of in-memory pipes: what the worker wrote, and a way to write to it. */
function fakeParent(o: { failWrites?: boolean } = {}) {
  const enc = new TextEncoder();
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const input = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
  const written: unknown[] = [];
  const warnings: string[] = [];
  const io: WorkerIo = {
    input,
    write(line) {
      if (o.failWrites) throw new Error("Broken pipe");
      assert.ok(line.endsWith("\n"), "one message per line");
      written.push(JSON.parse(line));
    },
    warn: (m) => void warnings.push(m),
  };
  return {
    io,
    written,
    warnings,
    say: (line: string) => feed.enqueue(enc.encode(line)),
    close: () => feed.close(),
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("linkToParent()", async (t) => {
  await t.step("announces the prepared run and waits for the parent's start time", async () => {
    const p = fakeParent();
    const link = linkToParent(p.io);
    const gate = link.options.startGate({ dir: "/runs/x/shard-1-of-2", scheduled: 20 });
    assert.deepEqual(p.written, [ReadyMessage.parse({ type: "ready", dir: "/runs/x/shard-1-of-2", scheduled: 20 })]);
    // The start line may arrive split across reads.
    p.say('{"type":"start","start_at":"2026-12-01T');
    p.say('12:00:00.500Z"}\n');
    assert.equal(await gate, "2026-12-01T12:00:00.500Z");
    p.close();
  });

  await t.step("an abort from the parent rejects the gate: the run is never started", async () => {
    const p = fakeParent();
    const link = linkToParent(p.io);
    p.say('{"type":"abort","reason":"worker 0 (shard-0-of-2) failed before the start"}\n');
    await tick();
    await assert.rejects(
      link.options.startGate({ dir: "d", scheduled: 1 }),
      (e) => e instanceof WorkerAborted && e.message === "not started: worker 0 (shard-0-of-2) failed before the start",
    );
    assert.equal(link.options.signal.aborted, false);
    p.close();
  });

  await t.step("a parent gone before the start rejects the gate", async () => {
    const p = fakeParent();
    const link = linkToParent(p.io);
    const gate = link.options.startGate({ dir: "d", scheduled: 1 });
    p.close();
    await assert.rejects(
      gate,
      (e) => e instanceof WorkerAborted && /gone \(its end of the pipe closed\)/.test(e.message),
    );
  });

  await t.step("a parent gone after the start stops the run as a signal would, and says so", async () => {
    const p = fakeParent();
    const link = linkToParent(p.io);
    const gate = link.options.startGate({ dir: "d", scheduled: 1 });
    p.say('{"type":"start","start_at":"2026-12-01T12:00:00.000Z"}\n');
    await gate;
    assert.equal(link.options.signal.aborted, false);
    p.close();
    await tick();
    assert.equal(link.options.signal.aborted, true);
    assert.match(p.warnings.join("\n"), /parent of --workers is gone .*: stopping; the rest of the schedule/);
  });

  await t.step("a failed write stops the run after the start, and rejects the gate before it", async () => {
    const p = fakeParent();
    let broken = false;
    const link = linkToParent({
      ...p.io,
      write: (l) => {
        if (broken) throw new Error("Broken pipe (os error 32)");
        p.io.write(l);
      },
    });
    const gate = link.options.startGate({ dir: "d", scheduled: 1 });
    p.say('{"type":"start","start_at":"2026-12-01T12:00:00.000Z"}\n');
    await gate;
    broken = true;
    link.options.onProgress({
      t_s: 1,
      offered: 0,
      total: 1,
      in_flight: 0,
      done: 0,
      ok: 0,
      rejected: 0,
      errors: 0,
      not_sent: 0,
      shed: 0,
      lag_max_ms: 0,
    });
    assert.equal(link.options.signal.aborted, true);
    assert.match(p.warnings.join("\n"), /writing to it failed: Broken pipe/);
    // Before the start: its ready line cannot be written, so the run is never started.
    const gone = fakeParent({ failWrites: true });
    const early = linkToParent(gone.io);
    await assert.rejects(early.options.startGate({ dir: "d", scheduled: 1 }), WorkerAborted);
    gone.close();
    p.close();
  });

  await t.step("a line that is not a message is named, not obeyed", async () => {
    const p = fakeParent();
    const link = linkToParent(p.io);
    const gate = link.options.startGate({ dir: "d", scheduled: 1 });
    p.say('{"type":"start","start_at":"yesterday"}\n');
    p.say('{"type":"start","start_at":"2026-12-01T12:00:00.000Z"}\n');
    assert.equal(await gate, "2026-12-01T12:00:00.000Z");
    assert.deepEqual(p.warnings, [
      'warning: not a message from the parent of --workers: "{\\"type\\":\\"start\\",\\"start_at\\":\\"yesterday\\"}"',
    ]);
    p.close();
  });

  await t.step("progress and the end go to the parent as messages", () => {
    const p = fakeParent();
    const link = linkToParent(p.io);
    const snapshot = {
      t_s: 1,
      offered: 5,
      total: 10,
      in_flight: 1,
      done: 4,
      ok: 4,
      rejected: 0,
      errors: 0,
      not_sent: 0,
      shed: 0,
      lag_max_ms: 0.3,
    };
    link.options.onProgress(snapshot);
    const result = {
      status: "complete",
      offered: 10,
      not_sent: 1,
      client_shed: 0,
      send_lag_p99_ms: 0.8,
      send_lag_max_ms: 1.2,
      client_limited: true,
      client_limit_reason: "1 request not_sent",
      runner_cpu_ms: 120,
    };
    link.end({
      dir: "/runs/x/shard-0-of-2",
      manifest: {
        epoch_iso: "2026-12-01T12:00:00.004Z",
        plan: { start_iso: "2026-12-01T12:00:00.000Z" },
        result,
      },
      summary: { byOutcome: new Map([["ok", 9], ["not_sent", 1]]) },
    } as unknown as RunResult);
    assert.deepEqual(p.written, [
      ProgressMessage.parse({ type: "progress", ...snapshot }),
      EndMessage.parse({
        type: "end",
        dir: "/runs/x/shard-0-of-2",
        epoch_iso: "2026-12-01T12:00:00.004Z",
        start_iso: "2026-12-01T12:00:00.000Z",
        by_outcome: { ok: 9, not_sent: 1 },
        ...result,
      }),
    ]);
    p.close();
  });
});
