import assert from "node:assert/strict";
import type { Task } from "../../recorder/types.ts";
import { readTable, T0, tempOut, testRecorder, withRecorder } from "./_fixture.ts";

for (const writer of ["thread", "app"] as const) {
  Deno.test(`the run folder removed mid-run (writer ${writer}): nothing throws into the app, every failure is counted`, async () => {
    const t = tempOut();
    const { rec, errors } = testRecorder(t.out, { writer });
    try {
      rec.begin({ class: "c", request_id: "kept" }).complete({});
      await rec.flush();
      assert.equal(rec.stats().written, 1);

      Deno.removeSync(t.out, { recursive: true });
      const task = rec.begin({ class: "c", request_id: "lost" });
      const mine = new Error("the app's own failure");
      // The app's own error passes through the recorder unchanged.
      await assert.rejects(() => task.span("lookup", () => Promise.reject(mine)), (e) => e === mine);
      task.attempt().end({ ok: true });
      task.complete({});
      await rec.flush(); // the CSV appends and run.json fail: counted, the rows kept for the next flush
      assert.equal(rec.stats().written, 1);
      assert.equal(rec.stats().buffered, 3, "1 request + 1 attempt + 1 tool held back");
      await rec.rotate(); // the part's Parquet and its CSV fallback fail too
      await rec.close();
      const s = rec.stats();
      assert.ok(s.recorder_errors > 0);
      assert.equal(s.recorder_errors, errors.length, "each failure is passed to onError once");
      assert.deepEqual(s.dropped, { requests: 1, attempts: 1, tools: 1, phases: 0 }, "what close could not write");
      assert.ok(errors.some((e) => (e as { code?: string }).code === "ENOENT"), "the file system's own error");
    } finally {
      t.remove();
    }
  });
}

Deno.test("an onError and exporters that throw are contained", async () => {
  let calls = 0;
  const failing = {
    export: () => {
      throw new Error("export");
    },
    flush: () => Promise.reject(new Error("flush")),
    close: () => Promise.reject(new Error("close")),
  };
  const onError = () => {
    calls++;
    throw new Error("the handler itself");
  };
  await withRecorder({ onError, exporters: [failing] }, async ({ rec, out }) => {
    rec.begin({ class: "c" }).complete({});
    await rec.flush(); // export throws, flush rejects: 2 errors, each passed to the throwing handler
    assert.equal(rec.stats().recorder_errors, 2);
    assert.equal(calls, 2);
    assert.equal((await readTable(out, "requests")).length, 1, "the log does not depend on the exporter");
  });
});

Deno.test("every public method takes bad input without throwing, and counts it", async () => {
  await withRecorder({}, async ({ rec, out, errors }) => {
    const unrecorded = rec.begin(null as never);
    assert.equal(unrecorded.sampled, false);
    assert.equal(rec.begin({ class: "" }).sampled, false);
    const t: Task = rec.begin({ class: "c", request_id: "q", priority: 1.5 });
    assert.equal(t.sampled, false, "a priority that is not an integer");
    const task = rec.begin({ class: "c", request_id: "ok" });
    assert.equal(rec.begin({ class: "c", request_id: "ok" }).sampled, false, "an id already open");
    task.sent(Number.NaN);
    const a = task.attempt({ round: -1 });
    a.headers(2.5);
    a.token("x" as never);
    a.end({ ok: "yes" as never, usage: { input_tokens: -1, output_tokens: 1 }, backoff_ms: -5 });
    task.attempt().end(null as never);
    await task.span("", () => 1);
    await task.phase("service", () => 1); // a name of the recorder's own
    task.complete("done" as never);
    task.fail("ok" as never, ""); // after complete: ignored
    rec.page(42);
    await rec.flush();
    // begin ×4, sent, round, headers, token, ok, usage, backoff, end(null), span, phase, complete, page: 16 errors.
    assert.equal(errors.length, 16, errors.map(String).join("\n"));
    const [req] = await readTable(out, "requests");
    assert.equal(req!.request_id, "ok");
    assert.equal(req!.outcome, "transport_error", "the final call ended as failed without a status");
    const attempts = await readTable(out, "attempts");
    assert.deepEqual(attempts.map((r) => [r.round, r.attempt, r.http_status, r.error_kind, r.input_tokens]), [
      [0, 1, null, "attempt_failed", 0],
      [0, 2, null, "attempt_failed", 0],
    ]);
  });
});

Deno.test("an instant the app tells that is not reached yet, or before what it follows, is refused, counted, and now used", async () => {
  await withRecorder({}, async ({ rec, out, errors, clock }) => {
    clock.at(100);
    const task = rec.begin({ class: "c", request_id: "t", at: T0 + 150 }); // ahead of the clock: the action is 100
    clock.at(110);
    task.sent(T0 + 90); // before the action
    clock.at(120);
    const a = task.attempt({ at: T0 + 50 }); // before the action: sent at 120
    clock.at(130);
    a.headers(200, T0 + 115); // before the call's send
    clock.at(140);
    a.token(T0 + 140);
    clock.at(145);
    a.token(T0 + 135); // before the token before it: at 145
    a.end({ ok: true, usage: { input_tokens: 3, output_tokens: 2 }, at: T0 + 1e9 }); // not reached: at 145
    clock.at(150);
    task.complete({ valid: true, at: T0 + 149.5 }); // earlier than the call, after all it follows: kept
    const late = rec.begin({ class: "c", request_id: "u" });
    late.complete({ at: T0 + 3_600_000 }); // an hour ahead: ended now, so it settles and is written as usual
    await rec.flush();
    assert.deepEqual(errors.map((e) => String(e).replace(/: [-\d.e+]+ is [\d.]+ ms/, ": X is N ms")), [
      "TypeError: begin.at: X is N ms after the recorder's clock (an instant not yet reached); the clock's now is used",
      "TypeError: task.sent: X is N ms before the task's action; the clock's now is used",
      "TypeError: attempt.at: X is N ms before the task's action; the clock's now is used",
      "TypeError: attempt.headers: X is N ms before the call's send; the clock's now is used",
      "TypeError: attempt.token: X is N ms before the call's token before it; the clock's now is used",
      "TypeError: attempt.end: X is N ms after the recorder's clock (an instant not yet reached); the clock's now is used",
      "TypeError: complete.at: X is N ms after the recorder's clock (an instant not yet reached); the clock's now is used",
    ]);
    assert.match(String(errors[1]), new RegExp(`task.sent: ${T0 + 90} is 10 ms before`));
    assert.equal(rec.stats().recorder_errors, 7);
    const requests = await readTable(out, "requests");
    assert.deepEqual(
      requests.map((r) => [r.request_id, r.scheduled_ms, r.first_sent_ms, r.first_token_ms, r.completed_ms]),
      [["t", 100, 110, 140, 149.5], ["u", 150, null, null, 150]],
    );
    const [row] = await readTable(out, "attempts");
    assert.deepEqual(
      [row!.sent_ms, row!.headers_ms, row!.first_token_ms, row!.last_token_ms, row!.completed_ms, row!.itl_max_ms],
      [120, 130, 140, 145, 145, 5],
    );
  });
});
