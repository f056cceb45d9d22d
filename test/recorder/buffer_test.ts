import assert from "node:assert/strict";
import type { TaskExporter, TaskRows } from "../../recorder/types.ts";
import { readManifest, readTable, withRecorder } from "./_fixture.ts";

/** An exporter that keeps the request ids it was given. */
function keeper(): TaskExporter & { ids: string[] } {
  const ids: string[] = [];
  return {
    ids,
    export: (rows: TaskRows) => void ids.push(rows.request.request_id),
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

Deno.test("a full buffer drops whole tasks, counts them per table in run.json, and keeps the log consistent", async () => {
  const exporter = keeper();
  await withRecorder({ buffer: { max_rows: 5 }, exporters: [exporter] }, async ({ rec, clock, out }) => {
    // A: 1 request + 2 attempts + 1 tool = 4 rows (fits: 4 ≤ 5).
    const a = rec.begin({ class: "c", request_id: "A" });
    a.attempt().end({ ok: false, http_status: 500 });
    a.attempt().end({ ok: true });
    await a.span("lookup", () => null);
    a.complete({});
    // B: 1 request + 1 attempt = 2 rows; 4 + 2 = 6 > 5: dropped whole.
    const b = rec.begin({ class: "c", request_id: "B" });
    b.attempt().end({ ok: true });
    b.complete({});
    // C: 1 request: 4 + 1 = 5 ≤ 5, fits.
    rec.begin({ class: "c", request_id: "C" }).complete({});
    clock.at(2000);
    await rec.flush();
    assert.deepEqual((await readTable(out, "requests")).map((r) => r.request_id), ["A", "C"]);
    assert.deepEqual((await readTable(out, "attempts")).map((r) => r.request_id), ["A", "A"]);
    assert.deepEqual(exporter.ids, ["A", "C"], "a dropped task is not exported either");
    const m = readManifest(out);
    assert.deepEqual(m.dropped, {
      requests: 1,
      attempts: 1,
      tools: 0,
      phases: 0,
      page_records_unjoined: 0,
      recorder_errors: 0,
    });
    assert.equal(m.requests, 2);
    // The stage counts every sampled action, dropped or not: 3 actions in w0000, observed 0 → 2000 ms: 1.5 per s.
    assert.deepEqual(m.stages, [{ name: "w0000", kind: "steady", start_ms: 0, end_ms: 2000, offered_rps: 1.5 }]);
    // The flush emptied the buffer: a new task fits again.
    rec.begin({ class: "c", request_id: "D" }).complete({});
    await rec.flush();
    assert.equal(rec.stats().written, 3);
    assert.equal(rec.stats().buffered, 0);
  });
});

Deno.test("stages are fixed windows of stage_s from ms 0, the last ending at the observation's end", async () => {
  await withRecorder({ stage_s: 10 }, async ({ rec, clock, out }) => {
    // Actions at 1 s, 4 s, 12 s and 25 s; observation ends at 27.5 s.
    for (const s of [1, 4, 12, 25]) {
      clock.at(s * 1000);
      rec.begin({ class: "c" }).complete({});
    }
    clock.at(27_500);
    await rec.flush();
    const m = readManifest(out);
    assert.deepEqual(m.stages.map((s) => [s.name, s.start_ms, s.end_ms, s.offered_rps]), [
      ["w0000", 0, 10_000, 0.2], // 2 actions / 10 s
      ["w0001", 10_000, 20_000, 0.1], // 1 / 10 s
      ["w0002", 20_000, 27_500, 1 / 7.5], // 1 / 7.5 s
    ]);
    assert.deepEqual((await readTable(out, "requests")).map((r) => r.stage), ["w0000", "w0000", "w0001", "w0002"]);
    assert.equal(m.observation.ended_ms, 27_500);
    assert.equal(m.observation.status, "recording");
    assert.equal(m.observation.ended_iso, null);
  });
});
